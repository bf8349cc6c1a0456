"""The device table: ``python -m benchmarks --device cuda`` (or ``cpu``).

The rows of the GPU table that first measured holovec on a GPU, for torch and JAX on one device, each
next to a hand-written vectorised version on the same device, torchhd where it imports
(torch only), and the figures measured on an NVIDIA H200 before this benchmark
existed ("H200 figures before"), so that a reader sees before and after:

- operations (FHRR): a seeded draw of 1 vector and of 1,000, a bundle of 100, the FPE of
  1,000 scalars, the similarity of 1,000 pairs and the 1,000 x 10,000 similarity matrix;
- search: the exact top-10 of 1,000 queries among 100,000 items for MAP, packed BSC and
  FHRR, against the int8 product with int32 accumulation and the float32 product (each
  then a top-k), and against the device's own bound: its operations at the int8 (FHRR:
  float32) product rate measured here, with the device's copy bandwidth;
- fits: ``AdaptHDClassifier`` and ``RidgeHDClassifier`` on scikit-learn's digits and
  ``Resonator.factor`` of 100 products of 3 factors x 50 items: the first call (with the
  programs JAX compiled for it) and later calls.

Times are medians of repeated calls after one warm-up call, each waited for (torch:
``torch.cuda.synchronize`` on a GPU; JAX: ``jax.block_until_ready``; the fits, which
return an estimator: the backend's ``synchronize()``). Only holovec's public API is
timed, so the table measures whatever holovec does today.
"""

from __future__ import annotations

import gc
import itertools
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from functools import cache, partial
from typing import Any, TextIO

import numpy as np

from holovec import VSA
from holovec.backends import get_backend

from .columns import Column, format_seconds
from .device_baselines import INT_MM_MIN_ROWS, INT_MM_MULTIPLE, device_code, padded_size
from .implementations import make_baseline
from .retrieval import RESONATOR, K, make_items, noisy_queries, resonator_problem
from .rows import Row, disagreement, to_numpy
from .tables import table_lines
from .timing import Timing, measure, waiter
from .torchhd_ops import TorchhdOps

FRAMEWORKS = ("torch", "jax")


@dataclass(frozen=True)
class DeviceSizes:
    dim: int = 10_000  #: elements per vector (every row but the resonator's)
    draws: int = 1_000  #: vectors of the batched draw
    bundle: int = 100  #: vectors bundled
    scalars: int = 1_000  #: scalars FPE-encoded
    pairs: int = 1_000  #: pairs compared
    matrix: tuple[int, int] = (1_000, 10_000)  #: queries x items of the similarity matrix
    search: tuple[int, int] = (1_000, 100_000)  #: queries x items of the searches
    digits: int | None = None  #: rows of digits the learners fit (None: all 1,797)
    epochs: int | None = None  #: AdaptHD's epochs (None: its default)
    resonator: tuple[int, int, int, int] = RESONATOR  #: factors, items each, dim, products
    copy_bytes: int = 2**30  #: bytes of the copy that measures the bandwidth
    product_side: int = 8192  #: n of the n x n x n products that measure the rates

    def with_dim(self, dim: int | None) -> DeviceSizes:
        return self if dim is None else replace(self, dim=dim)


DEFAULT = DeviceSizes()
#: a smoke run of every row: seconds on a 2-core CPU
QUICK = DeviceSizes(
    dim=1_000,
    draws=100,
    scalars=100,
    pairs=100,
    matrix=(10, 1_000),
    search=(10, 1_000),
    digits=200,
    epochs=1,
    resonator=(3, 20, 1000, 10),
    copy_bytes=2**24,
    product_side=256,
)

