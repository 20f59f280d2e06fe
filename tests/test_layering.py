"""The package's layering: imports flow one way, and no module imports itself back.

Layers: ``utils <- metrics <- {model_selection, postprocessing, ensemble,
inprocessing} <- plotting <- report <- _cli``; ``datasets`` uses only
``utils``. Within the middle layer a subpackage may use another (the
comparison harness in ``model_selection`` trains the ``ensemble``
estimators) as long as there is no circle.

Privacy ends at the package boundary, as in scikit-learn: any module may
import another subpackage's private module, downward only. What is checked
instead: no import circle between *modules* anywhere (module-level and
function-level imports alike); a subpackage's ``__init__`` imports only the
names of its ``__all__``; no module is imported by a string
(``importlib.import_module``, ``__import__``) and no code (docstrings aside)
spells a private module path such as ``"skfair.metrics._x"`` (either would
hide an edge from these checks); no function object is renamed or given
another code object (``f.__name__ = ...``, ``__code__.replace``); no
``locals()``; no function over 80 lines of code.

Everything is read from the source: every ``import``, at module level or
inside a function, so that a lazy import cannot hide a circle.
"""

import ast
import pathlib
import re

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
# the calls that import a module named by a string
STRING_IMPORTS = {"import_module", "__import__", "find_spec"}
# a private module path written out: skfair.<subpackage>(.<x>)*._<y>
PRIVATE_PATH = re.compile(r"\bskfair\.\w+(?:\.\w+)*\._")


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        text = path.read_text(encoding="utf-8")
        yield rel, ast.parse(text), len(text.splitlines())


MODULES = list(_modules())


def _subpackage(rel):
    """The subpackage a module belongs to (``__main__`` for that module).

    None for ``skfair/__init__.py``, which belongs to no subpackage.
    """
    if len(rel.parts) > 1:
        return rel.parts[0]
    name = rel.parts[0].removesuffix(".py")
    return None if name == "__init__" else name


def _imports(rel, tree):
    """``(module, names, line)`` of each import; relative ones made absolute."""
    package = ["skfair", *rel.parts[:-1]]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            yield module, [alias.name for alias in node.names], node.lineno
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, [], node.lineno


def _targets(module, names):
    """``(subpackage, dotted path, imported names)`` an import reaches in skfair."""
    parts = module.split(".")
    if parts[0] != "skfair":
        return []
    if len(parts) == 1:  # from skfair import x / from .. import x
        return [(name, ["skfair", name], []) for name in names if name in RANK]
    return [(parts[1], parts, names)]


def _edges():
    """(importing subpackage, imported subpackage, module, names, file)."""
    out = []
    for rel, tree, _ in MODULES:
        source = _subpackage(rel)
        if source is None:
            continue
        for module, names, _ in _imports(rel, tree):
            for target, path, imported in _targets(module, names):
                if target in RANK and target != source:
                    out.append((source, target, ".".join(path), imported, str(rel)))
    return out


EDGES = _edges()


def _docstrings(tree):
    """The ids of the docstring nodes of a module, its classes and functions."""
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, owners) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _strings(node):
    return [
        n.value
        for n in ast.walk(node)
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def string_import_violations(rel, tree):
    """String imports of skfair modules and private module paths in code."""
    wrong = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else None
            name = func.id if isinstance(func, ast.Name) else name
            if name in STRING_IMPORTS and any(
                "skfair" in s for s in _strings(node.args[0])
            ):
                wrong.append(
                    f"{rel}:{node.lineno}: {name}({ast.unparse(node.args[0])})"
                )
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and PRIVATE_PATH.search(node.value)
        ):
            wrong.append(f"{rel}:{node.lineno}: string {node.value!r}")
    return wrong


def locals_calls(rel, tree):
    """Every ``locals()`` (and argument-less ``vars()``) call, as text."""
    return [
        f"{rel}:{node.lineno}: {ast.unparse(node)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and (node.func.id == "locals" or (node.func.id == "vars" and not node.args))
    ]


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


def test_nothing_below_report_imports_plotting_or_datasets():
    below_report = {"utils", "metrics", "model_selection", "postprocessing"}
    below_report |= {"ensemble", "inprocessing"}
    wrong = [
        f"{file}: {source} imports {module}"
        for source, target, module, _, file in EDGES
        if source in below_report and target in ("plotting", "datasets")
    ]
    assert not wrong, "\n".join(wrong)


