"""Exact Hamming top-k search engines on this CPU: ``python -m benchmarks.search_engines``.

Top-10 of 100 and 1,000 queries against 10,000 (and, with ``--items 10000,100000``,
100,000) items at D=10,000, on the same random bits (BSC's; MAP's vectors are the same
bits as +-1 floats, so every engine must find the same neighbours):

- holovec's ``retrieval.search(model, Q, B, k=10)`` (packs the items per call) and
  ``ItemStore.search`` (packs them once, at fit) for BSC, packed BSC and MAP, with its
  fused packed engine (numba where installed, else NumPy) and with the dense path it
  replaced (float products or unfused chunks, ``hamming_search_bits`` switched off);
- hand-written NumPy: ``np.bitwise_count`` on uint64 words, blocks of items that stay in
  cache, the whole distance matrix, then a top-k;
- holovec's numba kernel alone (XOR + popcount over uint64 words, running top-k fused,
  ``prange``) at 1 and 2 threads;
- faiss-cpu ``IndexBinaryFlat`` at 1 and 2 threads (its equal distances come back in no
  promised order: "ok" means the same indices once each row is sorted by (distance,
  index); "ties" that a tie at the 10th place took another item);
- torch's exact int8 product ``torch._int_mm`` of the +-1 vectors, then ``torch.topk``;
- the bare float32 matrix product of the +-1 vectors (scores only, no top-k);
- holovec's ``ItemStore`` for packed BSC and MAP on torch and JAX arrays on the CPU (the
  same fused kernel, on views of their buffers) and, where a GPU is found, on the GPU
  (the GPU table: the backend's chunked int8 product or popcount and top-k).

"check" compares each engine's top-10 indices with holovec's dense path (ties lowest
index first). Times are the best of several calls (milliseconds per call). The popcount
limit is estimated (see :func:`popcount_limit`): the larger of the time to read the items
once at the measured memory bandwidth and the time to XOR/popcount/add every word pair at
one 512-bit VPOPCNTQ per cycle per core at the clock /proc/cpuinfo reports.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from holovec import VSA
from holovec.backends import _packed
from holovec.retrieval import ItemStore, search

from ._args import non_negative_float, positive_int, positive_ints
from .timing import measure

DIM = 10_000
K = 10


def _best(fn: Callable[[], Any], budget_s: float = 3.0, repeat: int = 5) -> float:
    return measure(fn, lambda r: r, repeat=repeat, budget_s=budget_s).best


class _DenseOnly:
    """Within this block, the models' Hamming hook is off: holovec's search as it was."""

    def __init__(self, *models: Any) -> None:
        self.classes = {type(m) for m in models}
        self.saved: dict = {}

    def __enter__(self) -> None:
        for cls in self.classes:
            self.saved[cls] = cls.__dict__.get("hamming_search_bits")
            cls.hamming_search_bits = lambda self, index: None

    def __exit__(self, *exc: Any) -> None:
        for cls, method in self.saved.items():
            if method is None:
                del cls.hamming_search_bits
            else:
                cls.hamming_search_bits = method


def _has(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


def _numpy_blocked(q64: np.ndarray, b64: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Hand-written NumPy: XOR/popcount in cache-sized item blocks, one core, then top-k."""
    n_q, w = q64.shape
    n = b64.shape[0]
    block = max(1, (1 << 20) // (8 * w * n_q))
    dist = np.empty((n_q, n), dtype=np.int64)
    for s in range(0, n, block):
        x = np.bitwise_xor(q64[:, None, :], b64[None, s : s + block, :])
        dist[:, s : s + block] = np.bitwise_count(x).sum(axis=-1, dtype=np.int64)
    keys = (dist << 32) | np.arange(n, dtype=np.int64)
    keys = np.sort(np.partition(keys, k - 1, axis=1)[:, :k], axis=1)
    return keys >> 32, keys & 0xFFFFFFFF


def _check(idx: Any, dist: Any, ref_idx: np.ndarray, ref_dist: np.ndarray | None) -> str:
    idx = np.asarray(idx)
    if (idx == ref_idx).all():
        return "ok"
    if ref_dist is not None and dist is not None:
        # sort each row by (distance, index): an engine without a tie order
        dist = np.asarray(dist)
        order = np.lexsort((idx, dist), axis=-1)
        idx2 = np.take_along_axis(idx, order, axis=-1)
        if (idx2 == ref_idx).all():
            return "ok (sorted)"
        if (np.take_along_axis(dist, order, axis=-1) == ref_dist).all():
            return "ties"
    return "DIFFERS"


def _cpu_hz() -> float | None:
    try:
        with open("/proc/cpuinfo", encoding="ascii") as f:
            mhz = [float(line.split(":")[1]) for line in f if line.startswith("cpu MHz")]
        return 1e6 * max(mhz) if mhz else None
    except (OSError, ValueError):
        return None


def _has_vpopcntdq() -> bool:
    try:
        with open("/proc/cpuinfo", encoding="ascii") as f:
            return "avx512_vpopcntdq" in f.read()
    except OSError:
        return False


def memory_bandwidth() -> float:
    """Bytes per second that one pass over a 256 MiB array reads (NumPy's sum, 1 core)."""
    big = np.ones(2**28 // 8, dtype=np.uint64)
    return big.nbytes / _best(lambda: big.sum(), budget_s=1.0)


def popcount_limit(n_q: int, n: int, words: int, cores: int, bandwidth: float) -> str:
    """The lower bound of this search on this CPU, in words: the items must be read once
    (their bytes at the memory bandwidth) and every query-item word pair XORed, popcounted
    and added. With AVX-512 VPOPCNTDQ a core issues one 512-bit VPOPCNTQ per cycle (8 words;
    AMD Zen 4 runs it on two 256-bit halves) next to the XOR and the add, and loads two
    256-bit halves per cycle: with each item word loaded once for several queries the
    popcount is the limit, 8 words per cycle per core (without VPOPCNTDQ: 1, scalar POPCNT)."""
    hz = _cpu_hz()
    per_cycle = 8 if _has_vpopcntdq() else 1
    stream = n * words * 8 / bandwidth
    pairs = n_q * n * words
    if hz is None:
        return f"stream {1e3 * stream:.2f} ms (clock unknown)"
    compute = pairs / (cores * hz * per_cycle)
    return (
        f"{1e3 * max(stream, compute):>9.2f}  {pairs / 1e9:.2f} G word pairs / ({cores} cores x "
        f"{hz / 1e9:.2f} GHz x {per_cycle} words/cycle) = {1e3 * compute:.2f} ms; items "
        f"{n * words * 8 / 1e6:.1f} MB at {bandwidth / 1e9:.1f} GB/s = {1e3 * stream:.2f} ms"
    )


def _rows(models: dict, stores: dict, data: dict, dim: int, cores: int) -> list:
    """(label, call, extract) of every engine for one case; extract(result) -> (indices,
    distances or None)."""
    bsc, pbsc, mapm = models["BSC"], models["packed BSC"], models["MAP"]
    queries, queries_p, queries_f = data["queries"], data["queries_p"], data["queries_f"]
    items, items_p, items_f = data["items"], data["items_p"], data["items_f"]
    q64, b64 = data["q64"], data["b64"]
    rows: list[tuple[str, Callable[[], Any], Callable[[Any], tuple[Any, Any]]]] = []

    def hv(label: str, fn: Callable[[], Any]) -> None:
        rows.append((label, fn, lambda r: (r[1], None)))

    def engine(e: str, fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            _packed.accelerator = e
            return fn()

        return run

    for e in ("numpy", "numba") if _has("numba") else ("numpy",):
        hv(f"holovec BSC search() [{e}]", engine(e, lambda: search(bsc, queries, items, k=K)))
        hv(f"holovec BSC ItemStore [{e}]", engine(e, lambda: stores["BSC"].search(queries, K)))
        hv(f"holovec packed BSC search() [{e}]", engine(e, lambda: search(pbsc, queries_p, items_p, k=K)))
        hv(
            f"holovec packed BSC ItemStore [{e}]",
            engine(e, lambda: stores["packed BSC"].search(queries_p, K)),
        )
        if items_f is not None:
            hv(f"holovec MAP search() [{e}]", engine(e, lambda: search(mapm, queries_f, items_f, k=K)))
            hv(f"holovec MAP ItemStore [{e}]", engine(e, lambda: stores["MAP"].search(queries_f, K)))

    def dense(fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            with _DenseOnly(bsc, pbsc, mapm):
                return fn()

        return run

    hv("holovec BSC ItemStore, before (dense path)", dense(lambda: stores["BSC"].search(queries, K)))
    hv("holovec packed BSC ItemStore, before", dense(lambda: stores["packed BSC"].search(queries_p, K)))
    if items_f is not None:
        hv("holovec MAP ItemStore, before (float path)", dense(lambda: stores["MAP"].search(queries_f, K)))
    rows.append(("NumPy bitwise_count, blocked, 1 core", lambda: _numpy_blocked(q64, b64, K), _pair))
    if _has("numba"):
        import numba

        for threads in (1, 2):

            def nb(t: int = threads) -> Any:
                numba.set_num_threads(t)
                try:
                    keys = _packed._numba_top_k(q64, b64, K)
                finally:
                    numba.set_num_threads(cores)
                keys.sort(axis=1)
                return keys

            rows.append((f"numba fused kernel, {threads} thread(s)", nb, lambda r: (r & 0xFFFFFFFF, r >> 32)))
    if _has("faiss"):
        import faiss

        index = faiss.IndexBinaryFlat(8 * items_p.shape[1])
        index.add(np.ascontiguousarray(items_p))
        q_c = np.ascontiguousarray(queries_p)
        for threads in (1, 2):

            def fs(t: int = threads) -> Any:
                faiss.omp_set_num_threads(t)
                try:
                    return index.search(q_c, K)
                finally:
                    faiss.omp_set_num_threads(cores)

            rows.append((f"faiss IndexBinaryFlat, {threads} thread(s)", fs, _pair))
    if _has("torch") and items_f is not None:
        import torch

        b8 = torch.from_numpy(items_f.astype(np.int8))
        q8t = torch.from_numpy(queries_f.astype(np.int8)).T.contiguous()

        def tmm() -> Any:
            dots = torch._int_mm(b8, q8t).T  # (n_q, n) int32, exact
            return torch.topk(dots, K, dim=-1)

        rows.append(("torch int8 _int_mm + topk", tmm, lambda r: (r[1].numpy(), (dim - r[0].numpy()) // 2)))
    if items_f is not None:
        rows.append(("float32 matrix product only (no top-k)", lambda: items_f @ queries_f.T, _nothing))
    rows.extend(_framework_rows(data, dim))
    return rows


def _devices() -> list[tuple[str, Any]]:
    """(backend, device) pairs to run holovec's ItemStore on besides NumPy: torch and JAX on
    the CPU (the same host kernel, through views of their buffers), and every GPU found."""
    out: list[tuple[str, Any]] = []
    if _has("torch"):
        import torch

        out.append(("torch", "cpu"))
        if torch.cuda.is_available():
            out.append(("torch", "cuda"))
    if _has("jax"):
        import jax

        out.append(("jax", "cpu"))
        if any(d.platform == "gpu" for d in jax.devices()):
            out.append(("jax", "gpu"))
    return out


def _framework_rows(data: dict, dim: int) -> list:
    """holovec's ItemStore for packed BSC and MAP on torch and JAX arrays (and GPUs): on the
    CPU the same fused kernel; on a GPU the backend's chunked popcount/int8 path."""
    rows: list = []
    for backend, device in _devices():
        for name, options, q, b in (
            ("packed BSC", {"packed": True}, data["queries_p"], data["items_p"]),
            ("MAP", {}, data["queries_f"], data["items_f"]),
        ):
            if b is None:
                continue
            model = VSA.create(
                "BSC" if options else "MAP", dim=dim, backend=backend, device=device, **options
            )
            store = ItemStore(model).fit(model.backend.from_numpy(b))
            q_dev = model.backend.from_numpy(q)

            def run(s: Any = store, x: Any = q_dev, be: Any = model.backend) -> Any:
                out = s.search(x, K)  # NumPy results: the device's work is waited for
                be.synchronize()
                return out

            rows.append((f"holovec {name} ItemStore, {backend} {device}", run, lambda r: (r[1], None)))
    return rows


def _pair(r: Any) -> tuple[Any, Any]:
    return r[1], r[0]


def _nothing(r: Any) -> tuple[None, None]:
    return None, None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.search_engines", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--items", type=positive_ints, default="10000", help="comma-separated item counts (10000,100000)"
    )
    parser.add_argument(
        "--queries", type=positive_ints, default="100,1000", help="comma-separated query counts"
    )
    parser.add_argument("--dim", type=positive_int, default=DIM, help=f"elements per vector (default {DIM})")
    parser.add_argument(
        "--budget", type=non_negative_float, default=3.0, help="seconds of samples per row (default 3)"
    )
    args = parser.parse_args(argv)
    dim = args.dim
    models = {
        "BSC": VSA.create("BSC", dim=dim),
        "packed BSC": VSA.create("BSC", dim=dim, packed=True),
        "MAP": VSA.create("MAP", dim=dim),
    }
    bsc, pbsc = models["BSC"], models["packed BSC"]
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()) or 1
    print(f"exact top-{K} Hamming search, D={dim}, {cores} cores, holovec engine: {_packed.engine()}")
    bandwidth = memory_bandwidth()
    print(f"{'queries':>7} {'items':>7}  {'engine':<44} {'ms':>9}  check")
    for n in args.items:
        items = bsc.random(n, seed=2)
        items_p = pbsc.random(n, seed=2)
        big = n > 20_000  # no float rows: 4 GB of float32 and minutes of products
        items_f = None if big else (1 - 2 * items.astype(np.float32))
        stores = {name: ItemStore(m) for name, m in models.items()}
        stores["BSC"].fit(items)
        stores["packed BSC"].fit(items_p)
        if items_f is not None:
            stores["MAP"].fit(items_f)
        for n_q in args.queries:
            queries = bsc.random(n_q, seed=3)
            queries_p = pbsc.pack(queries)
            data = {
                "queries": queries,
                "queries_p": queries_p,
                "queries_f": 1 - 2 * queries.astype(np.float32),
                "items": items,
                "items_p": items_p,
                "items_f": items_f,
                "q64": _packed.as_words(queries_p),
                "b64": _packed.as_words(items_p),
            }
            with _DenseOnly(*models.values()):
                ref_s, ref_i = search(pbsc, queries_p, items_p, k=K)
            ref_d = np.rint((1 - ref_s) * dim / 2).astype(np.int64)
            for label, fn, extract in _rows(models, stores, data, dim, cores):
                try:
                    result = fn()
                    t = _best(fn, args.budget)
                    idx, dist = extract(result)
                    check = "-" if idx is None else _check(idx, dist, ref_i, ref_d)
                    print(f"{n_q:>7} {n:>7}  {label:<44} {1e3 * t:>9.2f}  {check}", flush=True)
                except Exception as exc:  # an engine that fails here is reported, not fatal
                    print(f"{n_q:>7} {n:>7}  {label:<44} {'failed':>9}  {type(exc).__name__}: {exc}")
                finally:
                    _packed.accelerator = None
            words = data["q64"].shape[1]
            limit = popcount_limit(n_q, n, words, cores, bandwidth)
            print(f"{n_q:>7} {n:>7}  {'popcount limit (estimate)':<44} {limit}", flush=True)


if __name__ == "__main__":
    started = time.time()
    main()
    print(f"({time.time() - started:.0f} s)")
