"""The regression group table and the gaps' confidence intervals.

:func:`regression_group_table`: one row per group with its size, mean
prediction, mean residual, MAE and RMSE with Student-t intervals, and its
prediction quantiles; optionally each group against a reference group
(Welch). :func:`regression_gap_intervals`: the gap of each metric between
groups (the worst pair, the mean over pairs, or every group against a
reference) with a simultaneous interval, by a bootstrap stratified by group
or by Bonferroni-corrected Welch intervals. The numbers come from
``_regression_stats.py``; the coverage of every interval here is measured by
``benchmarks/bench_regression_coverage.py``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd

from ..utils import resolve_privileged
from ..utils._labels import group_label_text
from ._base import aggregate, check_agg
from ._kernels import pair_codes
from ._regression_stats import (
    METRICS,
    bootstrap_estimates,
    group_intervals,
    group_moments,
    prepare_regression,
    survey_moments,
    survey_quantiles,
    weighted_quantiles,
)
from .inference import (
    check_band_resamples,
    check_confidence_level,
    fold_abs,
    random_generator,
    welch_interval,
)

QUANTILES_ERROR = (
    "quantiles must be a sequence of distinct numbers in [0, 1]; got {value!r}."
)
REFERENCE_ERROR = (
    "reference={reference!r} is not a group of {name!r}; its groups are "
    "{labels}. Pass a group's label (a tuple, or its written form 'a & b', "
    "for an intersection), or None."
)
GAP_METHOD_ERROR = "method must be 'bootstrap' or 'welch'; got {method!r}."
ONE_SAMPLE_NOTE = "one sample: no spread estimate, no interval"
NO_SPREAD_NOTE = "no spread: zero-width intervals"
REFERENCE_NOTE = "reference group"
SMALL_DIFF_NOTE = "fewer than 10 samples: no interval of the difference"
#: Fewest samples of a compared group for a gap's interval. With fewer, the
#: group's spread is too uncertain: with normal errors, no gap and a group of
#: m against 200 - m, the 95 % intervals covered (Welch on 2,000 runs /
#: bootstrap on 300; mean residual, MAE, RMSE) at m = 2: 0.90/0.85, 0.86/0.83,
#: 0.83/0.78; at 10: 0.95/0.94, 0.93/0.95, 0.89/0.91; at 30: 0.95/0.94,
#: 0.94/0.96, 0.92/0.92. The RMSE's standard error rests on the group's
#: fourth moment and stays short at 10-30 samples.
MIN_GAP_INTERVAL_SIZE = 10
UNDEFINED_GAP_NOTE = (
    "group {label!r} has {n} sample(s), fewer than {minimum}: its spread is "
    "too uncertain for an interval of the gap (pass min_group_size={minimum} "
    "to leave such groups out)"
)
SURVEY_UNDEFINED_GAP_NOTE = (
    "group {label!r} has a Kish effective size of {n}, fewer than {minimum}: "
    "its weighted spread is too uncertain for an interval of the gap"
)
# Bootstrap pair differences (resamples x pairs) held at once.
_PAIR_BLOCK_CELLS = 4_000_000


def _check_quantiles(quantiles):
    """``quantiles`` as a float array of distinct values in [0, 1]."""
    try:
        q = np.asarray(quantiles, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        raise ValueError(QUANTILES_ERROR.format(value=quantiles)) from None
    if (
        np.isnan(q).any()
        or (q < 0).any()
        or (q > 1).any()
        or np.unique(q).size != q.size
    ):
        raise ValueError(QUANTILES_ERROR.format(value=quantiles))
    return q


def _reference_code(reference, grouping):
    """The code of group ``reference`` (a label or its written form), or None."""
    if reference is None:
        return None
    try:
        return resolve_privileged(reference, grouping)
    except ValueError:
        written = [group_label_text(label) for label in grouping.labels]
        if isinstance(reference, str) and reference in written:
            return written.index(reference)
        raise ValueError(
            REFERENCE_ERROR.format(
                reference=reference, name=grouping.name, labels=list(grouping.labels)
            )
        ) from None


def _notes(moments, ref):
    """Why a group's intervals are missing or degenerate ('' when they are fine)."""
    notes = np.full(moments.total.shape[0], "", dtype=object)
    notes[(moments.var == 0).all(axis=1)] = NO_SPREAD_NOTE
    notes[moments.total <= 1] = ONE_SAMPLE_NOTE
    if ref is not None:
        few = (moments.total > 1) & (moments.total < MIN_GAP_INTERVAL_SIZE)
        notes[few] = [
            "; ".join(s for s in (note, SMALL_DIFF_NOTE) if s) for note in notes[few]
        ]
        notes[ref] = "; ".join(s for s in (REFERENCE_NOTE, notes[ref]) if s)
    return notes


