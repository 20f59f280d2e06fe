"""The lazy engine gives the in-memory metrics on every narwhals backend (issue 39).

Hypothesis draws rows with ties (scores rounded to a few decimals, or not),
up to four groups of one attribute crossed with a second, weights (integer
weights: sums exact in any order; real weights) and ``min_group_size``; each
engine's value is compared with the public in-memory function's: bit-equal
for MCDP (every ε, both roundings, domains), ΔDP at a threshold, the
confusion counts and rates without weights (and with integer weights);
to 1e-12 for ABCC, ΔDP_c and everything weighted by real weights. An input
the in-memory function refuses must be refused with the same message.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from _frames import ENGINES, frame_on, make_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.exceptions import UndefinedMetricWarning

import skfair.metrics as M
from skfair.metrics import _lazy
from skfair.metrics._group_counts import compare
from skfair.metrics._rates import group_rates
from skfair.metrics.inference._intervals import summarise_groups
from skfair.utils import SmallGroupWarning, sensitive_groupings

pytest.importorskip("duckdb")
pytestmark = pytest.mark.filterwarnings(
    # narwhals announces that its Dask backend moves to a plugin package
    "ignore:Dask support is moving out of Narwhals:FutureWarning",
)

FAST = ["duckdb", "polars-lazy"]
rows = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "n": st.integers(2, 200),
        "n_groups": st.integers(2, 4),
        "decimals": st.sampled_from([1, 2, 3, None]),
        "weights": st.sampled_from([None, "int", "float"]),
    }
)
options = st.fixed_dictionaries(
    {
        "sens": st.sampled_from(["g", ["g", "h"]]),
        "combine": st.sampled_from(["intersection", "marginal"]),
        "agg": st.sampled_from(["max", "mean"]),
        "min_group_size": st.sampled_from([1, 2, 5]),
    }
)
SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


def both(memory, lazy):
    """The two results, or the same error from both (then None, None)."""
    try:
        expected = memory()
    except ValueError as error:
        message = str(error)
    else:
        return expected, lazy()
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        lazy()
    return None, None


def in_memory_args(df, opts):
    return {
        "sensitive_features": df[opts["sens"]],
        "sample_weight": df.get("w"),
        "min_group_size": opts["min_group_size"],
    }


def lazy_args(df, opts):
    return {
        "sensitive_features": opts["sens"],
        "sample_weight": "w" if "w" in df else None,
        "min_group_size": opts["min_group_size"],
    }


def close(found, expected, df):
    """Bit-equal without real weights (the promise), else to rounding."""
    if "w" in df and not (df["w"] == np.round(df["w"])).all():
        assert found == pytest.approx(expected, rel=1e-12, abs=1e-14)
    else:
        assert found == expected


@pytest.mark.parametrize("engine", FAST)
@SETTINGS
@given(
    data=rows,
    opts=options,
    epsilon=st.sampled_from([0.0, 1e-3, 0.01, 0.05, 0.25, 1.0]),
    rounding=st.sampled_from(["exact", "float"]),
)
def test_mcdp_details_equals_in_memory(
    engine, duckdb_connection, data, opts, epsilon, rounding
):
    df = make_rows(**data)
    frame = frame_on(engine, df, duckdb_connection)
    common = {"epsilon": epsilon, "rounding": rounding, "agg": opts["agg"]}
    common["combine"] = opts["combine"]
    expected, found = both(
        lambda: M.mcdp_details(None, df["score"], **in_memory_args(df, opts), **common),
        lambda: _lazy.mcdp_details(
            frame, None, "score", **lazy_args(df, opts), **common
        ),
    )
    if expected is None:
        return
    close(found.value, expected.value, df)
    if "w" not in df:
        assert found.pair_values == expected.pair_values
        assert (found.attribute, found.groups) == (expected.attribute, expected.groups)
        assert found.threshold == expected.threshold


@pytest.mark.parametrize("engine", FAST)
@SETTINGS
@given(data=rows, opts=options, domain=st.sampled_from([None, (-1.0, 3.0)]))
def test_mcdp_curve_of_real_predictions(engine, duckdb_connection, data, opts, domain):
    df = make_rows(**data)
    df["score"] = df["score"] * 3.0 - 1.0  # outside [0, 1]: the aligned grid
    frame = frame_on(engine, df, duckdb_connection)
    epsilons = [0.0, 0.01, 0.3]
    expected, found = both(
        lambda: M.mcdp_curve(
            None,
            df["score"],
            epsilons=epsilons,
            domain=domain,
            **in_memory_args(df, opts),
        ),
        lambda: _lazy.mcdp_curve(
            frame,
            None,
            "score",
            epsilons=epsilons,
            domain=domain,
            **lazy_args(df, opts),
        ),
    )
    if expected is not None:
        for f, e in zip(found, expected):
            close(f, e, df)


@pytest.mark.parametrize("engine", FAST)
@SETTINGS
@given(data=rows, opts=options, shift=st.sampled_from([0.0, -0.5, 40.0]))
def test_abcc_and_delta_dp_equal_in_memory(
    engine, duckdb_connection, data, opts, shift
):
    df = make_rows(**data)
    df["score"] = df["score"] + shift
    frame = frame_on(engine, df, duckdb_connection)
    common = {"agg": opts["agg"], "combine": opts["combine"]}
    for metric, extra in (
        ("abcc", {}),
        ("delta_dp", {}),
        ("delta_dp", {"threshold": 0.5 + shift}),
    ):
        expected, found = both(
            lambda m=metric, x=extra: getattr(M, m)(
                None, df["score"], **in_memory_args(df, opts), **common, **x
            ),
            lambda m=metric, x=extra: getattr(_lazy, m)(
                frame, None, "score", **lazy_args(df, opts), **common, **x
            ),
        )
        if expected is None:
            continue
        if "threshold" in extra:
            close(found, expected, df)
        else:  # sums in another order
            assert found == pytest.approx(expected, rel=1e-12, abs=1e-13)


NAMES = ["selection_rate", "true_positive_rate", "false_positive_rate", "precision"]


@pytest.mark.parametrize("engine", FAST)
@SETTINGS
@given(data=rows, opts=options)
def test_rates_equal_in_memory(engine, duckdb_connection, data, opts):
    df = make_rows(**data)
    frame = frame_on(engine, df, duckdb_connection)
    memory = in_memory_args(df, opts)
    with warnings.catch_warnings():  # both warn about undefined rates
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        expected, found = both(
            lambda: group_rates(NAMES, df["y"], df["pred"], pos_label=1, **memory),
            lambda: _lazy.group_rates(NAMES, frame, "y", "pred", **lazy_args(df, opts)),
        )
    if expected is None:
        return
    values, overall, grouping = expected
    assert found[2] == grouping.labels
    if "w" in df:
        np.testing.assert_allclose(found[0], values, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(found[1], overall, rtol=1e-12)
    else:
        np.testing.assert_array_equal(found[0], values)
        np.testing.assert_array_equal(found[1], overall)
    for method in ("between_groups", "to_overall"):
        with np.errstate(all="ignore"):
            mine = compare(found[0], found[1], how="difference", method=method)
            theirs = compare(values, overall, how="difference", method=method)
        np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("engine", FAST)
@SETTINGS
@given(data=rows, opts=options)
def test_group_sizes_and_summaries(engine, duckdb_connection, data, opts):
    df = make_rows(**data)
    frame = frame_on(engine, df, duckdb_connection)
    weight = "w" if "w" in df else None
    try:
        groupings = sensitive_groupings(
            df[opts["sens"]],
            combine=opts["combine"],
            min_group_size=opts["min_group_size"],
        )
    except ValueError:
        return
    common = {"combine": opts["combine"], "min_group_size": opts["min_group_size"]}
    sizes = _lazy.group_sizes(
        frame, sensitive_features=opts["sens"], sample_weight=weight, **common
    )
    summaries = _lazy.group_summaries(
        frame,
        "score",
        sensitive_features=opts["sens"],
        sample_weight=weight,
        threshold=0.5,
        **common,
    )
    w = None if weight is None else df["w"].to_numpy()
    for g, (name, labels, n, _, _), (_, _, summary) in zip(groupings, sizes, summaries):
        assert (name, labels) == (g.name, g.labels)
        np.testing.assert_array_equal(n, g.counts())
        ref = summarise_groups(df["score"].to_numpy(), g.codes, w, g.n_groups, 0.5)
        np.testing.assert_array_equal(summary.n, ref.n)
        np.testing.assert_array_equal(summary.positives, ref.positives)
        for field in ("n_eff", "mean", "rate"):
            np.testing.assert_allclose(
                getattr(summary, field), getattr(ref, field), rtol=1e-12
            )
        np.testing.assert_allclose(summary.se2, ref.se2, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_gives_the_in_memory_values(engine, duckdb_connection):
    pytest.importorskip("sqlframe" if engine == "sqlframe" else "narwhals")
    if engine == "dask":
        pytest.importorskip("dask.dataframe")
    df = make_rows(seed=3, n=400, n_groups=3, decimals=2, weights="float")
    frame = frame_on(engine, df, duckdb_connection)
    sens = ["g", "h"]
    for epsilon in (0.0, 0.05):
        expected = M.mcdp_details(
            None,
            df["score"],
            sensitive_features=df[sens],
            epsilon=epsilon,
            min_group_size=1,
        )
        found = _lazy.mcdp_details(
            frame,
            None,
            "score",
            sensitive_features=sens,
            epsilon=epsilon,
            min_group_size=1,
        )
        assert found.value == expected.value
        assert found.pair_values == expected.pair_values
        weighted = _lazy.mcdp(
            frame,
            None,
            "score",
            sensitive_features=sens,
            epsilon=epsilon,
            min_group_size=1,
            sample_weight="w",
        )
        assert weighted == pytest.approx(
            M.mcdp(
                None,
                df["score"],
                sensitive_features=df[sens],
                epsilon=epsilon,
                min_group_size=1,
                sample_weight=df["w"],
            ),
            abs=1e-13,
        )
    assert _lazy.abcc(
        frame, None, "score", sensitive_features=sens, min_group_size=1
    ) == pytest.approx(
        M.abcc(None, df["score"], sensitive_features=df[sens], min_group_size=1),
        rel=1e-12,
    )
    values, overall, _ = _lazy.group_rates(
        NAMES, frame, "y", "pred", sensitive_features=sens, min_group_size=1
    )
    ref, ref_overall, _ = group_rates(
        NAMES,
        df["y"],
        df["pred"],
        sensitive_features=df[sens],
        pos_label=1,
        sample_weight=None,
        min_group_size=1,
    )
    np.testing.assert_array_equal(values, ref)
    np.testing.assert_array_equal(overall, ref_overall)


def test_the_public_rate_differences(duckdb_connection):
    """fairlearn's differences from the engine's rates, as the lead's data= will."""
    df = make_rows(seed=5, n=2000, n_groups=3, decimals=2, weights=None)
    frame = duckdb_connection.from_df(df)
    values, overall, _ = _lazy.group_rates(
        ["selection_rate"],
        frame,
        "y",
        "pred",
        sensitive_features=["g", "h"],
        min_group_size=1,
    )
    (found,) = compare(values, overall, how="difference", method="between_groups")
    assert found == M.demographic_parity_difference(
        df["y"], df["pred"], sensitive_features=df[["g", "h"]], min_group_size=1
    )
    values, overall, _ = _lazy.group_rates(
        ["true_positive_rate", "false_positive_rate"],
        frame,
        "y",
        "pred",
        sensitive_features=["g", "h"],
        min_group_size=1,
    )
    found = compare(values, overall, how="difference", method="between_groups")
    assert float(np.max(found)) == M.equalized_odds_difference(
        df["y"], df["pred"], sensitive_features=df[["g", "h"]], min_group_size=1
    )


