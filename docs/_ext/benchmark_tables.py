"""``.. benchmark-table:: _data/FILE.json``: a table read from what ``python -m benchmarks
--json FILE`` wrote, so that no timing in the docs is typed by hand.

Options: ``:section:`` ``ops`` (default), ``encoders`` or ``retrieval``; ``:models:``
comma-separated model labels to keep; ``:operations:`` comma-separated operation keys
(``ops``), encoder keys (``encoders``) or labels (``retrieval``) to keep; ``:backends:``
comma-separated backends; ``:pivot:`` one column per backend with holovec's times.
Times and sizes are formatted as the benchmark prints them.
A ``.. benchmark-machine::`` directive prints the machine and software the file
records.
"""

from __future__ import annotations

from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

from benchmarks.columns import BACKEND, BASELINE, HOLOVEC, LABEL, MODEL, PEAK_MEMORY, RATIO, Column
from benchmarks.results import load
from benchmarks.rows import Row
from benchmarks.tables import format_table, table_lines

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
        container = nodes.container()
        self.state.nested_parse(StringList(rst, source=self.arguments[0]), self.content_offset, container)
        return container.children


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
        m = self._load()[0].get("machine", {})
        parts = [
            f"{m.get('cpu', 'unknown CPU')}, {m.get('usable_cores', '?')} cores, "
            f"{m.get('memory_gib', 0):.0f} GiB RAM, {m.get('os', '')}",
            f"Python {m.get('python')}, holovec {m.get('holovec')} (git {m.get('git_commit')}), "
            f"NumPy {m.get('numpy')} ({m.get('blas')})",
        ]
        if m.get("torch"):
            parts.append(f"PyTorch {m['torch']} ({m.get('torch_threads')} threads)")
        if m.get("jax"):
            parts.append(f"JAX {m['jax']} (devices: {', '.join(m.get('jax_devices') or [])})")
        busy = m.get("other_cores_busy")
        if busy is not None:
            parts.append(f"other processes kept {busy:.2f} cores busy during the run")
        return self._render(["Measured on: " + "; ".join(parts) + ".", ""])


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("benchmark-table", BenchmarkTable)
    app.add_directive("benchmark-machine", BenchmarkMachine)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
