"""Fuzz the encoders and the searches over backends: any input is a clear
``TypeError``/``ValueError`` or finite vectors of the model; searches do not depend on
how the items are chunked, ties ordered by index."""

from __future__ import annotations

import numpy as np
import pytest
from fuzz_settings import FUZZ, outcome
from hypothesis import given
from hypothesis import strategies as st

from conftest import backend_param, device_for
from holovec import VSA
from holovec.encoders import (
    FractionalPowerEncoder,
    LevelEncoder,
    ThermometerEncoder,
    VectorEncoder,
)
from holovec.retrieval import ItemStore, search

DIM = 64
BACKENDS = [backend_param(b) for b in ("numpy", "torch", "jax")]
_CACHE: dict = {}


def cached(key, make):
    if key not in _CACHE:
        _CACHE[key] = make()
    return _CACHE[key]


scalars = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**400), 10**400),
    st.sampled_from(["1.5", b"1", True, False, None, 1 + 2j, np.complex64(1), object()]),
)
values = st.one_of(
    scalars,
    st.lists(st.floats(-20, 20), max_size=4),
    st.lists(scalars, min_size=1, max_size=3),
    st.sampled_from([[], np.zeros((0,)), np.array([[0.5, 1.5]]), np.array([0.5], dtype=object)]),
)


def encoders(backend: str):
    def make():
        phasor = VSA.create("FHRR", DIM, backend=backend, device=device_for(backend))
        bipolar = VSA.create("MAP", DIM, backend=backend, device=device_for(backend))
        return [
            (phasor, FractionalPowerEncoder(phasor, 0.0, 10.0, seed=1)),
            (bipolar, LevelEncoder(bipolar, 0.0, 10.0, levels=8, seed=1)),
            (bipolar, ThermometerEncoder(bipolar, 0.0, 10.0, levels=8)),
        ]

    return cached(("encoders", backend), make)


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(x=values, clip=st.booleans())
def test_scalar_encoders_raise_clearly_or_give_finite_vectors(backend, x, clip):
    for model, encoder in encoders(backend):
        ok, out = outcome(lambda encoder=encoder: encoder.encode(x, clip=clip))
        if not ok:
            continue
        model.check(out)
        host = np.asarray(model.to_numpy(out))
        assert np.all(np.isfinite(host)), f"{type(encoder).__name__} gave non-finite vectors for {x!r}"
        if host.size:
            ok, decoded = outcome(lambda encoder=encoder, out=out: encoder.decode(out))
            assert ok, f"decoding an encoding failed: {decoded}"


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(
    x=st.one_of(
        st.lists(
            st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=3, max_size=3), max_size=3
        ),
        st.sampled_from([np.full((1, 3), 1e39), np.zeros((0, 3)), "abc", np.ones((2, 4))]),
    )
)
def test_vector_encoder_raises_clearly_or_gives_finite_vectors(backend, x):
    model = cached(
        ("MAP-C", backend), lambda: VSA.create("MAP-C", DIM, backend=backend, device=device_for(backend))
    )
    encoder = cached(("vector", backend), lambda: VectorEncoder(model, 3, seed=2))
    ok, out = outcome(lambda: encoder.encode(x))
    if ok:
        model.check(out)
        assert np.all(np.isfinite(np.asarray(model.to_numpy(out))))


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(
    name=st.sampled_from(["MAP", "FHRR", "HRR", "BSC"]),
    n_items=st.integers(1, 12),
    duplicates=st.lists(st.integers(0, 11), max_size=4),
    k=st.one_of(st.integers(-1, 14), st.sampled_from([np.int64(2), 2.5, "1", None])),
    chunk=st.one_of(st.integers(1, 13), st.sampled_from([np.int64(3), 0, -2, 1.5])),
)
def test_search_is_independent_of_chunking(backend, name, n_items, duplicates, k, chunk):
    model = cached(
        (name, backend), lambda: VSA.create(name, DIM, backend=backend, device=device_for(backend))
    )
    items = model.random(n_items, seed=5)
    rows = [i % n_items for i in range(n_items)] + [d % n_items for d in duplicates]
    items = model.xp.take(items, model.backend.asarray(np.array(rows, dtype=np.int32)), axis=0)
    queries = model.random(3, seed=6)
    ok, whole = outcome(lambda: search(model, queries, items, k))
    ok_chunked, chunked = outcome(lambda: search(model, queries, items, k, chunk_size=chunk))
    if not (ok and ok_chunked):
        return
    for got, want in zip(chunked, whole, strict=True):
        assert np.array_equal(np.asarray(model.to_numpy(got)), np.asarray(model.to_numpy(want)))
    scores, index = (np.asarray(model.to_numpy(a)) for a in whole)
    assert np.all(scores <= 1) and np.all(scores >= -1)
    order = np.lexsort((index, -scores), axis=-1)  # score descending, lowest index first
    assert np.array_equal(order, np.broadcast_to(np.arange(index.shape[-1]), index.shape))


@pytest.mark.parametrize("backend", BACKENDS)
@FUZZ
@given(bad_row=st.integers(0, 4), value=st.sampled_from([np.nan, np.inf, -np.inf]))
def test_stores_refuse_non_finite_rows(backend, bad_row, value):
    model = cached(
        ("MAP", backend), lambda: VSA.create("MAP", DIM, backend=backend, device=device_for(backend))
    )
    host = np.asarray(model.to_numpy(model.random(5, seed=1))).copy()
    host[bad_row, 0] = value
    ok, err = outcome(lambda: ItemStore(model).fit(model.backend.asarray(host)))
    if ok:  # refused at fit or at the first search, with the row named
        ok, err = outcome(lambda: ItemStore(model).fit(model.backend.asarray(host)).search(host[:1], k=1))
    assert not ok and str(bad_row) in str(err), "a non-finite item must be refused, naming its row"