def _reference_columns(moments, ref, confidence_level):
    """``{column: values}``: each metric of each group minus the reference's.

    Welch's interval for a difference of two independent estimates (the
    delta method for RMSE), each comparison at ``confidence_level``.
    """
    est, se2, dof = moments.estimates(), moments.se2(), moments.total - 1.0
    columns = {}
    for k, name in enumerate(METRICS):
        columns[f"{name}_diff"] = est[:, k] - est[ref, k]
        if confidence_level is None:
            continue
        low, high = welch_interval(
            est[:, k],
            se2[:, k],
            dof,
            est[ref, k],
            se2[ref, k],
            dof[ref],
            1.0 - confidence_level,
        )
        small = moments.total < MIN_GAP_INTERVAL_SIZE  # see the constant
        undefined = small | small[ref]
        undefined[ref] = True
        columns[f"{name}_diff_lower"] = np.where(undefined, np.nan, low)
        columns[f"{name}_diff_upper"] = np.where(undefined, np.nan, high)
    return columns


def _group_frame(data, confidence_level, quantiles, ref, survey=False):
    """The rows of :func:`regression_group_table` for one grouping.

    With ``survey`` weights (:func:`survey_group_table`): the moments of
    :func:`survey_moments` (intervals on Kish's ``n_eff``), the quantiles
    of :func:`survey_quantiles`, and ``n`` the weighted count beside
    ``n_rows`` and ``n_eff``.
    """
    moments = survey_moments(data) if survey else group_moments(data)
    est = moments.estimates()
    total = moments.total
    if survey:
        n = np.bincount(data.codes, weights=data.weights, minlength=total.shape[0])
        columns = {"n": n, "n_rows": moments.rows, "n_eff": total}
    else:
        n = total.astype(np.int64) if (total == np.round(total)).all() else total
        columns = {"n": n}
    columns["mean_prediction"] = moments.mean_pred
    if confidence_level is not None:
        lower, upper = group_intervals(moments, confidence_level)
    for k, name in enumerate(METRICS):
        columns[name] = est[:, k]
        if confidence_level is not None:
            columns[f"{name}_lower"] = lower[:, k]
            columns[f"{name}_upper"] = upper[:, k]
    quantile = survey_quantiles if survey else weighted_quantiles
    for q, values in zip(quantiles, quantile(data, quantiles).T):
        columns[f"q{100 * q:g}"] = values
    if ref is not None:
        columns.update(_reference_columns(moments, ref, confidence_level))
    if confidence_level is not None:
        columns["note"] = _notes(moments, ref)
    index = pd.Index(
        [group_label_text(label) for label in data.grouping.labels],
        name=data.grouping.name,
    )
    return pd.DataFrame(columns, index=index)


