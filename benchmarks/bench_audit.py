"""Time the audit: ``python -m skfair audit`` on a large file, and many groups.

Two benchmarks:

* ``--rows N [--adult]``: generates a predictions file (Parquet) of ``N``
  samples, two groups (60/40) with Beta-distributed scores that differ,
  labels drawn from the scores; runs the ``audit`` command on it in this
  process and prints the wall time. With ``--adult`` it also times the
  bundled-data demonstration.
* ``--groups``: many groups (issue 23, "speed with many groups"). Prints
  (a) the ratio of the audit time with 40 groups to the time with 2 groups
  on the same 50 000 rows, and (b) the wall time and peak memory of
  ``skfair.audit`` on 100 000 rows and 54 groups, and of ``audit`` followed
  by ``to_html(figures=True)``. Each measurement runs in a fresh process
  (the peak resident memory is the process's ``ru_maxrss`` less its value
  before the audit). With ``--baseline`` the same is measured with the
  per-pair paths the all-pairs engine replaced (a dense matrix of every
  pair's CDF gap at every score per resample, and ``mcdp_pair_exact`` per pair
  in the public MCDP functions), patched in at run time.

* ``--before REV``: the same audit before and after. A ``git worktree`` of
  revision ``REV`` is made in a temporary folder; the audit of ``--n`` rows
  (default 100 000) in ``--g`` groups (default 10) with ``--resamples``
  resamples and permutations (default 199), followed by
  ``to_html(figures=True)``, runs in a fresh process with ``PYTHONPATH``
  pointing at that worktree, then at this working tree, alternating,
  ``--repeat`` times (default 3). Prints each run's wall and CPU seconds
  (import of ``skfair.report``, ``audit``, HTML, and their total) and the
  medians' ratio now / before. The worktree is removed at the end.

Run ``python benchmarks/bench_audit.py --rows 1000000 --adult``,
``python benchmarks/bench_audit.py --groups [--baseline] [--repeat 3]`` or
``python benchmarks/bench_audit.py --before f9de9be [--repeat 5]``.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
import pandas as pd


def make_predictions(path, n_rows, seed=0):
    rng = np.random.default_rng(seed)
    group = np.where(rng.random(n_rows) < 0.6, "a", "b")
    score = np.where(group == "a", rng.beta(2, 5, n_rows), rng.beta(2.6, 4.4, n_rows))
    label = (rng.random(n_rows) < score).astype(np.int8)
    pd.DataFrame({"proba": score, "group": group, "label": label}).to_parquet(path)


def timed(argv):
    """Exit status, wall time and CPU time (the machine may be shared)."""
    from skfair._cli import main

    start, cpu = time.perf_counter(), time.process_time()
    status = main(argv)
    return status, time.perf_counter() - start, time.process_time() - cpu


# -- many groups ---------------------------------------------------------------
def many_groups(n_rows, n_groups, seed=0):
    """Census-like data: ``n_groups`` intersections of very unequal sizes.

    The scores (continuous: every score distinct) depend on a latent group of
    54 levels; the audited groups are the latent groups modulo ``n_groups``,
    so every ``n_groups`` sees the same rows and scores. Every group has at
    least 5 samples (several have fewer than 30).
    """
    rng = np.random.default_rng(seed)
    shares = rng.dirichlet(np.full(54, 0.7))
    latent = rng.choice(54, size=n_rows, p=shares)
    latent[: 5 * 54] = np.repeat(np.arange(54), 5)
    shift = rng.normal(0.0, 0.6, 54)
    score = 1.0 / (1.0 + np.exp(-(rng.normal(shift[latent], 1.0) - 1.0)))
    y = (rng.random(n_rows) < score).astype(np.int64)
    labels = np.array([f"g{k:02d}" for k in range(54)])
    return y, score, pd.Series(labels[latent % n_groups], name="group")


def _patch_per_pair_paths():
    """The engine before the all-pairs kernels, patched in (``--baseline``)."""
    from skfair.metrics import _mcdp
    from skfair.metrics._base import aggregate
    from skfair.metrics._kernels import (
        PairGap,
        mcdp_pair_exact,
        pair_codes,
        pair_gap,
        window_ends,
    )
    from skfair.metrics.inference._sorted import SharedSort

    def cdfs(self, w_pos, cell_pos):
        out = []
        for to_group, grouping in zip(self.cell_to_group, self.groupings):
            codes = to_group[cell_pos]
            cum = np.empty((grouping.n_groups, self.points.shape[0]))
            for g in range(grouping.n_groups):
                running = np.cumsum(np.where(codes == g, w_pos, 0.0))
                cum[g] = running if self.ends is None else running[self.ends]
            out.append((cum / cum[:, -1:], codes))
        return out

    def window_max_min(self, gap, epsilon, rounding):
        padded = self.padded
        n_left = int(np.searchsorted(padded, epsilon, side="right"))
        starts = np.arange(padded.shape[0])
        ends = window_ends(padded, starts, 2.0 * epsilon, rounding)
        levels = np.floor(np.log2(ends - starts + 1)).astype(np.intp)
        pads = (self.pad_left, padded.shape[0] - self.points.shape[0] - self.pad_left)
        magnitude = np.pad(np.abs(gap), ((0, 0), pads))
        m = magnitude.shape[1]
        window_min, table = np.empty_like(magnitude), magnitude
        for level in range(int(levels.max()) + 1):
            span, at = 1 << level, np.flatnonzero(levels == level)
            if at.size:
                window_min[:, at] = np.minimum(
                    table[:, at], table[:, ends[at] - span + 1]
                )
            if 2 * span <= m:
                table = np.minimum(
                    table[:, : m - 2 * span + 1], table[:, span : m - span + 1]
                )
        return np.maximum(magnitude[:, :n_left].min(axis=1), window_min.max(axis=1))

    def dense_pairs(self, spec, cdf):
        a, b = np.triu_indices(cdf.shape[0], 1)
        gap = cdf[a] - cdf[b]
        gap[:, -1] = 0.0
        if spec.metric == "abcc":
            return np.abs(gap[:, :-1]) @ np.diff(self.points)
        epsilon = float(spec.options.get("epsilon", 0.0))
        if epsilon == 0.0:
            return np.abs(gap).max(axis=1)
        rounding = spec.options.get("rounding", "exact")
        if self.points.shape[0] > 1 << 16:
            return [
                mcdp_pair_exact(
                    PairGap(self.points, row, 1.0, 0, 1), epsilon, rounding
                )[0]
                for row in gap
            ]
        return window_max_min(self, gap, epsilon, rounding)

    def pair_values(self, w_pos, cell_pos, specs, cdfs=None):
        dense = [
            s.metric != "delta_dp" and s.options.get("method", "exact") == "exact"
            for s in specs
        ]
        old = cdfs_old(self, w_pos, cell_pos) if any(dense) else None
        new = self._cdfs(w_pos, cell_pos) if not all(dense) else None
        out = [[] for _ in specs]
        for k, grouping in enumerate(self.groupings):
            for j, spec in enumerate(specs):
                if dense[j]:
                    values = dense_pairs(self, spec, old[k][0])
                else:
                    steps, codes = new[k]
                    a, b = pair_codes(grouping.n_groups)
                    values = self._pairs(spec, steps, a, b, codes, w_pos)
                out[j].append([float(v) for v in values])
        return out

    def values(self, w_pos, cell_pos, specs):
        fast = [s for s in specs if s.sortable]
        per_spec = self.pair_values(w_pos, cell_pos, fast) if fast else []
        results = {
            s: aggregate(v, s.options.get("agg", "max")) for s, v in zip(fast, per_spec)
        }
        return [results.get(s) for s in specs]

    def pair_values_public(prepared, epsilons, options, worst_only=False):
        grouping, ordered = prepared.grouping, prepared.sorted
        gaps = [pair_gap(ordered, a, b) for a, b in _mcdp.pairs_of(grouping)]
        return [[_mcdp._pair(g, e, options)[0] for g in gaps] for e in epsilons]

    cdfs_old = cdfs
    cls = SharedSort
    cls.pair_values, cls.values = pair_values, values
    _mcdp._pair_values = pair_values_public


def _child(args):
    """One measurement in this (fresh) process; prints a JSON line."""
    import skfair

    if args.baseline:
        _patch_per_pair_paths()
    warnings.simplefilter("ignore")  # small-group warnings
    y, score, groups = many_groups(args.n, args.g)
    kwargs = {}
    if args.resamples:
        kwargs = {"n_resamples": args.resamples, "n_permutations": args.resamples}
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    report = skfair.audit(y, score, sensitive_features=groups, **kwargs)
    audit_s = time.perf_counter() - start
    audit_peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    html_s = None
    if args.html:
        start = time.perf_counter()
        report.to_html(figures=True)
        html_s = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "audit_s": audit_s,
                "html_s": html_s,
                "audit_mb": (audit_peak - before) / 1024,
                "total_mb": (peak - before) / 1024,
                "resamples": report.n_resamples,
            }
        )
    )


def _measure(n, g, *, html=False, baseline=False, resamples=None):
    argv = [sys.executable, __file__, "--child", "--n", str(n), "--g", str(g)]
    argv += ["--html"] * html + ["--baseline"] * baseline
    argv += ["--resamples", str(resamples)] if resamples else []
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_groups(args):
    label = "per-pair paths (--baseline)" if args.baseline else "all-pairs engine"
    kw = {"baseline": args.baseline, "resamples": args.resamples}
    print(f"== {label}; repeat {args.repeat}, medians ==")
    ratios, two, forty = [], [], []
    for _ in range(args.repeat):
        t2 = _measure(50_000, 2, **kw)["audit_s"]
        t40 = _measure(50_000, 40, **kw)["audit_s"]
        two.append(t2)
        forty.append(t40)
        ratios.append(t40 / t2)
    print(
        f"(a) 50,000 rows: 2 groups {statistics.median(two):.1f} s, 40 groups "
        f"{statistics.median(forty):.1f} s, ratio 40/2 = {statistics.median(ratios):.1f}x"
    )
    if args.skip_census:
        return
    runs = [_measure(100_000, 54, html=True, **kw) for _ in range(args.repeat)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0] if k != "html_s"}
    html_s = statistics.median(r["html_s"] for r in runs)
    print(
        f"(b) 100,000 rows x 54 groups ({runs[0]['resamples']} resamples): "
        f"audit() {med['audit_s']:.1f} s, peak +{med['audit_mb']:.0f} MB; "
        f"audit + to_html(figures=True) {med['audit_s'] + html_s:.1f} s "
        f"(to_html {html_s:.1f} s), peak +{med['total_mb']:.0f} MB"
    )


# -- before and after ------------------------------------------------------------
_PARTS = ("import", "audit", "html", "total")


def _audit_child(args):
    """One timed audit in this (fresh) process, of whichever skfair is first on
    ``sys.path``; prints a JSON line of (wall, CPU) seconds per part."""
    warnings.simplefilter("ignore")  # small-group warnings
    y, score, groups = many_groups(args.n, args.g)
    clocks = [(time.perf_counter(), time.process_time())]
    import skfair.report

    clocks.append((time.perf_counter(), time.process_time()))
    report = skfair.report.audit(
        y,
        score,
        sensitive_features=groups,
        n_resamples=args.resamples,
        n_permutations=args.resamples,
    )
    clocks.append((time.perf_counter(), time.process_time()))
    report.to_html(figures=True)
    clocks.append((time.perf_counter(), time.process_time()))
    out = {
        part: [clocks[k + 1][0] - clocks[k][0], clocks[k + 1][1] - clocks[k][1]]
        for k, part in enumerate(_PARTS[:3])
    }
    out["total"] = [clocks[3][0] - clocks[0][0], clocks[3][1] - clocks[0][1]]
    out["where"] = skfair.report.__file__
    print(json.dumps(out))


def _run_audit(tree, args):
    env = dict(os.environ, PYTHONPATH=tree)
    argv = [sys.executable, os.path.abspath(__file__), "--audit-child"]
    argv += ["--n", str(args.n), "--g", str(args.g), "--resamples", str(args.resamples)]
    out = subprocess.run(
        argv, capture_output=True, text=True, check=True, env=env, cwd=tree
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not result.pop("where").startswith(tree):
        raise RuntimeError(f"the audit did not import skfair from {tree}")
    return result


def bench_before(args):
    here = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=os.path.dirname(os.path.abspath(__file__)),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    folder = tempfile.mkdtemp(prefix="skfair-before-")
    before = os.path.join(folder, "tree")
    subprocess.run(
        ["git", "worktree", "add", "--detach", before, args.before],
        cwd=here,
        check=True,
        capture_output=True,
    )
    runs = {"before": [], "now": []}
    try:
        print(
            f"audit of {args.n:,} rows x {args.g} groups, {args.resamples} resamples "
            f"and permutations, then to_html(figures=True); {args.before} vs the "
            f"working tree, alternating, {args.repeat} repeats; seconds wall / CPU"
        )
        for r in range(args.repeat):
            for label, tree in (("before", before), ("now", here)):
                result = _run_audit(tree, args)
                runs[label].append(result)
                cells = "  ".join(
                    f"{p} {result[p][0]:5.1f} / {result[p][1]:5.1f}" for p in _PARTS
                )
                print(f"  run {r + 1} {label:6s}  {cells}", flush=True)
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", before], cwd=here, check=False
        )
    print("medians (wall / CPU) and ratio now / before:")
    for p in _PARTS:
        b = [statistics.median(r[p][k] for r in runs["before"]) for k in (0, 1)]
        n = [statistics.median(r[p][k] for r in runs["now"]) for k in (0, 1)]
        print(
            f"  {p:6s}  before {b[0]:5.1f} / {b[1]:5.1f}   now {n[0]:5.1f} / "
            f"{n[1]:5.1f}   ratio {n[0] / b[0]:.2f} / {n[1] / b[1]:.2f}"
        )


def bench_rows(args):
    folder = tempfile.mkdtemp()
    if args.rows:
        path = os.path.join(folder, "predictions.parquet")
        start = time.perf_counter()
        make_predictions(path, args.rows)
        print(f"generated {args.rows:,} rows in {time.perf_counter() - start:.1f} s")
        status, elapsed, cpu = timed(
            [
                "audit",
                "--predictions",
                path,
                "--score",
                "proba",
                "--sensitive",
                "group",
                "--label",
                "label",
                "--output",
                args.output,
            ]
        )
        print(
            f"audit of {args.rows:,} rows: status {status}, {elapsed:.1f} s wall, "
            f"{cpu:.1f} s CPU -> {args.output}"
        )
    if args.adult:
        out = os.path.join(folder, "adult.html")
        status, elapsed, cpu = timed(["audit", "--dataset", "adult", "--output", out])
        print(
            f"audit --dataset adult: status {status}, {elapsed:.1f} s wall, "
            f"{cpu:.1f} s CPU -> {out}"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--adult", action="store_true")
    parser.add_argument(
        "--output",
        default=os.path.join(tempfile.gettempdir(), "skfair_bench_report.html"),
    )
    parser.add_argument("--groups", action="store_true", help="the many-groups run")
    parser.add_argument("--baseline", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--resamples", type=int, default=None)
    parser.add_argument("--skip-census", action="store_true")
    parser.add_argument("--before", metavar="REV", help="compare with revision REV")
    parser.add_argument("--audit-child", action="store_true", help=argparse.SUPPRESS)
    # one measurement in a child process (internal)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--g", type=int, default=10)
    parser.add_argument("--html", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.audit_child:
        _audit_child(args)
    elif args.before:
        args.resamples = args.resamples or 199
        args.repeat = max(args.repeat, 3) if args.repeat == 1 else args.repeat
        bench_before(args)
    elif args.child:
        _child(args)
    elif args.groups:
        bench_groups(args)
    else:
        bench_rows(args)
