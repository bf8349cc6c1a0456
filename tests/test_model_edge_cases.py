"""The models and backends under hostile input: every failure an adversarial probe
found in ``model.asarray``, ``similarity``/``similarity_matrix``, ``VSA.create``, chunked
search, empty batches and devices, each with a test that failed before its fix.

The cases are generated from ``VSA.available_models()`` and what each model declares
(``element_kind``, ``packed``, its boolean options), not from a hand-written list, so that a
model registered later is covered too.
"""

from __future__ import annotations

import signal
import tracemalloc
from contextlib import contextmanager

import numpy as np
import pytest

from conftest import backend_param, device_for
from holovec import VSA, kernels
from holovec._fixed_order import rounding_margin
from holovec.retrieval import search
from holovec.testing import model_variants

BACKENDS = [backend_param(b) for b in ("numpy", "torch", "jax")]
DIM = 64  # a square (VTB), a multiple of 4 (GHRR), 8 x 8 segments (BSDC-SEG), whole 64-bit words
#: element kinds whose similarities are exact (integer sums): both paths agree bit for bit
EXACT_KINDS = ("bipolar", "binary", "sparse")


#: every registered model, and each with every boolean option flipped (e.g. BSC packed, HRR
#: unitary); named choices (BSDC's CDT binding) are the conformance suite's
VARIANTS = model_variants(choices=False)
VARIANT_IDS = [variant.id for variant in VARIANTS]
_CACHE: dict = {}


def make(variant: tuple[str, dict], backend: str, dim: int = DIM, **extra):
    name, options = variant
    key = (name, tuple(sorted({**options, **extra}.items())), backend, dim)
    if key not in _CACHE:
        _CACHE[key] = VSA.create(
            name, dim=dim, backend=backend, device=device_for(backend), seed=5, **options, **extra
        )
    return _CACHE[key]


def host(model, x) -> np.ndarray:
    return np.asarray(model.to_numpy(x))


def native(model, array: np.ndarray):
    """A host array as an array of the model's backend, values unchecked (as a user's own
    arithmetic would make them)."""
    return model.backend.asarray(array)


