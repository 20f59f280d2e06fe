"""Docstring parts that several public names share, written once.

A docstring names a shared part by a placeholder line ``<name>`` indented as
the text it stands for; :func:`fill_doc` replaces the line by the part,
re-indented to the placeholder's column. The rendered ``__doc__`` (what
``help``, Sphinx and the doctests read) is complete; an unknown placeholder
fails at import, so a docstring can never be published half written.
"""

import re
import textwrap

PLACEHOLDER = re.compile(
    r"^(?P<indent>[ \t]*)<(?P<name>[A-Za-z_][A-Za-z0-9_]*)>\n", re.MULTILINE
)
UNKNOWN_PART_ERROR = "{owner}'s docstring names <{name}>, which no part defines."


def fill_doc(*tables, **parts):
    """Return a decorator that writes shared parts into a docstring.

    Parameters
    ----------
    *tables : dict of str to str
        Parts by name; later tables and ``**parts`` win.
    **parts : str
        More parts by name.

    Returns
    -------
    decorate : callable
        Takes a function or class, replaces each placeholder line of its
        ``__doc__`` and returns it.

    Examples
    --------
    >>> from skfair.utils._docstrings import fill_doc
    >>> part = "sample_weight : array-like, default=None"
    >>> @fill_doc(weights=part)
    ... def f(sample_weight=None):
    ...     '''Do nothing.
    ...
    ...     Parameters
    ...     ----------
    ...     <weights>
    ...     '''
    >>> print(f.__doc__.splitlines()[4])
        sample_weight : array-like, default=None
    """
    table = {}
    for extra in tables:
        table.update(extra)
    table.update(parts)

    def decorate(obj):
        doc = obj.__doc__
        if doc is None:  # python -OO
            return obj
        obj.__doc__ = fill_text(doc, table, owner=getattr(obj, "__qualname__", obj))
        return obj

    return decorate


def fill_text(doc, table, *, owner="a docstring"):
    """Replace the placeholder lines of ``doc`` by the parts of ``table``."""

    def replace(match):
        name = match.group("name")
        if name not in table:
            raise KeyError(UNKNOWN_PART_ERROR.format(owner=owner, name=name))
        body = textwrap.dedent(table[name]).strip("\n") + "\n"
        return textwrap.indent(body, match.group("indent"), lambda line: line.strip())

    return PLACEHOLDER.sub(replace, doc)
