"""The audit's groups, from the sensitive columns and the options that shape them.

``--bins`` groups a numeric column, ``--na-group`` names its missing values,
text columns keep their labels as written (``"01"`` and ``"1"`` are two
groups, in numeric order when every label is a number), and the groups are
checked before the audit starts, in the options' words: a column that would
make one group per value, ``--bins`` edges that leave a single group,
``--min-group-size`` above every group but one, a ``--reference`` that names
no group (listed as the report writes them, which it accepts back).
"""

from __future__ import annotations

import argparse
import math

import numpy as np
import pandas as pd

from skfair._cli._inputs import match_label
from skfair.utils import SMALL_GROUP_SIZE
from skfair.utils._group_encoding import ContinuousSensitiveError, check_continuous
from skfair.utils._labels import group_label_text, parse_group_label

BINS_FORMAT_ERROR = (
    "expected COL=EDGES (increasing numbers, e.g. age=25,45,65) or COL=qN "
    "(N >= 2 quantile groups, e.g. age=q4); got {text!r}"
)
BINS_COLUMN_ERROR = "argument --bins: {column!r} is not a --sensitive column"
BINS_NOT_NUMERIC_ERROR = (
    "argument --bins: column {column!r} is not numeric (its values are like "
    "{example!r}); --bins groups numbers only"
)
BINS_ONE_GROUP_ERROR = (
    "argument --bins: {column}={spec} puts every value of column {column!r} in "
    "one group {label!r}: its values range from {low} to {high}; choose edges "
    "inside that range, or qN for N groups of about equal size"
)
MISSING_GROUP_ERROR = (
    "argument --sensitive: column {column!r} has {count} missing value(s) "
    "(empty cells or NA-like text such as 'NA'); drop those rows, or pass "
    "--na-group LABEL to read them as a group named LABEL"
)
CONTINUOUS_ERROR = (
    "argument --sensitive: column {column!r} looks continuous ({n_groups} "
    "distinct values in {n_samples} rows), and each value would be a group of "
    "its own; group it with --bins {column}=EDGES (e.g. --bins {column}=25,45,65) "
    "or --bins {column}=qN (N quantile groups, e.g. --bins {column}=q4)"
)
MANY_GROUPS_ERROR = (
    "argument --sensitive: column {column!r} has {n_groups} distinct values in "
    "{n_samples} rows ({mean:.1f} rows per group on average), too many small "
    "groups to compare; check that it is the group column you mean (not an "
    "identifier or free text), or pass --min-group-size K to compare only "
    "its groups of at least K rows (e.g. --min-group-size {k})"
)
ONE_GROUP_ERROR = (
    "argument --sensitive: {name!r} has a single group ({group!r}, {size} rows); "
    "at least two groups are needed to compare them"
)
MIN_GROUP_SIZE_ERROR = (
    "argument --min-group-size: {k} leaves {kept} group(s) of {name!r} with at "
    "least {k} rows, and at least two are needed to compare; its group sizes "
    "are {sizes}; use K <= {largest_k}"
)
REFERENCE_UNKNOWN_ERROR = (
    "argument --reference: {text!r} is not a group of {name}; its groups are {groups}"
)
REFERENCE_LEFT_OUT_ERROR = (
    "argument --reference: group {group!r} has {size} rows, fewer than "
    "--min-group-size {k}, so it is left out of the audit; choose a group of "
    "at least {k} rows or a smaller --min-group-size"
)

#: Groups named in a message before the rest are counted.
_SHOWN = 20


def bins_type(text):
    """An argparse type for ``--bins COL=EDGES`` or ``--bins COL=qN``.

    Returns ``(column, edges)`` with a tuple of increasing floats, or
    ``(column, n)`` with an int ``n >= 2`` (quantile groups).

    Examples
    --------
    >>> bins_type("age=25,45,65"), bins_type("income=q4")
    (('age', (25.0, 45.0, 65.0)), ('income', 4))
    """
    column, equals, spec = text.rpartition("=")
    spec = spec.strip().lower()
    if not equals or not column:
        raise argparse.ArgumentTypeError(BINS_FORMAT_ERROR.format(text=text))
    if spec.startswith("q"):
        if spec[1:].isdigit() and int(spec[1:]) >= 2:
            return column, int(spec[1:])
        raise argparse.ArgumentTypeError(BINS_FORMAT_ERROR.format(text=text))
    try:
        edges = tuple(float(edge) for edge in spec.split(","))
    except ValueError:
        edges = ()
    finite = all(math.isfinite(edge) for edge in edges)
    if not edges or not finite or any(np.diff(edges) <= 0):
        raise argparse.ArgumentTypeError(BINS_FORMAT_ERROR.format(text=text))
    return column, edges