#: the figures measured on one NVIDIA H200 before this benchmark (November 2026; torch
#: 2.11+cu130, JAX 0.11.2, D=10,000, the default sizes): (framework, row key) -> (holovec,
#: hand-written)
H200_BEFORE = {
    ("torch", "random-1"): ("16.5-28 ms", "0.03 ms"),
    ("torch", "random-n"): ("19.6 ms", "0.093 ms"),
    ("torch", "bundle"): ("0.062-0.069 ms", "0.029-0.035 ms"),
    ("torch", "fpe"): ("0.31-0.60 ms", "0.072 ms"),
    ("torch", "similarity-pairs"): ("0.134 ms", "0.130 ms"),
    ("torch", "similarity-matrix"): ("10.1 ms", "9.0 ms"),
    ("torch", "search-MAP"): ("128 ms", "4.1 ms int8, 43 ms float32"),
    ("torch", "search-BSC-packed"): ("131 ms", "MAP's int8 path, unpacked"),
    ("torch", "search-FHRR"): ("280 ms", "78 ms float32 bound"),
    ("torch", "adapthd"): ("0.07 s", "-"),
    ("torch", "ridgehd"): ("0.13 s", "-"),
    ("torch", "resonator"): ("0.24 s", "-"),
    ("jax", "random-1"): ("0.62 ms", "0.027 ms"),
    ("jax", "fpe"): ("2.26 ms", "0.093 ms"),
    ("jax", "search-MAP"): ("204 ms", "-"),
    ("jax", "search-BSC-packed"): ("283 ms", "-"),
    ("jax", "search-FHRR"): ("516 ms", "-"),
    ("jax", "adapthd"): ("39 s first (684 compilations), 0.89 s second", "torch 0.07 s"),
    ("jax", "ridgehd"): ("11.7 s first (210 compilations), 0.44 s second", "torch 0.13 s"),
    ("jax", "resonator"): ("5.0 s first (90 compilations), 1.04 s second", "torch 0.24 s"),
}
#: torchhd 5.8.4 on the same H200, as measured then (shown in the legend)
H200_TORCHHD = (
    "random(1) 0.033 ms, random(1000) 0.106 ms, bundle 0.021 ms, FPE 0.106 ms, similarity "
    "1.97 / 17.1 ms, search MAP 40.6 ms, FHRR 151.6 ms"
)


@dataclass
class DeviceRow(Row):
    """A row of the device table. ``times`` by side: ``holovec`` (fits: the later calls),
    ``first`` (a fit's first call), ``baseline`` (the hand-written version; for JAX's fits,
    torch's holovec on the same device), ``int8`` and ``float32`` (the hand-written
    searches; ``baseline_name`` says which one the bound is for), ``torchhd``."""

    compiles: dict[str, int] = field(default_factory=dict)  #: JAX programs compiled, by side
    bound_s: float | None = None  #: the device's bound for the row's work (searches)
    bound_name: str = ""  #: what the bound is: "int8" or "float32"
    reference: tuple[str, str] = ("-", "-")  #: the H200 figures before (holovec, hand-written)

    def median(self, side: str) -> float | None:
        timing = self.times.get(side)
        return None if timing is None else timing.median

    def share_of_bound(self, side: str) -> float | None:
        """The bound over the side's time (1: at the device's limit)."""
        t = self.median(side)
        return None if t is None or self.bound_s is None else self.bound_s / t


