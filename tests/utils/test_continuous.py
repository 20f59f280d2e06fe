"""When a sensitive attribute looks continuous: the rule on rows per value.

Up to 50 distinct values are groups. Beyond that a numeric column is read as
group codes only when its values are whole numbers, at most 1000 of them,
each with at least 30 samples; any other column only when its groups average
at least 5 samples. A declared categorical is never refused.
"""

from collections import Counter

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skfair.datasets import load_adult
from skfair.metrics import GroupMetricFrame, mcdp
from skfair.utils import check_sensitive_features
from skfair.utils._group_encoding import (
    CONTINUOUS_SENSITIVE_ERROR,
    MAX_CODED_GROUPS,
    MAX_NUMERIC_GROUPS,
    MIN_CODED_GROUP_SIZE,
    NOT_WHOLE_REASON,
    RARE_CODE_REASON,
    TINY_GROUPS_REASON,
    TOO_MANY_CODES_REASON,
    UNCOUNTED_REASON,
    ContinuousSensitiveError,
    check_continuous,
)


def _refused(column):
    try:
        check_sensitive_features(column)
    except ContinuousSensitiveError:
        return True
    return False


def _definition(values):
    """The rule, written out from the counts of a plain Python Counter."""
    counts = Counter(values.tolist())
    if len(counts) <= MAX_NUMERIC_GROUPS:
        return False
    whole = all(float(v).is_integer() for v in counts)
    small = min(counts.values()) < MIN_CODED_GROUP_SIZE
    return not whole or len(counts) > MAX_CODED_GROUPS or small


def test_the_constants_are_the_documented_rule():
    assert (MAX_NUMERIC_GROUPS, MAX_CODED_GROUPS, MIN_CODED_GROUP_SIZE) == (
        50,
        1000,
        30,
    )
    doc = check_sensitive_features.__doc__
    assert "whole numbers" in " ".join(doc.split())
    assert "at most\n        1000" in doc or "at most 1000" in " ".join(doc.split())


def test_100_region_codes_in_a_million_rows_are_groups():
    # issue 40: every value has ~10,000 rows; these are categories
    rng = np.random.default_rng(0)
    regions = rng.integers(0, 100, 1_000_000)
    attrs = check_sensitive_features(regions)
    assert attrs.categories[0] == tuple(range(100))
    assert np.array_equal(attrs.codes[:, 0], regions)
    # the same codes as floats (a CSV column with missing values, dropped),
    # unsigned, pyarrow-backed, polars, in a DataFrame
    assert check_sensitive_features(regions.astype(float)).categories[0][:2] == (
        0.0,
        1.0,
    )
    assert len(check_sensitive_features(regions.astype(np.uint16)).categories[0]) == 100
    arrow = pd.Series(regions, dtype="int64[pyarrow]", name="region")
    assert len(check_sensitive_features(arrow).categories[0]) == 100
    assert len(check_sensitive_features(pl.Series("r", regions)).categories[0]) == 100
    frame = pd.DataFrame({"region": regions, "sex": rng.integers(0, 2, regions.size)})
    assert len(check_sensitive_features(frame).intersection().labels) == 200


def test_the_metrics_take_region_codes():
    rng = np.random.default_rng(1)
    regions = rng.integers(0, 100, 20_000)  # ~200 rows per region
    scores = rng.uniform(size=regions.size)
    value = mcdp(None, scores, sensitive_features=regions)
    assert value == mcdp(None, scores, sensitive_features=pd.Categorical(regions))
    frame = GroupMetricFrame(
        metrics="selection_rate",
        y_true=(scores > 0.5).astype(int),
        y_pred=(scores > 0.3).astype(int),
        sensitive_features=regions,
    )
    assert frame.by_group.shape == (100,)


@pytest.mark.parametrize(
    ("column", "reason"),
    [
        # a million incomes: continuous, however many rows
        (
            np.random.default_rng(2).lognormal(10, 1, 1_000_000),
            NOT_WHOLE_REASON,
        ),
        # the same incomes in whole dollars: thousands of distinct numbers
        (
            np.random.default_rng(2).lognormal(10, 1, 1_000_000).round(),
            TOO_MANY_CODES_REASON.format(limit=MAX_CODED_GROUPS),
        ),
        # 5,000 distinct integers with 200 rows each: an identifier or a
        # measurement (a demanding user with 5,000 groups declares them)
        (
            np.random.default_rng(3).permutation(np.repeat(np.arange(5000), 200)),
            TOO_MANY_CODES_REASON.format(limit=MAX_CODED_GROUPS),
        ),
        # scores on a 0.1 grid, thousands of rows each: not whole numbers
        (np.repeat(np.arange(100) / 10, 1000), NOT_WHOLE_REASON),
    ],
    ids=["float-incomes", "whole-dollar-incomes", "5000-integers", "0.1-grid"],
)
def test_continuous_columns_are_still_refused(column, reason):
    with pytest.raises(ContinuousSensitiveError) as info:
        check_sensitive_features(pd.Series(column, name="x"))
    n_groups = len(np.unique(column))
    assert str(info.value) == CONTINUOUS_SENSITIVE_ERROR.format(
        name="x", n_groups=n_groups, n_samples=column.size, reason=reason
    )
    assert (info.value.n_groups, info.value.n_samples) == (n_groups, column.size)


