"""The Dask backend against the NumPy backend on one machine (issue 14, part 1).

Two workloads, each made and consumed chunk by chunk so that memory stays bounded:

* search: 100 queries over 10^6 items (BSC, bit-packed: ``packed=True``) at D=1,024 and
  D=10,000, top-10. The codebook is ``model.random(10**6, seed=...)``: on Dask each chunk
  of rows is made on its worker and searched there (local top-k, tree of merges); the
  NumPy baseline is the same work written as a loop in one process (draw a chunk of rows
  of the same draw, search it, merge the candidates). A second row searches a codebook
  already in memory (NumPy: one array; Dask: persisted on the workers).
* encoding: 10^6 scalars by a FractionalPowerEncoder (FHRR, D=1,024), chunk by chunk:
  NumPy encodes the chunks in a loop; Dask maps the encoder over a dask array of inputs.
  Neither keeps the vectors (8 GB): each chunk is reduced to one number.

Dask runs on a ``LocalCluster`` of 1 and of 2 worker processes (one thread each). Each
time is the best of ``--repeat`` runs (default 2). Printed: seconds, items/s, and the
ratio Dask / NumPy (goal: at most 1.3 for search on one worker). Never asserted in tests.
Run::

    python -m benchmarks.dask_scaling [--quick]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from collections.abc import Callable

import numpy as np

from ._args import positive_int, require

SEED_ITEMS, SEED_QUERIES = 1, 2
K = 10


def best_time(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


# -- NumPy baselines: the same rows, a loop in one process ---------------------------------
def numpy_search_loop(model, queries: np.ndarray, n: int, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Draw rows ``[start, start + chunk)`` of ``model.random(n, seed=SEED_ITEMS)``, search them,
    merge the candidates: the NumPy backend doing what the Dask path does, in one process."""
    from holovec.random import Purpose
    from holovec.retrieval import search

    best = None
    for start in range(0, n, chunk):
        stop = min(start + chunk, n)
        rows = model._random_rows(start, stop, SEED_ITEMS, 0, Purpose.VECTORS)
        s, i = search(model, queries, rows, k=K)
        found = (s, i + start)
        best = found if best is None else model.backend.merge_top_k(best, found, K)
    return best


def numpy_encode_loop(encoder, values: np.ndarray, chunk: int) -> float:
    total = 0.0
    for start in range(0, len(values), chunk):
        total += float(np.abs(encoder.encode(values[start : start + chunk])[:, 0]).sum())
    return total


def _first_column_sum(block: np.ndarray) -> np.ndarray:
    return np.abs(block[:, 0]).sum(keepdims=True)