@dataclass
class DeviceReport:
    device: str  #: as given: "cpu", "cuda", "cuda:1"
    sizes: DeviceSizes
    repeat: int
    rows: list[DeviceRow] = field(default_factory=list)
    names: dict[str, str] = field(default_factory=dict)  #: framework -> the device's name
    #: framework -> {"copy": bytes/s, "int8": ops/s, "float32": flops/s}
    rates: dict[str, dict[str, float]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  #: frameworks left out, and why


# -- timing -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Run:
    """What every row of one framework shares: where it runs and how it is timed."""

    framework: str
    device: str
    sizes: DeviceSizes
    repeat: int
    budget_s: float
    torchhd: bool
    progress: TextIO | None

    def say(self, what: str) -> None:
        if self.progress is not None:
            print(f"[{self.framework} {self.device}] {what}", file=self.progress, flush=True)

    def time(self, fn: Callable[[], Any], wait: Callable[[Any], Any]) -> Timing:
        return measure(fn, wait, repeat=self.repeat, budget_s=self.budget_s)


def _seeded(draw: Callable[[int], Any]) -> Callable[[], Any]:
    """``draw`` with a fresh seed each call, as a loop over seeds calls it."""
    seeds = itertools.count(1000)
    return lambda: draw(next(seeds))


def _time_sides(
    run: _Run,
    row: DeviceRow,
    sides: dict[str, Callable[[], Any] | None],
    wait: Callable[[Any], Any],
    check: Callable[[str, Any, Any], str | None] | None = None,
) -> None:
    """Time each side into ``row`` (None: not timed); a side that fails is a note, not the
    end of the run (a GPU may refuse what the CPU ran). ``check(side, holovec's result,
    side's result)`` returns a note where a side computes something else."""
    results = {}
    for side, fn in sides.items():
        row.times[side] = None
        if fn is not None:
            with _failure_noted(row, side):
                row.times[side] = run.time(fn, wait)
                results[side] = wait(fn())
    if check is None or "holovec" not in results:
        return
    for side, result in results.items():
        if side != "holovec":
            note = check(side, results["holovec"], result)
            if note:
                row.notes.append(f"{side} {note}")


@contextmanager
def _failure_noted(row: DeviceRow, what: str) -> Iterator[None]:
    """Within this block, an error is a note of ``row`` (the table says what failed), not
    the end of the run: a GPU may refuse what the CPU ran, or run out of memory."""
    try:
        yield
    except Exception as error:  # reported under the table
        row.notes.append(f"{what} failed: {type(error).__name__}: {str(error)[:300]}")


def _row(run: _Run, section: str, key: str, label: str, model: str = "FHRR") -> DeviceRow:
    reference = H200_BEFORE.get((run.framework, key), ("-", "-"))
    return DeviceRow(f"device-{section}", run.framework, model, key, label, reference=reference)


# -- JAX's compilations -----------------------------------------------------------------------

_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
_compiled = [0]


@cache
def _count_compilations() -> None:
    """Count every program JAX compiles from now on (a ``jax.monitoring`` listener)."""
    import jax.monitoring

    def listen(event: str, duration: float, **kwargs: Any) -> None:
        if event == _COMPILE_EVENT:
            _compiled[0] += 1

    jax.monitoring.register_event_duration_secs_listener(listen)


def compilations() -> int:
    """Programs JAX compiled since the count began (0 before)."""
    return _compiled[0]


# -- the operations ---------------------------------------------------------------------------


def _ops_rows(run: _Run) -> list[DeviceRow]:
    from holovec.encoders import FractionalPowerEncoder

    s = run.sizes
    model = VSA.create("FHRR", s.dim, backend=run.framework, device=run.device)
    backend = model.backend
    wait = waiter(run.framework, backend.device)
    baseline = make_baseline(model)
    code = device_code(run.framework, backend.device)
    hd = TorchhdOps("FHRR", s.dim, backend.device) if run.framework == "torch" and run.torchhd else None
    rows = []

    def add(key: str, label: str, sides: dict, check: Callable | None = None) -> None:
        run.say(label)
        row = _row(run, "ops", key, label)
        _time_sides(run, row, sides, wait, check)
        rows.append(row)

    def close(atol: float, torchhd: bool = True) -> Callable[[str, Any, Any], str | None]:
        """A check of the sides' values (torchhd's too, or not: its own phases or ties)."""
        return lambda side, expected, got: (
            None if side == "torchhd" and not torchhd else disagreement(expected, got, atol=atol, rtol=0)
        )

    add(
        "random-1",
        "random(seed=...), 1 FHRR vector",
        {
            "holovec": _seeded(lambda seed: model.random(seed=seed)),
            "baseline": _seeded(lambda seed: baseline.random(1, seed)),
            "torchhd": hd and _seeded(lambda seed: hd.random(1, seed)),
        },
    )
    add(
        "random-n",
        f"random({s.draws:,}, seed=...), FHRR",
        {
            "holovec": _seeded(lambda seed: model.random(s.draws, seed=seed)),
            "baseline": _seeded(lambda seed: baseline.random(s.draws, seed)),
            "torchhd": hd and _seeded(lambda seed: hd.random(s.draws, seed)),
        },
    )
    vectors = model.random(s.bundle, seed=13)
    add(
        "bundle",
        f"bundle of {s.bundle:,} FHRR vectors",
        {
            "holovec": partial(model.bundle, vectors),
            "baseline": partial(baseline.bundle, vectors),
            "torchhd": hd and partial(hd.bundle, hd.adopt(vectors)),
        },
        close(1e-3, torchhd=False),
    )
    encoder = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=1.0, seed=1)
    values = backend.asarray(np.random.default_rng(5).uniform(0.0, 1.0, s.scalars).astype(np.float32))
    theta = backend.asarray(encoder.theta_host[0])  # the encoder's own phases, on the device
    offset, scale = float(encoder.min_val[0]), float(encoder.beta[0])
    add(
        "fpe",
        f"FPE encode of {s.scalars:,} scalars (FractionalPowerEncoder)",
        {
            "holovec": partial(encoder.encode, values),
            "baseline": partial(code.fpe, values, theta, offset, scale),
            "torchhd": hd and partial(hd.fpe_encoder(1.0), values),
        },
        close(1e-3, torchhd=False),
    )
    a, b = model.random(s.pairs, seed=11), model.random(s.pairs, seed=12)
    add(
        "similarity-pairs",
        f"similarity, {s.pairs:,} pairs",
        {
            "holovec": partial(model.similarity, a, b),
            "baseline": partial(code.similarity_pairs, a, b),
            "torchhd": hd and partial(hd.similarity_pairs, hd.adopt(a), hd.adopt(b)),
        },
        close(1e-4),
    )
    n_q, n = s.matrix
    queries, items = model.random(n_q, seed=14), make_items(model, n, seed=15)
    add(
        "similarity-matrix",
        f"similarity matrix, {n_q:,} x {n:,}",
        {
            "holovec": partial(model.similarity_matrix, queries, items),
            "baseline": partial(baseline.similarity_matrix, queries, items),
            "torchhd": hd and partial(hd.similarity_matrix, hd.adopt(queries), hd.adopt(items)),
        },
        close(1e-4),
    )
    return rows