def test_small_groups_warn_as_in_memory(duckdb_connection):
    df = make_rows(seed=1, n=50, n_groups=2, decimals=2, weights=None)
    frame = duckdb_connection.from_df(df)
    with pytest.warns(SmallGroupWarning):
        _lazy.mcdp(frame, None, "score", sensitive_features="g")
    found = _lazy.mcdp(frame, None, "score", sensitive_features="g", min_group_size=1)
    assert found == M.mcdp(
        None, df["score"], sensitive_features=df["g"], min_group_size=1
    )


def test_ties_are_collapsed_before_the_running_sums(duckdb_connection):
    """Every score tied: KS counts values, not rows (0 here, not 1/2)."""
    df = pd.DataFrame({"score": [0.5] * 6, "g": [0, 1] * 3})
    frame = duckdb_connection.from_df(df)
    assert (
        _lazy.mcdp(frame, None, "score", sensitive_features="g", min_group_size=1)
        == 0.0
    )
    df = pd.DataFrame({"score": [0.2, 0.2, 0.7, 0.2, 0.7, 0.7], "g": [0] * 3 + [1] * 3})
    frame = duckdb_connection.from_df(df)
    assert _lazy.mcdp(
        frame, None, "score", sensitive_features="g", min_group_size=1
    ) == pytest.approx(1 / 3)


