"""Same numbers before and after a re-cut: record every public metric, compare.

``python benchmarks/bench_recut_identity.py record --out F`` computes every
public metric of :mod:`skfair.metrics` (the distribution metrics, the rate
metrics and their multiclass forms, :class:`GroupMetricFrame`, the scorers
on a small fitted model, intervals and tests with a fixed ``random_state``,
HFM) on fixed seeded inputs (binary scores with ties, weights, several
groups, intersections, K = 3 class probabilities, regression), and the
``to_dict()`` of :func:`skfair.report.audit` on bundled data (binary,
regression, multiclass, fixed seed), and pickles every value.

``python benchmarks/bench_recut_identity.py compare --baseline F`` computes
the same cases again and prints how many are bit-identical, the largest
absolute difference and every mismatch. A case whose public function is
gone is listed as missing; ``RENAMED`` maps an old case to the call that
replaces it, so a replaced API is compared against its replacement.

Each case is a name and a function of no arguments; its value is turned
into plain data (floats, strings, lists, dicts) before it is stored, so
result objects compare field by field.
"""

import argparse
import dataclasses
import math
import pickle
import sys
import time
import warnings

import numpy as np
import pandas as pd

import skfair
import skfair.metrics as M

SEED = 20261202


# -- inputs -----------------------------------------------------------------
def _inputs():
    rng = np.random.default_rng(SEED)
    n = 600
    data = {}
    # binary scores on a coarse grid: many ties, some exactly 0 and 1
    score = np.round(rng.beta(2, 3, n), 2)
    score[:15] = 0.0
    score[15:30] = 1.0
    group = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    second = rng.choice(["x", "y"], n)
    y = (rng.random(n) < 0.3 + 0.4 * score).astype(int)
    data["y"] = y
    data["score"] = score
    data["pred"] = (score >= 0.5).astype(int)
    data["group"] = group
    data["two"] = np.where(group == "a", "a", "rest")
    data["frame"] = pd.DataFrame({"g": group, "h": second})
    data["w"] = rng.integers(1, 4, n).astype(float)
    # multiclass, K = 3
    logits = rng.normal(size=(n, 3)) + np.where(group == "a", 0.4, 0.0)[:, None]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    data["proba"] = proba
    data["y3"] = rng.integers(0, 3, n)
    data["pred3"] = np.argmax(proba, axis=1)
    # regression
    data["yr"] = rng.normal(size=n)
    data["pr"] = data["yr"] + rng.normal(scale=0.5, size=n) + (group == "b") * 0.3
    data["X"] = rng.normal(size=(n, 3))
    return data


# -- turning results into plain data ----------------------------------------
def plain(value):
    """Floats, strings, lists and dicts only (so two runs compare field by field)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, pd.DataFrame):
        return {
            "index": [plain(i) for i in value.index.tolist()],
            "columns": [plain(c) for c in value.columns.tolist()],
            "values": [[plain(v) for v in row] for row in value.to_numpy().tolist()],
        }
    if isinstance(value, pd.Series):
        return {
            "index": [plain(i) for i in value.index.tolist()],
            "values": [plain(v) for v in value.tolist()],
        }
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if dataclasses.is_dataclass(value):
        return {
            f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)
        }
    if hasattr(value, "_asdict"):
        return plain(value._asdict())
    if hasattr(value, "__dict__"):
        return {k: plain(v) for k, v in vars(value).items() if not k.startswith("_")}
    return repr(value)


def leaves(value, prefix=""):
    """``(path, leaf)`` of every leaf of a plain value."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, f"{prefix}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, f"{prefix}[{i}]")
    else:
        yield prefix, value