# -- the runs ------------------------------------------------------------------------------------
def run(
    n_items: int, dims: tuple[int, ...], n_queries: int, n_values: int, workers: tuple[int, ...], repeat: int
):
    import dask.array as da
    from distributed import Client, LocalCluster

    from holovec import VSA
    from holovec.backends import dask_backend
    from holovec.encoders import FractionalPowerEncoder
    from holovec.retrieval import search

    rows: list[tuple[str, str, float, float]] = []  # (what, where, seconds, items/s)

    def record(what: str, where: str, seconds: float, items: int) -> None:
        rows.append((what, where, seconds, items / seconds))
        print(f"  {what:<34} {where:<10} {seconds:8.2f} s  {items / seconds:14,.0f} items/s", flush=True)

    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs; numpy {np.__version__}")
    values = np.linspace(0.0, 100.0, n_values)
    for dim in dims:
        ref = VSA.create("BSC", dim, backend="numpy", packed=True)
        queries = ref.random(n_queries, seed=SEED_QUERIES)
        chunk = max(1, dask_backend.CHUNK_BYTES // ref.vector_length)
        what = f"search BSC D={dim} (draw + search)"
        t, expected = best_time(lambda: numpy_search_loop(ref, queries, n_items, chunk), repeat)  # noqa: B023
        record(what, "numpy", t, n_items)
        in_memory = ref.random(n_items, seed=SEED_ITEMS) if n_items * ref.vector_length <= 2**31 else None
        if in_memory is not None:
            t, _ = best_time(lambda: search(ref, queries, in_memory, k=K), repeat)  # noqa: B023
            record(f"search BSC D={dim} (in memory)", "numpy", t, n_items)
        for w in workers:
            with (
                LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None) as c,
                Client(c),
            ):
                model = VSA.create("BSC", dim, backend="dask", packed=True)
                q = model.asarray(queries)

                def lazy_search(model=model, q=q):
                    s, i = search(model, q, model.random(n_items, seed=SEED_ITEMS), k=K)
                    return model.to_numpy(s), model.to_numpy(i)

                t, (s, i) = best_time(lazy_search, repeat)
                assert np.array_equal(i, expected[1]) and np.array_equal(s, expected[0])
                record(what, f"dask x{w}", t, n_items)
                if in_memory is not None:
                    book = model.random(n_items, seed=SEED_ITEMS).persist()
                    t, _ = best_time(lambda: search(model, q, book, k=K), repeat)  # noqa: B023
                    record(f"search BSC D={dim} (in memory)", f"dask x{w}", t, n_items)
                    del book
                if dim == dims[0]:
                    fhrr = VSA.create("FHRR", 1024, backend="dask")
                    enc = FractionalPowerEncoder(fhrr, 0.0, 100.0, seed=3)
                    chunk_values = max(1, dask_backend.CHUNK_BYTES // (8 * 1024))
                    lazy_values = da.from_array(values, chunks=chunk_values)

                    def encode(enc=enc, lazy_values=lazy_values):
                        out = enc.encode(lazy_values)
                        sums = out.map_blocks(
                            _first_column_sum, chunks=((1,) * out.numblocks[0],), drop_axis=1
                        )
                        return float(sums.sum().compute())

                    t, _ = best_time(encode, repeat)
                    record(
                        "encode 1e6 scalars FPE FHRR D=1024" if n_values == 10**6 else "encode FPE FHRR",
                        f"dask x{w}",
                        t,
                        n_values,
                    )
        if dim == dims[0]:
            fhrr_np = VSA.create("FHRR", 1024, backend="numpy")
            enc_np = FractionalPowerEncoder(fhrr_np, 0.0, 100.0, seed=3)
            chunk_values = max(1, dask_backend.CHUNK_BYTES // (8 * 1024))
            t, _ = best_time(lambda: numpy_encode_loop(enc_np, values, chunk_values), repeat)  # noqa: B023
            record(
                "encode 1e6 scalars FPE FHRR D=1024" if n_values == 10**6 else "encode FPE FHRR",
                "numpy",
                t,
                n_values,
            )
    print()
    print("ratios (time on Dask / time on NumPy; goal for search: <= 1.3 on one machine)")
    by = {(what, where): seconds for what, where, seconds, _ in rows}
    for what in dict.fromkeys(w for w, _, _, _ in rows):
        base = by.get((what, "numpy"))
        parts = [
            f"x{w}: {by[(what, f'dask x{w}')] / base:5.2f}" for w in workers if (what, f"dask x{w}") in by
        ]
        if base and parts:
            speedup = ""
            if (what, "dask x1") in by and (what, "dask x2") in by:
                gain = by[(what, "dask x1")] / by[(what, "dask x2")]
                speedup = f"   (throughput of 2 workers / 1 worker: {gain:.2f}x)"
            print(f"  {what:<34} {'  '.join(parts)}{speedup}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.dask_scaling", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    parser.add_argument("--repeat", type=positive_int, default=2, help="timed runs per cell (best)")
    args = parser.parse_args(argv)
    require(parser, "dask", "this benchmark")
    if args.quick:
        run(n_items=20_000, dims=(256,), n_queries=10, n_values=20_000, workers=(1,), repeat=1)
    else:
        run(
            n_items=10**6,
            dims=(1024, 10_000),
            n_queries=100,
            n_values=10**6,
            workers=(1, 2),
            repeat=args.repeat,
        )


if __name__ == "__main__":
    main()
