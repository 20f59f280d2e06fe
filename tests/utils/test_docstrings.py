import pytest

from skfair.utils._docstrings import fill_doc, fill_text


def test_fill_doc_reindents_parts_at_the_placeholder_column():
    @fill_doc({"a": "a : int\n    The a."}, b="b : str\n    The b.")
    def f(a, b):
        """Summary.

        Parameters
        ----------
        <a>
        <b>
        """

    assert f.__doc__.splitlines()[4:8] == [
        "        a : int",
        "            The a.",
        "        b : str",
        "            The b.",
    ]


def test_unknown_placeholder_fails_at_decoration():
    with pytest.raises(KeyError, match="<missing>"):

        @fill_doc(a="a : int")
        def f():
            """Summary.

            <missing>
            """


def test_text_without_placeholders_is_unchanged_and_blank_lines_stay_blank():
    doc = "One.\n\n    <p>\n    rest\n"
    out = fill_text(doc, {"p": "x\n\ny"})
    assert out == "One.\n\n    x\n\n    y\n    rest\n"
    assert fill_text("plain <notaline> text\n", {}) == "plain <notaline> text\n"
