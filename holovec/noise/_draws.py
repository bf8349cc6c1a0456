"""The random numbers of the noise: exactly ``k`` positions per row, and normals, from
holovec's counter-based generator (:mod:`holovec.random`), so that the same seed gives the
same noise on every backend and device, row ``i`` independent of how many rows there are.

Addressing: every draw of this package has the purpose :data:`PURPOSE` and one stream per
kind of noise (:data:`FLIP`, :data:`STUCK`, :data:`GAUSSIAN`, :data:`PHASE`), so that two
noises with one seed choose their positions independently of each other and of every
other draw of holovec (models, encoders).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from .. import kernels
from ..backends import get_backend
from ..random import Purpose, check_seed, random_normal, random_words

__all__ = ["FLIP", "GAUSSIAN", "PHASE", "PURPOSE", "STUCK", "count", "noise_seed", "normals", "positions"]

#: the generator's purpose of noise draws (no vector, tie-break or encoder draw shares it)
PURPOSE = Purpose.NOISE
#: the streams of the noises
FLIP, STUCK, GAUSSIAN, PHASE = 0, 1, 2, 3


def noise_seed(model: Any, seed: Any) -> int:
    """``seed`` checked, or for ``None`` the model's next spawned seed (fresh, or the next of
    a seeded model's sequence: reproducible like its unseeded draws)."""
    return model.spawn_seed() if seed is None else check_seed(seed)


def count(fraction: float, n_units: int) -> int:
    """The exact number of positions a fraction of ``n_units`` names: ``round(fraction *
    n_units)`` (Python's round, halves to even)."""
    return round(fraction * n_units)


def positions(backend: Any, seed: int, stream: int, n_rows: int, n_units: int, k: int) -> Any:
    """A boolean mask ``(n_rows, n_units)`` with exactly ``k`` True in every row: row ``r``
    holds the ``k`` positions of least random key among the row's ``n_units`` keys (31
    random bits each, ties to the lower position), the same on every backend.

    The mask is made where the rows live (``kernels.generate_rows``: Dask's chunks on
    their workers), else on the backend's device."""
    made = kernels.generate_rows(
        backend, partial(_host_positions, seed, stream, n_units, k), n_rows, n_units, np.dtype(bool)
    )
    return _positions(backend, seed, stream, 0, n_rows, n_units, k) if made is None else made


def _positions(backend: Any, seed: int, stream: int, start: int, n_rows: int, n_units: int, k: int) -> Any:
    xp = backend.xp
    words = random_words(backend, seed, n_rows, n_units, row_start=start, stream=stream, purpose=PURPOSE)
    # 31 bits as int32: every framework sorts int32 (torch has no uint32 sort)
    keys = xp.astype(words >> 1, backend.dtype("int32"))
    # a stable sort's order ranks equal keys by position, so the ranks agree everywhere
    order = xp.argsort(keys, axis=-1, stable=True)
    return xp.argsort(order, axis=-1, stable=True) < k


def _host_positions(seed: int, stream: int, n_units: int, k: int, start: int, stop: int) -> np.ndarray:
    """Rows ``start:stop`` of :func:`positions` on the host (a chunk of a partitioned array)."""
    return np.asarray(_positions(get_backend("numpy"), seed, stream, start, stop - start, n_units, k))


def normals(backend: Any, seed: int, stream: int, n_rows: int, n_units: int, dtype_name: str) -> Any:
    """Standard normal numbers ``(n_rows, n_units)`` of ``dtype_name`` (float32 or float64),
    equal across backends to float rounding (``holovec.random``'s Box-Muller)."""
    made = kernels.generate_rows(
        backend,
        partial(_host_normals, seed, stream, n_units, dtype_name),
        n_rows,
        n_units,
        np.dtype(dtype_name),
    )
    if made is not None:
        return made
    return random_normal(
        backend, seed, n_rows, n_units, backend.dtype(dtype_name), stream=stream, purpose=PURPOSE
    )


def _host_normals(seed: int, stream: int, n_units: int, dtype_name: str, start: int, stop: int) -> np.ndarray:
    host = get_backend("numpy")
    return np.asarray(
        random_normal(
            host,
            seed,
            stop - start,
            n_units,
            np.dtype(dtype_name),
            stream=stream,
            purpose=PURPOSE,
            row_start=start,
        )
    )
