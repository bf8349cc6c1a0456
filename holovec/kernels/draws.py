"""The kernels of :mod:`holovec.random`: Philox words from a native generator where there is
one, the 32-bit word arithmetic of the generic generator, and where a draw is made
(:func:`draw_path`) and how generator code runs fastest (:func:`fuse`)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ._dispatch import kernel
from .dtypes import word_dtype_name

#: torch and JAX on a GPU or TPU: draws of at most this many elements are made on the host
#: and copied there (see :func:`draw_path`): one vector at D=10,000 and the like (tens of
#: microseconds of NumPy and one copy, against a dozen kernel launches or a call of the
#: compiled program); to be measured on a GPU
GPU_HOST_DRAW_ELEMENTS = 2**14
#: JAX on the CPU: draws of at most this many elements are made on the host (measured at
#: D=10,000: the host 1.5-3x faster for 1 to 10 rows, the compiled program up to 2x faster
#: for 100 and more)
HOST_DRAW_ELEMENTS = 2**17


def numpy_philox_words(key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> np.ndarray:
    """``n_blocks`` Philox-4x64-10 blocks from NumPy's C implementation, as uint32 words.

    Block ``g`` is Philox of the 256-bit counter ``(c0 + g + 1, c1, c2, 0)`` under the
    128-bit ``key`` (NumPy's bit generator increments its counter before it generates).
    Each block is 4 uint64 words, returned little-endian as 8 uint32 words.

    Parameters
    ----------
    key : int
        The 128-bit key.
    counter_start : tuple of (int, int or numpy.ndarray, int)
        ``(c0, c1, c2)``; a 1-D array of streams ``c1`` gives one row of ``8 * n_blocks``
        words per stream (one call per row: NumPy's counter is a scalar).
    n_blocks : int
        The blocks per row.

    Returns
    -------
    numpy.ndarray
        uint32 words, ``(8 * n_blocks,)`` or ``(len(c1), 8 * n_blocks)``.
    """
    c0, c1, c2 = counter_start
    if isinstance(c1, np.ndarray):
        rows = [numpy_philox_words(key, (c0, int(s), c2), n_blocks) for s in c1]
        return np.stack(rows) if rows else np.zeros((0, 8 * n_blocks), np.uint32)
    counter = np.array([c0, c1, c2, 0], dtype=np.uint64)
    key_words = np.array([key & (2**64 - 1), key >> 64], dtype=np.uint64)
    generator = np.random.Philox(counter=counter, key=key_words)
    return generator.random_raw(4 * n_blocks).view(np.uint32)


def mask32(backend: Any, x: Any) -> Any:
    """Keep the low 32 bits (a no-op where words are uint32 and wrap by themselves).

    Parameters
    ----------
    backend : Backend
        The words' backend.
    x : array
        Words of :func:`~holovec.kernels.dtypes.word_dtype`.

    Returns
    -------
    array
        The low 32 bits of each word.
    """
    if word_dtype_name(backend) == "uint32":
        return x
    return x & 0xFFFFFFFF


def mul_lohi_32(backend: Any, x: Any, m: int) -> tuple[Any, Any]:
    """``x * m`` as (low, high) 32-bit words, for 32-bit words ``x`` and a constant ``m``.

    Written with 16-bit halves so that no intermediate exceeds 32 bits: it runs on any
    integer dtype of at least 32 bits, with or without wrap-around.

    Parameters
    ----------
    backend : Backend
        The words' backend.
    x : array
        32-bit words.
    m : int
        A 32-bit constant.

    Returns
    -------
    tuple of two arrays
        The low and high words of the products.
    """
    m_lo, m_hi = m & 0xFFFF, m >> 16
    x_lo, x_hi = x & 0xFFFF, x >> 16
    ll, lh = x_lo * m_lo, x_lo * m_hi
    hl, hh = x_hi * m_lo, x_hi * m_hi
    mid = (ll >> 16) + (lh & 0xFFFF) + (hl & 0xFFFF)
    hi = hh + (lh >> 16) + (hl >> 16) + (mid >> 16)
    lo = (ll & 0xFFFF) | mask32(backend, mid << 16)
    return lo, hi


@kernel
def philox_words(backend: Any, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any | None:
    """Philox-4x64-10 words from a fast native generator, or ``None`` for the generic path.

    The hook through which :mod:`holovec.random` takes words from a native generator.
    Block ``g`` is Philox of the counter ``(c0 + g + 1, c1, c2, 0)`` under the 128-bit
    ``key``, and the result is its ``8 * n_blocks`` 32-bit words (4 uint64 words per
    block, little-endian), in :func:`~holovec.kernels.dtypes.word_dtype` on the backend's
    device. Backends whose device is the host CPU return NumPy's C implementation
    (bit-identical to the generic path; the tests check it).

    Parameters
    ----------
    backend : Backend
        The backend the words are for.
    key : int
        The 128-bit key.
    counter_start : tuple of (int, int or numpy.ndarray, int)
        ``(c0, c1, c2)``; the stream ``c1`` may be a 1-D NumPy uint64 array: then the
        result has one row per stream, ``(len(c1), 8 * n_blocks)``.
    n_blocks : int
        The blocks per row.

    Returns
    -------
    array or None
        The words, or ``None`` where the backend has no native generator.
    """
    return None


@philox_words.register("numpy")
def _numpy_philox_words(backend: Any, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
    return numpy_philox_words(key, counter_start, n_blocks)


@philox_words.register("torch")
def _torch_philox_words(backend: Any, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
    if not backend.is_cpu:
        return None  # computed on the device by the generic path
    import torch

    return torch.from_numpy(numpy_philox_words(key, counter_start, n_blocks)).to(torch.int64)


@philox_words.register("jax")
def _jax_philox_words(backend: Any, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
    if not backend.is_cpu:
        return None
    import jax

    return jax.device_put(numpy_philox_words(key, counter_start, n_blocks), backend.device)


@philox_words.register("dask")
def _dask_philox_words(backend: Any, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any:
    # small draws only (a model's tie-break vector, an encoder's table): made here, in one
    # chunk; codebooks come from generate_rows, chunk by chunk on the workers
    return backend.from_numpy(numpy_philox_words(key, counter_start, n_blocks))


@kernel
def philox_words_of(
    backend: Any, seed: Any, stream: Any, purpose: Any, block_start: int, n_blocks: int
) -> Any | None:
    """Philox words of an address given as word arrays (:class:`holovec.random.Words`,
    traced inside a compiled draw) from a native generator, or ``None`` where the backend
    has none for such addresses (the default): the words are then computed with the
    backend's arrays.

    Parameters
    ----------
    backend : Backend
        The backend the words are for.
    seed : array
        The seed's 4 words.
    stream : array
        The stream's 2 words.
    purpose : array
        The purpose's 2 words.
    block_start : int
        The counter of the first block.
    n_blocks : int
        The blocks.

    Returns
    -------
    array or None
        ``8 * n_blocks`` words, or ``None``.
    """
    return None


@philox_words_of.register("jax")
def _jax_philox_words_of(
    backend: Any, seed: Any, stream: Any, purpose: Any, block_start: int, n_blocks: int
) -> Any | None:
    # NumPy's C generator through a host callback, on the CPU: 4-6 times faster there than
    # the generator compiled by XLA (which serves the other devices)
    if not backend.is_cpu:
        return None
    import jax
    import jax.numpy as jnp

    result = jax.ShapeDtypeStruct((8 * n_blocks,), jnp.uint32)
    callback = partial(host_philox_words, block_start, n_blocks)
    return jax.pure_callback(callback, result, seed, stream, purpose, vmap_method="broadcast_all")


def host_philox_words(block_start: int, n_blocks: int, seed: Any, stream: Any, purpose: Any) -> np.ndarray:
    """``numpy_philox_words`` of an address given as little-endian uint32 words.

    Parameters
    ----------
    block_start : int
        The counter of the first block.
    n_blocks : int
        The blocks.
    seed : array
        The seed's 4 words.
    stream : array
        The stream's 2 words.
    purpose : array
        The purpose's 2 words.

    Returns
    -------
    numpy.ndarray
        ``8 * n_blocks`` uint32 words.
    """

    def number(words: Any) -> int:
        return int.from_bytes(np.asarray(words, dtype="<u4").tobytes(), "little")

    return numpy_philox_words(number(seed), (block_start, number(stream), number(purpose)), n_blocks)


@kernel
def finish_before_exit(backend: Any, result: Any) -> Any:
    """``result`` of a dispatched compiled draw. Where such a program calls back into Python
    and may still be queued when the script ends (JAX on the CPU), the process waits for it
    at exit (a callback starting during finalisation aborts the interpreter); elsewhere
    ``result`` as it is.

    Parameters
    ----------
    backend : Backend
        The draw's backend.
    result : array
        The draw.

    Returns
    -------
    array
        ``result``.
    """
    return result


@finish_before_exit.register("jax")
def _jax_finish_before_exit(backend: Any, result: Any) -> Any:
    if not backend.is_cpu:  # no host callbacks elsewhere (philox_words_of)
        return result
    from ._jax_exit import finish_before_exit as wait_at_exit

    return wait_at_exit(result)


@kernel
def draw_path(backend: Any, n_elements: int, exact: bool = True) -> str:
    """Where a model's seeded draw of ``n_elements`` vector elements (all rows together) is
    made, the fastest way that gives NumPy's numbers.

    - ``"host"``: by the NumPy backend on the host, then moved here
      (``backend.from_numpy``): bit for bit NumPy's draw, and no framework dispatch
      (torch's intra-op threads, JAX's per-call overhead), which is what small draws cost;
    - ``"compiled"``: one compiled program of the generator and the model's sampler that
      takes the address as data (backends that compile kernels: JAX);
    - ``"eager"``: the model's sampler op by op on the backend's arrays (this generic
      version, or ``"compiled"`` where ``backend.jit_kernels``).

    torch: on the CPU every draw is NumPy's, taken as a tensor without a copy (never a wait
    on torch's intra-op thread pool, which a busy machine made 100 times slower for one
    vector); on a GPU draws of at most :data:`GPU_HOST_DRAW_ELEMENTS` elements too, larger
    ones on the device; inside ``torch.compile`` op by op. JAX: draws of at most
    :data:`HOST_DRAW_ELEMENTS` elements on the CPU, :data:`GPU_HOST_DRAW_ELEMENTS` on a GPU
    or TPU, are NumPy's, copied in; larger ones one compiled program.

    Parameters
    ----------
    backend : Backend
        The draw's backend.
    n_elements : int
        The elements of the draw, all rows together.
    exact : bool, optional
        Whether every path gives the same bits for the model's sampler; where it does not
        (transcendental functions), the path must not depend on ``n_elements``, so that row
        ``i`` of a draw is the same whatever the number of rows drawn with it.

    Returns
    -------
    str
        ``"host"``, ``"compiled"`` or ``"eager"``.
    """
    return "compiled" if backend.jit_kernels else "eager"


@draw_path.register("torch")
def _torch_draw_path(backend: Any, n_elements: int, exact: bool = True) -> str:
    import torch

    if torch.compiler.is_compiling():
        return "eager"
    small = exact and n_elements <= GPU_HOST_DRAW_ELEMENTS
    return "host" if backend.is_cpu or small else "eager"


@draw_path.register("jax")
def _jax_draw_path(backend: Any, n_elements: int, exact: bool = True) -> str:
    limit = HOST_DRAW_ELEMENTS if backend.is_cpu else GPU_HOST_DRAW_ELEMENTS
    return "host" if exact and n_elements <= limit else "compiled"


@kernel
def fuse(backend: Any, fn: Callable) -> Callable:
    """``fn`` (a module-level function of the backend and arrays, elementwise integer code:
    the generic random generator) as the backend runs it fastest for arrays of any length:
    compiled into one kernel where eager ops would each be a kernel launch (torch on a
    CUDA GPU); ``fn`` itself elsewhere.

    Parameters
    ----------
    backend : Backend
        The backend that runs ``fn``.
    fn : callable
        ``fn(backend, *arrays)``.

    Returns
    -------
    callable
        ``fn``, or its fused version.
    """
    return fn


@fuse.register("torch")
def _torch_fuse(backend: Any, fn: Callable) -> Callable:
    import torch

    from . import torch_fused

    if not torch_fused.fuses(backend) or torch.compiler.is_compiling():
        return fn
    return partial(torch_fused.fused_call, fn)
