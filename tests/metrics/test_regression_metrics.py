"""Distribution metrics on real-valued predictions (issue 28, items 1 and 3).

MCDP(ε) with ``domain=`` against a direct evaluation of its clipped
definition, MCDP(0) against scipy's KS statistic, ABCC against scipy's
Wasserstein distance, ABPC on a domain or the real line against scipy's KDE,
the affine invariance of MCDP, the one-sort inference engine against the
public functions, and the scorers on regressors in ``cross_val_score`` and
``GridSearchCV``.
"""

import pickle
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score

from skfair.metrics import (
    abcc,
    abpc,
    delta_dp,
    disparity_test,
    make_abcc_scorer,
    make_abpc_scorer,
    make_delta_dp_scorer,
    make_hfm_scorer,
    make_mcdp_scorer,
    mcdp,
    mcdp_curve,
    mcdp_details,
    metric_confidence_interval,
)
from skfair.metrics._base import DOMAIN_ERROR
from skfair.metrics._score_type import unit_interval_reason
from skfair.metrics.inference import metric_spec, shared_sort
from skfair.model_selection import fairest_within

pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")


# -- a direct evaluation of the clipped definition (exact rationals) -------------
def _gap(a, b, wa, wb):
    """``t -> |F_a(t) - F_b(t)|`` of two weighted samples, in exact rationals."""
    ta, tb = sum(wa), sum(wb)

    def gap(t):
        fa = sum(w for v, w in zip(a, wa) if v <= t) / ta
        fb = sum(w for v, w in zip(b, wb) if v <= t) / tb
        return abs(fa - fb)

    return gap


def brute_mcdp(y, groups, epsilon, domain, weights=None):
    """max over y0 in [lo, hi] of min over [y0 - ε, y0 + ε] ∩ [lo, hi] of |ΔF|.

    ΔF steps at the scores, so ``y0 -> min`` only changes where ``y0 ± ε``
    crosses a breakpoint or the domain's ends: evaluated at every such
    candidate and every midpoint between two candidates, the window minimum
    being ``|ΔF|`` at the window's left end and at every breakpoint inside.
    Worst pair of groups.
    """
    y = [Fraction(v) for v in y]
    w = [Fraction(1)] * len(y) if weights is None else [Fraction(v) for v in weights]
    eps = Fraction(epsilon)
    lo, hi = (Fraction(v) for v in domain)
    labels = sorted(set(groups))
    best = Fraction(0)
    for i, ga in enumerate(labels):
        for gb in labels[i + 1 :]:
            ia = [k for k, g in enumerate(groups) if g == ga]
            ib = [k for k, g in enumerate(groups) if g == gb]
            gap = _gap([y[k] for k in ia], [y[k] for k in ib],
                       [w[k] for k in ia], [w[k] for k in ib])  # fmt: skip
            breaks = sorted({y[k] for k in ia + ib} | {lo, hi})

            def window_min(y0, gap=gap, breaks=breaks):
                left, right = max(y0 - eps, lo), min(y0 + eps, hi)
                return min([gap(left)] + [gap(p) for p in breaks if left < p <= right])

            cands = {lo, hi}
            for p in breaks:
                cands |= {p - eps, p, p + eps}
            cands = sorted(c for c in cands if lo <= c <= hi)
            cands += [(u + v) / 2 for u, v in zip(cands[:-1], cands[1:])]
            best = max(best, max(window_min(c) for c in cands))
    return float(best)


# dyadic scores, radii and domain ends: every sum in the metric is exact
_grid = st.integers(-16, 16).map(lambda k: k / 8)


@st.composite
def _regression_case(draw):
    n = draw(st.integers(4, 14))
    y = draw(st.lists(_grid, min_size=n, max_size=n))
    n_groups = draw(st.sampled_from([2, 3]))
    groups = draw(
        st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n).filter(
            lambda g: len(set(g)) >= 2
        )
    )
    epsilon = draw(st.integers(0, 24).map(lambda k: k / 16))
    pad = draw(st.tuples(st.integers(0, 3), st.integers(0, 3)))
    domain = draw(st.sampled_from(["observed", "padded", None]))
    if domain == "padded":
        domain = (min(y) - pad[0] / 4, max(y) + pad[1] / 4)
    elif domain == "observed":
        domain = (min(y), max(y))
    if domain is not None and domain[0] == domain[1]:
        domain = (domain[0], domain[1] + 0.5)
    weights = draw(st.none() | st.lists(st.integers(1, 4), min_size=n, max_size=n))
    return np.array(y), np.array(groups), epsilon, domain, weights


