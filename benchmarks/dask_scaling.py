"""The dask-scaling section: the Dask backend against the NumPy backend on one machine
(issue 14, part 1).

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

Dask runs on a ``LocalCluster`` of 1 and of 2 worker processes (one thread each). The
ratio is Dask / NumPy (goal: at most 1.3 for search on one worker).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from holovec import kernels

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, PER_ITEM, RATIO
from .rows import Row
from .sizes import Settings
from .tables import Section

SEED_ITEMS, SEED_QUERIES, K = 1, 2, 10
#: (items, dims, queries, scalars, worker counts)
FULL = (10**6, (1024, 10_000), 100, 10**6, (1, 2))
QUICK = (20_000, (256,), 10, 20_000, (1,))


def numpy_search_loop(model: Any, queries: np.ndarray, n: int, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Draw rows ``[start, start + chunk)`` of ``model.random(n, seed=SEED_ITEMS)``, search them,
    merge the candidates: the NumPy backend doing what the Dask path does, in one process."""
    from holovec.random import Purpose
    from holovec.retrieval import search

    best = None
    for start in range(0, n, chunk):
        rows = model.draw(min(chunk, n - start), SEED_ITEMS, Purpose.VECTORS, row_start=start)
        s, i = search(model, queries, rows, k=K)
        best = (s, i + start) if best is None else kernels.merge_top_k(model.backend, best, (s, i + start), K)
    return best


def _first_column_sum(block: np.ndarray) -> np.ndarray:
    return np.abs(block[:, 0]).sum(keepdims=True)


def _numpy_encode_loop(encoder: Any, values: np.ndarray, chunk: int) -> float:
    return sum(
        float(_first_column_sum(encoder.encode(values[s : s + chunk]))[0])
        for s in range(0, len(values), chunk)
    )


def _dask_encode(enc: Any, lazy_values: Any) -> float:
    out = enc.encode(lazy_values)
    sums = out.map_blocks(_first_column_sum, chunks=((1,) * out.numblocks[0],), drop_axis=1)
    return float(sums.sum().compute())


def run(settings: Settings, backends: list[str]) -> list[Row]:
    import dask.array as da
    from distributed import Client, LocalCluster

    from holovec import VSA
    from holovec.backends import dask_backend
    from holovec.encoders import FractionalPowerEncoder
    from holovec.retrieval import search

    n_items, dims, n_q, n_values, workers = QUICK if settings.quick else FULL
    values = np.linspace(0.0, 100.0, n_values)
    chunk_values = max(1, dask_backend.CHUNK_BYTES // (8 * 1024))
    numpy_times, rows = {}, []

    def row(what: str, key: str, model: str, w: int, items: int) -> Row:
        r = Row("dask-scaling", "dask", model, f"{key}-x{w}", f"{what}, dask x{w}", baseline_name="NumPy")
        r.times["baseline"], r.items, r.item_name = numpy_times[key], items, "item"
        rows.append(r)
        return r

    enc_np = FractionalPowerEncoder(VSA.create("FHRR", 1024, backend="numpy"), 0.0, 100.0, seed=3)
    numpy_times["encode"] = settings.measure(lambda: _numpy_encode_loop(enc_np, values, chunk_values))
    for dim in dims:
        settings.say(f"[numpy] dask-scaling: D={dim}")
        ref = VSA.create("BSC", dim, backend="numpy", packed=True)
        queries = ref.random(n_q, seed=SEED_QUERIES)
        chunk = max(1, dask_backend.CHUNK_BYTES // ref.vector_length)
        numpy_times[f"draw-{dim}"] = settings.measure(lambda: numpy_search_loop(ref, queries, n_items, chunk))  # noqa: B023
        expected = numpy_search_loop(ref, queries, n_items, chunk)
        in_memory = ref.random(n_items, seed=SEED_ITEMS) if n_items * ref.vector_length <= 2**31 else None
        if in_memory is not None:
            numpy_times[f"memory-{dim}"] = settings.measure(lambda: search(ref, queries, in_memory, k=K))  # noqa: B023
        for w in workers:
            settings.say(f"[dask x{w}] dask-scaling: D={dim}")
            with (
                LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None) as c,
                Client(c),
            ):
                model = VSA.create("BSC", dim, backend="dask", packed=True)
                q = model.asarray(queries)

                def lazy_search(model: Any = model, q: Any = q) -> tuple[np.ndarray, np.ndarray]:
                    s, i = search(model, q, model.random(n_items, seed=SEED_ITEMS), k=K)
                    return model.to_numpy(s), model.to_numpy(i)

                r = row(f"search BSC D={dim} (draw + search)", f"draw-{dim}", "BSC", w, n_items)
                r.times["holovec"] = settings.measure(lambda: lazy_search())
                s, i = lazy_search()
                if not (np.array_equal(i, expected[1]) and np.array_equal(s, expected[0])):
                    r.notes.append("Dask finds other items than the NumPy loop")
                if in_memory is not None:
                    book = model.random(n_items, seed=SEED_ITEMS).persist()
                    r = row(f"search BSC D={dim} (in memory)", f"memory-{dim}", "BSC", w, n_items)
                    r.times["holovec"] = settings.measure(lambda: search(model, q, book, k=K))  # noqa: B023
                    del book
                if dim == dims[0]:
                    enc = FractionalPowerEncoder(VSA.create("FHRR", 1024, backend="dask"), 0.0, 100.0, seed=3)
                    lazy_values = da.from_array(values, chunks=chunk_values)
                    r = row(f"encode {n_values:,} scalars FPE FHRR D=1024", "encode", "FHRR", w, n_values)
                    r.times["holovec"] = settings.measure(lambda: _dask_encode(enc, lazy_values))  # noqa: B023
    return rows


def _throughput(rows: list[Row]) -> list[str]:
    """Throughput of 2 workers over 1, where both ran."""
    by = {r.key: r.best("holovec") for r in rows}
    return [
        f"{r.label.removesuffix(', dask x1')}: throughput of 2 workers / 1 worker {by[r.key] / two:.2f}x"
        for r in rows
        if r.key.endswith("-x1") and (two := by.get(r.key[:-1] + "2")) and by[r.key]
    ]


SECTION = Section(
    "dask-scaling",
    (MODEL, LABEL, HOLOVEC.named("Dask"), BASELINE.named("NumPy loop"), RATIO.named("Dask/NumPy"), PER_ITEM),
    title="dask-scaling, backend: {backend}",
    intro=(
        "dask-scaling: holovec on a Dask LocalCluster of 1 and 2 worker processes against the same work "
        "as a NumPy loop in one process; ratios Dask / NumPy (goal for search: at most 1.3)",
    ),
    table_notes=_throughput,
    run=run,
    backends=("dask",),
    supports=("dask",),
    needs=("dask", "distributed"),
)

if __name__ == "__main__":  # python -m benchmarks.dask_scaling [--quick]: the old spelling
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
