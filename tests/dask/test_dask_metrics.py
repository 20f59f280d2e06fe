"""Dask inputs give exactly the in-memory metrics (issue 15).

Every test runs on a small in-process ``distributed.LocalCluster``. The
engines are reached through ``skfair.metrics._dask.dask_dispatch`` applied here
to the public functions (a no-op wrapper if they are already decorated).
"""

import re

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask", reason="the dask extra is not installed")
distributed = pytest.importorskip("distributed", reason="distributed is not installed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402

import skfair.metrics as M  # noqa: E402
from skfair.metrics._dask import _passes, dask_dispatch  # noqa: E402
from skfair.metrics._dask._inputs import (  # noqa: E402
    DASK_SAMPLE_WEIGHT_ERROR,
    PARTITION_COUNT_ERROR,
    PARTITION_INDEX_ERROR,
    PARTITION_LENGTH_ERROR,
    PARTITION_NAN_LABEL_ERROR,
    PARTITION_NAN_SENSITIVE_ERROR,
    PARTITION_NON_FINITE_ERROR,
)
from skfair.utils._dask import MIXED_INPUT_ERROR  # noqa: E402

EPSILONS = [0.0, 1e-3, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0]


# a small in-process cluster for every test here (tests/conftest.py)
pytestmark = [
    pytest.mark.usefixtures("client"),
    pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning"),
]


def on_dask(name):
    return dask_dispatch(name)(getattr(M, name))


def pre(message):
    """The longest fixed part of a message template, for pytest.raises(match=)."""
    import re

    pieces = re.split(r"\{[^}]*\}", message)
    return re.escape(max(pieces, key=len))


def make_data(rng, n, n_groups, atoms=True):
    """Scores with ties, atoms at 0, 1 and a few inner values; shifted groups."""
    s = rng.integers(0, n_groups, n)
    y = rng.beta(2 + s, 3.0)
    if atoms:
        y = np.round(y, int(rng.integers(1, 4)))
        y[rng.random(n) < 0.05] = 0.0
        y[rng.random(n) < 0.05] = 1.0
        y[rng.random(n) < 0.05] = 0.5
    # the first third sorted by group: some partitions lack some groups
    head = n // 3
    s[:head] = np.sort(s[:head])
    return y, s


def uneven_chunks(rng, n, n_parts):
    """n_parts chunk sizes summing to n, some of them empty."""
    if n_parts == 1:
        return (n,)
    cuts = np.sort(rng.integers(0, n + 1, n_parts - 1))
    sizes = np.diff(np.r_[0, cuts, n])
    sizes[rng.integers(0, n_parts)] = 0  # at least one empty partition
    sizes[-1] += n - sizes.sum()
    return tuple(int(v) for v in sizes)


def frame_partitions(df, chunks):
    from dask import delayed

    bounds = np.r_[0, np.cumsum(chunks)]
    parts = [delayed(df.iloc[a:b]) for a, b in zip(bounds[:-1], bounds[1:])]
    return dd.from_delayed(parts, meta=df.iloc[:0], verify_meta=False)


CASES = [
    # seed, n, groups, partitions, n_bins
    (0, 400, 2, 1, None),
    (1, 900, 3, 3, 1 << 6),
    (2, 1500, 5, 17, 1 << 4),
    (3, 700, 2, 17, 1 << 10),
    (4, 1200, 4, 3, 1 << 8),
    (5, 300, 2, 3, 1 << 3),
]


@pytest.mark.parametrize(("seed", "n", "n_groups", "n_parts", "n_bins"), CASES)
def test_mcdp_curve_equals_numpy(monkeypatch, seed, n, n_groups, n_parts, n_bins):
    if n_bins is not None:
        monkeypatch.setattr(_passes, "N_BINS", n_bins)
    rng = np.random.default_rng(seed)
    y, s = make_data(rng, n, n_groups, atoms=seed % 3 != 2)
    chunks = uneven_chunks(rng, n, n_parts)
    ys, ss = da.from_array(y, chunks=(chunks,)), da.from_array(s, chunks=(chunks,))
    for rounding, agg in (("exact", "max"), ("float", "mean")):
        expected = M.mcdp_curve(
            None,
            y,
            sensitive_features=s,
            epsilons=EPSILONS,
            rounding=rounding,
            agg=agg,
        )
        got = on_dask("mcdp_curve")(
            None,
            ys,
            sensitive_features=ss,
            epsilons=EPSILONS,
            rounding=rounding,
            agg=agg,
        )
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("seed", [10, 11])
def test_mcdp_details_on_dataframes(monkeypatch, seed):
    monkeypatch.setattr(_passes, "N_BINS", 1 << 5)
    rng = np.random.default_rng(seed)
    n = 800
    y, s = make_data(rng, n, 3)
    df = pd.DataFrame(
        {
            "y": y,
            "sex": np.where(s == 0, "f", "m"),
            "age": pd.Categorical(rng.choice(["old", "young"], n)),
        }
    )
    ddf = frame_partitions(df, uneven_chunks(rng, n, 5))
    for combine in ("intersection", "marginal"):
        for eps in (0.0, 0.05):
            exp = M.mcdp_details(
                None,
                df["y"],
                sensitive_features=df[["sex", "age"]],
                epsilon=eps,
                combine=combine,
            )
            got = on_dask("mcdp_details")(
                None,
                ddf["y"],
                sensitive_features=ddf[["sex", "age"]],
                epsilon=eps,
                combine=combine,
            )
            assert got.value == exp.value
            assert got.pair_values == exp.pair_values
            assert got.attribute == exp.attribute
            assert got.groups == exp.groups
            if eps == 0.0:  # a unique first maximiser: same threshold and side
                assert got.threshold == exp.threshold
                assert got.higher_cdf_group == exp.higher_cdf_group
                assert got.window == exp.window
    assert on_dask("mcdp")(
        ddf["y"], ddf["y"], sensitive_features=ddf["sex"], epsilon=0.05
    ) == M.mcdp(df["y"], df["y"], sensitive_features=df["sex"], epsilon=0.05)


def test_exact_zeros_ones_and_a_single_atom():
    # the MCDP paper's counter-example at 0 and all mass at a few atoms
    y = np.array([0, 0, 0.15, 0.15] + [0.15] * 4 + [1.0, 1.0, 0.0, 1.0])
    s = np.array([0] * 4 + [1] * 4 + [0, 1, 1, 0])
    ys, ss = da.from_array(y, chunks=3), da.from_array(s, chunks=3)
    for eps in (0.0, 0.05, 0.1, 0.15, 0.5):
        assert on_dask("mcdp")(None, ys, sensitive_features=ss, epsilon=eps) == M.mcdp(
            None, y, sensitive_features=s, epsilon=eps
        )
    same = da.from_array(np.full(10, 0.3), chunks=4)
    groups = da.from_array(np.arange(10) % 2, chunks=4)
    assert on_dask("mcdp")(None, same, sensitive_features=groups) == 0.0


def test_scores_outside_unit_interval_at_epsilon_zero():
    rng = np.random.default_rng(5)
    y = rng.normal(size=600) * 3
    y[::7] = np.round(y[::7])
    s = rng.integers(0, 3, 600)
    ys, ss = da.from_array(y, chunks=100), da.from_array(s, chunks=100)
    exp = M.mcdp_details(None, y, sensitive_features=s)
    got = on_dask("mcdp_details")(None, ys, sensitive_features=ss)
    assert (got.value, got.threshold, got.groups) == (
        exp.value,
        exp.threshold,
        exp.groups,
    )
    assert on_dask("abcc")(None, ys, sensitive_features=ss) == pytest.approx(
        M.abcc(None, y, sensitive_features=s), rel=1e-10
    )


@pytest.mark.parametrize(("seed", "n_parts"), [(20, 1), (21, 3), (22, 17)])
def test_approx_abcc_delta_dp_equal_numpy(monkeypatch, seed, n_parts):
    monkeypatch.setattr(_passes, "N_BINS", 1 << 7)
    rng = np.random.default_rng(seed)
    n = 1000
    y, s = make_data(rng, n, 2 + seed % 3)
    chunks = uneven_chunks(rng, n, n_parts)
    ys, ss = da.from_array(y, chunks=(chunks,)), da.from_array(s, chunks=(chunks,))
    kw = {"sensitive_features": s}
    dkw = {"sensitive_features": ss}
    eps = [0.01, 0.05, 0.2]
    np.testing.assert_array_equal(
        on_dask("mcdp_curve")(None, ys, epsilons=eps, method="approx", **dkw),
        M.mcdp_curve(None, y, epsilons=eps, method="approx", **kw),
    )
    assert on_dask("mcdp")(
        None, ys, epsilon=0.05, method="approx", sampling_frequency=8, **dkw
    ) == M.mcdp(None, y, epsilon=0.05, method="approx", sampling_frequency=8, **kw)
    for agg in ("max", "mean"):
        assert on_dask("abcc")(None, ys, agg=agg, **dkw) == pytest.approx(
            M.abcc(None, y, agg=agg, **kw), rel=1e-10, abs=1e-15
        )
        assert on_dask("abcc")(
            None, ys, method="grid", n_points=257, agg=agg, **dkw
        ) == (M.abcc(None, y, method="grid", n_points=257, agg=agg, **kw))
        assert on_dask("delta_dp")(None, ys, agg=agg, **dkw) == pytest.approx(
            M.delta_dp(None, y, agg=agg, **kw), rel=1e-10, abs=1e-15
        )
        assert on_dask("delta_dp")(None, ys, threshold=0.5, agg=agg, **dkw) == (
            M.delta_dp(None, y, threshold=0.5, agg=agg, **kw)
        )


@pytest.mark.parametrize(
    "name",
    [
        "demographic_parity_gap",
        "equal_opportunity_gap",
        "predictive_quality_parity_gap",
    ],
)
def test_group_gaps_equal_numpy(name):
    rng = np.random.default_rng(7)
    n = 600
    df = pd.DataFrame(
        {
            "truth": rng.choice(["no", "yes"], n),
            "pred": rng.choice(["no", "yes"], n),
            "race": rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2]),
            "sex": rng.integers(0, 2, n),
        }
    )
    ddf = frame_partitions(df, uneven_chunks(rng, n, 4))
    for sens, priv in (("race", None), ("race", "c"), (["race", "sex"], ("b", 1))):
        exp = getattr(M, name)(
            df["truth"],
            df["pred"],
            sensitive_features=df[sens],
            privileged=priv,
            pos_label="yes",
        )
        got = on_dask(name)(
            ddf["truth"],
            ddf["pred"],
            sensitive_features=ddf[sens],
            privileged=priv,
            pos_label="yes",
        )
        assert got == exp


