"""One-dimensional Gaussian KDE on a regular grid, fast (for ABPC).

The bandwidth follows :class:`scipy.stats.gaussian_kde` exactly (Scott's or
Silverman's factor times the weighted sample standard deviation). The density
on ``np.linspace(lo, hi, M)`` (``[0, 1]`` for scores; :func:`kde_grid`) is
computed by linear binning onto a finer grid
whose spacing is at most h/40 and which contains every evaluation point,
followed by an FFT convolution with the sampled Gaussian kernel truncated at
8 bandwidths. Linear binning is exact for the kernel's mean and second order
accurate: the density error is of order (Δ/h)²/24 ≈ 3e-5 relative. When the
bandwidth is so small that the fine grid would be huge, the kernel sum is
evaluated exactly, restricted to the samples within 8 bandwidths of each
point (few, precisely because the bandwidth is small).

:func:`direct_kde` is the exact O(N · M) evaluation (ABPC's small inputs,
and the reference of the tests); :func:`kde_plan` and :func:`kde_rows`
evaluate the binned KDE of fixed samples under many rows of weights at
once (the bootstrap bands of ABPC); :func:`resampled_kde_rows` is the same
binned KDE summed from shifted copies of the kernel instead of convolved by
FFT, several times faster for groups of a few dozen samples (equal to
:func:`kde_rows` up to the FFT's round-off, about 1e-15).
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.lib.stride_tricks import as_strided
from scipy.signal import fftconvolve

BW_METHOD_ERROR = (
    "bw_method must be 'scott', 'silverman' or a positive number; got {value!r}."
)
DEGENERATE_GROUP_ERROR = (
    "group {label!r} has {why}; a kernel density estimate needs a positive "
    "bandwidth, which is proportional to the group's standard deviation. ABPC "
    "is undefined for such a group: use abcc or mcdp, which need no density."
)


class DegenerateGroupError(ValueError):
    """A group whose kernel density estimate is undefined (bandwidth 0).

    Raised by :func:`kde_bandwidth` for a group of one sample or whose scores
    are all equal; a ValueError, so callers that validate inputs see one.
    """


TRUNCATE = 8.0  # kernel support, in bandwidths (exp(-32) ~ 1e-14)
_BINS_PER_BANDWIDTH = 40
MAX_FINE_GRID = 1 << 22


def check_bw_method(bw_method):
    """Validate ``bw_method``."""
    if isinstance(bw_method, str):
        if bw_method in ("scott", "silverman"):
            return
    elif (
        isinstance(bw_method, numbers.Real)
        and not isinstance(bw_method, bool)
        and np.isfinite(bw_method)
        and bw_method > 0
    ):
        return
    raise ValueError(BW_METHOD_ERROR.format(value=bw_method))


def kde_bandwidth(x, weights, bw_method, *, label):
    """The kernel's standard deviation for one group, as ``gaussian_kde`` sets it.

    ``label`` names the group in the error for a single score or no spread.
    """
    if x.shape[0] < 2:
        raise DegenerateGroupError(
            DEGENERATE_GROUP_ERROR.format(label=label, why="one sample")
        )
    if weights is None:
        n_eff = float(x.shape[0])
        variance = float(np.var(x, ddof=1))
    else:
        w = weights / weights.sum()
        n_eff = 1.0 / float(np.sum(w * w))
        variance = float(np.cov(x, aweights=w))
    if not variance > 0:
        raise DegenerateGroupError(
            DEGENERATE_GROUP_ERROR.format(label=label, why="all scores equal")
        )
    if bw_method == "scott":
        factor = n_eff ** (-1.0 / 5)
    elif bw_method == "silverman":
        factor = (n_eff * 3.0 / 4.0) ** (-1.0 / 5)
    else:
        factor = float(bw_method)
    return float(np.sqrt(variance) * factor)


def unit_weights(x, weights):
    """The samples' weights scaled to sum to 1 (equal weights if None)."""
    if weights is None:
        return np.full(x.shape[0], 1.0 / x.shape[0])
    return weights / weights.sum()


def fine_grid(n_points, bandwidth, width=1.0):
    """``(spacing, refine, n_fine)``: the binning grid of a KDE at ``bandwidth``.

    For an evaluation grid of ``n_points`` over an interval of ``width``.
    """
    spacing = width / (n_points - 1)
    refine = max(1, int(np.ceil(spacing * _BINS_PER_BANDWIDTH / bandwidth)))
    return spacing, refine, (n_points - 1) * refine + 1


def linear_bins(x, step, n_fine, lo=0.0):
    """Each sample's left fine-grid bin and its fraction towards the right one.

    The fine grid is ``lo + k * step``, ``k = 0 .. n_fine - 1``.
    """
    position = (x - lo) / step if lo else x / step
    left = np.minimum(np.floor(position).astype(np.intp), n_fine - 1)
    return left, position - left