@settings(max_examples=100, deadline=None)
@given(_regression_case())
def test_mcdp_equals_the_clipped_definition(case):
    """Exact MCDP(ε) on real values, ties and scores at the domain's ends
    included, equals the definition with [0, 1] replaced by the domain; the
    details, the curve and Algorithm 2 (never below) agree."""
    y, g, epsilon, domain, weights = case
    observed = (float(y.min()), float(y.max())) if domain is None else domain
    if observed[0] == observed[1]:
        observed = (observed[0], observed[0])
    kw = {"sensitive_features": g, "domain": domain, "min_group_size": 1}
    kw["sample_weight"] = weights
    want = brute_mcdp(y, g.tolist(), epsilon, observed, weights)
    got = mcdp(None, y, epsilon=epsilon, **kw)
    assert got == pytest.approx(want, abs=1e-12)
    details = mcdp_details(None, y, epsilon=epsilon, **kw)
    assert details.value == got
    lo, hi = observed
    if epsilon > 0:
        low, high = details.window
        assert lo <= low <= high <= hi
    curve = mcdp_curve(None, y, epsilons=[0.0, epsilon], **kw)
    assert curve[1] == got
    if epsilon > 0:
        approx = mcdp(None, y, epsilon=epsilon, method="approx", **kw)
        assert approx >= got - 1e-12


def test_mcdp_at_the_domain_ends():
    """The neighbourhood [lo, lo + ε] of a score at the domain's lower end,
    and windows reaching hi (a score at hi too)."""
    y = np.array([-2.0, -2.0, 1.0, 1.0, 5.0, 1.0, 1.0, 1.0, 1.0, 5.0])
    g = np.repeat([0, 1], 5)
    for domain in [None, (-2.0, 5.0), (-3.0, 5.0), (-2.0, 9.0)]:
        got = mcdp(None, y, sensitive_features=g, epsilon=1.0, domain=domain)
        want = brute_mcdp(y, g.tolist(), 1.0, domain or (-2.0, 5.0))
        assert got == want
    # lo is a score: [lo, lo + 1] holds a gap of 0.4 throughout
    assert mcdp(None, y, sensitive_features=g, epsilon=1.0, domain=None) == 0.4
    # lo below every score: the gap is 0 at lo, and [lo, lo + 1] sees it
    assert mcdp(None, y, sensitive_features=g, epsilon=2.0, domain=(-4.0, 5.0)) == 0.0


def test_mcdp_zero_is_the_ks_statistic():
    rng = np.random.default_rng(0)
    for _ in range(20):
        a, b = rng.normal(1e4, 3e3, 37), rng.standard_t(3, 51) * 2e3 + 1e4
        a[:5] = b[:5]  # ties across groups
        y, g = np.r_[a, b], np.repeat([0, 1], [37, 51])
        want = stats.ks_2samp(a, b).statistic
        assert mcdp(None, y, sensitive_features=g) == pytest.approx(want, abs=1e-15)
        assert mcdp(None, y, sensitive_features=g, domain=None) == pytest.approx(
            want, abs=1e-15
        )


@pytest.mark.parametrize("weighted", [False, True])
def test_abcc_is_the_wasserstein_distance(weighted):
    rng = np.random.default_rng(1)
    a, b = rng.lognormal(10, 1, 60), rng.lognormal(10.2, 0.8, 45)
    b[:10] = a[:10]
    wa = rng.random(60) + 0.1 if weighted else None
    wb = rng.random(45) + 0.1 if weighted else None
    want = stats.wasserstein_distance(a, b, wa, wb)
    w = np.r_[wa, wb] if weighted else None
    got = abcc(None, np.r_[a, b], sensitive_features=np.repeat([0, 1], [60, 45]),
               sample_weight=w)  # fmt: skip
    assert got == pytest.approx(want, rel=1e-12)
    assert got > 1.0  # in the target's units, not in [0, 1]


def test_delta_dp_on_real_values():
    y = np.array([10.0, 20.0, 30.0, 5.0, 15.0, 40.0, 60.0])
    g = np.array([0, 0, 0, 1, 1, 1, 1])
    assert delta_dp(None, y, sensitive_features=g) == pytest.approx(
        abs(20.0 - 30.0), rel=1e-15
    )  # the mean gap, in the target's units
    assert delta_dp(None, y, sensitive_features=g, threshold=15.0) == pytest.approx(
        abs(2 / 3 - 3 / 4)
    )


