"""Every public name keeps its signature: names may be added, never removed or changed.

The snapshot ``tests/public_api.txt`` was written by ``tests/_api_snapshot.py``
before the re-cut of the package layout; regenerate it only when a public
change is intended (and said in the changelog).
"""

import pathlib

from _api_snapshot import public_api

SNAPSHOT = pathlib.Path(__file__).with_name("public_api.txt")


def test_public_names_and_signatures_unchanged():
    before = set(SNAPSHOT.read_text(encoding="utf-8").splitlines())
    now = set(public_api())
    missing = sorted(before - now)
    assert not missing, "removed or changed public names:\n" + "\n".join(missing)