# -- the device's rates -----------------------------------------------------------------------


def measure_rates(run: _Run) -> dict[str, float]:
    """The device's copy bandwidth (bytes read and written per second) and int8 and float32
    product rates (operations per second), measured with ``run``'s framework."""
    run.say("the device's copy bandwidth and product rates")
    device = get_backend(run.framework, run.device).device
    code = device_code(run.framework, device)
    wait = waiter(run.framework, device)
    side = run.sizes.product_side
    rates = {}
    for name, make, size in (
        ("copy", code.copy, run.sizes.copy_bytes),
        ("int8", code.int8_product, side),
        ("float32", code.float32_product, side),
    ):
        fn, work = make(size)  # its arrays freed before the next rate's are made
        rates[name] = work / run.time(fn, wait).median
    return rates


# -- the searches -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _SearchModel:
    key: str  #: the row's key: "search-<key>"
    label: str
    name: str  #: holovec's model
    packed: bool = False


SEARCH_MODELS = (
    _SearchModel("MAP", "MAP", "MAP"),
    _SearchModel("BSC-packed", "BSC packed", "BSC", packed=True),
    _SearchModel("FHRR", "FHRR", "FHRR"),
)


def _search_rows(run: _Run, rates: dict[str, float]) -> list[DeviceRow]:
    rows = []
    for spec in SEARCH_MODELS:
        row = _row(run, "search", f"search-{spec.key}", f"top-{K}, {spec.label}", spec.label)
        with _failure_noted(row, "the search"):
            _search_row(run, spec, rates, row)
        rows.append(row)
        _release(run.framework, run.device)  # its items: GBs at the default sizes
    return rows