def test_adult_s_numeric_columns_are_refused():
    # age in years has rare ages (one person aged 86); hours per week,
    # capital gains and fnlwgt likewise: none of them is a grouping
    data = load_adult().data
    for name in ("age", "hours_per_week", "capital_gain", "fnlwgt"):
        with pytest.raises(ContinuousSensitiveError, match=f"'{name}' looks"):
            check_sensitive_features(data[name])
    age = data["age"].value_counts()
    rarest = age.idxmin()
    with pytest.raises(ContinuousSensitiveError) as info:
        check_sensitive_features(data["age"])
    assert RARE_CODE_REASON.format(label=int(rarest), size=age.min()) in str(info.value)


def test_the_bounds_of_the_rule():
    codes = np.arange(MAX_CODED_GROUPS)
    check_sensitive_features(np.repeat(codes, MIN_CODED_GROUP_SIZE))
    with pytest.raises(ContinuousSensitiveError, match="there are more than 1000"):
        check_sensitive_features(
            np.repeat(np.arange(MAX_CODED_GROUPS + 1), MIN_CODED_GROUP_SIZE)
        )
    column = np.repeat(np.arange(100), MIN_CODED_GROUP_SIZE)
    check_sensitive_features(column)
    short = np.delete(column, np.flatnonzero(column == 7)[0])  # 29 rows of 7
    with pytest.raises(ContinuousSensitiveError) as info:
        check_sensitive_features(short)
    assert "the value 7 has 29)" in str(info.value)
    # 50 values are groups however small; 51 are not
    check_sensitive_features(np.arange(MAX_NUMERIC_GROUPS))
    assert _refused(np.arange(MAX_NUMERIC_GROUPS + 1))
    # one value off the integers makes the column a measurement
    whole = np.repeat(np.arange(100.0), 40)
    check_sensitive_features(whole)
    whole[-1] = 99.5
    assert _refused(whole)
    assert _refused(np.append(np.repeat(np.arange(100.0), 40), np.inf))


def test_other_columns_keep_the_mean_size_rule():
    # strings: many groups of a few rows each (one per person) are refused
    people = np.array([f"id{i}" for i in range(300)])
    with pytest.raises(ContinuousSensitiveError) as info:
        check_sensitive_features(people)
    assert TINY_GROUPS_REASON in str(info.value)
    # 100 string labels of 5 rows each are groups (small ones: the metrics warn)
    labels = np.repeat([f"r{i}" for i in range(100)], 5)
    assert len(check_sensitive_features(labels).categories[0]) == 100


def test_uncounted_numeric_values_keep_the_strict_rule():
    # a caller that has not counted the values (the Dask passes)
    with pytest.raises(ContinuousSensitiveError) as info:
        check_continuous("region", "i", 100, 1_000_000)
    assert UNCOUNTED_REASON in str(info.value)
    sizes = np.full(100, 10_000)
    check_continuous("region", "i", 100, 1_000_000, sizes=sizes, labels=range(100))


def test_the_message_s_advice_works():
    values = np.random.default_rng(4).permutation(np.repeat(np.arange(5000), 200))
    with pytest.raises(ContinuousSensitiveError) as info:
        check_sensitive_features(values)
    message = str(info.value)
    assert "astype('category')" in message
    assert "cast(pl.String).cast(pl.Categorical)" in message
    assert "at least 30 samples" in message
    # declared as categories, 5,000 groups are taken as they are
    assert len(check_sensitive_features(pd.Series(values).astype("category"))
               .categories[0]) == 5000  # fmt: skip
    polars = pl.Series("code", values).cast(pl.String).cast(pl.Categorical)
    assert len(check_sensitive_features(polars).categories[0]) == 5000
    # binned as the message says: a few groups
    binned = pd.qcut(pd.Series(values), q=4)
    assert len(check_sensitive_features(binned).categories[0]) == 4


@settings(max_examples=200, deadline=None)
@given(
    n_values=st.integers(45, 60),
    size=st.integers(26, 34),
    short=st.integers(0, 6),
    offset=st.sampled_from([0, 0.5]),
    low=st.integers(-5, 5),
    dtype=st.sampled_from(["int64", "float64", "uint32", "int8"]),
    seed=st.integers(0, 2**16),
)
def test_the_rule_is_its_definition(n_values, size, short, offset, low, dtype, seed):
    # brute force: the decision equals the rule written out from Counter counts
    rng = np.random.default_rng(seed)
    values = np.repeat(np.arange(n_values) + low + 5, size).astype(float)
    keep = np.ones(values.size, dtype=bool)
    keep[size : size + short] = False  # the second value loses rows
    values = values[keep]
    values[-1] += offset  # maybe a value off the integers
    if offset == 0 or dtype == "float64":
        column = rng.permutation(values).astype(dtype)
        assert _refused(column) == _definition(column)
