"""GroupMetricFrame with a lazy frame as ``data=`` (issue 39).

The metrics of the confusion counts (by name, or scikit-learn's functions
that the frame reads as rates) come from one group-by in the engine by the
control and sensitive columns and the two labels. Every result is compared
with the same frame built on the eager pandas frame of the same rows: on
hypothesis rows with ties, a group without positives, one attribute or an
intersection, control features, ``min_group_size`` and weights (none,
integer, real): bit-equal without weights and with integer weights
(intervals and the bootstrap of the unweighted rates included), to 1e-12
with real weights (sums in another order). The warnings (small groups,
undefined rates) are the in-memory ones; callables, nulls, missing columns
and the weighted bootstrap are refused with what to do.
"""

import functools
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _frames import frame_on
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score, precision_score, recall_score, roc_auc_score

from skfair.metrics import GroupMetricFrame
from skfair.metrics._disaggregation_strata import LAZY_RESAMPLE_ERROR
from skfair.metrics._lazy._frame import LAZY_NULL_ERROR

pytest.importorskip("duckdb")
pytestmark = pytest.mark.filterwarnings(
    # narwhals announces that its Dask backend moves to a plugin package
    "ignore:Dask support is moving out of Narwhals:FutureWarning",
)

METRICS = {
    "accuracy": "accuracy",
    "selection_rate": "selection_rate",
    "recall": "recall",
    "tpr": "true_positive_rate",
    "fpr": "false_positive_rate",
    "tnr": "true_negative_rate",
    "fnr": "false_negative_rate",
    "precision": "precision",
    "zero_one_loss": "zero_one_loss",
    "f1": "f1",
    "balanced_accuracy": "balanced_accuracy",
    "count": "count",
    "recall_score": recall_score,
    "precision_nan": functools.partial(precision_score, zero_division=np.nan),
    "f1_score": f1_score,
}
# the metrics whose intervals are closed forms (no resampling of rows)
PROPORTIONS = ["accuracy", "selection_rate", "tpr", "fpr", "precision"]

