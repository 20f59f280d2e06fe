"""GroupMetricFrame: fairlearn's MetricFrame values, skfair's inputs and intervals."""

import doctest
import functools
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from sklearn.exceptions import UndefinedMetricWarning

from skfair.metrics import GroupMetricFrame
from skfair.metrics._disaggregation_inputs import (
    DUPLICATE_NAME_ERROR,
    RATE_PARAMS_ERROR,
    SAMPLE_PARAMS_KEYS_ERROR,
)
from skfair.metrics._disaggregation_intervals import NOT_A_PROPORTION_ERROR
from skfair.metrics.inference import newcombe_interval, proportion_interval
from skfair.utils import SmallGroupWarning

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")
MetricFrame = fairlearn_metrics.MetricFrame
ROOT = Path(__file__).resolve().parents[2]

# skfair name -> the function fairlearn users pass
NAMED = {
    "accuracy": skm.accuracy_score,
    "balanced_accuracy": skm.balanced_accuracy_score,
    "precision": skm.precision_score,
    "recall": skm.recall_score,
    "f1": skm.f1_score,
    "zero_one_loss": skm.zero_one_loss,
    "selection_rate": fairlearn_metrics.selection_rate,
    "true_positive_rate": fairlearn_metrics.true_positive_rate,
    "false_positive_rate": fairlearn_metrics.false_positive_rate,
    "true_negative_rate": fairlearn_metrics.true_negative_rate,
    "false_negative_rate": fairlearn_metrics.false_negative_rate,
}


def _case(seed, *, n_sensitive=1, control=False, empty_cell=False):
    """Random binary data where every cell holds all four confusion outcomes."""
    rng = np.random.default_rng(seed)
    levels = {
        f"s{k}": ["a", "b", "c"][: int(rng.integers(2, 4))] for k in range(n_sensitive)
    }
    if control:
        levels = {"ctl": [0, 1]} | levels
    cells = pd.MultiIndex.from_product(list(levels.values()), names=list(levels))
    sizes = rng.integers(6, 40, len(cells))
    if empty_cell:
        sizes[1] = 0
    rows = np.repeat(np.arange(len(cells)), sizes)
    table = cells.to_frame(index=False).iloc[rows].reset_index(drop=True)
    y_true = (rng.random(rows.size) < 0.5).astype(int)
    y_pred = np.where(rng.random(rows.size) < 0.7, y_true, 1 - y_true)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for start, size in zip(starts, sizes):
        if size:
            y_true[start : start + 4], y_pred[start : start + 4] = (
                [0, 0, 1, 1],
                [0, 1, 0, 1],
            )
    order = rng.permutation(rows.size)
    table = table.iloc[order].reset_index(drop=True)
    weights = rng.uniform(0.2, 3.0, rows.size)
    sensitive = table[[c for c in levels if c != "ctl"]]
    controls = table["ctl"] if control else None
    return y_true[order], y_pred[order], sensitive, controls, weights


def _both(metrics, y_true, y_pred, sensitive, controls=None, params=None, theirs=None):
    ours = GroupMetricFrame(
        metrics=metrics,
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive,
        control_features=controls,
        sample_params=params,
        min_group_size=1,
    )
    reference = MetricFrame(
        metrics=theirs if theirs is not None else metrics,
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive,
        control_features=controls,
        sample_params=params,
    )
    return ours, reference


def _assert_same(ours, theirs):
    if isinstance(theirs, pd.DataFrame | pd.Series):
        assert type(ours) is type(theirs)
        assert ours.index.equals(theirs.index) or list(ours.index) == list(theirs.index)
        np.testing.assert_allclose(
            np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float), atol=1e-12
        )
        if isinstance(theirs, pd.DataFrame):
            assert list(ours.columns) == list(theirs.columns)
        else:
            assert ours.name == theirs.name
    else:
        assert np.ndim(ours) == 0
        assert float(ours) == pytest.approx(float(theirs), abs=1e-12)


def _assert_frames_agree(ours, theirs):
    _assert_same(ours.by_group, theirs.by_group)
    _assert_same(ours.overall, theirs.overall)
    _assert_same(ours.group_min(), theirs.group_min())
    _assert_same(ours.group_max(), theirs.group_max())
    for method in ["between_groups", "to_overall"]:
        _assert_same(ours.difference(method), theirs.difference(method))
        _assert_same(ours.ratio(method), theirs.ratio(method))


