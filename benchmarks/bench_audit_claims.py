"""How often each kind of audit sentence is stated, and how often it is true.

Simulated nulls: the scores (or predictions) do not depend on the group, so
every claim of a difference is false, and the share of audits stating one is
that sentence's family-wise error rate. A shift (one group's scores moved)
shows the claims are still made when true.

    python benchmarks/bench_audit_claims.py [--runs 100] [--groups 40]

Prints one table: per scenario and sentence kind, the audits that state it
and the share of those that are false (under the null every one is).
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from skfair import audit

DRAWS = {"n_resamples": 9, "n_permutations": 9}


def _binary(rng, n, n_groups, shift):
    g = rng.integers(0, n_groups, n)
    scores = np.clip(rng.beta(2, 3, n) - shift * (g == 0), 0, 1)
    y = (rng.random(n) < scores).astype(int)
    return y, scores, np.array([f"g{k:02d}" for k in g])


def _claims(report):
    facts = report.headline.threshold
    text = " ".join(report.to_dict()["headline"]["text"])
    summary = " ".join(report.to_dict()["plain_summary"])
    selected_less = facts.disadvantaged is not None
    return {
        "selected less (lead)": (selected_less, facts),
        "four-fifths fails": (facts.four_fifths == "fail", facts),
        "MCDP unlikely noise (headline)": ("unlikely to be noise" in text, None),
        "differ beyond chance (summary)": (
            "The groups differ beyond chance" in summary,
            None,
        ),
    }


def _true(kind, stated, facts, shift):
    """Whether a stated claim is true: under the null none is."""
    if shift == 0:
        return False
    if kind == "selected less (lead)":
        return facts.disadvantaged.group == "g00"
    return True


def run(runs, n, n_groups):
    rows = []
    for shift in (0.0, 0.3):
        counts, false = {}, {}
        start = time.perf_counter()
        for seed in range(runs):
            rng = np.random.default_rng(seed)
            y, scores, g = _binary(rng, n, n_groups, shift)
            report = audit(y, scores, sensitive_features=g, **DRAWS)
            for kind, (stated, facts) in _claims(report).items():
                counts.setdefault(kind, 0)
                false.setdefault(kind, 0)
                if stated:
                    counts[kind] += 1
                    false[kind] += not _true(kind, stated, facts, shift)
        seconds = (time.perf_counter() - start) / runs
        for kind in counts:
            rows.append((shift, kind, counts[kind], false[kind], runs, seconds))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--groups", type=int, default=40)
    parser.add_argument("--n", type=int, default=4000)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    rows = run(args.runs, args.n, args.groups)
    print(
        f"{args.runs} audits per scenario, {args.n} samples in {args.groups} groups "
        "(null: scores independent of the group; shift: group g00's scores "
        "lowered by 0.3)"
    )
    print(f"{'scenario':<8} {'sentence':<32} {'stated':>7} {'false':>6} {'share':>7}")
    for shift, kind, stated, false, runs, _ in rows:
        scenario = "null" if shift == 0 else "shift"
        print(f"{scenario:<8} {kind:<32} {stated:>7} {false:>6} {stated / runs:>7.3f}")
    print(f"seconds per audit: {rows[0][-1]:.2f}")


if __name__ == "__main__":
    main()
