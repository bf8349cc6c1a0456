"""The three things each row times, behind one interface: holovec's model, the
hand-written baseline, and torchhd. Each has ``random``, ``bind``, ``bundle``,
``similarity_matrix``, ``similarity``, ``adopt`` (holovec's arrays as its own input)
and ``wait`` (block until a result is computed)."""

from __future__ import annotations

from typing import Any

from holovec import VSAModel

from .baselines import get_baseline
from .timing import waiter
from .torchhd_ops import TorchhdOps


class HolovecOps:
    """holovec's public API on one model."""

    def __init__(self, model: VSAModel) -> None:
        self.model = model
        self.bind = model.bind
        self.bundle = model.bundle
        self.similarity_matrix = model.similarity_matrix
        self.similarity = model.similarity
        # the same wait as the baseline's: on torch it is what backend.synchronize() does
        # (waits for CUDA work); on JAX it blocks on the result itself, where
        # backend.synchronize() would queue and time a computation of its own
        self.wait = waiter(model.backend.name, model.backend.device)

    def random(self, n: int, seed: int) -> Any:
        return self.model.random(n, seed=seed)

    def adopt(self, x: Any) -> Any:
        return x


class BaselineOps:
    """A hand-written baseline (see ``benchmarks.baselines``) on holovec's arrays."""

    def __init__(self, baseline: Any, backend_name: str, device: Any) -> None:
        self.random = baseline.random
        self.bind = baseline.bind
        self.bundle = baseline.bundle
        self.similarity_matrix = baseline.similarity_matrix
        self.similarity = baseline.similarity
        self.wait = waiter(backend_name, device)

    def adopt(self, x: Any) -> Any:
        return x


def make_baseline(model: VSAModel) -> BaselineOps | None:
    backend = model.backend
    device = backend.device if backend.name != "numpy" else None
    baseline = get_baseline(backend.name, model.name, model.dim, device)
    return None if baseline is None else BaselineOps(baseline, backend.name, device)


def make_torchhd(model: VSAModel) -> TorchhdOps | None:
    """torchhd on the torch backend's device, else on the CPU; None where it lacks the model."""
    if not TorchhdOps.supports(model.name):
        return None
    device = model.backend.device if model.backend.name == "torch" else "cpu"
    return TorchhdOps(model.name, model.dim, device)
