"""The package's layering (issue 21): imports flow one way, as DESIGN.md says.

``utils <- metrics <- {model_selection, postprocessing, ensemble,
inprocessing} <- plotting <- report <- _cli``; ``datasets`` uses only
``utils``. Within the middle layer a subpackage may use another (the
comparison harness in ``model_selection`` trains the ``ensemble``
estimators) as long as there is no circle. Read from the source (every
``import``, at module level or inside a function), so a lazy import cannot
hide a circle.
"""

import ast
import pathlib

import pytest

import skfair

ROOT = pathlib.Path(skfair.__file__).parent
RANK = {
    "utils": 0,
    "datasets": 1,
    "metrics": 1,
    "model_selection": 2,
    "postprocessing": 2,
    "ensemble": 2,
    "inprocessing": 2,
    "plotting": 3,
    "report": 4,
    "_cli": 5,
    "__main__": 6,
}
# the longest a function may be, in lines of code (its docstring excluded)
MAX_FUNCTION_LINES = 80


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        yield rel, ast.parse(path.read_text(encoding="utf-8"))


def _subpackage(rel):
    return rel.parts[0].removesuffix(".py") if len(rel.parts) > 1 else None


def _imports(rel, tree):
    """(target subpackage, the imported names' modules and names) of each import."""
    package = ["skfair", *rel.parts[:-1]]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            module, names = None, []
            for alias in node.names:
                yield alias.name, []
            continue
        else:
            continue
        yield module, names


def _edges():
    """(importing subpackage, imported subpackage, module, names, file)."""
    out = []
    for rel, tree in _modules():
        source = _subpackage(rel)
        if source is None:
            continue
        for module, names in _imports(rel, tree):
            parts = module.split(".")
            if parts[0] != "skfair":
                continue
            if len(parts) == 1:  # from skfair import x / from .. import x
                targets = [(n, parts + [n]) for n in names]
            else:
                targets = [(parts[1], parts)]
            for target, path in targets:
                if target in RANK and target != source:
                    out.append((source, target, ".".join(path), names, str(rel)))
    return out


EDGES = _edges()


def test_imports_flow_one_way():
    wrong = [
        f"{file}: {source} imports {module}"
        for source, target, module, _, file in EDGES
        if RANK[target] > RANK[source]
        or (RANK[target] == RANK[source] and RANK[source] != 2)
        or (source == "datasets" and target != "utils")
    ]
    assert not wrong, "\n".join(wrong)


def test_no_subpackage_circle():
    graph = {}
    for source, target, *_ in EDGES:
        graph.setdefault(source, set()).add(target)

    def reaches(start, goal, seen=()):
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, (*seen, nxt)))
            for nxt in graph.get(start, ())
        )

    circles = [s for s in graph if reaches(s, s)]
    assert not circles, circles


def test_metrics_never_imports_plotting_or_datasets():
    below_report = {"utils", "metrics", "model_selection", "postprocessing"}
    below_report |= {"ensemble", "inprocessing"}
    wrong = [
        (file, module)
        for source, target, module, _, file in EDGES
        if source in below_report and target in ("plotting", "datasets")
    ]
    assert not wrong


def test_report_uses_no_private_name_of_another_subpackage():
    wrong = []
    for source, _, module, names, file in EDGES:
        if source != "report":
            continue
        private_module = any(p.startswith("_") for p in module.split(".")[1:])
        private_names = [n for n in names if n.startswith("_")]
        if private_module or private_names:
            wrong.append(f"{file}: {module} {names}")
    assert not wrong, "\n".join(wrong)


def _code_lines(node):
    lines = node.end_lineno - node.lineno + 1
    body = node.body
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        lines -= body[0].end_lineno - body[0].lineno + 1
    return lines


MODULES = list(_modules())


# ids from the paths alone: stable across pytest-xdist workers
@pytest.mark.parametrize(("rel", "tree"), MODULES, ids=[str(r) for r, _ in MODULES])
def test_no_function_over_80_lines(rel, tree):
    long = [
        f"{node.name} ({_code_lines(node)} lines)"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and _code_lines(node) > MAX_FUNCTION_LINES
    ]
    assert not long, f"{rel}: {', '.join(long)}"


def test_the_edges_are_found():
    # the checks above would pass vacuously on an empty edge list
    assert ("report", "metrics") in {(s, t) for s, t, *_ in EDGES}
    assert ("plotting", "metrics") in {(s, t) for s, t, *_ in EDGES}