@pytest.mark.parametrize("seed", range(12))
def test_named_metrics_equal_fairlearn_with_weights_columns_and_controls(seed):
    n_sensitive, control, weighted = 1 + seed % 2, seed % 3 == 0, seed % 4 < 2
    y_true, y_pred, sensitive, controls, weights = _case(
        seed, n_sensitive=n_sensitive, control=control
    )
    names = list(NAMED)
    params = {name: {"sample_weight": weights} for name in names} if weighted else None
    ours, theirs = _both(
        {name: name for name in names},
        y_true,
        y_pred,
        sensitive,
        controls,
        params,
        theirs=NAMED,
    )
    _assert_frames_agree(ours, theirs)
    assert ours.sensitive_levels == theirs.sensitive_levels
    assert ours.control_levels == theirs.control_levels


@pytest.mark.parametrize("seed", range(4))
def test_one_metric_alone_has_fairlearn_s_types(seed):
    y_true, y_pred, sensitive, controls, weights = _case(seed, control=seed % 2 == 0)
    ours, theirs = _both(
        skm.recall_score,
        y_true,
        y_pred,
        sensitive,
        controls,
        {"sample_weight": weights},
    )
    _assert_frames_agree(ours, theirs)
    by_name = GroupMetricFrame(
        metrics="recall",
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive,
        control_features=controls,
        sample_params={"sample_weight": weights},
        min_group_size=1,
    )
    np.testing.assert_allclose(by_name.by_group, ours.by_group)
    assert by_name.by_group.name == "recall"


def test_empty_intersections_are_nan_rows_as_in_fairlearn():
    y_true, y_pred, sensitive, _, _ = _case(5, n_sensitive=2, empty_cell=True)
    ours, theirs = _both(
        {"acc": "accuracy"},
        y_true,
        y_pred,
        sensitive,
        theirs={"acc": skm.accuracy_score},
    )
    assert ours.by_group["acc"].isna().sum() == 1
    _assert_frames_agree(ours, theirs)


def test_callables_run_per_group_with_their_sample_params():
    rng = np.random.default_rng(0)
    y_true, y_score = rng.normal(size=300), rng.normal(size=300)
    groups = rng.choice(["x", "y", "z"], 300)
    weights = rng.uniform(0.5, 2.0, 300)
    metrics = {"mae": skm.mean_absolute_error, "r2": skm.r2_score}
    params = {"mae": {"sample_weight": weights}}
    ours, theirs = _both(metrics, y_true, y_score, groups, params=params)
    _assert_frames_agree(ours, theirs)


def test_non_scalar_results_are_kept_by_group_and_skipped_by_aggregates():
    y_true, y_pred, sensitive, _, _ = _case(1)
    metrics = {"cm": skm.confusion_matrix, "acc": "accuracy"}
    ours = GroupMetricFrame(
        metrics=metrics,
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive,
        min_group_size=1,
    )
    theirs = MetricFrame(
        metrics={"cm": skm.confusion_matrix, "acc": skm.accuracy_score},
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive,
    )
    for got, expected in zip(ours.by_group["cm"], theirs.by_group["cm"]):
        np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(ours.overall["cm"], theirs.overall["cm"])
    assert np.isnan(ours.group_min()["cm"])
    assert ours.difference()["acc"] == pytest.approx(theirs.difference()["acc"])


