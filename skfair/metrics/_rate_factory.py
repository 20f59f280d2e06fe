"""How a family of rate metrics shares one signature and one body.

The metrics of a family (fairlearn's rate differences and ratios in
``_rates``, their multiclass versions in ``_multiclass_rates``, the HFM
paper's gaps in ``_group_gaps``) take the same arguments and differ only in
the rate they compare. Each family writes its signature and body once, in a
factory that closes over the rate; each public metric is one call of the
factory, which names the function and gives it its own docstring through
:func:`published`. The result is an ordinary function: ``inspect.signature``
is the closure's own (written out in full, no ``**kwargs``), and its name,
qualified name and module are those of the public metric, so that
``help``, Sphinx, the doctests, pickling and tracebacks see it under that
name. The call depth is that of a ``def``, so the warnings' ``stacklevel``
is unchanged.
"""

from __future__ import annotations

from ..utils._docstrings import fill_doc


def published(function, name, doc, *parts):
    """``function`` under the public ``name``, documented by ``doc``.

    Parameters
    ----------
    function : function
        A closure defined in the module that publishes it (so its
        ``__module__`` already is that module).
    name : str
        The public name; the module binds it to the result.
    doc : str
        The docstring, with placeholder lines ``<part>`` for the shared
        parts of ``parts`` (see :func:`skfair.utils._docstrings.fill_doc`).
    *parts : dict of str to str
        Shared docstring parts, by name.

    Returns
    -------
    function : function
        ``function`` itself, renamed and documented.

    Examples
    --------
    >>> from skfair.metrics._rate_factory import published
    >>> def make(offset):
    ...     def add(x):
    ...         return x + offset
    ...     return add
    >>> add_one = published(make(1), "add_one", "Add one.")
    >>> add_one.__qualname__, add_one.__doc__, add_one(1)
    ('add_one', 'Add one.', 2)
    """
    function.__name__ = function.__qualname__ = name
    # tracebacks and profilers read the code object's name
    function.__code__ = function.__code__.replace(co_name=name)
    function.__doc__ = doc
    return fill_doc(*parts)(function)
