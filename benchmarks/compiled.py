"""Batched ops inside the user's compiler: ``python -m benchmarks.compiled [--quick]``.

Two tables (issue 13, item 3; never asserted in tests):

- **JAX, under ``jax.jit``**: holovec's ``bind`` of two batches, ``bundle`` of a batch and
  ``similarity_matrix`` of 100 queries against 1,000 items, each wrapped by the user in
  ``jax.jit``, next to the same computation written by hand in ``jax.numpy`` and jitted.
  Goal: at most 1.2x.
- **torch, eager and ``torch.compile``**: one ``bind`` and one ``similarity`` of two
  vectors, and the batched ``similarity_matrix``, called eagerly through holovec and
  written by hand in eager torch, and both under ``torch.compile`` (inductor): whether
  compiling pays for these ops on this machine.

Times are medians of many calls, each waited for, the two sides called in turn.
"""

from __future__ import annotations

import argparse
import os
import platform
from collections.abc import Callable

import numpy as np

from ._args import require
from .jax_eager import compare as _median_pair  # medians of calls in turn

DIM = 10_000
BATCH = 1_000
QUERIES = 100


def _jax_hand_written(name: str) -> dict[str, Callable]:
    """Batched bind, bundle and similarity matrix of ``name``, in jax.numpy."""
    import jax.numpy as jnp

    if name == "FHRR":
        return {
            "bind": jnp.multiply,
            "bundle": lambda x: jnp.exp(1j * jnp.angle(jnp.sum(x, axis=0))).astype(jnp.complex64),
            "similarity_matrix": lambda q, b: jnp.clip(jnp.real(q @ jnp.conj(b).T) / DIM, -1.0, 1.0),
        }
    if name == "MAP":
        return {
            "bind": jnp.multiply,
            "bundle": lambda x: jnp.sign(jnp.sum(x, axis=0)),
            "similarity_matrix": lambda q, b: jnp.clip((q @ b.T) / DIM, -1.0, 1.0),
        }
    if name == "HRR":

        def cosine(q, b):
            norms = jnp.sqrt(jnp.sum(q * q, -1)[:, None] * jnp.sum(b * b, -1)[None, :])
            return jnp.clip((q @ b.T) / norms, -1.0, 1.0)

        return {
            "bind": lambda a, b: jnp.fft.irfft(jnp.fft.rfft(a) * jnp.fft.rfft(b), n=DIM),
            "bundle": lambda x: jnp.sum(x, axis=0),
            "similarity_matrix": cosine,
        }
    raise ValueError(name)


def jax_rows(calls: int) -> list[tuple[str, str, float, float]]:
    """(model, op, holovec under jit, hand-written under jit) in microseconds."""
    import jax

    from holovec import VSA

    rows = []
    for name in ("FHRR", "MAP", "HRR"):
        model = VSA.create(name, dim=DIM, backend="jax", device="cpu")
        a, b = model.random(BATCH, seed=1), model.random(BATCH, seed=2)
        q = a[:QUERIES]
        theirs = _jax_hand_written(name)
        cases = {
            "bind": ((a, b), jax.jit(model.bind), jax.jit(theirs["bind"])),
            "bundle": ((a,), jax.jit(model.bundle), jax.jit(theirs["bundle"])),
            "similarity_matrix": (
                (q, b),
                jax.jit(model.similarity_matrix),
                jax.jit(theirs["similarity_matrix"]),
            ),
        }
        for op, (args, ours, hand) in cases.items():
            if op != "bundle":  # bundles differ by tie rule and scaling: the same work, not equal values
                np.testing.assert_allclose(
                    np.asarray(ours(*args)), np.asarray(hand(*args)), rtol=1e-4, atol=1e-4
                )
            t_ours, t_hand = _median_pair(
                lambda f=ours, x=args: f(*x), lambda f=hand, x=args: f(*x), calls, jax.block_until_ready
            )
            rows.append((name, op, t_ours, t_hand))
    return rows


