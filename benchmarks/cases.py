"""The rows of the table: six operations per model, each timed three ways.

For every model, holovec makes the input vectors once (so all three sides work on
the same data), then each operation is timed on holovec, on the hand-written
baseline and on torchhd, and the results are compared once so that a baseline
that computes something else cannot go unnoticed. The 10,000 items of the
similarity row are made last and freed before the next model.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TextIO

import numpy as np

from holovec import VSA

from .implementations import HolovecOps, make_baseline, make_torchhd
from .sizes import Sizes
from .timing import Timing, measure

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

SIDES = ("holovec", "baseline", "torchhd")


@dataclass
class Result:
    """One row: an operation of one model on one backend."""

    backend: str
    model: str
    operation: str
    label: str
    latency: bool
    times: dict[str, Timing | None] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def ratio(self) -> float | None:
        """holovec's time over the baseline's (above 1: holovec is slower)."""
        h, b = self.times.get("holovec"), self.times.get("baseline")
        return None if h is None or b is None else h.best / b.best


@dataclass(frozen=True)
class Settings:
    sizes: Sizes
    repeat: int = 5  #: at most this many timed samples per cell
    budget_s: float = 1.0  #: stop sampling a cell after this long (once 2 samples are in)
    torchhd: bool = True  #: time torchhd too, where it imports


def make_inputs(model: Any, sizes: Sizes, names: tuple[str, ...], inputs: dict[str, Any]) -> None:
    """Add the named input vectors that ``inputs`` lacks, made by holovec."""
    rows = {"A": sizes.pairs, "B": sizes.pairs, "V": sizes.bundle, "Q": sizes.queries, "items": sizes.items}
    for name in names:
        if name not in inputs:
            n = rows.get(name)  # None: one vector
            inputs[name] = model.random(n, seed=INPUT_SEEDS[name])


def run_model(
    backend: str,
    model_name: str,
    settings: Settings,
    torchhd_cache: dict,
    progress: TextIO | None = None,
) -> list[Result]:
    """Every operation of one model on one backend."""
    sizes = settings.sizes
    model = VSA.create(model_name, dim=sizes.dim, backend=backend)
    sides: dict[str, Any] = {"holovec": HolovecOps(model), "baseline": make_baseline(model)}
    if settings.torchhd:
        sides["torchhd"] = make_torchhd(model)
    inputs: dict[str, Any] = {}
    adopted: dict[str, dict[str, Any]] = {name: {} for name in sides}
    results = []
    for op in OPERATIONS:
        if progress is not None:
            print(f"[{backend}] {model.name}: {op.key}", file=progress, flush=True)
        make_inputs(model, sizes, op.inputs, inputs)
        result = Result(backend, model.name, op.key, op.describe(sizes), op.latency)
        outputs = {}
        for side_name, side in sides.items():
            if side is None:
                result.times[side_name] = None
                continue
            args = adopted[side_name]
            for name in op.inputs:
                if name not in args:
                    args[name] = side.adopt(inputs[name])
            fn = op.call(side, args, sizes)
            cache_key = (model.name, op.key, sizes, str(getattr(side, "device", "")))
            if side_name == "torchhd" and cache_key in torchhd_cache:
                result.times[side_name], outputs[side_name] = torchhd_cache[cache_key]
                continue
            result.times[side_name] = measure(
                fn, side.wait, repeat=settings.repeat, budget_s=settings.budget_s
            )
            outputs[side_name] = _summary(side.wait(fn()), op.compare)
            if side_name == "torchhd":
                torchhd_cache[cache_key] = (result.times[side_name], outputs[side_name])
        result.notes = _disagreements(outputs, op.compare)
        results.append(result)
        if op.key == "similarity_matrix":  # the largest input: free it before the next rows
            for args in (inputs, *adopted.values()):
                args.pop("items", None)
            gc.collect()
    return results


def _to_numpy(x: Any) -> np.ndarray:
    if hasattr(x, "detach"):  # a torch tensor (or a torchhd subclass of one)
        import torch

        return x.detach().as_subclass(torch.Tensor).cpu().numpy()
    return np.asarray(x)


def _summary(result: Any, compare: str) -> Any:
    """What the comparison needs of one side's result: its dtype and shape for random
    draws (each side has its own generator), else the values."""
    array = _to_numpy(result)
    return (array.dtype.name, array.shape) if compare == "meta" else array


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
        if out.shape != reference.shape:
            notes.append(f"{side} gives shape {out.shape}, holovec {reference.shape}")
            continue
        same = np.isclose(out, reference, rtol=1e-4, atol=1e-4)
        # bundles of an even count differ where ties are broken (holovec: a seeded vector)
        needed = 0.9 if compare == "mostly" else 1.0
        if same.mean() < needed:
            notes.append(f"{side} agrees with holovec on {same.mean():.1%} of the values only")
        elif compare == "close" and out.dtype != reference.dtype and out.size > 1:
            notes.append(f"{side} gives {out.dtype}, holovec {reference.dtype}")
    return notes
