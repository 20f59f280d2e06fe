"""Root pytest configuration.

Doctests show metrics on a handful of samples, so their groups are far below
``skfair.utils.SMALL_GROUP_SIZE``: the SmallGroupWarning is ignored in
doctests only. The test suite keeps it an error (``filterwarnings = error``),
so a test with deliberately tiny groups has to say so.
"""

import pytest


def pytest_collection_modifyitems(config, items):
    """Ignore SmallGroupWarning in doctests."""
    ignore = pytest.mark.filterwarnings("ignore::skfair.utils.SmallGroupWarning")
    for item in items:
        if isinstance(item, pytest.DoctestItem):
            item.add_marker(ignore)
