"""The search-engines section: exact Hamming top-k search engines on this CPU.

Top-10 of 100 and 1,000 queries against 10,000 and 100,000 items (``--quick``: 10 x 1,000;
no float rows above 20,000 items) at D=10,000, on the same random bits (BSC's; MAP's vectors
are the same bits as +-1 floats, so every engine must find the same neighbours). Rows:
holovec's engines, each next to the hand-written NumPy search (``np.bitwise_count`` on
uint64 words, blocks of items that stay in cache, the whole distance matrix, then a top-k)
and the fastest other engine installed:

- holovec's ``retrieval.search(model, Q, B, k=10)`` (packs the items per call) and
  ``ItemStore.search`` (packs them once, at fit) for BSC, packed BSC and MAP, with its
  fused packed engine (numba where installed, and NumPy) and with the dense path it
  replaced (float products or unfused chunks, ``hamming_search_bits`` switched off);
  holovec's ``ItemStore`` for packed BSC and MAP on torch and JAX arrays on the CPU, and
  on every GPU found;
- the other engines, listed under the table: holovec's numba kernel alone (XOR + popcount
  over uint64 words, running top-k fused, ``prange``) at 1 and 2 threads; faiss-cpu
  ``IndexBinaryFlat`` at 1 and 2 threads (its equal distances come back in no promised
  order: they are compared once each row is sorted by (distance, index)); torch's exact
  int8 product ``torch._int_mm`` of the +-1 vectors, then ``torch.topk``; the bare float32
  matrix product of the +-1 vectors (scores only, not counted as the fastest engine).

Every engine's top-10 indices are compared with holovec's dense path (ties lowest index
first); a difference is a ``check`` line. The popcount limit is estimated (see
:func:`popcount_limit`): the larger of the time to read the items once at the measured
memory bandwidth and the time to XOR/popcount/add every word pair at one 512-bit VPOPCNTQ
per cycle per core at the clock /proc/cpuinfo reports.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, Column, format_seconds
from .rows import Extra, Row
from .sizes import Settings
from .tables import Section
from .timing import measure

K = 10
#: (items, queries) of the cases
CASES = ((10_000, (100, 1_000)), (100_000, (100, 1_000)))
QUICK_CASES = ((1_000, (10,)),)
#: above this many items, no float rows (MAP, torch's int8 product, the float32 product):
#: 4 GB of float32 and minutes of products
FLOAT_ITEMS = 20_000


class _DenseOnly:
    """Within this block, the models' Hamming hook is off: holovec's search as it was."""

    def __init__(self, *models: Any) -> None:
        self.classes, self.saved = {type(m) for m in models}, {}

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
    return importlib.util.find_spec(module) is not None


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


def _check(idx: Any, dist: Any, ref_idx: np.ndarray, ref_dist: np.ndarray) -> str | None:
    """None where ``idx`` are the reference's neighbours (an engine without a tie order:
    once sorted by (distance, index), or with only a tie at the k-th place taken otherwise)."""
    idx = np.asarray(idx)
    if (idx == ref_idx).all():
        return None
    if dist is not None:
        dist = np.asarray(dist)
        order = np.lexsort((idx, dist), axis=-1)
        if (np.take_along_axis(idx, order, axis=-1) == ref_idx).all():
            return None
        if (np.take_along_axis(dist, order, axis=-1) == ref_dist).all():
            return None  # ties: the same distances, another item of equal distance
    return "finds other neighbours than holovec's dense path"


def _cpu_info() -> str:
    try:
        with open("/proc/cpuinfo", encoding="ascii") as f:
            return f.read()
    except OSError:
        return ""


def popcount_limit(n_q: int, n: int, words: int, cores: int, bandwidth: float) -> str:
    """The lower bound of this search on this CPU: the items must be read once (their bytes
    at the memory bandwidth) and every query-item word pair XORed, popcounted and added.
    With AVX-512 VPOPCNTDQ a core issues one 512-bit VPOPCNTQ per cycle (8 words; AMD Zen 4
    runs it on two 256-bit halves) next to the XOR and the add: with each item word loaded
    once for several queries the popcount is the limit, 8 words per cycle per core (without
    VPOPCNTDQ: 1, scalar POPCNT)."""
    info = _cpu_info()
    mhz = [float(line.split(":")[1]) for line in info.splitlines() if line.startswith("cpu MHz")]
    per_cycle = 8 if "avx512_vpopcntdq" in info else 1
    stream, pairs = n * words * 8 / bandwidth, n_q * n * words
    if not mhz:
        return f"popcount limit (estimate): stream {format_seconds(stream)} (clock unknown)"
    hz = 1e6 * max(mhz)
    compute = pairs / (cores * hz * per_cycle)
    return (
        f"popcount limit (estimate) {format_seconds(max(stream, compute))}: {pairs / 1e9:.2f} G word pairs "
        f"/ ({cores} cores x {hz / 1e9:.2f} GHz x {per_cycle} words/cycle) = {format_seconds(compute)}; "
        f"items {n * words * 8 / 1e6:.1f} MB at {bandwidth / 1e9:.1f} GB/s = {format_seconds(stream)}"
    )


def _holovec_engines(models: dict, stores: dict, d: dict) -> list[tuple[str, str, Callable[[], Any]]]:
    """(model, engine, call) of holovec's engines; each call returns (scores, indices)."""
    from holovec.kernels import packed_search
    from holovec.retrieval import ItemStore, search

    def engine(e: str, fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            packed_search.accelerator = e
            try:
                return fn()
            finally:
                packed_search.accelerator = None

        return run

    def dense(fn: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            with _DenseOnly(*models.values()):
                return fn()

        return run

    out = []
    for name, q, b in (("BSC", "q", "b"), ("packed BSC", "q_p", "b_p"), ("MAP", "q_f", "b_f")):
        if d[b] is None:
            continue
        for e in ("numpy", "numba") if _has("numba") else ("numpy",):
            out.append(
                (
                    name,
                    f"search() [{e}]",
                    engine(e, lambda m=models[name], q=d[q], b=d[b]: search(m, q, b, k=K)),
                )
            )
            out.append((name, f"ItemStore [{e}]", engine(e, lambda s=stores[name], q=d[q]: s.search(q, K))))
        out.append(
            (name, "ItemStore, before (dense path)", dense(lambda s=stores[name], q=d[q]: s.search(q, K)))
        )
    for backend, device in _devices():
        from holovec import VSA

        for name, q, b in (("packed BSC", "q_p", "b_p"), ("MAP", "q_f", "b_f")):
            if d[b] is None:
                continue
            model = VSA.create(
                "BSC" if name != "MAP" else "MAP",
                dim=d["dim"],
                backend=backend,
                device=device,
                **({"packed": True} if name != "MAP" else {}),
            )
            store = ItemStore(model).fit(model.backend.from_numpy(d[b]))

            def run(s: Any = store, x: Any = model.backend.from_numpy(d[q]), be: Any = model.backend) -> Any:  # noqa: B008
                found = s.search(x, K)  # NumPy results: the device's work is waited for
                be.synchronize()
                return found

            out.append((name, f"ItemStore, {backend} {device}", run))
    return out


def _devices() -> list[tuple[str, Any]]:
    """(backend, device) pairs to run holovec's ItemStore on besides NumPy: torch and JAX on
    the CPU (the same host kernel, through views of their buffers), and every GPU found."""
    out: list[tuple[str, Any]] = []
    if _has("torch"):
        import torch

        out += [("torch", "cpu")] + ([("torch", "cuda")] if torch.cuda.is_available() else [])
    if _has("jax"):
        import jax

        out += [("jax", "cpu")] + (
            [("jax", "gpu")] if any(x.platform == "gpu" for x in jax.devices()) else []
        )
    return out


def _other_engines(d: dict, cores: int) -> list[tuple[str, str, Callable[[], Any], Callable[[Any], tuple]]]:
    """(key, label, call, extract) of the engines that are not holovec's; extract(result) ->
    (indices, distances or None), or (None, None): nothing to check."""
    from holovec.kernels import packed_search

    pair = lambda r: (r[1], r[0])  # noqa: E731
    out = []
    if _has("numba"):
        import numba

        for t in (1, 2):

            def nb(t: int = t) -> Any:
                numba.set_num_threads(t)
                try:
                    keys = packed_search._numba_top_k(d["q64"], d["b64"], K)
                finally:
                    numba.set_num_threads(cores)
                keys.sort(axis=1)
                return keys

            out.append(
                (f"numba-{t}", f"numba fused kernel, {t} thread(s)", nb, lambda r: (r & 0xFFFFFFFF, r >> 32))
            )
    if _has("faiss"):
        import faiss

        index = faiss.IndexBinaryFlat(8 * d["b_p"].shape[1])
        index.add(np.ascontiguousarray(d["b_p"]))
        q_c = np.ascontiguousarray(d["q_p"])
        for t in (1, 2):

            def fs(t: int = t) -> Any:
                faiss.omp_set_num_threads(t)
                try:
                    return index.search(q_c, K)
                finally:
                    faiss.omp_set_num_threads(cores)

            out.append((f"faiss-{t}", f"faiss IndexBinaryFlat, {t} thread(s)", fs, pair))
    if d["b_f"] is None:
        return out
    if _has("torch"):
        import torch

        b8 = torch.from_numpy(d["b_f"].astype(np.int8))
        q8t = torch.from_numpy(d["q_f"].astype(np.int8)).T.contiguous()
        dim = d["dim"]
        out.append(
            (
                "torch-int8",
                "torch int8 _int_mm + topk",
                lambda: torch.topk(torch._int_mm(b8, q8t).T, K, dim=-1),
                lambda r: (r[1].numpy(), (dim - r[0].numpy()) // 2),
            )
        )
    out.append(
        (
            "float32-product",
            "float32 matrix product only (no top-k)",
            lambda: d["b_f"] @ d["q_f"].T,
            lambda r: (None, None),
        )
    )
    return out


def run(settings: Settings, backends: list[str]) -> list[Row]:
    from holovec import VSA
    from holovec.kernels import packed_search
    from holovec.retrieval import ItemStore, search

    dim, cores = (
        settings.dim,
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1,
    )
    models = {
        "BSC": VSA.create("BSC", dim=dim),
        "packed BSC": VSA.create("BSC", dim=dim, packed=True),
        "MAP": VSA.create("MAP", dim=dim),
    }
    big = np.ones((2**21 if settings.quick else 2**28) // 8, dtype=np.uint64)
    bandwidth = big.nbytes / measure(big.sum, lambda r: r, repeat=3, budget_s=1.0).best
    del big
    rows = []
    for n, query_counts in QUICK_CASES if settings.quick else CASES:
        b = models["BSC"].random(n, seed=2)
        d = {
            "dim": dim,
            "b": b,
            "b_p": models["packed BSC"].random(n, seed=2),
            "b_f": 1 - 2 * b.astype(np.float32) if n <= FLOAT_ITEMS else None,
        }
        stores = {
            name: ItemStore(m).fit(d[key])
            for (name, m), key in zip(models.items(), ("b", "b_p", "b_f"), strict=True)
            if d[key] is not None
        }
        for n_q in query_counts:
            settings.say(f"[numpy] search-engines: {n_q} x {n}")
            q = models["BSC"].random(n_q, seed=3)
            d |= {"q": q, "q_p": models["packed BSC"].pack(q), "q_f": 1 - 2 * q.astype(np.float32)}
            d |= {"q64": packed_search.as_words(d["q_p"]), "b64": packed_search.as_words(d["b_p"])}
            with _DenseOnly(*models.values()):
                ref_s, ref_i = search(models["packed BSC"], d["q_p"], d["b_p"], k=K)
            ref_d = np.rint((1 - ref_s) * dim / 2).astype(np.int64)
            case = f"{n_q:,} x {n:,}"
            baseline = settings.measure(lambda: _numpy_blocked(d["q64"], d["b64"], K))  # noqa: B023
            extras, notes = [], []
            for key, label, fn, extract in _other_engines(d, cores):
                try:
                    extras.append(Extra(key, label, settings.measure(fn)))
                    problem = None if extract(fn())[0] is None else _check(*extract(fn()), ref_i, ref_d)
                except Exception as exc:  # an engine that fails here is reported, not fatal
                    problem = f"failed: {type(exc).__name__}: {exc}"
                notes += [] if problem is None else [f"{label} {problem}"]
            first = True
            for model, label, fn in _holovec_engines(models, stores, d):
                row = Row(
                    "search-engines",
                    "numpy",
                    case,
                    f"{n_q}-{n}-{model}-{label}",
                    f"{model} {label}",
                    times={"baseline": baseline},
                    baseline_name="NumPy bitwise_count",
                    extras=extras,
                )
                try:
                    row.times["holovec"] = settings.measure(fn)
                    problem = _check(fn()[1], None, ref_i, ref_d)
                except Exception as exc:  # an engine that fails here is reported, not fatal
                    problem = f"failed: {type(exc).__name__}: {exc}"
                row.notes += [] if problem is None else [problem]
                if first:
                    row.notes += notes
                    row.info.append(f"holovec's engine here: {packed_search.engine()}")
                    row.info.append(popcount_limit(n_q, n, d["q64"].shape[1], cores, bandwidth))
                first = False
                rows.append(row)
    return rows


def _fastest(row: Row) -> str:
    peers = [e for e in row.extras if e.key != "float32-product"]
    if not peers:
        return "-"
    best = min(peers, key=lambda e: e.timing.best)
    return f"{format_seconds(best.timing.best)} ({best.label})"


def _engine_lines(rows: list[Row]) -> list[str]:
    """Every other engine's time, once per case."""
    cases = {r.model: r.extras for r in rows}
    return [
        f"{case}, {e.label}: {format_seconds(e.timing.best)}"
        for case, extras in cases.items()
        for e in extras
    ]


SECTION = Section(
    "search-engines",
    (
        MODEL.named("queries x items"),
        LABEL.named("holovec engine"),
        HOLOVEC,
        BASELINE.named("hand-written NumPy"),
        RATIO,
        Column("fastest other engine", _fastest),
    ),
    title="search-engines: exact top-10 Hamming search, backend: {backend}",
    intro=(
        "search-engines: holovec's Hamming search engines against hand-written NumPy and the other engines "
        "installed (numba kernel alone, faiss, torch int8)",
    ),
    table_notes=_engine_lines,
    run=run,
    supports=("numpy",),
)

if __name__ == "__main__":  # python -m benchmarks.search_engines: the old spelling
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