def _number(value):
    return f"{value:g}"


def bin_column(values, spec):
    """Group the numbers ``values`` by ``--bins``: an ordered categorical.

    The groups are ``[min, e1)``, ``[e1, e2)``, ..., ``[ek, max]`` with the
    column's own minimum and maximum at the ends (``spec`` the edges; those
    outside the data are dropped), or ``spec`` groups of about equal size cut
    at the quantiles (fewer when values tie); groups with no sample are left
    out, missing values stay missing.

    Examples
    --------
    >>> import pandas as pd
    >>> ages = pd.Series([18, 30, 50, 70, 90, 44])
    >>> bin_column(ages, (25, 45, 65)).tolist()
    ['[18, 25)', '[25, 45)', '[45, 65)', '[65, 90]', '[65, 90]', '[25, 45)']
    >>> bin_column(ages, 2).cat.categories.tolist()
    ['[18, 47)', '[47, 90]']
    """
    numbers = pd.to_numeric(values, errors="raise").to_numpy(dtype=np.float64)
    present = numbers[~np.isnan(numbers)]
    low, high = present.min(), present.max()
    if isinstance(spec, int):
        edges = np.quantile(present, np.arange(1, spec) / spec)
        above = present[present > low]
        if above.size:  # a cut at the minimum would leave [min, min) empty
            edges = np.where(edges <= low, above.min(), edges)
        edges = np.unique(edges)
    else:
        edges = np.asarray(spec, dtype=np.float64)
    edges = edges[(edges > low) & (edges <= high)]  # no group outside the data
    bounds = [low, *edges, high]
    labels = [
        f"[{_number(bounds[k])}, {_number(bounds[k + 1])})" for k in range(len(edges))
    ]
    labels.append(f"[{_number(bounds[-2])}, {_number(high)}]")
    codes = np.searchsorted(edges, numbers, side="right")
    codes[np.isnan(numbers)] = -1
    used = np.unique(codes[codes >= 0])
    renumber = np.full(len(labels), -1)
    renumber[used] = np.arange(used.size)
    codes = np.where(codes >= 0, renumber[np.maximum(codes, 0)], -1)
    categories = [labels[k] for k in used]
    binned = pd.Categorical.from_codes(codes, categories, ordered=True)
    return pd.Series(binned, index=values.index, name=values.name)


def _is_text(values):
    """Whether a column holds labels that are neither numbers nor categories."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return False
    return not pd.api.types.is_numeric_dtype(values)


def _numbers(values, column):
    """A numeric column for ``--bins`` (text read as numbers), or the CLI's error."""
    if values.dtype == bool:
        numbers, bad = values, values.notna()
    elif _is_text(values):
        numbers = pd.to_numeric(values, errors="coerce")
        bad = numbers.isna() & values.notna()
    else:
        return values
    if bad.any():
        example = values[bad].iloc[0]
        raise ValueError(BINS_NOT_NUMERIC_ERROR.format(column=column, example=example))
    return numbers


def _bin(values, column, spec):
    """``values`` grouped by ``--bins``; an error if that leaves a single group."""
    numbers = _numbers(values, column)
    binned = bin_column(numbers, spec)
    if len(binned.cat.categories) < 2:
        raise ValueError(
            BINS_ONE_GROUP_ERROR.format(
                spec=f"q{spec}"
                if isinstance(spec, int)
                else ",".join(map(_number, spec)),
                column=column,
                label=binned.cat.categories[0],
                low=_number(numbers.min()),
                high=_number(numbers.max()),
            )
        )
    return binned


