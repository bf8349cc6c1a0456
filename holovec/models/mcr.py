"""MCR: modular composite representations (Snaider and Franklin 2014).

An element is a level of the cyclic group of order ``r`` (an integer ``0 .. r-1``), read as
the phasor ``exp(2j * pi * x / r)``: MCR is FHRR with its phases on a grid of ``r`` steps,
stored as small integers. Binding adds levels modulo ``r`` and unbinding subtracts them,
both exactly, in integers. The similarity is the mean of ``cos(2 pi (a - b) / r)``; a
similarity matrix is the phasor identity ``cos(a - b) = cos a cos b + sin a sin b``, one
real matrix product of cosine and sine features (width ``2 * dim``) through the models'
search machinery (:mod:`holovec.models._search`).

The bundle is the phasor sum quantised back to the nearest level: the level ``l`` that
maximises ``sum_j cos(2 pi (x_j - l) / r)``. To be the same bit for bit on every backend,
that score is computed in integers, from a fixed-point table of the cosines (``2**K``
units per unit phasor, the table exactly even, odd and antisymmetric where the group's
symmetries say so): a float estimate of the sum's angle names three candidate levels,
and the integer scores decide among them. Symmetric configurations (two items an odd
number of levels apart, opposite items) tie exactly. Ties follow the model's tie-break
vector ``t`` (a fixed random vector of levels from the model's seed): of the tied levels
``v`` the one of least priority ``(tie_step(r) * v + t) mod r`` (:func:`tie_priority`, a
seeded order of the levels per element that is unrelated to their order on the circle, so
that bundles do not drift towards ``t`` or towards each other), and a sum that cancels
exactly takes ``t`` itself. :class:`~holovec.models.CGR` shares this module's algebra and
bundles by the elementwise mode instead.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import kernels
from .._params import Interval
from ..backends import dtype_name
from ..random import random_words
from ._memory import itemsize
from ._search import items_product
from ._values import int_range, kind
from .base import VSAModel
from .registry import register_model

#: the order of the group: at least 2, and small enough that differences of levels and the
#: tie-break keys stay in 32-bit integers on every backend (JAX has no 64-bit integers)
R_RULE = Interval(2, 2**15, integral=True)
#: the storage of the levels: the smallest dtype of the backends' (int16 is none) that holds ``r - 1``
STORAGE = (("uint8", 256), ("int32", 2**15))
#: fixed-point bits of the bundle's cosine table, where the items are few enough that
#: ``k * 2**FIXED_BITS`` stays below ``2**30``; more items use fewer bits (at least 8)
FIXED_BITS = 20
MIN_FIXED_BITS = 8


def storage_dtype(r: int) -> str:
    """The name of the smallest integer dtype that holds the levels ``0 .. r - 1``.

    Parameters
    ----------
    r : int
        The order of the cyclic group.
    """
    return next(name for name, levels in STORAGE if r <= levels)


def symmetric_cos_sin(r: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``cos`` and ``sin`` of ``2 pi v / r`` for ``v = 0 .. n - 1``, in float64, computed so that
    the group's symmetries hold exactly: ``cos`` even (``v`` and ``-v``) and ``sin`` odd,
    and both change sign half a turn on (``v + r/2``, even ``r``), as their fixed-point
    roundings then do too.

    Parameters
    ----------
    r : int
        The order of the cyclic group.
    n : int
        The number of entries (``r``, or ``2 r`` for differences of levels).
    """
    q = np.arange(n) % r
    a = np.minimum(q, r - q)  # the angle folded onto [0, pi]: a / r turns
    sign = np.where(q <= r - q, 1.0, -1.0)  # sin is odd
    near = 4 * a <= r  # [0, pi/2]: direct; (pi/2, pi]: by the supplement
    cos = np.where(near, np.cos(2 * np.pi * a / r), -np.cos(np.pi * (r - 2 * a) / r))
    sin = sign * np.where(near, np.sin(2 * np.pi * a / r), np.sin(np.pi * (r - 2 * a) / r))
    return cos, sin


def tie_step(r: int) -> int:
    """The multiplier of :func:`tie_priority`: the int nearest ``0.618 r`` (the golden
    ratio's, which spreads neighbouring levels far apart) that is prime to ``r``.

    Parameters
    ----------
    r : int
        The order of the cyclic group.
    """
    step = max(1, round(0.6180339887498949 * r))
    while math.gcd(step, r) != 1:
        step += 1
    return step


