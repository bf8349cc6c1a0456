"""How each section's rows are printed: its columns, titles and the lines around its
tables (all rendered by ``tables``)."""

from __future__ import annotations

from .columns import (
    BASELINE,
    FLAGGED_RATIO,
    HOLOVEC,
    LABEL,
    MODEL,
    PEAK_MEMORY,
    PER_ITEM,
    RATIO,
    TORCHHD,
    format_seconds,
)
from .learn import LEARN
from .names import K
from .rows import FLAG_RATIO, FLAG_RATIO_LATENCY, Row
from .tables import GLUE, Section


def _storage_line(rows: list[Row]) -> list[str]:
    """Bytes per vector of the items searched in each model's similarity row (wrapped
    between models only)."""
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
        parts.append(f"{r.model} {size:,} ({'; '.join(details)})".replace(" ", GLUE))
    return ["bytes per vector: " + ", ".join(parts)] if parts else []


def _extra_lines(rows: list[Row]) -> list[str]:
    """Further hand-written versions of an operation (e.g. packed BSC's Hamming search)."""
    lines = []
    for r in rows:
        holovec = r.best("holovec")
        for extra in r.extras:
            ratio = "" if holovec is None else f", holovec/this {holovec / extra.timing.best:.2f}x"
            time = format_seconds(extra.timing.best)
            lines.append(f"{r.model} {r.label.split(' (')[0]}, {extra.label}: {time}{ratio}")
    return lines


OPS = Section(
    "ops",
    (MODEL, LABEL, HOLOVEC, BASELINE, FLAGGED_RATIO, TORCHHD),
    title="backend: {backend}",
    legend=(
        f"!: holovec takes more than {FLAG_RATIO}x the baseline's time "
        f"({FLAG_RATIO_LATENCY}x for the single-call latency rows)",
    ),
    table_notes=lambda rows: _storage_line(rows) + _extra_lines(rows),
)

ENCODERS = Section(
    "encoders",
    (MODEL, LABEL.named("encoder"), HOLOVEC, BASELINE.named("NumPy baseline"), RATIO, PER_ITEM),
    title="encoders, backend: {backend}",
    intro=("encoders: time per call (best of the samples); baseline: hand-written vectorised NumPy",),
)

RETRIEVAL = Section(
    "retrieval",
    (MODEL, LABEL, HOLOVEC, BASELINE.named("bare operation"), RATIO.named("holovec/bare"), PEAK_MEMORY),
    title="retrieval, backend: {backend}",
    intro=(
        f"retrieval: time per call (best of the samples); search is ItemStore.search(k={K}), "
        "next to the bare operation it is built on, on the same data",
    ),
)

#: the sections in the order they run and print
SECTIONS = {s.name: s for s in (OPS, ENCODERS, RETRIEVAL, LEARN)}
#: the sections a run without --sections runs (learn, minutes long, only when asked for)
DEFAULT_SECTIONS = ("ops", "encoders", "retrieval")