def regression_group_table(
    y_true,
    y_pred,
    *,
    sensitive_features,
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    confidence_level=0.95,
    quantiles=(0.1, 0.5, 0.9),
    reference=None,
):
    r"""Error and bias of a regressor in every group, with confidence intervals.

    One row per group: its size ``n``, the mean prediction, the mean
    residual (residual :math:`= \hat y - y`, so positive means
    over-prediction), the mean absolute error (MAE) and the root mean
    squared error (RMSE), each with the ends of a ``confidence_level``
    interval (``*_lower``, ``*_upper``), and the quantiles of the
    predictions (``q10``, ``q50``, ``q90`` by default).

    Parameters
    ----------
    y_true, y_pred, sensitive_features
        See :func:`mean_residual_difference`.
    combine : {"intersection", "marginal"}, default="intersection"
        With several attributes, one row per intersectional group, or the
        groups of each attribute in turn (a two-level index, attribute and
        group).
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights: a row of weight ``k`` counts as ``k`` identical
        rows, in every number and interval (``n`` is the sum of weights).
        With intervals they must be whole numbers; with
        ``confidence_level=None`` any non-negative weights are accepted.
    min_group_size : int or None, default=None
        None keeps every group and warns
        (:class:`~skfair.utils.SmallGroupWarning`) about groups of fewer than
        30 samples; an int ``k`` leaves out groups of fewer than ``k``.
    confidence_level : float or None, default=0.95
        Level of each interval (each group's own, not simultaneous); None
        leaves the interval columns (and ``note``) out.
    quantiles : sequence of float, default=(0.1, 0.5, 0.9)
        Quantiles of the predictions; column ``q{100 q}`` (``q2.5`` for
        0.025). Linear interpolation, as :func:`numpy.quantile`, of the rows
        repeated by their weights.
    reference : object or None, default=None
        A group's label (or its written form, ``"a & b"`` for an
        intersection). Adds, for each metric, the difference of each group
        from the reference group (``*_diff``) with Welch's interval
        (``*_diff_lower``, ``*_diff_upper``).

    Returns
    -------
    table : pandas.DataFrame
        Indexed by the groups' written labels
        (:func:`~skfair.utils._labels.group_label_text`), the index named after the
        attribute. The ``note`` column says why a group's intervals are
        missing (one sample) or of zero width (no spread).

    See Also
    --------
    regression_gap_intervals : The gaps between groups, with intervals.
    mean_residual_difference, mean_absolute_error_difference
    root_mean_squared_error_difference
    GroupMetricFrame : Any metric by group.

    Notes
    -----
    The intervals rest on the central limit theorem:

    * mean residual and MAE: Student's t interval of a mean,
      :math:`\bar x \pm t_{n-1} s / \sqrt n` (``scipy.stats.t``), on the
      residuals and on the absolute errors;
    * RMSE: the square root of the t interval of the mean squared error
      (its lower end clipped at 0);
    * against ``reference``: Welch's interval for a difference of two
      independent means (Welch-Satterthwaite degrees of freedom); for RMSE
      with the delta-method standard error ``se(MSE) / (2 RMSE)``.

    They are accurate when each group has some tens of samples and errors
    without extreme tails. With skewed or heavy-tailed errors and small
    groups they cover less than stated, most of all the RMSE, whose
    interval needs a finite fourth moment of the errors; the simulation
    in ``benchmarks/bench_regression_coverage.py`` measures this (see the
    user guide, "Error and bias by group"). A group of one sample has no
    interval (NaN, with a note); a group whose errors are all equal has a
    zero-width one.

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import regression_group_table
    >>> rng = np.random.default_rng(0)
    >>> s = np.repeat(["a", "b"], 200)
    >>> y_true = rng.normal(10, 2, 400)
    >>> y_pred = y_true + rng.normal(0, 1, 400) + (s == "b")
    >>> table = regression_group_table(y_true, y_pred, sensitive_features=s)
    >>> cols = ["n", "mean_residual", "mean_residual_lower", "mean_residual_upper"]
    >>> print(table[cols].round(2).to_string())
                          n  mean_residual  mean_residual_lower  mean_residual_upper
    sensitive_features
    a                   200           0.01                -0.13                 0.14
    b                   200           0.96                 0.82                 1.10

    The other columns: MAE and RMSE with their intervals, the mean
    prediction and its quantiles, and the notes.

    >>> table.columns[5:].tolist()  # doctest: +NORMALIZE_WHITESPACE
    ['mae', 'mae_lower', 'mae_upper', 'rmse', 'rmse_lower', 'rmse_upper',
     'q10', 'q50', 'q90', 'note']
    >>> round(float(table.loc["b", "mean_prediction"]), 2)
    10.79
    """
    level = (
        None if confidence_level is None else check_confidence_level(confidence_level)
    )
    q = _check_quantiles(quantiles)
    prepared = prepare_regression(
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
        combine=combine,
        min_group_size=min_group_size,
        frequency_weights=level is not None,
    )
    frames = [
        _group_frame(data, level, q, _reference_code(reference, data.grouping))
        for data in prepared
    ]
    if len(frames) == 1:
        return frames[0]
    names = [data.grouping.name for data in prepared]
    return pd.concat(frames, keys=names, names=["attribute", "group"])