def _search_row(run: _Run, spec: _SearchModel, rates: dict[str, float], row: DeviceRow) -> None:
    """Time one model's search, and its hand-written versions, into ``row``."""
    from holovec.retrieval import ItemStore

    n_q, n = run.sizes.search
    options = {"packed": True} if spec.packed else {}
    model = VSA.create(spec.name, run.sizes.dim, backend=run.framework, device=run.device, **options)
    backend, dim = model.backend, model.dim
    run.say(f"search, {spec.label}: {n_q:,} queries x {n:,} items")
    items = make_items(model, n, seed=100)
    queries, truth = noisy_queries(model, items, n_q, seed=200)
    store = ItemStore(model).fit(items)  # its search index is made by the untimed warm-up call
    code = device_code(run.framework, backend.device)
    q_rows = padded_size(n_q, INT_MM_MULTIPLE, INT_MM_MIN_ROWS)  # torch._int_mm's shapes
    if spec.name == "FHRR":
        int8 = None
        float_q, float_items = code.real_view(queries), code.real_view(items)
        offset, ops, bound_name = 0, 2 * n_q * n * 2 * dim, "float32"
    elif spec.packed:
        int8 = partial(code.packed_int8_top_k, code.pad(queries, q_rows, queries.shape[1]), items, K)
        float_q, float_items = code.unpacked_floats(queries), code.unpacked_floats(items)
        # the padding bits, 0 in every vector, are +1 in both unpacked vectors
        offset, ops, bound_name = float_q.shape[1] - dim, 2 * n_q * n * dim, "int8"
    else:
        width = padded_size(dim, INT_MM_MULTIPLE)
        int8_items = code.int8(items) if width == dim else code.pad(code.int8(items), n, width)
        int8 = partial(code.int8_top_k, code.pad(code.int8(queries), q_rows, width), int8_items, K)
        offset, ops, bound_name = 0, 2 * n_q * n * dim, "int8"
        float_q, float_items = queries, items
    hd = None
    if run.framework == "torch" and run.torchhd and TorchhdOps.supports(spec.name) and not spec.packed:
        hd = TorchhdOps(spec.name, dim, backend.device)
    row.bound_s, row.bound_name = ops / rates[bound_name], bound_name
    row.baseline_name = bound_name  # the hand-written search the bound is for
    sides = {
        "holovec": partial(store.search, queries, K),
        "int8": int8,
        "float32": partial(code.float_top_k, float_q, float_items, K),
        "torchhd": hd and partial(hd.top_k, hd.adopt(queries), hd.adopt(items), K),
    }

    def check(side: str, expected: Any, got: Any) -> str | None:
        """The side's k best scores are holovec's (whatever order it gives equal ones)."""
        scores = to_numpy(got[0])[:n_q].astype(np.float64)
        return disagreement(expected[0], (scores - offset) / dim, rtol=0)

    _time_sides(run, row, sides, waiter(run.framework, backend.device), check)
    if row.times["holovec"] is not None:
        found = store.search(queries, K)[1][:, 0]
        if not (found == truth).all():
            row.notes.append(f"holovec's best item is the query's own for {np.mean(found == truth):.1%} only")


# -- the fits ---------------------------------------------------------------------------------


def _digits(rows: int | None) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    return X[:rows], y[:rows]


