"""BSC: binary spatter codes (Kanerva 1994)."""

from __future__ import annotations

import warnings
from typing import Any

from .. import kernels
from .._deprecation import SINCE
from .._params import FLAG
from ..random import random_bits
from . import _hamming
from ._search import items_product
from .base import VSAModel
from .registry import register_model, variant_of


@register_model
class BSC(VSAModel):
    """Dense binary vectors of 0 and 1 (stored one uint8 per bit).

    Laws: bind is XOR, commutative and self-inverse; bundle is the bitwise
    majority, ties broken by a fixed random vector from the model's seed;
    similarity is ``1 - 2 * hamming(a, b) / dim``, on the same [-1, 1] scale as
    the other models. BSC is MAP under the map 0 -> +1, 1 -> -1.

    Parameters
    ----------
    *args : object
        ``dim`` (int: the number of elements per vector) and ``backend`` (a name, a
        :class:`~holovec.backends.Backend`, or ``None`` for the default; see
        :meth:`holovec.VSA.create`), as for :class:`VSAModel`. (The signature is
        ``__new__``'s, which keeps the deprecated ``BSC(dim, packed=True)``.)
    packed : bool, optional
        Store 8 bits per byte (builds :class:`PackedBSC`; deprecated here, use
        ``VSA.create("BSC", dim, packed=True)``).
    **kwargs : object
        ``dim`` and ``backend`` by keyword, ``seed``, ``device``, ``dtype`` and the other
        options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("BSC", dim=1000)
    >>> a = model.random(seed=1)
    >>> float(model.similarity(a, 1 - a))
    -1.0
    """

    name = "BSC"
    is_self_inverse = True
    is_commutative = True
    is_exact_inverse = True
    default_dtype = "uint8"
    allowed_dtypes = ("uint8",)
    option_names = ("packed",)
    element_kind = "binary"
    bundle_is_sum = True
    bind_is_elementwise = True
    has_hamming_search = True
    #: whether vectors are stored 8 bits per byte: ``VSA.create("BSC", dim, packed=True)``
    #: builds the subclass :class:`~holovec.models.PackedBSC` (see ``registry.build_model``)
    packed = False

    def __new__(cls, *args: Any, packed: Any = False, **kwargs: Any) -> BSC:
        # the old spelling BSC(dim, packed=True), kept for one release: the class to build is
        # chosen by VSA.create's build step (registry.build_model), not by __new__
        if packed is True and not cls.packed:
            warnings.warn(
                f"BSC(dim, packed=True) is deprecated since {SINCE}; use "
                "VSA.create('BSC', dim, packed=True) or PackedBSC(dim)",
                DeprecationWarning,
                stacklevel=2,
            )
            cls = variant_of(cls, "packed")
        return super().__new__(cls)

    def __init__(self, dim: int, backend: Any = None, *, packed: bool = False, **kwargs: Any) -> None:
        packed = FLAG.check("packed", packed)
        if packed is not self.packed:
            raise TypeError(
                f"{type(self).__name__} vectors are {'' if self.packed else 'not '}packed; for "
                f"packed={packed} create the model with VSA.create('BSC', dim, packed={packed}) "
                f"(or {'BSC' if self.packed else 'PackedBSC'}(dim))"
            )
        super().__init__(dim, backend, **kwargs)
        self._bool = self.backend.dtype("bool")

    _draw_bytes_per_element = 1.25  # measured: the bits and their words

    @property
    def _float(self) -> Any:
        return self.backend.dtype("float32")

    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        return random_bits(
            self.backend, seed, n_rows, self.dim, stream=stream, purpose=purpose, row_start=row_start
        )

    def _bind(self, a: Any, b: Any) -> Any:
        return a ^ b

    def _unbind(self, c: Any, b: Any) -> Any:
        return c ^ b

    def _bundle(self, stacked: Any) -> Any:
        xp = self.xp
        k = stacked.shape[0]
        counter = self.backend.dtype("int16" if k < 2**15 else "int32")  # narrow counts add faster
        counts = xp.sum(stacked, axis=0, dtype=counter)
        majority = xp.astype(counts > k // 2, self.dtype)
        if k % 2:
            return majority
        return xp.where(counts == k // 2, self._tiebreak, majority)

    def _inverse(self, x: Any) -> Any:
        return x

    def _identity(self) -> Any:
        return self.xp.zeros(self.dim, dtype=self.dtype, device=self.device)

    def _normalize(self, x: Any) -> Any:
        return self.xp.astype(x != 0, self.dtype)

    # Every similarity path reads an element as 1 where it is nonzero (as normalize and
    # bit packing do), so that similarity and similarity_matrix agree on any uint8 input.
    def _similarity(self, a: Any, b: Any) -> Any:
        xp, flag = self.xp, self._bool
        return self._from_hamming(
            kernels.count_nonzero(self.backend, xp.astype(a, flag) ^ xp.astype(b, flag))
        )

    def _from_hamming(self, hamming: Any) -> Any:
        """``1 - 2 * hamming / dim``, rounded alike on every path and backend."""
        return 1 - kernels.divide(self.backend, 2 * self.xp.astype(hamming, self._float), self.dim)

    def _bipolar(self, x: Any) -> Any:
        return 1 - 2 * self.xp.astype(x != 0, self._float)

    # -- sums: BSC is MAP under 0 -> +1, 1 -> -1 --------------------------------------------
    @property
    def sum_dtype(self) -> Any:
        return self._float

    def lift(self, x: Any) -> Any:
        return self._bipolar(self.elements(x))

    def finish_sum(self, sums: Any) -> Any:
        ties = self.elements(self._tiebreak)
        bits = self.xp.where(sums == 0, ties, self.xp.astype(sums < 0, ties.dtype))
        return self.from_elements(bits)

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        if kernels.fast_packed_hamming(self.backend):
            # pack (8x less to read), then XOR/popcount in cache-sized chunks on every core
            return self.search_scores(self.search_index(queries), self.search_index(items))
        # +-1 products count agreements minus disagreements exactly (integers < 2**24);
        # hamming = (dim - dots) / 2, exactly; then the formula that every BSC path shares
        dots = items_product(self, self._bipolar(queries), self._bipolar(items), exact=True)
        return self._from_hamming((self.dim - dots) * 0.5)

    def _matrix_temp_bytes_per_item(self, n_queries: int) -> int:
        # the packed path packs the items chunk by chunk (its XOR/popcount bounds its own
        # chunks): the packing's temporaries; the other path, the +-1 floats
        return 2 * self.dim if kernels.fast_packed_hamming(self.backend) else 4 * self.dim

    # a search index is the items bit-packed: 8x less memory, compared by XOR/popcount in
    # chunks whose XOR results stay in the CPU's cache, on every core
    _parallel_search = True
    _search_chunk_bytes = 8 * 2**20

    @property
    def _packed_length(self) -> int:
        return _hamming.packed_bytes(self.dim)  # whole 64-bit words, as PackedBSC stores them

    def _as_packed(self, bits: Any) -> Any:
        return kernels.pack_bits(self.backend, bits, self._packed_length)

    def search_index(self, vectors: Any) -> tuple[Any]:
        return (self._as_packed(vectors),)

    def _search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        return self._from_hamming(kernels.hamming_matrix(self.backend, queries[0], items[0], self.dim))

    def _search_temp_bytes_per_item(self, n_queries: int) -> int:
        return kernels.hamming_temp_bytes(self.backend, n_queries, self._packed_length, self.dim)

    # -- exact top-k on packed bits (the protocol's Hamming hooks, see models/_hamming.py) ----
    def _hamming_table(self) -> Any:
        return self._from_hamming(
            self.xp.arange(self.dim + 1, dtype=self.backend.dtype("int32"), device=self.device)
        )

    def hamming_search_bits(self, index: tuple[Any, ...]) -> Any | None:
        """The packed bits of a search index (its first member), padding bits clear, or
        ``None`` where a Hamming search does not apply (see :mod:`holovec.models._hamming`).

        Parameters
        ----------
        index : tuple[object, ...]
            A search index (the tuple :meth:`search_index` makes).
        """
        bits = index[0]
        if not _hamming.usable(self, bits, self._hamming_table):
            return None
        return self._clear_padding(bits)

    def _clear_padding(self, bits: Any) -> Any:
        """``bits`` with the bits past ``dim`` clear (a copy only where some are set)."""
        if self.dim % 64 == 0:
            return bits
        xp = self.xp
        mask = kernels.padding_mask(self.backend, bits.shape[-1], self.dim)
        tail = self.dim // 8
        if not bool(xp.any((bits[:, tail:] & ~mask[tail:]) != 0)):
            return bits
        return bits & mask
