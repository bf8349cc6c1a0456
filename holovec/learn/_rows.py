"""A batch's rows of kept encodings, read block by block (private): see :class:`Rows`."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import kernels

#: where the backend computes eagerly on the CPU, a batch's rows of the kept encodings are
#: multiplied in blocks of about this many bytes (and at least MIN_BLOCK_ROWS rows, so that
#: the matrix library rounds each row as it does in one product), each gathered into the
#: cache and multiplied there, instead of gathered into one array that goes to memory and
#: back (measured on 2 cores: 1,024 of 1,257 rows at D=10,000 scored against 10 prototypes
#: in 5 ms, against 11 ms gathered with NumPy and 21 ms with torch)
ROW_BLOCK_BYTES = 2**23
MIN_BLOCK_ROWS = 64


class Rows:
    """The unit rows ``data[index]`` of a batch (``data``: kept encodings on the backend,
    ``index``: host row numbers), not gathered into one array: ``Space.product`` reads
    them block by block, and ``Space.add`` gathers only the rows that update a
    prototype. Made where the backend computes eagerly on the CPU (see
    ``Space.reads_blocks``); a learning rule takes it wherever it takes a batch's rows."""

    def __init__(self, space: Any, data: Any, index: np.ndarray) -> None:
        self.space, self.data, self.index = space, data, index
        self.on_backend = space.indices(index)
        self.shape = (len(index), data.shape[1])

    @property
    def lent_arrays(self) -> tuple[Any]:
        """The array a program lends to the NumPy twin (``Backend.program``): the encodings."""
        return (self.data,)

    def lent(self, views: list[Any]) -> Rows:
        """These rows on the space's NumPy twin, of the NumPy view of the encodings.

        Parameters
        ----------
        views : list of numpy.ndarray
            The NumPy view of :attr:`lent_arrays`.
        """
        return Rows(self.space.host_twin, views[0], self.index)

    def take(self, which: Any) -> Any:
        """The rows at positions ``which`` (a backend int array) of the batch, gathered."""
        xp = self.space.xp
        return xp.take(self.data, xp.take(self.on_backend, which, axis=0), axis=0)

    def subset(self, positions: np.ndarray) -> Rows:
        """The rows at host ``positions`` of the batch, as a :class:`Rows`."""
        return Rows(self.space, self.data, self.index[positions])

    def gathered(self) -> Any:
        """Every row of the batch, gathered into one array."""
        return self.space.xp.take(self.data, self.on_backend, axis=0)

    def product(self, M: Any) -> Any:
        """``data[index] @ M``, block by block (see ROW_BLOCK_BYTES)."""
        xp, backend = self.space.xp, self.space.backend
        n = len(self.index)
        row_bytes = self.data.shape[1] * np.dtype(self.space.dtype_name).itemsize
        blocks = max(1, n // max(MIN_BLOCK_ROWS, ROW_BLOCK_BYTES // max(1, row_bytes)))
        if blocks == 1:
            return kernels.matmul(backend, self.gathered(), M)
        cuts = [i * n // blocks for i in range(blocks + 1)]  # blocks of equal size, +-1 row
        rows = self.on_backend
        return xp.concat(
            [
                kernels.matmul(backend, xp.take(self.data, rows[a:b], axis=0), M)
                for a, b in itertools.pairwise(cuts)
            ],
            axis=0,
        )