# -- the cases --------------------------------------------------------------
def _distribution_cases(d):
    s, g, f, w, y = d["score"], d["group"], d["frame"], d["w"], d["y"]
    cases = {}
    for name, fn in [
        ("mcdp", M.mcdp),
        ("mcdp_details", M.mcdp_details),
        ("abcc", M.abcc),
        ("abpc", M.abpc),
        ("delta_dp", M.delta_dp),
    ]:
        cases[f"{name}/groups"] = lambda fn=fn: fn(y, s, sensitive_features=g)
        cases[f"{name}/weights"] = lambda fn=fn: fn(
            y, s, sensitive_features=g, sample_weight=w
        )
        cases[f"{name}/intersection"] = lambda fn=fn: fn(y, s, sensitive_features=f)
        cases[f"{name}/marginal_mean"] = lambda fn=fn: fn(
            y, s, sensitive_features=f, combine="marginal", agg="mean"
        )
        cases[f"{name}/multiclass_max"] = lambda fn=fn: fn(
            d["y3"], d["proba"], sensitive_features=g
        )
        cases[f"{name}/multiclass_mean"] = lambda fn=fn: fn(
            d["y3"], d["proba"], sensitive_features=g, class_agg="mean"
        )
    cases["mcdp/eps0.05"] = lambda: M.mcdp(y, s, sensitive_features=g, epsilon=0.05)
    cases["mcdp/approx"] = lambda: M.mcdp(
        y, s, sensitive_features=g, epsilon=0.05, method="approx"
    )
    cases["mcdp_details/eps0.1"] = lambda: M.mcdp_details(
        y, s, sensitive_features=f, epsilon=0.1
    )
    cases["mcdp_curve"] = lambda: M.mcdp_curve(
        y, s, sensitive_features=g, epsilons=[0.0, 0.01, 0.1, 0.3]
    )
    cases["mcdp_curve/multiclass"] = lambda: M.mcdp_curve(
        d["y3"], d["proba"], sensitive_features=g, epsilons=[0.0, 0.1]
    )
    cases["abcc/grid"] = lambda: M.abcc(y, s, sensitive_features=g, method="grid")
    cases["delta_dp/threshold"] = lambda: M.delta_dp(
        y, s, sensitive_features=g, threshold=0.5
    )
    cases["abpc/regression"] = lambda: M.abpc(
        d["yr"], d["pr"], sensitive_features=g, domain=None
    )
    cases["per_class_values"] = lambda: M.per_class_values(
        d["y3"], d["proba"], sensitive_features=g
    )
    return cases


RATE_METRICS = [
    "demographic_parity_difference",
    "demographic_parity_ratio",
    "equalized_odds_difference",
    "equalized_odds_ratio",
    "false_positive_rate_difference",
    "false_positive_rate_ratio",
    "true_positive_rate_difference",
    "true_positive_rate_ratio",
]
MULTICLASS_RATES = [
    "multiclass_equalized_odds_difference",
    "multiclass_false_positive_rate_difference",
    "multiclass_selection_rate_difference",
    "multiclass_true_positive_rate_difference",
]
# the call that replaces a case whose public function is gone (a re-cut that
# replaces an API fills this in; the baseline keeps the old case names)
RENAMED = {}


def _rate_cases(d):
    y, p, g, f, w = d["y"], d["pred"], d["group"], d["frame"], d["w"]
    cases = {}
    for name in RATE_METRICS:
        fn = getattr(M, name, None)
        cases[f"{name}/groups"] = lambda fn=fn: fn(y, p, sensitive_features=g)
        cases[f"{name}/weights"] = lambda fn=fn: fn(
            y, p, sensitive_features=g, sample_weight=w
        )
        cases[f"{name}/intersection"] = lambda fn=fn: fn(y, p, sensitive_features=f)
        cases[f"{name}/to_overall"] = lambda fn=fn: fn(
            y, p, sensitive_features=g, method="to_overall"
        )
    for name in ["equalized_odds_difference", "equalized_odds_ratio"]:
        fn = getattr(M, name)
        cases[f"{name}/mean"] = lambda fn=fn: fn(y, p, sensitive_features=g, agg="mean")
    for name in MULTICLASS_RATES:
        fn = getattr(M, name, None)
        cases[f"{name}/k3"] = lambda fn=fn: fn(
            d["y3"], d["pred3"], sensitive_features=g
        )
        cases[f"{name}/k3_mean"] = lambda fn=fn: fn(
            d["y3"], d["pred3"], sensitive_features=g, class_agg="mean", agg="mean"
        )
        cases[f"{name}/k3_weights_frame"] = lambda fn=fn: fn(
            d["y3"], d["pred3"], sensitive_features=f, sample_weight=w
        )
        cases[f"{name}/binary"] = lambda fn=fn: fn(y, p, sensitive_features=g)
    for rate in ["selection_rate", "true_positive_rate", "false_positive_rate"]:
        cases[f"multiclass_rate_details/{rate}"] = lambda rate=rate: (
            M.multiclass_rate_details(
                d["y3"], d["pred3"], sensitive_features=g, rate=rate
            )
        )
    cases["multiclass_rate_table"] = lambda: M.multiclass_rate_table(
        d["y3"], d["pred3"], sensitive_features=g
    )
    cases["four_fifths"] = lambda: M.four_fifths(y, p, sensitive_features=g)
    cases["four_fifths/weights"] = lambda: M.four_fifths(
        y, p, sensitive_features=f, sample_weight=w
    )
    for name in [
        "demographic_parity_gap",
        "equal_opportunity_gap",
        "predictive_quality_parity_gap",
    ]:
        fn = getattr(M, name)
        cases[name] = lambda fn=fn: fn(y, p, sensitive_features=d["two"])
        cases[f"{name}/privileged"] = lambda fn=fn: fn(
            y, p, sensitive_features=g, privileged="a"
        )
    for name in [
        "mean_absolute_error_difference",
        "mean_residual_difference",
        "root_mean_squared_error_difference",
    ]:
        fn = getattr(M, name)
        cases[name] = lambda fn=fn: fn(d["yr"], d["pr"], sensitive_features=g)
        cases[f"{name}/weights_frame"] = lambda fn=fn: fn(
            d["yr"], d["pr"], sensitive_features=f, sample_weight=w, agg="mean"
        )
    cases["regression_group_table"] = lambda: M.regression_group_table(
        d["yr"], d["pr"], sensitive_features=g
    )
    cases["regression_gap_intervals"] = lambda: M.regression_gap_intervals(
        d["yr"], d["pr"], sensitive_features=g, n_resamples=200, random_state=0
    )
    return cases


