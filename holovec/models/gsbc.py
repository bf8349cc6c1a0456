"""GSBC: generalized sparse block codes (Hersche et al. 2024, "Factorizers for distributed
sparse block codes", Neurosymbolic Artificial Intelligence; arXiv:2303.13957).

A vector is ``S`` blocks of ``L`` elements (``dim = S * L``). A random vector has one active
element per block, at a uniform position, with a value of modulus 1: a unit phasor
(``values="phasor"``), a sign (``"bipolar"``) or 1 (``"binary"``, the sparse block codes of
BSDC-SEG, in floats). Binding is the block-wise circular convolution, so the positions of
active elements add modulo ``L`` and their values multiply. Bundles, and the estimates of
the block-code factorizer (:class:`holovec.retrieval.BlockCodeFactorizer`), are the GSBCs
of the paper: any real or complex blocks, each scaled to unit l1 norm.
"""

from __future__ import annotations

from typing import Any, ClassVar

from .. import kernels
from ..random import phases_from_words, random_words
from ._blocks import block_shape, roll_blocks
from ._checks import check_dim
from ._cosine import CosineSimilarity
from .base import COMPILED_KERNELS, VSAModel
from .registry import register_model

#: what the active elements of random vectors are, with the dtype of the vectors
VALUES = {"phasor": "complex64", "bipolar": "float32", "binary": "float32"}
_WIDE = {"complex64": "complex128", "float32": "float64"}