def torch_rows(calls: int) -> list[tuple]:
    """(model, op, holovec eager, hand-written eager, holovec and hand-written under
    torch.compile, None where compiling failed)."""
    import torch

    from holovec import VSA

    def block(x):
        return x

    rows = []
    for name in ("FHRR", "MAP"):
        model = VSA.create(name, dim=DIM, backend="torch")
        a, b = model.random(seed=1), model.random(seed=2)
        items = model.random(BATCH, seed=3)
        queries = items[:QUERIES]
        if name == "FHRR":
            hand = {
                "bind": torch.mul,
                "similarity": lambda x, y: torch.clamp(torch.real(torch.vdot(y, x)) / DIM, -1.0, 1.0),
                "similarity_matrix": lambda q, s: torch.clamp(torch.real(q @ s.conj().T) / DIM, -1.0, 1.0),
            }
        else:
            hand = {
                "bind": torch.mul,
                "similarity": lambda x, y: torch.clamp(torch.dot(x, y) / DIM, -1.0, 1.0),
                "similarity_matrix": lambda q, s: torch.clamp((q @ s.T) / DIM, -1.0, 1.0),
            }
        for op, args in (("bind", (a, b)), ("similarity", (a, b)), ("similarity_matrix", (queries, items))):
            ours, plain = getattr(model, op), hand[op]
            t_ours, t_plain = _median_pair(
                lambda f=ours, x=args: f(*x), lambda f=plain, x=args: f(*x), calls, block
            )
            t_compiled = {}
            for who, fn in (("holovec", ours), ("hand-written", plain)):
                try:
                    compiled = torch.compile(fn, dynamic=False)
                    torch.testing.assert_close(compiled(*args), plain(*args), rtol=1e-4, atol=1e-4)
                    _, t_compiled[who] = _median_pair(
                        lambda f=plain, x=args: f(*x), lambda f=compiled, x=args: f(*x), calls, block
                    )
                except Exception as exc:  # e.g. no C++ compiler here: say so in the table
                    print(
                        f"torch.compile of {who} {name} {op} failed: {type(exc).__name__}: {str(exc)[:120]}"
                    )
                    t_compiled[who] = None
                finally:
                    torch._dynamo.reset()  # each compiled function alone in the cache
            rows.append((name, op, t_ours, t_plain, t_compiled["holovec"], t_compiled["hand-written"]))
    return rows


def _us(t: float | None) -> str:
    if t is None:
        return "n/a"
    return f"{t / 1000:.2f} ms" if t >= 1000 else f"{t:.1f} us"


def jax_table(rows: list) -> str:
    lines = [
        f"| model | op (batch {BATCH}, {QUERIES} queries) | holovec in jax.jit "
        "| hand-written in jax.jit | ratio | goal |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, op, ours, hand in rows:
        lines.append(f"| {name} | {op} | {_us(ours)} | {_us(hand)} | {ours / hand:.2f}x | 1.2x |")
    return "\n".join(lines)


def torch_table(rows: list) -> str:
    lines = [
        "| model | op | holovec eager | hand-written eager | holovec, torch.compile "
        "| hand-written, torch.compile |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, op, ours, plain, ours_c, plain_c in rows:
        lines.append(f"| {name} | {op} | {_us(ours)} | {_us(plain)} | {_us(ours_c)} | {_us(plain_c)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.compiled", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="fewer calls (a smoke run)")
    parser.add_argument("--only", choices=("jax", "torch"), help="one table")
    args = parser.parse_args(argv)
    for framework in ("jax", "torch"):
        if args.only in (None, framework):
            require(parser, framework, f"the {framework} table (--only picks one table)")
    calls = 20 if args.quick else 200
    cpu = platform.processor() or platform.machine()
    print(f"{cpu}, {os.cpu_count()} cores; D={DIM}")
    if args.only != "torch":
        import jax

        print(f"\nJAX {jax.__version__}, {jax.devices()[0].platform}: batched ops under jax.jit")
        print(jax_table(jax_rows(calls)))
    if args.only != "jax":
        import torch

        print(f"\ntorch {torch.__version__}, cpu: eager against torch.compile")
        print(torch_table(torch_rows(calls)))


if __name__ == "__main__":
    main()
