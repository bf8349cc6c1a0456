"""What holovec.backends says of any array without a backend (to_host, array_kind) and of
each backend's widest float (default_float_dtype): the one place that knows the frameworks."""

import importlib.util

import numpy as np
import pytest

from holovec import kernels
from holovec.backends import array_kind, get_backend, to_host

VALUES = np.arange(6, dtype=np.float32).reshape(2, 3)


def _installed(name):
    return importlib.util.find_spec(name) is not None


def test_numpy_lists_and_numbers():
    assert to_host(VALUES) is VALUES  # no copy
    np.testing.assert_array_equal(to_host([[0, 1, 2], [3, 4, 5]]), VALUES)
    assert to_host((1.5, 2.5)).tolist() == [1.5, 2.5]
    assert to_host(3).shape == () and to_host(np.float32(2)).dtype == np.float32
    assert array_kind(VALUES) == array_kind(np.float64(1)) == "numpy"
    assert array_kind([1, 2]) is None and array_kind(3.0) is None


@pytest.mark.parametrize("thing", [None, "text", {"a": 1}, object()])
def test_what_is_no_array(thing):
    assert to_host(thing) is None
    assert array_kind(thing) is None


def test_ragged_lists_are_a_clear_value_error():
    with pytest.raises(ValueError, match="rectangular nested list"):
        to_host([[1, 2], [3]])


@pytest.mark.skipif(not _installed("torch"), reason="needs torch")
def test_torch_tensors():
    import torch

    t = torch.from_numpy(VALUES.copy())
    assert array_kind(t) == "torch"
    np.testing.assert_array_equal(to_host(t), VALUES)
    grad = t.clone().requires_grad_(True)  # detached, as Backend.asarray detaches
    out = to_host(grad)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, VALUES)
    half = to_host(t.to(torch.bfloat16))  # NumPy has no bfloat16: float32, exactly
    assert half.dtype == np.float32
    np.testing.assert_array_equal(half, VALUES)
    with pytest.raises(ValueError, match="meta"):
        to_host(torch.empty(2, 3, device="meta"))


@pytest.mark.skipif(not _installed("jax"), reason="needs jax")
def test_jax_arrays_and_tracers():
    import jax
    import jax.numpy as jnp

    x = jnp.asarray(VALUES)
    assert array_kind(x) == "jax"
    np.testing.assert_array_equal(to_host(x), VALUES)
    kinds = []
    jax.jit(lambda a: kinds.append(array_kind(a)) or a)(x)
    assert kinds == ["jax"]


@pytest.mark.skipif(not _installed("dask"), reason="needs dask")
def test_dask_arrays_are_computed():
    import dask.array as da

    x = da.from_array(VALUES, chunks=(1, 3))
    assert array_kind(x) == "dask"
    out = to_host(x)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, VALUES)


def test_widest_float_of_each_backend(backend):
    be = get_backend(backend, device="cpu")
    wide = kernels.default_float_dtype(be)
    if kernels.supports_dtype(be, "float64"):
        assert wide == be.dtype("float64")
    else:  # JAX without 64-bit mode
        assert wide == be.dtype("float32")
    assert kernels.default_float_dtype(be, wide=False) == be.dtype("float32")