rows = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "n": st.integers(20, 200),
        "n_groups": st.integers(2, 4),
        "weights": st.sampled_from([None, "int", "float"]),
        "no_positives": st.booleans(),
    }
)
options = st.fixed_dictionaries(
    {
        "sens": st.sampled_from(["g", ["g", "h"]]),
        "control": st.sampled_from([None, "c"]),
        "min_group_size": st.sampled_from([None, 1, 5, 25]),
        "pos_label": st.sampled_from([None, 1, 0]),
    }
)
SETTINGS = settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def make_frame(seed, n, n_groups, weights, no_positives):
    """Labels, predictions, two attributes, a control column and weights."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n)
    df = pd.DataFrame(
        {
            "g": g,
            "h": rng.choice(np.array(["a", "b"], dtype=object), n).astype("str"),
            "c": rng.choice(np.array(["x", "y"], dtype=object), n).astype("str"),
            "y": rng.integers(0, 2, n),
            "pred": rng.integers(0, 2, n),
        }
    )
    if no_positives:  # group 0: no positive label, no positive prediction
        df.loc[df["g"] == 0, ["y", "pred"]] = 0
    if weights == "int":
        df["w"] = rng.integers(1, 4, n).astype(np.float64)
    elif weights == "float":
        df["w"] = rng.random(n) + 0.01
    return df


def _build(df, opts, frame, metrics=METRICS):
    """The frame on ``frame`` (lazy) or ``df`` (eager), and the warnings it gave."""
    sample_params = None
    if "w" in df:
        sample_params = {key: {"sample_weight": "w"} for key in metrics}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        built = GroupMetricFrame(
            metrics=metrics,
            y_true="y",
            y_pred="pred",
            sensitive_features=opts["sens"],
            control_features=opts["control"],
            sample_params=sample_params,
            pos_label=opts["pos_label"],
            min_group_size=opts["min_group_size"],
            data=frame,
        )
    messages = [(type(w.message), str(w.message)) for w in caught]
    messages = [m for m in messages if "Dask support" not in m[1]]
    return built, messages


def _exact(df):
    return "w" not in df or (df["w"] == np.round(df["w"])).all()


def _same(found, expected, exact):
    """Equal results (scalars, Series, DataFrames, or pairs of them)."""
    if isinstance(expected, tuple):
        for f, e in zip(found, expected, strict=True):
            _same(f, e, exact)
        return
    if isinstance(expected, pd.Series | pd.DataFrame):
        kind = pd.testing.assert_series_equal
        if isinstance(expected, pd.DataFrame):
            kind = pd.testing.assert_frame_equal
        if exact:
            kind(found, expected, check_exact=True)
        else:
            kind(found, expected, check_exact=False, rtol=1e-12, atol=1e-15)
        return
    if exact:
        assert found == expected or (np.isnan(found) and np.isnan(expected))
    else:
        assert found == pytest.approx(expected, rel=1e-12, abs=1e-15, nan_ok=True)


def _compare(found, expected, exact, weighted):
    _same(found.by_group, expected.by_group, exact)
    _same(found.overall, expected.overall, exact)
    for method in ("between_groups", "to_overall"):
        _same(found.difference(method), expected.difference(method), exact)
        _same(found.ratio(method), expected.ratio(method), exact)
    _same(found.group_min(), expected.group_min(), exact)
    _same(found.group_max(), expected.group_max(), exact)
    assert found.sensitive_levels == expected.sensitive_levels
    assert found.control_levels == expected.control_levels
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # the weighted bootstrap resamples rows: closed forms only
        seeded = {"n_resamples": 199, "random_state": 3}
        interval = {"interval": "wilson"} if weighted else seeded
        pair = {"interval": "newcombe"} if weighted else seeded
        for level in (0.9, 0.95):
            _same(
                found.by_group_interval(level, **interval),
                expected.by_group_interval(level, **interval),
                exact,
            )
            _same(
                found.overall_interval(level, **interval),
                expected.overall_interval(level, **interval),
                exact,
            )
            _same(
                found.difference_interval(confidence_level=level, **pair),
                expected.difference_interval(confidence_level=level, **pair),
                exact,
            )


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy"])
@SETTINGS
@given(data=rows, opts=options)
def test_equal_to_the_in_memory_frame(engine, duckdb_connection, data, opts):
    df = make_frame(**data)
    frame = frame_on(engine, df, duckdb_connection)
    weighted = "w" in df
    metrics = {key: METRICS[key] for key in PROPORTIONS} if weighted else METRICS
    try:
        expected, expected_warnings = _build(df, opts, df, metrics)
    except ValueError as error:  # e.g. min_group_size leaves one group
        with pytest.raises(ValueError, match=f"^{re.escape(str(error))}$"):
            _build(df, opts, frame, metrics)
        return
    found, found_warnings = _build(df, opts, frame, metrics)
    assert found_warnings == expected_warnings
    _compare(found, expected, _exact(df), weighted)
    if weighted:  # the total weight (its difference interval is a bootstrap)
        count = {"count": "count", "f1": "f1", "bal": "balanced_accuracy"}
        found, expected = _build(df, opts, frame, count), _build(df, opts, df, count)
        assert found[1] == expected[1]
        found, expected = found[0], expected[0]
        _same(found.by_group, expected.by_group, _exact(df))
        _same(found.overall, expected.overall, _exact(df))
        _same(found.difference(), expected.difference(), _exact(df))
        _same(found.ratio("to_overall"), expected.ratio("to_overall"), _exact(df))


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy"])
def test_bootstrap_of_unweighted_rates_is_the_in_memory_one(engine, duckdb_connection):
    # f1 and balanced accuracy are no proportions: a stratified bootstrap,
    # drawn from the cells' counts, which the engine gives exactly
    df = make_frame(3, 400, 3, None, True)
    frame = frame_on(engine, df, duckdb_connection)
    opts = {"sens": ["g", "h"], "control": "c", "min_group_size": 5, "pos_label": 1}
    metrics = {"f1": "f1", "bal": "balanced_accuracy", "acc": "accuracy"}
    expected, _ = _build(df, opts, df, metrics)
    found, _ = _build(df, opts, frame, metrics)
    for method in ("by_group_interval", "overall_interval"):
        _same(
            getattr(found, method)(interval="bootstrap", random_state=4),
            getattr(expected, method)(interval="bootstrap", random_state=4),
            True,
        )
    for method in ("difference_interval", "ratio_interval"):
        for how in ("between_groups", "to_overall"):
            _same(
                getattr(found, method)(how, n_resamples=199, random_state=7),
                getattr(expected, method)(how, n_resamples=199, random_state=7),
                True,
            )


def test_dask_frames_and_sqlframe(duckdb_connection):
    pytest.importorskip("dask.dataframe")
    df = make_frame(5, 300, 3, "int", True)
    opts = {"sens": ["g", "h"], "control": "c", "min_group_size": 3, "pos_label": None}
    metrics = {key: METRICS[key] for key in PROPORTIONS}
    expected, _ = _build(df, opts, df, metrics)
    engines = ["dask"]
    try:
        import sqlframe  # noqa: F401

        engines.append("sqlframe")
    except ImportError:
        pass
    for engine in engines:
        found, _ = _build(df, opts, frame_on(engine, df, duckdb_connection), metrics)
        _compare(found, expected, True, True)


def test_dask_frame_with_a_callable_is_refused(duckdb_connection):
    pytest.importorskip("dask.dataframe")
    df = make_frame(6, 200, 2, None, False)
    frame = frame_on("dask", df, duckdb_connection)
    kw = {"y_true": "y", "y_pred": "pred", "sensitive_features": "g"}
    with pytest.raises(TypeError, match="which needs every row"):
        GroupMetricFrame(metrics=roc_auc_score, data=frame, **kw)


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy"])
def test_refusals(engine, duckdb_connection):
    df = make_frame(8, 100, 2, "float", False)
    frame = frame_on(engine, df, duckdb_connection)
    kw = {"y_true": "y", "y_pred": "pred", "sensitive_features": "g", "data": frame}
    with pytest.raises(TypeError, match="Metric 'auc' is the callable 'roc_auc_score'"):
        GroupMetricFrame(metrics={"acc": "accuracy", "auc": roc_auc_score}, **kw)
    with pytest.raises(TypeError, match="the metric name 'log_loss'"):
        GroupMetricFrame(metrics="log_loss", **kw)
    with pytest.raises(TypeError, match="collect the columns first"):
        GroupMetricFrame(metrics=lambda y_true, y_pred: 0.0, **kw)
    with pytest.raises(TypeError, match="sample_weight must be the name of a column"):
        GroupMetricFrame(
            metrics="accuracy", sample_params={"sample_weight": df["w"]}, **kw
        )
    with pytest.raises(ValueError, match="'nope' is not a column of data"):
        GroupMetricFrame(
            metrics="accuracy", **{**kw, "sensitive_features": ["g", "nope"]}
        )
    with pytest.raises(ValueError, match="'nope' is not a column of data"):
        GroupMetricFrame(metrics="accuracy", control_features="nope", **kw)
    weighted = GroupMetricFrame(
        metrics={"f1": "f1", "acc": "accuracy"},
        sample_params={"f1": {"sample_weight": "w"}},
        min_group_size=1,
        **kw,
    )
    error = LAZY_RESAMPLE_ERROR.format(names=["f1"])
    with pytest.raises(ValueError, match=re.escape(error)):
        weighted.by_group_interval()
    assert weighted.by_group["acc"].notna().all()  # the values themselves run


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy"])
def test_nulls_and_nan_are_counted_in_the_engine(engine, duckdb_connection):
    df = make_frame(9, 60, 2, "float", False).astype({"y": "float64", "w": "float64"})
    df.loc[[3, 7], "y"] = np.nan
    kw = {"y_true": "y", "y_pred": "pred", "sensitive_features": "g"}
    frame = frame_on(engine, df, duckdb_connection)
    with pytest.raises(ValueError, match=r"y_true column 'y' has 2 (null|NaN)"):
        GroupMetricFrame(metrics="accuracy", data=frame, **kw)
    df = make_frame(9, 60, 2, "float", False)
    df.loc[[1], "w"] = np.nan
    frame = frame_on(engine, df, duckdb_connection)
    with pytest.raises(ValueError, match=r"sample_weight column 'w' has 1"):
        GroupMetricFrame(
            metrics="accuracy",
            sample_params={"sample_weight": "w"},
            data=frame,
            **kw,
        )
    assert "counted in the engine" in LAZY_NULL_ERROR


def test_labels_the_in_memory_frame_refuses_are_refused(duckdb_connection):
    df = make_frame(10, 60, 2, None, False)
    df.loc[[0, 1], "y"] = 2  # three classes: no confusion counts
    frame = frame_on("duckdb", df, duckdb_connection)
    kw = {"y_true": "y", "y_pred": "pred", "sensitive_features": "g"}
    with pytest.raises(ValueError) as expected:
        GroupMetricFrame(metrics="accuracy", data=df, **kw)
    with pytest.raises(ValueError, match=f"^{re.escape(str(expected.value))}$"):
        GroupMetricFrame(metrics="accuracy", data=frame, **kw)
    # a scikit-learn function would be called per group there: refused
    with pytest.raises(TypeError, match="called per group on these labels"):
        GroupMetricFrame(metrics=recall_score, data=frame, **kw)


def test_one_row_per_group_and_label_leaves_the_engine():
    pl = pytest.importorskip("polars")
    from skfair.metrics._lazy._counts import distinct_rows

    rng = np.random.default_rng(11)
    n = 20_000
    lf = pl.LazyFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "g": rng.integers(0, 3, n),
            "c": rng.integers(0, 2, n),
            "w": rng.random(n),
        }
    )
    table, count, summed = distinct_rows(
        lf, "y", "p", grouping=["c", "g"], sample_weights=["w"]
    )
    assert len(table) == 2 * 3 * 4 and count.sum() == n
    frame = lf.collect().to_pandas()
    assert summed["w"].sums.sum() == pytest.approx(frame["w"].sum(), rel=1e-12)
    assert summed["w"].squares.sum() == pytest.approx(
        (frame["w"] ** 2).sum(), rel=1e-12
    )
    assert summed["w"].largest == frame["w"].max()
