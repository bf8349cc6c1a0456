"""Top-k along the last axis, deterministic: equal scores lowest index first."""

from __future__ import annotations

from typing import Any


class TopK:
    """The top-k kernels of :class:`~holovec.backends.Backend` (a mixin: it uses the
    adapter's ``xp`` and ``dtype``)."""

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        """The ``k`` largest scores along the last axis and their indices, best first;
        equal scores in order of index (lowest first), so results are deterministic.

        This default sorts (a stable ``argsort``); backends override it with a partial
        selection (``argpartition``, ``topk``) that keeps the same order.
        """
        xp = self.xp
        k = min(int(k), scores.shape[-1])
        idx = xp.argsort(scores, axis=-1, descending=True, stable=True)[..., :k]
        return xp.take_along_axis(scores, idx, axis=-1), idx

    def merge_top_k(self, low: tuple[Any, Any], high: tuple[Any, Any], k: int) -> tuple[Any, Any]:
        """The ``k`` best of two candidate lists ``(scores, indices)`` (each best first, along
        the last axis), where every index in ``low`` is below every index in ``high`` (two
        consecutive ranges of items): scores descending, equal scores lowest index first,
        as one :meth:`top_k` over both ranges would give them."""
        xp = self.xp
        scores = xp.concat([low[0], high[0]], axis=-1)
        indices = xp.concat([low[1], xp.astype(high[1], low[1].dtype)], axis=-1)
        best, pos = self.top_k(scores, k)  # stable: low's candidates first among equals
        return best, xp.take_along_axis(indices, pos, axis=-1)

    def _top_k_from_kth(self, scores: Any, k: int, kth: Any) -> tuple[Any, Any]:
        """Top-k given the k-th largest score of each row (``kth``, shape ``(..., 1)``):
        every score above it, then the lowest-index scores equal to it, sorted stably
        (the tie path of the backends' partial selections)."""
        xp = self.xp
        above = scores > kth
        equal = scores == kth
        need = k - xp.sum(xp.astype(above, self.dtype("int32")), axis=-1, keepdims=True)
        take = above | (equal & (xp.cumulative_sum(xp.astype(equal, self.dtype("int32")), axis=-1) <= need))
        rows = scores.shape[:-1]
        cols = xp.nonzero(xp.reshape(take, (-1, scores.shape[-1])))[1]
        idx = xp.reshape(cols, (*rows, k))
        values = xp.take_along_axis(scores, idx, axis=-1)
        order = xp.argsort(values, axis=-1, descending=True, stable=True)
        return xp.take_along_axis(values, order, axis=-1), xp.take_along_axis(idx, order, axis=-1)