def _frame(gmf):
    out = {
        "by_group": gmf.by_group,
        "overall": gmf.overall,
        "group_min": gmf.group_min(),
        "group_max": gmf.group_max(),
        "difference": gmf.difference(),
        "ratio": gmf.ratio(),
        "difference_to_overall": gmf.difference(method="to_overall"),
    }
    return out


def _frame_cases(d):
    from sklearn.metrics import accuracy_score, recall_score

    y, p, g, f, w = d["y"], d["pred"], d["group"], d["frame"], d["w"]
    metrics = {"accuracy": accuracy_score, "recall": recall_score}
    return {
        "GroupMetricFrame/groups": lambda: _frame(
            M.GroupMetricFrame(
                metrics=metrics, y_true=y, y_pred=p, sensitive_features=g
            )
        ),
        "GroupMetricFrame/weights_frame": lambda: _frame(
            M.GroupMetricFrame(
                metrics=metrics,
                y_true=y,
                y_pred=p,
                sensitive_features=f,
                sample_params={k: {"sample_weight": w} for k in metrics},
            )
        ),
        "GroupMetricFrame/strings": lambda: _frame(
            M.GroupMetricFrame(
                metrics={"sel": "selection_rate", "tpr": "true_positive_rate"},
                y_true=y,
                y_pred=p,
                sensitive_features=g,
            )
        ),
    }


def _scorer_cases(d):
    from sklearn.linear_model import LogisticRegression

    X = np.column_stack([d["X"], (d["group"] == "a").astype(float)])
    y = d["y"]
    model = LogisticRegression().fit(X, y)
    sens = X.shape[1] - 1
    makers = {
        "make_mcdp_scorer": lambda: M.make_mcdp_scorer(sensitive=sens),
        "make_mcdp_scorer/eps": lambda: M.make_mcdp_scorer(
            sensitive=sens, epsilon=0.05
        ),
        "make_abcc_scorer": lambda: M.make_abcc_scorer(sensitive=sens),
        "make_abpc_scorer": lambda: M.make_abpc_scorer(sensitive=sens),
        "make_delta_dp_scorer": lambda: M.make_delta_dp_scorer(sensitive=sens),
        "make_delta_dp_scorer/threshold": lambda: M.make_delta_dp_scorer(
            sensitive=sens, threshold=0.5
        ),
        "make_hfm_scorer": lambda: M.make_hfm_scorer(sensitive=sens),
        "make_rate_scorer/dpd": lambda: M.make_rate_scorer(
            "demographic_parity_difference", sensitive=sens
        ),
        "make_rate_scorer/eod": lambda: M.make_rate_scorer(
            "equalized_odds_difference", sensitive=sens
        ),
    }
    cases = {
        name: lambda make=make: make()(model, X, y) for name, make in makers.items()
    }
    y3 = d["y3"]
    model3 = LogisticRegression().fit(X, y3)
    cases["make_mcdp_scorer/multiclass"] = lambda: M.make_mcdp_scorer(sensitive=sens)(
        model3, X, y3
    )
    return cases