def tie_priority(xp: Any, levels: Any, ties: Any, r: int) -> Any:
    """``(tie_step(r) * levels + ties) mod r``: where levels tie in a bundle, the one of least
    priority wins. For each tie-break level ``ties`` it orders the ``r`` levels one to one
    (``tie_step`` is prime to ``r``), in an order unrelated to their order on the circle.

    Parameters
    ----------
    xp : namespace
        The array namespace.
    levels : array or int
        Levels (int32 ``0 .. r-1``).
    ties : array
        The tie-break vector's levels (int32), broadcast against ``levels``.
    r : int
        The order of the cyclic group.
    """
    return xp.remainder(levels * tie_step(r) + ties, r)


def lookup(xp: Any, table: Any, index: Any) -> Any:
    """``table[index]`` for an index array of any shape (int32), by one flat ``take``.

    Parameters
    ----------
    xp : namespace
        The array namespace.
    table : array
        A 1-d table.
    index : array
        Indices into it (int32), any shape.
    """
    flat = xp.take(table, xp.reshape(index, (-1,)), axis=0)
    return xp.reshape(flat, tuple(index.shape))


@register_model
class MCR(VSAModel):
    """Integer levels ``0 .. r-1`` of a cyclic group, read as phasors ``exp(2j pi x / r)``.

    Laws: bind is elementwise addition modulo ``r`` (commutative; self-inverse only for
    ``r = 2``), ``unbind(bind(a, b), b) == a`` exactly (subtraction modulo ``r``), the
    identity is the zero vector; bundle is the phasor sum quantised to the nearest level
    (exact integer scores, ties broken by a fixed random vector from the model's seed,
    see the module); similarity is the mean of ``cos(2 pi (a - b) / r)``, in [-1, 1].
    Permutation is the cyclic shift.

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str | Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    r : int, optional
        The order of the cyclic group (the number of levels): an int in ``[2, 32768]``.
        Levels are stored as uint8 for ``r <= 256``, else int32.
    **kwargs : object
        ``seed``, ``device``, ``dtype`` and the other options of :class:`VSAModel`.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("MCR", dim=1000, r=16)
    >>> a, b = model.random(seed=1), model.random(seed=2)
    >>> bool((model.unbind(model.bind(a, b), b) == a).all())
    True
    >>> bool((model.bind(a, b) == model.bind(b, a)).all())
    True
    >>> float(model.similarity(a, a))
    1.0
    >>> abs(float(model.similarity(a, b))) < 0.15
    True
    >>> s = model.bundle([a, b, model.random(seed=3)])
    >>> float(model.similarity(s, a)) > 0.3
    True
    """

    name = "MCR"
    is_self_inverse = False  # an instance attribute too: True for r = 2
    is_commutative = True
    is_exact_inverse = True
    default_dtype = "uint8"  # instances: storage_dtype(r)
    allowed_dtypes = ("uint8", "int32")
    option_names = ("r",)
    element_kind = "modular"
    _draw_bytes_per_element = 16.0  # the words and the 16-bit halves of their products
    exact_scores = False  # the cosine features' products round

    def __init__(self, dim: int, backend: Any = None, *, r: int = 16, **kwargs: Any) -> None:
        self.r = R_RULE.check("r", r)
        storage = storage_dtype(self.r)
        # instance attributes: the dtype and the self-inverse law depend on the option
        self.default_dtype = storage
        self.allowed_dtypes = (storage,)
        self.is_self_inverse = self.r == 2
        super().__init__(dim, backend, **kwargs)
        backend, r = self.backend, self.r
        self._int32 = backend.dtype("int32")
        # the dtype in which a sum or difference of two levels (below 2 r) is exact
        self._work = self.dtype if 2 * r - 1 <= int_range(self.dtype_name)[1] else self._int32
        cos, sin = symmetric_cos_sin(r, r)
        self._cos_table = backend.asarray(cos.astype(np.float32))
        self._sin_table = backend.asarray(sin.astype(np.float32))
        self._difference_cos = backend.asarray(symmetric_cos_sin(r, 2 * r)[0].astype(np.float32))
        # the fixed-point tables of the bundle (FIXED_BITS; fewer bits by a rounding shift)
        self._fixed_cos = backend.asarray(np.rint(cos * 2**FIXED_BITS).astype(np.int32))
        self._fixed_sin = backend.asarray(np.rint(sin * 2**FIXED_BITS).astype(np.int32))
        self._fixed_difference = backend.asarray(np.rint(np.tile(cos, 2) * 2**FIXED_BITS).astype(np.int32))

    def __repr__(self) -> str:
        return super().__repr__()[:-1] + f", r={self.r})"

    # -- values: the levels 0 .. r-1 ---------------------------------------------------------
    @property
    def allowed_values(self) -> str:
        """The values of an element, in words: the integers ``0 .. r-1``."""
        return f"integers 0 .. {self.r - 1}"

    def valid_elements(self, x: Any) -> Any | None:
        """True where an element of ``x`` is a level ``0 .. r-1`` (an integer, in any numeric
        dtype); None where every value of ``x``'s dtype is one (bool, uint8 for ``r = 256``)
        or where the test comes after the conversion (complex values).

        Parameters
        ----------
        x : array
            An array in this model's layout (any numeric dtype).
        """
        xp, top, what = self.xp, self.r - 1, kind(x.dtype)
        if what in ("int", "uint", "bool"):
            low, high = int_range(dtype_name(x.dtype)) if what != "bool" else (0, 1)
            valid = None
            if low < 0:
                valid = x >= 0
            if high > top:  # (top fits x's dtype here)
                below = x <= top
                valid = below if valid is None else valid & below
            return valid
        if what == "float":
            return xp.isfinite(x) & (x == xp.floor(x)) & (x >= 0) & (x <= top)
        return None

    # -- draws and the algebra ---------------------------------------------------------------
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        words = random_words(
            self.backend, seed, n_rows, self.dim, stream=stream, purpose=purpose, row_start=row_start
        )
        # the high word of word * r, floor(word * r / 2**32): uniform on 0 .. r-1 (exactly for
        # r a power of two), by 16-bit halves (r < 2**16), in integers every backend has alike
        r = self.r
        high = ((words >> 16) * r + (((words & 0xFFFF) * r) >> 16)) >> 16
        return self.xp.astype(high, self.dtype)

    def _reduce(self, s: Any) -> Any:
        """Levels of sums ``s`` in ``0 .. 2r - 1`` (work dtype) brought into ``0 .. r-1``."""
        xp = self.xp
        return xp.astype(xp.where(s >= self.r, s - self.r, s), self.dtype)

    def _bind(self, a: Any, b: Any) -> Any:
        xp, work = self.xp, self._work
        return self._reduce(xp.astype(a, work) + xp.astype(b, work))

    def _unbind(self, c: Any, b: Any) -> Any:
        xp, work = self.xp, self._work
        return self._reduce(xp.astype(c, work) + (self.r - xp.astype(b, work)))

    def _inverse(self, x: Any) -> Any:
        xp = self.xp
        return self._reduce(self.r - xp.astype(x, self._work))

    def _identity(self) -> Any:
        return self.xp.zeros(self.dim, dtype=self.dtype, device=self.device)

    def _normalize(self, x: Any) -> Any:
        # integers of your own arithmetic (sums of levels) as levels: their residues mod r
        xp = self.xp
        wide = self.backend.dtype("int32")
        return xp.astype(xp.remainder(xp.astype(x, wide), self.r), self.dtype)

    # -- the bundle: the phasor sum quantised to the nearest level (see the module) -----------
    def _fixed_tables(self, k: int) -> tuple[Any, Any, Any]:
        """The fixed-point cosine, sine and difference tables for a sum of ``k`` items:
        ``2**K`` units per unit phasor, ``K`` as large as keeps ``k * 2**K`` below ``2**30``
        (rounded from the ``FIXED_BITS`` tables half away from zero, which keeps their
        symmetries)."""
        bits = min(FIXED_BITS, 30 - int(k).bit_length())
        if bits < MIN_FIXED_BITS:
            raise ValueError(
                f"{self.name} bundles at most {2 ** (30 - MIN_FIXED_BITS) - 1} items at once, got {k}; "
                "bundle them in groups, then bundle the groups"
            )
        tables = (self._fixed_cos, self._fixed_sin, self._fixed_difference)
        shift = FIXED_BITS - bits
        if shift == 0:
            return tables
        xp, half = self.xp, 1 << (shift - 1)
        return tuple(xp.sign(t) * ((xp.abs(t) + half) >> shift) for t in tables)

    def _levels(self, x: Any) -> Any:
        """Elements as int32 levels: their residues mod r. Every path that reads levels reads
        them so, so that arrays of one's own arithmetic (off the levels) give the same
        similarity on every path, as ``normalize`` would make them."""
        return self.xp.remainder(self.xp.astype(x, self._int32), self.r)

    def _bundle(self, stacked: Any) -> Any:
        xp, r, i32 = self.xp, self.r, self._int32
        x = self._levels(stacked)
        cos, sin, difference = self._fixed_tables(x.shape[0])
        c = xp.sum(lookup(xp, cos, x), axis=0, dtype=i32)  # the sum, in fixed point: exact
        s = xp.sum(lookup(xp, sin, x), axis=0, dtype=i32)
        f32 = self.backend.dtype("float32")
        angle = xp.atan2(xp.astype(s, f32), xp.astype(c, f32))
        nearest = xp.astype(xp.round(angle * (r / (2 * math.pi))), i32)
        ties = xp.astype(self._tiebreak, i32)
        best = best_score = best_priority = None
        for offset in (r - 1, 0, 1):  # three candidate levels
            level = xp.remainder(nearest + offset, r)
            # sum_j cos(2 pi (x_j - level) / r), in fixed point: exact integers
            score = xp.sum(lookup(xp, difference, x + (r - level)), axis=0, dtype=i32)
            priority = tie_priority(xp, level, ties, r)
            if best is None:
                best, best_score, best_priority = level, score, priority
                continue
            better = (score > best_score) | ((score == best_score) & (priority < best_priority))
            best = xp.where(better, level, best)
            best_score = xp.where(better, score, best_score)
            best_priority = xp.where(better, priority, best_priority)
        cancelled = (c == 0) & (s == 0)  # an exact cancellation: every level ties
        return xp.astype(xp.where(cancelled, ties, best), self.dtype)

    # -- similarity: the mean cosine of the differences ----------------------------------------
    def _similarity(self, a: Any, b: Any) -> Any:
        xp, backend = self.xp, self.backend
        a, b = xp.broadcast_arrays(a, b)
        difference = self._levels(a) + (self.r - self._levels(b))  # in 1 .. 2r-1
        total = xp.sum(lookup(xp, self._difference_cos, difference), axis=-1)
        return kernels.clip(backend, kernels.divide(backend, total, self.dim), -1.0, 1.0)

    def features(self, x: Any) -> Any:
        """The real rows ``(..., 2 * dim)`` of cosines and sines of the levels, whose plain dot
        products are ``sum cos(2 pi (a - b) / r)``: the search operand.

        Parameters
        ----------
        x : array
            Vectors of the model, ``(..., dim)``.
        """
        xp, index = self.xp, self._levels(x)
        return xp.concat([lookup(xp, self._cos_table, index), lookup(xp, self._sin_table, index)], axis=-1)

    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        return self._search_scores(self.search_index(queries), self.search_index(items))

    def search_index(self, vectors: Any) -> tuple[Any]:
        """The search form of vectors ``(n, dim)``: their :meth:`features`, once per store.

        Parameters
        ----------
        vectors : array
            Vectors ``(n, dim)``.
        """
        return (self.features(vectors),)

    # (the products in blocks of a fixed number of items: a score never depends on the chunk)
    def _search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        dots = items_product(self, queries[0], items[0])
        return kernels.clip(self.backend, kernels.divide(self.backend, dots, self.dim), -1.0, 1.0)

    def score_operand(self, vectors: Any) -> Any:
        """The rows whose plain dot products are the similarity's numerators: the
        :meth:`features` (cosines and sines of the levels).

        Parameters
        ----------
        vectors : array
            Vectors of the model, ``(..., dim)``.
        """
        return self.features(vectors)

    @property
    def score_operand_width(self) -> int:  # type: ignore[override]
        """The width of :meth:`score_operand`'s rows: ``2 * dim`` (a cosine and a sine each)."""
        return 2 * self.dim

    def score_from_dots(self, dots: Any, squares_q: Any, squares_b: Any) -> Any:
        """The search score of dot products of :meth:`score_operand` rows: ``dots / dim``
        clipped to [-1, 1] (every row has squared norm ``dim``, so the norms are not read).

        Parameters
        ----------
        dots : array
            Dot products of ``score_operand`` rows of queries and items.
        squares_q : array
            Squared norms of the queries' rows (unused).
        squares_b : array
            Squared norms of the items' rows (unused).
        """
        return kernels.clip(self.backend, dots / self.dim, -1.0, 1.0)

    def _search_temp_bytes_per_item(self, n_queries: int) -> int:
        return 8 * n_queries  # the index holds the features already: only the scores

    def _matrix_temp_bytes_per_item(self, n_queries: int) -> int:
        # the features of a chunk of items (and their int32 levels), and its column of scores
        return 2 * self.dim * itemsize("float32") + 8 * self.dim + 8 * n_queries