@pytest.mark.parametrize(
    "name",
    [
        "demographic_parity_gap",
        "equal_opportunity_gap",
        "predictive_quality_parity_gap",
    ],
)
def test_group_gaps_count_samples_not_distinct_rows(name):
    from sklearn.exceptions import UndefinedMetricWarning

    rng = np.random.default_rng(11)
    # "b" is the largest group but holds one distinct (truth, pred) row, "a"
    # and "c" hold four: the default privileged group and min_group_size
    # must count samples, not the distinct rows the engine aggregates
    sizes = {"a": 40, "b": 300, "c": 25}
    g = np.repeat(list(sizes), list(sizes.values()))
    truth, pred = rng.integers(0, 2, g.size), rng.integers(0, 2, g.size)
    truth[g == "b"], pred[g == "b"] = 1, 1
    df = pd.DataFrame({"t": truth, "p": pred, "g": g}).sample(frac=1, random_state=0)
    ddf = frame_partitions(df, uneven_chunks(rng, g.size, 3))
    for kw in ({}, {"min_group_size": 30}, {"privileged": "c"}):
        exp = getattr(M, name)(df["t"], df["p"], sensitive_features=df["g"], **kw)
        got = on_dask(name)(ddf["t"], ddf["p"], sensitive_features=ddf["g"], **kw)
        assert got == exp, kw
    assert on_dask(name)(
        ddf["t"], ddf["p"], sensitive_features=ddf["g"], privileged="b"
    ) == (getattr(M, name)(df["t"], df["p"], sensitive_features=df["g"]))
    if name != "demographic_parity_gap":  # no positive label / prediction in b
        flipped = (1 - ddf["t"], 1 - ddf["p"])
        with pytest.warns(UndefinedMetricWarning, match="privileged group"):
            assert np.isnan(on_dask(name)(*flipped, sensitive_features=ddf["g"]))


