"""The three things each row times, behind one interface: holovec's model, the
hand-written baseline, and torchhd. Each has ``random``, ``bind``, ``bundle``,
``similarity_matrix``, ``similarity``, ``adopt`` (holovec's arrays as its own input,
given the input's name) and ``wait`` (block until a result is computed)."""

from __future__ import annotations

from collections.abc import Callable
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

    def adopt(self, x: Any, name: str | None = None) -> Any:
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
        self._adopt = getattr(baseline, "adopt", None)
        #: further hand-written versions of an operation, timed on holovec's own inputs and
        #: printed under the table: operation key -> ((key, label, fn), ...)
        self.extras: dict[str, tuple[tuple[str, str, Callable[..., Any]], ...]] = {
            op: tuple((key, label, getattr(baseline, method)) for key, label, method in entries)
            for op, entries in getattr(baseline, "extras", {}).items()
        }

    def adopt(self, x: Any, name: str | None = None) -> Any:
        """holovec's input ``name`` as the baseline takes it (by default as it is; the packed
        BSC baseline searches +1/-1 float32 copies of the similarity row's operands)."""
        return x if self._adopt is None else self._adopt(x, name)


def make_baseline(model: VSAModel, key: str | None = None) -> BaselineOps | None:
    """The baseline of ``model`` (or of the benchmark entry ``key``, e.g. ``"BSC-packed"``)."""
    backend = model.backend
    device = backend.device if backend.name != "numpy" else None
    baseline = get_baseline(backend.name, key or model.name, model.dim, device)
    return None if baseline is None else BaselineOps(baseline, backend.name, device)


def make_torchhd(model: VSAModel) -> TorchhdOps | None:
    """torchhd on the torch backend's device, else on the CPU; None where it lacks the model
    (or its storage: torchhd has no bit-packed BSC)."""
    if getattr(model, "packed", False) or not TorchhdOps.supports(model.name):
        return None
    device = model.backend.device if model.backend.name == "torch" else "cpu"
    return TorchhdOps(model.name, model.dim, device, block_size=getattr(model, "r", None))