def test_the_warehouse_page_call(duckdb_connection, tmp_path):
    """The user guide's ``mcdp(None, "score", ..., data=lf)``, by the internal entry.

    Until ``data=`` is wired into the public functions, the engine's entry
    point takes the frame first; on a polars LazyFrame and on DuckDB reading
    a Parquet glob it gives the in-memory value bit for bit.
    """
    pl = pytest.importorskip("polars")
    df = make_rows(seed=21, n=3000, n_groups=4, decimals=3, weights=None)
    df = df.rename(columns={"g": "race", "h": "sex"})
    expected = M.mcdp(
        None, df["score"], sensitive_features=df[["sex", "race"]], epsilon=0.05
    )
    lf = pl.from_pandas(df).lazy()
    assert (
        _lazy.mcdp(lf, None, "score", sensitive_features=["sex", "race"], epsilon=0.05)
        == expected
    )
    df.iloc[::2].to_parquet(tmp_path / "part-0.parquet")
    df.iloc[1::2].to_parquet(tmp_path / "part-1.parquet")
    preds = _lazy.scan_files(str(tmp_path / "*.parquet"), connection=duckdb_connection)
    assert (
        _lazy.mcdp(
            preds, None, "score", sensitive_features=["sex", "race"], epsilon=0.05
        )
        == expected
    )
