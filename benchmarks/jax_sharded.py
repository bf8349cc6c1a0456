"""Search of a codebook sharded by rows over emulated JAX CPU devices (issue 14, part 2).

For each case (model, dim, items), 100 queries, top-10: the median time of

- ``one device``: holovec's ``search`` of the codebook on one device;
- ``sharded``: the same search of the codebook split by rows over ``--devices`` emulated CPU
  devices (``holovec.retrieval.shard_rows``; a top-k per device in ``shard_map``, then a
  merge of ``k`` candidates per device);
- ``hand-written``: one jitted function on one device, the similarity matrix as one ``jnp``
  product and ``jax.lax.top_k`` (no finiteness check, no chunking).

Goal: ``sharded / one device <= 1.2`` on the CPU, where the emulated devices share the
same cores (so sharding cannot be faster there; the ratio measures its overhead). Never
asserted in tests. The XLA flag that makes the devices is set here, before jax is imported.
Run::

    python -m benchmarks.jax_sharded [--quick] [--devices 4] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable

import numpy as np

from ._args import positive_int, require

#: (model, dim, items)
CASES = [("FHRR", 1024, 100_000), ("MAP", 1024, 100_000), ("MAP", 10_000, 25_000)]
QUICK_CASES = [("FHRR", 64, 4_000), ("MAP", 64, 4_000)]
QUERIES, K = 100, 10


def _median_seconds(fn: Callable, repeats: int, block: Callable) -> float:
    block(fn())  # compile and warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        block(fn())
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def _hand_written(name: str, dim: int) -> Callable:
    """Jitted ``(queries, items) -> top-k`` of the model's similarity, written by hand."""
    import jax
    import jax.numpy as jnp

    @jax.jit
    def top_k(q, items):
        if name == "FHRR":
            scores = jnp.real(q @ jnp.conj(items).T) / dim
        else:
            scores = (q @ items.T) / dim
        return jax.lax.top_k(scores, K)

    return top_k


def run_case(name: str, dim: int, n: int, repeats: int) -> dict[str, float]:
    import jax

    from holovec import VSA
    from holovec.retrieval import search, shard_rows

    model = VSA.create(name, dim=dim, backend="jax", device="cpu")
    items = model.random(n, seed=1)
    queries = model.random(QUERIES, seed=2)
    sharded = shard_rows(items)
    baseline = _hand_written(name, dim)
    block = jax.block_until_ready
    one = search(model, queries, items, K)
    many = search(model, queries, sharded, K)
    assert np.array_equal(np.asarray(one[1]), np.asarray(many[1])), "sharded result differs"
    out = {
        "one device": _median_seconds(lambda: search(model, queries, items, K), repeats, block),
        "sharded": _median_seconds(lambda: search(model, queries, sharded, K), repeats, block),
        "hand-written": _median_seconds(lambda: baseline(queries, items), repeats, block),
    }
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.jax_sharded", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="tiny cases, one repeat (a smoke run)")
    parser.add_argument("--devices", type=positive_int, default=4, help="emulated CPU devices (default 4)")
    parser.add_argument("--repeats", type=positive_int, default=5, help="timed runs per variant (median)")
    args = parser.parse_args(argv)
    require(parser, "jax", "this benchmark")
    flags = os.environ.get("XLA_FLAGS", "")
    os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count={args.devices}".strip()
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax

    if len(jax.devices()) != args.devices:
        raise SystemExit(
            f"jax has {len(jax.devices())} devices, not {args.devices}: jax was set up before this "
            "module set XLA_FLAGS (run it as its own process)"
        )
    cases, repeats = (QUICK_CASES, 1) if args.quick else (CASES, args.repeats)
    print(
        f"jax {jax.__version__} on {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
        f"{args.devices} emulated CPU devices; {QUERIES} queries, top-{K}; median of {repeats}"
    )
    print(f"{'model':<6}{'dim':>7}{'items':>9}  {'one device':>11}{'sharded':>11}{'ratio':>7}", end="")
    print(f"{'hand-written':>14}")
    for name, dim, n in cases:
        t = run_case(name, dim, n, repeats)
        ratio = t["sharded"] / t["one device"]
        print(
            f"{name:<6}{dim:>7}{n:>9}  {t['one device'] * 1e3:>9.1f}ms{t['sharded'] * 1e3:>9.1f}ms"
            f"{ratio:>6.2f}x{t['hand-written'] * 1e3:>12.1f}ms",
            flush=True,
        )


if __name__ == "__main__":
    main()
