"""Large codebooks: a draw holds its output and one block of temporaries, not a second copy,
and ItemStore.fit makes the search form, so that the first query does not pay for it."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from holovec import VSA
from holovec.models import _memory
from holovec.random import Purpose
from holovec.retrieval import ItemStore


@pytest.mark.parametrize("name", ["MAP", "FHRR", "HRR", "BSC"])
def test_a_large_draw_holds_its_output_and_one_block(monkeypatch, name):
    model = VSA.create(name, dim=1024)
    monkeypatch.setattr(_memory, "DRAW_BLOCK_BYTES", 2**18)
    whole = model.random(400, seed=3)
    output = whole.nbytes
    block = _memory.draw_block_rows(model, type(model)._draw_bytes_per_element)
    assert block < 400  # drawn block by block
    tracemalloc.start()
    try:
        again = model.random(400, seed=3)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # row i never depends on the rows drawn with it: blocks give the whole draw's rows
    monkeypatch.setattr(_memory, "DRAW_BLOCK_BYTES", 2**40)
    np.testing.assert_array_equal(again, model.random(400, seed=3))
    np.testing.assert_array_equal(again[123:130], model.draw(7, 3, Purpose.VECTORS, 0, row_start=123))
    assert peak <= output + 3 * 2**18  # the output, one block's temporaries, small change


def test_fit_makes_the_search_form(backend):
    from conftest import device_for

    model = VSA.create("MAP", dim=256, backend=backend, device=device_for(backend))
    book = model.random(50, seed=1)
    calls = []
    original = model.hamming_search_bits
    model.hamming_search_bits = lambda index: calls.append(index[0].shape[0]) or original(index)
    store = ItemStore(model).fit(book)
    assert calls == [50]  # the codebook packed by fit
    assert store.query(book[7])[0][0] == 7
    assert calls == [50, 1]  # the query alone at the first query
