"""Top-k search over a row-chunked dask array: a local top-k per chunk, where the chunk
lives, and a binary tree of merges of consecutive candidate lists.

Only ``k`` candidates per query leave a chunk, so no score matrix of all items is ever
made, and the merges order equal scores lowest index first (``merge_top_k`` of
consecutive index ranges), so the result is the same however the rows are chunked.
Every task is pure: a task that Dask runs again (a worker lost mid-search) gives the
same candidates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import dask
import numpy as np

from ._dispatch import NUMPY
from .top_k import merge_top_k

#: a chunk may take at most this share of a worker's memory limit: the search needs the
#: chunk and its temporaries, and Dask pauses a worker at 80% of its limit
WORKER_MEMORY_SHARE = 0.5


def _local_top_k(
    search_part: Callable, queries: np.ndarray, part: np.ndarray, first: int, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """The candidates of one chunk: ``search_part``'s top-k, indices counted from row 0."""
    s, i = search_part(queries, part, k, first)
    return np.asarray(s), np.asarray(i).astype(np.int64, copy=False) + first


def _merge(low: tuple, high: tuple, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Candidates of two consecutive row ranges, merged (equal scores: ``low``'s first)."""
    return merge_top_k(NUMPY, low, high, k)


def worker_memory_limits() -> list[int] | None:
    """The memory limits (bytes) of the workers of the active ``dask.distributed`` client,
    or ``None`` where no client is active (threads of this process: no limit but the
    machine's) or the workers have none."""
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        client = get_client()
    except ValueError:  # no client: the local scheduler
        return None
    limits = [w.get("memory_limit") or 0 for w in client.scheduler_info()["workers"].values()]
    limits = [int(x) for x in limits if x]
    return limits or None


def check_chunks_fit(items: Any, what: str = "codebook") -> None:
    """``ValueError`` if a row chunk of ``items`` is larger than a worker can search (its
    memory limit times :data:`WORKER_MEMORY_SHARE`): checked before anything is submitted,
    where a worker would otherwise be killed and the task retried until Dask gives up."""
    limits = worker_memory_limits()
    if not limits:
        return
    row_bytes = items.dtype.itemsize * int(np.prod(items.shape[1:], dtype=np.int64))
    largest = max(items.chunks[0]) * row_bytes
    allowed = int(min(limits) * WORKER_MEMORY_SHARE)
    if largest > allowed:
        raise ValueError(
            f"a chunk of the {what} holds {largest} bytes ({max(items.chunks[0])} rows), more than "
            f"{WORKER_MEMORY_SHARE:.0%} of the smallest worker memory limit ({min(limits)} bytes); "
            f"rechunk it into smaller row chunks, e.g. items.rechunk({{0: {max(1, allowed // row_bytes)}}})"
        )


def partitioned_top_k(
    search_part: Callable, queries: np.ndarray, items: Any, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(scores, indices)`` ``(n_q, min(k, n))`` of the best items for each query over a
    dask array ``items`` chunked by rows only: ``search_part(queries, chunk, k)`` on each
    chunk (on the worker that holds it), then pairwise merges up a binary tree, computed
    on the active scheduler. Equal to one search of all the rows, ties included."""
    if items.shape[0] == 0:
        raise ValueError("cannot search an empty set of items")
    check_chunks_fit(items)
    blocks = items.to_delayed().reshape(-1)
    firsts = np.cumsum((0, *items.chunks[0][:-1]))
    q = dask.delayed(queries, pure=True)  # one key in the graph, sent once per worker
    local = dask.delayed(_local_top_k, pure=True)
    merge = dask.delayed(_merge, pure=True)
    level = [
        local(search_part, q, block, int(first), k)
        for block, first, size in zip(blocks, firsts, items.chunks[0], strict=True)
        if size
    ]
    while len(level) > 1:  # neighbours only: every merge joins consecutive row ranges
        paired = [merge(level[j], level[j + 1], k) for j in range(0, len(level) - 1, 2)]
        level = paired + ([level[-1]] if len(level) % 2 else [])
    (found,) = dask.compute(level[0])
    return found
