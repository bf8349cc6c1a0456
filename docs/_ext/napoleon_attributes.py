"""Attribute and property docstrings as prose: no Google-style ``type: description`` split.

napoleon reads the first line of an attribute's or property's docstring (a ``#:``
comment, or a property's docstring) as ``type: description`` and shows the text before
the first colon under a "Type:" heading. holovec's docstrings are NumPy style: an
attribute's type is its annotation (autodoc shows it in the signature), and its docstring
is a sentence, which often has a colon in it. Split, "Probability that a random address
activates a given location: the exact binomial tail ..." showed "Probability that a
random address activates a given location" as the type. This extension keeps the whole
docstring as the description; sections of a class's or function's docstring
(``Attributes``, ``Parameters``, ...) are parsed as before.
"""

from __future__ import annotations

from sphinx.ext.napoleon.docstring import NumpyDocstring


def _consume_inline_attribute(self: NumpyDocstring) -> tuple[str, list[str]]:
    """The whole docstring as the description, and no type (see the module's docstring)."""
    lines = self._dedent(self._consume_to_end())
    return "", self.__class__(lines, self._config).lines()


def setup(app):
    app.setup_extension("sphinx.ext.napoleon")
    NumpyDocstring._consume_inline_attribute = _consume_inline_attribute
    return {"parallel_read_safe": True, "parallel_write_safe": True}
