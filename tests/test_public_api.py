"""Every public name keeps its signature: names may be added, never removed or changed.

The snapshot ``tests/public_api.txt`` was written by ``tests/_api_snapshot.py``
before the re-cut of the package layout; regenerate it only when a public
change is intended (and said in the changelog). A signature may gain
parameters with defaults after the existing ones or among the keyword-only
ones (an addition); an existing parameter may not change.
"""

import pathlib

import pytest
from _api_snapshot import public_api

SNAPSHOT = pathlib.Path(__file__).with_name("public_api.txt")


def _split(line):
    """``(name, kind, params, returns)`` of one snapshot line."""
    name, _, rest = line.partition(": ")
    kind = "class" if rest.startswith("class(") else ""
    rest = rest.removeprefix("class")
    if not rest.startswith("("):
        return name, kind, None, rest
    depth, quote = 0, None
    params, current = [], ""
    for i, char in enumerate(rest):
        if quote:
            quote = None if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{<":
            depth += 1
            if depth == 1:
                continue
        elif char in ")]}>" and rest[i - 1 : i + 1] != "->":
            depth -= 1
            if depth == 0:
                params.append(current.strip())
                return name, kind, [p for p in params if p], rest[i + 1 :]
        elif char == "," and depth == 1:
            params.append(current.strip())
            current = ""
            continue
        current += char
    return name, kind, None, rest


def _compatible(old, new):
    _, old_kind, old_params, old_returns = old
    _, new_kind, new_params, new_returns = new
    if old_kind != new_kind or old_returns != new_returns:
        return False
    if old_params is None or new_params is None:
        return old_params == new_params
    position = 0
    for param in new_params:
        if position < len(old_params) and param == old_params[position]:
            position += 1
        elif "=" not in param:
            return False  # a new parameter without a default breaks old calls
        elif position < len(old_params) and "*" not in old_params[:position]:
            if "*" in old_params[position:]:
                return False  # inserted among the positional parameters
    return position == len(old_params)


def test_public_names_and_signatures_unchanged():
    now = {_split(line)[0]: _split(line) for line in public_api()}
    broken = []
    for line in SNAPSHOT.read_text(encoding="utf-8").splitlines():
        old = _split(line)
        if old[0] not in now or not _compatible(old, now[old[0]]):
            broken.append(line)
    assert not broken, "removed or changed public names:\n" + "\n".join(broken)


@pytest.mark.parametrize(
    ("old", "new", "ok"),
    [
        ("f: (a, *, b=1)", "f: (a, *, b=1, c=2)", True),
        ("f: (a, *, b=1)", "f: (a, *, c=2, b=1)", True),
        ("f: (a, *, b=1)", "f: (a, c=2, *, b=1)", False),
        ("f: (a, *, b=1)", "f: (a, *, b=2)", False),
        ("f: (a, *, b=1)", "f: (a, *, b=1, c)", False),
        ("f: (a, *, b=1)", "f: (a)", False),
        (
            "C: class(x: 'int', y: 'dict' = <factory>) -> None",
            "C: class(x: 'int', y: 'dict' = <factory>, z: 'str | None' = None) -> None",
            True,
        ),
    ],
)
def test_compatibility_rule(old, new, ok):
    assert _compatible(_split(old), _split(new)) is ok
