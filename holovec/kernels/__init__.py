"""Kernels: what models, retrieval, learning and the random generator need beyond the Python
array API, as free functions of a backend (array-api-compat's style), with each framework's
faster version registered next to the generic one.

**Layer.** This package sits between :mod:`holovec.backends` (below it: the adapter of one
array framework, which knows nothing of kernels) and :mod:`holovec.random`,
:mod:`holovec.models`, the encoders, retrieval, memories, structures and learners (above
it: they call these functions). It imports the backends, never the other way round.

**Calling.** ``top_k(backend, scores, k)``, ``hamming_top_k(backend, queries, items, n_bits,
k)``, ``matmul(backend, x1, x2)``: the first argument is always the backend. The version
that runs is the one registered for ``backend.name`` (:func:`~holovec.kernels._dispatch.kernel`,
the one dispatch of every kernel), else the generic one written over ``backend.xp``.
Registering a torch or JAX version imports nothing: its body imports the framework when a
backend of that framework first calls it, so ``import holovec`` stays light.

One module per idea:

================  ============================================================================
``complex``       complex constructor, unit phasors, real views of complex arrays
``fft``           the Fourier transform over the last axis, real and complex
``products``      products in full precision, ``linalg`` scopes, loops of small products
``rounding``      correctly rounded division, fences against fusion, float64 scopes
``elementwise``   clipping, counts of nonzero elements
``dtypes``        dtype questions: support, the widest float, the random words' dtype
``draws``         Philox words from native generators, word arithmetic, where draws are made
``bits``          popcounts, bit packing
``hamming``       Hamming distance matrices, the checked exact Hamming top-k search
``top_k``         deterministic top-k (equal scores lowest index first) and merges of top-k
``blocked``       products and row-wise maps in blocks (results independent of the grouping)
``partitioned``   arrays split over workers or devices: row generation, gathers, searches
``control``       branches and loops a compiler keeps in one program
``rows``          rows written into a growing buffer, or joined as blocks (``growth``)
================  ============================================================================

Their engines live here too: the host's fused XOR/popcount search (``packed_search``,
``packed_numba``), the GPUs' int8 products (``int8_search``), the search of JAX arrays
sharded over devices (``jax_sharded``) and of Dask arrays chunked over workers
(``dask_search``), JAX's compiled loops (``jax_compiled``) and torch's fused generator
(``torch_fused``); they import their framework and are imported by its versions only.

>>> import numpy as np
>>> from holovec import kernels
>>> from holovec.backends import get_backend
>>> kernels.top_k(get_backend("numpy"), np.array([[0.1, 0.7, 0.7]]), 2)[1].tolist()
[[1, 2]]
"""

from __future__ import annotations

from .bits import (
    count_bits,
    host_computable,
    pack_bits,
    popcount,
    unpack_bits,
    unpack_bytes,
    words_to_bytes,
)
from .blocked import (
    gather_beats_matmul,
    map_chunks,
    map_item_chunks,
    map_row_blocks,
    row_blocked_matmul,
    row_squared_norms,
)
from .complex import complex, complex_view, real_view, unit_phasor
from .control import cond, repeat, while_loop
from .draws import (
    draw_path,
    finish_before_exit,
    fuse,
    mask32,
    mul_lohi_32,
    numpy_philox_words,
    philox_words,
    philox_words_of,
)
from .dtypes import default_float_dtype, supports_dtype, word_dtype, word_dtype_name
from .elementwise import clip, count_nonzero
from .fft import fft, ifft, irfft, rfft
from .hamming import (
    fast_hamming_search,
    fast_packed_hamming,
    hamming_matrix,
    hamming_search,
    hamming_temp_bytes,
    hamming_top_k,
    padding_mask,
)
from .partitioned import (
    block_backend_name,
    chunk_rows,
    generate_rows,
    in_one_place,
    is_partitioned,
    partitioned_search,
    replicated_like,
    shard_rows,
    take_rows,
)
from .products import full_precision, matmul, singular_system_errors, small_products, vecdot
from .rounding import divide, fence, float64_scope
from .rows import join_rows, write_rows, writes_rows
from .top_k import merge_top_k, top_k, top_k_from_kth

__all__ = [
    "block_backend_name",
    "chunk_rows",
    "clip",
    "complex",
    "complex_view",
    "cond",
    "count_bits",
    "count_nonzero",
    "default_float_dtype",
    "divide",
    "draw_path",
    "fast_hamming_search",
    "fast_packed_hamming",
    "fence",
    "fft",
    "finish_before_exit",
    "float64_scope",
    "full_precision",
    "fuse",
    "gather_beats_matmul",
    "generate_rows",
    "hamming_matrix",
    "hamming_search",
    "hamming_temp_bytes",
    "hamming_top_k",
    "host_computable",
    "ifft",
    "in_one_place",
    "irfft",
    "is_partitioned",
    "join_rows",
    "map_chunks",
    "map_item_chunks",
    "map_row_blocks",
    "mask32",
    "matmul",
    "merge_top_k",
    "mul_lohi_32",
    "numpy_philox_words",
    "pack_bits",
    "padding_mask",
    "partitioned_search",
    "philox_words",
    "philox_words_of",
    "popcount",
    "real_view",
    "repeat",
    "replicated_like",
    "rfft",
    "row_blocked_matmul",
    "row_squared_norms",
    "shard_rows",
    "singular_system_errors",
    "small_products",
    "supports_dtype",
    "take_rows",
    "top_k",
    "top_k_from_kth",
    "unit_phasor",
    "unpack_bits",
    "unpack_bytes",
    "vecdot",
    "while_loop",
    "word_dtype",
    "word_dtype_name",
    "words_to_bytes",
    "write_rows",
    "writes_rows",
]