def test_scorer_and_function_names_resolve_to_scikit_learn():
    rng = np.random.default_rng(2)
    y_true = rng.integers(0, 2, 400)
    y_score = np.clip(0.3 * y_true + rng.random(400) * 0.7, 0, 1)
    groups = rng.choice(["a", "b"], 400)
    frame = GroupMetricFrame(
        metrics={"roc_auc": "roc_auc", "log_loss": "log_loss"},
        y_true=y_true,
        y_pred=y_score,
        sensitive_features=groups,
    )
    for label in ["a", "b"]:
        mask = groups == label
        expected = skm.roc_auc_score(y_true[mask], y_score[mask])
        assert frame.by_group.loc[label, "roc_auc"] == pytest.approx(expected)
        expected = skm.log_loss(y_true[mask], y_score[mask])
        assert frame.by_group.loc[label, "log_loss"] == pytest.approx(expected)
    with pytest.raises(ValueError, match="negated scorer.*'log_loss'"):
        GroupMetricFrame(
            metrics="neg_log_loss",
            y_true=y_true,
            y_pred=y_score,
            sensitive_features=groups,
        )
    with pytest.raises(ValueError, match="unknown metric name 'acc'.*'accuracy'"):
        GroupMetricFrame(
            metrics="acc", y_true=y_true, y_pred=y_true, sensitive_features=groups
        )
    with pytest.raises(TypeError, match="metrics must be a callable"):
        GroupMetricFrame(
            metrics=3, y_true=y_true, y_pred=y_true, sensitive_features=groups
        )


def test_frames_of_any_library_give_the_pandas_answer(constructor):
    y_true, y_pred, sensitive, controls, _ = _case(7, n_sensitive=2, control=True)
    expected = GroupMetricFrame(
        metrics={"acc": "accuracy", "tpr": "true_positive_rate"},
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=sensitive,
        control_features=controls,
        min_group_size=1,
    )
    data = {name: sensitive[name].to_list() for name in sensitive.columns}
    got = GroupMetricFrame(
        metrics={"acc": "accuracy", "tpr": "true_positive_rate"},
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=constructor(data),
        control_features=constructor({"ctl": controls.to_list()}),
        min_group_size=1,
    )
    pd.testing.assert_frame_equal(got.by_group, expected.by_group)
    pd.testing.assert_frame_equal(got.difference(), expected.difference())


def test_min_group_size_drops_rows_and_warns_by_default():
    rng = np.random.default_rng(3)
    groups = np.repeat(["a", "b", "tiny"], [60, 50, 4])
    y = rng.integers(0, 2, groups.size)
    with pytest.warns(SmallGroupWarning, match="'tiny' \\(4 samples\\)"):
        GroupMetricFrame(
            metrics="accuracy", y_true=y, y_pred=y, sensitive_features=groups
        )
    frame = GroupMetricFrame(
        metrics="selection_rate",
        y_true=y,
        y_pred=y,
        sensitive_features=groups,
        min_group_size=30,
    )
    assert list(frame.by_group.index) == ["a", "b"]
    assert frame.overall == pytest.approx(y.mean())  # the tiny group still counts


def test_undefined_rates_are_nan_with_a_warning():
    y_true = np.array([0, 1] * 40)
    y_pred = np.array([0, 1] * 20 + [0] * 40)  # group "b" predicts no positive
    groups = np.repeat(["a", "b"], 40)
    nan_precision = functools.partial(skm.precision_score, zero_division=np.nan)
    frame = GroupMetricFrame(
        metrics=nan_precision, y_true=y_true, y_pred=y_pred, sensitive_features=groups
    )
    assert np.isnan(frame.by_group["b"]) and frame.by_group["a"] == 1.0
    assert np.isnan(frame.difference())  # one group with a value: no comparison
    y_true = np.array([0, 1] * 20 + [0] * 40)  # group "b" has no positive label
    with pytest.warns(UndefinedMetricWarning, match="true_positive_rate is undef.*'b'"):
        frame = GroupMetricFrame(
            metrics="true_positive_rate",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=groups,
        )
    assert np.isnan(frame.by_group["b"]) and np.isnan(frame.difference())


def test_scikit_learn_names_keep_its_zero_division_like_its_functions():
    y_true = np.array([0, 1] * 40)
    y_pred = np.array([0, 1] * 20 + [0] * 40)  # group "b" predicts no positive
    groups = np.repeat(["a", "b"], 40)
    with pytest.warns(UndefinedMetricWarning, match="precision_score is ill-def"):
        frame = GroupMetricFrame(
            metrics="precision_score",
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=groups,
        )
    assert frame.by_group["b"] == 0.0 and frame.difference() == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # scikit-learn's
        theirs = MetricFrame(
            metrics=skm.precision_score,
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=groups,
        )
    _assert_frames_agree(frame, theirs)


