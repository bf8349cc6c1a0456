"""Maths as MathML, made while the docs build: no script, no network.

Every ``:math:`` role and ``.. math::`` block is converted from LaTeX to MathML with
`latex2mathml <https://pypi.org/project/latex2mathml/>`_ when the page is written, and
browsers draw MathML themselves (Firefox, Safari, and Chrome/Edge since version 109), so
the built site shows its maths offline and loads nothing from a CDN.

A formula that does not convert, or converts with TeX left over (latex2mathml passes a
command it does not know through as text, and an ``&`` outside an alignment as a symbol),
is a build warning, so an error under ``-W``, and shows on the page as its TeX source in a
``problematic`` box, which the docs test also looks for: maths never appears as raw TeX
silently.

Display maths follows ``sphinx.ext.mathjax``: paragraphs separated by a blank line are
equations of their own, and one that breaks lines with ``\\\\`` is set as a ``split``
alignment (``&`` marks the column).
"""

from __future__ import annotations

import re
from typing import Any

import latex2mathml.converter
from docutils import nodes
from sphinx.locale import _
from sphinx.util import logging
from sphinx.util.math import get_node_equation_number

logger = logging.getLogger(__name__)

#: standard TeX operator names that latex2mathml does not know, set as \operatorname{...}
_OPERATORS = re.compile(r"\\(arg)(?![A-Za-z])")
#: TeX left in latex2mathml's output: an unknown command kept as text (its backslash:
#: everything latex2mathml understands becomes a character entity), a bare alignment ``&``
_LEFTOVER = re.compile(r"\\[A-Za-z]*|>&<|<merror")


def tex_to_mathml(tex: str, display: str = "inline") -> str:
    """The MathML of ``tex`` (``display`` is ``"inline"`` or ``"block"``); ``ValueError``
    if latex2mathml cannot read it or leaves part of it as TeX."""
    try:
        out = latex2mathml.converter.convert(_OPERATORS.sub(r"\\operatorname{\1}", tex), display=display)
    except Exception as err:  # latex2mathml raises its own exception types for bad input
        raise ValueError(f"latex2mathml cannot read it: {type(err).__name__}: {err}") from None
    left = _LEFTOVER.search(out)
    if left:
        raise ValueError(f"latex2mathml leaves {left.group(0).strip('<>')!r} of it unconverted")
    return out


def _render(self: Any, node: nodes.Element, tex: str, display: str) -> str:
    try:
        return tex_to_mathml(tex, display)
    except ValueError as err:
        logger.warning("cannot render this maths as MathML (%s): %s", err, tex, location=node, type="mathml")
        return f'<code class="problematic">{self.encode(tex)}</code>'


def visit_math(self: Any, node: nodes.math) -> None:
    self.body.append(self.starttag(node, "span", "", CLASS="math"))
    self.body.append(_render(self, node, node.astext(), "inline"))
    self.body.append("</span>")
    raise nodes.SkipNode


def visit_displaymath(self: Any, node: nodes.math_block) -> None:
    self.body.append(self.starttag(node, "div", CLASS="math"))
    if node.get("number"):
        self.body.append(f'<span class="eqno">({get_node_equation_number(self, node)})')
        self.add_permalink_ref(node, _("Link to this equation"))
        self.body.append("</span>")
    text = node.astext()
    if node.get("no-wrap", node.get("nowrap", False)):
        parts = [text]
    else:
        parts = [p for p in text.split("\n\n") if p.strip()]
        parts = [rf"\begin{{split}}{p}\end{{split}}" if r"\\" in p else p for p in parts]
    for part in parts:
        self.body.append(_render(self, node, part, "block"))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app: Any) -> dict[str, Any]:
    app.add_html_math_renderer(
        "mathml",
        inline_renderers=(visit_math, None),
        block_renderers=(visit_displaymath, None),
    )
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
