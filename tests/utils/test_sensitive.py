"""The sensitive-attribute resolver: encoding, column specs and errors."""

import pickle
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from skfair.utils import (
    SMALL_GROUP_SIZE,
    SmallGroupWarning,
    check_sensitive_features,
    drop_sensitive,
    resolve_privileged,
    select_sensitive,
    sensitive_groupings,
)
from skfair.utils._dataframe import NESTED_COLUMN_ERROR
from skfair.utils._group_encoding import (
    CONTINUOUS_SENSITIVE_ERROR,
    EMPTY_GROUP_ERROR,
    UNHASHABLE_LABEL_ERROR,
    ContinuousSensitiveError,
)
from skfair.utils._groups import (
    COMBINE_ERROR,
    MIN_GROUP_SIZE_ERROR,
    SMALL_GROUP_WARNING,
)
from skfair.utils._sensitive_spec import (
    SPEC_NAME_ON_ARRAY_ERROR,
    SPEC_NONE_ERROR,
    privileged_by_column,
)

# Most cases use a handful of samples on purpose.
pytestmark = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")


@pytest.mark.parametrize(
    "labels",
    [
        [3, 7, 3, 9],
        np.array([3, 7, 3, 9], dtype=np.uint8),
        [True, False, True, True],
        ["b", "a", "b", "c"],
        pd.Series(["b", "a", "b", "c"], dtype="str"),
        pd.Series(["b", "a", "b", "c"], dtype="category"),
        [0.5, 1.5, 0.5, 2.5],
    ],
)
def test_codes_partition_like_labels(labels):
    attrs = check_sensitive_features(labels)
    codes = attrs.codes[:, 0]
    values = list(labels) if not isinstance(labels, pd.Series) else labels.tolist()
    for i in range(len(values)):
        for j in range(len(values)):
            assert (codes[i] == codes[j]) == (values[i] == values[j])
    assert [attrs.categories[0][c] for c in codes] == values


def test_intersection_and_marginal(constructor):
    df = constructor({"sex": ["f", "m", "m", "f"], "race": ["a", "a", "b", "a"]})
    attrs = check_sensitive_features(df)
    assert attrs.names == ("sex", "race")
    inter = attrs.intersection()
    assert inter.name == "sex & race"
    assert inter.labels == (("f", "a"), ("m", "a"), ("m", "b"))
    assert inter.codes.tolist() == [0, 1, 2, 0]
    marginal = sensitive_groupings(df, combine="marginal")
    assert [g.name for g in marginal] == ["sex", "race"]
    with pytest.raises(ValueError, match=COMBINE_ERROR.format(combine="x")[:20]):
        sensitive_groupings(df, combine="x")


def test_errors():
    with pytest.raises(ValueError, match="missing value"):
        check_sensitive_features(["a", np.nan, "b"])
    with pytest.raises(ValueError, match="missing value"):
        check_sensitive_features(pd.Series([1.0, np.nan]))
    with pytest.raises(
        ValueError, match="sensitive_features has 2 and the scores has 3"
    ):
        check_sensitive_features([0, 1], n_samples=3)
    with pytest.raises(ValueError, match="at least two groups"):
        sensitive_groupings([1, 1, 1])
    with pytest.raises(ValueError, match="1-D .* or 2-D"):
        check_sensitive_features(np.zeros((2, 2, 2)))
    # a declared category with no member is an empty group (e.g. in a CV fold)
    cat = pd.Series(["a", "b"], dtype=pd.CategoricalDtype(["a", "b", "c"]))
    with pytest.raises(ValueError, match=r"group\(s\) \['c'\]"):
        check_sensitive_features(cat)