def test_input_errors_name_the_argument():
    y = np.array([0, 1] * 30)
    groups = np.repeat(["a", "b"], 30)
    with pytest.raises(ValueError, match=SAMPLE_PARAMS_KEYS_ERROR[:20]):
        GroupMetricFrame(
            metrics={"acc": "accuracy"},
            y_true=y,
            y_pred=y,
            sensitive_features=groups,
            sample_params={"f1": {"sample_weight": np.ones(60)}},
        )
    with pytest.raises(ValueError, match=RATE_PARAMS_ERROR[:30].format(name="acc")):
        GroupMetricFrame(
            metrics={"acc": "accuracy"},
            y_true=y,
            y_pred=y,
            sensitive_features=groups,
            sample_params={"acc": {"normalize": np.ones(60)}},
        )
    with pytest.raises(ValueError, match=DUPLICATE_NAME_ERROR.format(name="g")):
        GroupMetricFrame(
            metrics="accuracy",
            y_true=y,
            y_pred=y,
            sensitive_features=pd.Series(groups, name="g"),
            control_features=pd.Series(groups, name="g"),
        )
    with pytest.raises(ValueError, match="control_features.*y_true"):
        GroupMetricFrame(
            metrics="accuracy",
            y_true=y,
            y_pred=y,
            sensitive_features=groups,
            control_features=groups[:10],
        )
    with pytest.raises(ValueError, match="method must be 'between_groups'"):
        GroupMetricFrame(
            metrics="accuracy", y_true=y, y_pred=y, sensitive_features=groups
        ).difference("pairs")


# -- intervals ---------------------------------------------------------------


def _frame(y_true, y_pred, groups, metrics=None, **kwargs):
    kwargs.setdefault("min_group_size", 1)
    return GroupMetricFrame(
        metrics=metrics or {"acc": "accuracy", "tpr": "recall", "ppv": "precision"},
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=groups,
        **kwargs,
    )


def test_wilson_intervals_use_each_metric_s_own_denominator():
    y_true, y_pred, groups, _, _ = _case(11)
    groups = groups["s0"].to_numpy()
    low, high = _frame(y_true, y_pred, groups).by_group_interval(0.9)
    for label in np.unique(groups):
        t, p = y_true[groups == label] == 1, y_pred[groups == label] == 1
        for name, hits, trials in [
            ("acc", (t == p).sum(), t.size),
            ("tpr", (t & p).sum(), t.sum()),
            ("ppv", (t & p).sum(), p.sum()),
        ]:
            expected = proportion_interval(hits, trials, 0.9)
            assert low.loc[label, name] == pytest.approx(float(expected[0]))
            assert high.loc[label, name] == pytest.approx(float(expected[1]))


def test_equal_weights_give_the_unweighted_intervals():
    y_true, y_pred, groups, _, _ = _case(12)
    plain = _frame(y_true, y_pred, groups)
    weighted = _frame(
        y_true,
        y_pred,
        groups,
        sample_params={
            name: {"sample_weight": np.full(len(y_true), 2.5)}
            for name in ["acc", "tpr", "ppv"]
        },
    )
    for method in ["by_group_interval", "overall_interval", "difference_interval"]:
        for a, b in zip(getattr(plain, method)(), getattr(weighted, method)()):
            np.testing.assert_allclose(np.asarray(a), np.asarray(b))


def test_two_groups_get_newcombe_s_interval():
    rng = np.random.default_rng(4)
    groups = np.repeat(["a", "b"], [70, 80])
    y_pred = np.r_[np.ones(56), np.zeros(14), np.ones(48), np.zeros(32)].astype(int)
    frame = _frame(rng.integers(0, 2, 150), y_pred, groups, metrics="selection_rate")
    low, high = frame.difference_interval()
    expected = newcombe_interval(56 / 70, 70, 48 / 80, 80, 1.959963984540054)
    assert (low, high) == pytest.approx(expected)  # Newcombe's example (h)


def _agreement(y_true, y_pred):
    return float(np.mean(y_true == y_pred))


