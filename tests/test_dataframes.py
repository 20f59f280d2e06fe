"""Any dataframe (issue 20): pandas, pyarrow-backed pandas and polars alike.

Every test builds the same data with the ``constructor`` fixture
(``tests/conftest.py``) and compares skfair's answer with the one on the
NumPy-backed pandas frame: the same groups, scores, predictions and tables.
"""

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline

from skfair.ensemble import AdaFairClassifier, FairGBMClassifier
from skfair.inprocessing import FairLGBMClassifier, FairMLPClassifier
from skfair.metrics import (
    discriminative_risk,
    hfm,
    make_abcc_scorer,
    make_abpc_scorer,
    make_delta_dp_scorer,
    make_hfm_scorer,
    make_mcdp_scorer,
    mcdp,
)
from skfair.model_selection import compare_estimators, make_hfm_encoder
from skfair.postprocessing import ThresholdInvariantClassifier
from skfair.utils import check_sensitive_features, drop_sensitive, select_sensitive
from skfair.utils._dataframe import (
    LAZY_FRAME_ERROR,
    describe,
    replace_column,
    to_pandas,
)

N = 360


def _columns(n=N, seed=0):
    """Features ``x``, ``z``; groups ``sex`` (strings) and ``race`` (categorical)."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["f", "m"], n)
    race = pd.Categorical(rng.choice(["a", "b", "c"], n), categories=["c", "a", "b"])
    x = np.round(rng.normal(size=n) + (sex == "m"), 2)
    z = rng.integers(0, 5, n)
    y = (x + rng.normal(size=n) > 0.5).astype(int)
    return {"x": x, "z": z, "sex": sex, "race": race}, y


@pytest.fixture
def data(constructor):
    """``(frame, reference pandas frame, y)`` of the same data."""
    columns, y = _columns()
    return constructor(columns), pd.DataFrame(columns), y


def _same_attributes(got, expected):
    assert got.names == expected.names
    assert got.categories == expected.categories
    np.testing.assert_array_equal(got.codes, expected.codes)


def _model(sensitive=("sex", "race")):
    drop = make_column_transformer(("drop", list(sensitive)), remainder="passthrough")
    return make_pipeline(drop, LogisticRegression())


# ----------------------------------------------------------------------------
# The resolver


@pytest.mark.parametrize("spec", ["sex", "race", ["sex", "race"], ["z", "sex"]])
def test_sensitive_columns_are_read_alike(data, spec):
    frame, reference, _ = data
    got = select_sensitive(frame, spec)
    assert isinstance(got, pd.DataFrame)
    assert list(got.columns) == list(
        reference[spec if isinstance(spec, list) else [spec]]
    )
    _same_attributes(
        check_sensitive_features(got),
        check_sensitive_features(select_sensitive(reference, spec)),
    )


def test_series_and_frames_are_sensitive_features(data):
    frame, reference, _ = data
    for name in ("sex", "race", "z"):
        _same_attributes(
            check_sensitive_features(frame[name]),
            check_sensitive_features(reference[name]),
        )
    _same_attributes(
        check_sensitive_features(frame[["sex", "race"]]),
        check_sensitive_features(reference[["sex", "race"]]),
    )


def test_a_declared_category_keeps_its_order(data):
    frame, _, _ = data
    attributes = check_sensitive_features(frame["race"])
    assert attributes.categories == (("c", "a", "b"),)


def test_drop_sensitive_keeps_the_library(data):
    frame, _, _ = data
    rest = drop_sensitive(frame, ["sex", "race"])
    assert type(rest) is type(frame)
    assert list(rest.columns) == ["x", "z"]


def test_a_missing_column_is_named_with_the_real_type(data):
    frame, _, _ = data
    library = "polars" if type(frame).__module__.startswith("polars") else "pandas"
    expected = (
        f"sensitive column(s) ['age'] not found in X; X is a {library} "
        f"DataFrame with columns ['x', 'z', 'sex', 'race']."
    )
    with pytest.raises(ValueError, match=re.escape(expected)):
        select_sensitive(frame, "age")
    assert describe(frame) == (
        f"a {library} DataFrame with columns ['x', 'z', 'sex', 'race']"
    )


def test_a_name_on_an_array_names_the_array():
    with pytest.raises(ValueError, match=r"X is a numpy ndarray of shape \(2, 3\)"):
        select_sensitive(np.zeros((2, 3)), "sex")


def test_a_lazy_frame_is_refused_with_a_clear_error():
    pl = pytest.importorskip("polars")
    lazy = pl.DataFrame({"x": [1.0, 2.0], "sex": ["f", "m"]}).lazy()
    message = LAZY_FRAME_ERROR.format(
        what="X", library="polars", kind="polars.LazyFrame"
    )
    with pytest.raises(TypeError, match=re.escape(message)):
        select_sensitive(lazy, "sex")
    with pytest.raises(TypeError, match="sensitive_features is a lazy polars"):
        check_sensitive_features(lazy)
    with pytest.raises(TypeError, match="lazy polars frame"):
        FairMLPClassifier(sensitive="sex").fit(lazy, [0, 1])
    with pytest.raises(TypeError, match="lazy polars frame"):
        ThresholdInvariantClassifier(_model(), sensitive="sex").fit(lazy, [0, 1])


def test_to_pandas_of_polars_types():
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(
        {
            "e": pl.Series(["x", None, "x"], dtype=pl.Enum(["y", "x", "z"])),
            "c": pl.Series(["q", "r", "q"], dtype=pl.Categorical),
            "i": [1, None, 3],
            "b": [True, False, True],
        }
    )
    out = to_pandas(frame)
    assert out["e"].cat.categories.tolist() == ["y", "x", "z"]
    assert out["e"].isna().tolist() == [False, True, False]
    assert out["c"].cat.categories.tolist() == ["q", "r"]
    assert out["i"].dtype == np.float64 and np.isnan(out["i"][1])
    assert out["b"].dtype == bool
    with pytest.raises(ValueError, match="missing value"):
        check_sensitive_features(frame["e"])


def test_metric_functions_take_frame_columns(data):
    frame, reference, y = data
    score = np.linspace(0, 1, N)
    for spec in ("sex", ["sex", "race"]):
        assert mcdp(y, score, sensitive_features=frame[spec]) == mcdp(
            y, score, sensitive_features=reference[spec]
        )


# ----------------------------------------------------------------------------
# Scorers, HFM, discriminative risk, the comparison harness

SCORERS = [
    make_mcdp_scorer(sensitive="sex", response_method="predict_proba"),
    make_abcc_scorer(sensitive=["sex", "race"], response_method="predict_proba"),
    make_abpc_scorer(sensitive="race", n_points=500),
    make_delta_dp_scorer(sensitive="sex", response_method="predict_proba"),
    make_hfm_scorer(sensitive=["sex", "race"]),
    make_hfm_scorer(sensitive="sex", transform=make_hfm_encoder(["sex", "race"])),
]


@pytest.mark.parametrize("scorer", SCORERS, ids=lambda s: repr(s)[:40])
def test_scorers_give_the_same_values(data, scorer):
    frame, reference, y = data
    expected = scorer(_model().fit(reference, y), reference, y)
    assert scorer(_model().fit(frame, y), frame, y) == expected


def test_a_scorer_in_cross_validation(data):
    frame, reference, y = data
    scorer = make_mcdp_scorer(sensitive="sex", response_method="predict_proba")
    np.testing.assert_array_equal(
        cross_val_score(_model(), frame, y, cv=3, scoring=scorer),
        cross_val_score(_model(), reference, y, cv=3, scoring=scorer),
    )


def test_hfm_on_frames(data):
    frame, reference, y = data
    y_pred = (reference["x"].to_numpy() > 0.4).astype(int)
    got = hfm(frame[["x", "z"]], y, y_pred, sensitive_features=frame["sex"])
    expected = hfm(
        reference[["x", "z"]], y, y_pred, sensitive_features=reference["sex"]
    )
    assert (got.df_prev, got.df, got.df_avg) == (
        expected.df_prev,
        expected.df,
        expected.df_avg,
    )
    with pytest.raises(TypeError, match="non-numeric columns 'sex'"):
        hfm(frame[["x", "sex"]], y, y_pred, sensitive_features=frame["sex"])


@pytest.mark.parametrize("spec", ["sex", ["sex", "race"]])
def test_discriminative_risk_disturbs_in_the_library_of_X(data, spec):
    frame, reference, y = data
    indicators = {"sex": "m", "race": "a"}
    privileged = {c: indicators[c] for c in ([spec] if isinstance(spec, str) else spec)}
    # a model that sees the groups (as indicators), so that disturbing them
    # changes predictions; it would warn if it were given another library
    encode = make_hfm_encoder(["sex", "race"], privileged=indicators)
    values = [
        discriminative_risk(
            make_pipeline(encode, LogisticRegression()).fit(X, y),
            X,
            sensitive=spec,
            privileged=privileged,
            random_state=0,
        )
        for X in (frame, reference)
    ]
    assert values[0] == values[1] > 0


@pytest.mark.parametrize(
    ("values", "new"),
    [
        ([1, 2, 3], [np.int64(3), 1, 2]),  # labels arrive as NumPy scalars
        ([True, False, True], np.array([False, True, True], dtype=object)),
        ([0.5, 1.5, 2.5], [2.5, 0.5, 1.5]),
        (["a", "b", "c"], np.array(["c", "a", "b"], dtype=object)),
    ],
)
def test_replace_column_keeps_the_library_and_dtype(constructor, values, new):
    # polars refused an object array for a number or boolean column
    # ("cannot cast 'Object' type"), so discriminative_risk failed on it
    frame = constructor({"x": np.array([0.1, 0.2, 0.3]), "s": np.array(values)})
    out = replace_column(frame, 1, new)
    assert type(out) is type(frame)
    got = to_pandas(out)
    reference = to_pandas(frame)
    assert got["s"].tolist() == list(np.asarray(new).tolist())
    assert got.dtypes.tolist() == reference.dtypes.tolist()
    assert to_pandas(frame)["s"].tolist() == list(values)  # the input unchanged


def test_compare_estimators_gives_the_same_table(data):
    frame, reference, y = data
    estimators = {"logreg": _model()}
    kwargs = {"sensitive": "sex", "cv": 2, "random_state": 0, "progress": False}
    got = compare_estimators(estimators, frame, y, **kwargs)
    expected = compare_estimators(estimators, reference, y, **kwargs)
    pd.testing.assert_frame_equal(got, expected)


def test_hfm_encoder_reads_any_frame_and_honours_set_output(data):
    frame, reference, _ = data
    encoder = make_hfm_encoder("sex", privileged={"sex": "m"})
    expected = encoder.fit_transform(reference)
    np.testing.assert_array_equal(encoder.fit_transform(frame), expected)
    pl = pytest.importorskip("polars")
    out = encoder.set_output(transform="polars").fit_transform(frame)
    assert isinstance(out, pl.DataFrame)
    np.testing.assert_array_equal(out.to_numpy(), expected)


def test_hfm_scorer_reads_a_polars_transform_output(data):
    pytest.importorskip("polars")
    frame, reference, y = data
    model = _model().fit(frame, y)
    encoder = make_hfm_encoder(["sex", "race"])
    polars_out = make_hfm_scorer(
        sensitive="sex", transform=encoder.set_output(transform="polars")
    )
    numpy_out = make_hfm_scorer(
        sensitive="sex", transform=make_hfm_encoder(["sex", "race"])
    )
    assert polars_out(model, frame, y) == numpy_out(model, reference, y)


# ----------------------------------------------------------------------------
# Estimators

ALL = ["x", "z", "sex", "race"]
# (estimator, the columns of X): race is a categorical feature for FairGBM,
# a group for FairLGBM and the post-processor, and left out of the others
ESTIMATORS = {
    "FairMLPClassifier": (
        lambda: FairMLPClassifier(
            sensitive="sex", hidden_layer_sizes=(8,), max_iter=5, random_state=0
        ),
        ["x", "z", "sex"],
    ),
    "FairLGBMClassifier": (
        lambda: FairLGBMClassifier(
            sensitive=["sex", "race"], n_estimators=5, random_state=0
        ),
        ALL,
    ),
    "AdaFairClassifier": (
        lambda: AdaFairClassifier(sensitive="sex", n_estimators=5, random_state=0),
        ["x", "z", "sex"],
    ),
    "FairGBMClassifier": (
        lambda: FairGBMClassifier(
            sensitive="sex", n_estimators=5, n_jobs=1, random_state=0
        ),
        ALL,
    ),
    "ThresholdInvariantClassifier": (
        lambda: ThresholdInvariantClassifier(
            _model(), sensitive=["sex", "race"], cv=2, random_state=0
        ),
        ALL,
    ),
}


def test_mcdp_curve_display_names_each_attribute_of_any_frame(data):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from skfair.plotting import MCDPCurveDisplay

    frame, reference, _ = data
    scores = np.linspace(0.0, 1.0, len(reference))
    curves = {}
    for key, sensitive in (("got", frame), ("expected", reference)):
        display = MCDPCurveDisplay.from_predictions(
            None,
            scores,
            sensitive_features=sensitive[["sex", "race"]],
            by_attribute=True,
            min_group_size=1,
        )
        curves[key] = [(k, ln.get_ydata()) for k, ln in display.lines_.items()]
        plt.close(display.figure_)
    assert [name for name, _ in curves["got"]] == ["sex", "race"]
    for (_, got), (_, expected) in zip(curves["got"], curves["expected"]):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_estimators_fit_and_predict_on_any_frame(data, name):
    if name == "FairGBMClassifier":
        pytest.importorskip("fairgbm")
    make, columns = ESTIMATORS[name]
    frame, reference, y = data
    frame, reference = frame[columns], reference[columns]
    fitted = make().fit(frame, y)
    assert fitted.feature_names_in_.tolist() == columns
    expected = make().fit(reference, y)
    np.testing.assert_array_equal(
        fitted.predict_proba(frame), expected.predict_proba(reference)
    )
    np.testing.assert_array_equal(fitted.predict(frame), expected.predict(reference))


# ----------------------------------------------------------------------------
# Optional libraries


def test_skfair_needs_neither_polars_nor_pyarrow(run_without):
    code = """
    import numpy as np, pandas as pd
    import skfair
    from skfair.ensemble import AdaFairClassifier
    from skfair.metrics import make_mcdp_scorer
    from skfair.utils import select_sensitive
    X = pd.DataFrame({"x": np.arange(80.0), "sex": ["f", "m"] * 40})
    assert select_sensitive(X, "sex")["sex"].tolist()[:2] == ["f", "m"]
    AdaFairClassifier(sensitive="sex", n_estimators=2).fit(X, [0, 1] * 40)
    assert "polars" not in sys.modules and "pyarrow" not in sys.modules
    BLOCKED.discard("polars")
    try:
        import polars as pl
    except ImportError:
        raise SystemExit(0)  # no polars here: nothing more to check
    X = pl.DataFrame({
        "x": np.arange(80.0),
        "sex": pl.Series(["f", "m"] * 40, dtype=pl.Enum(["m", "f"])),
    })
    model = AdaFairClassifier(sensitive="sex", n_estimators=2)
    model.fit(X, [0, 1] * 40)
    make_mcdp_scorer(sensitive="sex")(model, X, [0, 1] * 40)
    assert "pyarrow" not in sys.modules  # polars frames need no pyarrow
    """
    result = run_without(code, "polars", "pyarrow")
    assert result.returncode == 0, result.stderr


def test_random_ties_of_a_row_do_not_depend_on_the_other_rows():
    # a polars integer (boolean) column reaches pandas as float (object) when
    # the rows hold a null: the row's tie-breaking number must not change
    from skfair.postprocessing._barycentre import _row_uniforms

    pl = pytest.importorskip("polars")
    X = pl.DataFrame(
        {"n": [1, 2, None], "b": [True, None, False], "x": [0.5, 0.1, 0.2]}
    )
    together = _row_uniforms(X, 7)
    for row in range(3):
        np.testing.assert_array_equal(_row_uniforms(X[row : row + 1], 7), together[row])
