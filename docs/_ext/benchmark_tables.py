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

import json
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

from benchmarks.report import format_bytes, format_seconds


def _best(cell: dict | None) -> float | None:
    return None if cell is None else cell["best"]


def _split(text: str | None) -> list[str] | None:
    return None if not text else [part.strip() for part in text.split(",") if part.strip()]


class _JsonDirective(SphinxDirective):
    required_arguments = 1

    def _load(self) -> dict[str, Any]:
        rel, path = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(rel)
        try:
            return json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise self.error(f"cannot read benchmark results {self.arguments[0]}: {err}") from err

    def _render(self, rst: list[str]) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(StringList(rst, source=self.arguments[0]), self.content_offset, container)
        return container.children


def _list_table(header: list[str], rows: list[list[str]], widths: str | None = None) -> list[str]:
    out = [".. list-table::", "   :header-rows: 1", ""]
    if widths:
        out.insert(2, f"   :widths: {widths}")
    for row in [header, *rows]:
        out.append(f"   * - {row[0]}")
        out += [f"     - {cell}" for cell in row[1:]]
    out.append("")
    return out


class BenchmarkTable(_JsonDirective):
    option_spec: ClassVar[dict] = {
        "section": directives.unchanged,
        "models": directives.unchanged,
        "operations": directives.unchanged,
        "backends": directives.unchanged,
        "pivot": directives.flag,
    }

    #: section -> (key of its rows in the JSON, field of the ``:operations:`` filter, header)
    SECTIONS: ClassVar[dict[str, tuple[str, str, list[str]]]] = {
        "ops": (
            "rows",
            "operation",
            ["backend", "model", "operation", "holovec", "hand-written baseline", "holovec / baseline"],
        ),
        "encoders": (
            "encoders",
            "key",
            ["backend", "model", "encoder", "holovec", "NumPy baseline", "holovec / baseline"],
        ),
        "retrieval": (
            "retrieval",
            "label",
            ["model", "operation", "holovec", "bare operation", "holovec / bare", "peak memory"],
        ),
    }

    def run(self) -> list[nodes.Node]:
        data = self._load()
        section = self.options.get("section", "ops")
        if section not in self.SECTIONS:
            raise self.error(f"unknown section {section!r}: ops, encoders or retrieval")
        key, operation_field, header = self.SECTIONS[section]
        models, operations = _split(self.options.get("models")), _split(self.options.get("operations"))
        backends = _split(self.options.get("backends"))
        rows = [
            r
            for r in data.get(key, [])
            if (models is None or r["model"] in models)
            and (operations is None or r[operation_field] in operations)
            and (backends is None or r["backend"] in backends)
        ]
        if not rows:
            raise self.error(f"no rows of {self.arguments[0]} match the options")
        if "pivot" in self.options:
            return self._render(self._pivot(rows, backends))
        body = [self._retrieval_cells(r) if section == "retrieval" else self._timing_cells(r) for r in rows]
        return self._render(_list_table(header, body))

    @staticmethod
    def _ratio(r: dict) -> str:
        return "-" if r.get("ratio") is None else f"{r['ratio']:.2f}x"

    def _timing_cells(self, r: dict) -> list[str]:
        return [
            r["backend"],
            r["model"],
            r["label"],
            format_seconds(_best(r.get("holovec"))),
            format_seconds(_best(r.get("baseline"))),
            self._ratio(r),
        ]

    def _retrieval_cells(self, r: dict) -> list[str]:
        memory = r.get("peak_bytes") or {}
        return [
            r["model"],
            r["label"],
            format_seconds(_best(r.get("holovec"))),
            f"{format_seconds(_best(r.get('baseline')))} ({r['baseline']})",
            self._ratio(r),
            f"{format_bytes(memory.get('holovec'))} / {format_bytes(memory.get('baseline'))}"
            if memory
            else "-",
        ]

    def _pivot(self, rows: list[dict], backends: list[str] | None) -> list[str]:
        columns = backends or list(dict.fromkeys(r["backend"] for r in rows))
        cells: dict[tuple[str, str], dict[str, str]] = {}
        for r in rows:
            time = format_seconds(_best(r.get("holovec")))
            cells.setdefault((r["model"], r["label"]), {})[r["backend"]] = time
        body = [
            [f"{model}: {label}", *(c.get(b, "-") for b in columns)] for (model, label), c in cells.items()
        ]
        return _list_table(["operation", *columns], body)


class BenchmarkMachine(_JsonDirective):
    """One paragraph: the machine and software the results file records."""

    def run(self) -> list[nodes.Node]:
        m = self._load().get("machine", {})
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
