"""The audit's numbers on Dask inputs equal the in-memory audit's (issue 15).

Runs on a small in-process ``distributed.LocalCluster``, as the metric tests.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask", reason="the dask extra is not installed")
distributed = pytest.importorskip("distributed", reason="distributed is not installed")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402

from skfair.metrics._dask._inputs import PARTITION_NON_FINITE_ERROR  # noqa: E402
from skfair.report import audit  # noqa: E402
from skfair.report._common import (  # noqa: E402
    AUDIT_DASK_FIGURES_ERROR,
    AUDIT_DASK_X_ERROR,
    DASK_NOTE,
)
from skfair.utils import SmallGroupWarning  # noqa: E402
from skfair.utils._dask import MIXED_INPUT_ERROR  # noqa: E402
from skfair.utils._validation import NON_BINARY_ERROR  # noqa: E402

FAST = {"n_resamples": 9, "n_permutations": 9}
# exact to the last bit: MCDP and rates; sums of scores (ΔDP_c) and areas
# (ABCC) are added in another order, equal to rounding (as tests/dask/ asks)
EXACT = ["delta_dp@0.5", "mcdp", "mcdp@0.05"]
ROUNDED = ["delta_dp", "abcc"]


# a small in-process cluster for every test here (tests/conftest.py)
pytestmark = pytest.mark.usefixtures("client")


def pre(message):
    """The longest fixed part of a message template, for pytest.raises(match=)."""
    pieces = re.split(r"\{[^}]*\}", message)
    return re.escape(max(pieces, key=len))


@pytest.fixture(scope="module")
def frame():
    """Ties, atoms at 0, 0.5 and 1, three groups, one of them small."""
    rng = np.random.default_rng(0)
    n = 1200
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.44, 0.06])
    h = rng.choice([0, 1], n)
    s = np.round(rng.beta(2 + (g == "b"), 3), 2)
    s[rng.random(n) < 0.03] = 0.0
    s[rng.random(n) < 0.03] = 1.0
    s[rng.random(n) < 0.03] = 0.5
    y = np.where(rng.random(n) < s, "yes", "no")
    out = pd.DataFrame({"s": s, "y": y, "g": g, "h": h})
    # the first third sorted by group: some partitions lack some groups
    head = out.iloc[: n // 3].sort_values("g", kind="stable")
    return pd.concat([head, out.iloc[n // 3 :]], ignore_index=True)


def assert_same_numbers(lazy, eager):
    assert lazy.engine == "dask" and eager.engine == "numpy"
    assert lazy.n_samples == eager.n_samples
    for key in EXACT:  # the public metrics' Dask engines: exact
        assert lazy.metrics.loc[key, "value"] == eager.metrics.loc[key, "value"], key
    for key in ROUNDED:
        assert lazy.metrics.loc[key, "value"] == pytest.approx(
            eager.metrics.loc[key, "value"], rel=1e-10, abs=1e-15
        )
    # per-pair values and the group sizes: the same DKW intervals (the
    # in-memory one takes the pairs' values from its one-sort resampling engine)
    for key in ["mcdp", "mcdp@0.05", "delta_dp", "delta_dp@0.5"]:
        for col in ["dkw_low", "dkw_high"]:
            assert lazy.metrics.loc[key, col] == pytest.approx(
                eager.metrics.loc[key, col], rel=1e-10, abs=1e-15
            )
    # ABCC: the pairs' own values with one pair, else a valid wider interval
    low, high = lazy.metrics.loc["abcc", ["dkw_low", "dkw_high"]]
    e_low, e_high = eager.metrics.loc["abcc", ["dkw_low", "dkw_high"]]
    assert low <= e_low + 1e-10 and high >= e_high - 1e-10
    # sums of scores added in another order: equal to the last few bits
    pd.testing.assert_frame_equal(lazy.groups, eager.groups, rtol=1e-12)
    # the threshold facts come from the same counts: the same headline
    assert lazy.headline.threshold == eager.headline.threshold
    assert lazy.kept_groups == eager.kept_groups
    for eps, res in eager.mcdp_details.items():
        got = lazy.mcdp_details[eps]
        assert (got.value, got.threshold) == (res.value, res.threshold)
        assert (got.attribute, got.groups) == (res.attribute, res.groups)
        if eps == 0.0:
            assert got.window == res.window
        else:  # several windows may attain the maximum; the Dask engine may
            # report another one than the in-memory sweep (same value)
            assert got.window[1] - got.window[0] == pytest.approx(2 * eps)
    assert lazy.left_out == eager.left_out


@pytest.mark.parametrize(
    ("columns", "combine", "labels", "npartitions", "min_group_size"),
    [
        (["g"], "intersection", True, 4, 100),
        (["g", "h"], "intersection", True, 3, 30),
        (["g", "h"], "marginal", False, 5, None),
    ],
)
def test_dask_audit_equals_the_in_memory_audit(
    frame, columns, combine, labels, npartitions, min_group_size
):
    lazy_frame = dd.from_pandas(frame, npartitions=npartitions)
    one = len(columns) == 1
    sens = frame[columns[0]] if one else frame[columns]
    lazy_sens = lazy_frame[columns[0]] if one else lazy_frame[columns]
    options = {"combine": combine, "min_group_size": min_group_size}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SmallGroupWarning)
        eager = audit(
            frame["y"] if labels else None,
            frame["s"],
            sensitive_features=sens,
            pos_label="yes" if labels else None,
            **options,
            **FAST,
        )
        lazy = audit(
            lazy_frame["y"] if labels else None,
            lazy_frame["s"],
            sensitive_features=lazy_sens,
            pos_label="yes" if labels else None,
            **options,
        )
    assert_same_numbers(lazy, eager)
    if min_group_size == 100:
        assert lazy.left_out == [("g", "c", int((frame["g"] == "c").sum()))]


@pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
def test_more_than_fifty_groups():
    # 51 string groups: the Dask audit counts samples, not its distinct rows,
    # and the in-memory resampling keeps them groups (not a numeric column)
    rng = np.random.default_rng(2)
    g = np.repeat([f"g{i:02d}" for i in range(51)], 10)
    frame = pd.DataFrame({"s": rng.random(g.size), "g": g})
    eager = audit(None, frame["s"], sensitive_features=frame["g"], **FAST)
    lazy_frame = dd.from_pandas(frame, npartitions=2)
    lazy = audit(None, lazy_frame["s"], sensitive_features=lazy_frame["g"])
    assert_same_numbers(lazy, eager)


def test_dask_arrays(frame):
    chunks = (100, 500, 600)
    codes = frame["g"].map({"a": 0, "b": 1, "c": 2}).to_numpy()
    y = (frame["y"] == "yes").to_numpy().astype(int)
    eager = audit(
        y, frame["s"].to_numpy(), sensitive_features=codes, min_group_size=1, **FAST
    )
    lazy = audit(
        da.from_array(y, chunks=chunks),
        da.from_array(frame["s"].to_numpy(), chunks=chunks),
        sensitive_features=da.from_array(codes, chunks=chunks),
        min_group_size=1,
    )
    assert_same_numbers(lazy, eager)


def test_what_the_dask_report_leaves_out(frame):
    lazy_frame = dd.from_pandas(frame, npartitions=1)
    report = audit(
        lazy_frame["y"],
        lazy_frame["s"],
        sensitive_features=lazy_frame["h"],
        pos_label="yes",
    )
    eager = audit(
        frame["y"], frame["s"], sensitive_features=frame["h"], pos_label="yes", **FAST
    )
    assert_same_numbers(report, eager)
    assert report.metrics["pvalue"].isna().all()
    # the Dask report's interval is the distribution-free one
    defined = report.metrics.drop(index="abpc")
    assert (defined["interval"] == "dkw").all()
    assert defined["low"].equals(defined["dkw_low"])
    assert np.isnan(report.metrics.loc["abpc", "value"])
    assert report.notes()[0] == DASK_NOTE
    assert report.to_dict()["summary"]["engine"] == "dask"
    page = report.to_html()
    assert "Figures omitted: the data are Dask collections" in page
    assert "<img" not in page and "DKW interval" in page
    assert "no p-value (see the notes)" in report.to_markdown()
    out = report.to_dict()
    assert (
        out["tradeoff"] is None
        and out["headline"]["distribution"]["share_near"] is None
    )
    with pytest.raises(ValueError, match=re.escape(AUDIT_DASK_FIGURES_ERROR)):
        report.figures()


def test_small_groups_warn_once_on_dask(frame):
    lazy_frame = dd.from_pandas(frame.iloc[-300:], npartitions=2)
    with pytest.warns(SmallGroupWarning) as caught:
        audit(None, lazy_frame["s"], sensitive_features=lazy_frame["g"])
    small = [w for w in caught if w.category is SmallGroupWarning]
    assert len(small) == 1
    assert small[0].filename == __file__  # points at the user's call of audit


def test_dask_errors(frame):
    lazy_frame = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match=re.escape(AUDIT_DASK_X_ERROR)):
        audit(
            lazy_frame["y"],
            lazy_frame["s"],
            sensitive_features=lazy_frame["h"],
            X=np.zeros((len(frame), 2)),
        )
    with pytest.raises(TypeError, match=pre(MIXED_INPUT_ERROR)):
        audit(None, lazy_frame["s"], sensitive_features=frame["h"])
    with pytest.raises(ValueError, match=re.escape("must lie in [0, 1] for an audit")):
        audit(None, lazy_frame["s"] * 2, sensitive_features=lazy_frame["h"])
    three = dd.from_pandas(frame.assign(y=np.resize(["no", "yes", "?"], 1200)), 2)
    for pos_label in (None, "yes"):  # as in memory, pos_label or not
        with pytest.raises(ValueError, match=pre(NON_BINARY_ERROR)):
            audit(
                three["y"],
                three["s"],
                sensitive_features=three["h"],
                pos_label=pos_label,
            )
    bad = frame.assign(s=frame["s"].where(frame.index != 900))
    lazy_bad = dd.from_pandas(bad, npartitions=2)
    with pytest.raises(ValueError, match=pre(PARTITION_NON_FINITE_ERROR)):
        audit(None, lazy_bad["s"], sensitive_features=lazy_bad["h"])
