"""BSDC-SEG: sparse block codes, one active element per segment (Laiho et al. 2015;
Frady, Kleyko and Sommer 2021; BSDC-SEG in Schlegel, Neubert and Protzel 2022)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from ..random import random_words
from ._blocks import block_shape, roll_blocks
from ._checks import check_dim
from .bsdc import SPARSE_KERNELS, SparseBinaryModel
from .registry import register_model


@register_model
class BSDCSEG(SparseBinaryModel):
    """Sparse block codes: ``dim = S * L``, ``S`` segments of ``L`` elements, one active
    element per segment.

    Vectors are stored dense (uint8 0/1, shape ``(..., dim)``, segment ``s`` is
    elements ``s*L .. s*L + L - 1``); :meth:`to_indices` and :meth:`from_indices`
    convert to and from the compact form, one int index per segment, shape ``(..., S)``.

    Options (``VSA.create("BSDC-SEG", dim, **options)``):

    ``segment_length`` / ``segments``
        ``L`` or ``S`` (give one, or both with ``S * L == dim``). By default ``L`` is the
        divisor of ``dim`` nearest ``sqrt(dim)`` (so ``S`` is about ``sqrt(dim)`` too and
        the density ``1/L`` about ``1/sqrt(dim)``), e.g. 100 x 100 for dim 10,000; a dim
        without a divisor within a factor 2 of ``sqrt(dim)`` is a ``ValueError``.
    ``thinning`` (``"none"``, default, or ``"vote"``)
        What ``bundle`` does: the OR of the active elements (multi-hot segments: the
        superposition with the published capacity), or a per-segment vote that returns a
        one-hot vector again: the element most items chose, ties broken by the fixed
        tie-break vector of the model's seed (the tied element nearest at or after its
        active element, cyclically). ``bundle(..., thinning=...)`` overrides it per call.

    Laws: random vectors have a uniform random index per segment (a 32-bit word modulo
    ``L``). ``bind`` adds the indices segment by segment modulo ``L``, so a bound vector
    of one-hot vectors is one-hot again; it is commutative, and ``unbind`` subtracts:
    ``unbind(bind(a, b), b) == a`` exactly. For multi-hot vectors (bundles) bind is the
    same operation on sets, the block-wise circular convolution (every sum of an active
    index of ``a`` and one of ``b``): binding distributes over the OR bundle, and
    ``unbind(bind(x, b), b) == x`` exactly for any ``x`` when ``b`` is one-hot (a key).
    ``inverse`` negates the indices; ``identity`` is index 0 in every segment.
    ``permute(x, k)`` rotates whole segments by ``k`` places (segment ``s`` moves to
    ``s + k mod S``), so that vectors stay one-hot per segment. Similarity is the
    normalised overlap ``|a AND b| / sqrt(|a| |b|)``; for one-hot vectors, the fraction of
    segments that agree.

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str or Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    segments : int, optional
        ``S``, the number of segments; ``None`` to derive it (see Options).
    segment_length : int, optional
        ``L``, the elements per segment; ``None`` to derive it (see Options).
    thinning : str | None, optional
        ``"none"`` or ``"vote"``: what bundle does (see Options).
    **kwargs : object
        ``seed``, ``device``, ``dtype`` and the other options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("BSDC-SEG", dim=10000)
    >>> model.segments, model.segment_length
    (100, 100)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> c = model.bind(a, b)
    >>> bool((model.to_indices(c) == (model.to_indices(a) + model.to_indices(b)) % 100).all())
    True
    >>> bool((model.unbind(c, b) == a).all())
    True
    """

    name = "BSDC-SEG"
    is_self_inverse = False
    is_commutative = True
    is_exact_inverse = True
    option_names: ClassVar[tuple[str, ...]] = ("segments", "segment_length", "thinning")
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"thinning": ("none", "vote")}
    _draw_bytes_per_element = 2.0  # measured: a word per segment, the one-hot vectors
    _creation_bytes_per_element = 8.0  # the vote's tie preferences
    # bind and unbind choose their path by looking at the data: their parts compile instead
    _compiled_kernels = (
        *(name for name in SPARSE_KERNELS if name not in ("_bind", "_unbind")),
        "_one_hot_from_words",
        "_all_one_hot",
        "_indices",
        "_dense",
        "_add_indices",
        "_subtract_indices",
        "_roll_segments",
        "_convolve",
        "_correlate",
        "_vote_bundle",
    )

    def __init__(
        self,
        dim: int,
        backend: Any = None,
        *,
        segments: int | None = None,
        segment_length: int | None = None,
        thinning: str | None = "none",
        **kwargs: Any,
    ) -> None:
        dim = check_dim(dim)  # first: the divisor search below is only for valid dims
        self.thinning = self._option_choice(thinning, "thinning")
        self._segments, self._length = block_shape(dim, segments, segment_length, "BSDC-SEG")
        super().__init__(dim, backend, **kwargs)
        xp, L = self.xp, self._length
        j = xp.arange(L, dtype=self._int, device=self.device)
        # vote ties: prefer the element at the tie-break vector's index, then the next ones
        # (the indices as _indices has them, uncompiled: nothing to compile at creation)
        tie = xp.astype(xp.argmax(self._blocks(self._tiebreak), axis=-1), self._int)
        self._tie_preference = (L - 1) - (j - xp.astype(tie, self._int)[:, None]) % L
        self._negate = xp.astype((-j) % L, self._index_dtype)

    def __repr__(self) -> str:
        return (
            f"{self.name}(dim={self.dim}, segments={self.segments}, segment_length={self.segment_length}, "
            f"thinning={self.thinning!r}, backend={self.backend.name!r}, "
            f"device={self.backend.device_name!r}, dtype={self.dtype_name!r})"
        )

    @property
    def segments(self) -> int:
        """``S``, the number of segments (one active element each)."""
        return self._segments

    @property
    def segment_length(self) -> int:
        """``L``, the number of elements per segment."""
        return self._length

    @property
    def density(self) -> float:
        """``1 / segment_length``: the fraction of active elements of a one-hot vector."""
        return 1 / self._length

    @property
    def atom_size(self) -> int:
        return self._length  # a whole segment: mixes of one-hot segments stay one-hot

    # -- the compact form -------------------------------------------------------------------
    def _blocks(self, x: Any) -> Any:
        return self.xp.reshape(x, (*x.shape[:-1], self._segments, self._length))

    def _indices(self, x: Any) -> Any:
        """Index of the first active element of each segment (int32)."""
        return self.xp.astype(self.xp.argmax(self._blocks(x), axis=-1), self._int)

    def _dense(self, indices: Any) -> Any:
        xp = self.xp
        j = xp.arange(self._length, dtype=indices.dtype, device=self.device)
        one_hot = xp.astype(indices[..., None] == j, self.dtype)
        return xp.reshape(one_hot, (*indices.shape[:-1], self.dim))

    def _is_one_hot(self, x: Any) -> bool:
        """Whether every segment of every vector in ``x`` has exactly one active element
        (False under a jit/vmap trace, where the data cannot be looked at)."""
        return self._concrete(x) and bool(self._all_one_hot(x))

    def _all_one_hot(self, x: Any) -> Any:
        return self.xp.all(self.xp.sum(self._blocks(x), axis=-1, dtype=self._int) == 1)

    def to_indices(self, x: Any, *, strict: bool = True) -> Any:
        """Vectors ``(..., dim)`` as the index of the active element of each segment,
        ``(..., segments)`` int32.

        ``strict=True`` raises ``ValueError`` unless every segment has exactly one active
        element (skipped under jit tracing, where values cannot be read); with
        ``strict=False`` a segment gives its first active element, or 0 if it has none.

        Parameters
        ----------
        x : array
            Vectors ``(..., dim)``.
        strict : bool, optional
            Whether a segment without exactly one active element is a ``ValueError``.
        """
        self.check(x)
        if strict and not self._is_one_hot(x) and self._concrete(x):
            counts = self.backend.to_numpy(self.xp.sum(self._blocks(x), axis=-1, dtype=self._int))
            bad = np.argwhere(counts != 1)[0]
            raise ValueError(
                f"to_indices needs one active element per segment; segment {int(bad[-1])} of vector "
                f"{tuple(int(i) for i in bad[:-1])} has {int(counts[tuple(bad)])} "
                "(bundles are multi-hot: use bundle(..., thinning='vote') or normalize first, "
                "or strict=False for the first active element)"
            )
        return self._indices(x)

    def from_indices(self, indices: Any) -> Any:
        """Indices ``(..., segments)`` (ints in ``[0, segment_length)``) as dense vectors
        ``(..., dim)``, one active element per segment.

        Parameters
        ----------
        indices : array
            Indices ``(..., segments)``, ints in ``[0, segment_length)``.
        """
        xp = self.xp
        if not isinstance(indices, self.backend.array_type):
            indices = self.backend.asarray(indices)
        if indices.dtype == self.backend.dtype("bool") or not xp.isdtype(indices.dtype, "integral"):
            raise TypeError(f"from_indices takes an integer array, got dtype {indices.dtype}")
        if indices.ndim == 0 or indices.shape[-1] != self._segments:
            raise ValueError(
                f"from_indices takes indices of shape (..., {self._segments}) (one per segment), "
                f"got shape {tuple(indices.shape)}"
            )
        if self._concrete(indices) and bool(xp.any((indices < 0) | (indices >= self._length))):
            raise ValueError(f"indices must be in [0, {self._length}) (the segment length)")
        return self._dense(indices)

    # -- random vectors ----------------------------------------------------------------------
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        # one word per segment; its remainder modulo L (bias below L / 2**32) is the index
        words = random_words(
            self.backend, seed, n_rows, self._segments, stream=stream, purpose=purpose, row_start=row_start
        )
        return self._one_hot_from_words(words)

    def _one_hot_from_words(self, words: Any) -> Any:
        return self._dense(words % self._length)

    # -- binding ----------------------------------------------------------------------------
    def _roll_segments(self, x: Any, shift: Any) -> Any:
        """Rotate segment ``s`` of ``x`` by ``shift[..., s]`` places: index ``i`` -> ``i + shift``."""
        out = roll_blocks(self.xp, self._blocks(x), shift, self._index_dtype, self.device)
        return self.xp.reshape(out, (*out.shape[:-2], self.dim))

    def _fft_product(self, a: Any, b: Any, correlate: bool) -> Any:
        """Block-wise circular convolution (or correlation) of 0/1 vectors, as 0/1: every sum
        (difference) of an active index of ``a`` and one of ``b``. Exact: the FFT's rounding
        error is far below 0.5 for counts up to ``L``."""
        xp, backend = self.xp, self.backend
        fa = kernels.fft(backend, xp.astype(self._blocks(a), self._float))
        fb = kernels.fft(backend, xp.astype(self._blocks(b), self._float))
        counts = xp.real(kernels.ifft(backend, fa * (xp.conj(fb) if correlate else fb)))
        out = xp.astype(counts > 0.5, self.dtype)
        return xp.reshape(out, (*out.shape[:-2], self.dim))

    def _convolve(self, a: Any, b: Any) -> Any:
        return self._fft_product(a, b, correlate=False)

    def _correlate(self, c: Any, b: Any) -> Any:
        return self._fft_product(c, b, correlate=True)

    def _add_indices(self, a: Any, b: Any) -> Any:
        return self._dense((self._indices(a) + self._indices(b)) % self._length)

    def _subtract_indices(self, c: Any, b: Any) -> Any:
        return self._dense((self._indices(c) - self._indices(b)) % self._length)

    def _bind(self, a: Any, b: Any) -> Any:
        # the data decides the path (each exact): one-hot vectors add indices (the hot path);
        # a one-hot operand rotates the other's segments; two bundles convolve. Under a
        # jit trace, where the data cannot be looked at, the convolution serves every case.
        if self._is_one_hot(b):
            if self._is_one_hot(a):
                return self._add_indices(a, b)
            return self._roll_segments(a, self._indices(b))
        if self._is_one_hot(a):
            return self._roll_segments(b, self._indices(a))
        return self._convolve(a, b)

    def _unbind(self, c: Any, b: Any) -> Any:
        if self._is_one_hot(b):
            if self._is_one_hot(c):
                return self._subtract_indices(c, b)
            return self._roll_segments(c, -self._indices(b))
        return self._correlate(c, b)

    def _inverse(self, x: Any) -> Any:
        xp = self.xp
        return xp.reshape(xp.take(self._blocks(x), self._negate, axis=-1), x.shape)

    def _identity(self) -> Any:
        return self._dense(self.xp.zeros(self._segments, dtype=self._int, device=self.device))

    def _permute(self, x: Any, shift: int) -> Any:
        return self.xp.roll(x, (shift % self._segments) * self._length, axis=-1)

    # -- bundling ---------------------------------------------------------------------------
    def bundle(self, vectors: Sequence[Any] | Any, *, thinning: str | None = None) -> Any:
        """OR of the vectors (multi-hot segments), or with ``thinning="vote"`` the per-segment
        vote, one-hot again (see the class docstring). ``vectors`` is a list of vectors, or
        an array with the items on axis 0.

        Parameters
        ----------
        vectors : list of array, or array
            A list of vectors, or an array with the items on axis 0.
        thinning : str, optional
            ``"none"`` or ``"vote"``; ``None`` for the model's ``thinning``.
        """
        mode = self.thinning if thinning is None else self._option_choice(thinning, "thinning")
        return self._bundle_as(self._checks.stack(vectors), mode)

    def _bundle(self, stacked: Any) -> Any:
        return self._bundle_as(stacked, self.thinning)

    def _bundle_as(self, stacked: Any, mode: str) -> Any:
        return self._vote_bundle(stacked) if mode == "vote" else self._or(stacked)

    def _vote_bundle(self, stacked: Any) -> Any:
        return self._vote(self.xp.sum(stacked, axis=0, dtype=self._int))

    def _vote(self, counts: Any) -> Any:
        """One-hot per segment at the largest count, ties by the tie-break preference."""
        key = self._blocks(counts) * self._length + self._tie_preference
        return self._dense(self.xp.astype(self.xp.argmax(key, axis=-1), self._int))

    def _normalize(self, x: Any) -> Any:
        # the nearest vector of the model: the per-segment vote over x's values
        return self._vote(self.xp.astype(x, self._int))

    # -- search -----------------------------------------------------------------------------
    # Where the backend's gathers beat its matrix product (kernels.gather_beats_matmul(backend)),
    # similarity_matrix takes the compact path for one-hot vectors (indices of the one-hot
    # side, then a gather of S values per pair instead of a D-long product). Measured at
    # dim 10,000 (100 x 100) against 10,000 items, median of 7 perf_counter runs on 2 shared
    # CPU cores: NumPy compact 81 / 88 / 159 ms vs dense 154 / 192 / 365 ms for
    # 1 / 10 / 100 queries (1,000 x 1,000: 102 vs 438 ms); torch's CPU gather is slower than
    # its BLAS product (827 vs 257 ms for 1 query, 2008 vs 1200 ms for 100), and JAX's too
    # (264 vs 116, 417 vs 239 ms); on a GPU the matrix product is faster still.

    def _one_hot_indices(self, x: Any) -> Any | None:
        """Indices ``(n, S)`` of the 2-d batch ``x`` if every segment of it is one-hot, else None."""
        xp = self.xp
        blocks = self._blocks(x)
        first = xp.argmax(blocks, axis=-1)
        # one-hot iff each segment's first maximum is a 1 and each vector has S ones
        hit = xp.take_along_axis(blocks, xp.astype(first, self._index_dtype)[..., None], axis=-1)
        if bool(xp.all(hit == 1)) and bool(xp.all(self._ones(x) == self._segments)):
            return xp.astype(first, self._index_dtype)
        return None

    def _gather_overlap(self, x: Any, indices: Any) -> Any:
        """Overlap ``(n_x, n_i)`` of vectors ``x`` with the one-hot vectors of ``indices``:
        the sum over segments of ``x`` at each one-hot vector's active element."""
        xp, S = self.xp, self._segments
        offsets = xp.arange(S, dtype=self._index_dtype, device=self.device) * self._length
        positions = xp.reshape(indices + offsets, (-1,))
        gathered = xp.reshape(xp.take(x, positions, axis=-1), (x.shape[0], indices.shape[0], S))
        return xp.sum(gathered != 0, axis=-1, dtype=self._int)  # nonzero counts as one

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        if kernels.gather_beats_matmul(self.backend) and self._concrete(queries, items):
            xp = self.xp
            segments = xp.full((1, 1), self._segments, dtype=self._int, device=self.device)
            item_indices = self._one_hot_indices(items)
            if item_indices is not None:
                overlap = self._gather_overlap(queries, item_indices)
                return self._overlap_ratio(overlap, self._ones(queries)[:, None], segments)
            query_indices = self._one_hot_indices(queries)
            if query_indices is not None:
                overlap = self.xp.matrix_transpose(self._gather_overlap(items, query_indices))
                return self._overlap_ratio(overlap, segments, self._ones(items)[None, :])
        return self._dense_similarity_matrix(queries, items)

    def _matrix_temp_bytes_per_item(self, n_queries: int = 1) -> int:
        return max(4 * self.dim, 5 * self._segments * n_queries) + 8 * n_queries
