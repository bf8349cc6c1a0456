"""``.. benchmark-table:: _data/FILE.json``: a table read from what ``python -m benchmarks
--json FILE`` wrote, so that no timing in the docs is typed by hand.

Options: ``:section:`` ``ops`` (default), ``encoders`` or ``retrieval``; ``:models:``
comma-separated model labels to keep; ``:operations:`` comma-separated operation keys
(``ops``), encoder keys (``encoders``) or labels (``retrieval``) to keep; ``:backends:``
comma-separated backends; ``:pivot:`` one column per backend with holovec's times.
Times and sizes are formatted as the benchmark prints them.
A ``.. benchmark-machine::`` directive prints the machine and software the file
records.

``.. learn-benchmark-table:: _data/benchmark-learn.json`` renders the learners'
benchmark (:mod:`holovec.learn`): a file of this benchmark's format is drawn as above
(every section it holds; the learn section with its scores, one table per backend,
``:backends:`` picks them); any other JSON as a table of its records (the top-level list,
or the first list of objects such as ``rows`` or ``results``), one column per scalar
field (``:columns:`` picks and orders them), preceded by the machine line when the file
records one. Until the file exists the directive says so in one paragraph (logged, not a
warning), so that the page builds before the benchmark has run.
"""

from __future__ import annotations

import json
import math
from dataclasses import fields
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from benchmarks.columns import (
    BACKEND,
    BASELINE,
    HOLOVEC,
    LABEL,
    MODEL,
    PEAK_MEMORY,
    RATIO,
    Column,
    format_seconds,
)
from benchmarks.results import load, row_from_json
from benchmarks.rows import Row
from benchmarks.tables import format_table, rst_cell, table_lines

#: each section's columns in the docs (the benchmark's own cells, under the docs' headers)
COLUMNS: dict[str, tuple[Column, ...]] = {
    "ops": (
        BACKEND,
        MODEL,
        LABEL,
        HOLOVEC,
        BASELINE.named("hand-written baseline"),
        RATIO.named("holovec / baseline"),
    ),
    "encoders": (
        BACKEND,
        MODEL,
        LABEL.named("encoder"),
        HOLOVEC,
        BASELINE.named("NumPy baseline"),
        RATIO.named("holovec / baseline"),
    ),
    "retrieval": (
        MODEL,
        LABEL,
        HOLOVEC,
        BASELINE.named("bare operation"),
        RATIO.named("holovec / bare"),
        PEAK_MEMORY.named("peak memory"),
    ),
}


def _split(text: str | None) -> list[str] | None:
    return None if not text else [part.strip() for part in text.split(",") if part.strip()]


def select(
    rows: list[Row],
    section: str,
    models: list[str] | None = None,
    operations: list[str] | None = None,
    backends: list[str] | None = None,
) -> list[Row]:
    """The rows of ``section`` that the options keep (``operations``: keys or labels)."""
    return [
        r
        for r in rows
        if r.section == section
        and (models is None or r.model in models)
        and (operations is None or r.key in operations or r.label in operations)
        and (backends is None or r.backend in backends)
    ]


def table_rst(rows: list[Row], section: str) -> list[str]:
    """A list-table of ``rows`` with the section's docs columns."""
    return table_lines(COLUMNS[section], rows, style="rst")


def pivot_rst(rows: list[Row], backends: list[str] | None = None) -> list[str]:
    """One row per (model, operation), one column per backend with holovec's time."""
    columns = backends or list(dict.fromkeys(r.backend for r in rows))
    cells: dict[str, dict[str, str]] = {}
    for r in rows:
        cells.setdefault(f"{r.model}: {r.label}", {})[r.backend] = HOLOVEC.cell(r)
    body = [[operation, *(c.get(b, "-") for b in columns)] for operation, c in cells.items()]
    return format_table(["operation", *columns], body, [True] + [False] * len(columns), "rst")


#: a table of more columns than this is marked ``wide-table``: docs/_static/holovec.css keeps
#: it in a box that scrolls both ways, with its scrollbar on screen
WIDE_COLUMNS = 7


def render(directive: SphinxDirective, rst: list[str]) -> list[nodes.Node]:
    """The nodes of ``rst`` (the directive's tables and lines); every table is marked
    ``benchmark-table``, and a wide one ``wide-table``."""
    container = nodes.container()
    directive.state.nested_parse(
        StringList(rst, source=directive.arguments[0]), directive.content_offset, container
    )
    for table in container.findall(nodes.table):
        table["classes"].append("benchmark-table")
        if len(list(table.findall(nodes.colspec))) >= WIDE_COLUMNS:
            table["classes"].append("wide-table")
    return container.children


class _JsonDirective(SphinxDirective):
    required_arguments = 1

    def _load(self) -> tuple[dict[str, Any], list[Row]]:
        rel, path = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(rel)
        try:
            return load(path)
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise self.error(f"cannot read benchmark results {self.arguments[0]}: {err}") from err

    def _render(self, rst: list[str]) -> list[nodes.Node]:
        return render(self, rst)


