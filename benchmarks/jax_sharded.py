"""The jax-sharded section: search of a codebook sharded by rows over emulated JAX CPU
devices (issue 14, part 2).

For each case (model, dim, items), 100 queries, top-10:

- ``one device``: holovec's ``search`` of the codebook on one device;
- holovec (``sharded``): the same search of the codebook split by rows over ``DEVICES``
  emulated CPU devices (``holovec.retrieval.shard_rows``; a top-k per device in
  ``shard_map``, then a merge of ``k`` candidates per device);
- hand-written: one jitted function on one device, the similarity matrix as one ``jnp``
  product and ``jax.lax.top_k`` (no finiteness check, no chunking).

Goal: ``sharded / one device <= 1.2`` on the CPU, where the emulated devices share the same
cores (so sharding cannot be faster there; the ratio measures its overhead). JAX makes its
devices when it is first imported, so the section runs in a process of its own, started
with the XLA flag that makes them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from functools import partial
from pathlib import Path

import numpy as np

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, ratio_column, time_column
from .results import row_from_json, row_to_json
from .rows import Row
from .sizes import DEFAULT, Settings
from .tables import Section

#: (model, dim, items)
CASES = [("FHRR", 1024, 100_000), ("MAP", 1024, 100_000), ("MAP", 10_000, 25_000)]
QUICK_CASES = [("FHRR", 64, 4_000), ("MAP", 64, 4_000)]
QUERIES, QUICK_QUERIES, K, DEVICES = 100, 10, 10, 4


def _hand_written(name: str, dim: int):
    """Jitted ``(queries, items) -> top-k`` of the model's similarity, written by hand."""
    import jax
    import jax.numpy as jnp

    @jax.jit
    def top_k(q, items):
        scores = (jnp.real(q @ jnp.conj(items).T) if name == "FHRR" else q @ items.T) / dim
        return jax.lax.top_k(scores, K)

    return top_k


def _rows(settings: Settings, models: list[str] | None) -> list[Row]:
    """The rows, in a process whose JAX has ``DEVICES`` CPU devices."""
    import jax

    from holovec import VSA
    from holovec.retrieval import search, shard_rows

    if len(jax.devices()) != DEVICES:
        raise RuntimeError(f"jax has {len(jax.devices())} devices, not {DEVICES}: XLA_FLAGS came too late")
    rows, n_q = [], QUICK_QUERIES if settings.quick else QUERIES
    for name, dim, n in QUICK_CASES if settings.quick else CASES:
        if models is not None and name not in models:
            continue
        model = VSA.create(name, dim=dim, backend="jax", device="cpu")
        items, queries = model.random(n, seed=1), model.random(n_q, seed=2)
        sharded, baseline = shard_rows(items), _hand_written(name, dim)
        row = Row("jax-sharded", "jax", name, f"{dim}-{n}", f"D={dim:,}, {n:,} items, {n_q} queries")
        wait = jax.block_until_ready
        row.times["holovec"] = settings.measure(partial(search, model, queries, sharded, K), wait)
        row.times["one"] = settings.measure(partial(search, model, queries, items, K), wait)
        row.times["baseline"] = settings.measure(partial(baseline, queries, items), wait)
        if not np.array_equal(
            np.asarray(search(model, queries, items, K)[1]), np.asarray(search(model, queries, sharded, K)[1])
        ):
            row.notes.append("the sharded search finds other items than the search on one device")
        rows.append(row)
    return rows


def run(settings: Settings, backends: list[str]) -> list[Row]:
    settings.say(f"[jax] jax-sharded: in a process with {DEVICES} emulated CPU devices")
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={DEVICES}".strip()
    models = None if settings.models is None else settings.picked(("FHRR", "MAP"))
    timing = {"repeat": settings.repeat, "budget_s": settings.budget_s, "quick": settings.quick}
    options = json.dumps({"settings": timing, "models": models})
    code = "import sys; from benchmarks.jax_sharded import child; child(sys.argv[1])"
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code, options], env=env, cwd=root, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"the jax-sharded process failed:\n{done.stderr[-3000:]}")
    return [row_from_json(r) for r in json.loads(done.stdout.splitlines()[-1])]


def child(options: str) -> None:
    """The section's process: its rows as one line of JSON."""
    given = json.loads(options)
    rows = _rows(Settings(DEFAULT, **given["settings"]), given["models"])
    print(json.dumps([row_to_json(r) for r in rows]))


SECTION = Section(
    "jax-sharded",
    (
        MODEL,
        LABEL.named("case"),
        time_column("one", "one device"),
        HOLOVEC.named("sharded"),
        ratio_column("holovec", "one", "sharded/one device"),
        BASELINE.named("hand-written"),
        RATIO.named("sharded/hand-written"),
    ),
    title="jax-sharded: top-10 search, backend: {backend}",
    intro=(
        f"jax-sharded: search of a codebook sharded by rows over {DEVICES} emulated CPU devices against "
        "the same search on one device (goal: 1.2x) and a jitted hand-written top-k",
    ),
    run=run,
    backends=("jax",),
    supports=("jax",),
    needs=("jax",),
)

if __name__ == "__main__":  # python -m benchmarks.jax_sharded [--quick]: the old spelling
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