@pytest.mark.parametrize("method", ["between_groups", "to_overall"])
def test_bootstrap_intervals_hold_the_estimate_and_are_reproducible(method):
    y_true, y_pred, groups, controls, _ = _case(13, n_sensitive=2, control=True)
    metrics = {"f1": "f1", "acc": "accuracy", "agree": _agreement}
    frame = _frame(y_true, y_pred, groups, metrics=metrics, control_features=controls)
    for how in ["difference", "ratio"]:
        estimate = getattr(frame, how)(method)
        low, high = getattr(frame, f"{how}_interval")(
            method, interval="bootstrap", n_resamples=199, random_state=0
        )
        assert ((low <= estimate + 1e-12) & (estimate <= high + 1e-12)).all().all()
        again = getattr(frame, f"{how}_interval")(
            method, interval="bootstrap", n_resamples=199, random_state=0
        )
        pd.testing.assert_frame_equal(low, again[0])
    low, high = frame.by_group_interval(n_resamples=199, random_state=0)
    assert (low.stack() <= high.stack()).all()


def test_weighted_rates_are_resampled_by_rows_like_the_counts():
    y_true, y_pred, groups, _, _ = _case(14)
    y_true, y_pred, groups = (np.tile(a, 20) for a in (y_true, y_pred, groups["s0"]))
    plain = _frame(y_true, y_pred, groups, metrics="f1")
    weighted = _frame(
        y_true,
        y_pred,
        groups,
        metrics="f1",
        sample_params={"sample_weight": np.ones(len(y_true))},
    )
    a = plain.by_group_interval(n_resamples=300, random_state=0)
    b = weighted.by_group_interval(n_resamples=300, random_state=1)
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), atol=0.01)


def test_intervals_narrow_as_groups_grow():
    widths = []
    for size in [100, 10_000]:
        rng = np.random.default_rng(size)
        groups = np.repeat(["a", "b", "c"], size)
        y_true = rng.integers(0, 2, 3 * size)
        y_pred = np.where(rng.random(3 * size) < 0.8, y_true, 1 - y_true)
        frame = _frame(y_true, y_pred, groups, metrics={"acc": "accuracy", "f1": "f1"})
        low, high = frame.difference_interval(n_resamples=199, random_state=0)
        widths.append(high - low)
    assert (widths[1] < widths[0] / 5).all()  # about 1 / sqrt(100) narrower
    assert (widths[1] < 0.05).all()


def test_interval_option_errors():
    y_true, y_pred, groups, _, _ = _case(15)
    frame = _frame(y_true, y_pred, groups, metrics={"f1": "f1"})
    with pytest.raises(
        ValueError,
        match=NOT_A_PROPORTION_ERROR.format(interval="wilson", metric="f1")[:40],
    ):
        frame.by_group_interval(interval="wilson")
    with pytest.raises(ValueError, match="interval must be one of"):
        frame.ratio_interval(interval="newcombe")
    with pytest.raises(ValueError, match="n_resamples"):
        frame.difference_interval(n_resamples=10)
    with pytest.raises(ValueError, match="confidence_level"):
        frame.by_group_interval(confidence_level=95)


def _coverage(draw, n_repeats, seed):
    rng = np.random.default_rng(seed)
    return np.mean([draw(rng) for _ in range(n_repeats)])


def test_coverage_of_wilson_newcombe_and_the_bootstrap_band():
    # three groups of 40 with true selection rates 0.2, 0.3, 0.3
    rates, sizes = np.array([0.2, 0.3, 0.3]), np.array([40, 40, 40])
    groups = np.repeat(["a", "b", "c"], sizes)
    p = np.repeat(rates, sizes)

    def covers(rng, interval):
        y_pred = (rng.random(p.size) < p).astype(int)
        frame = _frame(y_pred, y_pred, groups, metrics="selection_rate")
        low, high = frame.by_group_interval()
        group_ok = (low.to_numpy() <= rates) & (rates <= high.to_numpy())
        low, high = frame.difference_interval(
            interval=interval, n_resamples=199, random_state=rng
        )
        return group_ok.mean(), float(low <= 0.1 <= high)

    for interval in ["newcombe", "bootstrap"]:
        results = np.array(
            [covers(rng, interval) for rng in map(np.random.default_rng, range(150))]
        )
        assert results[:, 0].mean() >= 0.92  # Wilson, pointwise 95 %
        assert results[:, 1].mean() >= 0.93  # the gap's interval, conservative