class _Pairs(NamedTuple):
    """The compared pairs ``(a, b)`` of one grouping and its groups' estimates."""

    grouping: object
    a: np.ndarray
    b: np.ndarray
    est: np.ndarray
    se2: np.ndarray
    dof: np.ndarray
    too_small: np.ndarray
    total: np.ndarray


def _pairs(data, ref, survey=False):
    """All pairs of groups, or every group against ``ref`` (``b`` is ``ref``).

    ``survey``: the moments of :func:`survey_moments` (Kish's ``n_eff``).
    """
    moments = survey_moments(data) if survey else group_moments(data)
    n_groups = data.grouping.n_groups
    if ref is None:
        a, b = pair_codes(n_groups)
    else:
        a = np.delete(np.arange(n_groups), ref)
        b = np.full(a.shape[0], ref)
    return _Pairs(
        data.grouping,
        a,
        b,
        moments.estimates(),
        moments.se2(),
        moments.total - 1.0,
        moments.total < MIN_GAP_INTERVAL_SIZE,
        moments.total,
    )


def _welch_bounds(parts, k, alpha):
    """Signed Welch intervals of every pair, Bonferroni over all pairs."""
    n_pairs = sum(part.a.shape[0] for part in parts)
    bounds = []
    for part in parts:
        a, b = part.a, part.b
        bounds.append(
            welch_interval(
                part.est[a, k],
                part.se2[a, k],
                part.dof[a],
                part.est[b, k],
                part.se2[b, k],
                part.dof[b],
                alpha / n_pairs,
            )
        )
    return bounds


