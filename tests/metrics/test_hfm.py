"""HFM: brute-force definition, the exact engine, the paper's approximation."""

import dataclasses
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.spatial.distance import cdist

from skfair.metrics._hfm import (
    M1_ERROR,
    M2_ERROR,
    METHOD_ERROR,
    X_NDIM_ERROR,
    X_NON_FINITE_ERROR,
    X_SPARSE_ERROR,
    HFMResult,
    HFMUndefinedWarning,
    default_m2,
    hfm,
    hfm_distances,
)
from skfair.metrics._kernels._nearest import (
    ALGORITHM_ERROR,
    _dedupe,
    _gemm_nearest,
    nearest_other_group,
)
from skfair.utils._groups import TOO_FEW_GROUPS_ERROR
from skfair.utils._validation import LENGTH_MISMATCH_ERROR

# Most cases compare a handful of samples on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")

RTOL = 1e-12


# ----------------------------------------------------------------------------
# Brute-force definitions (Bian et al., Eqs. 1 and 4-7), straight from cdist


def brute_attribute(Z, groups):
    """(D, D_avg) of one attribute, group by group as Eqs. 4-5 are written."""
    directed, total = [], 0.0
    for g in np.unique(groups):
        inside, outside = Z[groups == g], Z[groups != g]
        nearest = cdist(inside, outside).min(axis=1)
        directed.append(nearest.max())
        total += nearest.sum()
    return max(directed), total / Z.shape[0]


def brute_distances(X, y, sensitive):
    """(D, D_avg) for one or several attributes (Eqs. 6-7)."""
    X = np.asarray(X, dtype=float).reshape(len(y), -1)
    Z = np.column_stack([np.asarray(y, dtype=float), X])
    sensitive = np.asarray(sensitive)
    columns = [sensitive] if sensitive.ndim == 1 else list(sensitive.T)
    found = [brute_attribute(Z, col) for col in columns]
    return max(d for d, _ in found), float(np.mean([a for _, a in found]))


def brute_nearest(Z, codes):
    D = cdist(Z, Z)
    D[codes[:, None] == codes[None, :]] = np.inf
    return D.min(axis=1)


def naive_gemm_nearest(Z, codes):
    """The textbook expansion |a|^2 + |b|^2 - 2 a.b, without any refinement."""
    sq = np.einsum("ij,ij->i", Z, Z)
    D2 = sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T
    D2[codes[:, None] == codes[None, :]] = np.inf
    return np.sqrt(np.maximum(D2.min(axis=1), 0.0))


# ----------------------------------------------------------------------------
# Strategies: small inputs on a coarse grid, so duplicates and ties abound


