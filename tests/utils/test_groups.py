"""Groups and their rules: min_group_size, small-group warnings (``_groups.py``)."""

import inspect
import warnings

import numpy as np

from skfair.utils import SMALL_GROUP_SIZE, SmallGroupWarning
from skfair.utils._groups import Grouping, apply_min_group_size, drop_small_groups


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = call()
    return out, caught


def test_drop_small_groups_leaves_out_groups_under_k_silently():
    codes = np.array([0, 1, 2, 1, 2, 0, -1])  # -1: left out already
    (kept, labels), caught = _caught(
        lambda: drop_small_groups(codes, ("a", "b", "c"), [40, 2, 30], 30)
    )
    assert caught == []
    assert labels == ("a", "c")
    assert kept.tolist() == [0, -1, 1, -1, 1, 0, -1]
    # nothing to drop: the same codes and labels
    (same, labels), _ = _caught(lambda: drop_small_groups(codes, "abc", [9, 9, 9], 1))
    assert same.tolist() == codes.tolist() and labels == ("a", "b", "c")


def test_drop_small_groups_takes_sizes_as_given():
    # the counts are weights (e.g. distinct rows times their multiplicity),
    # not the counts of the codes: one row of group "b" stands for 50 samples
    codes, labels = drop_small_groups([0, 0, 1], ["a", "b"], [2, 50], 30)
    assert codes.tolist() == [-1, -1, 0] and labels == ("b",)


def test_drop_small_groups_warns_once_naming_the_groups():
    counts = np.array([SMALL_GROUP_SIZE + 5, 3, 1])
    (codes, labels), caught = _caught(
        lambda: drop_small_groups([0, 1, 2], ["a", "b", "c"], counts, None, name="g")
    )
    assert codes.tolist() == [0, 1, 2] and labels == ("a", "b", "c")
    assert len(caught) == 1
    warning = caught[0].message
    assert isinstance(warning, SmallGroupWarning)
    assert warning.name == "g" and warning.groups == (("c", 1), ("b", 3))
    assert str(warning).startswith(
        "'g' has 2 group(s) with fewer than 30 samples: 'c' (1 samples), 'b' (3"
    )


def _metric(stacklevel):
    """A stand-in for a public function that applies min_group_size."""
    return drop_small_groups([0, 1], ["a", "b"], [1, 1], None, stacklevel=stacklevel)


def test_stacklevel_counts_from_the_caller_like_warnings_warn():
    inner = inspect.getsourcelines(_metric)[1] + 2  # the call in _metric
    _, caught = _caught(lambda: _metric(1))
    assert (caught[0].filename, caught[0].lineno) == (__file__, inner)
    line = inspect.currentframe().f_lineno + 1
    _, caught = _caught(lambda: _metric(2))  # the caller of _metric: this line
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)


def test_apply_min_group_size_keeps_its_stacklevel():
    grouping = Grouping("g", np.array([0, 1, 1]), ("a", "b"))

    def metric():  # public metric -> sensitive_groupings -> apply_min_group_size
        return groupings()

    def groupings():
        return apply_min_group_size(grouping, None)

    line = inspect.currentframe().f_lineno + 1
    _, caught = _caught(lambda: metric())
    assert caught[0].lineno == line
    assert apply_min_group_size(grouping, 2).labels == ("b",)
    assert apply_min_group_size(grouping, 2).n_left_out == 1