@register_model
class GSBC(CosineSimilarity, VSAModel):
    """Generalized sparse block codes: ``dim = S * L``, ``S`` blocks of ``L`` elements, random
    vectors with one active element of modulus 1 per block.

    Options (``VSA.create("GSBC", dim, **options)``):

    ``segments`` / ``segment_length``
        ``S`` or ``L`` (give one, or both with ``S * L == dim``); by default ``L`` is the
        divisor of ``dim`` nearest ``sqrt(dim)``, as for BSDC-SEG.
    ``values`` (``"phasor"``, default; ``"bipolar"``; ``"binary"``)
        The active elements of random vectors: unit phasors of uniform phase (complex
        vectors), signs +1 or -1 with equal odds, or 1 (real vectors).

    Laws: ``bind`` is the block-wise circular convolution (commutative, associative):
    binding two random vectors adds their active positions block by block modulo ``L`` and
    multiplies their values, so the result is a random vector again. ``unbind`` is the
    block-wise circular correlation, the convolution with ``inverse(b)`` (each block
    reversed and conjugated); for a ``b`` with one active element of modulus 1 per block it
    is the exact inverse: ``unbind(bind(x, b), b) == x`` up to float rounding, for any
    ``x``. Where an operand has one active element per block, bind and unbind rotate the
    other operand's blocks and scale them (exact, ``O(dim)``); otherwise they use the FFT of
    each block. ``identity`` is the element 0 of every block, valued 1. ``bundle`` is the
    sum with each block scaled to unit l1 norm (the paper's GSBC; a block that sums to zero
    takes the tie-break vector's block). ``normalize`` keeps the element of largest
    magnitude in each block, scaled to modulus 1: the nearest vector with one active
    element per block. ``permute(x, k)`` rotates whole blocks by ``k`` places. Similarity
    is the cosine (the real part for complex vectors): for random vectors the fraction of
    blocks whose active elements agree in position, weighted by the agreement of their
    values.

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str or Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    segments : int, optional
        ``S``, the number of blocks; ``None`` to derive it (see Options).
    segment_length : int, optional
        ``L``, the elements per block; ``None`` to derive it (see Options).
    values : str, optional
        ``"phasor"``, ``"bipolar"`` or ``"binary"``: the active elements (see Options).
    **kwargs : object
        ``seed``, ``device``, ``dtype`` and the other options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("GSBC", dim=1024)
    >>> model.segments, model.segment_length
    (32, 32)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> c = model.bind(a, b)
    >>> bool(((model.to_indices(a) + model.to_indices(b)) % 32 == model.to_indices(c)).all())
    True
    >>> round(float(model.similarity(model.unbind(c, b), a)), 4)
    1.0
    """

    name = "GSBC"
    is_self_inverse = False
    is_commutative = True
    is_exact_inverse = True
    default_dtype = "complex64"  # instances: by the option values
    allowed_dtypes = ("complex64", "complex128")
    option_names: ClassVar[tuple[str, ...]] = ("segments", "segment_length", "values")
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"values": tuple(VALUES)}
    element_kind = "block-code"
    bundle_is_sum = True
    _draw_bytes_per_element = 24.0  # the words (two per block), the phases, the dense vectors
    # bind and unbind choose their path by looking at the data: their parts compile instead
    _compiled_kernels = (
        *(name for name in COMPILED_KERNELS if name not in ("_bind", "_unbind")),
        "_one_active",
        "_shifted",
        "_unshifted",
        "_convolve",
        "_correlate",
        "_active",
        "_dense",
    )

    def __init__(
        self,
        dim: int,
        backend: Any = None,
        *,
        segments: int | None = None,
        segment_length: int | None = None,
        values: str = "phasor",
        **kwargs: Any,
    ) -> None:
        dim = check_dim(dim)  # first: the divisor search is only for valid dims
        if not isinstance(values, str) or values.lower() not in VALUES:
            raise ValueError(f"values must be one of {', '.join(map(repr, VALUES))}, got {values!r}")
        self.values = values.lower()
        narrow = VALUES[self.values]
        # instance attributes: the dtypes and the exactness of draws depend on the option
        self.default_dtype = narrow
        self.allowed_dtypes = (narrow, _WIDE[narrow])
        self._draws_exact = self.values != "phasor"  # cos and sin round differently by framework
        self._segments, self._length = block_shape(dim, segments, segment_length, "GSBC")
        super().__init__(dim, backend, **kwargs)

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + (
            f", segments={self.segments}, segment_length={self.segment_length}, values={self.values!r})"
        )

    @property
    def segments(self) -> int:
        """``S``, the number of blocks."""
        return self._segments

    @property
    def segment_length(self) -> int:
        """``L``, the number of elements per block."""
        return self._length

    @property
    def _index(self) -> Any:
        """Dtype of positions and gather indices: int64 where the backend has it, else int32."""
        return self.backend.dtype("int64" if kernels.supports_dtype(self.backend, "int64") else "int32")

    @property
    def atom_size(self) -> int:
        return self._length  # whole blocks: mixes of one-active blocks stay one-active

    # -- blocks --------------------------------------------------------------------------
    def _blocks(self, x: Any) -> Any:
        return self.xp.reshape(x, (*x.shape[:-1], self._segments, self._length))

    def _flat(self, blocks: Any) -> Any:
        return self.xp.reshape(blocks, (*blocks.shape[:-2], self.dim))

    def _active(self, x: Any) -> Any:
        """The position of the largest magnitude in each block, ``(..., S)`` (the first of equals)."""
        return self.xp.astype(self.xp.argmax(self.xp.abs(self._blocks(x)), axis=-1), self._index)

    def _dense(self, positions: Any, values: Any) -> Any:
        """Vectors with ``values[..., s]`` at ``positions[..., s]`` of block ``s``, zero elsewhere."""
        xp = self.xp
        j = xp.arange(self._length, dtype=positions.dtype, device=self.device)
        hot = positions[..., None] == j
        return self._flat(
            xp.where(hot, xp.astype(values, self.dtype)[..., None], xp.zeros((), dtype=self.dtype))
        )

    def _one_active(self, x: Any) -> Any:
        """Whether every block of every vector of ``x`` has exactly one nonzero element."""
        return self.xp.all(kernels.count_nonzero(self.backend, self._blocks(x)) == 1)

    def _has_one_active(self, x: Any) -> bool:
        """:meth:`_one_active` where the data can be read now (False under a jit trace or for
        lazy arrays, where the general path serves)."""
        backend = self.backend
        return not backend.lazy and not backend.is_traced(x) and bool(self._one_active(x))

    def to_indices(self, x: Any) -> Any:
        """The position of the element of largest magnitude in each block, ``(..., segments)``
        (int64 where the backend has it, else int32; the first of equal magnitudes).

        Parameters
        ----------
        x : array
            Vectors ``(..., dim)``.
        """
        return self._active(self.check(x))

    # -- random vectors ------------------------------------------------------------------
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        # two words per block: the first's remainder modulo L (bias below L / 2**32) is the
        # position, the second gives the value (a phase, or a sign by its top bit)
        S, xp = self._segments, self.xp
        words = random_words(
            self.backend, seed, n_rows, 2 * S, stream=stream, purpose=purpose, row_start=row_start
        )
        positions, value_words = words[..., :S] % self._length, words[..., S:]
        if self.values == "phasor":
            phases = phases_from_words(self.backend, value_words, self.real_dtype)
            values = kernels.unit_phasor(self.backend, phases)
        elif self.values == "bipolar":
            values = xp.astype(1 - 2 * xp.astype(value_words >> 31, self.backend.dtype("int8")), self.dtype)
        else:
            values = xp.ones(positions.shape, dtype=self.dtype, device=self.device)
        return self._dense(xp.astype(positions, self._index), values)

    # -- binding -------------------------------------------------------------------------
    def _rolled(self, x: Any, key: Any, inverse: bool) -> Any:
        """The block-wise convolution of ``x`` with ``key`` (one active element per block), or
        with its inverse: ``x``'s blocks rotated by the key's positions and multiplied by its
        values (negated positions and conjugated values for the inverse)."""
        xp = self.xp
        positions = self._active(key)
        values = xp.take_along_axis(self._blocks(key), positions[..., None], axis=-1)
        if inverse:
            positions, values = -positions, xp.conj(values) if self._is_complex else values
        rolled = roll_blocks(xp, self._blocks(x), positions, self._index, self.device)
        return self._flat(rolled * values)

    def _shifted(self, x: Any, key: Any) -> Any:
        return self._rolled(x, key, False)

    def _unshifted(self, x: Any, key: Any) -> Any:
        return self._rolled(x, key, True)

    def _spectral(self, a: Any, b: Any, correlate: bool) -> Any:
        """Block-wise circular convolution (correlation) by the FFT of each block."""
        xp, backend = self.xp, self.backend
        fa, fb = kernels.fft(backend, self._blocks(a)), kernels.fft(backend, self._blocks(b))
        out = kernels.ifft(backend, fa * (xp.conj(fb) if correlate else fb))
        return self._flat(out if self._is_complex else xp.astype(xp.real(out), self.dtype))

    def _convolve(self, a: Any, b: Any) -> Any:
        return self._spectral(a, b, False)

    def _correlate(self, c: Any, b: Any) -> Any:
        return self._spectral(c, b, True)

    def _bind(self, a: Any, b: Any) -> Any:
        if self._has_one_active(b):
            return self._shifted(a, b)
        if self._has_one_active(a):
            return self._shifted(b, a)
        return self._convolve(a, b)

    def _unbind(self, c: Any, b: Any) -> Any:
        if self._has_one_active(b):
            return self._unshifted(c, b)
        return self._correlate(c, b)

    def _inverse(self, x: Any) -> Any:
        # each block reversed about its element 0 (j -> -j mod L), conjugated
        xp = self.xp
        reversed_ = xp.roll(xp.flip(self._blocks(x), axis=-1), 1, axis=-1)
        return self._flat(xp.conj(reversed_) if self._is_complex else reversed_)

    def _identity(self) -> Any:
        xp = self.xp
        zeros = xp.zeros(self._segments, dtype=self._index, device=self.device)
        return self._dense(zeros, xp.ones(self._segments, dtype=self.dtype, device=self.device))

    def _permute(self, x: Any, shift: int) -> Any:
        return self.xp.roll(x, (shift % self._segments) * self._length, axis=-1)

    # -- bundles -------------------------------------------------------------------------
    def _bundle(self, stacked: Any) -> Any:
        return self._unit_blocks(self.xp.sum(stacked, axis=0))

    def _unit_blocks(self, x: Any) -> Any:
        """Each block scaled to unit l1 norm; a zero block takes the tie-break vector's."""
        xp = self.xp
        blocks = self._blocks(x)
        norm = xp.sum(xp.abs(blocks), axis=-1, keepdims=True)
        nonzero = norm > 0
        scaled = blocks / xp.astype(xp.where(nonzero, norm, 1), blocks.dtype)
        return self._flat(xp.where(nonzero, scaled, self._blocks(self._tiebreak)))

    def _normalize(self, x: Any) -> Any:
        # the nearest vector of one active element per block, of modulus 1; a zero block
        # takes the tie-break vector's
        xp = self.xp
        blocks = self._blocks(x)
        positions = self._active(x)
        values = xp.take_along_axis(blocks, positions[..., None], axis=-1)[..., 0]
        magnitude = xp.abs(values)
        nonzero = magnitude > 0
        unit = values / xp.astype(xp.where(nonzero, magnitude, 1), values.dtype)
        tie = self._blocks(self._tiebreak)
        tie_positions = self._active(self._tiebreak)
        tie_values = xp.take_along_axis(tie, tie_positions[..., None], axis=-1)[..., 0]
        return self._dense(xp.where(nonzero, positions, tie_positions), xp.where(nonzero, unit, tie_values))
