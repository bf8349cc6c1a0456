"""Shape classes: how many rows a batch is padded to where every new shape compiles.

On a backend that compiles a program per array shape (``Backend.static_shapes``: JAX, where
even an eager op compiles once per shape), a batch of a new number of rows costs every
program of the work it goes through anew. Padding the leading axis to a power of two (a
*shape class*) lets a few programs serve every batch size, for at most twice the rows.
Elsewhere a batch keeps its size: padding would only cost work.

This module is the one place that rule lives: the learners' minibatches, the memories'
cues, the structures' queries, the resonator's products and the growth of row buffers all
pad through it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["pad_rows", "padded_length", "row_class"]


def row_class(n: int, *, minimum: int = 1, maximum: int | None = None) -> int:
    """The shape class of ``n`` rows: the next power of two at least ``n`` and ``minimum``,
    and at most ``maximum`` (``n`` itself where ``n`` reaches it).

    Parameters
    ----------
    n : int
        The rows of the batch (at least 0).
    minimum : int, default 1
        The fewest rows a padded batch has.
    maximum : int or None, default None
        The most rows a padded batch has (a batch of more rows keeps its size).

    Returns
    -------
    int
        The padded number of rows.

    Examples
    --------
    >>> from holovec.backends.shapes import row_class
    >>> [row_class(n) for n in (1, 2, 3, 5, 8, 9)]
    [1, 2, 4, 8, 8, 16]
    >>> row_class(3, minimum=16, maximum=256), row_class(200, maximum=256), row_class(300, maximum=256)
    (16, 256, 300)
    """
    if maximum is not None and n >= maximum:
        return n
    size = max(minimum, 1 << max(0, n - 1).bit_length())
    return size if maximum is None else min(size, maximum)


def padded_length(backend: Any, n: int) -> int:
    """The rows a batch of ``n`` is padded to on ``backend``: its shape class (:func:`row_class`)
    where the backend compiles per shape (``backend.static_shapes``), else ``n``.

    Parameters
    ----------
    backend : Backend
        The backend the batch is computed on.
    n : int
        The rows of the batch.

    Returns
    -------
    int
        The padded number of rows.
    """
    return row_class(n) if backend.static_shapes and n else n


def pad_rows(backend: Any, x: Any, *, minimum: int = 1) -> tuple[Any, int]:
    """``x`` ``(n, ...)`` padded to its shape class on a backend that compiles per shape
    (``backend.static_shapes``), with copies of its first row (valid values for whatever
    ``x`` holds, which zeros need not be), and ``n``; ``(x, n)`` itself elsewhere, or when
    ``n`` is already a class or 0. The caller keeps the first ``n`` rows of its results.

    Parameters
    ----------
    backend : Backend
        The backend of ``x``.
    x : array
        The batch, rows on axis 0.
    minimum : int, default 1
        The fewest rows a padded batch has (see :func:`row_class`).

    Returns
    -------
    tuple of (array, int)
        The padded batch and the number of rows of ``x``.
    """
    n = int(x.shape[0])
    size = row_class(n, minimum=minimum) if backend.static_shapes and n else n
    if size == n:
        return x, n
    # one gather (one program per new size), where a slice, a broadcast and a join are three
    index = np.concatenate([np.arange(n), np.zeros(size - n, dtype=np.int64)]).astype(np.int32)
    return backend.xp.take(x, backend.asarray(index), axis=0), n