def test_select_and_drop_on_dataframe_and_array(constructor):
    df = constructor({"x": [0.1, 0.2], "sex": ["f", "m"], "age": [1, 0]})
    assert select_sensitive(df, "sex")["sex"].tolist() == ["f", "m"]
    assert list(select_sensitive(df, ["sex", "age"]).columns) == ["sex", "age"]
    assert list(drop_sensitive(df, ["sex", "age"]).columns) == ["x"]
    arr = df.to_numpy()
    assert select_sensitive(arr, 1)["x1"].tolist() == ["f", "m"]
    assert select_sensitive(arr, -1)["x2"].tolist() == [1, 0]
    assert drop_sensitive(np.eye(3), [0, 2]).shape == (3, 1)
    # a filtered pandas DataFrame (non-default index) still aligns by position
    df = pd.DataFrame({"x": [0.1, 0.2], "sex": ["f", "m"], "age": [1, 0]})
    sub = pd.concat([df, df]).iloc[[3, 0]]
    assert select_sensitive(sub, "sex")["sex"].tolist() == ["m", "f"]


@pytest.mark.parametrize(
    ("X", "spec", "error", "match"),
    [
        (pd.DataFrame({"a": [1]}), "b", ValueError, "not found in X"),
        (np.zeros((2, 2)), "sex", ValueError, SPEC_NAME_ON_ARRAY_ERROR[-60:-30]),
        (np.zeros((2, 2)), 5, IndexError, "out of range"),
        (np.zeros((2, 2)), [], ValueError, "at least one column"),
        (np.zeros((2, 2)), None, ValueError, SPEC_NONE_ERROR[:30]),
        (np.zeros((2, 2)), 1.5, TypeError, "sensitive must be"),
        (np.zeros((2, 2)), True, TypeError, "sensitive must be"),
    ],
)
def test_spec_errors(X, spec, error, match):
    with pytest.raises(error, match=match.replace("(", r"\(").replace(")", r"\)")):
        select_sensitive(X, spec)


# ----------------------------------------------------------------------------
# Issue 10: small groups (item 2), continuous attributes (item 1), speed of
# string encoding (item 14), Grouping equality (item 12); issue 11: privileged.


@pytest.mark.filterwarnings("error::skfair.utils.SmallGroupWarning")
def test_small_group_warning_names_groups_and_sizes():
    labels = ["a"] * 40 + ["b"] * 29 + ["c"] * 2
    with pytest.warns(SmallGroupWarning, match=r"2 group\(s\) with fewer than 30") as w:
        sensitive_groupings(labels)
    assert "'c' (2 samples), 'b' (29 samples)" in str(w[0].message)
    assert "{groups}" in SMALL_GROUP_WARNING and SMALL_GROUP_SIZE == 30
    sensitive_groupings(labels, min_group_size=1)  # silent: keeps every group
    sensitive_groupings(["a"] * 30 + ["b"] * 30)  # silent: no small group


def test_min_group_size_leaves_small_groups_out():
    labels = np.array(["a"] * 40 + ["c"] * 2 + ["b"] * 31)
    (g,) = sensitive_groupings(labels, min_group_size=30)
    assert g.labels == ("a", "b") and g.n_left_out == 2
    np.testing.assert_array_equal(g.kept, labels != "c")
    assert (g.codes[labels == "c"] == -1).all()
    assert [g.labels[c] for c in g.codes[g.kept]] == labels[labels != "c"].tolist()
    np.testing.assert_array_equal(g.counts(), [40, 31])
    with pytest.raises(ValueError, match="at least two groups"):
        sensitive_groupings(labels, min_group_size=35)
    frame = pd.DataFrame({"s": labels, "t": ["x"] * 36 + ["y"] * 37})
    s_only, t_only = sensitive_groupings(frame, min_group_size=3, combine="marginal")
    assert s_only.labels == ("a", "b") and t_only.n_left_out == 0
    for bad in (0, -1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="min_group_size must be None"):
            sensitive_groupings(labels, min_group_size=bad)
    assert "{value!r}" in MIN_GROUP_SIZE_ERROR


