"""Arrays split over workers or devices (Dask chunks, JAX arrays sharded by rows): where
rows are made, gathered and searched. Every default is that of an array in one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Partitioned:
    """The partitioned-array hooks of :class:`~holovec.backends.Backend` (a mixin: it uses
    the adapter's ``xp`` and ``asarray``)."""

    def generate_rows(self, fn: Callable, n_rows: int, width: int, dtype: Any) -> Any | None:
        """Rows ``0 .. n_rows - 1`` of a draw, ``(n_rows, width)`` of ``dtype``, made chunk by
        chunk where the chunks live, with ``fn(start, stop)`` giving rows ``start:stop`` as an
        array of :attr:`block_backend_name` (a picklable callable of the caller); or ``None``
        where the backend makes its arrays in one place (this default: the caller draws
        them itself). The hook of :meth:`holovec.models.base.VSAModel.random` for lazily
        partitioned arrays (Dask): nothing is made where the call is made."""
        return None

    def chunk_rows(self, x: Any, row_bytes: int) -> Any:
        """``x`` with its rows (axis 0) grouped so that a result of ``row_bytes`` bytes per
        row stays within one chunk's budget, on backends that partition arrays into chunks
        (Dask: an encoder's inputs, a few bytes per row, would otherwise come in chunks of
        millions of rows, each encoded at once); ``x`` itself on the others (this default)."""
        return x

    def take_rows(self, x: Any, rows: Any) -> Any:
        """Rows ``rows`` (a 1-d NumPy int array) of ``x``, concrete and in one place: the
        rows of a partitioned array (Dask, sharded JAX) are gathered here."""
        return self.xp.take(x, self.asarray(rows), axis=0)

    def in_one_place(self, x: Any) -> Any:
        """``x`` as one array on this backend's device, where the framework can hold an array
        on several devices (JAX): an array replicated over several devices becomes its copy
        on this one (no transfer), one split over several is gathered here. ``x`` itself
        where it is in one place (this default). Retrieval takes replicated codebooks and
        queries this way, and brings results computed over several devices here."""
        return x

    def replicated_like(self, x: Any, like: Any) -> Any:
        """``x`` replicated over the devices that ``like`` is split over (JAX: queries made
        to meet a codebook sharded by rows, so that one computation spans both), or ``x``
        itself where ``like`` is in one place (this default)."""
        return x

    def is_partitioned(self, x: Any) -> bool:
        """Whether ``x`` is split by rows over workers or devices, so that a search of it is
        the backend's :meth:`partitioned_search` (Dask arrays, JAX arrays sharded by rows);
        False for an array in one place (this default)."""
        return False

    def shard_rows(self, x: Any, mesh: Any = None, axis_name: str = "rows") -> Any:
        """``x`` split by rows over the devices of a mesh (JAX; see
        :func:`holovec.retrieval.shard_rows`). A ``TypeError`` here: this backend holds
        no device meshes."""
        raise TypeError(f"the {self.name} backend has no device meshes; shard_rows is for JAX arrays")

    def partitioned_search(
        self, search_part: Callable, queries: Any, items: Any, k: int
    ) -> tuple[Any, Any] | None:
        """The search hook of :func:`holovec.retrieval.search` for items spread over
        workers or devices (:meth:`is_partitioned`): ``(scores, indices)`` of the ``k``
        best items of each query, or ``None`` where ``items`` is one array in one place
        (this default; the caller then searches it itself).

        A backend whose arrays can be partitioned by rows searches each part where it
        lives with ``search_part(queries, part, k, first_row) -> (scores, indices)`` (the
        caller's search of one array, with the model of the part's arrays; indices counted
        within the part; ``first_row`` numbers the rows an error names), shifts the
        indices by the part's first row, and keeps the ``k`` best candidates with equal
        scores ordered by lowest index (Dask: :meth:`merge_top_k` of neighbouring chunks
        in a tree, ``search_part`` pickled to the workers; JAX: ``search_part`` traced once
        and run on every device in ``shard_map``, then one stable top-k over the devices'
        candidates in device order). The result equals one search of the whole array,
        ties included, however the rows are split."""
        return None