def _inference_cases(d):
    y, s, g, f = d["y"], d["score"], d["group"], d["frame"]
    cases = {}
    for metric in ["mcdp", "abcc", "delta_dp", "abpc"]:
        cases[f"metric_confidence_interval/{metric}"] = lambda metric=metric: (
            M.metric_confidence_interval(
                y,
                s,
                sensitive_features=g,
                metric=metric,
                n_resamples=99,
                random_state=0,
            )
        )
        cases[f"disparity_test/{metric}"] = lambda metric=metric: M.disparity_test(
            y, s, sensitive_features=g, metric=metric, n_resamples=99, random_state=0
        )
    cases["metric_confidence_interval/bootstrap_frame"] = lambda: (
        M.metric_confidence_interval(
            y,
            s,
            sensitive_features=f,
            metric="mcdp",
            method="bootstrap",
            n_resamples=99,
            random_state=1,
            sample_weight=d["w"],
        )
    )
    cases["disparity_test/permutation"] = lambda: M.disparity_test(
        y,
        s,
        sensitive_features=g,
        metric="mcdp",
        method="permutation",
        n_resamples=99,
        random_state=1,
    )
    cases["metric_confidence_interval/multiclass"] = lambda: (
        M.metric_confidence_interval(
            d["y3"],
            d["proba"],
            sensitive_features=g,
            metric="mcdp",
            n_resamples=99,
            random_state=0,
        )
    )
    cases["disparity_test/multiclass"] = lambda: M.disparity_test(
        d["y3"],
        d["proba"],
        sensitive_features=g,
        metric="abcc",
        n_resamples=99,
        random_state=0,
    )
    cases["dkw_halfwidth"] = lambda: [M.dkw_halfwidth(n, 0.05) for n in (10, 1000)]
    return cases


def _hfm_cases(d):
    X, y, p, two = d["X"][:300], d["y"][:300], d["pred"][:300], d["two"][:300]
    return {
        "hfm/exact": lambda: M.hfm(X, y, p, sensitive_features=two),
        "hfm/approx": lambda: M.hfm(
            X, y, p, sensitive_features=two, method="approx", random_state=0
        ),
        "hfm_distances": lambda: M.hfm_distances(X, y, sensitive_features=two),
        "discriminative_risk": lambda: _discriminative_risk(d),
    }


def _discriminative_risk(d):
    from sklearn.linear_model import LogisticRegression

    X = np.column_stack([d["X"], (d["group"] == "a").astype(float)])
    model = LogisticRegression().fit(X, d["y"])
    return M.discriminative_risk(model, X, sensitive=X.shape[1] - 1, random_state=0)


def _dask_cases(d):
    def arrays(*names):
        import dask.array as da

        return [da.from_array(np.asarray(d[n]), chunks=150) for n in names]

    cases = {}
    for name in ["mcdp", "abcc", "delta_dp", "mcdp_details"]:
        fn = getattr(M, name)
        cases[f"dask/{name}"] = lambda fn=fn: fn(
            *arrays("y", "score"), sensitive_features=arrays("group")[0]
        )
    cases["dask/mcdp_multiclass"] = lambda: M.mcdp(
        *arrays("y3", "proba"), sensitive_features=arrays("group")[0]
    )
    cases["dask/audit"] = lambda: skfair.report.audit(
        *arrays("y", "score"),
        sensitive_features=arrays("group")[0],
        n_resamples=99,
        n_permutations=99,
        random_state=0,
    ).to_dict()
    return cases


def _audit_cases():
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.model_selection import train_test_split

    from skfair.datasets import load_communities_crime, load_compas, load_german_credit

    def binary():
        bunch = load_german_credit()
        X = bunch.data.select_dtypes("number")
        Xa, Xb, ya, yb, _, sb = train_test_split(
            X, bunch.target, bunch.sensitive, test_size=0.5, random_state=0
        )
        score = LogisticRegression(max_iter=500).fit(Xa, ya).predict_proba(Xb)[:, 1]
        return skfair.report.audit(
            yb.to_numpy(),
            score,
            sensitive_features=sb.reset_index(drop=True),
            n_resamples=99,
            n_permutations=99,
            random_state=0,
        )

    def regression():
        bunch = load_communities_crime()
        X = bunch.data.select_dtypes("number").drop(columns=["fold"], errors="ignore")
        Xa, Xb, ya, yb, _, sb = train_test_split(
            X, bunch.target, bunch.sensitive, test_size=0.5, random_state=0
        )
        pred = Ridge().fit(Xa, ya).predict(Xb)
        return skfair.report.audit(
            np.asarray(yb),
            pred,
            sensitive_features=sb.reset_index(drop=True).astype(str),
            task="regression",
            n_resamples=99,
            n_permutations=99,
            random_state=0,
        )

    def multiclass():
        frame = load_compas(preprocessing="raw").frame.dropna(subset=["score_text"])
        X = frame[["age", "priors_count", "juv_fel_count"]].astype(float)
        y = frame["score_text"].astype(str).to_numpy()
        Xa, Xb, ya, yb, _, fb = train_test_split(
            X, y, frame, test_size=0.5, random_state=0
        )
        model = LogisticRegression(max_iter=1000).fit(Xa, ya)
        proba = pd.DataFrame(model.predict_proba(Xb), columns=model.classes_)
        return skfair.report.audit(
            yb,
            proba,
            sensitive_features=fb[["race", "sex"]].astype(str).reset_index(drop=True),
            task="multiclass",
            n_resamples=99,
            n_permutations=99,
            random_state=0,
        )

    return {
        "audit/binary": lambda: binary().to_dict(),
        "audit/regression": lambda: regression().to_dict(),
        "audit/multiclass": lambda: multiclass().to_dict(),
    }


