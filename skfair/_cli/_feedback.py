"""What a long command-line run says on stderr: its progress and its warnings.

Progress: a tqdm bar on a terminal, else one line per phase (a log file or a
CI job gets a readable record instead of carriage returns). Warnings:
skfair's Python warnings are caught while the command runs and said once
each, as they are raised (a warning about the groups comes before the long
resampling, not after it), as one plain line that names the command-line
option that addresses them, without Python source locations. Undefined HFM
degrees are counted and said once, at the end.
"""

from __future__ import annotations

import sys
import time
import warnings
from contextlib import contextmanager

SMALL_GROUPS_LINE = (
    "{count} group(s) of {name!r} have fewer than {threshold} samples: {groups}; "
    "--min-group-size K leaves out the groups of fewer than K samples"
)
HFM_UNDEFINED_LINE = (
    "{count} HFM degree(s) undefined (a distance of zero; reported as +-inf), "
    "e.g. {first}"
)


#: Off a terminal, the least seconds between two lines counting a phase's work.
COUNT_SECONDS = 5.0
#: What the counted work is (the audit's intervals and tests).
COUNT_UNIT = "resamples and permutations"

#: Small groups named in a warning line before the rest are counted.
_SHOWN_GROUPS = 10

#: The bars drawn now, closed by :func:`close_bars` before an error is printed.
_OPEN_BARS = []


def close_bars():
    """Close every open progress bar where it stands (before an error line)."""
    for progress in list(_OPEN_BARS):
        progress.close(complete=False)


class Progress:
    """Progress of one command on stderr, phase by phase.

    Call the object with each phase's name as it starts (it is the
    ``progress`` callable of :func:`skfair.report.audit`); :meth:`close`, or
    the end of a ``with`` block, ends the last phase. On a terminal a tqdm
    bar advances over ``phases`` (the expected phases; more are counted as
    they come); elsewhere each phase is one line ``skfair <command>: <phase>``.
    A call with ``done=`` and ``total=`` counts the current phase's work
    (the audit's resamples and permutations): on a terminal the count
    follows the phase's name on the bar; elsewhere a line ``skfair
    <command>: <phase>: <done>/<total> <unit> (<seconds> s)`` is written at
    most every ``COUNT_SECONDS`` seconds, so a log sees one at least every
    few seconds of a long phase.

    Parameters
    ----------
    command : str
        The subcommand, for the lines.
    phases : int
        How many phases are expected (the bar's length).
    stream : file-like or None, default=None
        Where to write; None is ``sys.stderr`` at the time of the call.
    bar : bool, default=True
        Draw a bar on a terminal; False writes lines there too (for a
        command whose long phase draws its own bar).

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()
    >>> progress = Progress("audit", 2, stream=stream)
    >>> progress("loading"); progress("metrics"); progress.close()
    >>> print(stream.getvalue(), end="")
    skfair audit: loading
    skfair audit: metrics
    """

    def __init__(self, command, phases, *, stream=None, bar=True):
        self.command = command
        self.stream = sys.stderr if stream is None else stream
        self.done = 0
        self.bar = None
        self._said_at = self._started = time.monotonic()
        if bar and _is_terminal(self.stream):
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=phases,
                desc=f"skfair {command}",
                unit="phase",
                file=self.stream,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n}/{total} phases "
                "[{elapsed}]",
            )
            _OPEN_BARS.append(self)

    def __call__(self, phase, done=None, total=None):
        if done is not None:
            self._count(phase, done, total)
            return
        self._started = self._said_at = time.monotonic()
        if self.bar is None:
            print(f"skfair {self.command}: {phase}", file=self.stream, flush=True)
            return
        if self.done:
            self.bar.update(1)
        self.done += 1
        if self.done > self.bar.total:
            self.bar.total = self.done
        self.bar.set_description_str(f"skfair {self.command}: {phase}")

    def _count(self, phase, done, total):
        """The count of a phase's work: on the bar, or a line now and then."""
        if self.bar is not None:
            self.bar.set_description_str(
                f"skfair {self.command}: {phase} {done:,}/{total:,}"
            )
            return
        now = time.monotonic()
        if now - self._said_at >= COUNT_SECONDS and 0 < done < total:
            self._said_at = now
            print(
                f"skfair {self.command}: {phase}: {done:,}/{total:,} "
                f"{COUNT_UNIT} ({now - self._started:.0f} s)",
                file=self.stream,
                flush=True,
            )

    def close(self, *, complete=True):
        """End the last phase and the bar (``complete=False``: where it stands)."""
        if self.bar is not None:
            if complete:
                self.bar.update(self.bar.total - self.bar.n)
            self.bar.close()
            self.bar = None
            _OPEN_BARS.remove(self)

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        self.close(complete=kind is None)


