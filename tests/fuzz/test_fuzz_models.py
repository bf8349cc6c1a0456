"""Fuzz the models' entry points over model x backend: random shapes, dtypes and values
(NaN, infinity, huge, off-alphabet, empty, strided, read-only), seeds and chunk sizes.

Properties: every call either raises a clear ``TypeError``/``ValueError`` from holovec or
gives a right answer; ``asarray`` never changes a value silently; similarities stay in
[-1, 1]; ``similarity_matrix`` does not depend on the chunk size.
"""

from __future__ import annotations

import numpy as np
import pytest
from fuzz_settings import FUZZ, outcome
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from conftest import backend_param, device_for
from holovec import VSA
from holovec.testing import model_variants

DIM = 64  # a square (VTB), a multiple of 4 (GHRR) and of 8 segments (BSDC-SEG)
#: every registered model, and each with every boolean option flipped (BSC packed, HRR unitary)
VARIANTS = model_variants(choices=False)
BACKENDS = [backend_param(b) for b in ("numpy", "torch", "jax")]
_MODELS: dict = {}


def model_of(variant: tuple[str, dict], backend: str):
    name, options = variant
    key = (name, tuple(sorted(options.items())), backend)
    if key not in _MODELS:
        _MODELS[key] = VSA.create(
            name, dim=DIM, backend=backend, device=device_for(backend), seed=3, **options
        )
    return _MODELS[key]


variants = st.sampled_from(VARIANTS)
DTYPES = [
    "bool",
    "int8",
    "uint8",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
special = st.sampled_from(
    [0.0, 1.0, -1.0, 2.0, 255.0, 256.0, -0.5, 1e5, -1e38, 2.0**62 + 1, np.nan, np.inf, -np.inf]
)


def raw_arrays(length: int):
    """NumPy arrays of any listed dtype, shape (b, length) for b in 0..2 or a wrong length."""
    shapes = st.sampled_from([(length,), (0, length), (2, length), (1, 2, length), (length + 1,), ()])
    return st.sampled_from(DTYPES).flatmap(
        lambda dt: hnp.arrays(
            np.dtype(dt),
            shapes,
            elements=None if np.dtype(dt).kind in "biu" else special.map(lambda v: v),
        )
    )


def _host(model, x) -> np.ndarray:
    return np.asarray(model.to_numpy(x))


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(variant=variants, data=st.data())
def test_asarray_raises_or_keeps_every_value(backend, variant, data):
    model = model_of(variant, backend)
    x = data.draw(raw_arrays(model.vector_length), label="x")
    ok, out = outcome(lambda: model.asarray(x))
    if not ok:
        return
    model.check(out)
    got = _host(model, out)
    assert got.shape == x.shape
    wide = np.complex128 if np.iscomplexobj(got) or np.iscomplexobj(x) else np.float64
    assert np.array_equal(got.astype(wide), x.astype(wide), equal_nan=True), "asarray changed values"


def model_vectors(model, data, label: str):
    """Vectors of the model's dtype and any batch shape (empty included), possibly strided
    or read-only (NumPy), with values drawn by the model or made off-alphabet by hand."""
    n = data.draw(st.sampled_from([0, 1, 3]), label=f"{label} rows")
    seed = data.draw(st.integers(0, 2**128 - 1), label=f"{label} seed")
    x = model.random(max(n, 1), seed=seed)[:n]
    if data.draw(st.booleans(), label=f"{label} off-alphabet") and n:
        host = _host(model, x).copy()
        flat = host.reshape(-1)
        if np.issubdtype(host.dtype, np.integer):
            flat[0] = data.draw(st.integers(2, 255))
        else:
            flat[0] = data.draw(st.sampled_from([3.0, -7.5, 1e3]))
        x = model.backend.asarray(host)
    if model.backend.name == "numpy" and n and data.draw(st.booleans(), label=f"{label} view"):
        host = np.repeat(np.asarray(x), 2, axis=0)[::2]  # a strided view
        host.flags.writeable = False
        x = host
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(variant=variants, data=st.data())
def test_ops_raise_clearly_or_stay_on_scale(backend, variant, data):
    model = model_of(variant, backend)
    a = model_vectors(model, data, "a")
    b = model_vectors(model, data, "b")
    for op in (model.bind, model.unbind, model.similarity):
        ok, out = outcome(lambda op=op: op(a, b))
        if ok and op is model.similarity:
            sims = _host(model, out)
            assert np.all((sims >= -1) & (sims <= 1)), f"similarity outside [-1, 1]: {sims}"
    ok, out = outcome(lambda: model.permute(a, data.draw(st.integers(-3 * DIM, 3 * DIM))))
    if ok:
        assert tuple(out.shape) == tuple(a.shape)
    ok, out = outcome(lambda: model.bundle(a))
    ok, whole = outcome(lambda: model.similarity_matrix(a, b))
    if not ok:
        return
    sims = _host(model, whole)
    assert sims.shape == (*a.shape[:-1], b.shape[0])
    assert np.all((sims >= -1) & (sims <= 1)), f"similarity_matrix outside [-1, 1]: {sims}"
    if b.shape[0] and a.shape[0]:
        pairwise = _host(model, model.similarity(a[:, None, :], b[None, :, :]))
        np.testing.assert_allclose(sims, pairwise, atol=1e-5, err_msg="similarity vs similarity_matrix")
    chunk = data.draw(st.sampled_from([1, 2, np.int64(1)]), label="chunk_size")
    ok, chunked = outcome(lambda: model.similarity_matrix(a, b, chunk_size=chunk))
    assert ok, f"chunk_size={chunk!r} refused: {chunked}"
    assert np.array_equal(_host(model, chunked), sims), "similarity_matrix depends on the chunk size"


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(variant=variants, n=st.one_of(st.integers(-3, 5), st.sampled_from([2**62, 1.5, "3", None, True])))
def test_random_counts_and_seeds(backend, variant, n):
    model = model_of(variant, backend)
    ok, out = outcome(lambda: model.random(n, seed=1))
    if ok:
        expected = (model.vector_length,) if n is None else (n, model.vector_length)
        assert tuple(out.shape) == expected
        model.check(out)
