"""The VSA kernels of the backends: what models, retrieval and learning need beyond the
array API, written once over it, with faster versions per framework next to them.

A :class:`~holovec.backends.Backend` is an adapter of one array framework (``base.py`` and
the ``*_backend.py`` modules: device, dtypes, conversion, FFT, jit, tracing, the array
namespace). The kernels come to it as mixins, one per idea, each a module here:

================  ============================================================================
``draws``         Philox words from a native generator, the word arithmetic of the generic one
``bits``          popcounts, bit packing, Hamming distance matrices of packed vectors
``hamming``       the checked exact Hamming top-k search over the frameworks' kernels
``top_k``         deterministic top-k (equal scores lowest index first) and merges of top-k
``blocked``       products and row-wise maps in blocks (results independent of the grouping)
``partitioned``   arrays split over workers or devices: row generation, gathers, searches
================  ============================================================================

:class:`Kernels` joins them; ``Backend`` derives from it, so models call
``backend.hamming_top_k(...)``, ``backend.top_k(...)`` as before. The defaults use only
the adapter's ``xp``, ``device``, ``dtype``, ``matmul`` and conversions. Each framework's
faster kernels are one class here, ``NumpyKernels`` (``numpy_kernels``), ``TorchKernels``,
``JaxKernels``, ``DaskKernels``, which its backend class lists before ``Backend``
(``class TorchBackend(TorchKernels, Backend)``): a reader finds a framework's adapter in
``torch_backend.py`` and its kernels in ``kernels/torch_kernels.py``. Their engines live
here too: the host's fused XOR/popcount search (``packed_search``, ``packed_numba``), the
GPUs' int8 products (``int8_search``), the search of JAX arrays sharded over devices
(``jax_sharded``) and of Dask arrays chunked over workers (``dask_search``).

These modules are holovec's own (no API of their own): the public interface is the
``Backend`` methods.
"""

from __future__ import annotations

from .bits import BitKernels
from .blocked import BlockedProducts
from .draws import Draws
from .hamming import HammingSearch
from .partitioned import Partitioned
from .top_k import TopK

__all__ = ["Kernels"]


class Kernels(Draws, BitKernels, HammingSearch, TopK, BlockedProducts, Partitioned):
    """Every VSA kernel of a backend, with its array-API default (see the module)."""
