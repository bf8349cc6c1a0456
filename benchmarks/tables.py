"""The one renderer: rows into tables, as plain text, Markdown or reStructuredText.

A :class:`Section` says how one section's rows are shown (its columns, the title of each
backend's table, lines above and below); :func:`render_report` prints every section of a
run the same way, and :func:`table_lines` is the table alone, which the docs' tables use
(``docs/_ext/benchmark_tables.py``), and :func:`format_table` any table of cells.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .columns import Column
from .rows import Row

#: notes under a text table are wrapped at this width
WIDTH = 100
#: joins the words a note must not be wrapped between (a space once printed)
GLUE = "\u00a0"


def _no_notes(rows: list[Row]) -> list[str]:
    return []


@dataclass(frozen=True)
class Section:
    """One section of ``python -m benchmarks``: how its rows are made and shown."""

    name: str  #: "ops", "encoders", ...: the rows' ``section`` and the ``--sections`` name
    columns: tuple[Column, ...]
    title: str  #: each backend's table's title, with ``{backend}``
    intro: tuple[str, ...] = ()  #: lines above the tables
    legend: tuple[str, ...] = ()  #: lines below the tables (before the notes of the rows)
    #: lines under one backend's table (text: wrapped at ``WIDTH``, never at ``GLUE``)
    table_notes: Callable[[list[Row]], list[str]] = _no_notes
    #: ``run(settings, backends) -> rows`` (a ``sizes.Settings``); None: a section only read
    run: Callable[[Any, list[str]], list[Row]] | None = None
    backends: tuple[str, ...] = ("numpy",)  #: where it runs when --backend is not given
    supports: tuple[str, ...] = ("numpy", "torch", "jax")  #: the backends it can run on
    #: ``add_json(data, rows, settings)``: what the section adds to the run's JSON
    add_json: Callable[[dict, list[Row], Any], None] | None = None
    needs: tuple[str, ...] = ()  #: packages it cannot run without (checked with the options)


def _by_backend(rows: Iterable[Row]) -> dict[str, list[Row]]:
    groups: dict[str, list[Row]] = {}
    for row in rows:
        groups.setdefault(row.backend, []).append(row)
    return groups


#: a cell that starts like this would open a list, a block quote, a doctest or a comment
#: inside its list-table cell: a bullet (``-``, ``+``, ``*``), an enumerator (``1.``, ``a)``,
#: ``(iv)``, ``#.``), ``>`` or ``..``
_RST_BLOCK_START = re.compile(r"^(?:[-+*\u2022\u2023\u2043>]|\.\.|\(?[0-9A-Za-z#]+[.)](?:\s|$))")
#: characters of inline markup (emphasis, literals, roles, references, substitutions)
_RST_INLINE = re.compile(r"([\\`*_|])")


def rst_cell(text: str) -> str:
    """``text`` as a list-table cell that shows it verbatim: inline markup characters
    escaped, and a backslash before a start that would open a block (``-`` alone was an
    empty bullet list, ``+ more`` a bullet). An empty cell stays empty."""
    text = _RST_INLINE.sub(r"\\\1", " ".join(text.split()))
    if _RST_BLOCK_START.match(text):
        text = "\\" + text
    return text[:-1] + "\\:" if text.endswith("::") else text


def table_lines(columns: Sequence[Column], rows: Iterable[Row], style: str = "text") -> list[str]:
    """The rows' table with these columns (see :func:`format_table`)."""
    rows = list(rows)
    body = [[c.cell(row) for c in columns] for row in rows]
    return format_table([c.header for c in columns], body, [c.text for c in columns], style)


def format_table(
    header: Sequence[str], body: Sequence[Sequence[str]], text: Sequence[bool], style: str
) -> list[str]:
    """A table of cells; ``text[i]``: column ``i`` is text (aligned left), else numbers
    (aligned right). ``text``: padded columns, repeated values of the first column blanked;
    ``markdown``; ``rst``: a list-table whose cells show their text verbatim
    (:func:`rst_cell`)."""
    header, body = list(header), [list(line) for line in body]
    if style == "markdown":
        align = "|" + "|".join(":---" if t else "---:" for t in text) + "|"
        return ["| " + " | ".join(header) + " |", align, *("| " + " | ".join(line) + " |" for line in body)]
    if style == "rst":
        out = [".. list-table::", "   :header-rows: 1", ""]
        for line in [header, *body]:
            first, *rest = (rst_cell(cell) for cell in line)
            out.append(f"   * - {first}".rstrip())
            out += [f"     - {cell}".rstrip() for cell in rest]
        return [*out, ""]
    if style != "text":
        raise ValueError(f"unknown table style {style!r}: text, markdown or rst")
    widths = [max(len(line[i]) for line in [header, *body]) for i in range(len(header))]
    shown = [line if i == 0 or line[0] != body[i - 1][0] else ["", *line[1:]] for i, line in enumerate(body)]
    lines = []
    for line in [header, ["-" * w for w in widths], *shown]:
        cells = (c.ljust(w) if t else c.rjust(w) for c, w, t in zip(line, widths, text, strict=True))
        lines.append("  ".join(cells).rstrip())
    return lines


def _notes(lines: Iterable[str], markdown: bool, wrap: bool = False) -> list[str]:
    """Lines under a table: Markdown ends each with a line break; text may wrap them."""
    if markdown:
        return [line.replace(GLUE, " ") + "  " for line in lines]
    if not wrap:
        return [line.replace(GLUE, " ") for line in lines]
    return [
        part.replace(GLUE, " ")
        for line in lines
        for part in textwrap.wrap(
            line, WIDTH, subsequent_indent="  ", break_on_hyphens=False, break_long_words=False
        )
    ]


def row_notes(rows: Iterable[Row]) -> list[str]:
    """What each row also measured, then every check that failed."""
    rows = list(rows)
    info = [f"{r.backend} {r.model} {r.label}: {line}" for r in rows for line in r.info]
    return info + [f"check {r.backend} {r.model} {r.label}: {note}" for r in rows for note in r.notes]


def render_section(
    section: Section, rows: Sequence[Row], markdown: bool = False, legend: Sequence[str] = ()
) -> list[str]:
    """One section's lines: its intro, a table per backend, then its legend (and
    ``legend``) and the rows' notes."""
    rows = [r for r in rows if r.section == section.name]
    if not rows:
        return []
    lines = ["", *section.intro] if section.intro else []
    for backend, group in _by_backend(rows).items():
        title = section.title.format(backend=backend)
        lines += ["", f"**{title}**" if markdown else title, ""]
        lines += table_lines(section.columns, group, "markdown" if markdown else "text")
        notes = section.table_notes(group)
        lines += ["", *_notes(notes, markdown, wrap=True)] if notes else []
    footer = [*section.legend, *legend, *row_notes(rows)]
    return lines + (["", *_notes(footer, markdown)] if footer else [])


def render_report(
    rows: Sequence[Row],
    sections: Sequence[Section],
    *,
    title: str,
    header: Sequence[str] = (),
    legends: Mapping[str, Sequence[str]] | None = None,
    markdown: bool = False,
) -> str:
    """A run: ``title``, the ``header`` lines (the machine), then each section in turn;
    ``legends`` adds lines under a section, by name."""
    lines = [title, *(["", *(f"- {h}" for h in header)] if markdown else header)]
    for section in sections:
        lines += render_section(section, rows, markdown, (legends or {}).get(section.name, ()))
    return "\n".join(lines)