def _bootstrap_bounds(parts, draws, k, confidence_level):
    """Signed simultaneous intervals of every pair by a stratified bootstrap-t.

    The studentised maximum over pairs: ``c`` is the ``confidence_level``
    quantile over resamples of ``max_p |d*_p - d_p| / se*_p`` (``d_p`` a
    pair's difference, ``se*_p`` its Welch standard error on the resample),
    and each pair's interval is ``d_p ± c se_p`` with the data's ``se_p``.
    Pairs are taken in blocks.
    """
    n_resamples = draws[0][0].shape[0]
    worst = np.zeros(n_resamples)
    for part, (est, se2) in zip(parts, draws):
        block = max(1, _PAIR_BLOCK_CELLS // n_resamples)
        for first in range(0, part.a.shape[0], block):
            a, b = part.a[first : first + block], part.b[first : first + block]
            dev = np.abs(
                est[:, a, k] - est[:, b, k] - (part.est[a, k] - part.est[b, k])
            )
            se = np.sqrt(se2[:, a, k] + se2[:, b, k])
            with np.errstate(divide="ignore", invalid="ignore"):
                z = np.where(se > 0, dev / se, np.where(dev > 0, np.inf, 0.0))
            np.maximum(worst, z.max(axis=1), out=worst)
    # the ceil((B + 1) level)-th smallest: conservative at small B
    rank = min(int(np.ceil((n_resamples + 1) * confidence_level)), n_resamples)
    c = np.sort(worst)[rank - 1]
    bounds = []
    for part in parts:
        d = part.est[part.a, k] - part.est[part.b, k]
        half = c * np.sqrt(part.se2[part.a, k] + part.se2[part.b, k])
        bounds.append((d - half, d + half))
    return bounds


def _worst_pair(parts, values):
    """Written labels of the pair with the largest gap over all groupings."""
    best = max(range(len(parts)), key=lambda i: values[i].max())
    part = parts[best]
    p = int(np.argmax(values[best]))
    labels = part.grouping.labels
    return group_label_text(labels[part.a[p]]), group_label_text(labels[part.b[p]])


def _undefined_note(parts, survey=False):
    """The note of a gap whose interval is undefined (a group under 10), or ''.

    With ``survey`` weights the group's size is Kish's effective size.
    """
    for part in parts:
        involved = np.union1d(part.a, part.b)
        small = involved[part.too_small[involved]]
        if small.size:
            note = SURVEY_UNDEFINED_GAP_NOTE if survey else UNDEFINED_GAP_NOTE
            size = part.total[small[0]]
            return note.format(
                label=group_label_text(part.grouping.labels[small[0]]),
                n=f"{size:.1f}" if survey else f"{size:g}",
                minimum=MIN_GAP_INTERVAL_SIZE,
            )
    return ""


def regression_gap_intervals(
    y_true,
    y_pred,
    *,
    sensitive_features,
    agg="max",
    combine="intersection",
    sample_weight=None,
    min_group_size=None,
    confidence_level=0.95,
    reference=None,
    method="bootstrap",
    n_resamples=2000,
    random_state=None,
):
    r"""The gaps in mean residual, MAE and RMSE between groups, with intervals.

    Each gap is the one of :func:`mean_residual_difference`,
    :func:`mean_absolute_error_difference` and
    :func:`root_mean_squared_error_difference`: the largest (``agg="max"``)
    or mean absolute difference over pairs of groups, or, with
    ``reference``, over the differences of each group from the reference
    group. Residual :math:`= \hat y - y` (positive: over-prediction).

    Parameters
    ----------
    y_true, y_pred, sensitive_features, agg, combine, min_group_size
        See :func:`mean_residual_difference`.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequency weights (whole numbers): a row of weight ``k`` counts as
        ``k`` identical rows, in the gaps and in the intervals.
    confidence_level : float, default=0.95
        Level of the interval of each gap.
    reference : object or None, default=None
        A group's label (or its written form): compare every group with it
        instead of every pair of groups.
    method : {"bootstrap", "welch"}, default="bootstrap"
        How the interval is made; see Notes.
    n_resamples : int, default=2000
        Bootstrap resamples (``method="bootstrap"``).
    random_state : int, RandomState, Generator or None, default=None
        Seeds the bootstrap.

    Returns
    -------
    gaps : pandas.DataFrame
        One row per metric (``mean_residual``, ``mae``, ``rmse``) with the
        ``gap``, its interval (``lower``, ``upper``), the pair that attains
        it (``group_a``, ``group_b``, written labels; None with
        ``agg="mean"``), the ``method``, and a ``note`` saying why an
        interval is NaN (a compared group of fewer than 10 samples, whose
        spread is too uncertain for an interval).

    See Also
    --------
    regression_group_table : Every group's numbers, with intervals.

    Notes
    -----
    Both methods make intervals for the *signed* difference ``d_p`` of every
    compared pair ``p`` that hold simultaneously, fold each into an interval
    for ``|d_p|`` (``[max(L, -U, 0), max(|L|, |U|)]``), and aggregate them as
    the gap (maximum or mean of the lower ends, of the upper ends): on the
    event that every pair interval holds, the gap lies between the two.

    * ``"bootstrap"`` resamples the rows of each group on its own (stratified
      by group; with weights, the rows repeated by their weights), and takes
      ``d_p ± c se_p``, with ``se_p`` Welch's standard error of ``d_p`` and
      ``c`` the ``confidence_level`` quantile over resamples of the largest
      studentised deviation ``max_p |d*_p - d_p| / se*_p`` (a bootstrap-t
      simultaneous band: it accounts for the pairs' correlation, where
      Bonferroni does not).
    * ``"welch"`` is closed form: Welch's interval of every pair (the delta
      method for RMSE, ``se(MSE) / (2 RMSE)``) at level
      ``1 - alpha / n_pairs`` (Bonferroni). It is conservative with many
      pairs.

    With two groups both are an interval for one difference, accurate from
    some tens of samples per group when the errors are not heavy-tailed.
    A small group against a large one is the hard case, most of all for the
    RMSE, whose standard error rests on the group's fourth moment: with a
    group of 10 to 30 samples its interval covers less than stated even
    with normal errors.
    A gap whose true value is 0 gets a lower end of 0 whenever the signed
    interval contains 0. The coverage of both, with skewed and heavy-tailed
    errors, is measured by ``benchmarks/bench_regression_coverage.py`` (see
    the user guide, "Error and bias by group").

    Examples
    --------
    >>> import numpy as np
    >>> from skfair.metrics import regression_gap_intervals
    >>> rng = np.random.default_rng(0)
    >>> s = np.repeat(["a", "b", "c"], 300)
    >>> y_true = rng.normal(10, 2, 900)
    >>> y_pred = y_true + rng.normal(0, 1 + (s == "c"), 900) + 0.5 * (s == "b")
    >>> gaps = regression_gap_intervals(y_true, y_pred, sensitive_features=s,
    ...                                 random_state=0)
    >>> cols = ["gap", "lower", "upper", "group_a", "group_b"]
    >>> print(gaps[cols].round(2).to_string())
                    gap  lower  upper group_a group_b
    metric
    mean_residual  0.67   0.41   0.99       b       c
    mae            0.86   0.67   1.05       a       c
    rmse           1.08   0.85   1.31       a       c
    """
    check_agg(agg)
    level = check_confidence_level(confidence_level)
    if method not in ("bootstrap", "welch"):
        raise ValueError(GAP_METHOD_ERROR.format(method=method))
    if method == "bootstrap":
        n_resamples = check_band_resamples(n_resamples, level)
        rng = random_generator(random_state)
    prepared = prepare_regression(
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
        combine=combine,
        min_group_size=min_group_size,
        frequency_weights=True,
    )
    parts = [
        _pairs(data, _reference_code(reference, data.grouping)) for data in prepared
    ]
    draws = None
    if method == "bootstrap" and not _undefined_note(parts):
        draws = [bootstrap_estimates(data, n_resamples, rng) for data in prepared]
    return _gap_frame(parts, agg, method, level, draws)


def _gap_frame(parts, agg, method, level, draws=None, survey=False):
    """:func:`regression_gap_intervals`' table from the pairs (and the draws)."""
    note = _undefined_note(parts, survey)
    rows = []
    for k in range(len(METRICS)):
        values = [np.abs(p.est[p.a, k] - p.est[p.b, k]) for p in parts]
        pair = _worst_pair(parts, values) if agg == "max" else (None, None)
        lower = upper = np.nan
        if not note:
            bounds = (
                _bootstrap_bounds(parts, draws, k, level)
                if method == "bootstrap"
                else _welch_bounds(parts, k, 1.0 - level)
            )
            folded = [fold_abs(low, high) for low, high in bounds]
            lower = aggregate([f[0] for f in folded], agg)
            upper = aggregate([f[1] for f in folded], agg)
        rows.append((aggregate(values, agg), lower, upper, *pair, method, note))
    columns = ["gap", "lower", "upper", "group_a", "group_b", "method", "note"]
    return pd.DataFrame(rows, columns=columns, index=pd.Index(METRICS, name="metric"))


def survey_group_table(
    y_true, y_pred, *, sensitive_features, sample_weight, confidence_level, reference
):
    """:func:`regression_group_table` with survey weights (one grouping).

    ``sample_weight`` are survey weights (any positive numbers, e.g.
    ``1 / inclusion probability``): each row stands for its weight in
    people and is one observation. The means are weighted; the intervals
    (Student-t, the RMSE's log-scale one, Welch's against ``reference``)
    use the linearisation variance of each weighted mean with Kish's
    effective size ``n_eff - 1`` degrees of freedom (:func:`survey_moments`);
    the quantiles invert the weighted CDF (:func:`survey_quantiles`), the
    10%, 50% and 90% ones. Beside the weighted count ``n``: ``n_rows`` and
    ``n_eff``. Every group must have a row (the caller's groups).
    """
    level = check_confidence_level(confidence_level)
    (data,) = prepare_regression(
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
        combine="intersection",
        min_group_size=1,
    )
    ref = _reference_code(reference, data.grouping)
    return _group_frame(data, level, np.array([0.1, 0.5, 0.9]), ref, survey=True)


def survey_gap_intervals(
    y_true,
    y_pred,
    *,
    sensitive_features,
    sample_weight,
    combine,
    min_group_size,
    confidence_level,
):
    """:func:`regression_gap_intervals` (``method="welch"``) with survey weights.

    The gaps are those of the weighted means; each pair's Welch interval
    rests on the linearisation variances and Kish's effective sizes
    (:func:`survey_moments`), Bonferroni over the pairs, folded and
    aggregated by the maximum as there; a compared group of ``n_eff``
    under 10 leaves the gap without an interval (the note says so).
    """
    level = check_confidence_level(confidence_level)
    prepared = prepare_regression(
        y_true,
        y_pred,
        sensitive_features=sensitive_features,
        sample_weight=sample_weight,
        combine=combine,
        min_group_size=min_group_size,
    )
    parts = [_pairs(data, None, survey=True) for data in prepared]
    return _gap_frame(parts, "max", "welch", level, survey=True)