def _module_name(rel):
    parts = ["skfair", *rel.with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULE_NAMES = {_module_name(rel) for rel, _, _ in MODULES}


def module_graph(modules=MODULES):
    """``{module: the skfair modules it imports}``, function-level imports too.

    ``from package import name`` is an edge to the module ``package.name``
    when there is one, else to ``package`` (whose ``__init__`` runs).
    """
    names = {_module_name(rel) for rel, _, _ in modules}
    graph = {}
    for rel, tree, _ in modules:
        source = _module_name(rel)
        edges = graph.setdefault(source, set())
        for module, imported, _ in _imports(rel, tree):
            if not imported:
                targets = [module]
            else:
                targets = [
                    f"{module}.{n}" if f"{module}.{n}" in names else module
                    for n in imported
                ]
            edges.update(t for t in targets if t in names and t != source)
    return graph


def import_circles(graph):
    """The sets of modules that import each other round (strongly connected)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def init_exports(rel, tree):
    """Names an ``__init__`` imports but leaves out of its ``__all__``, as text."""
    if rel.name != "__init__.py":
        return []
    exported = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            exported = {
                e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)
            }
    wrong = []
    for node in tree.body:  # module level: what the package namespace holds
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                name = alias.asname or alias.name
                if name not in exported and name != "annotations":
                    wrong.append(f"{rel}:{node.lineno}: {name}")
    return wrong


RENAMING_ATTRIBUTES = {"__name__", "__qualname__", "__code__"}


def renamed_functions(rel, tree):
    """Assignments that rename a function or swap its code, as text."""
    wrong = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for t in ast.walk(target):
                    if isinstance(t, ast.Attribute) and t.attr in RENAMING_ATTRIBUTES:
                        wrong.append(f"{rel}:{node.lineno}: {ast.unparse(target)}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "replace"
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "__code__"
        ):
            wrong.append(f"{rel}:{node.lineno}: {ast.unparse(node)}")
    return wrong


@pytest.mark.xfail(reason="removed by the re-cut in progress (issue 35)", strict=True)
def test_no_import_circle_between_modules():
    found = import_circles(module_graph())
    assert not found, "\n".join(", ".join(c) for c in found)


def test_inits_export_their_public_names_only():
    wrong = [w for rel, tree, _ in MODULES for w in init_exports(rel, tree)]
    assert not wrong, "\n".join(wrong)


@pytest.mark.xfail(reason="removed by the re-cut in progress (issue 35)", strict=True)
def test_no_renamed_function_objects():
    wrong = [w for rel, tree, _ in MODULES for w in renamed_functions(rel, tree)]
    assert not wrong, "\n".join(wrong)


def test_no_string_imports_of_skfair_modules():
    wrong = [w for rel, tree, _ in MODULES for w in string_import_violations(rel, tree)]
    assert not wrong, "\n".join(wrong)


def test_no_locals():
    wrong = [w for rel, tree, _ in MODULES for w in locals_calls(rel, tree)]
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


# ids from the paths alone: stable across pytest-xdist workers
@pytest.mark.parametrize(
    ("rel", "tree"), [m[:2] for m in MODULES], ids=[str(m[0]) for m in MODULES]
)
def test_no_function_over_80_lines(rel, tree):
    long = [
        f"{node.name} ({_code_lines(node)} lines)"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and _code_lines(node) > MAX_FUNCTION_LINES
    ]
    assert not long, f"{rel}: {', '.join(long)}"


# -- the checks find what they look for (they would pass vacuously otherwise) --
def test_the_edges_are_found():
    assert ("report", "metrics") in {(s, t) for s, t, *_ in EDGES}
    assert ("plotting", "metrics") in {(s, t) for s, t, *_ in EDGES}
    assert len(MODULES) > 50


SOURCE = '''
"""A docstring may name skfair.metrics._kernels."""
import importlib
from skfair.metrics import mcdp
from skfair.metrics.inference import infer_metrics
from skfair.metrics._kernels import ecdf
from ..metrics import _kernels
from skfair import metrics, _cli
from ._local import helper
from skfair.report._views import table


def lazy():
    """So may a function's: skfair.utils._dask."""
    import skfair.utils._dask
    from ..utils import _private_name, __version__
    engine = "skfair.metrics._dask_engine"
    importlib.import_module("skfair.metrics")
    importlib.import_module(f"skfair._cli._{engine}")
    __import__("json")
    return locals(), vars(), vars(engine)
'''


def test_the_checks_find_each_kind_of_violation():
    rel = pathlib.Path("report", "_x.py")
    tree = ast.parse(SOURCE)
    assert [w.split(": ", 1)[1] for w in string_import_violations(rel, tree)] == [
        "import_module('skfair.metrics')",
        "import_module(f'skfair._cli._{engine}')",
        "string 'skfair.metrics._dask_engine'",
        "string 'skfair._cli._'",
    ]
    assert [w.split(": ", 1)[1] for w in locals_calls(rel, tree)] == [
        "locals()",
        "vars()",
    ]


CIRCLE = {
    "skfair/a/__init__.py": "from ._x import f\n__all__ = ['f']\n",
    "skfair/a/_x.py": "def f():\n    from ._y import g\n    return g\n",
    "skfair/a/_y.py": "from ._x import f\n",
    "skfair/a/_z.py": "from ._y import f\n",
}


def test_the_circle_check_finds_a_function_level_circle():
    modules = [
        (pathlib.Path(p).relative_to("skfair"), ast.parse(t), 0)
        for p, t in CIRCLE.items()
    ]
    assert import_circles(module_graph(modules)) == [["skfair.a._x", "skfair.a._y"]]


def test_the_export_and_rename_checks_find_their_violations():
    init = ast.parse("from ._x import f, _helper\n__all__ = ['f']\n")
    assert init_exports(pathlib.Path("a", "__init__.py"), init) == [
        "a/__init__.py:1: _helper"
    ]
    tree = ast.parse(
        "f.__name__ = f.__qualname__ = 'g'\n"
        "f.__code__ = f.__code__.replace(co_name='g')\n"
    )
    assert [
        w.split(": ", 1)[1] for w in renamed_functions(pathlib.Path("x.py"), tree)
    ] == [
        "f.__name__",
        "f.__qualname__",
        "f.__code__",
        "f.__code__.replace(co_name='g')",
    ]
