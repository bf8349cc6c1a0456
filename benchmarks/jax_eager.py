"""Eager JAX against jitted hand-written code (issue 13, item 3).

For FHRR, MAP, BSC and HRR at D=10,000 on JAX: the latency of one eager call of holovec's
``bind`` and ``similarity`` (two vectors) next to the same computation written by hand in
``jax.numpy`` and wrapped in ``jax.jit``; and ``random(1000, seed=...)`` next to a jitted
``jax.random`` draw of vectors of the same size and dtype (the model's distribution written
by hand: phasors of uniform phases, Rademacher signs, bits, normals). Goals: at most 2x for
a single call, at most 1.2x for ``random``. Never asserted in tests.

Every time is the median of many calls, each waited for (``block_until_ready``), holovec's
and the hand-written one called in turn, so that a load that comes and goes weighs on both
alike. Run::

    python -m benchmarks.jax_eager [--quick]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from collections.abc import Callable

import numpy as np

from ._args import require

DIM = 10_000
N_RANDOM = 1000
MODELS = ("FHRR", "MAP", "BSC", "HRR")


def compare(ours: Callable, theirs: Callable, calls: int, block: Callable) -> tuple[float, float]:
    """Median latencies (microseconds) of ``ours`` and ``theirs``, called in turn."""
    for fn in (ours, theirs):  # compile and warm up
        for _ in range(3):
            block(fn())
    times = np.empty((2, calls))
    for i in range(calls):
        for j, fn in enumerate((ours, theirs)):
            start = time.perf_counter()
            block(fn())
            times[j, i] = time.perf_counter() - start
    return float(np.median(times[0])) * 1e6, float(np.median(times[1])) * 1e6


def hand_written(name: str, dim: int, n: int) -> dict[str, Callable]:
    """The jitted jax.numpy versions of bind, similarity and the random draw of ``name``."""
    import jax
    import jax.numpy as jnp

    if name == "FHRR":

        def similarity(a, b):
            return jnp.clip(jnp.real(jnp.vdot(b, a)) / dim, -1.0, 1.0)

        def draw(key):
            phases = jax.random.uniform(key, (n, dim), jnp.float32, -math.pi, math.pi)
            return jax.lax.complex(jnp.cos(phases), jnp.sin(phases))

        bind = jnp.multiply
    elif name == "MAP":

        def similarity(a, b):
            return jnp.clip(jnp.dot(a, b) / dim, -1.0, 1.0)

        def draw(key):
            return jax.random.rademacher(key, (n, dim), jnp.float32)

        bind = jnp.multiply
    elif name == "BSC":

        def similarity(a, b):
            return 1.0 - 2.0 * jnp.count_nonzero(a ^ b).astype(jnp.float32) / dim

        def draw(key):
            return jax.random.bernoulli(key, 0.5, (n, dim)).astype(jnp.uint8)

        bind = jnp.bitwise_xor
    elif name == "HRR":

        def similarity(a, b):
            norms = jnp.sqrt(jnp.dot(a, a) * jnp.dot(b, b))
            return jnp.clip(jnp.dot(a, b) / norms, -1.0, 1.0)

        def draw(key):
            return jax.random.normal(key, (n, dim), jnp.float32) * (1.0 / math.sqrt(dim))

        def bind(a, b):
            return jnp.fft.irfft(jnp.fft.rfft(a) * jnp.fft.rfft(b), n=dim)
    else:
        raise ValueError(name)
    return {"bind": jax.jit(bind), "similarity": jax.jit(similarity), "random": jax.jit(draw)}


def model_rows(name: str, calls: int, random_calls: int) -> list[tuple[str, str, float, float]]:
    import jax

    from holovec import VSA

    block = jax.block_until_ready
    model = VSA.create(name, dim=DIM, backend="jax", device="cpu")
    a, b = model.random(seed=1), model.random(seed=2)
    theirs = hand_written(name, DIM, N_RANDOM)
    rows = []
    for op in ("bind", "similarity"):
        ours_fn, theirs_fn = getattr(model, op), theirs[op]
        want, got = np.asarray(theirs_fn(a, b)), np.asarray(ours_fn(a, b))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)  # the same computation
        t_ours, t_theirs = compare(lambda f=ours_fn: f(a, b), lambda f=theirs_fn: f(a, b), calls, block)
        rows.append((name, op, t_ours, t_theirs))
    key = jax.random.key(0)
    seeds = iter(range(10**9))
    t_ours, t_theirs = compare(
        lambda: model.random(N_RANDOM, seed=next(seeds)), lambda: theirs["random"](key), random_calls, block
    )
    rows.append((name, f"random({N_RANDOM})", t_ours, t_theirs))
    return rows


def run(quick: bool = False) -> list[tuple[str, str, float, float]]:
    calls, random_calls = (300, 5) if quick else (3000, 15)
    return [row for name in MODELS for row in model_rows(name, calls, random_calls)]


def table(rows: list[tuple[str, str, float, float]]) -> str:
    lines = [
        "| model | op | holovec eager | jitted hand-written | ratio | goal |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, op, ours, theirs in rows:
        goal = "1.2x" if op.startswith("random") else "2x"
        unit = (lambda t: f"{t / 1000:.1f} ms") if op.startswith("random") else (lambda t: f"{t:.1f} us")
        lines.append(f"| {name} | {op} | {unit(ours)} | {unit(theirs)} | {ours / theirs:.2f}x | {goal} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.jax_eager", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    args = parser.parse_args(argv)
    require(parser, "jax", "this benchmark")
    import jax

    import holovec

    cpu = platform.processor() or platform.machine()
    print(
        f"holovec {getattr(holovec, '__version__', '?')} from {os.path.dirname(holovec.__file__)}; "
        f"jax {jax.__version__} on {jax.devices()[0].platform}; {cpu}, {os.cpu_count()} cores; D={DIM}"
    )
    print(table(run(args.quick)))


if __name__ == "__main__":
    main()
