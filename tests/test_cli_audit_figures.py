"""``skfair audit`` without matplotlib says on stderr that figures were skipped."""

import sys

import numpy as np
import pandas as pd

from skfair._cli import main
from skfair.report._common import NO_MATPLOTLIB_NOTE


def test_html_audit_without_matplotlib_says_so_on_stderr(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"proba": rng.random(200), "sex": np.repeat(["a", "b"], 100)})
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    argv = ["audit", "--predictions", str(path), "--score", "proba"]
    argv += ["--sensitive", "sex", "--n-resamples", "19"]
    for name in [m for m in sys.modules if m.split(".")[0] == "matplotlib"]:
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main([*argv, "--output", str(tmp_path / "r.html")]) == 0
    err = capsys.readouterr().err
    assert f"skfair audit: {NO_MATPLOTLIB_NOTE}" in err
    assert 'pip install "skfair-learn[plot]"' in err
    assert (
        "Figures omitted: matplotlib is not installed"
        in (tmp_path / "r.html").read_text()
    )
    # a Markdown report draws no figure: nothing to say
    assert main([*argv, "--output", str(tmp_path / "r.md")]) == 0
    assert NO_MATPLOTLIB_NOTE not in capsys.readouterr().err
