"""BSC stored bit-packed: 8 bits per byte, XOR on bytes, popcount similarity."""

from __future__ import annotations

from typing import Any

from .. import kernels
from ..random import random_words
from ._values import value_error
from .bsc import BSC
from .registry import register_variant


@register_variant("packed")
class PackedBSC(BSC):
    """Binary spatter codes stored 8 bits per byte: ``VSA.create("BSC", dim, packed=True)``.

    A vector is a uint8 array of ``vector_length = 8 * ceil(dim / 64)`` bytes (dim/8
    bytes, padded to whole 64-bit words so that backends can read it as words);
    bit ``j`` is bit ``j % 8`` of byte ``j // 8``, and the padding bits are zero.
    The seeded vectors are the unpacked BSC model's, packed: ``unpack(random(seed=s))``
    equals ``VSA.create("BSC", dim).random(seed=s)``, and similarities are equal.

    Bind is XOR, similarity ``1 - 2 * popcount(a ^ b) / dim``, search XOR/popcount
    in cache-sized chunks, and bundling adds bit-sliced counters (one bit plane per
    counter bit) in a pairwise tree, then compares them with ``k / 2`` plane by plane.

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str or Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    packed : bool, optional
        Always True for this variant (``VSA.create("BSC", dim, packed=True)``).
    **kwargs : object
        ``seed``, ``device``, ``dtype`` and the other options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("BSC", dim=10000, packed=True)
    >>> a = model.random(seed=1)
    >>> a.shape, a.dtype.name
    ((1256,), 'uint8')
    >>> bool((model.unpack(a) == VSA.create("BSC", dim=10000).random(seed=1)).all())
    True
    """

    packed = True
    has_packed_form = True
    _draw_bytes_per_element = 0.3  # measured (the words, a bit per element)
    _creation_bytes_per_element = 3.0  # the padding mask is made from unpacked ones

    def __init__(self, dim: int, backend: Any = None, *, packed: bool = True, **kwargs: Any) -> None:
        super().__init__(dim, backend, packed=packed, **kwargs)

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + ", packed=True)"

    @property
    def vector_length(self) -> int:
        return self._packed_length

    # -- conversion ----------------------------------------------------------------------
    def pack(self, bits: Any) -> Any:
        """Unpacked BSC vectors (uint8 0/1, last axis ``dim``) as packed vectors.

        Parameters
        ----------
        bits : array
            Unpacked BSC vectors (uint8 0/1, last axis ``dim``).
        """
        if not isinstance(bits, self.backend.array_type) or bits.shape[-1:] != (self.dim,):
            raise ValueError(f"pack takes uint8 0/1 bits of shape (..., {self.dim}) of this backend")
        if not self.backend.is_traced(bits):  # values other than 0 and 1 are not bits
            bad = (bits != 0) & (bits != 1)
            if bool(self.xp.any(bad)):
                raise value_error(self, "bits", bits, bad, "are not bits (allowed: 0 or 1)")
        return kernels.pack_bits(self.backend, self.xp.astype(bits != 0, self.dtype), self.vector_length)

    def unpack(self, x: Any) -> Any:
        """Packed vectors as unpacked BSC vectors (uint8 0/1, last axis ``dim``).

        Parameters
        ----------
        x : array
            Packed vectors of the model.
        """
        return kernels.unpack_bytes(self.backend, self.check(x), self.dim)

    def elements(self, x: Any) -> Any:
        return kernels.unpack_bytes(self.backend, x, self.dim)

    def from_elements(self, e: Any) -> Any:
        return kernels.pack_bits(self.backend, e, self.vector_length)

    @property
    def allowed_values(self) -> str:
        return f"bytes whose bits past the {self.dim} elements (the padding of the last word) are 0"

    def valid_elements(self, x: Any) -> Any | None:
        if 8 * self.vector_length == self.dim or not self.xp.isdtype(x.dtype, "integral"):
            return None  # every byte is data; or checked once converted
        return (x & ~self._valid_bits()) == 0

    def _valid_bits(self) -> Any:
        """Bytes with the bits of the ``dim`` elements set and the padding bits clear."""
        mask = self.__dict__.get("_valid_bits_cache")
        if mask is None:  # made once (outside any trace: the first call is model creation's)
            mask = kernels.padding_mask(self.backend, self.vector_length, self.dim)
            self.__dict__["_valid_bits_cache"] = mask
        return mask

    # -- the algebra ---------------------------------------------------------------------
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        words = random_words(
            self.backend,
            seed,
            n_rows,
            self.vector_length // 4,
            stream=stream,
            purpose=purpose,
            row_start=row_start,
        )
        return kernels.words_to_bytes(self.backend, words) & self._valid_bits()

    def _identity(self) -> Any:
        return self.xp.zeros(self.vector_length, dtype=self.dtype, device=self.device)

    def _normalize(self, x: Any) -> Any:
        return x & self._valid_bits()

    def _permute(self, x: Any, shift: int) -> Any:
        bits = kernels.unpack_bytes(self.backend, x, self.dim)
        return kernels.pack_bits(self.backend, self.xp.roll(bits, shift, axis=-1), self.vector_length)

    def _bundle(self, stacked: Any) -> Any:
        k = stacked.shape[0]
        planes = _bit_sliced_count(self.xp, stacked)
        threshold = k // 2
        greater, equal = _compare_with_constant(self.xp, planes, threshold)
        if k % 2:
            return greater
        return greater | (equal & self._tiebreak)

    def _similarity(self, a: Any, b: Any) -> Any:
        differ = a ^ b
        if 8 * self.vector_length != self.dim:  # padding bits set (e.g. by ~a) do not count
            differ = differ & self._valid_bits()
        return self._from_hamming(kernels.count_bits(self.backend, differ))

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        # XOR/popcount on every backend (the bits are packed already), in BSC's search chunks
        return self.search_scores((queries,), (items,))

    def _matrix_temp_bytes_per_item(self, n_queries: int) -> int:
        return 0  # search_scores bounds its own chunks

    def _as_packed(self, bits: Any) -> Any:
        return bits  # stored packed already


def _bit_sliced_count(xp: Any, stacked: Any) -> list[Any]:
    """Per-bit counts of ``stacked`` (items on axis 0) as bit planes, least significant first.

    Items are added in a pairwise tree: each level adds neighbouring counters with
    a ripple-carry over their planes, for all pairs at once.
    """
    planes = [stacked]
    while planes[0].shape[0] > 1:
        if planes[0].shape[0] % 2:  # an odd count gets a zero counter
            planes = [xp.concat([p, xp.zeros_like(p[:1])], axis=0) for p in planes]
        carry = None
        added = []
        for plane in planes:
            a, b = plane[0::2], plane[1::2]
            partial = a ^ b
            if carry is None:
                added.append(partial)
                carry = a & b
            else:
                added.append(partial ^ carry)
                carry = (a & b) | (carry & partial)
        planes = [*added, carry]
    return [p[0] for p in planes]


def _compare_with_constant(xp: Any, planes: list[Any], constant: int) -> tuple[Any, Any]:
    """Bitwise ``count > constant`` and ``count == constant`` for bit-sliced counts."""
    greater = xp.zeros_like(planes[0])
    equal = ~greater
    for i in reversed(range(len(planes))):
        if (constant >> i) & 1:
            equal = equal & planes[i]
        else:
            greater = greater | (equal & planes[i])
            equal = equal & ~planes[i]
    if constant >> len(planes):  # the constant is larger than any count
        return xp.zeros_like(greater), xp.zeros_like(greater)
    return greater, equal