@st.composite
def hfm_inputs(draw, max_attributes=2):
    n = draw(st.integers(2, 30))
    d = draw(st.integers(0, 3))
    n_attributes = draw(st.integers(1, max_attributes))
    grid = draw(st.sampled_from([2, 3, 10, 1000]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.integers(0, grid, size=(n, d)) / (grid - 1)
    y = rng.integers(0, 2, size=n)
    y_pred = rng.integers(0, 2, size=n)
    sensitive = np.column_stack(
        [rng.integers(0, draw(st.integers(2, 4)), size=n) for _ in range(n_attributes)]
    )
    for column in sensitive.T:
        assume(np.unique(column).size >= 2)
    if n_attributes == 1:
        sensitive = sensitive[:, 0]
    return X, y, y_pred, sensitive


# ----------------------------------------------------------------------------
# The worked example


def test_worked_example():
    X = [[0], [1], [0.2], [0.5]]
    result = hfm(X, [0, 1, 0, 1], [0, 1, 0, 0], sensitive_features=[1, 1, 0, 0])
    assert result.d_max == pytest.approx(0.5)
    assert result.d_avg == pytest.approx(0.35)
    assert result.d_f_max == pytest.approx(1.118034, abs=1e-6)
    assert result.d_f_avg == pytest.approx(0.504508, abs=1e-6)
    assert result.df_prev == pytest.approx(1.236068, abs=1e-6)
    assert result.df == pytest.approx(0.349485, abs=1e-6)
    assert result.df_avg == pytest.approx(0.158800, abs=1e-6)
    assert result.per_attribute == {}
    # The approximation examines every pair here, so it is exact.
    approx = hfm(
        X,
        [0, 1, 0, 1],
        [0, 1, 0, 0],
        sensitive_features=[1, 1, 0, 0],
        method="approx",
        random_state=0,
    )
    assert approx.to_dict() == pytest.approx(result.to_dict(), rel=RTOL)


def test_distances_are_python_floats():
    d_max, d_avg = hfm_distances([[0.0], [1.0]], [0, 1], sensitive_features=["a", "b"])
    assert type(d_max) is float and type(d_avg) is float
    result = hfm([[0.0], [1.0]], [0, 1], [1, 1], sensitive_features=["a", "b"])
    assert all(type(v) is float for v in result.to_dict().values())


# ----------------------------------------------------------------------------
# Exact distances against the definition


@settings(max_examples=150, deadline=None)
@given(hfm_inputs())
def test_exact_matches_brute_force(inputs):
    X, y, _, sensitive = inputs
    got = hfm_distances(X, y, sensitive_features=sensitive)
    np.testing.assert_allclose(got, brute_distances(X, y, sensitive), rtol=RTOL)


@settings(max_examples=100, deadline=None)
@given(
    n=st.integers(2, 60),
    dim=st.integers(1, 25),
    n_groups=st.integers(2, 4),
    grid=st.sampled_from([2, 5, 0]),
    algorithm=st.sampled_from(["kd_tree", "gemm"]),
    n_threads=st.sampled_from([1, 2]),
    seed=st.integers(0, 2**32 - 1),
)
def test_engine_matches_brute_force(n, dim, n_groups, grid, algorithm, n_threads, seed):
    rng = np.random.default_rng(seed)
    Z = rng.integers(0, grid, (n, dim)) / (grid - 1) if grid else rng.random((n, dim))
    codes = rng.integers(0, n_groups, n)
    codes[:n_groups] = np.arange(n_groups)[: min(n, n_groups)]
    codes = np.unique(codes, return_inverse=True)[1]
    assume(codes.max() >= 1)
    got = nearest_other_group(Z, codes, algorithm=algorithm, n_threads=n_threads)
    np.testing.assert_allclose(got, brute_nearest(Z, codes), rtol=RTOL)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 80),
    tile_rows=st.integers(1, 9),
    tile_cols=st.integers(1, 9),
    n_threads=st.sampled_from([1, 2]),
    seed=st.integers(0, 2**32 - 1),
)
def test_gemm_tiling_and_pruning(n, tile_rows, tile_cols, n_threads, seed):
    # Tiny tiles: every row and column is certified across many tiles, and
    # the pruning by running minima is exercised.
    rng = np.random.default_rng(seed)
    Z = rng.random((n, 5)).round(1)
    codes = rng.integers(0, 3, n)
    codes = np.unique(codes, return_inverse=True)[1]
    assume(codes.max() >= 1)
    got = _gemm_nearest(Z, codes, n_threads, tile_rows, tile_cols)
    np.testing.assert_allclose(got, brute_nearest(Z, codes), rtol=RTOL)


def test_gemm_is_exact_far_from_the_origin():
    # Points at 1e6 plus small noise: the textbook expansion loses every
    # digit of the (tiny) distances; the certified engine does not.
    rng = np.random.default_rng(0)
    Z = 1e6 + rng.random((300, 40)) * 1e-3
    codes = np.arange(300) % 2
    expected = brute_nearest(Z, codes)
    naive = naive_gemm_nearest(Z, codes)
    assert np.max(np.abs(naive / expected - 1)) > 1e-3  # the trap is real
    got = nearest_other_group(Z, codes, algorithm="gemm")
    np.testing.assert_allclose(got, expected, rtol=RTOL)


def test_gemm_is_exact_with_far_clusters_and_near_ties():
    # Two clusters 1e6 apart, so centring cannot remove the offset; inside
    # them, nearest and second-nearest other-group points differ by 1e-9 in
    # relative terms, far below the rounding of the expansion.
    rng = np.random.default_rng(1)
    dim, m = 30, 100
    anchors = rng.random((m, dim))
    step = rng.standard_normal((m, dim))
    step /= np.linalg.norm(step, axis=1, keepdims=True)
    other = rng.standard_normal((m, dim))
    other -= (other * step).sum(axis=1, keepdims=True) * step
    other /= np.linalg.norm(other, axis=1, keepdims=True)
    r = 1e-3
    near = anchors + r * step
    tie = anchors + r * (1 + 1e-9) * other
    cluster = np.vstack([anchors, near, tie])
    Z = np.vstack([cluster, cluster + 1e6])
    codes = np.tile(np.repeat([0, 1, 1], m), 2)
    expected = brute_nearest(Z, codes)
    assert np.max(np.abs(naive_gemm_nearest(Z, codes) / expected - 1)) > 1e-3
    for n_threads in (1, 2):
        got = _gemm_nearest(Z, codes, n_threads, tile_rows=64, tile_cols=128)
        np.testing.assert_allclose(got, expected, rtol=RTOL)