# -- the user guide page -------------------------------------------------------


def test_coming_from_fairlearn_page_runs():
    page = ROOT / "docs" / "user_guide" / "coming_from_fairlearn.rst"
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    parser = doctest.DocTestParser()
    test = parser.get_doctest(page.read_text(), {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=flags)
    with warnings.catch_warnings():
        # fairlearn's reductions trip pandas deprecations (theirs, not ours)
        warnings.filterwarnings("ignore", module=r"fairlearn\.")
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 20
    assert result.failed == 0


# -- issue 40: one label, weighted counts, scikit-learn's own callables ------


def test_one_label_follows_pos_label_1_like_fairlearn():
    """A model that selects nobody, on a sample without positives."""
    y = np.zeros(60, dtype=int)
    groups = np.repeat(["a", "b"], 30)
    metrics = {"sel": "selection_rate", "recall": "recall", "acc": "accuracy"}
    with pytest.warns(UndefinedMetricWarning, match="recall is ill-defined"):
        ours = GroupMetricFrame(
            metrics=metrics, y_true=y, y_pred=y, sensitive_features=groups
        )
    assert ours.by_group["sel"].tolist() == [0.0, 0.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # scikit-learn's
        theirs = MetricFrame(
            metrics={
                "sel": fairlearn_metrics.selection_rate,
                "recall": skm.recall_score,
                "acc": skm.accuracy_score,
            },
            y_true=y,
            y_pred=y,
            sensitive_features=groups,
        )
    _assert_frames_agree(ours, theirs)
    # True is 1, as in scikit-learn; a single other label is not positive
    for label, rate in [(True, 1.0), (2, 0.0), ("yes", 0.0)]:
        frame = GroupMetricFrame(
            metrics="selection_rate",
            y_true=[label] * 60,
            y_pred=[label] * 60,
            sensitive_features=groups,
        )
        assert frame.by_group.tolist() == [rate, rate]
    frame = GroupMetricFrame(  # an explicit pos_label is kept
        metrics="selection_rate",
        y_true=y,
        y_pred=y,
        sensitive_features=groups,
        pos_label=0,
    )
    assert frame.by_group.tolist() == [1.0, 1.0]


@pytest.mark.parametrize("scale", [1.0, 1e-300, 1e300])
def test_count_with_weights_is_the_total_weight(scale):
    weights = np.array([1.0, 1.0, 2.0, 4.0]) * scale
    frame = GroupMetricFrame(
        metrics={"count": "count", "acc": "accuracy"},
        y_true=[0, 1, 1, 0],
        y_pred=[0, 1, 0, 0],
        sensitive_features=["a", "a", "b", "b"],
        sample_params={
            "count": {"sample_weight": weights},
            "acc": {"sample_weight": weights},
        },
        min_group_size=1,
    )
    np.testing.assert_allclose(frame.by_group["count"], [2 * scale, 6 * scale])
    np.testing.assert_allclose(frame.by_group["acc"], [1.0, 4.0 / 6.0])
    assert frame.overall["count"] == pytest.approx(8 * scale)
    low, _ = frame.by_group_interval()
    np.testing.assert_allclose(low["count"], [2 * scale, 6 * scale])


def _per_group(metric):
    """``metric`` behind a wrapper that the frame cannot recognise: called per group."""

    def called(y_true, y_pred, **params):
        return metric(y_true, y_pred, **params)

    return called


_SKLEARN_CALLABLES = [
    skm.accuracy_score,
    skm.zero_one_loss,
    skm.balanced_accuracy_score,
    skm.recall_score,
    skm.precision_score,
    skm.f1_score,
    functools.partial(skm.recall_score, zero_division=np.nan),
    functools.partial(skm.precision_score, zero_division=1.0),
    functools.partial(skm.f1_score, zero_division=0.0),
    functools.partial(skm.recall_score, pos_label=0),
    functools.partial(skm.precision_score, pos_label=0, zero_division=np.nan),
]


@pytest.mark.parametrize("seed", range(6))
def test_scikit_learn_callables_run_on_the_counts_with_identical_numbers(seed):
    rng = np.random.default_rng(seed)
    n = 240
    groups = rng.choice(["a", "b", "c", "d"], n)
    y_true = rng.integers(0, 2, n)
    y_pred = rng.integers(0, 2, n)
    y_true[groups == "b"] = 0  # no positive label
    y_pred[groups == "c"] = 0  # no positive prediction
    y_true[groups == "d"], y_pred[groups == "d"] = 1, 1  # no negative at all
    metrics = {f"m{k}": metric for k, metric in enumerate(_SKLEARN_CALLABLES)}
    called = {name: _per_group(metric) for name, metric in metrics.items()}
    params = None
    if seed % 2:
        weights = rng.uniform(0.1, 5.0, n)
        params = {name: {"sample_weight": weights} for name in metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        warnings.simplefilter("ignore", UserWarning)  # scikit-learn's, per group
        ours = GroupMetricFrame(
            metrics=metrics,
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=groups,
            sample_params=params,
            min_group_size=1,
        )
        reference = GroupMetricFrame(
            metrics=called,
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=groups,
            sample_params=params,
            min_group_size=1,
        )
        theirs = MetricFrame(
            metrics=metrics,
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=groups,
            sample_params=params,
        )
    assert all(metric.by_counts for metric in ours._evaluation.metrics)
    assert not any(metric.by_counts for metric in reference._evaluation.metrics)
    _assert_frames_agree(ours, reference)
    _assert_frames_agree(ours, theirs)


def test_recall_name_and_recall_score_agree_with_a_group_without_positives():
    rng = np.random.default_rng(40)
    groups = np.repeat(["a", "b", "c"], [50, 40, 30])
    y_true = rng.integers(0, 2, 120)
    y_true[groups == "c"] = 0
    y_pred = np.where(rng.random(120) < 0.7, y_true, 1 - y_true)
    frames = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        for metric in [
            "recall",
            "recall_score",
            skm.recall_score,
            _per_group(skm.recall_score),
        ]:
            frames.append(
                GroupMetricFrame(
                    metrics=metric,
                    y_true=y_true,
                    y_pred=y_pred,
                    sensitive_features=groups,
                    min_group_size=1,
                )
            )
        theirs = MetricFrame(
            metrics=skm.recall_score,
            y_true=y_true,
            y_pred=y_pred,
            sensitive_features=groups,
        )
    assert theirs.by_group["c"] == 0.0
    for frame in frames:
        _assert_same(frame.by_group.rename(None), theirs.by_group.rename(None))
        assert frame.difference() == pytest.approx(theirs.difference(), abs=1e-12)


def test_scikit_learn_callables_that_do_not_fit_the_counts_are_called():
    rng = np.random.default_rng(3)
    groups = rng.choice(["a", "b"], 200)
    labels = rng.choice(["no", "yes", "maybe"], 200)
    macro = functools.partial(skm.recall_score, average="macro")
    frame = GroupMetricFrame(
        metrics={"macro": macro, "acc": skm.accuracy_score},
        y_true=labels,
        y_pred=rng.permutation(labels),
        sensitive_features=groups,
        min_group_size=1,
    )
    assert not any(metric.by_counts for metric in frame._evaluation.metrics)
    for label in ["a", "b"]:
        mask = groups == label
        expected = macro(labels[mask], frame._evaluation.samples.y_pred[mask])
        assert frame.by_group.loc[label, "macro"] == pytest.approx(expected)
    strings = np.where(labels == "yes", "yes", "no")
    with pytest.raises(ValueError, match="pos_label=1 is not a valid label"):
        GroupMetricFrame(  # scikit-learn's own error, as in fairlearn
            metrics=skm.recall_score,
            y_true=strings,
            y_pred=strings,
            sensitive_features=groups,
            min_group_size=1,
        )
    frame = GroupMetricFrame(
        metrics=functools.partial(skm.recall_score, pos_label="yes"),
        y_true=strings,
        y_pred=strings,
        sensitive_features=groups,
        min_group_size=1,
    )
    assert frame._evaluation.metrics[0].by_counts
    assert frame.by_group.tolist() == [1.0, 1.0]
