"""The jax-eager section: eager JAX against jitted hand-written code (issue 13, item 3).

For FHRR, MAP, BSC and HRR on JAX: one eager call of holovec's ``bind`` and ``similarity``
(two vectors) next to the same computation written by hand in ``jax.numpy`` and wrapped in
``jax.jit``; and ``random(1000, seed=...)`` next to a jitted ``jax.random`` draw of vectors
of the same size and dtype (the model's distribution written by hand: phasors of uniform
phases, Rademacher signs, bits, normals). Goals: at most 2x for a single call, at most 1.2x
for ``random``. Each call is waited for (``block_until_ready``); the two results of bind
and similarity are compared once (a ``check`` line flags a difference).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, Column
from .rows import Row
from .sizes import Settings
from .tables import Section
from .timing import waiter

MODELS = ("FHRR", "MAP", "BSC", "HRR")
N_RANDOM, QUICK_RANDOM = 1000, 100
#: holovec / hand-written that each row aims at, by operation
GOALS = {"bind": 2.0, "similarity": 2.0, "random": 1.2}


def hand_written(name: str, dim: int, n: int) -> dict[str, Callable]:
    """The jax.numpy versions (not jitted) of ``name``'s bind and similarity of two vectors,
    its random draw of ``n`` vectors (from a key), and (not BSC) its bundle and similarity
    matrix of batches (the compiled section's)."""
    import jax
    import jax.numpy as jnp

    code: dict[str, Callable] = {"bind": jnp.multiply}
    if name == "FHRR":
        code["similarity"] = lambda a, b: jnp.clip(jnp.real(jnp.vdot(b, a)) / dim, -1.0, 1.0)
        code["similarity_matrix"] = lambda q, b: jnp.clip(jnp.real(q @ jnp.conj(b).T) / dim, -1.0, 1.0)
        code["bundle"] = lambda x: jnp.exp(1j * jnp.angle(jnp.sum(x, axis=0))).astype(jnp.complex64)

        def draw(key):
            phases = jax.random.uniform(key, (n, dim), jnp.float32, -math.pi, math.pi)
            return jax.lax.complex(jnp.cos(phases), jnp.sin(phases))

    elif name == "MAP":
        code["similarity"] = lambda a, b: jnp.clip(jnp.dot(a, b) / dim, -1.0, 1.0)
        code["similarity_matrix"] = lambda q, b: jnp.clip((q @ b.T) / dim, -1.0, 1.0)
        code["bundle"] = lambda x: jnp.sign(jnp.sum(x, axis=0))

        def draw(key):
            return jax.random.rademacher(key, (n, dim), jnp.float32)

    elif name == "BSC":
        code["bind"] = jnp.bitwise_xor
        code["similarity"] = lambda a, b: 1.0 - 2.0 * jnp.count_nonzero(a ^ b).astype(jnp.float32) / dim

        def draw(key):
            return jax.random.bernoulli(key, 0.5, (n, dim)).astype(jnp.uint8)

    elif name == "HRR":

        def cosine(q, b):
            norms = jnp.sqrt(jnp.sum(q * q, -1)[..., None] * jnp.sum(b * b, -1)[None, ...])
            return jnp.clip((q @ b.T) / norms, -1.0, 1.0)

        code["bind"] = lambda a, b: jnp.fft.irfft(jnp.fft.rfft(a) * jnp.fft.rfft(b), n=dim)
        code["similarity"] = lambda a, b: jnp.clip(
            jnp.dot(a, b) / jnp.sqrt(jnp.dot(a, a) * jnp.dot(b, b)), -1.0, 1.0
        )
        code["similarity_matrix"], code["bundle"] = cosine, lambda x: jnp.sum(x, axis=0)

        def draw(key):
            return jax.random.normal(key, (n, dim), jnp.float32) * (1.0 / math.sqrt(dim))

    else:
        raise ValueError(f"no hand-written JAX code for model {name!r}: {', '.join(MODELS)}")
    return {**code, "random": draw}


def run(settings: Settings, backends: list[str]) -> list[Row]:
    import jax

    from holovec import VSA

    wait, n = waiter("jax"), QUICK_RANDOM if settings.quick else N_RANDOM
    rows = []
    for name in settings.picked(MODELS):
        settings.say(f"[jax] jax-eager: {name}")
        model = VSA.create(name, dim=settings.dim, backend="jax", device="cpu")
        a, b = model.random(seed=1), model.random(seed=2)
        theirs = {op: jax.jit(f) for op, f in hand_written(name, settings.dim, n).items()}
        for op in ("bind", "similarity"):
            ours = getattr(model, op)
            row = Row("jax-eager", "jax", name, op, f"{op}, 2 vectors", baseline_name="jitted")
            row.times["holovec"] = settings.measure(lambda f=ours: f(a, b), wait)  # noqa: B023
            row.times["baseline"] = settings.measure(lambda f=theirs[op]: f(a, b), wait)  # noqa: B023
            if not np.allclose(np.asarray(ours(a, b)), np.asarray(theirs[op](a, b)), rtol=1e-5, atol=1e-5):
                row.notes.append("the hand-written result differs from holovec's")
            rows.append(row)
        seeds, key = iter(range(10**9)), jax.random.key(0)
        row = Row("jax-eager", "jax", name, "random", f"random({n})", baseline_name="jitted")
        row.times["holovec"] = settings.measure(lambda m=model: m.random(n, seed=next(seeds)), wait)  # noqa: B023
        row.times["baseline"] = settings.measure(lambda f=theirs["random"]: f(key), wait)  # noqa: B023
        rows.append(row)
    return rows


SECTION = Section(
    "jax-eager",
    (
        MODEL,
        LABEL,
        HOLOVEC.named("holovec eager"),
        BASELINE.named("hand-written"),
        RATIO,
        Column("goal", lambda row: f"{GOALS[row.key]}x"),
    ),
    title="jax-eager: one eager call, backend: {backend}",
    intro=("jax-eager: holovec called eagerly against the same computation in jax.numpy under jax.jit",),
    run=run,
    backends=("jax",),
    supports=("jax",),
    needs=("jax",),
)

if __name__ == "__main__":  # python -m benchmarks.jax_eager [--quick]: the old spelling
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
