"""One answer on every machine: a search's top-k and its order depend only on the query and
the items, never on the chunk size, the query batch, the thread count, the CPU's BLAS
kernel, the backend or how a codebook is split (see holovec._fixed_order and
holovec.retrieval._refine). Scores of the exact models are integers over dim; the others'
are the canonical scores, so they are compared bit for bit here too."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import backend_param
from holovec import VSA, kernels
from holovec._fixed_order import fold_sum, rounding_margin
from holovec.retrieval import ItemStore, search

pytestmark = pytest.mark.ordering

#: the models whose products round (their search needs the canonical scores)
ROUNDING = [("FHRR", {}), ("HRR", {}), ("VTB", {}), ("GHRR", {}), ("MAP-C", {})]
BACKENDS = [backend_param("numpy"), backend_param("torch"), backend_param("jax"), backend_param("dask")]


def _model(name: str, backend: str, **options):
    dim = {"VTB": 256, "GHRR": 256}.get(name, 250)
    device = None if backend in ("numpy", "dask") else "cpu"
    return VSA.create(name, dim=dim, backend=backend, device=device, **options)


def _duplicates(name: str, n_distinct: int = 60, n_items: int = 600, n_q: int = 12):
    """A NumPy codebook in which every vector appears about ten times (exact ties
    everywhere), and queries that are bundles of three of its vectors."""
    model = _model(name, "numpy")
    base = model.random(n_distinct, seed=1)
    rng = np.random.default_rng(0)
    items = base[rng.integers(0, n_distinct, n_items)]
    queries = np.stack([model.bundle(base[rng.integers(0, n_distinct, 3)]) for _ in range(n_q)])
    return items, queries


def _documented_order(scores: np.ndarray, indices: np.ndarray) -> None:
    """Scores descending; equal scores lowest index first."""
    for s, i in zip(scores, indices, strict=True):
        for a in range(len(s) - 1):
            assert s[a] > s[a + 1] or (s[a] == s[a + 1] and i[a] < i[a + 1]), (s, i)


# -- the fixed-order sum -----------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=0, max_size=70))
def test_fold_sum_is_a_sum_in_one_fixed_order(values):
    x = np.asarray(values, dtype=np.float64)
    got = float(fold_sum(np, x))
    # an order of pairwise additions: within Higham's bound for log2(n) levels of the exact sum
    levels = max(1, math.ceil(math.log2(max(len(values), 1))))
    bound = levels * 2.0**-53 * float(np.abs(x).sum()) * 1.01
    assert abs(got - math.fsum(values)) <= bound
    # the same bits whatever the rows beside it (an elementwise fold, row by row)
    batch = np.stack([x, x[::-1], x])
    assert fold_sum(np, batch)[0] == fold_sum(np, batch)[2] == got


@pytest.mark.parametrize("backend", [backend_param("torch"), backend_param("jax")])
@pytest.mark.parametrize("n", [1, 2, 7, 250, 513])
def test_fold_sum_has_the_same_bits_on_every_backend(backend, n):
    model = _model("HRR", backend)
    rng = np.random.default_rng(n)
    x = rng.standard_normal((3, n)) * np.exp(rng.uniform(-20, 20, (3, n)))
    with kernels.float64_scope(model.backend):
        got = model.backend.to_numpy(fold_sum(model.xp, model.backend.asarray(x)))
    np.testing.assert_array_equal(got, fold_sum(np, x))


def test_rounding_margin_bounds_any_float32_order():
    """The margin covers the worst order: float32 sums left to right against a
    float64 reference, for vectors of every sign pattern."""
    rng = np.random.default_rng(2)
    w = 2000
    q, b = rng.standard_normal((2, 50, w)).astype(np.float32)
    exact = np.einsum("ij,ij->i", q.astype(np.float64), b.astype(np.float64))
    norms = np.linalg.norm(q.astype(np.float64), axis=1) * np.linalg.norm(b.astype(np.float64), axis=1)
    sequential = np.zeros(50, dtype=np.float32)
    for j in range(w):  # the worst-conditioned order a kernel could take
        sequential += q[:, j] * b[:, j]
    assert np.all(np.abs(sequential - exact) / norms <= rounding_margin(w))


# -- search: ties and near-ties ----------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "options"), ROUNDING, ids=[n for n, _ in ROUNDING])
def test_duplicates_give_the_documented_order_everywhere(backend, name, options):
    """Copies of one vector score the same and come lowest index first, for every chunk
    size and batch split, and every backend answers what NumPy answers (bit for bit)."""
    items, queries = _duplicates(name)
    reference = ItemStore(_model(name, "numpy")).fit(items).search(queries, k=10)
    _documented_order(*reference)
    model = _model(name, backend, **options)
    book, q = model.backend.asarray(items), model.backend.asarray(queries)
    for chunk_size in (None, 7, 64):
        s, i = ItemStore(model, chunk_size=chunk_size).fit(book).search(q, k=10)
        np.testing.assert_array_equal(i, reference[1])
        np.testing.assert_array_equal(s, reference[0])
    halves = [search(model, part, book, k=10) for part in (q[:5], q[5:])]
    np.testing.assert_array_equal(
        np.concatenate([model.backend.to_numpy(h[1]) for h in halves]), reference[1]
    )


@pytest.mark.parametrize("backend", [backend_param("numpy"), backend_param("torch")])
def test_a_tie_larger_than_the_candidates_is_searched_again(backend):
    """50 copies of the best item and k=30: the first candidates (k and a few more) end
    inside the tie, so the search is repeated with more; still the lowest 30 copies."""
    model = _model("FHRR", backend)
    base = model.random(20, seed=4)
    rng = np.random.default_rng(1)
    pick = rng.integers(1, 20, 400)
    pick[rng.choice(400, 50, replace=False)] = 0
    items = model.xp.take(base, model.backend.asarray(pick), axis=0)
    s, i = search(model, base[:1], items, k=30, chunk_size=33)
    i = model.backend.to_numpy(i)[0]
    np.testing.assert_array_equal(i, np.flatnonzero(pick == 0)[:30])
    assert len(set(model.backend.to_numpy(s)[0].tolist())) == 1


def test_near_ties_are_ordered_by_the_canonical_scores():
    """Items that differ from the query's nearest one in a single element score a few
    float steps apart: the order is that of the canonical scores (which the float64
    reference gives exactly), whatever the chunking."""
    model = _model("HRR", "numpy")
    base = model.random(1, seed=5)[0]
    rng = np.random.default_rng(3)
    items = np.repeat(base[None, :], 40, axis=0)
    cols = rng.integers(0, model.dim, 40)
    items[np.arange(40), cols] = np.nextafter(items[np.arange(40), cols], np.float32(np.inf))
    q = base[None, :]
    exact = (items.astype(np.float64) @ q[0].astype(np.float64)) / (
        np.linalg.norm(items.astype(np.float64), axis=1) * np.linalg.norm(q[0].astype(np.float64))
    )
    canonical_order = np.lexsort((np.arange(40), -exact.astype(np.float32)))
    for chunk_size in (None, 3, 16):
        _, i = search(model, q, items, k=40, chunk_size=chunk_size)
        np.testing.assert_array_equal(i[0], canonical_order)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_double_precision_models_order_canonically(dtype):
    name = "HRR" if dtype == "float64" else "FHRR"
    items, queries = _duplicates(name, n_items=200, n_q=4)
    model = VSA.create(name, dim=250, dtype=dtype)
    items, queries = items.astype(dtype), queries.astype(dtype)
    first = search(model, queries, items, k=8)
    _documented_order(*first)
    for chunk_size in (5, 64):
        np.testing.assert_array_equal(search(model, queries, items, k=8, chunk_size=chunk_size)[1], first[1])


# -- threads ------------------------------------------------------------------------------------

_THREADED = """
import json, sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_canonical_order import _duplicates, _model
from holovec.retrieval import ItemStore
out = {{}}
for backend in {backends!r}:
    if backend == "torch":
        import torch
        torch.set_num_threads({threads})
    for name in ("FHRR", "HRR"):
        items, queries = _duplicates(name)
        model = _model(name, backend)
        s, i = ItemStore(model, chunk_size=50).fit(model.backend.asarray(items)).search(
            model.backend.asarray(queries), k=10)
        out[backend + name] = [s.tolist(), i.tolist()]
print(json.dumps(out))
"""


@pytest.mark.slow
@pytest.mark.parametrize("threads", [1, 16])
def test_the_thread_count_changes_nothing(threads):
    """OPENBLAS_NUM_THREADS, OMP_NUM_THREADS and torch.set_num_threads of 1 and 16 give
    the answers of this process (whatever its thread count)."""
    backends = [b for b in ("numpy", "torch") if importlib.util.find_spec(b)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    env["MKL_NUM_THREADS"] = str(threads)
    code = _THREADED.format(tests=os.path.dirname(__file__), backends=backends, threads=threads)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    for backend in backends:
        for name in ("FHRR", "HRR"):
            items, queries = _duplicates(name)
            s, i = ItemStore(_model(name, "numpy"), chunk_size=50).fit(items).search(queries, k=10)
            assert got[backend + name] == [s.tolist(), i.tolist()], (backend, name)