class BenchmarkTable(_JsonDirective):
    option_spec: ClassVar[dict] = {
        "section": directives.unchanged,
        "models": directives.unchanged,
        "operations": directives.unchanged,
        "backends": directives.unchanged,
        "pivot": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        _, rows = self._load()
        section = self.options.get("section", "ops")
        if section not in COLUMNS:
            raise self.error(f"unknown section {section!r}: ops, encoders or retrieval")
        backends = _split(self.options.get("backends"))
        options = (_split(self.options.get("models")), _split(self.options.get("operations")), backends)
        rows = select(rows, section, *options)
        if not rows:
            raise self.error(f"no rows of {self.arguments[0]} match the options")
        if "pivot" in self.options:
            return self._render(pivot_rst(rows, backends))
        return self._render(table_rst(rows, section))


class BenchmarkMachine(_JsonDirective):
    """One paragraph: the machine and software the results file records."""

    def run(self) -> list[nodes.Node]:
        return self._render([rst_cell(machine_line(self._load()[0].get("machine", {}))), ""])


def source_line(m: dict[str, Any]) -> str:
    """holovec's version and the commit it was measured at, as a reader needs it: the
    commit alone for a clean working tree; for a tree with uncommitted changes (the
    benchmark records ``<commit>+dirty``) a plain statement that the code was not that
    commit's."""
    version = f"holovec {m.get('holovec', '?')}"
    commit = str(m.get("git_commit") or "").strip()
    if not commit:
        return f"{version} (commit not recorded)"
    base, plus, state = commit.partition("+")
    if not plus:
        return f"{version} (git {base})"
    if state == "dirty":
        return f"{version} (uncommitted changes on top of git {base}, not that commit itself)"
    return f"{version} (git {base}, {state})"


def machine_line(m: dict[str, Any]) -> str:
    """``Measured on: ...``: the machine and software a results file records."""
    parts = [
        f"{m.get('cpu', 'unknown CPU')}, {m.get('usable_cores', '?')} cores, "
        f"{m.get('memory_gib', 0):.0f} GiB RAM, {m.get('os', '')}",
        f"Python {m.get('python')}, {source_line(m)}, NumPy {m.get('numpy')} ({m.get('blas')})",
    ]
    if m.get("torch"):
        parts.append(f"PyTorch {m['torch']} ({m.get('torch_threads')} threads)")
    if m.get("jax"):
        devices = ", ".join(str(d) for d in m.get("jax_devices") or ())
        # the run records JAX's devices only where it had imported JAX
        parts.append(f"JAX {m['jax']}" + (f" (devices: {devices})" if devices else ""))
    busy = m.get("other_cores_busy")
    if busy is not None:
        parts.append(f"other processes kept {busy:.2f} cores busy during the run")
    return "Measured on: " + "; ".join(parts) + "."


#: generic sections of a format-2 file that COLUMNS does not name
GENERIC_COLUMNS: tuple[Column, ...] = (BACKEND, MODEL, LABEL, HOLOVEC)


def records_of(data: Any) -> list[dict[str, Any]]:
    """The records of a JSON document: the top-level list, or its first list of objects
    (``rows``, ``results``, ... in the file's order)."""
    if isinstance(data, list):
        return [r for r in data if isinstance(r, dict)]
    if isinstance(data, dict):
        for key in ("rows", "results", "records"):
            if isinstance(data.get(key), list):
                return [r for r in data[key] if isinstance(r, dict)]
        for value in data.values():
            if isinstance(value, list) and value and all(isinstance(r, dict) for r in value):
                return value
    return []


def format_cell(key: str, value: Any) -> str:
    """A record's value as the docs show it: times (``*_s``, ``*seconds``) as the benchmark
    prints them, fractions in [0, 1] of accuracy-like fields to three decimals."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, float | int):
        return str(value) or "-"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    name = key.lower()
    if name.endswith(("_s", "seconds", "_time", "time_s")):
        return format_seconds(float(value))
    if isinstance(value, int):
        return f"{value:,}"
    if any(word in name for word in ("accuracy", "score", "r2", "acc")) and 0 <= value <= 1:
        return f"{value:.3f}"
    return f"{value:.4g}"


def records_rst(records: list[dict[str, Any]], columns: list[str] | None = None) -> list[str]:
    """A list-table of ``records``, one column per scalar field (or per ``columns``)."""
    if columns is None:
        columns = []
        for r in records:
            columns += [k for k, v in r.items() if k not in columns and not isinstance(v, dict | list)]
    body = [[format_cell(c, r.get(c)) for c in columns] for r in records]
    text = [all(isinstance(r.get(c), str) or r.get(c) is None for r in records) for c in columns]
    return format_table(columns, body, text, "rst")


def _learn_rows(items: list[dict[str, Any]]) -> list[Row]:
    """The learn section's rows as the benchmark's own ``LearnRow`` (scores included)."""
    from benchmarks.learn import LearnRow  # the learn section's columns read these fields

    rows = []
    for item in items:
        base = row_from_json(item)
        scores = {
            side: [float(v) for v in (s.get("splits") or [s["mean"]])]
            for side, s in (item.get("scores") or {}).items()
        }
        rows.append(
            LearnRow(
                **{f.name: getattr(base, f.name) for f in fields(Row)},
                side=item.get("side", "holovec"),
                dataset=item.get("dataset", ""),
                metric=item.get("metric", "accuracy"),
                scores=scores,
                epochs=item.get("epochs"),
                cut=bool(item.get("epochs_cut", False)),
            )
        )
    return rows


def _learn_cells(item: dict[str, Any]) -> dict[str, Any]:
    """A learn row as a flat record (when the benchmark's own columns cannot be used)."""
    side = item.get("side", "holovec")
    score = (item.get("scores") or {}).get(side) or {}
    times = item.get("times") or {}

    def median(key: str) -> float | None:
        t = times.get(key)
        return None if not t else t.get("median")

    return {
        "data set": item.get("dataset", ""),
        "learner": item.get("label", ""),
        "model": item.get("model", ""),
        "score": score.get("mean"),
        "min": score.get("min"),
        "fit": format_seconds(median(side)),
        "predict": format_seconds(median(side + "_predict")),
    }


#: the sections whose rows are scored learners (``LearnRow``), drawn by :func:`learn_rst`
SCORED_SECTIONS = ("learn", "suite")


def learn_rst(
    items: list[dict[str, Any]], backends: list[str] | None = None, section: str = "learn"
) -> list[str]:
    """One table per backend of a scored section's rows (``items``: the JSON's): the learn
    section's, or the suite's with its goal lines under each table."""
    lines: list[str] = []
    for backend in dict.fromkeys(i.get("backend", "") for i in items):
        if backends is not None and backend not in backends:
            continue
        part = [i for i in items if i.get("backend", "") == backend]
        try:
            from benchmarks.learn import LEARN, title_note
            from benchmarks.suite import SECTION as SUITE

            rows = _learn_rows(part)
            if section == "suite":
                title = f"Backend: {backend}"
                notes = [rst_cell(line) for line in SUITE.table_notes(rows)]
                table = [*table_lines(SUITE.columns, rows, style="rst"), "", *[f"| {n}" for n in notes]]
            else:
                title = f"Backend: {backend}{title_note(rows, backend)}"
                table = table_lines(LEARN.columns, rows, style="rst")
        except (ImportError, AttributeError, KeyError, TypeError, ValueError):
            title = f"Backend: {backend}"
            records = [_learn_cells(i) for i in part]
            table = records_rst(records, list(records[0]))
        lines += [f"**{title}**", "", *table, ""]
    return lines


class LearnBenchmarkTable(SphinxDirective):
    """The learners' benchmark (see the module docstring); the file may not exist yet."""

    required_arguments = 1
    option_spec: ClassVar[dict] = {"columns": directives.unchanged, "backends": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        rel, path = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(rel)
        if not Path(path).exists():
            logging.getLogger(__name__).info(
                "%s: %s does not exist yet; the page says so instead of the table", self.env.docname, rel
            )
            return self._render(
                [
                    f"*Not measured yet:* this table is read from ``{rel}``, which the learners' "
                    "benchmark has not written on the machine that built these pages.",
                    "",
                ]
            )
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise self.error(f"cannot read benchmark results {self.arguments[0]}: {err}") from err
        lines: list[str] = []
        if isinstance(data, dict) and isinstance(data.get("machine"), dict):
            lines += [rst_cell(machine_line(data["machine"])), ""]
        if isinstance(data, dict) and "format" in data and isinstance(data.get("rows"), list):
            _, rows = load(path)  # this benchmark's own format: its cells, section by section
            backends = _split(self.options.get("backends"))
            for section in dict.fromkeys(r.section for r in rows):
                if section in SCORED_SECTIONS:
                    items = [i for i in data["rows"] if i.get("section") == section]
                    lines += learn_rst(items, backends, section)
                    continue
                part = [
                    r for r in rows if r.section == section and (backends is None or r.backend in backends)
                ]
                lines += [*table_lines(COLUMNS.get(section, GENERIC_COLUMNS), part, style="rst"), ""]
        else:
            records = records_of(data)
            if not records:
                raise self.error(f"{self.arguments[0]} holds no records to tabulate")
            lines += records_rst(records, _split(self.options.get("columns")))
        return self._render(lines)

    def _render(self, rst: list[str]) -> list[nodes.Node]:
        return render(self, rst)


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("benchmark-table", BenchmarkTable)
    app.add_directive("benchmark-machine", BenchmarkMachine)
    app.add_directive("learn-benchmark-table", LearnBenchmarkTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
