"""The linear program of optimal post-processing under a fairness tolerance.

A group's randomised decision rule is a mixture of *generators*: the
threshold rules of its ROC hull for a binary score (Hardt et al., 2016;
Cruz & Hardt, 2024), or the class decisions of its score cells for a
multiclass one (Xian et al., 2023; Xian & Zhao, 2024). Every constrained
rate of a group (a selection rate, a true- or false-positive rate) and the
expected cost are linear in the mixing weights, so the best mixture whose
rates lie within ``tolerance`` of each other across groups solves one
linear program, here with scipy's HiGHS. :func:`roc_generators` and
:func:`cell_generators` build the generators; :func:`solve_mixtures` solves
the program and returns the weights, the groups' rates and the duals.

The between-group gap of a rate ``r`` is ``max_g R_gr - min_g R_gr``; it is
at most ``tolerance`` exactly when some centre ``z_r`` has every
``|R_gr - z_r| <= tolerance / 2``, which is how the program states it (one
free centre per rate, two inequalities per group and rate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import linprog
from scipy.spatial import ConvexHull, QhullError

LP_FAILED_ERROR = (
    "The post-processing linear program could not be solved (HiGHS status "
    "{status}: {message}). Please report this with the data's shape; a larger "
    "tolerance or fewer groups may avoid it."
)


@dataclass(frozen=True)
class Generators:
    """The rules one group's decision mixes, as linear pieces of the program.

    Attributes
    ----------
    rates : ndarray of shape (n_generators, n_rates)
        Each generator's contribution to the group's constrained rates.
    cost : ndarray of shape (n_generators,)
        Each generator's contribution to the expected cost (over all groups'
        weight).
    block : ndarray of int of shape (n_generators,)
        The mixture each generator belongs to: the weights of a block sum to
        one (one block per group for ROC hulls, one per cell for score cells).
    """

    rates: np.ndarray
    cost: np.ndarray
    block: np.ndarray


@dataclass(frozen=True)
class Solution:
    """What :func:`solve_mixtures` found.

    Attributes
    ----------
    weights : list of ndarray
        Each group's mixing weights, one per generator, summing to one within
        each block.
    rates : ndarray of shape (n_groups, n_rates)
        The groups' constrained rates under those weights.
    cost : float
        The optimal expected cost.
    duals : ndarray of shape (n_groups, n_rates)
        The net price of each group's rate (the multiplier of its upper bound
        minus that of its lower bound): the reduced cost of a generator is its
        cost plus ``duals[g] @ rates``.
    """

    weights: list
    rates: np.ndarray
    cost: float
    duals: np.ndarray


def roc_points(scores, positive, weights):
    """The (weighted) ROC points of a binary score, one per distinct threshold.

    The rule of threshold ``t`` decides positive when ``score >= t``. The
    first point (threshold ``inf``) decides nothing positive, the last
    (threshold ``-inf``) everything.

    Parameters
    ----------
    scores : ndarray of shape (n_samples,)
    positive : ndarray of bool of shape (n_samples,)
        Whether each sample's label is the positive class.
    weights : ndarray of shape (n_samples,)

    Returns
    -------
    thresholds : ndarray of shape (n_points,)
        Decreasing.
    true_pos, false_pos : ndarray of shape (n_points,)
        The weight of the positive and of the negative samples decided
        positive by each threshold's rule.
    """
    order = np.argsort(-scores, kind="stable")
    ordered = scores[order]
    last = np.r_[ordered[1:] != ordered[:-1], True]  # last row of each value
    true_pos = np.cumsum(np.where(positive, weights, 0.0)[order])[last]
    false_pos = np.cumsum(np.where(positive, 0.0, weights)[order])[last]
    thresholds = np.r_[np.inf, ordered[last]]
    thresholds[-1] = -np.inf
    return thresholds, np.r_[0.0, true_pos], np.r_[0.0, false_pos]


def hull_vertices(x, y):
    """Indices of the vertices of the convex hull of the points ``(x, y)``.

    The first and last points (the ROC curve's ends) are always kept; points
    all on one line have those two as their only vertices.
    """
    ends = np.array([0, x.size - 1])
    if x.size < 3:
        return np.unique(ends)
    points = np.column_stack([x, y])
    scale = np.maximum(points.max(axis=0), np.finfo(float).tiny)
    try:
        vertices = ConvexHull(points / scale).vertices
    except QhullError:  # every point on one line (or a single point)
        return np.unique(ends)
    return np.unique(np.r_[vertices, ends])


def roc_generators(scores, positive, weights, *, constraint, cost_matrix, total):
    """One group's threshold rules on its ROC hull, as generators.

    Parameters
    ----------
    scores, positive, weights : ndarray of shape (n_samples,)
        The group's scores, labels (positive or not) and weights.
    constraint : {"demographic_parity", "equal_opportunity", "equalized_odds"}
        Which rates are constrained: the selection rate; the true-positive
        rate; the true- and false-positive rates.
    cost_matrix : ndarray of shape (2, 2)
        ``cost_matrix[i, j]``: the cost of deciding class ``j`` for a sample
        of class ``i`` (0 negative, 1 positive).
    total : float
        The weight of all groups (the cost is an average over it).

    Returns
    -------
    thresholds : ndarray of shape (n_vertices,)
        The thresholds of the hull's vertices (decreasing).
    generators : Generators
        Their rates and costs, in one block.
    """
    thresholds, tp, fp = roc_points(scores, positive, weights)
    keep = hull_vertices(fp, tp)
    thresholds, tp, fp = thresholds[keep], tp[keep], fp[keep]
    n_pos, n_neg = tp[-1], fp[-1]
    if constraint == "demographic_parity":
        rates = ((tp + fp) / (n_pos + n_neg))[:, None]
    elif constraint == "equal_opportunity":
        rates = (tp / n_pos)[:, None]
    else:
        rates = np.column_stack([tp / n_pos, fp / n_neg])
    c = cost_matrix
    cost = c[1, 1] * tp + c[1, 0] * (n_pos - tp) + c[0, 1] * fp + c[0, 0] * (n_neg - fp)
    return thresholds, Generators(
        rates=rates, cost=cost / total, block=np.zeros(keep.size, dtype=np.intp)
    )


def rate_pairs(constraint, n_classes):
    """The constrained rates of a multiclass rule, as (true class, decision) pairs.

    ``None`` as the true class is the selection rate of the decision.
    """
    classes = range(n_classes)
    if constraint == "demographic_parity":
        return [(None, k) for k in classes]
    if constraint == "equal_opportunity":
        return [(k, k) for k in classes]
    return [(y, k) for y in classes for k in classes]


def cell_generators(mass, mean_scores, *, constraint, cost_matrix, total):
    """One group's score cells, each deciding a class, as generators.

    The rates and the cost are those the scores predict (Xian et al., 2023;
    Xian & Zhao, 2024): a cell of weight ``m`` whose mean probability vector
    is ``s`` holds ``m s_y`` samples of class ``y``.

    Parameters
    ----------
    mass : ndarray of shape (n_cells,)
        The weight of each cell.
    mean_scores : ndarray of shape (n_cells, n_classes)
        The (weighted) mean probability vector of each cell.
    constraint : {"demographic_parity", "equal_opportunity", "equalized_odds"}
    cost_matrix : ndarray of shape (n_classes, n_classes)
    total : float
        The weight of all groups.

    Returns
    -------
    generators : Generators
        ``n_cells * n_classes`` of them, cell-major: generator ``c K + k``
        decides class ``k`` for cell ``c``.
    """
    n_cells, n_classes = mean_scores.shape
    pairs = rate_pairs(constraint, n_classes)
    class_mass = mass[:, None] * mean_scores  # (n_cells, K): m s_y
    rates = np.zeros((n_cells, n_classes, len(pairs)))
    for r, (true, decided) in enumerate(pairs):
        if true is None:
            rates[:, decided, r] = mass / mass.sum()
        else:
            rates[:, decided, r] = class_mass[:, true] / class_mass[:, true].sum()
    cost = class_mass @ cost_matrix / total  # (n_cells, K)
    return Generators(
        rates=rates.reshape(n_cells * n_classes, len(pairs)),
        cost=cost.ravel(),
        block=np.repeat(np.arange(n_cells), n_classes),
    )


def _program(groups, tolerance):
    """``linprog``'s arrays for the groups' generators and a tolerance."""
    n_rates = groups[0].rates.shape[1]
    sizes = [g.cost.size for g in groups]
    offsets = np.r_[0, np.cumsum(sizes)]
    n_x = offsets[-1]
    rows, cols, vals = [], [], []
    eq_rows, eq_cols = [], []
    n_blocks = 0
    for g, gen in enumerate(groups):
        local = np.arange(gen.cost.size) + offsets[g]
        for r in range(n_rates):
            nz = np.flatnonzero(gen.rates[:, r])
            for sign, row in (
                (1.0, 2 * (g * n_rates + r)),
                (-1.0, 2 * (g * n_rates + r) + 1),
            ):
                rows.append(np.full(nz.size + 1, row))
                cols.append(np.r_[local[nz], n_x + r])
                vals.append(np.r_[sign * gen.rates[nz, r], -sign])
        eq_rows.append(gen.block + n_blocks)
        eq_cols.append(local)
        n_blocks += int(gen.block.max()) + 1
    n_ub = 2 * len(groups) * n_rates
    a_ub = sparse.csr_array(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(n_ub, n_x + n_rates),
    )
    eq_rows, eq_cols = np.concatenate(eq_rows), np.concatenate(eq_cols)
    a_eq = sparse.csr_array(
        (np.ones(eq_rows.size), (eq_rows, eq_cols)), shape=(n_blocks, n_x + n_rates)
    )
    cost = np.r_[np.concatenate([g.cost for g in groups]), np.zeros(n_rates)]
    bounds = np.array([(0.0, None)] * n_x + [(None, None)] * n_rates, dtype=object)
    return {
        "c": cost,
        "A_ub": a_ub,
        "b_ub": np.full(n_ub, tolerance / 2.0),
        "A_eq": a_eq,
        "b_eq": np.ones(n_blocks),
        "bounds": bounds.tolist(),
        "offsets": offsets,
    }


def solve_mixtures(groups, *, tolerance):
    """The least expected cost of mixtures whose rates differ by ``tolerance`` at most.

    Parameters
    ----------
    groups : list of Generators
        One per group, with the same rates in the same order.
    tolerance : float
        The largest allowed between-group gap of every rate.

    Returns
    -------
    solution : Solution

    Raises
    ------
    RuntimeError
        :data:`LP_FAILED_ERROR` if HiGHS reports no optimum (the program
        is always feasible: every group's trivial rules share their rates).
    """
    program = _program(groups, tolerance)
    offsets = program.pop("offsets")
    result = linprog(**program, method="highs")
    if result.status == 2:
        # The program is feasible by construction (every trivial rule meets
        # any tolerance); HiGHS's presolve can declare it infeasible when many
        # rate rows are nearly dependent (equalised odds, several classes, a
        # tolerance of 0). Solve it again without presolve.
        result = linprog(**program, method="highs", options={"presolve": False})
    if result.status != 0:
        raise RuntimeError(
            LP_FAILED_ERROR.format(status=result.status, message=result.message)
        )
    n_rates = groups[0].rates.shape[1]
    weights, rates = [], []
    for g, gen in enumerate(groups):
        w = np.clip(result.x[offsets[g] : offsets[g + 1]], 0.0, None)
        w = w / np.bincount(gen.block, weights=w)[gen.block]  # solver round-off
        weights.append(w)
        rates.append(w @ gen.rates)
    prices = -result.ineqlin.marginals.reshape(len(groups), n_rates, 2)
    return Solution(
        weights=weights,
        rates=np.array(rates),
        cost=float(sum(w @ gen.cost for w, gen in zip(weights, groups))),
        duals=prices[..., 0] - prices[..., 1],
    )


def largest_gap(rates):
    """The largest between-group gap over the rates (columns) of ``rates``."""
    return float(np.max(rates.max(axis=0) - rates.min(axis=0)))