@pytest.mark.filterwarnings("error::skfair.utils.SmallGroupWarning")
def test_min_group_size_on_intersections(constructor):
    frame = constructor(
        {"sex": ["f"] * 50 + ["m"] * 52, "race": ["w"] * 100 + ["b"] * 2}
    )
    (g,) = sensitive_groupings(frame, min_group_size=30)
    assert g.labels == (("f", "w"), ("m", "w"))
    assert g.n_left_out == 2 and not g.kept[-2:].any()


def test_grouping_and_attributes_compare_by_identity():
    attrs = check_sensitive_features(["a", "b"])
    g = attrs.attribute(0)
    other = attrs.attribute(0)
    assert g == g and g != other and len({g, other}) == 2
    assert attrs == attrs and hash(attrs) == hash(attrs)


@pytest.mark.parametrize(
    "column",
    [
        np.random.default_rng(0).uniform(18, 90, 1000),  # age as float
        np.random.default_rng(0).integers(18, 90, 1000),  # age in years
        pd.Series(np.random.default_rng(0).integers(18, 90, 1000), name="age"),
        [f"id{i}" for i in range(300)],  # one group per person
    ],
)
def test_continuous_attribute_is_refused(column):
    with pytest.raises(ValueError, match=r"looks continuous.*pd\.cut.*pd\.qcut"):
        check_sensitive_features(column)
    assert "{n_groups}" in CONTINUOUS_SENSITIVE_ERROR


def test_errors_and_warnings_carry_their_facts():
    # a caller words them its own way (the CLI) without parsing the message
    with pytest.raises(ContinuousSensitiveError) as info:
        check_sensitive_features(pd.Series(np.arange(200.0), name="age"))
    error = info.value
    assert isinstance(error, ValueError)
    assert (error.name, error.n_groups, error.n_samples) == ("age", 200, 200)
    again = pickle.loads(pickle.dumps(error))  # from a joblib worker
    assert (again.name, again.n_groups, str(again)) == ("age", 200, str(error))
    groups = pd.DataFrame({"sex": ["f"] * 40 + ["m"] * 3 + [1] * 2, "k": 2})
    with pytest.warns(SmallGroupWarning) as caught:
        sensitive_groupings(groups)
    warning = caught[0].message
    assert warning.name == "sex & k" and warning.threshold == SMALL_GROUP_SIZE
    assert warning.groups == (((1, 2), 2), (("m", 2), 3))  # smallest first
    again = pickle.loads(pickle.dumps(warning))
    assert again.groups == warning.groups and str(again) == str(warning)


def test_continuous_rule_bounds():
    # 50 numeric groups pass; 51 do not. Strings need small groups too.
    check_sensitive_features(np.repeat(np.arange(50), 2))
    with pytest.raises(ValueError, match="looks continuous"):
        check_sensitive_features(np.repeat(np.arange(51), 20))
    check_sensitive_features(np.repeat([f"c{i}" for i in range(60)], 5))
    # Declared categories are groups, however many.
    ages = pd.Series(np.arange(1000) % 70).astype("category")
    assert check_sensitive_features(ages).categories[0][:2] == (0, 1)
    binned = pd.cut(pd.Series(np.arange(1000) % 70), bins=[-1, 25, 45, 70])
    assert check_sensitive_features(binned).codes.max() == 2


def test_pairwise_engine_reads_each_pair_only():
    # 40 groups: the pair gaps come from per-group positions, and equal the
    # two-group computation on the pair's samples alone.
    from skfair.metrics import mcdp

    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(40), 30)
    y = rng.random(groups.size)
    got = mcdp(None, y, sensitive_features=groups, agg="mean")
    pairs = [
        mcdp(
            None,
            y[(groups == a) | (groups == b)],
            sensitive_features=groups[(groups == a) | (groups == b)],
        )
        for a in range(40)
        for b in range(a + 1, 40)
    ]
    assert got == pytest.approx(np.mean(pairs), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        # no lone surrogates: pandas' Arrow-backed str dtype cannot hold them
        st.text(
            st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"]),
            max_size=4,
        ),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(["list", "U", "series", "object"]),
)
def test_string_encoding_matches_sorted_factorisation(values, kind):
    column = {
        "list": lambda: values,
        "U": lambda: np.array(values, dtype=str),
        "series": lambda: pd.Series(values, dtype="str"),
        "object": lambda: np.array(values, dtype=object),
    }[kind]()
    attrs = check_sensitive_features(column)
    expected_labels = tuple(sorted(set(np.array(values, dtype=str).tolist())))
    assert attrs.categories[0] == expected_labels
    assert [expected_labels[c] for c in attrs.codes[:, 0]] == np.array(
        values, dtype=str
    ).tolist()