def cases():
    d = _inputs()
    out = {}
    for part in (
        _distribution_cases,
        _rate_cases,
        _frame_cases,
        _scorer_cases,
        _inference_cases,
        _hfm_cases,
        _dask_cases,
    ):
        out.update(part(d))
    out.update(_audit_cases())
    return out


def compute(names=None):
    values, seconds = {}, time.perf_counter()
    table = cases()
    for name in names or table:
        call = RENAMED.get(name, table.get(name))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                values[name] = ("ok", plain(call()))
        except Exception as exc:  # an error is a value too: it must stay the same
            values[name] = ("error", f"{type(exc).__name__}: {exc}")
    return values, time.perf_counter() - seconds


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    return type(a) is type(b) and a == b


def diff(old, new):
    """``(bit-identical, max abs diff, [mismatch lines])`` of two plain values."""
    if old[0] != new[0]:
        return False, math.inf, [f"status {old[0]} -> {new[0]}: {new[1]!r:.200}"]
    a, b = dict(leaves(old[1])), dict(leaves(new[1]))
    wrong, worst = [], 0.0
    for path in sorted(set(a) | set(b)):
        if path not in a or path not in b:
            wrong.append(f"{path or '.'}: only in {'new' if path in b else 'old'}")
            worst = math.inf
            continue
        x, y = a[path], b[path]
        if _same(x, y):
            continue
        numeric = all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y)
        )
        gap = abs(x - y) if numeric else math.inf
        worst = max(worst, gap if not math.isnan(gap) else math.inf)
        wrong.append(f"{path or '.'}: {x!r:.80} -> {y!r:.80}")
    return not wrong, worst, wrong


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record")
    rec.add_argument("--out", required=True)
    cmp_ = sub.add_parser("compare")
    cmp_.add_argument("--baseline", required=True)
    cmp_.add_argument("--show", type=int, default=5, help="mismatch lines per case")
    args = parser.parse_args(argv)
    if args.command == "record":
        values, seconds = compute()
        with open(args.out, "wb") as fh:
            pickle.dump(values, fh)
        errors = sum(v[0] == "error" for v in values.values())
        print(f"recorded {len(values)} cases ({errors} raise) in {seconds:.1f} s")
        return 0
    with open(args.baseline, "rb") as fh:
        baseline = pickle.load(fh)
    table = cases()
    present = [n for n in baseline if n in table or n in RENAMED]
    missing = [n for n in baseline if n not in present]
    values, seconds = compute(present)
    identical, worst, bad = 0, 0.0, []
    n_values = 0
    for name in present:
        same, gap, lines = diff(baseline[name], values[name])
        n_values += sum(1 for _ in leaves(baseline[name][1]))
        identical += same
        worst = max(worst, gap)
        if not same:
            bad.append((name, gap, lines))
    new = sorted(set(table) - set(baseline))
    print("| cases | values | bit-identical | max abs diff | mismatches | missing |")
    print("|---|---|---|---|---|---|")
    print(
        f"| {len(present)} | {n_values} | {identical} | {worst:.3g} | {len(bad)} "
        f"| {len(missing)} |"
    )
    print(f"({seconds:.1f} s; {len(new)} new cases not in the baseline)")
    for name, gap, lines in bad:
        print(f"MISMATCH {name} (max abs diff {gap:.3g}):")
        for line in lines[: args.show]:
            print("   ", line)
        if len(lines) > args.show:
            print(f"    ... {len(lines) - args.show} more")
    for name in missing:
        print(f"MISSING {name}")
    return 1 if bad or missing else 0


if __name__ == "__main__":
    sys.exit(main())
