"""The one row type of every section (ops, encoders, retrieval): what one line of a table
measured. The sections fill the fields they have; the renderer (``tables``) and the JSON
writer (``results``) read them all the same way."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .timing import Timing

#: the sides a row can time: holovec's public API, the hand-written baseline, torchhd
SIDES = ("holovec", "baseline", "torchhd")
#: an ops row is flagged when holovec takes more than this many times the baseline's time
FLAG_RATIO = 1.5
#: ... or, for a single call on two vectors (fixed Python overhead), this many times
FLAG_RATIO_LATENCY = 3.0


@dataclass
class Extra:
    """Another hand-written version of a row's operation, timed on holovec's inputs."""

    key: str
    label: str
    timing: Timing


@dataclass
class Row:
    """One operation (or encoder, or search) of one model on one backend."""

    section: str  #: "ops", "encoders" or "retrieval"
    backend: str
    model: str  #: the model's name in the table (e.g. "BSC packed")
    #: what the row times, unique within its model and backend in a section: an operation
    #: ("bind"), an encoder case ("fpe_decode"), a search ("search-100x10000"), "resonator"
    key: str
    label: str  #: the row's text in the table
    #: seconds per call by side (``SIDES``); None: that side was not timed
    times: dict[str, Timing | None] = field(default_factory=dict)
    #: what the baseline is, where its column needs saying (retrieval: "XOR/popcount")
    baseline_name: str = ""
    latency: bool = False  #: a single call on two vectors (the Python overhead shows)
    notes: list[str] = field(default_factory=list)  #: checks that failed (a side computes otherwise)
    info: list[str] = field(default_factory=list)  #: what else the row measured (accuracy)
    #: bytes per vector and dtype of the items each side searches ("holovec", "baseline";
    #: packed BSC also "unpacked")
    storage: dict[str, tuple[int, str]] = field(default_factory=dict)
    extras: list[Extra] = field(default_factory=list)
    peak_bytes: dict[str, int | None] = field(default_factory=dict)  #: by side; None: not seen
    items: int = 0  #: items per call (values, images, kB of text), for the time per item
    item_name: str = ""  #: "value", "image", "kB", ...

    def best(self, side: str) -> float | None:
        """The side's best time per call, or None where it was not timed."""
        timing = self.times.get(side)
        return None if timing is None else timing.best

    @property
    def ratio(self) -> float | None:
        """holovec's time over the baseline's (above 1: holovec is slower)."""
        h, b = self.best("holovec"), self.best("baseline")
        return None if h is None or b is None else h / b

    @property
    def flagged(self) -> bool:
        """An ops row where holovec takes more than ``FLAG_RATIO`` (latency rows:
        ``FLAG_RATIO_LATENCY``) times the baseline's time; the tables mark it "!". Encoder
        and retrieval rows are not flagged: their baselines compute less (a grid search, the
        bare product without the top-k)."""
        ratio = self.ratio
        limit = FLAG_RATIO_LATENCY if self.latency else FLAG_RATIO
        return self.section == "ops" and ratio is not None and ratio > limit


def to_numpy(x: Any) -> np.ndarray:
    """A result of any side (NumPy, JAX, a torch tensor or a torchhd subclass of one) on the host."""
    if hasattr(x, "detach"):
        import torch

        return x.detach().as_subclass(torch.Tensor).cpu().numpy()
    return np.asarray(x)


def disagreement(
    expected: Any, got: Any, *, atol: float = 1e-4, rtol: float = 1e-4, needed: float = 1.0
) -> str | None:
    """None where ``got`` is holovec's result ``expected`` (at least the share ``needed`` of
    its values within the tolerances), else what differs: every section checks its sides so,
    and notes what it returns (a baseline that computes something else shows)."""
    expected, got = to_numpy(expected), to_numpy(got)
    if expected.shape != got.shape:
        return f"gives shape {got.shape}, holovec {expected.shape}"
    same = np.isclose(got, expected, rtol=rtol, atol=atol).mean()
    return None if same >= needed else f"agrees with holovec on {same:.1%} of the values only"