def _is_terminal(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextmanager
def caught_warnings():
    """Record every warning raised inside (none is printed); yields the list."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def warning_lines(caught, *, handled=()):
    """One plain line per condition among the recorded warnings ``caught``.

    Parameters
    ----------
    caught : list of warnings.WarningMessage
        As recorded by :func:`caught_warnings`.
    handled : collection of str, default=()
        The conditions the user has already dealt with, to leave unsaid:
        ``"small_groups"`` (``--min-group-size`` was given).

    Returns
    -------
    lines : list of str
        Without repeats and without Python source locations.

    Examples
    --------
    >>> import warnings
    >>> from skfair.utils import SmallGroupWarning, sensitive_groupings
    >>> with caught_warnings() as caught:
    ...     _ = sensitive_groupings(["a"] * 40 + ["b"] * 3)
    ...     _ = sensitive_groupings(["a"] * 40 + ["b"] * 3)
    >>> warning_lines(caught)  # doctest: +NORMALIZE_WHITESPACE
    ["1 group(s) of 'sensitive_features' have fewer than 30 samples: 'b'
      (3 samples); --min-group-size K leaves out the groups of fewer than K
      samples"]
    >>> warning_lines(caught, handled={"small_groups"})
    []
    """
    from skfair.metrics import HFMUndefinedWarning
    from skfair.utils import SmallGroupWarning

    lines, hfm = [], []
    for record in caught:
        message = str(record.message).strip()
        if issubclass(record.category, SmallGroupWarning):
            if "small_groups" in handled:
                continue
            line = _small_groups_line(record.message)
        elif issubclass(record.category, HFMUndefinedWarning):
            hfm.append(message.split(";")[0].split(". ")[0])
            continue
        else:
            line = message.splitlines()[0] if message else record.category.__name__
        lines.append(line)
    if hfm:
        lines.append(HFM_UNDEFINED_LINE.format(count=len(set(hfm)), first=hfm[0]))
    return list(dict.fromkeys(lines))


def _small_groups_line(warning):
    """A SmallGroupWarning in CLI words (its message if it carries no facts).

    Intersections are named as the report writes them: ``'female & youth'``.
    """
    from skfair.utils._labels import group_label_text

    if warning.name is None:
        return str(warning).strip()
    shown = [
        f"{group_label_text(label)!r} ({size} sample{'' if size == 1 else 's'})"
        for label, size in warning.groups[:_SHOWN_GROUPS]
    ]
    if len(warning.groups) > _SHOWN_GROUPS:
        shown.append(f"... ({len(warning.groups) - _SHOWN_GROUPS} more)")
    return SMALL_GROUPS_LINE.format(
        count=len(warning.groups),
        name=warning.name,
        threshold=warning.threshold,
        groups=", ".join(shown),
    )


def say_line(line, stream=None):
    """Write ``line`` to ``stream`` (None: stderr), above a progress bar there."""
    stream = sys.stderr if stream is None else stream
    bars = [p.bar for p in _OPEN_BARS if p.bar is not None and p.stream is stream]
    if bars:
        bars[0].write(line, file=stream)
    else:
        print(line, file=stream, flush=True)


class LiveWarnings:
    """Say the warnings raised inside, each once, as they are raised.

    A context manager: every warning raised in the block (in any thread) is
    recorded instead of printed, and its :func:`warning_lines` line is
    written at once as ``skfair <command>: warning: ...`` (above a progress
    bar on the same stream); undefined HFM degrees are counted and said
    together when the block ends. The records are in :attr:`caught`.

    Parameters
    ----------
    command : str
        The subcommand, for the lines.
    handled : collection of str, default=()
        Conditions left unsaid (see :func:`warning_lines`).
    stream : file-like or None, default=None
        Where to write; None is ``sys.stderr`` when the block starts.

    Examples
    --------
    >>> import io
    >>> from skfair.utils import sensitive_groupings
    >>> stream = io.StringIO()
    >>> with LiveWarnings("audit", stream=stream):
    ...     _ = sensitive_groupings(["a"] * 40 + ["b"] * 3)
    ...     print(stream.getvalue().split(" have ")[0])  # said in the block
    skfair audit: warning: 1 group(s) of 'sensitive_features'
    """

    def __init__(self, command, *, handled=(), stream=None):
        self.command, self.handled, self.stream = command, handled, stream
        self.caught, self._said = [], set()

    def __enter__(self):
        if self.stream is None:
            self.stream = sys.stderr
        self._catcher = warnings.catch_warnings()
        self._catcher.__enter__()
        warnings.simplefilter("always")
        warnings.showwarning = self._show
        return self

    def _show(self, message, category, filename, lineno, file=None, line=None):
        from skfair.metrics import HFMUndefinedWarning

        record = warnings.WarningMessage(
            message, category, filename, lineno, file, line
        )
        self.caught.append(record)
        if not issubclass(category, HFMUndefinedWarning):
            self._say(warning_lines([record], handled=self.handled))

    def _say(self, lines):
        for line in lines:
            if line not in self._said:
                self._said.add(line)
                say_line(f"skfair {self.command}: warning: {line}", self.stream)

    def __exit__(self, kind, error, traceback):
        self._catcher.__exit__(kind, error, traceback)
        if kind is None:
            self._say(warning_lines(self.caught, handled=self.handled))


def say_warnings(command, caught, *, handled=(), stream=None):
    """Write :func:`warning_lines` to stderr, ``skfair <command>: warning: ...``."""
    stream = sys.stderr if stream is None else stream
    for line in warning_lines(caught, handled=handled):
        print(f"skfair {command}: warning: {line}", file=stream)


# -- the audit's size, said up front ---------------------------------------------------
LONG_RUN_NOTE = (
    "skfair audit: note: {n_groups:,} groups of {name!r} make {pairs:,} pairs, "
    "each resampled {draws:,} times (bootstrap and permutations): this audit "
    "may take roughly {estimate}; --min-group-size K compares only the "
    "groups of at least K rows{hint}, and --n-resamples N ({n_resamples}) "
    "shortens it in proportion"
)
#: The audit's resamples without --n-resamples (up to 100 000 rows).
DEFAULT_RESAMPLES = 199
#: The estimate beyond which the note is said.
LONG_RUN_SECONDS = 60
#: The most groups the --min-group-size hint keeps (about 1 000 pairs).
HINT_GROUPS = 45


def say_size(args, sizes, name):
    """Say up front when the number of pairs of groups makes a long audit.

    The estimate is the library's (:func:`skfair.report.resampling_estimate`);
    above ``MAX_RESAMPLING_SECONDS`` the audit refuses with its own message,
    so nothing is said here.
    """
    from skfair.report import MAX_RESAMPLING_SECONDS, resampling_estimate

    k = args.min_group_size or 1
    kept = [size for size in sizes.values() if size >= k]
    n_groups, n_rows = len(kept), sum(kept)
    pairs = n_groups * (n_groups - 1) // 2
    seconds = resampling_estimate(n_rows, n_groups, args.n_resamples)
    if seconds < LONG_RUN_SECONDS or seconds > MAX_RESAMPLING_SECONDS:
        return
    draws = 2 * (args.n_resamples or DEFAULT_RESAMPLES)  # bootstrap, permutations
    estimate = (
        f"{seconds / 60:.0f} min" if seconds < 5400 else f"{seconds / 3600:.0f} h"
    )
    say_line(
        LONG_RUN_NOTE.format(
            n_groups=n_groups,
            name=name,
            pairs=pairs,
            draws=draws,
            estimate=estimate,
            hint=_min_group_size_hint(sizes, k),
            n_resamples=f"now {args.n_resamples}"
            if args.n_resamples
            else f"default {DEFAULT_RESAMPLES}, fewer above 100 000 rows",
        )
    )


def _min_group_size_hint(sizes, k):
    """``--min-group-size K`` that keeps at least 2 and at most 45 groups, said."""
    for size in sorted(set(sizes.values())):
        kept = sum(s >= size for s in sizes.values())
        if size > k and 2 <= kept <= HINT_GROUPS:
            return f" (here --min-group-size {size} keeps {kept} groups)"
    return ""
