"""Pass 2 of the lazy engine: both shapes of its grouping ship the same points.

``candidate_points`` groups the rows of the candidate bins either by score
alone, with a count (and a weight) per distinct sensitive row ("pivot",
the default for a few keys: a few times less memory in the engine when
groups share scores), or by (sensitive row, score) ("pairs"). On hypothesis
inputs with ties, weights, one or two attributes and any set of needed
bins, both give the same distinct (row, score) pairs, counts and weights,
in the same order; the metrics then agree with the in-memory ones through
either shape.
"""

import numpy as np
import pandas as pd
import pytest
from _frames import frame_on, make_rows
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import skfair.metrics as M
from skfair.metrics import _lazy
from skfair.metrics._lazy import _passes
from skfair.metrics._lazy._frame import LazyColumns

pytest.importorskip("duckdb")
pytestmark = pytest.mark.filterwarnings(
    # narwhals announces that its Dask backend moves to a plugin package
    "ignore:Dask support is moving out of Narwhals:FutureWarning",
)

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
rows = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "n": st.integers(1, 300),
        "n_groups": st.integers(1, 4),
        "decimals": st.sampled_from([1, 2, 3, None]),
        "weights": st.sampled_from([None, "int", "float"]),
        "sens": st.sampled_from(["g", ["g", "h"], ["h", "g"]]),
        "needed": st.sampled_from(["all", "random", "none", "last"]),
    }
)


def _needed(kind, spec, seed):
    nb = spec["n_bins"] + 1
    if kind == "all":
        return np.ones(nb, dtype=bool)
    if kind == "none":
        return np.zeros(nb, dtype=bool)
    needed = np.zeros(nb, dtype=bool)
    if kind == "last":  # the score 1 alone in the unit grid's last bin
        needed[-1] = True
        return needed
    return np.random.default_rng(seed).random(nb) < 0.3


@pytest.mark.parametrize("engine", ["duckdb", "polars-lazy", "pandas", "dask"])
@SETTINGS
@given(data=rows)
def test_pivot_and_pairs_ship_the_same_points(engine, duckdb_connection, data):
    df = make_rows(
        data["seed"], data["n"], data["n_groups"], data["decimals"], data["weights"]
    )
    if data["n"] > 5:
        df.loc[df.index[:3], "score"] = 1.0  # the unit grid's last bin
    weight = "w" if "w" in df else None
    columns = LazyColumns(
        frame_on(engine, df, duckdb_connection), "score", data["sens"], weight
    )
    spec = _passes.grid_for(0.0, 1.0, ["hist"])
    summary = _passes.histogram(columns, spec)
    needed = _needed(data["needed"], spec, data["seed"])
    pivot = _passes.candidate_points(columns, spec, needed, summary, shape="pivot")
    pairs = _passes.candidate_points(columns, spec, needed, summary, shape="pairs")
    for found, expected in zip(pivot[:3], pairs[:3]):
        assert found.dtype == expected.dtype
        np.testing.assert_array_equal(found, expected)
    assert (pivot[3] is None) == (weight is None)
    if weight is not None:  # the same rows' weights, summed in another order
        np.testing.assert_allclose(pivot[3], pairs[3], rtol=1e-13, atol=0)
    # the points are the distinct (row, score) pairs of the needed bins
    sens = [data["sens"]] if isinstance(data["sens"], str) else data["sens"]
    inside = df[needed[_passes.bins_of(df["score"].to_numpy(), spec)]]
    distinct = inside.groupby([*sens, "score"]).size()
    assert pivot[0].size == len(distinct) == int(np.count_nonzero(pivot[2]))
    assert int(pivot[2].sum()) == len(inside)


def test_many_keys_take_the_pairs_shape(duckdb_connection, monkeypatch):
    """More keys than MAX_PIVOT_KEYS group by (row, score); values as in memory."""
    df = make_rows(seed=5, n=2000, n_groups=4, decimals=2, weights=None)
    df["g"] = np.random.default_rng(5).integers(0, _passes.MAX_PIVOT_KEYS + 3, len(df))
    shapes = []
    original = _passes.candidate_points

    def spy(columns, spec, needed, summary, shape=None):
        shapes.append(len(summary["keys"]) <= _passes.MAX_PIVOT_KEYS)
        return original(columns, spec, needed, summary, shape)

    monkeypatch.setattr(_lazy._mcdp, "candidate_points", spy)
    frame = duckdb_connection.from_df(df)
    for epsilon in (0.0, 0.05):
        expected = M.mcdp(
            None, df["score"], sensitive_features=df["g"], epsilon=epsilon
        )
        found = _lazy.mcdp(
            frame, None, "score", sensitive_features="g", epsilon=epsilon
        )
        assert found == expected
    assert shapes == [False, False]
    small = df.assign(g=df["g"] % 3)
    expected = M.mcdp(None, small["score"], sensitive_features=small["g"], epsilon=0.05)
    found = _lazy.mcdp(
        duckdb_connection.from_df(small),
        None,
        "score",
        sensitive_features="g",
        epsilon=0.05,
    )
    assert found == expected
    assert shapes == [False, False, True]


@pytest.mark.parametrize("rows", [10, 1_000, 10**6])
@pytest.mark.parametrize("values", [3.0, 500.0, 1e5, 1e9])
def test_distinct_values_inverts_the_occupancy(rows, values):
    distinct = _passes._occupied(values, rows)
    found = _passes._distinct_values(rows, distinct)
    assert found == pytest.approx(values, rel=1e-6)
    assert _passes._distinct_values(rows, rows) == np.inf


@pytest.mark.parametrize(
    ("decimals", "scale", "expected"),
    [(3, 1, "pivot"), (6, 1, "pairs"), (6, 10**4, "pivot"), (None, 10**4, "pairs")],
)
def test_the_shape_follows_the_ties(duckdb_connection, decimals, scale, expected):
    """Groups sharing scores take the pivot; scores that never tie, the pairs.

    ``scale`` stands for data that many times larger (pass 1's counts
    multiplied): a millionth's grid ties only at scale.
    """
    rng = np.random.default_rng(3)
    n = 300_000
    score = rng.random(n)
    if decimals is not None:
        score = np.round(score, decimals)
    df = pd.DataFrame({"score": score, "g": rng.integers(0, 8, n)})
    columns = LazyColumns(duckdb_connection.from_df(df), "score", "g")
    spec = _passes.grid_for(0.0, 1.0, ["hist"])
    summary = _passes.histogram(columns, spec)
    needed = np.ones(spec["n_bins"] + 1, dtype=bool)
    runs = _passes.bin_runs(needed)
    frame = columns.frame.filter(_passes._score_filter("score", spec, runs))
    sizes = summary["arrays"]["hist"][0].sum(axis=1) * scale
    assert _passes.pass2_shape(columns, frame, sizes) == expected