@settings(max_examples=60, deadline=None)
@given(
    case=_regression_case(),
    scale=st.sampled_from([0.25, 0.5, 2.0, 4.0, 8.0]),
    shift=st.integers(-64, 64).map(lambda k: k / 4),
)
def test_mcdp_is_invariant_to_affine_maps(case, scale, shift):
    """mcdp(a y + b, ε a, a domain + b) = mcdp(y, ε, domain) for powers of two a."""
    y, g, epsilon, domain, weights = case
    kw = {"sensitive_features": g, "min_group_size": 1, "sample_weight": weights}
    moved = None if domain is None else (scale * domain[0] + shift,
                                         scale * domain[1] + shift)  # fmt: skip
    for method in ("exact", "approx"):
        if method == "approx" and epsilon == 0:
            continue
        before = mcdp(None, y, epsilon=epsilon, domain=domain, method=method, **kw)
        after = mcdp(
            None,
            scale * y + shift,
            epsilon=scale * epsilon,
            domain=moved,
            method=method,
            **kw,
        )
        assert after == before  # dyadic probes lo + k ε/K map exactly too


def test_domain_none_is_the_observed_range():
    rng = np.random.default_rng(2)
    y, g = np.round(rng.gamma(2.0, 300.0, 500), 0), rng.integers(0, 4, 500)
    observed = (float(y.min()), float(y.max()))
    for e in (0.0, 10.0, 100.0, 1000.0):
        for method in ("exact", "approx") if e else ("exact",):
            kw = {"sensitive_features": g, "epsilon": e, "method": method}
            assert mcdp(None, y, domain=None, **kw) == mcdp(
                None, y, domain=observed, **kw
            )
    # with weights: the range of the predictions of positive weight
    w = np.ones(500)
    w[np.argmin(y)] = 0.0
    kept = w > 0
    weighted = mcdp(
        None, y, sensitive_features=g, epsilon=50.0, domain=None, sample_weight=w
    )
    dropped = mcdp(None, y[kept], sensitive_features=g[kept], epsilon=50.0, domain=None)
    assert weighted == pytest.approx(dropped, abs=1e-12)


def test_default_domain_is_the_unit_interval():
    rng = np.random.default_rng(3)
    y, g = rng.beta(2, 5, 300), rng.integers(0, 3, 300)
    for e in (0.0, 0.01, 0.1):
        assert mcdp(None, y, sensitive_features=g, epsilon=e) == mcdp(
            None, y, sensitive_features=g, epsilon=e, domain=(0.0, 1.0)
        )
    assert abpc(None, y, sensitive_features=g) == abpc(
        None, y, sensitive_features=g, domain=[0, 1]
    )


@pytest.mark.parametrize(
    "domain",
    [
        (1.0, 1.0),
        (2.0, 1.0),
        (0.0, np.inf),
        (np.nan, 1.0),
        "ab",
        (0, 1, 2),
        (True, 2.0),
        5.0,
    ],
)
def test_invalid_domain(domain):
    y, g = [0.1, 0.4, 0.3, 0.9], [0, 0, 1, 1]
    message = re.escape(DOMAIN_ERROR.format(domain=domain))
    for metric in (mcdp, mcdp_details, abpc):
        with pytest.raises(ValueError, match=message):
            metric(None, y, sensitive_features=g, domain=domain)
    with pytest.raises(ValueError, match=message):
        mcdp_curve(None, y, sensitive_features=g, epsilons=[0.1], domain=domain)


def test_predictions_outside_the_domain():
    y, g = [10.0, 40.0, 30.0, 90.0], [0, 0, 1, 1]
    with pytest.raises(ValueError, match=r"domain=\(0.0, 1.0\).*domain=None"):
        mcdp(None, y, sensitive_features=g, epsilon=1.0)
    with pytest.raises(ValueError, match=r"domain=\(0.0, 50.0\).*domain=None"):
        mcdp(None, y, sensitive_features=g, epsilon=1.0, domain=(0.0, 50.0))
    with pytest.raises(ValueError, match=r"domain=\(0.0, 50.0\).*ABPC"):
        abpc(None, y, sensitive_features=g, domain=(0.0, 50.0))
    with pytest.raises(ValueError, match=r"domain=\(0.0, 1.0\).*domain=None"):
        abpc(None, y, sensitive_features=g)
    # ε = 0, the KS statistic: any finite reals, whatever the domain
    assert mcdp(None, y, sensitive_features=g) == 0.5
    assert mcdp(None, y, sensitive_features=g, domain=(0.0, 50.0)) == 0.5


