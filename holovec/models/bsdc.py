"""BSDC: binary sparse distributed codes (Rachkovskij 2001; Rachkovskij and Kussul 2001).

Also home of :class:`SparseBinaryModel`, what the sparse binary models share: uint8 0/1
vectors, the normalised overlap as similarity, and a similarity matrix that is one
matrix product per chunk.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from ..random import Purpose, random_words
from ._search import items_product
from .base import COMPILED_KERNELS, VSAModel
from .registry import register_model

#: stream of the model's fixed CDT permutation, under ``Purpose.TIEBREAK`` and the
#: model's tie seed (the tie-break vector itself is stream 0)
CDT_STREAM = 0x43445431  # "CDT1"
#: the compiled kernels of the sparse binary models (see ``VSAModel._compiled_kernels``)
SPARSE_KERNELS = (*COMPILED_KERNELS, "_dense_similarity_matrix", "_or")


class SparseBinaryModel(VSAModel):
    """What the sparse binary models share (not a model itself).

    Vectors are uint8 arrays of 0 and 1, one element per slot. Similarity is the
    normalised overlap ``|a AND b| / sqrt(|a| |b|)`` (``|x|`` the number of ones; 0 when
    either vector is empty): 1 for identical vectors, about the density for unrelated
    ones, never negative.
    """

    default_dtype = "uint8"
    allowed_dtypes = ("uint8",)
    element_kind = "sparse"
    #: pure array functions (no look at the data, static shapes) that run compiled on JAX
    #: besides the base class's (see ``VSAModel._compiled_kernels``)
    _compiled_kernels: ClassVar[tuple[str, ...]] = SPARSE_KERNELS

    @property
    def _float(self) -> Any:
        return self.backend.dtype("float32")

    @property
    def _int(self) -> Any:
        return self.backend.dtype("int32")

    @property
    def _index_dtype(self) -> Any:
        """Dtype of gather indices: int64 where the backend has it (torch needs it), else int32."""
        return self.backend.dtype("int64" if kernels.supports_dtype(self.backend, "int64") else "int32")

    def _concrete(self, *arrays: Any) -> bool:
        """Whether the values of ``arrays`` can be read now (not placeholders of a jit or vmap
        trace, nor lazy arrays whose values a compute would make), so that a fast path may be
        chosen by looking at the data."""
        return not self.backend.lazy and not any(self.backend.is_traced(x) for x in arrays)

    def _ones(self, x: Any) -> Any:
        """Number of ones (nonzero elements) of each vector, int32."""
        return self.xp.astype(kernels.count_nonzero(self.backend, x), self._int)

    def _overlap_ratio(self, overlap: Any, count_a: Any, count_b: Any) -> Any:
        xp = self.xp
        overlap = xp.astype(overlap, self._float)
        denominator = xp.sqrt(xp.astype(count_a, self._float) * xp.astype(count_b, self._float))
        nonzero = denominator > 0
        # at most 1 (the float32 product of large counts may round the denominator down)
        return xp.minimum(xp.where(nonzero, overlap / xp.where(nonzero, denominator, 1), 0), 1.0)

    # Every similarity path reads an element as one where it is nonzero (as normalize
    # does), so that similarity and similarity_matrix agree on any uint8 input.
    def _similarity(self, a: Any, b: Any) -> Any:
        a, b = a != 0, b != 0
        backend = self.backend
        return self._overlap_ratio(
            kernels.count_nonzero(backend, a & b),
            kernels.count_nonzero(backend, a),
            kernels.count_nonzero(backend, b),
        )

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        return self._dense_similarity_matrix(queries, items)

    def _dense_similarity_matrix(self, queries: Any, items: Any) -> Any:
        # 0/1 in float32: the products count common ones exactly (counts < 2**24)
        xp = self.xp
        q, b = xp.astype(queries != 0, self._float), xp.astype(items != 0, self._float)
        overlap = items_product(self, q, b, exact=True)
        return self._overlap_ratio(overlap, xp.sum(q, axis=-1)[:, None], xp.sum(b, axis=-1)[None, :])

    def _matrix_temp_bytes_per_item(self, n_queries: int = 1) -> int:
        return 4 * self.dim + 8 * n_queries

    def _normalize(self, x: Any) -> Any:
        return self.xp.astype(x != 0, self.dtype)

    def _or(self, stacked: Any) -> Any:
        """Elementwise OR over axis 0."""
        return self.xp.astype(self.xp.max(stacked, axis=0) != 0, self.dtype)

    def _option_choice(self, value: Any, name: str) -> str:
        choices = self.option_choices[name]
        if value is None and "none" in choices:
            return "none"
        if not isinstance(value, str) or value.lower() not in choices:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
        return value.lower()


def cdt_max_rounds(dim: int, n_active: int) -> int:
    """The largest number ``K`` of permuted copies that thinning may need: twice what a
    random vector of ``n_active + 1`` ones needs to keep about ``n_active`` of them (a one
    survives ``K`` copies with probability ``1 - (1 - p)**K``), at most ``dim - 1``."""
    if n_active >= dim - 1:
        return 1
    p = (n_active + 1) / dim
    need = math.log(n_active + 1) / -math.log1p(-p)
    return max(1, min(dim - 1, math.ceil(2 * need)))


@register_model
class BSDC(SparseBinaryModel):
    """Binary sparse distributed codes: 0/1 vectors with few ones (Rachkovskij 2001).

    Options (``VSA.create("BSDC", dim, **options)``):

    ``density`` (default ``1 / sqrt(dim)``)
        Every random vector has exactly ``M = max(1, round(density * dim))`` ones, at
        positions drawn uniformly without replacement: the ``M`` smallest of ``dim``
        random 32-bit words (ties by position), as Schlegel et al. (2022) draw them. Exact
        ``M`` gives every vector the same norm, so that bundle retrieval does not favour
        vectors that happened to draw more ones.
    ``binding`` (``"shift"``, default, or ``"cdt"``)
        ``"shift"``: ``bind(a, b)`` cyclically shifts ``a`` by ``s(b)``, the sum of the
        positions of the ones of ``b`` (int32, wrapping modulo ``2**32`` on every backend)
        modulo ``dim`` (BSDC-S of Schlegel et al. 2022). ``unbind(c, b)`` shifts back and
        recovers the *first* operand ``a`` exactly; non-commutative, not self-inverse,
        density-preserving. ``inverse(b)`` is the one-hot vector at ``-s(b) mod dim``.
        ``"cdt"``: ``bind(a, b) = thin(a OR b)``, context-dependent thinning of the
        superposition (Rachkovskij and Kussul 2001): commutative, density-preserving and
        similar to both operands (about 0.5), but not invertible. ``unbind(c, b)`` is
        ``c AND NOT b``, the ones of ``c`` that ``b`` does not explain, about 0.7 similar
        to ``a``: clean it up against a codebook. There is no identity or inverse vector.
    ``thinning`` (``"none"``, default, or ``"cdt"``)
        What ``bundle`` does after the elementwise OR: nothing (the superposition that
        gives the published bundle capacity; its density grows with every item), or
        context-dependent thinning back to about ``M`` ones, for deep compositions.
        ``bundle(..., thinning=...)`` overrides it per call.

    Context-dependent thinning (CDT, Rachkovskij and Kussul 2001): the additive procedure
    ``thin(z) = z AND OR_{k=1..K} perm_k(z)`` keeps the ones of ``z`` that one of ``K``
    permuted copies of ``z`` also has. The permutations are fixed by the model's seed:
    ``perm_k(z) = roll(P z, k)`` for one random permutation ``P`` (the argsort of random
    words), so that they do not line up with the cyclic shifts that binding and ``permute``
    make, and the windows ``k = 1..K`` are nested, so that similar inputs thin alike. ``K``
    is chosen per vector from the data: the ``K`` whose result has the number of ones
    nearest ``M`` (a binary search over the distance from each position back to the
    nearest one of ``P z``). Choosing ``K`` from the data, not from the expected density
    of random inputs, keeps the density at every level of a deep composition, where the
    inputs are thinned vectors whose contexts are correlated. Vectors with at most ``M``
    ones are kept as they are. Even ``K = 1`` keeps a fraction ``c / dim`` of the ``c``
    ones, so where that is still more than ``M`` (the OR of more than about
    ``1 / sqrt(density)`` random vectors: 10 at dim 10,000) the paper's subtractive
    procedure ``z AND NOT OR_{k=1..K} perm_k(z)`` is used instead. Either way the result is
    a subset of ``z``, deterministic, and about equally similar to each item in it; its
    number of ones is within about 10% of ``M`` (up to 30% where ``z`` is dense and one
    more copy changes a lot).

    Similarity is ``|a AND b| / sqrt(|a| |b|)``: 1 identical, about ``M / dim`` unrelated.

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str or Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    density : float, optional
        Fraction of ones of a random vector; ``None`` for ``1 / sqrt(dim)`` (see Options).
    binding : str, optional
        ``"shift"`` or ``"cdt"`` (see Options).
    thinning : str | None, optional
        ``"none"`` or ``"cdt"``: what bundle does after the OR (see Options).
    **kwargs : object
        ``seed``, ``device``, ``dtype`` and the other options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("BSDC", dim=10000)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> int(a.sum()), model.n_active
    (100, 100)
    >>> bool((model.unbind(model.bind(a, b), b) == a).all())
    True
    >>> round(float(model.similarity(model.bundle([a, b]), a)), 2)  # the OR: 200 ones
    0.71
    >>> s = model.bundle([a, b], thinning="cdt")  # back to about 100 ones, about half of each
    >>> int(s.sum()), round(float(model.similarity(s, a)), 2), round(float(model.similarity(s, b)), 2)
    (99, 0.48, 0.51)
    """

    name = "BSDC"
    is_self_inverse = False
    is_commutative = False
    is_exact_inverse = True
    #: a mix of two vectors would not keep the fixed number of ones
    atoms_exchangeable = False
    option_names: ClassVar[tuple[str, ...]] = ("density", "binding", "thinning")
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {
        "binding": ("shift", "cdt"),
        "thinning": ("none", "cdt"),
    }
    _draw_bytes_per_element = 16.0  # measured: the words and their argsort
    _creation_bytes_per_element = 9.0  # the CDT permutation (words, int64 argsort)
    _compiled_kernels = (*SPARSE_KERNELS, "_ones_from_words", "_thin")

    def __init__(
        self,
        dim: int,
        backend: Any = None,
        *,
        density: float | None = None,
        binding: str = "shift",
        thinning: str | None = "none",
        **kwargs: Any,
    ) -> None:
        self.binding = self._option_choice(binding, "binding")
        self.thinning = self._option_choice(thinning, "thinning")
        if self.binding == "cdt":
            self.is_commutative = True
            self.is_exact_inverse = False
        else:  # a cyclic shift by the key's index: it commutes with permute's cyclic shift
            self.bind_commutes_with_permute = True
        n_active = _n_active(dim, density)
        self._n_active = n_active
        super().__init__(dim, backend, **kwargs)
        xp = self.xp
        # the fixed permutation P of CDT, from the model's tie seed
        words = random_words(
            self.backend, self.seed_for_ties, 1, self.dim, stream=CDT_STREAM, purpose=Purpose.TIEBREAK
        )
        self._cdt_perm = xp.astype(xp.argsort(words[0], stable=True), self._index_dtype)
        self._cdt_kmax = cdt_max_rounds(self.dim, n_active)

    def __repr__(self) -> str:
        return (
            f"{self.name}(dim={self.dim}, n_active={self.n_active}, binding={self.binding!r}, "
            f"thinning={self.thinning!r}, backend={self.backend.name!r}, "
            f"device={self.backend.device_name!r}, dtype={self.dtype_name!r})"
        )

    @property
    def n_active(self) -> int:
        """Number of ones ``M`` of every random vector."""
        return self._n_active

    @property
    def density(self) -> float:
        """``n_active / dim``: the density of random vectors, and the one that CDT restores."""
        return self._n_active / self.dim

    # -- random vectors -----------------------------------------------------------------
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        return self._ones_from_words(
            random_words(
                self.backend, seed, n_rows, self.dim, stream=stream, purpose=purpose, row_start=row_start
            )
        )

    def _ones_from_words(self, words: Any) -> Any:
        xp = self.xp
        # ones at the M smallest words, ties broken by position: the M-th smallest word t
        # (and its position) is found by one stable argsort
        order = xp.argsort(words, axis=-1, stable=True)
        last = order[:, self._n_active - 1 : self._n_active]
        threshold = xp.take_along_axis(words, last, axis=-1)
        position = xp.arange(self.dim, dtype=order.dtype, device=self.device)
        ones = (words < threshold) | ((words == threshold) & (position <= last))
        return xp.astype(ones, self.dtype)

    # -- thinning -------------------------------------------------------------------------
    def thin(self, x: Any) -> Any:
        """Context-dependent thinning of vectors (any density) back to about ``n_active`` ones.

        The result is a subset of ``x``; vectors with at most ``n_active`` ones come back
        unchanged. See the class docstring for the procedure.

        Parameters
        ----------
        x : array
            0/1 vectors of any density.
        """
        return self._thin(self.check(x))

    def _thin(self, z: Any) -> Any:
        xp, dim, m, kmax = self.xp, self.dim, self._n_active, self._cdt_kmax
        i32 = self._int
        count = self._ones(z)
        # distance from each position i back to the nearest one of y = P z (cyclic):
        # d[i] = min{k >= 1 : y[i - k] = 1}, so that OR_{k=1..K} roll(y, k) is d <= K.
        # A sliding maximum of "position where y is 1" over a window doubled log2(kmax)
        # times finds it; distances beyond kmax all read kmax + 1.
        y = xp.take(z, self._cdt_perm, axis=-1)
        padded = xp.concat([y[..., dim - kmax :], y], axis=-1)
        position = xp.arange(dim + kmax, dtype=i32, device=self.device)
        last = _shift_right(xp, xp.where(padded != 0, position, -1), 1, self.device)
        covered = 1
        while covered < kmax:
            last = xp.maximum(last, _shift_right(xp, last, covered, self.device))
            covered *= 2
        distance = xp.minimum(position[kmax:] - last[..., kmax:], kmax + 1)
        # distances of the ones of z only (the others never count)
        distance = xp.where(z != 0, distance, kmax + 2)

        def kept(k: Any) -> Any:  # ones of z with a one of y within k places: additive CDT with K = k
            return xp.sum(xp.astype(distance <= k[..., None], i32), axis=-1, dtype=i32)

        # additive CDT where K = 1 already keeps at most M ones; beyond, subtractive CDT,
        # which keeps the ones with no one of y within K places: count - kept(K)
        one = xp.ones_like(count)
        additive = kept(one) <= m
        target = xp.where(additive, m, count - m)
        # smallest K in [1, kmax + 1] with kept(K) >= target (kept grows with K) ...
        low, high = one, xp.full_like(count, kmax + 1)
        for _ in range(int(kmax + 1).bit_length()):
            middle = (low + high) // 2
            enough = kept(middle) >= target
            high = xp.where(enough, middle, high)
            low = xp.where(enough, low, middle + 1)
        # ... or K - 1, whichever keeps a number of ones nearer the target
        below = xp.maximum(high - 1, 1)
        nearer = xp.abs(kept(below) - target) < xp.abs(kept(high) - target)
        rounds = xp.where(nearer, below, high)[..., None]
        keep = xp.where(additive[..., None], distance <= rounds, (distance > rounds) & (distance <= kmax + 1))
        return xp.where((count <= m)[..., None], z, xp.astype(keep, self.dtype))

    # -- the operations -------------------------------------------------------------------
    def bundle(self, vectors: Sequence[Any] | Any, *, thinning: str | None = None) -> Any:
        """Elementwise OR of the vectors, then the model's ``thinning`` (or this call's).

        ``vectors`` is a list of vectors (or batches), or an array with the items on axis 0.
        ``thinning="cdt"`` thins the OR back to about ``n_active`` ones; ``"none"`` keeps it.

        Parameters
        ----------
        vectors : list of array, or array
            A list of vectors, or an array with the items on axis 0.
        thinning : str, optional
            ``"none"`` or ``"cdt"``; ``None`` for the model's ``thinning``.
        """
        mode = self.thinning if thinning is None else self._option_choice(thinning, "thinning")
        union = self._or(self._checks.stack(vectors))
        return self._thin(union) if mode == "cdt" else union

    def _bundle(self, stacked: Any) -> Any:
        union = self._or(stacked)
        return self._thin(union) if self.thinning == "cdt" else union

    def _shift_of(self, b: Any) -> Any:
        """``s(b)``: the sum of the positions of the ones of ``b`` (int32, wrapping) modulo dim."""
        xp = self.xp
        position = xp.arange(self.dim, dtype=self._int, device=self.device)
        return xp.sum(xp.astype(b, self._int) * position, axis=-1, dtype=self._int) % self.dim

    def _roll_each(self, x: Any, shift: Any) -> Any:
        """Roll each vector of ``x`` by its own ``shift`` (an int array over the batch axes), as
        a gather, so that the shift is data (no sync, one compiled kernel for every shift)."""
        xp = self.xp
        position = xp.arange(self.dim, dtype=self._index_dtype, device=self.device)
        source = (position - xp.astype(shift, self._index_dtype)[..., None]) % self.dim
        if shift.ndim == 0:
            return xp.take(x, source, axis=-1)
        shape = tuple(np.broadcast_shapes(tuple(x.shape), tuple(source.shape)))
        return xp.take_along_axis(xp.broadcast_to(x, shape), xp.broadcast_to(source, shape), axis=-1)

    def _bind(self, a: Any, b: Any) -> Any:
        if self.binding == "cdt":
            return self._thin(a | b)
        return self._roll_each(a, self._shift_of(b))

    def _unbind(self, c: Any, b: Any) -> Any:
        if self.binding == "cdt":
            return c & (b ^ 1)
        return self._roll_each(c, -self._shift_of(b))

    def _no_inverse(self, what: str) -> None:
        raise ValueError(
            f"BSDC with binding='cdt' has no {what}: CDT binding is not invertible; use unbind "
            "(then clean up), or binding='shift'"
        )

    def _inverse(self, x: Any) -> Any:
        if self.binding == "cdt":
            self._no_inverse("inverse vector")
        xp = self.xp
        target = (-self._shift_of(x)) % self.dim
        position = xp.arange(self.dim, dtype=self._int, device=self.device)
        return xp.astype(position == target[..., None], self.dtype)

    def _identity(self) -> Any:
        if self.binding == "cdt":
            self._no_inverse("identity vector")
        # one 1 at position 0: s(e) = 0, so bind(a, e) == a
        position = self.xp.arange(self.dim, device=self.device)
        return self.xp.astype(position == 0, self.dtype)


def _shift_right(xp: Any, x: Any, k: int, device: Any) -> Any:
    """``x`` moved ``k`` places to the right along the last axis (not cyclic), -1 filled in."""
    fill = xp.full((*x.shape[:-1], k), -1, dtype=x.dtype, device=device)
    return xp.concat([fill, x[..., :-k]], axis=-1)


def _n_active(dim: Any, density: Any) -> int:
    """``M``, the number of ones of a random vector, from ``dim`` and the ``density`` option."""
    if isinstance(dim, (int, np.integer)) and not isinstance(dim, (bool, np.bool_)) and dim > 0:
        if density is None:
            return max(1, round(math.sqrt(dim)))
        if isinstance(density, (bool, np.bool_)) or not isinstance(density, numbers.Real):
            raise TypeError(f"density must be a number in (0, 1), got {type(density).__name__} {density!r}")
        if not 0 < density < 1 or math.isnan(density):
            raise ValueError(f"density must be in (0, 1), got {density}")
        return min(int(dim), max(1, round(density * dim)))
    return 1  # the base class explains a bad dim