def test_unicode_hash_collision_falls_back(monkeypatch):
    from skfair.utils import _group_encoding

    # Too long to pack exactly into 64 bits: hashed, then verified.
    labels = np.array(["abcdefghij", "jihgfedcba", "abcdefghij"])
    real = pd.factorize

    def colliding(values, *args, **kwargs):  # every hash collides
        if isinstance(values, np.ndarray) and values.dtype == np.uint64:
            return np.zeros(values.shape[0], dtype=np.intp), values[:1]
        return real(values, *args, **kwargs)

    monkeypatch.setattr(_group_encoding.pd, "factorize", colliding)
    codes, labels_out = _group_encoding._factorize_unicode(labels)
    assert [labels_out[c] for c in codes] == labels.tolist()


def test_resolve_privileged_one_meaning():
    (g,) = sensitive_groupings(["f", "m", "m", "x"], min_group_size=1)
    assert resolve_privileged("m", g) == 1
    assert resolve_privileged(None, g) == 1  # most frequent
    (tie,) = sensitive_groupings(["b", "a"], min_group_size=1)
    assert resolve_privileged(None, tie) == 0  # ties: first in sorted order
    frame = pd.DataFrame({"s": ["f", "m"], "r": [1, 2]})
    (inter,) = sensitive_groupings(frame, min_group_size=1)
    assert resolve_privileged(("m", 2), inter) == 1
    assert resolve_privileged(("m", np.int64(2)), inter) == 1
    with pytest.raises(ValueError, match=r"privileged='z' is not a group"):
        resolve_privileged("z", g)
    assert privileged_by_column({"r": 2, "s": "m"}, ["s", "r"]) == ["m", 2]
    assert privileged_by_column({0: "m"}, np.int64(0)) == ["m"]
    assert privileged_by_column(None, ["s", "r"]) == [None, None]
    with pytest.raises(ValueError, match="exactly the sensitive columns"):
        privileged_by_column({"s": "m"}, ["s", "r"])
    with pytest.raises(TypeError, match="single value when there is one"):
        privileged_by_column("m", ["s", "r"])


def test_select_sensitive_keeps_the_index_of_X():
    X = pd.DataFrame({"a": [1, 2], "s": ["f", "m"]}, index=[10, 3])
    assert select_sensitive(X, "s").index.tolist() == [10, 3]


# pandas 2.2's StringDtype has no `na_value` (its missing value is always pd.NA);
# pandas >= 2.3 also builds the NaN-valued `str` dtype of pandas 3 from it.
_PYTHON_STRING_DTYPES = [pd.StringDtype("python")]
if "na_value" in pd.StringDtype.__init__.__code__.co_varnames:
    _PYTHON_STRING_DTYPES.append(pd.StringDtype("python", np.nan))


@pytest.mark.parametrize("dtype", _PYTHON_STRING_DTYPES, ids=str)
def test_python_backed_strings_need_no_pyarrow(monkeypatch, dtype):
    # pandas without pyarrow stores `str` columns in Python objects; encoding
    # them must not import pyarrow (the README's plain install has none)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    column = pd.Series(["m", "f", "m"], dtype=dtype)
    attrs = check_sensitive_features(column)
    assert attrs.categories == (("f", "m"),)
    assert attrs.codes[:, 0].tolist() == [1, 0, 1]