def _fit_rows(run: _Run) -> list[DeviceRow]:
    from holovec.learn import AdaptHDClassifier, RidgeHDClassifier

    s = run.sizes
    X, y = _digits(s.digits)
    common = {"dim": s.dim, "backend": run.framework, "device": run.device, "seed": 0}
    adapt = {} if s.epochs is None else {"epochs": s.epochs}
    epochs = "" if s.epochs is None else f", epochs={s.epochs}"
    data = f"digits {X.shape[0]:,} x {X.shape[1]}"
    rows = []
    for key, cls, options, label in (
        ("adapthd", AdaptHDClassifier, adapt, f"AdaptHDClassifier fit, {data}{epochs}"),
        ("ridgehd", RidgeHDClassifier, {}, f"RidgeHDClassifier fit, {data}"),
    ):
        row = _row(run, "fits", key, label, "FHRR")

        def fit(cls: Any = cls, options: dict = options) -> Any:
            return cls(**common, **options).fit(X, y)

        with _failure_noted(row, "holovec"):
            fitted = _time_first_and_later(run, row, fit)
            row.info.append(f"training accuracy {fitted.score(X, y):.3f}")
        rows.append(row)
    n_factors, n_items, dim, n_products = s.resonator
    label = f"Resonator.factor, {n_products} products of {n_factors} x {n_items}, MAP N={dim:,}"
    row = _row(run, "fits", "resonator", label, "MAP")
    with _failure_noted(row, "holovec"):
        _resonator_row(run, row)
    return [*rows, row]


def _resonator_row(run: _Run, row: DeviceRow) -> None:
    """Time ``Resonator.factor`` of seeded products into ``row``."""
    from holovec.retrieval import Resonator

    n_factors, n_items, dim, n_products = run.sizes.resonator
    model = VSA.create("MAP", dim, backend=run.framework, device=run.device)
    books, products, truth = resonator_problem(model, n_factors, n_items, n_products)
    resonator = Resonator(model, books)
    result = _time_first_and_later(run, row, partial(resonator.factor, products))
    factored = np.mean((np.asarray(result.indices) == truth).all(-1))
    row.info.append(f"{factored:.0%} factored")


def _time_first_and_later(run: _Run, row: DeviceRow, fn: Callable[[], Any]) -> Any:
    """``first``: one call (for JAX with the programs it compiled); ``holovec``: the median
    of later calls (the first of them a warm-up), with what they compiled. Returns the
    first call's result."""
    run.say(row.label)
    sync = get_backend(run.framework, run.device).synchronize
    wait = lambda result: sync()  # noqa: E731 - an estimator or a result of NumPy arrays
    if run.framework == "jax":
        _count_compilations()
    before = compilations()
    start = time.perf_counter()
    result = fn()
    wait(result)
    first = time.perf_counter() - start
    row.times["first"] = Timing(first, first, 1, 1)
    middle = compilations()
    row.times["holovec"] = run.time(fn, wait)
    if run.framework == "jax":
        row.compiles = {"first": middle - before, "holovec": compilations() - middle}
    return result


# -- the table --------------------------------------------------------------------------------


def run_table(
    frameworks: Sequence[str],
    device: str,
    *,
    sizes: DeviceSizes = DEFAULT,
    repeat: int = 5,
    budget_s: float = 1.0,
    torchhd: bool = True,
    progress: TextIO | None = None,
) -> DeviceReport:
    """Every row of the device table for each framework ("torch", "jax") on ``device``
    ("cpu", "cuda" or "cuda:N"). The fits run first, so that their first calls compile
    what they need without the programs of the other rows."""
    from .machine import device_name

    report = DeviceReport(device, sizes, repeat)
    torch_fits: dict[str, Timing | None] = {}
    for framework in frameworks:
        run = _Run(framework, device, sizes, repeat, budget_s, torchhd, progress)
        report.names[framework] = device_name(framework, device)
        # the device's start (a CUDA context, a BLAS handle) is no part of a first fit
        device_code(framework, get_backend(framework, device).device).warm_up()
        fits = _fit_rows(run)
        if framework == "torch":
            torch_fits = {r.key: r.times.get("holovec") for r in fits}
        else:  # JAX against torch's holovec on the same device, where torch ran
            for r in fits:
                r.times["baseline"] = torch_fits.get(r.key)
        ops = _ops_rows(run)
        report.rates[framework] = measure_rates(run)
        report.rows += ops + _search_rows(run, report.rates[framework]) + fits
        _release(framework, device)
    return report


