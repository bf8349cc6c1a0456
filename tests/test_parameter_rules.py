"""The one parameter system (``holovec._params``): NumPy scalars are what they stand for,
everywhere, and come back as Python ones; bools are never numbers; messages name the rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from holovec import VSA
from holovec._params import (
    FINITE,
    FLAG,
    INT,
    KNOWN_SHAPE,
    NON_NEGATIVE_INT,
    POSITIVE,
    POSITIVE_INT,
    Interval,
)
from holovec.structures import Graph

NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


@given(st.integers(1, 100), st.sampled_from(NUMPY_INTS))
def test_numpy_ints_are_ints(value, kind):
    for given_value in (value, kind(value)):
        checked = POSITIVE_INT.check("k", given_value)
        assert type(checked) is int and checked == value
    assert type(NON_NEGATIVE_INT.check("n", kind(0))) is int


@given(st.floats(-1e30, 1e30), st.sampled_from((float, np.float64, np.float32)))
def test_numpy_floats_are_floats(value, kind):
    checked = FINITE.check("x", kind(value))
    assert type(checked) is float and checked == float(kind(value))


@pytest.mark.parametrize("flag", [True, False, np.True_, np.False_])
def test_numpy_bools_are_flags(flag):
    assert FLAG.check("f", flag) is bool(flag)


@pytest.mark.parametrize("rule", [POSITIVE_INT, NON_NEGATIVE_INT, INT, FINITE, POSITIVE])
@pytest.mark.parametrize("flag", [True, np.True_])
def test_bools_are_not_numbers(rule, flag):
    with pytest.raises(TypeError, match="got bool"):
        rule.check("x", flag)


@pytest.mark.parametrize("flag", [1, 0, 1.0, "True", None])
def test_a_flag_is_no_int_or_word(flag):
    with pytest.raises(TypeError, match="f must be True or False"):
        FLAG.check("f", flag)


@pytest.mark.parametrize(
    ("rule", "value", "error", "message"),
    [
        (POSITIVE_INT, 0, ValueError, "k must be a positive int, got 0"),
        (NON_NEGATIVE_INT, -1, ValueError, "k must be a non-negative int, got -1"),
        (Interval(1, 8, integral=True), 9, ValueError, "k must be a positive int of at most 8, got 9"),
        (Interval(2, integral=True), 1, ValueError, "k must be an int >= 2, got 1"),
        (FINITE, float("nan"), ValueError, "k must be a finite number, got nan"),
        (FINITE, 10**400, ValueError, r"k must be a finite number, got 1000000.*\.\.\..*0000"),
        (POSITIVE, 0.0, ValueError, r"k must be positive \(a finite number > 0\), got 0.0"),
        (POSITIVE_INT, 2.0, TypeError, "k must be a positive int, got float 2.0"),
    ],
)
def test_messages_name_the_rule(rule, value, error, message):
    with pytest.raises(error, match=message):
        rule.check("k", value)


def test_an_unknown_shape_says_how_to_know_it():
    da = pytest.importorskip("dask.array")
    x = da.arange(10, chunks=5)
    masked = x[x > 3]
    with pytest.raises(ValueError, match=r"compute_chunk_sizes\(\)"):
        KNOWN_SHAPE.check("x", masked)
    assert KNOWN_SHAPE.check("x", x) is x


def test_every_layer_takes_numpy_scalars_alike():
    model = VSA.create("MAP", np.int64(64), backend="numpy", seed=np.uint8(1))
    assert model.dim == 64 and type(model.dim) is int
    graph = Graph(model, directed=np.True_)
    assert graph.directed is True
    packed = VSA.create("BSC", 64, backend="numpy", packed=np.True_)
    assert packed.random(seed=np.int32(3)).shape == (8,)