def _text_groups(values, column, min_group_size, na_group):
    """A text column as a categorical of its labels as written.

    Labels that are all numbers are in numeric order (a ``--na-group`` label
    last) and refused beyond :data:`~skfair.utils._group_encoding.MAX_NUMERIC_GROUPS` (a
    continuous column: ``--bins``); other labels are sorted, a ``--na-group``
    label among them, and refused when they make many tiny groups, unless
    ``--min-group-size`` leaves those out. Missing values stay missing.
    """
    present = values.dropna()
    labels = pd.unique(present)
    numbers = pd.to_numeric(pd.Series(labels, dtype=object), errors="coerce")
    n_groups, n_samples = len(labels), len(values)
    if len(labels) and numbers.notna().all():
        _refuse_continuous(values, column)
        order = sorted(zip(numbers.tolist(), map(str, labels), labels))
        categories = [label for _, _, label in order]
    else:
        try:  # skfair.utils' rule: many groups of a few rows each
            check_continuous(column, "O", n_groups, n_samples)
        except ContinuousSensitiveError:
            _refuse_many_groups(present, column, n_samples, min_group_size)
        if na_group is not None and len(present) < n_samples:
            labels = pd.unique(np.append(labels, na_group))
        try:
            categories = sorted(labels)
        except TypeError:  # labels of mixed types: first-seen order
            categories = list(labels)
    grouped = pd.Categorical(values, categories=categories)
    return pd.Series(grouped, index=values.index, name=values.name)


def _refuse_continuous(values, column):
    """:data:`CONTINUOUS_ERROR` for a numeric column of too many values."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return
    try:  # skfair.utils' rule for numeric attributes
        check_continuous(column, "f", values.nunique(), len(values))
    except ContinuousSensitiveError as error:
        raise ValueError(
            CONTINUOUS_ERROR.format(
                column=column, n_groups=error.n_groups, n_samples=error.n_samples
            )
        ) from None


def _refuse_many_groups(present, column, n_samples, min_group_size):
    """:data:`MANY_GROUPS_ERROR`, unless ``--min-group-size`` leaves tiny groups out.

    Its example K keeps the largest two groups (at most 30).
    """
    if min_group_size is not None:
        return
    sizes = present.value_counts().to_numpy()
    raise ValueError(
        MANY_GROUPS_ERROR.format(
            column=column,
            n_groups=sizes.size,
            n_samples=n_samples,
            mean=n_samples / sizes.size,
            k=min(SMALL_GROUP_SIZE, int(sizes[1])),
        )
    )


def shape_sensitive(sensitive, *, bins=(), na_group=None, min_group_size=None):
    """The sensitive columns with ``--bins`` and ``--na-group`` applied.

    Text columns become categoricals of their labels as written (see
    :func:`_text_groups`). Raises ValueError with the CLI's message
    (:data:`BINS_NOT_NUMERIC_ERROR`, :data:`BINS_ONE_GROUP_ERROR`,
    :data:`MISSING_GROUP_ERROR`, :data:`CONTINUOUS_ERROR`,
    :data:`MANY_GROUPS_ERROR`) for a column that cannot be used.

    Examples
    --------
    >>> import pandas as pd
    >>> codes = pd.DataFrame({"code": ["10", "01", "1", "007", "1"]})
    >>> shape_sensitive(codes)["code"].cat.categories.tolist()
    ['01', '1', '007', '10']
    """
    sensitive = sensitive.copy()
    for column, spec in bins:
        sensitive[column] = _bin(sensitive[column], column, spec)
    binned = {column for column, _ in bins}
    for column in sensitive.columns:
        values = sensitive[column]
        if _is_text(values):
            values = _text_groups(values, column, min_group_size, na_group)
        elif column not in binned and values.dtype != bool:
            _refuse_continuous(values, column)
        missing = values.isna()
        if missing.any():
            if na_group is None:
                raise ValueError(
                    MISSING_GROUP_ERROR.format(column=column, count=int(missing.sum()))
                )
            values = _fill_group(values, missing, na_group)
        sensitive[column] = values
    return sensitive


def _fill_group(values, missing, label):
    """``values`` with the missing ones replaced by the group ``label``."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        if label not in values.cat.categories:
            values = values.cat.add_categories([label])
        return values.fillna(label)
    if pd.api.types.is_numeric_dtype(values):  # numbers as text, 1.0 as "1"
        text = [label if m else _number(v) for v, m in zip(values, missing)]
        return pd.Series(text, index=values.index, name=values.name, dtype=str)
    filled = values.astype(object).where(~missing, label)
    return filled.astype(str) if values.dtype == "str" else filled


