"""The results as a plain-text or Markdown table, and as JSON."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from .cases import Result, Settings

#: a row is flagged when holovec takes more than this many times the baseline's time
FLAG_RATIO = 1.5
#: ... or, for a single call on two vectors (fixed Python overhead), this many times
FLAG_RATIO_LATENCY = 3.0
#: notes under a table are wrapped at this width
WIDTH = 100
COLUMNS = ("model", "operation", "holovec", "baseline", "holovec/baseline", "torchhd")


def format_seconds(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    units = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9))
    unit, scale = next(((u, f) for u, f in units if seconds >= f), units[-1])
    value = seconds / scale
    return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"


def format_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def section_table(title: str, columns: Iterable[str], rows: list[list[str]], markdown: bool) -> list[str]:
    """One backend's table of a section (encoders, retrieval): the first two columns are
    text (left-aligned), the others numbers (right-aligned)."""
    columns = list(columns)
    bold = "**" if markdown else ""
    lines = ["", f"{bold}{title}{bold}", ""]
    if markdown:
        lines.append("| " + " | ".join(columns) + " |")
        lines.append("|" + "|".join([":---", ":---", *["---:"] * (len(columns) - 2)]) + "|")
        return lines + ["| " + " | ".join(row) + " |" for row in rows]
    table = [columns, *rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(columns))]
    for row in [table[0], ["-" * w for w in widths], *table[1:]]:
        cells = enumerate(zip(row, widths, strict=True))
        lines.append("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in cells).rstrip())
    return lines


def is_flagged(result: Result) -> bool:
    ratio = result.ratio
    limit = FLAG_RATIO_LATENCY if result.latency else FLAG_RATIO
    return ratio is not None and ratio > limit


def _cells(result: Result) -> list[str]:
    def time(side: str) -> str:
        timing = result.times.get(side)
        return format_seconds(None if timing is None else timing.best)

    ratio = result.ratio
    ratio_text = "-" if ratio is None else f"{ratio:.2f}x" + (" !" if is_flagged(result) else "")
    return [result.model, result.label, time("holovec"), time("baseline"), ratio_text, time("torchhd")]


def _by_backend(results: Iterable[Result]) -> dict[str, list[Result]]:
    groups: dict[str, list[Result]] = {}
    for r in results:
        groups.setdefault(r.backend, []).append(r)
    return groups


def _settings_line(settings: Settings, backends: list[str]) -> str:
    return (
        f"holovec benchmarks: D={settings.sizes.dim:,}, backend {', '.join(backends)}; time per call, "
        f"the minimum over up to {settings.repeat} samples after one warm-up call"
    )


def _footer(results: list[Result], torchhd_note: str | None) -> list[str]:
    lines = [
        f"!: holovec takes more than {FLAG_RATIO}x the baseline's time "
        f"({FLAG_RATIO_LATENCY}x for the single-call latency rows)"
    ]
    if torchhd_note:
        lines.append(f"torchhd: {torchhd_note}")
    for r in results:
        for note in r.notes:
            lines.append(f"check {r.backend} {r.model} {r.operation}: {note}")
    return lines


def _storage_line(rows: list[Result]) -> str | None:
    """Bytes per vector of the items searched in each model's similarity row."""
    parts = []
    for r in rows:
        if "holovec" not in r.storage:
            continue
        size, dtype = r.storage["holovec"]
        details = [dtype]
        if "unpacked" in r.storage:
            details = [f"{dtype}, 8 bits per byte", f"unpacked {r.storage['unpacked'][0]:,}"]
        baseline = r.storage.get("baseline")
        if baseline is not None and baseline != r.storage["holovec"]:
            details.append(f"baseline's {baseline[1]} copy {baseline[0]:,}")
        parts.append(f"{r.model} {size:,} ({'; '.join(details)})")
    if not parts:
        return None
    # wrapped between models only, so that each model's sizes stay on one line
    lines = ["bytes per vector:"]
    for i, part in enumerate(parts):
        text = part + ("," if i < len(parts) - 1 else "")
        if len(lines[-1]) + 1 + len(text) > WIDTH:
            lines.append(" ")
        lines[-1] += " " + text
    return "\n".join(lines)