def test_gemm_falls_back_to_differences_for_huge_coordinates():
    # Squared norms of 1e151 overflow; the differences themselves do not.
    rng = np.random.default_rng(7)
    Z = rng.random((40, 12)) * 1e151
    codes = np.arange(40) % 3
    got = nearest_other_group(Z, codes, algorithm="gemm")
    np.testing.assert_allclose(got, brute_nearest(Z, codes), rtol=RTOL)


def test_engine_with_duplicates_across_and_within_groups():
    rng = np.random.default_rng(2)
    base = rng.random((20, 12))
    Z = base[rng.integers(0, 20, 500)]
    codes = rng.integers(0, 3, 500)
    expected = brute_nearest(Z, codes)
    for algorithm in ("kd_tree", "gemm"):
        got = nearest_other_group(Z, codes, algorithm=algorithm)
        np.testing.assert_allclose(got, expected, rtol=RTOL)


def test_dedupe_merges_rows_and_survives_hash_collisions(monkeypatch):
    Z = np.array([[1.0, 2.0], [2.0, 1.0], [1.0, 2.0], [-0.0, 3.0], [0.0, 3.0]])
    codes = np.array([0, 0, 0, 1, 1])
    merged = _dedupe(Z, codes)
    assert merged is not None
    Zu, codes_u, inverse = merged
    assert Zu.shape[0] == 3
    np.testing.assert_array_equal(Zu[inverse], Z)
    np.testing.assert_array_equal(codes_u[inverse], codes)
    # With all multipliers equal, [1, 2] and [2, 1] collide: the exact
    # fallback must still keep them apart.
    monkeypatch.setattr(
        "skfair.metrics._kernels._nearest._hash_multipliers",
        lambda dim: np.ones(dim, dtype=np.uint64),
    )
    Zu, codes_u, inverse = _dedupe(Z, codes)
    assert Zu.shape[0] == 3
    np.testing.assert_array_equal(Zu[inverse], Z)
    assert _dedupe(Z[:2], codes[:2]) is None


def test_engine_rejects_unknown_algorithm():
    with pytest.raises(ValueError, match="algorithm must be"):
        nearest_other_group(np.zeros((2, 1)), np.array([0, 1]), algorithm="ball")
    assert "{algorithm!r}" in ALGORITHM_ERROR


@settings(max_examples=40, deadline=None)
@given(inputs=hfm_inputs(), random=st.randoms(use_true_random=False))
def test_invariant_to_row_order(inputs, random):
    X, y, y_pred, sensitive = inputs
    order = list(range(len(y)))
    random.shuffle(order)
    with warnings.catch_warnings():
        # Tiny grids can give zero distances; their warnings have own tests.
        warnings.simplefilter("ignore", HFMUndefinedWarning)
        first = hfm(X, y, y_pred, sensitive_features=sensitive)
        second = hfm(
            X[order], y[order], y_pred[order], sensitive_features=sensitive[order]
        )
    assert second.to_dict() == pytest.approx(first.to_dict(), rel=RTOL, abs=1e-15)


@settings(max_examples=40, deadline=None)
@given(hfm_inputs(max_attributes=1))
def test_invariant_to_group_relabelling(inputs):
    X, y, _, sensitive = inputs
    relabelled = np.array([f"group {v}" for v in sensitive[::-1]])[::-1]
    assert hfm_distances(X, y, sensitive_features=relabelled) == hfm_distances(
        X, y, sensitive_features=sensitive
    )


# ----------------------------------------------------------------------------
# The approximation (Algorithms 1-4)


