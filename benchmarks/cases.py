"""The rows of the table: six operations per model, each timed three ways.

For every model, holovec makes the input vectors once (so all three sides work on
the same data), then each operation is timed on holovec, on the hand-written
baseline and on torchhd, and the results are compared once so that a baseline
that computes something else cannot go unnoticed. The 10,000 items of the
similarity row are made last and freed before the next model.

A table entry is a holovec model with its options (``ModelEntry``): every registered
model as it is created by default, and BSC once more stored bit-packed ("BSC packed").
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO

import numpy as np

from holovec import VSA

from .implementations import HolovecOps, make_baseline, make_torchhd
from .rows import SIDES, Extra, Row, disagreement, to_numpy
from .sizes import Settings, Sizes
from .timing import measure

#: the seed of every draw a row times (each side uses its own generator)
RANDOM_SEED = 7
#: seeds of the input vectors holovec makes for the other rows
INPUT_SEEDS = {"A": 11, "B": 12, "V": 13, "Q": 14, "items": 15, "a": 21, "b": 22}


@dataclass(frozen=True)
class Operation:
    key: str
    describe: Callable[[Sizes], str]  #: the row's label for these sizes
    inputs: tuple[str, ...]  #: names of the input vectors (see ``make_inputs``)
    call: Callable[[Any, dict[str, Any], Sizes], Callable[[], Any]]  #: (side, inputs, sizes) -> fn()
    compare: str  #: how results of two sides must agree: "meta", "close" or "mostly"
    latency: bool = False  #: a single call on two vectors (the Python overhead shows)


OPERATIONS = (
    Operation(
        "random",
        lambda s: f"random codebook, {s.codebook:,} vectors",
        (),
        lambda side, x, s: partial(side.random, s.codebook, RANDOM_SEED),
        "meta",
    ),
    Operation(
        "bind",
        lambda s: f"bind, {s.pairs:,} pairs",
        ("A", "B"),
        lambda side, x, s: partial(side.bind, x["A"], x["B"]),
        "close",
    ),
    Operation(
        "bundle",
        lambda s: f"bundle of {s.bundle:,} vectors",
        ("V",),
        lambda side, x, s: partial(side.bundle, x["V"]),
        "mostly",
    ),
    Operation(
        "similarity_matrix",
        lambda s: f"similarity, {s.queries:,} queries x {s.items:,} items",
        ("Q", "items"),
        lambda side, x, s: partial(side.similarity_matrix, x["Q"], x["items"]),
        "close",
    ),
    Operation(
        "bind_latency",
        lambda s: "bind latency, 2 vectors",
        ("a", "b"),
        lambda side, x, s: partial(side.bind, x["a"], x["b"]),
        "close",
        latency=True,
    ),
    Operation(
        "similarity_latency",
        lambda s: "similarity latency, 2 vectors",
        ("a", "b"),
        lambda side, x, s: partial(side.similarity, x["a"], x["b"]),
        "close",
        latency=True,
    ),
)


@dataclass(frozen=True)
class ModelEntry:
    """One model of the table: a holovec model, created with some options."""

    key: str  #: its name for ``--models`` and for ``benchmarks.baselines`` (e.g. "BSC-packed")
    label: str  #: its name in the table (e.g. "BSC packed")
    model: str  #: holovec's model name (e.g. "BSC")
    packed: bool = False  #: ``VSA.create(..., packed=True)``: bit-packed storage
    #: text added to a row's label, by operation key (says what the baseline is where that differs)
    label_notes: tuple[tuple[str, str], ...] = ()

    def create(self, dim: int, backend: str) -> Any:
        options = {"packed": True} if self.packed else {}
        return VSA.create(self.model, dim=dim, backend=backend, **options)

    def describe(self, op: Operation, sizes: Sizes) -> str:
        return op.describe(sizes) + dict(self.label_notes).get(op.key, "")


#: BSC stored 8 bits per byte; its similarity row is timed against the float matrix-product
#: search of the same codebook (README)
PACKED_BSC = ModelEntry(
    "BSC-packed",
    "BSC packed",
    "BSC",
    packed=True,
    label_notes=(("similarity_matrix", " (baseline: float32 matmul)"),),
)


def available_entries() -> list[ModelEntry]:
    """Every registered model, and packed BSC right after BSC."""
    entries = []
    for name in VSA.available_models():
        entries.append(ModelEntry(name, name, name))
        if name == "BSC":
            entries.append(PACKED_BSC)
    return entries


def entry_key(name: str) -> str:
    """The form ``--models`` names are matched in: any case, "-", "_" or " " alike."""
    return name.strip().upper().replace("_", "-").replace(" ", "-")


def find_entry(name: str) -> ModelEntry | None:
    return next((e for e in available_entries() if entry_key(e.key) == entry_key(name)), None)


def make_inputs(model: Any, sizes: Sizes, names: tuple[str, ...], inputs: dict[str, Any]) -> None:
    """Add the named input vectors that ``inputs`` lacks, made by holovec."""
    rows = {"A": sizes.pairs, "B": sizes.pairs, "V": sizes.bundle, "Q": sizes.queries, "items": sizes.items}
    for name in names:
        if name not in inputs:
            n = rows.get(name)  # None: one vector
            inputs[name] = model.random(n, seed=INPUT_SEEDS[name])


def run_ops(settings: Settings, backends: list[str]) -> list[Row]:
    """Every ops row for every backend and model (``--models``, else every entry)."""
    results: list[Row] = []
    torchhd_cache: dict = {}  # torchhd runs on torch's CPU whatever the backend: time it once
    for backend in backends:
        for model in settings.models or available_entries():
            results += run_model(backend, model, settings, torchhd_cache, settings.progress)
    return results


def run_model(
    backend: str,
    entry: ModelEntry | str,
    settings: Settings,
    torchhd_cache: dict,
    progress: TextIO | None = None,
) -> list[Row]:
    """Every operation of one model (an entry, or a model name) on one backend."""
    if isinstance(entry, str):
        entry = find_entry(entry) or ModelEntry(entry, entry, entry)
    sizes = settings.sizes
    model = entry.create(sizes.dim, backend)
    sides: dict[str, Any] = {"holovec": HolovecOps(model), "baseline": make_baseline(model, entry.key)}
    if settings.torchhd:
        sides["torchhd"] = make_torchhd(model)
    inputs: dict[str, Any] = {}
    adopted: dict[str, dict[str, Any]] = {name: {} for name in sides}
    results = []
    for op in OPERATIONS:
        if progress is not None:
            print(f"[{backend}] {entry.label}: {op.key}", file=progress, flush=True)
        make_inputs(model, sizes, op.inputs, inputs)
        label = entry.describe(op, sizes)
        result = Row("ops", backend, entry.label, op.key, label, dict.fromkeys(SIDES), latency=op.latency)
        outputs = {}
        for side_name, side in sides.items():
            if side is None or not getattr(side, "has_op", lambda key: True)(op.key):
                result.times[side_name] = None
                continue
            args = adopted[side_name]
            for name in op.inputs:
                if name not in args:
                    args[name] = side.adopt(inputs[name], name)
            fn = op.call(side, args, sizes)
            cache_key = (entry.key, op.key, sizes, str(getattr(side, "device", "")))
            if side_name == "torchhd" and cache_key in torchhd_cache:
                result.times[side_name], outputs[side_name] = torchhd_cache[cache_key]
                continue
            result.times[side_name] = measure(
                fn, side.wait, repeat=settings.repeat, budget_s=settings.budget_s
            )
            outputs[side_name] = _summary(side.wait(fn()), op.compare, entry.packed)
            if side_name == "torchhd":
                torchhd_cache[cache_key] = (result.times[side_name], outputs[side_name])
        result.notes = _disagreements(outputs, op.compare)
        baseline = sides["baseline"]
        for key, label, extra in () if baseline is None else baseline.extras.get(op.key, ()):
            # on holovec's own inputs (the baseline's adopted ones may be converted)
            fn = partial(extra, *(inputs[name] for name in op.inputs))
            timing = measure(fn, baseline.wait, repeat=settings.repeat, budget_s=settings.budget_s)
            result.extras.append(Extra(key, label, timing))
            out = _summary(baseline.wait(fn()), op.compare, entry.packed)
            result.notes += _disagreements(
                {"holovec": outputs["holovec"], f"baseline {key}": out}, op.compare
            )
        if "items" in op.inputs:
            result.storage = _storage(model, entry, inputs["items"], adopted)
        results.append(result)
        if op.key == "similarity_matrix":  # the largest input: free it before the next rows
            for args in (inputs, *adopted.values()):
                args.pop("items", None)
            gc.collect()
    return results


def _storage(
    model: Any, entry: ModelEntry, items: Any, adopted: dict[str, dict[str, Any]]
) -> dict[str, tuple[int, str]]:
    """Bytes per vector (and dtype) of the items holovec and the baseline search."""

    def per_vector(x: Any) -> tuple[int, str]:
        array = to_numpy(x[:1])
        return array.nbytes, array.dtype.name

    storage = {"holovec": per_vector(items)}
    if entry.packed:
        storage["unpacked"] = per_vector(model.unpack(items[:1]))
    if "items" in adopted.get("baseline", {}):
        storage["baseline"] = per_vector(adopted["baseline"]["items"])
    return storage


def _summary(result: Any, compare: str, packed: bool = False) -> Any:
    """What the comparison needs of one side's result: its dtype and shape for random
    draws (each side has its own generator), else the values; packed bundles as bits
    (a tie broken otherwise changes one bit, not a whole byte)."""
    array = to_numpy(result)
    if compare == "meta":
        return (array.dtype.name, array.shape)
    if packed and compare == "mostly":
        return np.unpackbits(array, axis=-1, bitorder="little")
    return array


def _disagreements(outputs: dict[str, Any], compare: str) -> list[str]:
    """Notes for every side whose result differs from holovec's."""
    reference = outputs.get("holovec")
    notes = []
    for side, out in outputs.items():
        if side == "holovec" or reference is None:
            continue
        if compare == "meta":
            if out != reference:
                notes.append(f"{side} makes {out[0]} {out[1]}, holovec {reference[0]} {reference[1]}")
            continue
        # bundles of an even count differ where ties are broken (holovec: a seeded vector)
        differs = disagreement(reference, out, needed=0.9 if compare == "mostly" else 1.0)
        if differs:
            notes.append(f"{side} {differs}")
        elif compare == "close" and out.dtype != reference.dtype and out.size > 1:
            notes.append(f"{side} gives {out.dtype}, holovec {reference.dtype}")
    return notes