def test_mcdp_window_is_in_the_predictions_units():
    y = np.array([100.0, 110.0, 120.0, 130.0, 300.0, 310.0, 320.0, 330.0])
    g = np.repeat([0, 1], 4)
    res = mcdp_details(None, y, sensitive_features=g, epsilon=50.0, domain=None)
    assert res.value == 1.0
    low, high = res.window
    assert low >= 100.0
    assert high <= 330.0
    assert high - low <= 100.0
    res = mcdp_details(None, y, sensitive_features=g, epsilon=50.0,
                       domain=(100.0, 330.0))  # fmt: skip
    # [130, 230] holds a gap of 1; [100, 150] holds F_a(100) = 1/4
    assert res.window == (130.0, 230.0)


# -- ABPC on a domain and on the real line ---------------------------------------
def _scipy_abpc(a, b, grid):
    fa = stats.gaussian_kde(a)(grid)
    fb = stats.gaussian_kde(b)(grid)
    return np.trapezoid(np.abs(fa - fb), grid)


def test_abpc_on_a_domain_and_on_the_real_line():
    rng = np.random.default_rng(4)
    a, b = rng.normal(50.0, 10.0, 80), rng.normal(58.0, 12.0, 90)
    y, g = np.r_[a, b], np.repeat([0, 1], [80, 90])
    grid = np.linspace(0.0, 120.0, 5000)
    got = abpc(None, y, sensitive_features=g, domain=(0.0, 120.0), method="direct")
    assert got == pytest.approx(_scipy_abpc(a, b, grid), rel=1e-10)
    binned = abpc(None, y, sensitive_features=g, domain=(0.0, 120.0), method="binned")
    assert binned == pytest.approx(got, abs=2e-4)
    # the real line: a very wide grid with scipy is the L1 distance itself
    wide = np.linspace(-200.0, 300.0, 200_001)
    line = _scipy_abpc(a, b, wide)
    for method in ("direct", "binned"):
        got = abpc(None, y, sensitive_features=g, domain=None, method=method)
        assert got == pytest.approx(line, abs=3e-4)
    # scale-free on the real line (the bandwidths scale with the data)
    moved = abpc(None, 1000.0 * y - 7.0, sensitive_features=g, domain=None,
                 method="direct")  # fmt: skip
    assert moved == pytest.approx(
        abpc(None, y, sensitive_features=g, domain=None, method="direct"), rel=1e-9
    )


# -- score types, intervals and tests --------------------------------------------
def test_unit_interval_reason_follows_the_domain():
    assert unit_interval_reason("mcdp", {"epsilon": 0.1}) is not None
    assert unit_interval_reason("mcdp", {"epsilon": 0.1, "domain": None}) is None
    assert unit_interval_reason("mcdp", {"epsilon": 0.1, "domain": (0, 10)}) is None
    assert unit_interval_reason("mcdp", {"epsilon": 0.1, "domain": (0, 1)}) is not None
    assert unit_interval_reason("abpc", {}) is not None
    assert unit_interval_reason("abpc", {"domain": None}) is None
    assert "method='band'" in unit_interval_reason("abcc", {}, dkw=True)


def _regression_data(n=240, seed=5, n_groups=2):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n)
    y = np.round(rng.normal(100.0 + 8.0 * g, 15.0), 1)
    return y, g


@pytest.mark.parametrize(
    ("metric", "params"),
    [
        ("mcdp", {"epsilon": 5.0, "domain": None}),
        ("mcdp", {"epsilon": 5.0, "domain": (0.0, 200.0)}),
        ("mcdp", {"epsilon": 5.0, "domain": None, "method": "approx"}),
        ("abpc", {"domain": None, "n_points": 512}),
        ("abcc", {}),
        ("delta_dp", {}),
    ],
)
def test_intervals_on_real_values(metric, params):
    """The estimate is the public function's; the bounds bracket it and are in
    the metric's range; margins are accepted with a domain; the test rejects
    a clear disparity."""
    y, g = _regression_data()
    public = {"mcdp": mcdp, "abpc": abpc, "abcc": abcc, "delta_dp": delta_dp}[metric]
    want = public(None, y, sensitive_features=g, **params)
    for score_type in ("probability", "margin"):
        ci = metric_confidence_interval(
            None, y, sensitive_features=g, metric=metric, metric_params=params,
            n_resamples=99, random_state=0, score_type=score_type,
        )  # fmt: skip
        assert ci.estimate == want
        assert 0.0 <= ci.low <= ci.estimate <= ci.high
        if metric in ("mcdp", "abpc"):
            assert ci.high <= {"mcdp": 1.0, "abpc": 2.0}[metric]
    test = disparity_test(
        None,
        y,
        sensitive_features=g,
        metric=metric,
        metric_params=params,
        n_resamples=99,
        random_state=0,
    )
    assert test.statistic == pytest.approx(want, rel=1e-12)
    assert test.pvalue <= 0.05


