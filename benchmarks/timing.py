"""How one operation is timed: warm up once, then the best (minimum) of several samples.

Fast operations are called many times per sample, so that each sample lasts at
least ``MIN_SAMPLE_S`` and the clock's resolution does not matter; the time
reported is per call. The minimum is the estimate least disturbed by other work
on the machine (as ``timeit`` recommends); the median is kept alongside it.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: a sample of a fast operation repeats it until it lasts at least this long
MIN_SAMPLE_S = 0.02
#: at most this many calls in one sample (for operations of a microsecond)
MAX_CALLS_PER_SAMPLE = 100_000


@dataclass(frozen=True)
class Timing:
    """Seconds per call of one operation."""

    best: float  #: the minimum over the samples
    median: float  #: the median over the samples
    samples: int  #: how many samples were taken (after the warm-up)
    calls_per_sample: int  #: calls timed together in each sample


def measure(
    fn: Callable[[], Any],
    wait: Callable[[Any], Any],
    *,
    repeat: int,
    budget_s: float,
    min_samples: int = 2,
) -> Timing:
    """Time ``fn()``; ``wait(result)`` blocks until the result is computed (asynchronous
    frameworks) and is timed with the call.

    One warm-up call (which also compiles, for jit), then samples until ``repeat``
    samples are taken, or until ``budget_s`` seconds have passed and at least
    ``min(min_samples, repeat)`` samples are taken; one sample only where the warm-up
    call alone outlasted the budget (calls of seconds vary little).
    """
    repeat = max(1, repeat)
    start = time.perf_counter()
    wait(fn())  # warm up: caches, allocator, jit compilation
    if time.perf_counter() - start >= budget_s:
        min_samples = 1

    def sample(calls: int) -> float:
        start = time.perf_counter()
        for _ in range(calls):
            wait(fn())
        return time.perf_counter() - start

    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        began = time.perf_counter()
        calls, elapsed = 1, sample(1)
        # like timeit.autorange: grow the sample until it lasts long enough to time
        while elapsed < MIN_SAMPLE_S and calls < MAX_CALLS_PER_SAMPLE:
            calls = min(MAX_CALLS_PER_SAMPLE, calls * 10 if elapsed < MIN_SAMPLE_S / 10 else calls * 2)
            elapsed = sample(calls)
        per_call = [elapsed / calls]
        least = min(min_samples, repeat)
        while len(per_call) < repeat and (len(per_call) < least or time.perf_counter() - began < budget_s):
            per_call.append(sample(calls) / calls)
    finally:
        if gc_was_enabled:
            gc.enable()
    return Timing(min(per_call), statistics.median(per_call), len(per_call), calls)


#: a stateful call (a fit) faster than this is called again, the least time kept ...
QUICK_CALL_S = 0.2
#: ... for at most this long, and at most this many calls
REPEAT_BUDGET_S, MAX_REPEATS = 0.5, 10


def first_call_or_least(fn: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of ``fn()`` without a warm-up, for calls whose first run is what a
    user sees (a fit): one call, or where that took under ``QUICK_CALL_S`` the least of a
    few calls (``REPEAT_BUDGET_S`` in all), so that a call of milliseconds is not one noisy
    sample. The learn section times each fit so, once per split."""
    start = time.perf_counter()
    result = fn()
    best = time.perf_counter() - start
    if best < QUICK_CALL_S:
        began = time.perf_counter()
        for _ in range(MAX_REPEATS - 1):
            if time.perf_counter() - began > REPEAT_BUDGET_S:
                break
            start = time.perf_counter()
            result = fn()
            best = min(best, time.perf_counter() - start)
    return best, result


def no_wait(result: Any) -> Any:
    return result


def waiter(framework: str, device: Any = None) -> Callable[[Any], Any]:
    """``wait(result)`` for ``measure``: blocks until a result of this framework is computed,
    and returns it.

    NumPy computes before it returns; JAX dispatches asynchronously on every device;
    PyTorch does so on CUDA only.
    """
    if framework == "jax":
        import jax

        return jax.block_until_ready
    if framework == "torch" and device is not None:
        import torch

        if torch.device(device).type == "cuda":

            def wait(result: Any) -> Any:
                torch.cuda.synchronize()
                return result

            return wait
    return no_wait