def group_sizes(sensitive):
    """The size of each group (intersection) present, in the report's order.

    Returns a dict from label (a tuple for several columns) to size.

    Examples
    --------
    >>> import pandas as pd
    >>> group_sizes(pd.DataFrame({"sex": ["f", "m", "f"], "n": [1, 2, 1]}))
    {('f', 1): 2, ('m', 2): 1}
    """
    counts = sensitive.groupby(list(sensitive.columns), observed=True).size()
    return {
        (
            tuple(_plain(v) for v in label)
            if isinstance(label, tuple)
            else _plain(label)
        ): int(size)
        for label, size in counts.items()
    }


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _sizes_text(sizes):
    ranked = sorted(sizes.items(), key=lambda item: -item[1])
    shown = [f"{group_label_text(g)!r} ({n})" for g, n in ranked[:_SHOWN]]
    if len(ranked) > _SHOWN:
        shown.append(f"... ({len(ranked) - _SHOWN} more)")
    return ", ".join(shown)


def check_groups(sizes, name, min_group_size):
    """Refuse groups that leave fewer than two to compare, in the options' words.

    ``sizes`` as :func:`group_sizes` returns them, ``name`` the grouping's
    (``"sex & race"`` for an intersection).
    """
    if len(sizes) == 1:
        ((group, size),) = sizes.items()
        raise ValueError(
            ONE_GROUP_ERROR.format(name=name, group=group_label_text(group), size=size)
        )
    if min_group_size is None or len(sizes) < 2:
        return
    kept = sum(size >= min_group_size for size in sizes.values())
    if kept < 2:
        raise ValueError(
            MIN_GROUP_SIZE_ERROR.format(
                k=min_group_size,
                kept=kept,
                name=name,
                sizes=_sizes_text(sizes),
                largest_k=sorted(sizes.values())[-2],
            )
        )


def _written_groups(sizes):
    written = sorted(group_label_text(group) for group in sizes)
    shown = ", ".join(map(repr, written[:_SHOWN]))
    return shown + (
        f", ... ({len(written) - _SHOWN} more)" if len(written) > _SHOWN else ""
    )


def reference_group(sensitive, text, *, sizes=None, min_group_size=None):
    """The group ``--reference`` names: a label, or a tuple of labels.

    With several attributes, ``text`` is the group's label as the report
    writes it (:func:`skfair.utils._labels.group_label_text`: the labels joined by
    ``" & "``, a label containing ``" & "`` or a quote in double quotes),
    read with :func:`skfair.utils._labels.parse_group_label`.

    Examples
    --------
    >>> import pandas as pd
    >>> two = pd.DataFrame({"sex": ["f", "m"], "race": ["a & b", "c"]})
    >>> reference_group(two, 'f & "a & b"')
    ('f', 'a & b')
    """
    sizes = group_sizes(sensitive) if sizes is None else sizes
    several = sensitive.shape[1] > 1
    try:
        parts = parse_group_label(text) if several else (text,)
    except ValueError:
        parts = ()
    for group in sizes:
        values = group if several else (group,)
        if len(parts) == len(values) and all(
            match_label(part, [value]) is not None for part, value in zip(parts, values)
        ):
            break
    else:
        raise ValueError(
            REFERENCE_UNKNOWN_ERROR.format(
                text=text,
                name=" & ".join(map(str, sensitive.columns)),
                groups=_written_groups(sizes),
            )
        )
    if min_group_size is not None and sizes[group] < min_group_size:
        raise ValueError(
            REFERENCE_LEFT_OUT_ERROR.format(
                group=group_label_text(group), size=sizes[group], k=min_group_size
            )
        )
    return group
