"""``.. benchmark-table:: _data/FILE.json``: a table read from what ``python -m benchmarks
--json FILE`` wrote, so that no timing in the docs is typed by hand.

Options: ``:section:`` ``ops`` (default), ``encoders`` or ``retrieval``; ``:models:``
comma-separated model labels to keep; ``:operations:`` comma-separated operation keys
(``ops``) to keep; ``:backends:`` comma-separated backends (columns of the ``ops``
pivot); ``:pivot:`` with ``ops``, one column per backend instead of one row per side.
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


def _seconds(s: float | None) -> str:
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            value = s / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{s * 1e9:.3g} ns"


def _bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


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

    def run(self) -> list[nodes.Node]:
        data = self._load()
        section = self.options.get("section", "ops")
        models, operations = _split(self.options.get("models")), _split(self.options.get("operations"))
        backends = _split(self.options.get("backends"))
        if section == "ops":
            rows = [
                r
                for r in data.get("rows", [])
                if (models is None or r["model"] in models)
                and (operations is None or r["operation"] in operations)
                and (backends is None or r["backend"] in backends)
            ]
            if "pivot" in self.options:
                return self._render(self._pivot(rows, backends))
            header = [
                "backend",
                "model",
                "operation",
                "holovec",
                "hand-written baseline",
                "holovec / baseline",
            ]
            body = [
                [
                    r["backend"],
                    r["model"],
                    r["label"],
                    _seconds(_best(r.get("holovec"))),
                    _seconds(_best(r.get("baseline"))),
                    "-" if r.get("ratio") is None else f"{r['ratio']:.2f}x",
                ]
                for r in rows
            ]
        elif section == "encoders":
            rows = [
                r
                for r in data.get("encoders", [])
                if (models is None or r["model"] in models)
                and (operations is None or r["key"] in operations)
                and (backends is None or r["backend"] in backends)
            ]
            if "pivot" in self.options:
                return self._render(self._pivot(rows, backends))
            header = ["backend", "model", "encoder", "holovec", "NumPy baseline", "holovec / baseline"]
            body = [
                [
                    r["backend"],
                    r["model"],
                    r["label"],
                    _seconds(_best(r.get("holovec"))),
                    _seconds(_best(r.get("baseline"))),
                    "-" if r.get("ratio") is None else f"{r['ratio']:.2f}x",
                ]
                for r in rows
            ]
        elif section == "retrieval":
            rows = [r for r in data.get("retrieval", []) if models is None or r["model"] in models]
            header = ["model", "operation", "holovec", "bare operation", "holovec / bare", "peak memory"]
            body = [
                [
                    r["model"],
                    r["label"],
                    _seconds(_best(r.get("holovec"))),
                    f"{_seconds(_best(r.get('baseline')))} ({r['baseline']})",
                    "-" if r.get("ratio") is None else f"{r['ratio']:.2f}x",
                    f"{_bytes(r['peak_bytes'].get('holovec'))} / {_bytes(r['peak_bytes'].get('baseline'))}"
                    if r.get("peak_bytes")
                    else "-",
                ]
                for r in rows
            ]
        else:
            raise self.error(f"unknown section {section!r}: ops, encoders or retrieval")
        if not body:
            raise self.error(f"no rows of {self.arguments[0]} match the options")
        return self._render(_list_table(header, body))

    def _pivot(self, rows: list[dict], backends: list[str] | None) -> list[str]:
        columns = backends or list(dict.fromkeys(r["backend"] for r in rows))
        cells: dict[tuple[str, str], dict[str, str]] = {}
        for r in rows:
            cells.setdefault((r["model"], r["label"]), {})[r["backend"]] = _seconds(_best(r.get("holovec")))
        if not cells:
            raise self.error(f"no rows of {self.arguments[0]} match the options")
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