@settings(max_examples=80, deadline=None)
@given(
    inputs=hfm_inputs(),
    m1=st.integers(1, 3),
    m2=st.integers(1, 3),
    seed=st.integers(0, 1000),
)
def test_approx_never_below_exact(inputs, m1, m2, seed):
    X, y, _, sensitive = inputs
    exact = hfm_distances(X, y, sensitive_features=sensitive)
    approx = hfm_distances(
        X,
        y,
        sensitive_features=sensitive,
        method="approx",
        m1=m1,
        m2=m2,
        random_state=seed,
    )
    assert approx[0] >= exact[0] * (1 - RTOL)
    assert approx[1] >= exact[1] * (1 - RTOL)


@settings(max_examples=60, deadline=None)
@given(inputs=hfm_inputs(), seed=st.integers(0, 1000))
def test_approx_is_exact_when_m2_covers_everything(inputs, seed):
    X, y, _, sensitive = inputs
    exact = hfm_distances(X, y, sensitive_features=sensitive)
    approx = hfm_distances(
        X,
        y,
        sensitive_features=sensitive,
        method="approx",
        m1=1,
        m2=len(y),
        random_state=seed,
    )
    np.testing.assert_allclose(approx, exact, rtol=RTOL)


def test_approx_overestimates_in_high_dimension():
    # The projections miss true neighbours in 50 dimensions with m2 = 1: a
    # strictly larger estimate, which shows the property above is not vacuous.
    rng = np.random.default_rng(3)
    X = rng.random((400, 50))
    y = rng.integers(0, 2, 400)
    s = rng.integers(0, 2, 400)
    exact = hfm_distances(X, y, sensitive_features=s)
    approx = hfm_distances(
        X, y, sensitive_features=s, method="approx", m1=2, m2=1, random_state=0
    )
    assert approx[0] > exact[0] and approx[1] > exact[1]


def test_approx_is_reproducible_and_seeded():
    rng = np.random.default_rng(4)
    X = rng.random((3000, 20))
    y = rng.integers(0, 2, 3000)
    s = np.column_stack([rng.integers(0, 2, 3000), rng.integers(0, 3, 3000)])
    kwargs = {"sensitive_features": s, "method": "approx", "m1": 3, "m2": 2}
    first = hfm_distances(X, y, random_state=7, **kwargs)
    assert hfm_distances(X, y, random_state=7, **kwargs) == first
    assert hfm_distances(X, y, random_state=np.random.RandomState(7), **kwargs) == first
    others = {hfm_distances(X, y, random_state=seed, **kwargs) for seed in range(5)}
    assert len(others) > 1


def test_default_m2():
    assert default_m2(1) == 1
    assert default_m2(10) == 2
    assert default_m2(30_000) == math.ceil(2 * math.log10(30_000))


# ----------------------------------------------------------------------------
# Several attributes, degrees, zero distances


def test_several_attributes_max_and_mean():
    rng = np.random.default_rng(5)
    X = rng.random((60, 3))
    y, y_pred = rng.integers(0, 2, 60), rng.integers(0, 2, 60)
    s = pd.DataFrame(
        {"sex": rng.choice(["f", "m"], 60), "race": rng.integers(0, 3, 60)}
    )
    result = hfm(X, y, y_pred, sensitive_features=s)
    assert list(result.per_attribute) == ["sex", "race"]
    sex = hfm(X, y, y_pred, sensitive_features=s["sex"])
    race = hfm(X, y, y_pred, sensitive_features=s["race"])
    assert result.per_attribute["sex"] == sex
    assert result.per_attribute["race"] == race
    assert result.d_max == max(sex.d_max, race.d_max)
    assert result.d_avg == pytest.approx((sex.d_avg + race.d_avg) / 2, rel=RTOL)
    assert result.d_f_max == max(sex.d_f_max, race.d_f_max)
    assert "per_attribute=['sex', 'race']" in repr(result)
    assert pickle.loads(pickle.dumps(result)) == result


