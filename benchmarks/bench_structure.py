"""The package's structure, measured: code lines, import circles, task shapes.

``python benchmarks/bench_structure.py`` prints

* the lines of code of ``skfair/`` per subpackage, not counting docstrings,
  comments and blank lines;
* every import circle between modules (module-level and function-level
  imports alike: one strongly connected component of the import graph);
* the modules of ``metrics/``, ``report/`` and ``_cli/`` named for a task
  shape (``binary``, ``regression``, ``multiclass``);
* the branches on the task: comparisons of a name ending in ``task`` (or
  ``kind``) with a task's name, and calls of ``is_class_scores``, with
  where they are.

``--list`` prints the files behind each count.
"""

import argparse
import ast
import io
import pathlib
import re
import sys
import tokenize
from collections import defaultdict

ROOT = pathlib.Path(__file__).resolve().parents[1] / "skfair"
TASKS = {"binary", "regression", "multiclass"}
TASK_WORD = re.compile(r"(multiclass|regression|binary)")
SKIP = {
    tokenize.COMMENT,
    tokenize.NL,
    tokenize.NEWLINE,
    tokenize.INDENT,
    tokenize.DEDENT,
    tokenize.ENDMARKER,
}


def docstring_lines(tree):
    """The line numbers of every module, class and function docstring."""
    owners = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, owners) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                lines.update(range(first.lineno, first.end_lineno + 1))
    return lines


def code_lines(text):
    """Lines holding code: not blank, not a comment, not a docstring."""
    doc = docstring_lines(ast.parse(text))
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in SKIP:
            continue
        lines.update(n for n in range(tok.start[0], tok.end[0] + 1) if n not in doc)
    return len(lines)


def modules(root):
    """``{dotted name: (path, tree, is_package)}`` of every module under root."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        out[name] = (path, ast.parse(path.read_text(encoding="utf-8")), is_package)
    return out


def import_graph(mods):
    """``{module: modules it imports}``, imports inside functions included."""
    graph = defaultdict(set)
    for name, (_, tree, is_package) in mods.items():
        package = name.split(".") if is_package else name.split(".")[:-1]
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    full = f"{module}.{alias.name}"
                    targets.append(full if full in mods else module)
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            graph[name].update(t for t in targets if t in mods and t != name)
    return graph


def circles(graph, nodes):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    sys.setrecursionlimit(10_000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def _ends_in_task(node):
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return isinstance(name, str) and (name.endswith("task") or name == "kind")


def task_branches(mods):
    """``(module, line, text)`` of every branch on the task."""
    out = []
    for name, (_, tree, _) in mods.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                named = any(_ends_in_task(s) for s in sides)
                strings = set()
                for s in sides:
                    if isinstance(s, ast.Constant) and isinstance(s.value, str):
                        strings.add(s.value)
                    if isinstance(s, (ast.Tuple, ast.List, ast.Set)):
                        strings.update(
                            e.value for e in s.elts if isinstance(e, ast.Constant)
                        )
                if named and strings & TASKS:
                    out.append((name, node.lineno, ast.unparse(node)))
            elif isinstance(node, ast.Call):
                func = node.func
                called = func.id if isinstance(func, ast.Name) else None
                called = func.attr if isinstance(func, ast.Attribute) else called
                if called == "is_class_scores":
                    out.append((name, node.lineno, ast.unparse(node)))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=ROOT)
    parser.add_argument("--list", action="store_true", help="print the files")
    args = parser.parse_args(argv)
    mods = modules(args.root)
    per_package = defaultdict(int)
    for path, _, _ in mods.values():
        parts = path.relative_to(args.root).parts
        package = parts[0] if len(parts) > 1 else "(top)"
        per_package[package] += code_lines(path.read_text(encoding="utf-8"))
    print(f"{'subpackage':<18}{'code lines':>12}")
    for package, n in sorted(per_package.items()):
        print(f"{package:<18}{n:>12,}")
    print(f"{'total':<18}{sum(per_package.values()):>12,}")
    found = circles(import_graph(mods), list(mods))
    print(f"\nimport circles: {len(found)} (sizes {[len(c) for c in found]})")
    for component in found:
        print("   " + ", ".join(component))
    named = [
        n
        for n in mods
        if len(n.split(".")) > 2
        and n.split(".")[1] in ("metrics", "report", "_cli")
        and any(TASK_WORD.search(part) for part in n.split(".")[2:])
    ]
    print(f"\nmodules of metrics/, report/, _cli/ named for a task shape: {len(named)}")
    if args.list:
        for n in named:
            print("   " + n)
    branches = task_branches(mods)
    print(f"\nbranches on the task: {len(branches)}")
    if args.list:
        for module, line, text in branches:
            print(f"   {module}:{line}: {text[:90]}")


if __name__ == "__main__":
    main()