def test_many_string_groups_count_samples_not_distinct_rows():
    from skfair.utils._group_encoding import (
        CONTINUOUS_SENSITIVE_ERROR,
        TINY_GROUPS_REASON,
        UNCOUNTED_REASON,
    )

    # 51 string groups of 100 samples: the engines see about one distinct row
    # per group, which the rule on the mean group size must not count as
    # samples (it refused this data on Dask only); groups of fewer than 5
    # samples on average are still refused, with the data's sample count
    rng = np.random.default_rng(5)
    g = np.repeat([f"g{i:02d}" for i in range(51)], 100)
    df = pd.DataFrame(
        {"t": rng.integers(0, 2, g.size), "p": rng.integers(0, 2, g.size)}
    ).assign(s=rng.random(g.size), g=g, a=g, b=g.astype(object))
    ddf = dd.from_pandas(df, npartitions=3)
    assert M.mcdp(None, ddf["s"], sensitive_features=ddf[["a", "b"]]) == M.mcdp(
        None, df["s"], sensitive_features=df[["a", "b"]]
    )
    array = da.from_array(df["g"].to_numpy(), chunks=2000)
    assert M.abcc(
        None, da.from_array(df["s"].to_numpy(), chunks=2000), sensitive_features=array
    ) == pytest.approx(  # the sum of areas in another order, as above
        M.abcc(None, df["s"].to_numpy(), sensitive_features=g), rel=1e-10
    )
    gap = M.demographic_parity_gap(df["t"], df["p"], sensitive_features=df["g"])
    assert gap == on_dask("demographic_parity_gap")(
        ddf["t"], ddf["p"], sensitive_features=ddf["g"]
    )
    few = df.iloc[:200].assign(g=[f"id{i % 60}" for i in range(200)])
    ids = dd.from_pandas(few, npartitions=3)
    message = CONTINUOUS_SENSITIVE_ERROR.format(
        name="g", n_groups=60, n_samples=200, reason=TINY_GROUPS_REASON
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        M.mcdp(None, ids["s"], sensitive_features=ids["g"])
    # a numeric one is refused in the pass over the partitions, before its
    # per-value histograms are built (each partition alone has too many values)
    age = pd.DataFrame({"s": rng.random(6000), "g": np.arange(6000) % 3000 + 0.5})
    ages = dd.from_pandas(age, npartitions=3)
    message = CONTINUOUS_SENSITIVE_ERROR.format(
        name="g", n_groups=2000, n_samples=2000, reason=UNCOUNTED_REASON
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        M.mcdp(None, ages["s"], sensitive_features=ages["g"])


# ---------------------------------------------------------------------------
# bad input


def test_mixed_dask_and_numpy_raises():
    y = np.linspace(0, 1, 20)
    s = np.arange(20) % 2
    with pytest.raises(TypeError, match=pre(MIXED_INPUT_ERROR)):
        on_dask("mcdp")(None, da.from_array(y, chunks=5), sensitive_features=s)
    with pytest.raises(TypeError, match="y_true"):
        on_dask("mcdp")(
            y, da.from_array(y, chunks=5), sensitive_features=da.from_array(s, chunks=5)
        )


def test_mismatched_partitions_raise():
    y = np.linspace(0, 1, 20)
    s = np.arange(20) % 2
    with pytest.raises(ValueError, match=pre(PARTITION_COUNT_ERROR)):
        on_dask("mcdp")(
            None,
            da.from_array(y, chunks=5),
            sensitive_features=da.from_array(s, chunks=10),
        )
    with pytest.raises(ValueError, match=pre(PARTITION_LENGTH_ERROR)):
        on_dask("mcdp")(
            None,
            da.from_array(y, chunks=((5, 15),)),
            sensitive_features=da.from_array(s, chunks=((10, 10),)),
        )
    df = pd.DataFrame({"y": y, "s": s})
    a = frame_partitions(df, (5, 15))
    b = frame_partitions(df, (10, 10))
    with pytest.raises(ValueError, match=pre(PARTITION_LENGTH_ERROR)):
        on_dask("abcc")(None, a["y"], sensitive_features=b["s"])
    shuffled = frame_partitions(df.iloc[::-1], (10, 10))
    with pytest.raises(ValueError, match=pre(PARTITION_INDEX_ERROR)):
        on_dask("delta_dp")(None, b["y"], sensitive_features=shuffled["s"])


def test_nan_in_a_partition_is_named():
    y = np.linspace(0, 1, 20)
    y[13] = np.nan
    s = np.arange(20) % 2
    with pytest.raises(ValueError, match=pre(PARTITION_NON_FINITE_ERROR)) as info:
        on_dask("mcdp")(
            None,
            da.from_array(y, chunks=5),
            sensitive_features=da.from_array(s, chunks=5),
        )
    assert "partition 2" in str(info.value) and "row 3" in str(info.value)
    df = pd.DataFrame({"y": np.linspace(0, 1, 20), "s": ["a", "b"] * 10})
    df.loc[17, "s"] = None
    ddf = frame_partitions(df, (10, 10))
    with pytest.raises(ValueError, match=pre(PARTITION_NAN_SENSITIVE_ERROR)) as info:
        on_dask("mcdp")(None, ddf["y"], sensitive_features=ddf["s"])
    assert "partition 1" in str(info.value)
    labels = pd.DataFrame(
        {"t": [0.0, 1.0] * 10, "p": [1.0, np.nan] * 10, "s": [0, 1] * 10}
    )
    ldf = frame_partitions(labels, (10, 10))
    with pytest.raises(ValueError, match=pre(PARTITION_NAN_LABEL_ERROR)):
        on_dask("demographic_parity_gap")(
            ldf["t"], ldf["p"], sensitive_features=ldf["s"]
        )


def test_other_bad_input():
    from skfair.utils._validation import OUT_OF_UNIT_INTERVAL_ERROR

    y = da.from_array(np.linspace(-1, 1, 20), chunks=5)
    s = da.from_array(np.arange(20) % 2, chunks=5)
    with pytest.raises(ValueError, match=pre(OUT_OF_UNIT_INTERVAL_ERROR)):
        on_dask("mcdp")(None, y, sensitive_features=s, epsilon=0.1)
    with pytest.raises(NotImplementedError, match=pre(DASK_SAMPLE_WEIGHT_ERROR)):
        on_dask("mcdp")(None, y, sensitive_features=s, sample_weight=y)
    with pytest.raises(ValueError, match="groups"):
        on_dask("mcdp")(None, y, sensitive_features=da.zeros(20, chunks=5, dtype=int))


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_invalid_min_group_size_raises_like_numpy(bad):
    from skfair.utils._groups import MIN_GROUP_SIZE_ERROR

    y = np.linspace(0, 1, 20)
    s = np.arange(20) % 2
    with pytest.raises(ValueError, match=pre(MIN_GROUP_SIZE_ERROR)):
        M.delta_dp(None, y, sensitive_features=s, min_group_size=bad)
    with pytest.raises(ValueError, match=pre(MIN_GROUP_SIZE_ERROR)):
        on_dask("delta_dp")(
            None,
            da.from_array(y, chunks=5),
            sensitive_features=da.from_array(s, chunks=5),
            min_group_size=bad,
        )


def test_numpy_inputs_never_reach_the_engine(monkeypatch):
    import subprocess
    import sys
    from pathlib import Path

    import skfair.metrics._dask._dispatch as dispatch
    import skfair.utils._dask as detection

    def refuse(name):
        raise AssertionError(f"looked up the {name} engine for NumPy inputs")

    monkeypatch.setattr(dispatch, "dask_engine", refuse)
    value = on_dask("mcdp")(
        None, [0.1, 0.4, 0.3, 0.9], sensitive_features=[0, 0, 1, 1], min_group_size=1
    )
    assert value == 0.5
    # a fresh interpreter: NumPy calls load neither the engines nor Dask
    code = (
        "import sys; import skfair.metrics as M; "
        "M.mcdp(None, [0.1, 0.4, 0.3, 0.9], sensitive_features=[0, 0, 1, 1], "
        "min_group_size=1); "
        "print(sorted(m for m in sys.modules if m.startswith(('dask', "
        "'skfair.metrics._dask._mcdp', 'skfair.metrics._dask._gaps'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
    files = [Path(detection.__file__), *Path(dispatch.__file__).parent.glob("*.py")]
    source = "".join(f.read_text() for f in files)
    assert "\nimport dask" not in source and "\nfrom dask" not in source
    assert "\nimport distributed" not in source
    assert "import_module" not in source  # no string imports


# ---------------------------------------------------------------------------
# training-side scale-out through joblib's dask backend


def test_grid_search_and_compare_estimators_on_the_dask_backend(client):
    import joblib
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, cross_validate
    from sklearn.tree import DecisionTreeClassifier

    from skfair.metrics import make_mcdp_scorer
    from skfair.model_selection import compare_estimators

    rng = np.random.default_rng(0)
    n = 240
    X = pd.DataFrame(
        {"x0": rng.normal(size=n), "x1": rng.normal(size=n), "g": rng.integers(0, 2, n)}
    )
    y = (X["x0"] + 0.5 * X["g"] + rng.normal(scale=0.5, size=n) > 0).astype(int)
    scoring = {
        "mcdp": make_mcdp_scorer(sensitive="g", epsilon=0.05),
        "accuracy": "accuracy",
    }
    grid = GridSearchCV(
        LogisticRegression(), {"C": [0.1, 1.0]}, scoring=scoring, refit="accuracy", cv=3
    )
    with joblib.parallel_backend("dask"):
        grid_dask = grid.fit(X, y).cv_results_
        cv_dask = cross_validate(
            LogisticRegression(), X, y, scoring=scoring, cv=3, n_jobs=2
        )
        table_dask = compare_estimators(
            {
                "lr": LogisticRegression(),
                "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
            },
            X,
            y,
            sensitive="g",
            cv=3,
            n_jobs=2,
            progress=False,
            random_state=0,
        )
    grid_local = (
        GridSearchCV(
            LogisticRegression(),
            {"C": [0.1, 1.0]},
            scoring=scoring,
            refit="accuracy",
            cv=3,
        )
        .fit(X, y)
        .cv_results_
    )
    cv_local = cross_validate(LogisticRegression(), X, y, scoring=scoring, cv=3)
    table_local = compare_estimators(
        {
            "lr": LogisticRegression(),
            "tree": DecisionTreeClassifier(max_depth=3, random_state=0),
        },
        X,
        y,
        sensitive="g",
        cv=3,
        progress=False,
        random_state=0,
    )
    np.testing.assert_array_equal(
        grid_dask["mean_test_mcdp"], grid_local["mean_test_mcdp"]
    )
    np.testing.assert_array_equal(cv_dask["test_mcdp"], cv_local["test_mcdp"])
    pd.testing.assert_frame_equal(table_dask, table_local)
    assert (cv_dask["test_mcdp"] <= 0).all()


def test_read_parquet_pattern(tmp_path):
    rng = np.random.default_rng(9)
    n = 900
    y, s = make_data(rng, n, 3)
    df = pd.DataFrame({"score": y, "race": np.array(["a", "b", "c"])[s]})
    for k, part in enumerate(np.array_split(np.arange(n), 3)):
        df.iloc[part].to_parquet(tmp_path / f"part{k}.parquet")
    ddf = dd.read_parquet(str(tmp_path / "*.parquet"))
    for eps in (0.0, 0.05):
        assert on_dask("mcdp")(
            None, ddf["score"], sensitive_features=ddf["race"], epsilon=eps
        ) == M.mcdp(None, df["score"], sensitive_features=df["race"], epsilon=eps)