@settings(max_examples=40, deadline=None)
@given(hfm_inputs())
def test_degrees_follow_eq_8(inputs):
    X, y, y_pred, sensitive = inputs
    with warnings.catch_warnings():
        # Zero distances are covered by their own tests.
        warnings.simplefilter("ignore", HFMUndefinedWarning)
        result = hfm(X, y, y_pred, sensitive_features=sensitive)
    d, d_f = (
        hfm_distances(X, y, sensitive_features=sensitive),
        hfm_distances(X, y_pred, sensitive_features=sensitive),
    )
    assert (result.d_max, result.d_avg) == d
    assert (result.d_f_max, result.d_f_avg) == d_f
    if d[0] > 0 and d_f[0] > 0:
        assert result.df_prev == pytest.approx(d_f[0] / d[0] - 1, rel=RTOL, abs=1e-15)
        assert result.df == pytest.approx(math.log10(d_f[0] / d[0]), abs=1e-15)
        assert result.df_prev == pytest.approx(10**result.df - 1, abs=1e-12)
    if d[1] > 0 and d_f[1] > 0:
        assert result.df_avg == pytest.approx(math.log10(d_f[1] / d[1]), abs=1e-15)


def test_df_prev_of_a_binarised_attribute_is_privileged_vs_rest():
    # Table 2's df_prev compares S_1 (privileged) with its complement.
    rng = np.random.default_rng(6)
    X = rng.random((80, 2))
    y, y_pred = rng.integers(0, 2, 80), rng.integers(0, 2, 80)
    race = rng.choice(["white", "black", "asian"], 80)
    result = hfm(X, y, y_pred, sensitive_features=race == "white")
    Z_true = np.column_stack([y, X])
    Z_pred = np.column_stack([y_pred, X])
    priv = race == "white"

    def hausdorff(Z):
        D = cdist(Z[priv], Z[~priv])
        return max(D.min(axis=1).max(), D.min(axis=0).max())

    assert result.df_prev == pytest.approx(
        hausdorff(Z_pred) / hausdorff(Z_true) - 1, rel=RTOL
    )


def test_zero_over_zero_is_no_extra_bias():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = hfm(
            [[0.0], [0.0]], [1, 1], [1, 1], sensitive_features=[0, 1], min_group_size=1
        )
    assert (result.d_max, result.d_f_max) == (0.0, 0.0)
    assert (result.df_prev, result.df, result.df_avg) == (0.0, 0.0, 0.0)


def test_zero_true_distance_warns_and_gives_inf():
    with pytest.warns(HFMUndefinedWarning, match="undefined") as record:
        result = hfm(
            [[0.0], [0.0]], [1, 1], [0, 1], sensitive_features=[0, 1], min_group_size=1
        )
    assert len(record) == 3
    assert "D_f = 1.0 and D = 0.0" in str(record[0].message)
    assert result.df_prev == math.inf
    assert result.df == math.inf
    assert result.df_avg == math.inf


def test_zero_predicted_distance_warns_and_gives_minus_inf():
    with pytest.warns(HFMUndefinedWarning, match="undefined") as record:
        result = hfm(
            [[0.0], [0.0]], [0, 1], [1, 1], sensitive_features=[0, 1], min_group_size=1
        )
    assert len(record) == 2  # df and df_avg; df_prev = 0/1 - 1 is defined
    assert "D_f = 0.0 and D = 1.0" in str(record[0].message)
    assert result.df_prev == -1.0
    assert result.df == -math.inf
    assert result.df_avg == -math.inf


def test_undefined_warning_is_a_user_warning():
    assert issubclass(HFMUndefinedWarning, UserWarning)


# ----------------------------------------------------------------------------
# Inputs


def test_dataframe_features_and_class_labels():
    X = pd.DataFrame({"a": [0.0, 1.0, 0.2, 0.5], "b": [True, False, True, True]})
    numeric = hfm(X, [0, 1, 0, 1], [0, 1, 0, 0], sensitive_features=[1, 1, 0, 0])
    labels = hfm(
        X.to_numpy(dtype=float),
        ["no", "yes", "no", "yes"],
        ["no", "yes", "no", "no"],
        sensitive_features=["m", "m", "f", "f"],
    )
    assert labels == numeric


def test_label_coordinates_are_used_as_given():
    # Labels 0/2 instead of 0/1: a different label is 2 apart.
    d = hfm_distances([[0.0], [0.0]], [0, 2], sensitive_features=[0, 1])
    assert d == (2.0, 2.0)


def test_no_features_only_labels():
    d = hfm_distances(np.empty((4, 0)), [0, 1, 1, 1], sensitive_features=[0, 0, 1, 1])
    assert d == (1.0, 0.25)


