"""CGR: cyclic group representations (Yu et al. 2022, "Understanding hyperdimensional
computing for parallel single-pass learning", NeurIPS).

CGR has MCR's algebra (:mod:`holovec.models.mcr`: levels ``0 .. r-1`` of a cyclic group,
binding by addition modulo ``r``, the mean-cosine similarity and its search) and bundles by
the elementwise mode: each element of the bundle is the level that occurs most often
among the items there. The counts are integers, so the mode is the same bit for bit on
every backend; a tie between levels that occur equally often goes to the tied level of
least priority under the model's tie-break vector (a fixed random vector of levels from
the model's seed; :func:`~holovec.models.mcr.tie_priority`), as MCR's ties do.
"""

from __future__ import annotations

from typing import Any

from .mcr import MCR, tie_priority
from .registry import register_model

#: groups up to this order count each level in turn; larger ones compare the items pairwise
#: (``k * k`` comparisons an element, where counting would take ``r * k``)
LEVEL_COUNTING_MAX_R = 64


@register_model
class CGR(MCR):
    """MCR's levels and algebra (see :class:`MCR`), bundled by the elementwise mode.

    Laws: bind is elementwise addition modulo ``r`` (commutative; self-inverse only for
    ``r = 2``), ``unbind(bind(a, b), b) == a`` exactly, the identity is the zero vector;
    bundle is the most frequent level of each element (ties broken by a fixed random vector
    from the model's seed, see the module); similarity is the mean of
    ``cos(2 pi (a - b) / r)``, in [-1, 1]. Permutation is the cyclic shift.

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
    >>> model = VSA.create("CGR", dim=1000, r=16)
    >>> a, b, c = model.random(3, seed=1)
    >>> bool((model.unbind(model.bind(a, b), b) == a).all())
    True
    >>> s = model.bundle([a, a, b])
    >>> bool((s == a).all())
    True
    >>> s = model.bundle([a, b, c])
    >>> 0.2 < float(model.similarity(s, a)) < 0.6
    True
    """

    name = "CGR"

    def _bundle(self, stacked: Any) -> Any:
        xp, r, i32 = self.xp, self.r, self._int32
        x = self._levels(stacked)
        ties = xp.astype(self._tiebreak, i32)
        # the order of preference among levels of equal counts: the least tie priority (one
        # to one with the levels); as one key below r * r whose remainder mod r is the level
        if r <= LEVEL_COUNTING_MAX_R or r < x.shape[0]:
            return xp.astype(self._mode_by_levels(x, ties), self.dtype)
        counts = xp.sum(xp.astype(x[:, None] == x[None, :], i32), axis=1, dtype=i32)
        top = xp.max(counts, axis=0)
        key = tie_priority(xp, x, ties, r) * r + x
        key = xp.where(counts == top, key, r * r)
        return xp.astype(xp.remainder(xp.min(key, axis=0), r), self.dtype)

    def _mode_by_levels(self, x: Any, ties: Any) -> Any:
        """The mode of ``x`` (int32 levels, items on axis 0) by counting each level in turn."""
        xp, r, i32 = self.xp, self.r, self._int32
        best_count = best_key = None
        for level in range(r):  # a loop over the group's levels, each over every element
            count = xp.sum(xp.astype(x == level, i32), axis=0, dtype=i32)
            key = tie_priority(xp, level, ties, r) * r + level
            if best_count is None:
                best_count, best_key = count, key
                continue
            better = (count > best_count) | ((count == best_count) & (key < best_key))
            best_count = xp.where(better, count, best_count)
            best_key = xp.where(better, key, best_key)
        return xp.remainder(best_key, r)