def off_alphabet(model, n: int = 3) -> np.ndarray:
    """Vectors of the model's dtype whose values are not the model's: 2 and 255 in integer
    vectors, everything times 4 in float ones (not +-1, not of modulus 1, not in [-1, 1])."""
    x = host(model, model.random(n, seed=11)).copy()
    if np.issubdtype(x.dtype, np.integer):
        x[0, : DIM // 8] = 2
        x[-1, DIM // 8 : DIM // 4] = 255
    else:
        x = x * 4
    return x


@contextmanager
def deadline(seconds: int):
    """Turn a hang into a failure (SIGALRM, where the platform has it)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# -- asarray never changes values silently ---------------------------------------------


def _bad_value(model) -> float:
    """One value outside the model's alphabet, by its element kind."""
    return {"bipolar": 0.5, "binary": 2, "sparse": 2, "bounded": 1.5}.get(model.element_kind, np.nan)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_asarray_refuses_values_outside_the_alphabet(variant, backend):
    model = make(variant, backend)
    good = host(model, model.random(2, seed=1))
    np.testing.assert_array_equal(host(model, model.asarray(good)), good)  # valid values pass
    if model.packed:
        pytest.skip("every byte is valid at this dim (see test_packed_bsc_padding_bits)")
    bad = good.astype(np.float64 if not np.iscomplexobj(good) else np.complex128)
    bad[1, 3] = _bad_value(model)
    with pytest.raises(ValueError, match=r"1 of .* values .* at \[1, 3\]") as info:
        model.asarray(bad)
    assert model.allowed_values in str(info.value) or "finite" in str(info.value)
    assert model.check_values(model.asarray(good)) is not None


@pytest.mark.parametrize("backend", BACKENDS)
def test_asarray_bsc_names_the_values(backend):
    model = VSA.create("BSC", 4, backend=backend, device=device_for(backend))
    with pytest.raises(ValueError, match=r"4 of 4 values.*0 or 1") as info:
        model.asarray([2, -1, 256, 257])
    for value in ("2 at [0]", "-1 at [1]", "256 at [2]", "257 at [3]"):
        assert value in str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_asarray_refuses_overflow_and_rounding(backend):
    half = VSA.create("MAP", 4, backend=backend, device=device_for(backend), dtype="float16")
    with pytest.raises(ValueError, match=r"100000\.0 at \[0\]"):
        half.asarray([1e5, 1.0, 1.0, 1.0])
    hrr = VSA.create("HRR", 4, backend=backend, device=device_for(backend))
    with pytest.raises(ValueError, match=r"1e\+300 at \[0\]"):
        hrr.asarray(np.array([1e300, 0.5, 0.5, 0.5]))
    with pytest.raises(ValueError, match=r"16777217 at \[1\]"):  # 2**24 + 1 rounds in float32
        hrr.asarray(np.array([1, 2**24 + 1, 0, 0], dtype=np.int64))
    bsc = VSA.create("BSC", 4, backend=backend, device=device_for(backend))
    with pytest.raises(ValueError, match="4611686018427387905"):  # JAX made it 1 (int32)
        bsc.asarray([2**62 + 1, 0, 1, 0])
    with pytest.raises(ValueError, match=r"0\.5 at \[2\]"):
        bsc.asarray([0.0, 1.0, 0.5, 1.0])
    with pytest.raises(ValueError, match=r"imaginary parts.*\(0\.5\+1j\) at \[1\]"):
        hrr.asarray(np.array([0.5, 0.5 + 1j, 0.5, 0.5]))


def test_torch_wide_unsigned_values_are_not_wrapped():
    pytest.importorskip("torch")
    model = VSA.create("BSC", 4, backend="torch")
    with pytest.raises(ValueError, match="2\\*\\*63"):
        model.asarray(np.array([2**64 - 1, 0, 1, 0], dtype=np.uint64))


@pytest.mark.parametrize("backend", BACKENDS)
def test_map_i_takes_integer_bundles(backend):
    model = VSA.create("MAP-I", DIM, backend=backend, device=device_for(backend))
    s = model.bundle(list(model.random(3, seed=1)))
    np.testing.assert_array_equal(host(model, model.asarray(host(model, s))), host(model, s))
    with pytest.raises(ValueError, match="integers"):
        model.asarray(host(model, s) + 0.5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_packed_bsc_padding_bits(backend):
    """Packed vectors' padding bits (past dim) must be 0: asarray refuses others, and
    similarities ignore those that arithmetic of one's own sets (``~a``)."""
    model = VSA.create("BSC", 100, backend=backend, device=device_for(backend), packed=True)
    a = model.random(seed=1)
    flipped = host(model, a).copy()
    flipped[-1] = 0xFF
    with pytest.raises(ValueError, match="padding"):
        model.asarray(flipped)
    bits = host(model, model.unpack(a)).copy()
    bits[3] = 2
    with pytest.raises(ValueError, match=r"bits: 1 of 100 values are not bits.*2 at \[3\]"):
        model.pack(native(model, bits))
    inverted = native(model, ~host(model, a))
    assert float(model.similarity(a, inverted)) == -1.0
    assert float(host(model, model.similarity_matrix(a, inverted[None]))[0]) == -1.0


# -- similarities in [-1, 1], similarity and similarity_matrix agree --------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_similarity_bounded_and_equal_to_matrix_off_alphabet(variant, backend):
    """Arrays of one's own arithmetic (off the alphabet: 2 and 255 bits, vectors times 4)
    still give similarities in [-1, 1], the same from both functions (bit for bit where the
    sums are exact)."""
    model = make(variant, backend)
    for x in (native(model, off_alphabet(model)), model.random(3, seed=2)):
        y = model.random(4, seed=3)
        items = model.xp.concat([x, y], axis=0)
        pairwise = host(model, model.similarity(x[:, None, :], items[None, :, :]))
        matrix = host(model, model.similarity_matrix(x, items))
        assert np.all(np.abs(pairwise) <= 1) and np.all(np.abs(matrix) <= 1), (pairwise, matrix)
        if model.element_kind in EXACT_KINDS:
            np.testing.assert_array_equal(pairwise, matrix)
        else:
            np.testing.assert_allclose(pairwise, matrix, rtol=0, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_fhrr_self_similarity_is_at_most_one(backend):
    model = VSA.create("FHRR", 1000, backend=backend, device=device_for(backend))
    v = model.random(2000, seed=7)
    assert float(model.xp.max(model.similarity(v, v))) <= 1.0
    assert float(model.xp.max(model.similarity_matrix(v[:100], v[:100]))) <= 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_map_similarity_equals_matrix_exactly(backend):
    """JAX divided one way in the matrix and another in the pair (XLA turns a division by a
    constant into a multiplication by its rounded reciprocal): a float step apart."""
    model = VSA.create("MAP", 1000, backend=backend, device=device_for(backend))
    q, items = model.random(3, seed=1), model.random(50, seed=2)
    pairwise = host(model, model.similarity(q[:, None, :], items[None, :, :]))
    np.testing.assert_array_equal(host(model, model.similarity_matrix(q, items)), pairwise)
    dots = host(model, q).astype(np.float64) @ host(model, items).astype(np.float64).T
    np.testing.assert_array_equal(pairwise, (dots / 1000).astype(np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_map_search_ranks_an_unbound_superposition(backend):
    """A query of larger norm than the model's vectors (a sum, unbound) is ranked by its dot
    products in a search (its cosine), not tied at the clip."""
    model = VSA.create("MAP", 256, backend=backend, device=device_for(backend))
    book = model.random(8, seed=1)
    query = native(model, host(model, book[3]) * 3 + host(model, book[5]))
    s, i = search(model, query, book, k=2)
    assert host(model, i).tolist() == [3, 5]
    assert np.all(np.abs(host(model, s)) <= 1)


# -- cheap checks first, sizes that cannot be allocated refused at once ----------------


@pytest.mark.parametrize("name", VSA.available_models())
def test_huge_dim_refused_at_once(name):
    with deadline(20):
        for dim in (2**63, 2**31):
            with pytest.raises(ValueError, match="dim"):
                VSA.create(name, dim)


@pytest.mark.parametrize("backend", BACKENDS)
def test_allocations_beyond_memory_refused_with_the_bytes(backend, monkeypatch):
    from holovec.models.base import AllocationError

    model = VSA.create("MAP", 1000, backend=backend, device=device_for(backend))
    monkeypatch.setattr(type(model.backend), "available_memory", lambda self: 2**30)
    with pytest.raises(AllocationError, match=r"random\(1099511627776\) needs about \d+ bytes") as info:
        model.random(2**40)
    assert isinstance(info.value, MemoryError) and isinstance(info.value, ValueError)
    assert "1.0 GiB available" in str(info.value)
    with pytest.raises(AllocationError, match=r"creating a MAP model of dim 268435456 needs about \d+ bytes"):
        VSA.create("MAP", 2**28, backend=backend, device=device_for(backend))
    with pytest.raises(AllocationError, match=r"draw\(300000\)"):
        model.draw(300_000, seed=1, purpose=3)
    assert model.random(1000).shape == (1000, 1000)  # below the threshold nothing is asked


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_draw_memory_estimate_is_the_peak(variant):
    """The estimate that refuses draws is about the peak a draw takes (NumPy): not far
    below (a draw that cannot fit would start), nor far above (one that fits refused)."""
    model = make(variant, "numpy", dim=4096)
    model.random(2, seed=1)
    tracemalloc.start()
    try:
        model.random(50, seed=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.7 * peak <= model._draw_bytes(50) <= 3 * peak, (peak, model._draw_bytes(50))


# -- memory bounded by the chunk, time linear in the items -----------------------------


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b.values[0] != "jax"])
def test_bsc_matrix_packs_items_chunk_by_chunk(backend, monkeypatch):
    model = VSA.create("BSC", 512, backend=backend, device=device_for(backend))
    if not kernels.fast_packed_hamming(model.backend):
        pytest.skip("this backend compares +-1 floats in chunks, without packing")
    rows = []
    pack = kernels.pack_bits

    def counting(backend, bits, n_bytes):
        rows.append(bits.shape[0])
        return pack(backend, bits, n_bytes)

    items = model.random(200, seed=1)
    q = model.random(1, seed=2)
    monkeypatch.setattr(kernels, "pack_bits", counting)
    monkeypatch.setattr(model, "_chunk_bytes", 16 * 2 * 512)  # 16 items' packing per chunk
    S = model.similarity_matrix(q, items)
    assert 0 < max(rows) <= 16, rows
    monkeypatch.undo()
    np.testing.assert_array_equal(host(model, S), host(model, model.similarity_matrix(q, items)))


def test_jax_matrix_chunks_in_one_program(monkeypatch):
    """Eager JAX compiled a slice per chunk offset and a join of every part (the time grew
    with the square of the number of chunks); now one compiled loop serves any number of
    chunks: the model's kernel is traced a fixed number of times."""
    pytest.importorskip("jax")
    for name in ("HRR", "MAP", "BSC"):
        model = VSA.create(name, DIM, backend="jax")
        items, q = model.random(120, seed=1), model.random(2, seed=2)
        calls = []
        kernel = model._similarity_matrix

        def counting(queries, chunk, kernel=kernel, calls=calls):
            calls.append(chunk.shape[0])
            return kernel(queries, chunk)

        monkeypatch.setattr(model, "_similarity_matrix", counting)
        for chunk_size in (1, 2, 3):
            before = len(calls)
            S = model.similarity_matrix(q, items, chunk_size=chunk_size)
            assert len(calls) - before <= 3, f"{name}: {len(calls) - before} traces for chunk {chunk_size}"
            assert S.shape == (2, 120)
        monkeypatch.undo()
        np.testing.assert_array_equal(host(model, S), host(model, model.similarity_matrix(q, items)))


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_numpy_matrix_memory_bounded_by_the_chunk(variant):
    """Temporary memory: the result (and its parts) plus a few chunks' worth (a chunk is at
    least one block of 64 rows, see models._search.items_product), never a copy of the items."""
    model = make(variant, "numpy", dim=256)
    n = 2000
    items, q = model.random(n, seed=1), model.random(1, seed=2)
    model.similarity_matrix(q, items[:10], chunk_size=5)  # warm up caches
    tracemalloc.start()
    try:
        model.similarity_matrix(q, items, chunk_size=20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    per_row = max(items.nbytes // n, model.dim)  # packed rows are unpacked in temporaries
    if model.score_operand_width > model.vector_length:  # searched as wider float rows (MCR)
        per_row = max(per_row, 4 * model.score_operand_width)
    # eight blocks' worth: NumPy 2.0's kernels hold a few more temporaries than 2.4's (BSDC-SEG
    # peaked at 127 kB against 88 kB); a copy of the items (512 kB here) stays far above
    assert peak < 16 * n + 8 * 64 * per_row, (peak, items.nbytes)


# -- empty in, empty out ---------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_empty_batches(variant, backend):
    model = make(variant, backend)
    xp, n = model.xp, model.vector_length
    e, v = model.random(0, seed=1), model.random(3, seed=2)
    assert e.shape == (0, n)
    for out in (model.bind(e, e), model.bind(e, v[0]), model.unbind(e, v[0]), model.permute(e, 3)):
        assert tuple(out.shape) == (0, n)
    assert tuple(model.bundle(xp.stack([e, e])).shape) == (0, n)
    assert tuple(model.normalize(e).shape) == (0, n)
    assert tuple(model.similarity(e, e).shape) == (0,)
    assert tuple(model.similarity(e, v[0]).shape) == (0,)
    assert tuple(model.similarity_matrix(e, v).shape) == (0, 3)
    assert tuple(model.similarity_matrix(v, e).shape) == (3, 0)
    assert tuple(model.similarity_matrix(e, e).shape) == (0, 0)
    assert tuple(model.search_scores(model.search_index(v), model.search_index(e)).shape) == (3, 0)
    assert tuple(model.search_scores(model.search_index(e), model.search_index(v)).shape) == (0, 3)
    try:
        inverse = model.inverse(e)
    except ValueError as err:  # models without inverses say so, also for empty batches
        assert "no inverse" in str(err)
    else:
        assert tuple(inverse.shape) == (0, n)


# -- devices ---------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_torch_vectors_on_another_device(variant):
    torch = pytest.importorskip("torch")
    model = make(variant, "torch")
    a = model.random(2, seed=1)
    meta = torch.empty(a.shape, dtype=a.dtype, device="meta")
    calls = {
        "bind": lambda: model.bind(a, meta),
        "similarity": lambda: model.similarity(meta, a),
        "similarity_matrix": lambda: model.similarity_matrix(a, meta),
        "bundle": lambda: model.bundle([a, meta]),
        "permute": lambda: model.permute(meta),
        "check": lambda: model.check(meta),
    }
    for what, call in calls.items():
        with pytest.raises(ValueError, match=r"device meta.*device cpu") as info:
            call()
        assert "model.asarray" in str(info.value), what
    with pytest.raises(ValueError, match="meta"):
        model.asarray(meta)


def test_jax_vectors_on_another_device(monkeypatch):
    pytest.importorskip("jax")

    class OtherDevice:
        platform = "gpu"
        id = 7

        def __str__(self):
            return "gpu:7"

    model = VSA.create("FHRR", DIM, backend="jax")
    a = model.random(seed=1)
    monkeypatch.setattr(model.backend, "device", OtherDevice())
    for call in (lambda: model.bind(a, a), lambda: model.similarity(a, a), lambda: model.check(a)):
        with pytest.raises(ValueError, match=r"device cpu:0.*device gpu:7"):
            call()


@pytest.mark.parametrize("backend", BACKENDS)
def test_devices_that_do_not_exist_are_refused(backend):
    for device in ("cpu:3", "cpu:1"):
        with pytest.raises(ValueError, match=device):
            VSA.create("MAP", DIM, backend=backend, device=device)
    assert VSA.create("MAP", DIM, backend=backend, device="cpu:0") == VSA.create(
        "MAP", DIM, backend=backend, device=device_for(backend)
    )


# -- scores do not depend on chunking; equal rows score alike -------------------------


@pytest.mark.ordering
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_scores_independent_of_chunking(variant, backend):
    model = make(variant, backend, dim=256)
    base = model.random(12, seed=3)
    order = np.array(([0, 1, 2, 0, 3, 4, 0, 5, 1, 6, 7, 8, 0, 9, 10, 11] * 9)[:141])
    items = model.xp.take(base, model.backend.asarray(order.astype(np.int32)), axis=0)
    if model.exact_scores:  # integer sums: the same in any order, so compared bit for bit
        same = np.testing.assert_array_equal
    else:
        # a matrix library sums a dot product in an order it picks by kernel, shape and
        # threads: any order is within this bound of the exact value (Higham's gamma_w), so
        # two orders are within it of each other's scores
        margin = rounding_margin(model.score_operand_width)

        def same(a, b):
            np.testing.assert_allclose(a, b, rtol=0, atol=margin)

    for n_q in (1, 3):
        q = base[:n_q]
        whole = host(model, model.similarity_matrix(q, items))
        for j in range(12):  # equal rows, equal scores (to rounding), wherever they are
            cols = whole[:, order == j]
            same(cols, np.repeat(cols[:, :1], cols.shape[1], axis=1))
        for chunk_size in (3, 50):
            same(host(model, model.similarity_matrix(q, items, chunk_size=chunk_size)), whole)
        index, queries = model.search_index(items), model.search_index(q)
        scores = host(model, model.search_scores(queries, index))
        for chunk in (7,):
            parts = [
                host(model, model.search_scores(queries, tuple(a[s : s + chunk] for a in index)))
                for s in range(0, len(order), chunk)
            ]
            same(np.concatenate(parts, axis=1), scores)
        # top-k: exact, equal rows tied (canonical scores), the lowest index first,
        # whatever the chunk size of the search
        first = [int(np.flatnonzero(order == j)[0]) for j in range(n_q)]
        found = [search(model, q, items, k=5, chunk_size=c) for c in (None, 5)]
        assert host(model, found[0][1])[:, 0].tolist() == first
        for s, i in found[1:]:
            np.testing.assert_array_equal(host(model, i), host(model, found[0][1]))
            np.testing.assert_array_equal(host(model, s), host(model, found[0][0]))


# -- np.matrix and masked arrays -------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS, ids=VARIANT_IDS)
def test_matrix_and_masked_arrays_refused(variant):
    model = make(variant, "numpy")
    square = model.random(4, seed=1)
    as_matrix = np.asmatrix(square)
    masked = np.ma.masked_array(square, mask=np.zeros_like(square, dtype=bool))
    for x, what in ((as_matrix, "np.matrix"), (masked, "masked array")):
        with pytest.raises(TypeError, match=what):
            model.asarray(x)
        with pytest.raises(TypeError, match=what):
            model.bind(x, square)
        with pytest.raises(TypeError, match=what):
            model.similarity(square, x)
        with pytest.raises(TypeError, match=what):
            model.check(x)