def test_dkw_on_real_values():
    """MCDP's DKW interval holds for real values (a sup of CDF gaps); ABCC's
    integrates over [0, 1] and is refused with the way out."""
    y, g = _regression_data()
    params = {"epsilon": 5.0, "domain": None}
    ci = metric_confidence_interval(
        None, y, sensitive_features=g, method="dkw", metric_params=params
    )
    assert ci.low <= ci.estimate <= ci.high <= 1.0
    with pytest.raises(ValueError, match="method='band'"):
        metric_confidence_interval(None, y, sensitive_features=g, metric="abcc",
                                   method="dkw")  # fmt: skip
    with pytest.raises(ValueError, match="domain=None"):
        metric_confidence_interval(None, y, sensitive_features=g,
                                   metric_params={"epsilon": 5.0})  # fmt: skip
    with pytest.raises(ValueError, match="score_type='margin'"):
        metric_confidence_interval(None, y, sensitive_features=g, metric="abpc",
                                   score_type="margin")  # fmt: skip


@pytest.mark.parametrize(
    ("n_groups", "agg", "method"),
    [
        (2, "max", "exact"),
        (5, "max", "exact"),
        (5, "mean", "exact"),
        (3, "max", "approx"),
    ],
)
def test_one_sort_engine_is_the_public_function(n_groups, agg, method):
    """On the data and on bootstrap resamples (whose range moves with
    domain=None), the one-sort engine's MCDP(ε) is mcdp() of the resample."""
    y, g = _regression_data(n=180, seed=n_groups, n_groups=n_groups)
    y[:4] = y.min() - np.array([3.0, 3.0, 2.0, 1.0])  # ties at the lower end
    specs = [
        metric_spec("mcdp", {"epsilon": e, "domain": d, "agg": agg, "method": method})
        for e in (2.0, 10.0)
        for d in (None, (0.0, 250.0))
    ]
    estimates, shared = shared_sort((None, y, g, None, "intersection"), specs, 1)
    w_pos = np.ones(y.size)  # float CDFs: equal to the exact ones within rounding
    got = shared.values(w_pos, shared.cell_sorted, specs)
    assert got == pytest.approx(estimates, abs=1e-12)
    rng = np.random.default_rng(0)
    for _ in range(5):
        idx = np.concatenate(
            [rng.choice(m, m.size) for m in shared.members]  # stratified
        )
        counts = np.bincount(shared.rank[idx], minlength=y.size).astype(float)
        got = shared.values(counts, shared.cell_sorted, specs)
        cells = shared.cell_sorted[shared.rank[idx]]
        want = [shared.direct(idx, cells, spec) for spec in specs]
        assert got == pytest.approx(want, abs=1e-12)


def test_abpc_band_on_the_real_line():
    """ABPC's band evaluates the public function's grid (domain=None)."""
    from skfair.metrics.inference import interval_band

    y, g = _regression_data(n=150, n_groups=3)
    spec = metric_spec("abpc", {"domain": None, "method": "binned", "agg": "max"})
    estimates, shared = shared_sort((None, y, g, None, "intersection"), [spec], 1)
    band = interval_band(shared, [spec])
    from skfair.metrics.inference import band_norm

    values = band.kde_pair_values(band_norm(spec))
    assert max(v.max() for v in values) == pytest.approx(estimates[0], abs=2e-4)


# -- scorers on regressors -------------------------------------------------------
def _regression_frame(n=300, seed=6):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n),
                      "g": rng.integers(0, 2, n)})  # fmt: skip
    y = 2000.0 * X["x"] + 500.0 * X["g"] + 300.0 * X["z"] + rng.normal(0, 200, n)
    return X, y + 30_000.0