def test_result_is_frozen_with_readable_repr():
    result = hfm([[0.0], [1.0]], [0, 1], [1, 1], sensitive_features=[0, 1])
    assert isinstance(result, HFMResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.df = 0.0
    assert repr(result).startswith("HFMResult(df_prev=")
    assert set(result.to_dict()) == {
        "df_prev",
        "df",
        "df_avg",
        "d_max",
        "d_avg",
        "d_f_max",
        "d_f_avg",
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"sensitive_features": [0, 0, 0]}, "at least two groups are needed"),
        ({"sensitive_features": [0, 1]}, "Inconsistent numbers of samples"),
        ({"sensitive_features": [0, 1, 1], "method": "fast"}, "method must be"),
        ({"sensitive_features": [0, 1, 1], "m1": 0}, "m1 must be"),
        ({"sensitive_features": [0, 1, 1], "m2": 0}, "m2 must be"),
        ({"sensitive_features": [0, 1, 1], "m2": 1.5}, "m2 must be"),
        ({"sensitive_features": [0, None, 1]}, "missing value"),
    ],
)
def test_invalid_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        hfm_distances([[0.0], [1.0], [2.0]], [0, 1, 1], **kwargs)


def test_error_messages_are_constants():
    assert "{method!r}" in METHOD_ERROR
    assert "{value!r}" in M1_ERROR and "{value!r}" in M2_ERROR
    assert "{first_name}" in LENGTH_MISMATCH_ERROR
    assert "at least two groups are needed" in TOO_FEW_GROUPS_ERROR


def test_invalid_features():
    with pytest.raises(ValueError, match="row 1, column 0"):
        hfm_distances([[0.0], [np.nan]], [0, 1], sensitive_features=[0, 1])
    assert "row {row}" in X_NON_FINITE_ERROR
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        hfm_distances([0.0, 1.0], [0, 1], sensitive_features=[0, 1])
    assert "{shape}" in X_NDIM_ERROR
    with pytest.raises(TypeError, match=r"non-numeric columns 'c' \((str|object)\)"):
        hfm_distances(
            pd.DataFrame({"c": ["a", "b"]}), [0, 1], sensitive_features=[0, 1]
        )
    with pytest.raises(TypeError, match="sparse"):
        hfm_distances(sp.csr_matrix(np.eye(2)), [0, 1], sensitive_features=[0, 1])
    assert "sparse" in X_SPARSE_ERROR
    with pytest.raises(TypeError, match="numeric"):
        hfm_distances(np.array([["a"], ["b"]]), [0, 1], sensitive_features=[0, 1])


def test_invalid_labels():
    X = [[0.0], [1.0]]
    with pytest.raises(ValueError, match="y_pred has 3"):
        hfm(X, [0, 1], [0, 1, 1], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="missing values"):
        hfm(X, [0, np.nan], [0, 1], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="same two classes"):
        hfm(X, [0, 1], ["a", "b"], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="non-finite"):
        hfm_distances(X, ["a", None], sensitive_features=[0, 1])
    with pytest.raises(ValueError, match="1-dimensional"):
        hfm_distances(X, [[0, 1], [1, 0]], sensitive_features=[0, 1])


# Issue 10 item 4: y_pred must be hard labels of y_true's two classes.


@pytest.mark.parametrize(
    "y_pred",
    [
        [0.1, 0.9, 0.4, 0.6],  # probabilities
        [0, 1, 2, 1],  # multiclass
        ["no", "yes", "no", "yes"],  # other classes than y_true
    ],
)
def test_hfm_requires_hard_labels_of_the_two_classes(y_pred):
    X = [[0.0], [1.0], [0.2], [0.5]]
    with pytest.raises(ValueError, match="hard labels of the same two classes"):
        hfm(X, [0, 1, 0, 1], y_pred, sensitive_features=[1, 1, 0, 0])


def test_hfm_label_encoding_does_not_matter():
    X = [[0.0], [1.0], [0.2], [0.5]]
    base = hfm(X, [0, 1, 0, 1], [0, 1, 0, 0], sensitive_features=[1, 1, 0, 0])
    for y_true, y_pred in (
        ([-1, 1, -1, 1], [-1, 1, -1, -1]),
        (["n", "y", "n", "y"], ["n", "y", "n", "n"]),
        ([1, 0, 1, 0], [1, 0, 1, 1]),  # classes swapped: distances unchanged
        ([0.0, 1.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0]),
    ):
        got = hfm(X, y_true, y_pred, sensitive_features=[1, 1, 0, 0])
        assert got.to_dict() == base.to_dict()
