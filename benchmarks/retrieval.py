"""The retrieval section: top-10 search of a codebook, and resonator factorization.

Search rows time :meth:`holovec.retrieval.ItemStore.search` (k=10; the store's search
index is made by the untimed warm-up call) next to the bare operation a hand-written
search is built on, on the same data: the matrix product ``items @ queries.T`` (FHRR on
its real view, as one real product), and for BSC the XOR/popcount of the bit-packed
words (NumPy: blocks of items against all queries, on one core; PyTorch and JAX have no
popcount, so there the +-1 float32 matrix product of the same codebook). The bare
operation gives scores only: holovec also selects the top 10 and merges chunks.

Peak memory is what one call allocates above what it was given (NumPy: ``tracemalloc``,
which sees NumPy's arrays; PyTorch on CUDA: the allocator's peak); elsewhere "-".

The resonator row factors products of 3 factors x 50 items at N=1500 (MAP, bipolar
codebooks: Frady et al. 2020), against a hand-written NumPy resonator with the same
stopping rule (no estimate changed).
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import Any, TextIO

import numpy as np

from holovec import VSA, kernels
from holovec.retrieval import ItemStore, Resonator

from .cases import PACKED_BSC, ModelEntry, entry_key
from .rows import Row
from .timing import measure, waiter

#: the k of the search rows: ``ItemStore.search(queries, k=K)``
K = 10

#: the models of the search rows
SEARCH_ENTRIES = (
    ModelEntry("FHRR", "FHRR", "FHRR"),
    ModelEntry("MAP", "MAP", "MAP"),
    ModelEntry("HRR", "HRR", "HRR"),
    ModelEntry("BSC", "BSC", "BSC"),
    PACKED_BSC,
)
#: (queries, items) of the search rows
SEARCH_SIZES = ((100, 10_000), (1_000, 10_000), (100, 100_000), (1_000, 100_000))
QUICK_SEARCH_SIZES = ((10, 1_000), (100, 1_000))
#: items are made in blocks of this many rows (bounds the temporaries of 100,000 x 10,000)
BLOCK = 10_000

#: the resonator row: factors, items per factor, dimension, products per call
RESONATOR = (3, 50, 1500, 100)
QUICK_RESONATOR = (3, 50, 1500, 10)


# -- inputs ---------------------------------------------------------------------------------


def make_items(model: Any, n: int, seed: int) -> Any:
    """``n`` seeded vectors, made ``BLOCK`` rows at a time into one array (NumPy and
    PyTorch write the blocks in place; JAX arrays are immutable, so it concatenates)."""
    if n <= BLOCK:
        return model.random(n, seed=seed)
    blocks = range(0, n, BLOCK)
    if model.backend.name == "jax":
        return model.xp.concat([model.random(min(BLOCK, n - s), seed=seed + s) for s in blocks])
    first = model.random(BLOCK, seed=seed)
    out = model.xp.empty((n, first.shape[-1]), dtype=first.dtype, device=model.device)
    out[:BLOCK] = first
    for start in blocks[1:]:
        out[start : start + BLOCK] = model.random(min(BLOCK, n - start), seed=seed + start)
    return out


def noisy_queries(model: Any, items: Any, n: int, seed: int) -> tuple[Any, np.ndarray]:
    """``n`` queries, each the bundle of an item (twice) and a random vector, and the rows."""
    rows = np.random.default_rng(seed).choice(items.shape[0], size=n, replace=False)
    picked = model.xp.take(items, model.backend.asarray(rows), axis=0)
    noise = model.random(n, seed=seed)
    return model.bundle(model.xp.stack([picked, picked, noise])), rows


# -- bare operations ------------------------------------------------------------------------


def _numpy_hamming(q: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamming distances of packed uint8 rows, read as uint64 words: blocks of items
    against all queries, each block's XOR result about 8 MB."""
    qw, bw = q.view(np.uint64), b.view(np.uint64)
    out = np.empty((bw.shape[0], qw.shape[0]), dtype=np.int32)
    block = max(1, 8 * 2**20 // (qw.shape[0] * q.shape[1]))
    for s in range(0, bw.shape[0], block):
        np.bitwise_count(bw[s : s + block, None, :] ^ qw[None, :, :]).sum(axis=-1, out=out[s : s + block])
    return out


def bare_operation_name(backend: str, model: str) -> str:
    """What :func:`bare_operation` computes on ``backend`` for holovec's ``model`` (BSC
    packed or not: "BSC")."""
    if model == "BSC":
        return "XOR/popcount" if backend == "numpy" else "+-1 float32 matmul"
    return "real matmul" if model == "FHRR" else "matmul"


def bare_operation(model: Any, entry: ModelEntry, queries: Any, items: Any) -> Callable:
    """``fn()``: the bare scores of ``queries`` against ``items`` (what
    :func:`bare_operation_name` names), on copies made once here (views where they can
    be); the best score is the highest value."""
    backend, xp = model.backend, model.xp
    if entry.model == "BSC":
        packed = (
            (lambda x: x)
            if entry.packed
            else (lambda x: kernels.pack_bits(backend, x, 8 * -(-model.dim // 64)))
        )
        if backend.name == "numpy":
            q, b = packed(queries), packed(items)
            return lambda: -_numpy_hamming(q, b)
        # no popcount: the +-1 product of the same codebook
        bits = (lambda x: kernels.unpack_bytes(backend, x, model.dim)) if entry.packed else (lambda x: x)
        q, b = (1 - 2 * xp.astype(bits(x), backend.dtype("float32")) for x in (queries, items))
        return lambda: b @ q.mT
    if entry.model == "FHRR":
        q, b = kernels.real_view(backend, queries), kernels.real_view(backend, items)
        return lambda: b @ q.mT
    return lambda: items @ queries.mT


# -- memory ---------------------------------------------------------------------------------


def peak_bytes(fn: Callable[[], Any], backend: Any) -> int | None:
    """Bytes one call allocates at its peak, above what existed before it (None: not seen)."""
    if backend.name == "numpy":
        tracemalloc.start()
        try:
            result = fn()
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        del result
        return peak
    if backend.name == "torch" and backend.device.type == "cuda":
        import torch

        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        result = fn()
        torch.cuda.synchronize()
        del result
        return torch.cuda.max_memory_allocated() - before
    return None


# -- the rows -------------------------------------------------------------------------------


def _search_rows(
    backend: str, entry: ModelEntry, sizes: tuple, dim: int, repeat: int, budget_s: float, progress: Any
) -> list[Row]:
    model = entry.create(dim, backend)
    wait = waiter(backend, model.device)
    results = []
    for n_items in dict.fromkeys(n for _, n in sizes):
        items = store = None  # free the last size's items (and the store's index) first
        gc.collect()
        items = make_items(model, n_items, seed=100)
        store = ItemStore(model).fit(items)
        for n_q in [q for q, n in sizes if n == n_items]:
            if progress is not None:
                print(f"[{backend}] retrieval: {entry.label} {n_q} x {n_items}", file=progress, flush=True)
            queries, rows = noisy_queries(model, items, n_q, seed=200)
            bare = bare_operation(model, entry, queries, items)
            result = Row(
                "retrieval",
                backend,
                entry.label,
                f"search-{n_q}x{n_items}",
                f"top-{K}, {n_q:,} queries x {n_items:,} items",
                baseline_name=bare_operation_name(backend, entry.model),
            )
            search = partial(store.search, queries, K)
            result.times["holovec"] = measure(search, wait, repeat=repeat, budget_s=budget_s)
            result.times["baseline"] = measure(bare, wait, repeat=repeat, budget_s=budget_s)
            result.peak_bytes["holovec"] = peak_bytes(search, model.backend)
            result.peak_bytes["baseline"] = peak_bytes(bare, model.backend)
            # both find the item each query was made from
            _, found = store.search(queries, K)
            best = np.argmax(model.backend.to_numpy(bare()), axis=0)
            if not (found[:, 0] == rows).all():
                result.notes.append(
                    f"holovec's top-1 is the query's item for {np.mean(found[:, 0] == rows):.1%}"
                )
            if not (best == rows).all():
                result.notes.append(
                    f"the bare scores' argmax is the query's item for {np.mean(best == rows):.1%}"
                )
            results.append(result)
    return results


def numpy_resonator(books: np.ndarray, products: np.ndarray, max_iter: int) -> np.ndarray:
    """Hand-written bipolar resonator (Frady et al. 2020), batched over products:
    ``x_f <- sign(X_f^T X_f (s * prod_{g != f} x_g))`` until no estimate changes."""
    n_factors = books.shape[0]
    estimates = [
        np.broadcast_to(np.where(b.sum(0) >= 0, 1, -1).astype(np.float32), products.shape) for b in books
    ]
    for _ in range(max_iter):
        changed = False
        for f in range(n_factors):
            unbound = products.copy()
            for g in range(n_factors):
                if g != f:
                    unbound *= estimates[g]
            new = np.where((unbound @ books[f].T) @ books[f] >= 0, 1, -1).astype(np.float32)
            changed = changed or not np.array_equal(new, estimates[f])
            estimates[f] = new
        if not changed:
            break
    # |score|: a bipolar product is also factored by two negated factors
    return np.stack([np.argmax(np.abs(e @ b.T), axis=-1) for e, b in zip(estimates, books, strict=True)], -1)


def resonator_problem(model: Any, n_factors: int, n_items: int, n_products: int) -> tuple:
    """(seeded codebooks, products of one item of each, the items' indices)."""
    books = [model.random(n_items, seed=300 + f) for f in range(n_factors)]
    truth = np.random.default_rng(4).integers(0, n_items, size=(n_products, n_factors))
    products = books[0][model.backend.asarray(truth[:, 0])]
    for f in range(1, n_factors):
        products = model.bind(products, books[f][model.backend.asarray(truth[:, f])])
    return books, products, truth


def _resonator_row(backend: str, quick: bool, repeat: int, budget_s: float) -> Row:
    n_factors, n_items, dim, n_products = QUICK_RESONATOR if quick else RESONATOR
    model = VSA.create("MAP", dim=dim, backend=backend)
    books, products, truth = resonator_problem(model, n_factors, n_items, n_products)
    resonator = Resonator(model, books)
    label = f"resonator, {n_products} products of {n_factors} factors x {n_items} items, N={dim:,}"
    result = Row("retrieval", backend, "MAP", "resonator", label, baseline_name="NumPy resonator")
    result.times["holovec"] = measure(
        lambda: resonator.factor(products), lambda r: r, repeat=repeat, budget_s=budget_s
    )
    found = resonator.factor(products)
    accuracy = np.mean((found.indices == truth).all(-1))
    result.info.append(
        f"holovec: {accuracy:.0%} factored, {found.iterations.mean():.1f} iterations on average"
    )
    if backend == "numpy":
        host_books = np.stack([model.to_numpy(b) for b in books])
        host_products = model.to_numpy(products)
        fn = lambda: numpy_resonator(host_books, host_products, resonator.max_iter)  # noqa: E731
        result.times["baseline"] = measure(fn, lambda r: r, repeat=repeat, budget_s=budget_s)
        result.info.append(f"baseline: {np.mean((fn() == truth).all(-1)):.0%} factored")
    else:
        result.times["baseline"] = None
    return result


def run_retrieval(
    backends: list[str],
    *,
    dim: int,
    quick: bool,
    repeat: int,
    budget_s: float,
    models: list[ModelEntry] | None = None,
    progress: TextIO | None = None,
) -> list[Row]:
    wanted = None if models is None else {entry_key(e.key) for e in models}
    entries = [e for e in SEARCH_ENTRIES if wanted is None or entry_key(e.key) in wanted]
    sizes = QUICK_SEARCH_SIZES if quick else SEARCH_SIZES
    results: list[Row] = []
    for backend in backends:
        for entry in entries:
            results += _search_rows(backend, entry, sizes, dim, repeat, budget_s, progress)
        if wanted is None or "MAP" in wanted:
            if progress is not None:
                print(f"[{backend}] retrieval: resonator", file=progress, flush=True)
            results.append(_resonator_row(backend, quick, repeat, budget_s))
    return results
