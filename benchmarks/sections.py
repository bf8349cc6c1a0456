"""Every section of ``python -m benchmarks``, in the order they run and print: how each
makes its rows (``Section.run``) and shows them (its columns, titles and the lines around
its tables, all rendered by ``tables``)."""

from __future__ import annotations

from dataclasses import replace

from . import (
    canonical_order,
    clustering,
    compiled,
    dask_scaling,
    jax_eager,
    jax_sharded,
    memory,
    robustness,
    search_engines,
    suite,
    timeseries,
    trained,
)
from .cases import run_ops
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
from .encoders import run_encoders
from .learn import LEARN, add_to_json, run_learn
from .retrieval import K, run_retrieval
from .rows import FLAG_RATIO, FLAG_RATIO_LATENCY, Row
from .sizes import Settings
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


def _encoders(settings: Settings, backends: list[str]) -> list[Row]:
    return run_encoders(
        backends,
        dim=settings.dim,
        quick=settings.quick,
        repeat=settings.repeat,
        budget_s=settings.budget_s,
        progress=settings.progress,
    )


def _retrieval(settings: Settings, backends: list[str]) -> list[Row]:
    return run_retrieval(
        backends,
        dim=settings.dim,
        quick=settings.quick,
        repeat=settings.repeat,
        budget_s=settings.budget_s,
        models=settings.models,
        progress=settings.progress,
    )


def _learn(settings: Settings, backends: list[str]) -> list[Row]:
    return run_learn(
        backends, dim=settings.dim, quick=settings.quick, torchhd=settings.torchhd, progress=settings.progress
    )


def _learn_json(data: dict, rows: list[Row], settings: Settings) -> None:
    add_to_json(data, rows, dim=settings.dim, quick=settings.quick)


OPS = Section(
    "ops",
    (MODEL, LABEL, HOLOVEC, BASELINE, FLAGGED_RATIO, TORCHHD),
    title="backend: {backend}",
    legend=(
        f"!: holovec takes more than {FLAG_RATIO}x the baseline's time "
        f"({FLAG_RATIO_LATENCY}x for the single-call latency rows)",
    ),
    table_notes=lambda rows: _storage_line(rows) + _extra_lines(rows),
    run=run_ops,
)

ENCODERS = Section(
    "encoders",
    (MODEL, LABEL.named("encoder"), HOLOVEC, BASELINE.named("NumPy baseline"), RATIO, PER_ITEM),
    title="encoders, backend: {backend}",
    intro=("encoders: time per call (best of the samples); baseline: hand-written vectorised NumPy",),
    run=_encoders,
)

RETRIEVAL = Section(
    "retrieval",
    (MODEL, LABEL, HOLOVEC, BASELINE.named("bare operation"), RATIO.named("holovec/bare"), PEAK_MEMORY),
    title="retrieval, backend: {backend}",
    intro=(
        f"retrieval: time per call (best of the samples); search is ItemStore.search(k={K}), "
        "next to the bare operation it is built on, on the same data",
    ),
    run=_retrieval,
)

_SECTIONS = (
    OPS,
    ENCODERS,
    RETRIEVAL,
    replace(LEARN, run=_learn, add_json=_learn_json, needs=("sklearn",)),
    canonical_order.SECTION,
    search_engines.SECTION,
    jax_eager.SECTION,
    compiled.SECTION,
    jax_sharded.SECTION,
    dask_scaling.SECTION,
    memory.SECTION,
    clustering.SECTION,
    trained.SECTION,
    timeseries.SECTION,
    robustness.SECTION,
    suite.SECTION,
)
#: the sections in the order they run and print
SECTIONS = {s.name: s for s in _SECTIONS}
#: the sections a run without --sections runs (the others take minutes, or time one idea)
DEFAULT_SECTIONS = ("ops", "encoders", "retrieval")