def kde_grid(domain, scores, bandwidths, n_points):
    """ABPC's evaluation grid: ``np.linspace(lo, hi, n_points)``.

    ``domain`` is ``(lo, hi)``, or None for ``[min - 4h, max + 4h]`` with
    ``min`` and ``max`` those of ``scores`` and ``h`` the largest of the
    groups' ``bandwidths``: each group's KDE puts less than 3.2e-5 of its
    mass beyond each end.
    """
    if domain is None:
        margin = 4.0 * max(bandwidths)
        domain = float(scores.min()) - margin, float(scores.max()) + margin
    return np.linspace(domain[0], domain[1], n_points)


def binned_kde(x, weights, bandwidth, grid):
    """Gaussian KDE of ``x`` at ``grid = np.linspace(lo, hi, M)``, x in [lo, hi]."""
    lo, width = grid[0], grid[-1] - grid[0]
    spacing, refine, n_fine = fine_grid(grid.shape[0], bandwidth, width)
    w = unit_weights(x, weights)
    if n_fine > MAX_FINE_GRID:
        return _truncated_kde(x, w, bandwidth, grid)
    step = spacing / refine
    left, frac = linear_bins(x, step, n_fine, lo)
    binned = np.bincount(left, weights=w * (1.0 - frac), minlength=n_fine + 1)
    binned += np.bincount(left + 1, weights=w * frac, minlength=n_fine + 1)
    half = int(np.ceil(TRUNCATE * bandwidth / step))
    offsets = np.arange(-half, half + 1) * (step / bandwidth)
    kernel = np.exp(-0.5 * offsets * offsets)
    smooth = fftconvolve(binned[:n_fine], kernel, mode="full")[half : half + n_fine]
    density = smooth[::refine] / (bandwidth * np.sqrt(2.0 * np.pi))
    return np.maximum(density, 0.0)  # FFT round-off can dip a hair below 0


def kde_plan(x, bandwidth, grid):
    """Linear-binning weights and kernel of :func:`binned_kde` for fixed ``x``, h.

    What :func:`kde_rows` needs to evaluate the KDE of the samples ``x``
    under any row of weights.
    """
    lo, width = grid[0], grid[-1] - grid[0]
    spacing, refine, n_fine = fine_grid(grid.shape[0], bandwidth, width)
    plan = {"x": x, "bandwidth": bandwidth, "grid": grid, "n_fine": n_fine}
    if n_fine > MAX_FINE_GRID:
        return plan  # tiny bandwidth: binned_kde's exact path, one row at a time
    step = spacing / refine
    left, frac = linear_bins(x, step, n_fine, lo)
    half = int(np.ceil(TRUNCATE * bandwidth / step))
    plan.update(left=left, frac=frac, refine=refine, half=half, step=step)
    plan["kernel"] = _plan_kernel(plan)
    return plan


def _plan_kernel(plan, out=None):
    """The sampled Gaussian kernel of a binned plan, divided by ``h sqrt(2 pi)``.

    Into ``out`` if given (``2 half + 1`` values). The kernel is even and
    its negative offsets are the positive ones negated (exactly, in floating
    point), so the exponentials are taken on one half and mirrored: the same
    floats as on every offset, half the work.
    """
    bandwidth, half = plan["bandwidth"], plan["half"]
    if out is None:
        out = np.empty(2 * half + 1)
    offsets = np.arange(0, half + 1) * (plan["step"] / bandwidth)
    right = out[half:]
    np.exp(-0.5 * offsets * offsets, out=right)
    right /= bandwidth * np.sqrt(2.0 * np.pi)
    out[:half] = right[:0:-1]
    return out


#: Most bytes of kernels the small groups' plans keep (:func:`compact_plans`).
KEPT_KERNEL_BYTES = 1 << 28


def compact_plans(plans):
    """``plans``, the small groups' without their kernels if these are many.

    A kernel spans 16 bandwidths of fine bins (14,500 values, 116 KB, for a
    group of 20 uniform scores at 5,000 points: 1.2 GB over 10,000 groups).
    When the plans that :func:`resampled_kde_rows` sums (of at most
    ``SUMMED_KDE_MAX_SAMPLES`` samples) hold more than ``KEPT_KERNEL_BYTES``
    (256 MB) of kernels, they keep only what places their samples, and
    :func:`resampled_kde_rows` recomputes the same kernel (the same floats)
    at each call; other plans are kept as they are.
    """
    small = [
        "left" in plan and plan["x"].shape[0] <= SUMMED_KDE_MAX_SAMPLES
        for plan in plans
    ]
    held = sum(plan["kernel"].nbytes for plan, s in zip(plans, small) if s)
    if held <= KEPT_KERNEL_BYTES:
        return list(plans)
    return [
        {key: value for key, value in plan.items() if key != "kernel"} if s else plan
        for plan, s in zip(plans, small)
    ]