def _fold_values(model, X, y, metric, **kw):
    """The metric of each fold's predictions, computed by hand."""
    out = []
    for train, test in KFold(5).split(X):
        pred = model.fit(X.iloc[train], y.iloc[train]).predict(X.iloc[test])
        g = X["g"].to_numpy()[test]
        out.append(-metric(None, pred, sensitive_features=g, **kw))
    return np.array(out)


@pytest.mark.parametrize(
    ("factory", "metric", "kw"),
    [
        (make_mcdp_scorer, mcdp, {"epsilon": 250.0, "domain": None}),
        (make_mcdp_scorer, mcdp, {"epsilon": 250.0, "domain": (0.0, 1e5)}),
        (make_mcdp_scorer, mcdp, {}),
        (make_abcc_scorer, abcc, {}),
        (make_abpc_scorer, abpc, {"domain": None}),
        (make_delta_dp_scorer, delta_dp, {}),
        (make_delta_dp_scorer, delta_dp, {"threshold": 30_000.0}),
    ],
)
def test_scorers_on_a_regressor(factory, metric, kw):
    X, y = _regression_frame()
    scorer = factory(sensitive="g", min_group_size=1, **kw)
    got = cross_val_score(Ridge(), X, y, scoring=scorer, cv=KFold(5))
    want = _fold_values(Ridge(), X, y, metric, min_group_size=1, **kw)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert pickle.loads(pickle.dumps(scorer))(Ridge().fit(X, y), X, y) == (
        scorer(Ridge().fit(X, y), X, y)
    )


def test_scorer_repr_and_probe_with_a_domain():
    scorer = make_mcdp_scorer(sensitive="g", epsilon=5.0, domain=(100.0, 200.0))
    assert repr(scorer) == (
        "make_mcdp_scorer(sensitive='g', epsilon=5.0, domain=(100.0, 200.0))"
    )
    assert repr(make_abpc_scorer(sensitive="g", domain=None)) == (
        "make_abpc_scorer(sensitive='g', domain=None)"
    )
    with pytest.raises(ValueError, match="domain must be None"):
        make_mcdp_scorer(sensitive="g", epsilon=5.0, domain=(2.0, 1.0))
    # margins: decision_function is allowed once a domain is given
    make_mcdp_scorer(sensitive="g", epsilon=0.5, domain=None,
                     response_method="decision_function")  # fmt: skip
    with pytest.raises(ValueError, match="response_method"):
        make_mcdp_scorer(sensitive="g", epsilon=0.5,
                         response_method="decision_function")  # fmt: skip


def test_regressor_scorer_errors():
    X, y = _regression_frame(n=100)
    model = Ridge().fit(X, y)
    with pytest.raises(ValueError, match="domain=None"):
        make_mcdp_scorer(sensitive="g", epsilon=10.0)(model, X, y)
    with pytest.raises(TypeError, match="is a regressor"):
        make_hfm_scorer(sensitive="g")(model, X, y)


def test_grid_search_with_regressors():
    """GridSearchCV(Ridge / LGBMRegressor) with r2 and MCDP, refit by
    fairest_within, end to end."""
    X, y = _regression_frame(n=200)
    rule = fairest_within(fairness="mcdp", performance="r2", tolerance=0.5)
    scoring = {
        "r2": "r2",
        "mcdp": make_mcdp_scorer(sensitive="g", epsilon=250.0, domain=None),
    }
    search = GridSearchCV(
        Ridge(), {"alpha": [0.1, 100.0, 1e4, 1e6]}, scoring=scoring, refit=rule
    ).fit(X, y)
    assert search.best_index_ == rule(search.cv_results_)
    fairness = search.cv_results_["mean_test_mcdp"]
    assert np.all((fairness >= -1.0) & (fairness <= 0.0))
    assert fairness[-1] > fairness[0]  # heavy shrinkage: fairer, less accurate
    lightgbm = pytest.importorskip("lightgbm")
    model = lightgbm.LGBMRegressor(n_estimators=10, n_jobs=1, verbose=-1)
    search = GridSearchCV(
        model, {"num_leaves": [4, 8]}, scoring=scoring, refit=rule, cv=3
    ).fit(X, y)
    assert search.best_index_ == rule(search.cv_results_)
    got = cross_val_score(model, X, y, scoring=scoring["mcdp"], cv=KFold(5))
    want = _fold_values(model, X, y, mcdp, epsilon=250.0, domain=None)
    np.testing.assert_allclose(got, want, rtol=1e-12)