def _release(framework: str, device: str) -> None:
    """Free what the last rows left (their arrays, torch's cached device memory) before the
    next rows make theirs."""
    gc.collect()
    if framework == "torch" and device.startswith("cuda"):
        import torch

        torch.cuda.empty_cache()


def _median(side: str) -> Callable[[Row], str]:
    return lambda row: format_seconds(row.median(side))  # type: ignore[attr-defined]


def _ratio(numerator: str, denominator: str) -> Callable[[Row], str]:
    def cell(row: Row) -> str:
        a, b = row.median(numerator), row.median(denominator)  # type: ignore[attr-defined]
        if a is None or b is None:
            return "-"
        return f"{a / b:.2f}x" if a / b >= 0.1 else f"{a / b:.2g}x"  # two digits, however small

    return cell


def _share(side: str) -> Callable[[Row], str]:
    def cell(row: Row) -> str:
        share = row.share_of_bound(side)  # type: ignore[attr-defined]
        return "-" if share is None else f"{share:.1%}"

    return cell


def _compiles(side: str) -> Callable[[Row], str]:
    return lambda row: str(row.compiles.get(side, "-"))  # type: ignore[attr-defined]


def _bound(row: Row) -> str:
    bound = row.bound_s  # type: ignore[attr-defined]
    return "-" if bound is None else f"{format_seconds(bound)} ({row.bound_name})"  # type: ignore[attr-defined]


OPERATION = Column("operation", lambda row: row.label, text=True)
HOLOVEC = Column("holovec", _median("holovec"))
HAND_WRITTEN = Column("hand-written", _median("baseline"))
RATIO = Column("holovec/hand-written", _ratio("holovec", "baseline"))
TORCHHD = Column("torchhd", _median("torchhd"))
ISSUE_HOLOVEC = Column("H200 before: holovec", lambda row: row.reference[0], text=True)  # type: ignore[attr-defined]
ISSUE_HAND = Column("H200 before: hand-written", lambda row: row.reference[1], text=True)  # type: ignore[attr-defined]

SEARCH_COLUMNS = (
    OPERATION,
    HOLOVEC,
    Column("int8 product + top-k", _median("int8")),
    Column("float32 product + top-k", _median("float32")),
    TORCHHD,
    Column("device bound", _bound),
    Column("holovec % of bound", _share("holovec")),
    Column("hand-written % of bound", lambda row: _share(row.baseline_name)(row)),
    ISSUE_HOLOVEC,
    ISSUE_HAND,
)


def _columns(table: str, framework: str) -> tuple[Column, ...]:
    torch = framework == "torch"
    if table == "ops":
        torchhd = (TORCHHD,) if torch else ()
        return (OPERATION, HOLOVEC, HAND_WRITTEN, RATIO, *torchhd, ISSUE_HOLOVEC, ISSUE_HAND)
    if table == "search":
        return tuple(c for c in SEARCH_COLUMNS if torch or c is not TORCHHD)
    later = Column("later calls", _median("holovec"))
    if torch:
        return (OPERATION, Column("first call", _median("first")), later, ISSUE_HOLOVEC, ISSUE_HAND)
    return (
        OPERATION,
        Column("first call", _median("first")),
        Column("compiled", _compiles("first")),
        later,
        Column("compiled later", _compiles("holovec")),
        Column("torch, same device", _median("baseline")),
        Column("jax/torch", _ratio("holovec", "baseline")),
        ISSUE_HOLOVEC,
        ISSUE_HAND,
    )


def _rate_line(framework: str, rates: dict[str, float], sizes: DeviceSizes) -> str:
    side = sizes.product_side
    products = "torch._int_mm" if framework == "torch" else "jnp.matmul(preferred_element_type=int32)"
    copied = f"{sizes.copy_bytes / 2**20:,.0f} MiB device to device, bytes read + written"
    return (
        f"device, measured with {framework}: copy {rates['copy'] / 1e9:,.1f} GB/s ({copied}); "
        f"int8 product {rates['int8'] / 1e12:,.3g} TOP/s ({products}, {side}^3, int32 accumulation); "
        f"float32 product {rates['float32'] / 1e12:,.3g} TFLOP/s ({side}^3, full float32)"
    )


