"""Rendering and writing the reports of the ``skfair`` subcommands."""

from __future__ import annotations

import os
import sys

import numpy as np

OUTPUT_IS_DIRECTORY_ERROR = "argument --output: {path!r} is a directory"
OUTPUT_NO_FOLDER_ERROR = "argument --output: folder {folder!r} does not exist"
OUTPUT_NOT_WRITABLE_ERROR = "argument --output: cannot write {path!r}: {reason}"


def check_output(path, parser):
    """Fail with exit status 2 now if the report could not be written to ``path``.

    Called before any work, so that a bad ``--output`` costs nothing. A file
    created by the check is removed again.
    """
    if path is None:
        return
    if os.path.isdir(path):
        parser.error(OUTPUT_IS_DIRECTORY_ERROR.format(path=path))
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        parser.error(OUTPUT_NO_FOLDER_ERROR.format(folder=folder))
    existed = os.path.exists(path)
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as error:
        parser.error(OUTPUT_NOT_WRITABLE_ERROR.format(path=path, reason=error.strerror))
    if not existed:
        os.remove(path)


def write_report(report, path, command):
    """Write ``report`` to ``path``, or to standard output when ``path`` is None."""
    if path is None:
        sys.stdout.write(report)
        return
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(report)
    print(f"skfair {command}: wrote {path}", file=sys.stderr)


def mean_std(values):
    """Mean, sample std (ddof=1) and count over the defined (non-NaN) values.

    Examples
    --------
    >>> mean_std(np.array([1.0, 3.0, np.nan]))
    (2.0, 1.414..., 2)
    """
    defined = values[~np.isnan(values)]
    if defined.size == 0:
        return np.nan, np.nan, 0
    with np.errstate(invalid="ignore"):  # inf - inf in the std of infinite values
        std = float(np.std(defined, ddof=1)) if defined.size > 1 else np.nan
    return float(np.mean(defined)), std, int(defined.size)


def format_cell(mean, std, n_defined, n_folds):
    """``"mean ± std"`` with 4 decimals, ``"(k/n)"`` when defined on k < n folds."""
    if n_defined == 0 or np.isnan(mean):
        return "n/a"
    cell = f"{mean:.4f}" if np.isnan(std) else f"{mean:.4f} ± {std:.4f}"
    if n_defined < n_folds:
        cell += f" ({n_defined}/{n_folds})"
    return cell


def markdown(frame, n_left=2):
    """A markdown table of ``frame``'s cells as text, right-aligned after ``n_left``."""
    columns = list(frame.columns)
    cells = [[str(v) for v in row] for row in frame.itertuples(index=False)]
    widths = [max([len(c)] + [len(r[k]) for r in cells]) for k, c in enumerate(columns)]
    right = [k >= n_left for k in range(len(columns))]

    def line(values):
        padded = [
            v.rjust(w) if r else v.ljust(w)
            for v, w, r in zip(values, widths, right, strict=True)
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|".join(
        "-" * (w + 1) + ":" if r else ":" + "-" * (w + 1)
        for w, r in zip(widths, right, strict=True)
    )
    return "\n".join([line(columns), f"|{rule}|", *(line(row) for row in cells)])