@pytest.mark.parametrize(
    ("column", "categories"),
    [
        (np.array([True, True]), ((True,),)),
        (np.array([False, False]), ((False,),)),
        (np.array([10**12, -5, 10**12]), ((-5, 10**12),)),  # too sparse for a table
    ],
)
def test_one_encoding_per_dtype(column, categories):
    attrs = check_sensitive_features(column)
    assert attrs.categories == categories
    assert [type(label) for label in attrs.categories[0]] == [
        type(label) for label in categories[0]
    ]


def test_arrow_columns_follow_the_numpy_rules():
    with pytest.raises(ValueError, match="missing value.*position 1"):
        check_sensitive_features(pd.Series(["a", None, "b"], dtype="str"))
    pytest.importorskip("pyarrow")
    ints = pd.Series([2, 1, 2], dtype="int64[pyarrow]")
    assert check_sensitive_features(ints).categories == ((1, 2),)
    ages = pd.Series(np.arange(60).repeat(20), dtype="int64[pyarrow]")
    with pytest.raises(ValueError, match="looks continuous"):
        check_sensitive_features(ages)  # numeric, as with a NumPy int column


def test_privileged_keys_are_exactly_the_columns():
    with pytest.raises(ValueError, match="exactly the sensitive columns"):
        privileged_by_column({"s": "m", "r": 2}, ["s", "s"])
    with pytest.raises(ValueError, match="exactly the sensitive columns"):
        privileged_by_column({True: "m"}, 1)  # a bool is no column index
    assert privileged_by_column({"0": "a", 0: "b"}, [0, "0"]) == ["b", "a"]


# ----------------------------------------------------------------------------
# Found by users: a bare Categorical read like its Series; nested columns.


@pytest.mark.parametrize(
    "wrap",
    [
        lambda cat: cat,
        pd.Series,
        pd.CategoricalIndex,
        lambda cat: pd.DataFrame({"sensitive_features": cat}),
    ],
    ids=["Categorical", "Series", "CategoricalIndex", "DataFrame"],
)
def test_bare_categorical_is_read_like_its_series(wrap):
    # the category order is kept, and an unused category is refused, as the
    # Series path documents (a declared group with no samples)
    used = pd.Categorical(["a", "b", "a"], categories=["b", "a"])
    attrs = check_sensitive_features(wrap(used))
    assert attrs.categories == (("b", "a"),)
    assert attrs.codes[:, 0].tolist() == [1, 0, 1]
    unused = pd.Categorical(["a", "b", "a"], categories=["b", "a", "z"])
    message = EMPTY_GROUP_ERROR.format(labels=["z"], name="sensitive_features")
    with pytest.raises(ValueError) as caught:
        check_sensitive_features(wrap(unused))
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("column", "dtype"),
    [
        ([{"a": 1}, {"a": 2}, {"a": 1}], "Struct({'a': Int64})"),
        ([[1], [2], [1]], "List(Int64)"),
    ],
    ids=["Struct", "List"],
)
def test_nested_polars_columns_are_refused_by_name_and_dtype(column, dtype):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"x": [0.1, 0.2, 0.3], "grp": column})
    cases = [
        ("sensitive_features", lambda: check_sensitive_features(frame["grp"])),
        ("sensitive_features", lambda: check_sensitive_features(frame[["grp"]])),
        ("X", lambda: select_sensitive(frame, "grp")),
    ]
    for what, call in cases:
        with pytest.raises(TypeError) as caught:
            call()
        expected = NESTED_COLUMN_ERROR.format(what=what, name="grp", dtype=dtype)
        assert str(caught.value) == expected


def test_unhashable_pandas_labels_are_refused_by_name():
    column = pd.Series([[1], [2], [1]], name="grp")
    with pytest.raises(TypeError) as caught:
        check_sensitive_features(column)
    expected = UNHASHABLE_LABEL_ERROR.format(
        name="grp", dtype="object (a list per sample)"
    )
    assert str(caught.value) == expected