def render(report: DeviceReport, header: Sequence[str] = (), markdown: bool = False) -> str:
    """The report as text (or Markdown): a table of operations, searches and fits per
    framework, with the device's rates under the searches."""
    s = report.sizes
    style = "markdown" if markdown else "text"
    n_q, n = s.search
    names = "; ".join(f"{fw}: {name}" for fw, name in report.names.items())
    lines = [
        f"holovec on a device: {report.device}, D={s.dim:,}; medians of up to {report.repeat} "
        "synchronised calls after one warm-up call (seeded draws: a fresh seed each call)",
        "",
        f"device:   {names}",
        *header,
        *report.notes,
    ]
    for framework in report.names:
        rows = [r for r in report.rows if r.backend == framework]
        for table, title in (
            ("ops", f"{framework}: operations (FHRR)"),
            ("search", f"{framework}: exact top-{K} of {n_q:,} queries x {n:,} items"),
            ("fits", f"{framework}: fits and factorization"),
        ):
            group = [r for r in rows if r.section == f"device-{table}"]
            lines += ["", f"**{title}**" if markdown else title, ""]
            lines += table_lines(_columns(table, framework), group, style)
            if table == "search" and framework in report.rates:
                lines += ["", _rate_line(framework, report.rates[framework], s)]
        notes = [f"{r.label}: {line}" for r in rows for line in r.info]
        notes += [f"check {r.label}: {note}" for r in rows for note in r.notes]
        lines += ["", *notes] if notes else []
    lines += ["", *legend(s)]
    if markdown:  # a line break at the end of each line outside the tables
        lines = [line + ("  " if line and not line.startswith("|") else "") for line in lines]
    return "\n".join(lines)


def legend(sizes: DeviceSizes) -> list[str]:
    """The lines under the tables: what the columns mean."""
    other_sizes = sizes != DEFAULT
    sizes_note = "; this run used other sizes" if other_sizes else ""
    return [
        "hand-written: vectorised code on the same device (benchmarks/device_baselines.py and "
        "benchmarks/baselines); searches: the int8 product with int32 accumulation (torch._int_mm in "
        "16,384-item chunks, a top-k per chunk; JAX: one jitted product; packed BSC unpacked on the "
        "device) or the float32 product, then a top-k",
        "device bound: the search's int8 operations (2 x queries x items x D) at the int8 rate measured "
        "here; FHRR: its float32 operations (2 x queries x items x 2D) at the float32 rate; % of bound: "
        "bound / time (above 100%: faster than that product, e.g. a CPU's popcount)",
        "compiled: programs JAX compiled during the first call, and during all the later calls",
        "H200 figures before: holovec before this benchmark, on one NVIDIA H200 (torch 2.11+cu130, JAX "
        f"0.11.2, D=10,000, the default sizes){sizes_note}; torchhd 5.8.4 there: {H200_TORCHHD}",
    ]


def to_json(report: DeviceReport, data: dict[str, Any]) -> None:
    """Add what the device rows hold beyond a ``Row`` (JSON of ``results.report``), and the
    device's rates, to a run's JSON."""
    for item, row in zip(data["rows"], report.rows, strict=True):
        item["compiles"] = dict(row.compiles)
        item["bound_s"] = row.bound_s
        item["bound"] = row.bound_name
        item["h200_before"] = {"holovec": row.reference[0], "hand_written": row.reference[1]}
    data["device"] = {
        "device": report.device,
        "names": dict(report.names),
        "rates": {fw: dict(r) for fw, r in report.rates.items()},
        "notes": list(report.notes),
        "sizes": asdict(report.sizes),
    }
