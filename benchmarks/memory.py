"""The memory section: store and recall in holovec's memories (issue 23).

For MAP vectors of ``--dim`` elements (default 10,000): 10,000 patterns stored, then 1,000
noisy cues recalled in one step (``--quick``: 1,000 patterns, 100 cues), by the classical
Hopfield network, the modern (softmax) Hopfield network and a sparse distributed memory of
10,000 hard locations (written with the 10,000 patterns, autoassociatively). Each row
times holovec's class (construction, store and one recall) next to the same computation
written by hand in the backend's own framework (through its array namespace: matrix
products, a sign, a softmax), and next to torchhd's ``memory.SparseDistributed`` where
torchhd is installed (torch backend). Run on a GPU machine with ``--backend torch`` (or
``jax``) for the GPU rows: each framework runs on its default device.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from holovec import kernels

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, TORCHHD
from .rows import Row
from .sizes import Settings
from .tables import Section
from .timing import waiter
from .torchhd_ops import torchhd_status

PATTERNS, QUICK_PATTERNS = 10_000, 1_000
CUES, QUICK_CUES = 1_000, 100
NOISE = 0.1  #: fraction of a cue's elements flipped


def _inputs(model: Any, n: int, n_cues: int) -> tuple[Any, Any]:
    """``n`` seeded patterns and ``n_cues`` cues: the first patterns with NOISE of their
    elements flipped."""
    patterns = model.random(n, seed=1)
    rng = np.random.default_rng(2)
    flips = np.where(rng.random((n_cues, model.dim)) < NOISE, -1.0, 1.0).astype(np.float32)
    cues = patterns[:n_cues] * model.backend.from_numpy(flips)
    return patterns, cues


def _hand_written(model: Any, beta: float, threshold: float) -> dict[str, Any]:
    """The three memories written by hand over the backend's namespace (float32 +-1)."""
    xp, dot = model.xp, partial(kernels.matmul, model.backend)

    def sign_keep(h: Any, previous: Any) -> Any:
        return xp.where(h == 0, previous, xp.sign(h))

    def hopfield(patterns: Any, cues: Any) -> Any:
        h = dot(dot(cues, xp.permute_dims(patterns, (1, 0))), patterns) - patterns.shape[0] * cues
        return sign_keep(h, cues)

    def modern(patterns: Any, cues: Any) -> Any:
        scores = beta * dot(cues, xp.permute_dims(patterns, (1, 0))) / model.dim
        weights = xp.exp(scores - xp.max(scores, axis=1, keepdims=True))
        weights = weights / xp.sum(weights, axis=1, keepdims=True)
        return xp.sign(dot(weights, patterns))  # 0 at a tie (holovec breaks it from its seed)

    def sdm(locations: Any, patterns: Any, cues: Any) -> Any:
        t = xp.permute_dims
        written = xp.astype(dot(patterns, t(locations, (1, 0))) >= threshold, patterns.dtype)
        counters = dot(t(written, (1, 0)), patterns)
        read = xp.astype(dot(cues, t(locations, (1, 0))) >= threshold, patterns.dtype)
        return xp.sign(dot(read, counters))  # 0 at a tie (holovec breaks it from its seed)

    return {"hopfield": hopfield, "modern": modern, "sdm": sdm}


def run(settings: Settings, backends: list[str]) -> list[Row]:
    n = QUICK_PATTERNS if settings.quick else PATTERNS
    n_cues = QUICK_CUES if settings.quick else CUES
    rows: list[Row] = []
    for backend in backends if settings.picked(("MAP",)) else ():
        settings.say(f"[{backend}] memory: MAP, {n:,} patterns, {n_cues:,} cues")
        rows += _backend_rows(settings, backend, n, n_cues)
    return rows


def _backend_rows(settings: Settings, backend: str, n: int, n_cues: int) -> list[Row]:
    from holovec import VSA
    from holovec.memory import Hopfield, ModernHopfield, SparseDistributedMemory

    wait = waiter(backend)
    model = VSA.create("MAP", dim=settings.dim, backend=backend, seed=0)
    patterns, cues = _inputs(model, n, n_cues)
    beta = ModernHopfield(model).beta
    sdm = SparseDistributedMemory(model, n, seed=3)
    # the hand-written SDM uses holovec's locations and activation threshold (as a dot product)
    theirs = _hand_written(model, beta, model.dim - 2 * sdm.radius)
    locations = sdm.locations

    def hopfield_ours() -> Any:
        memory = Hopfield(model)
        memory.store(patterns)
        return memory.recall(cues, iterations=1)

    def modern_ours() -> Any:
        memory = ModernHopfield(model, beta=beta)
        memory.store(patterns)
        return memory.recall(cues)

    def sdm_ours() -> Any:
        memory = SparseDistributedMemory(model, n, radius=sdm.radius, seed=3)
        memory.write(patterns, patterns)
        return memory.read(cues)

    cases = (
        ("hopfield", "Hopfield", hopfield_ours, lambda: theirs["hopfield"](patterns, cues)),
        ("modern", "modern Hopfield", modern_ours, lambda: theirs["modern"](patterns, cues)),
        ("sdm", f"SDM, {n:,} locations", sdm_ours, lambda: theirs["sdm"](locations, patterns, cues)),
    )
    rows = []
    for key, name, ours, hand in cases:
        row = Row("memory", backend, "MAP", key, f"{name}: store {n:,}, recall {n_cues:,}")
        row.times["holovec"] = settings.measure(ours, wait)
        row.times["baseline"] = settings.measure(hand, wait)
        theirs_host = model.backend.to_numpy(hand())
        untied = theirs_host != 0  # ties: holovec's seeded tie-break decides
        differ = np.mean(model.backend.to_numpy(ours())[untied] != theirs_host[untied])
        if differ > 0:
            row.notes.append(f"the hand-written result differs from holovec's in {differ:.2%} of elements")
        rows.append(row)
    if backend == "torch" and settings.torchhd and torchhd_status()[0] is not None:
        rows[-1].times["torchhd"] = _torchhd_sdm(settings, sdm, patterns, cues, wait)
    return rows


def _torchhd_sdm(settings: Settings, sdm: Any, patterns: Any, cues: Any, wait: Any) -> Any:
    """torchhd's SparseDistributed with the same number of locations and activation
    probability (its own random locations), written and read alike."""
    import torchhd

    dim, n = sdm.model.dim, sdm.n_locations
    p = sdm.activation_probability  # the exact binomial tail, P[Bin(dim, 1/2) <= radius]

    def run() -> Any:
        memory = torchhd.memory.SparseDistributed(n, dim, dim, p=p, device=patterns.device)
        memory.write(patterns, patterns)
        return memory.read(cues)

    return settings.measure(run, wait)


SECTION = Section(
    "memory",
    (MODEL, LABEL, HOLOVEC, BASELINE.named("hand-written"), RATIO, TORCHHD),
    title="memory, backend: {backend}",
    intro=(
        "memory: construction, store and one recall of noisy cues (best of the samples); "
        "hand-written: the same products in the backend's own framework",
    ),
    run=run,
)

if __name__ == "__main__":  # python -m benchmarks.memory [--quick]
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
