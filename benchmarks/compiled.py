"""The compiled section: batched ops inside the user's compiler (issue 13, item 3).

- **JAX, under ``jax.jit``**: holovec's ``bind`` of two batches, ``bundle`` of a batch and
  ``similarity_matrix`` of 100 queries against 1,000 items, each wrapped by the user in
  ``jax.jit``, next to the same computation written by hand in ``jax.numpy`` and jitted.
  Goal: at most 1.2x.
- **torch, eager and ``torch.compile``**: one ``bind`` and one ``similarity`` of two
  vectors, and the batched ``similarity_matrix``, called eagerly through holovec and
  written by hand in eager torch, and both under ``torch.compile`` (inductor): whether
  compiling pays for these ops on this machine (a compile that fails is a ``check`` line).

The results of the two sides are compared once (bundles, whose tie rules and scaling
differ, are not).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, time_column
from .jax_eager import hand_written
from .rows import Row
from .sizes import Settings
from .tables import Section
from .timing import waiter

BATCH, QUERIES = 1_000, 100
QUICK_BATCH, QUICK_QUERIES = 100, 10


def _torch_hand_written(name: str, dim: int) -> dict[str, Callable]:
    import torch

    if name == "FHRR":
        return {
            "bind": torch.mul,
            "similarity": lambda x, y: torch.clamp(torch.real(torch.vdot(y, x)) / dim, -1.0, 1.0),
            "similarity_matrix": lambda q, s: torch.clamp(torch.real(q @ s.conj().T) / dim, -1.0, 1.0),
        }
    return {
        "bind": torch.mul,
        "similarity": lambda x, y: torch.clamp(torch.dot(x, y) / dim, -1.0, 1.0),
        "similarity_matrix": lambda q, s: torch.clamp((q @ s.T) / dim, -1.0, 1.0),
    }


def _sizes(settings: Settings) -> tuple[int, int]:
    return (QUICK_BATCH, QUICK_QUERIES) if settings.quick else (BATCH, QUERIES)


def _jax_rows(settings: Settings) -> list[Row]:
    import jax

    from holovec import VSA

    batch, n_q = _sizes(settings)
    rows = []
    for name in settings.picked(("FHRR", "MAP", "HRR")):
        settings.say(f"[jax] compiled: {name}")
        model = VSA.create(name, dim=settings.dim, backend="jax", device="cpu")
        a, b = model.random(batch, seed=1), model.random(batch, seed=2)
        theirs = hand_written(name, settings.dim, batch)
        for op, args in (("bind", (a, b)), ("bundle", (a,)), ("similarity_matrix", (a[:n_q], b))):
            ours, hand = jax.jit(getattr(model, op)), jax.jit(theirs[op])
            label = f"{op}, batch {batch:,}" + (f", {n_q} queries" if op == "similarity_matrix" else "")
            row = Row("compiled", "jax", name, op, label, baseline_name="in jax.jit")
            row.times["holovec"] = settings.measure(lambda f=ours, x=args: f(*x), jax.block_until_ready)
            row.times["baseline"] = settings.measure(lambda f=hand, x=args: f(*x), jax.block_until_ready)
            if op != "bundle" and not np.allclose(ours(*args), hand(*args), rtol=1e-4, atol=1e-4):
                row.notes.append("the hand-written result differs from holovec's")
            rows.append(row)
    return rows


def _compiled_time(settings: Settings, row: Row, who: str, fn: Callable, args: tuple, plain: Callable) -> Any:
    import torch

    try:
        compiled = torch.compile(fn, dynamic=False)
        torch.testing.assert_close(compiled(*args), plain(*args), rtol=1e-4, atol=1e-4)
        return settings.measure(lambda: compiled(*args))
    except Exception as exc:  # e.g. no C++ compiler here: say so under the table
        row.notes.append(f"torch.compile of {who} failed: {type(exc).__name__}: {str(exc)[:120]}")
        return None
    finally:
        torch._dynamo.reset()  # each compiled function alone in the cache


def _torch_rows(settings: Settings) -> list[Row]:
    from holovec import VSA

    batch, n_q = _sizes(settings)
    rows = []
    for name in settings.picked(("FHRR", "MAP")):
        settings.say(f"[torch] compiled: {name}")
        model = VSA.create(name, dim=settings.dim, backend="torch")
        a, b = model.random(seed=1), model.random(seed=2)
        items = model.random(batch, seed=3)
        hand = _torch_hand_written(name, settings.dim)
        for op, args in (
            ("bind", (a, b)),
            ("similarity", (a, b)),
            ("similarity_matrix", (items[:n_q], items)),
        ):
            ours = getattr(model, op)
            label = f"{op}, " + (f"{n_q} x {batch:,}" if op == "similarity_matrix" else "2 vectors")
            row = Row("compiled", "torch", name, op, label, baseline_name="eager")
            row.times["holovec"] = settings.measure(lambda f=ours, x=args: f(*x), waiter("torch"))
            row.times["baseline"] = settings.measure(lambda f=hand[op], x=args: f(*x))
            row.times["holovec_compiled"] = _compiled_time(settings, row, "holovec", ours, args, hand[op])
            row.times["baseline_compiled"] = _compiled_time(
                settings, row, "hand-written", hand[op], args, hand[op]
            )
            rows.append(row)
    return rows


def run(settings: Settings, backends: list[str]) -> list[Row]:
    return (_jax_rows(settings) if "jax" in backends else []) + (
        _torch_rows(settings) if "torch" in backends else []
    )


SECTION = Section(
    "compiled",
    (
        MODEL,
        LABEL,
        HOLOVEC,
        BASELINE.named("hand-written"),
        RATIO,
        time_column("holovec_compiled", "holovec, torch.compile"),
        time_column("baseline_compiled", "hand-written, torch.compile"),
    ),
    title="compiled, backend: {backend}",
    intro=(
        "compiled: on jax, holovec inside the user's jax.jit against jitted jax.numpy (goal: 1.2x); "
        "on torch, eager holovec and hand-written torch, and each under torch.compile",
    ),
    run=run,
    backends=("jax", "torch"),
    supports=("jax", "torch"),
)

if __name__ == "__main__":  # python -m benchmarks.compiled [--quick]: the old spelling
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