def _extra_lines(rows: list[Result]) -> list[str]:
    """Further hand-written versions of an operation (e.g. packed BSC's Hamming search)."""
    lines = []
    for r in rows:
        holovec = r.times.get("holovec")
        for extra in r.extras:
            ratio = "" if holovec is None else f", holovec/this {holovec.best / extra.timing.best:.2f}x"
            lines.append(
                f"{r.model} {r.label.split(' (')[0]}, {extra.label}: "
                f"{format_seconds(extra.timing.best)}{ratio}"
            )
    return lines


def _backend_notes(rows: list[Result]) -> list[str]:
    """Lines under one backend's table, wrapped."""
    storage = _storage_line(rows)
    extras = [
        wrapped
        for line in _extra_lines(rows)
        for wrapped in textwrap.wrap(line, WIDTH, subsequent_indent="  ", break_on_hyphens=False)
    ]
    return (storage.splitlines() if storage else []) + extras


def _line(row: list[str], widths: list[int]) -> str:
    """Text columns (model, operation) align left; times and ratios right."""
    cells = (c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))
    return "  ".join(cells)


def render_text(
    results: list[Result], settings: Settings, header: list[str], torchhd_note: str | None
) -> str:
    groups = _by_backend(results)
    lines = [_settings_line(settings, list(groups)), *header]
    for backend, rows in groups.items():
        table = [list(COLUMNS), *(_cells(r) for r in rows)]
        widths = [max(len(row[i]) for row in table) for i in range(len(COLUMNS))]
        lines += ["", f"backend: {backend}", _line(table[0], widths), "  ".join("-" * w for w in widths)]
        previous_model = None
        for row in table[1:]:
            shown = row if row[0] != previous_model else ["", *row[1:]]
            previous_model = row[0]
            lines.append(_line(shown, widths).rstrip())
        notes = _backend_notes(rows)
        lines += ["", *notes] if notes else []
    lines += ["", *_footer(results, torchhd_note)]
    return "\n".join(lines)


def render_markdown(
    results: list[Result], settings: Settings, header: list[str], torchhd_note: str | None
) -> str:
    groups = _by_backend(results)
    lines = [_settings_line(settings, list(groups)), "", *(f"- {h}" for h in header)]
    for backend, rows in groups.items():
        lines += ["", f"**backend: {backend}**", ""]
        lines.append("| " + " | ".join(COLUMNS) + " |")
        lines.append("|" + "|".join([":---", ":---", "---:", "---:", "---:", "---:"]) + "|")
        for r in rows:
            lines.append("| " + " | ".join(_cells(r)) + " |")
        storage = _storage_line(rows)
        notes = ([" ".join(storage.split())] if storage else []) + _extra_lines(rows)
        lines += ["", *(f"{line}  " for line in notes)] if notes else []
    lines += ["", *(f"{line}  " for line in _footer(results, torchhd_note))]
    return "\n".join(lines)


def to_json(
    results: list[Result], settings: Settings, machine: dict[str, Any], torchhd_note: str | None
) -> dict:
    return {
        "format": 1,
        "settings": {
            "sizes": asdict(settings.sizes),
            "repeat": settings.repeat,
            "budget_s": settings.budget_s,
            "statistic": "min over samples, seconds per call (median also given)",
        },
        "machine": machine,
        "torchhd_note": torchhd_note,
        "rows": [
            {
                "backend": r.backend,
                "model": r.model,
                "operation": r.operation,
                "label": r.label,
                "latency": r.latency,
                "ratio": r.ratio,
                "flagged": is_flagged(r),
                "notes": r.notes,
                "storage": {
                    side: {"bytes_per_vector": size, "dtype": dtype}
                    for side, (size, dtype) in r.storage.items()
                },
                "extras": [{"key": e.key, "label": e.label, "timing": asdict(e.timing)} for e in r.extras],
                **{
                    side: None if t is None else asdict(t)
                    for side, t in ((s, r.times.get(s)) for s in ("holovec", "baseline", "torchhd"))
                },
            }
            for r in results
        ],
    }