def kde_rows(plan, w_rows):
    """The KDE on the grid of every row of weights: (n_rows, n_points)."""
    n_rows, n_fine = w_rows.shape[0], plan["n_fine"]
    w_rows = w_rows / w_rows.sum(axis=1, keepdims=True)
    if "left" not in plan:
        return np.stack(
            [binned_kde(plan["x"], w, plan["bandwidth"], plan["grid"]) for w in w_rows]
        )
    offset = (np.arange(n_rows) * (n_fine + 1))[:, None]
    size = n_rows * (n_fine + 1)
    left, frac = plan["left"][None, :] + offset, plan["frac"][None, :]
    binned = np.bincount(left.ravel(), (w_rows * (1.0 - frac)).ravel(), size)
    binned += np.bincount((left + 1).ravel(), (w_rows * frac).ravel(), size)
    binned = binned.reshape(n_rows, n_fine + 1)[:, :n_fine]
    half = plan["half"]
    smooth = fftconvolve(binned, plan["kernel"][None, :], mode="full", axes=1)
    return np.maximum(smooth[:, half : half + n_fine : plan["refine"]], 0.0)


#: Most samples of a group whose resampled KDE rows are summed from shifted
#: kernels (:func:`resampled_kde_rows`); above, the FFT is faster (measured
#: at 5,000 points: 0.3 against 0.8 ms a row at 20 samples, even near 40).
SUMMED_KDE_MAX_SAMPLES = 32


def resampled_kde_rows(plan, w_rows):
    """:func:`kde_rows` without the FFT for a group of few samples.

    The binned KDE is linear in the weights: sample ``i`` adds ``(1 -
    frac_i) w_i`` times the kernel centred on fine bin ``left_i`` and
    ``frac_i w_i`` times the one on ``left_i + 1``, read at every
    ``refine``-th fine point. Those rows are windows of one zero-padded
    kernel (a strided view, no exponential evaluated), so the KDE of every
    row of weights is one ``(n_rows, 2 n) @ (2 n, n_points)`` product,
    taken by :func:`numpy.einsum` (no BLAS thread pool to wake). Groups of
    more than ``SUMMED_KDE_MAX_SAMPLES`` samples, and plans without binning
    (tiny bandwidths), go to :func:`kde_rows`. A plan without its kernel
    (:func:`compact_plans`) has it recomputed.
    """
    if "left" not in plan or plan["x"].shape[0] > SUMMED_KDE_MAX_SAMPLES:
        return kde_rows(plan, w_rows)
    left, frac = plan["left"], plan["frac"]
    n_fine, refine, half = plan["n_fine"], plan["refine"], plan["half"]
    pad = n_fine + 1  # every window starts inside the padded kernel
    padded = np.zeros(2 * half + 1 + 2 * pad)
    if "kernel" in plan:
        padded[pad : pad + 2 * half + 1] = plan["kernel"]
    else:
        _plan_kernel(plan, out=padded[pad : pad + 2 * half + 1])
    n_points = (n_fine - 1) // refine + 1
    windows = as_strided(  # window s: padded[s :: refine], n_points of them
        padded,
        shape=(padded.shape[0] - n_fine + 1, n_points),
        strides=(padded.strides[0], refine * padded.strides[0]),
        writeable=False,
    )
    start = pad + half - left  # the window of fine bin left_i at grid point 0
    rows = windows[np.concatenate([start, start - 1])]
    w_rows = w_rows / w_rows.sum(axis=1, keepdims=True)
    right = np.where(left + 1 < n_fine, frac, 0.0)  # kde_rows drops bin n_fine
    weights = np.concatenate([w_rows * (1.0 - frac), w_rows * right], axis=1)
    return np.einsum("rk,kp->rp", weights, rows, optimize=False)


def direct_kde(x, weights, bandwidth, grid, chunk=1 << 22):
    """Gaussian KDE evaluated exactly at ``grid`` (chunked over samples)."""
    w = unit_weights(x, weights)
    density = np.zeros_like(grid)
    step = max(1, chunk // grid.shape[0])
    for start in range(0, x.shape[0], step):
        z = (grid[None, :] - x[start : start + step, None]) / bandwidth
        density += w[start : start + step] @ np.exp(-0.5 * z * z)
    return density / (bandwidth * np.sqrt(2.0 * np.pi))


def _truncated_kde(x, w, bandwidth, grid):
    """Exact kernel sum over the samples within 8 bandwidths of each point."""
    order = np.argsort(x)
    xs, ws = x[order], w[order]
    lo = np.searchsorted(xs, grid - TRUNCATE * bandwidth, side="left")
    hi = np.searchsorted(xs, grid + TRUNCATE * bandwidth, side="right")
    counts = hi - lo
    point = np.repeat(np.arange(grid.shape[0]), counts)
    starts = np.repeat(lo - np.cumsum(counts) + counts, counts)
    sample = starts + np.arange(point.shape[0])
    z = (grid[point] - xs[sample]) / bandwidth
    density = np.bincount(
        point, weights=ws[sample] * np.exp(-0.5 * z * z), minlength=grid.shape[0]
    )
    return density / (bandwidth * np.sqrt(2.0 * np.pi))
