"""The documentation covers the public API, and the README's example runs."""

import ast
import doctest
import importlib
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SUBPACKAGES = [
    "skfair.datasets",
    "skfair.ensemble",
    "skfair.inprocessing",
    "skfair.metrics",
    "skfair.model_selection",
    "skfair.plotting",
    "skfair.postprocessing",
    "skfair.report",
    "skfair.utils",
]
API_PAGES = sorted((ROOT / "docs" / "api").glob("*.rst"))


def _api_page_names():
    """``{module: {names}}`` listed in autosummary blocks of the API pages."""
    listed, module, in_summary = {}, None, False
    lines = [line for page in API_PAGES for line in page.read_text().splitlines()]
    for line in lines:
        match = re.match(r"\.\. currentmodule:: (\S+)", line)
        if match:
            module = match.group(1)
            continue
        if line.startswith(".. autosummary::"):
            in_summary = True
            continue
        if in_summary:
            name = line.strip()
            if not line.startswith("   ") and name:
                in_summary = False
            elif name and not name.startswith(":"):
                listed.setdefault(module, set()).add(name)
    return listed


def _public(module_name):
    module = importlib.import_module(module_name)
    return [(name, getattr(module, name)) for name in module.__all__]


@pytest.mark.parametrize("module_name", SUBPACKAGES)
def test_every_public_name_has_an_api_page(module_name):
    listed = _api_page_names().get(module_name, set())
    assert listed == set(importlib.import_module(module_name).__all__)


def test_api_reference_has_one_page_per_subpackage_in_layer_order():
    index = (ROOT / "docs" / "api.rst").read_text()
    pages = re.findall(r"^   api/(\w+)$", index, flags=re.M)
    assert sorted(pages) == sorted(m.split(".")[1] for m in SUBPACKAGES)
    assert {p.stem for p in API_PAGES} == set(pages)
    # one section per subpackage on the index page, in the toctree's order
    sections = re.findall(r"^:mod:`skfair\.(\w+)`\n-+$", index, flags=re.M)
    assert sections == pages
    for page in API_PAGES:  # each page documents its own module only
        modules = set(re.findall(r"currentmodule:: (\S+)", page.read_text()))
        assert modules == {f"skfair.{page.stem}"}


def test_user_guide_resample_numbers_are_the_code_s():
    from skfair.report._common import auto_resamples

    text = (ROOT / "docs" / "user_guide" / "uncertainty_and_audit.rst").read_text()
    text = " ".join(text.split())
    found = re.search(
        r"number of bootstrap resamples is (\d+) up to ([\d ]+) samples, then "
        r"about :math:`(\d+) \\cdot 10\^(\d+) / n` \(at least (\d+)\)",
        text,
    )
    assert found, "the guide states the audit's default number of resamples"
    full, up_to, mantissa, exponent, floor = found.groups()
    full, up_to, floor = int(full), int(up_to.replace(" ", "")), int(floor)
    budget = int(mantissa) * 10 ** int(exponent)
    assert auto_resamples(up_to) == full
    assert auto_resamples(up_to + 1) < full
    assert auto_resamples(10**12) == floor
    for n in (200_000, 300_000):  # "about budget / n": 1 % and rounding down
        assert abs(auto_resamples(n) - budget / n) <= 0.01 * budget / n + 1


@pytest.mark.parametrize("module_name", SUBPACKAGES)
def test_every_public_docstring_has_runnable_examples(module_name):
    missing = []
    for name, obj in _public(module_name):
        doc = inspect.getdoc(obj) or ""
        if not (inspect.isclass(obj) or inspect.isfunction(obj) or callable(obj)):
            continue
        examples = doc.split("Examples\n--------", 1)
        if len(examples) != 2 or ">>>" not in examples[1]:
            missing.append(name)
    assert not missing, f"no Examples section with a doctest: {missing}"


def test_subpackages_are_reachable_lazily():
    import skfair

    for module_name in SUBPACKAGES:
        short = module_name.split(".")[1]
        assert getattr(skfair, short) is importlib.import_module(module_name)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        skfair.nope  # noqa: B018


def _readme_taste():
    text = (ROOT / "README.md").read_text()
    section = text.split("## A taste", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```pycon\n(.*?)```", section, flags=re.S)
    assert blocks, "the README's 'A taste' section has a pycon example"
    return "\n".join(blocks)


def test_readme_taste_runs_as_a_doctest():
    parser = doctest.DocTestParser()
    test = parser.get_doctest(_readme_taste(), {}, "README", "README.md", 0)
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    runner = doctest.DocTestRunner(optionflags=flags)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0


def test_import_skfair_is_cheap():
    import subprocess
    import sys

    code = (
        "import sys, skfair; "
        "print(sorted(m for m in ('sklearn', 'pandas', 'scipy', 'skfair.metrics', "
        "'matplotlib', 'dask', 'lightgbm') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "script",
    sorted((ROOT / "examples").glob("*.py")),
    ids=lambda p: p.name,
)
def test_examples_have_a_gallery_title(script):
    # sphinx-gallery needs a docstring that opens with a title underlined by
    # "="; an underline shorter than the title fails the -W documentation build.
    tree = ast.parse(script.read_text())
    lines = (ast.get_docstring(tree, clean=False) or "").splitlines()
    assert len(lines) >= 2, f"{script.name} has no docstring title"
    title, underline = lines[0], lines[1]
    assert title.strip(), f"{script.name}: the docstring opens with a blank line"
    assert set(underline) == {"="}, f"{script.name}: no '=' under {title!r}"
    assert len(underline) >= len(title), f"{script.name}: short underline"


def test_user_guide_pages_are_in_the_toctree():
    guide = ROOT / "docs" / "user_guide"
    index = (guide / "index.rst").read_text()
    listed = set(re.findall(r"^   (\w+)$", index, flags=re.M))
    pages = {p.stem for p in guide.glob("*.rst")} - {"index"}
    assert listed == pages
