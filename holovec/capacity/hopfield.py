"""The capacity of the classical Hopfield network (Amit, Gutfreund and Sompolinsky 1985,
"Storing infinite numbers of patterns in a spin-glass model of neural networks", Phys. Rev.
Lett. 55; the equations in their 1987 Annals of Physics paper).

At zero temperature, a pattern retrieved at load ``alpha = patterns / dim`` has overlap
``m`` with the stored one, solving::

    m = erf(m / sqrt(2 alpha r)),   C = sqrt(2 / (pi alpha r)) exp(-m^2 / (2 alpha r)),
    r = 1 / (1 - C)^2.

With ``y = m / sqrt(2 alpha r)`` these give ``m = erf(y)`` and the load in closed form,
``alpha(y) = (erf(y) - 2 y exp(-y^2) / sqrt(pi))^2 / (2 y^2)``: retrieval states exist up
to the maximum of ``alpha(y)``, the critical load 0.138, and at a smaller load the
retrieval state is the root on the branch of large ``y``. Its fraction of wrong bits is
``(1 - m) / 2 = erfc(y) / 2`` (1.6 % at the critical load, where m = 0.967). Solved by bisection in NumPy
and ``math``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .._params import NON_NEGATIVE_INT, POSITIVE_INT

_erf = np.frompyfunc(math.erf, 1, 1)


def load_of(y: np.ndarray) -> np.ndarray:
    """``alpha(y)``: the load at which ``y = m / sqrt(2 alpha r)`` solves the equations."""
    y = np.asarray(y, dtype=np.float64)
    signal = np.asarray(_erf(y), dtype=np.float64) - 2.0 * y * np.exp(-(y**2)) / math.sqrt(math.pi)
    return signal**2 / (2.0 * y**2)


@functools.lru_cache(maxsize=1)
def critical_point() -> tuple[float, float]:
    """``(y_c, alpha_c)``: the maximum of ``alpha(y)``, by a grid and golden-section steps."""
    grid = np.linspace(0.05, 6.0, 1200)
    i = int(np.argmax(load_of(grid)))
    lo, hi = float(grid[max(i - 1, 0)]), float(grid[i + 1])
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(80):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if load_of(a) > load_of(b):
            hi = b
        else:
            lo = a
    y = (lo + hi) / 2.0
    return y, float(load_of(y))


def hopfield_critical_load() -> float:
    """The largest load ``patterns / dim`` at which stored patterns are retrieved (AGS):
    about 0.138.

    >>> round(hopfield_critical_load(), 3)
    0.138
    """
    return round(critical_point()[1], 10)


def hopfield_capacity(dim: int) -> int:
    """The number of patterns a Hopfield network of ``dim`` neurons retrieves: the critical
    load times ``dim`` (Amit, Gutfreund and Sompolinsky 1985: ``0.138 * dim``).

    >>> hopfield_capacity(10_000)
    1379

    Parameters
    ----------
    dim : int
        Number of neurons (the vectors' dimension).
    """
    dim = POSITIVE_INT.check("dim", dim)
    return math.floor(hopfield_critical_load() * dim)


def hopfield_error(n_patterns: int, dim: int) -> float:
    """The fraction of wrong bits of a stored pattern's retrieval state, ``(1 - m) / 2``, at
    load ``n_patterns / dim`` (the AGS zero-temperature solution; large ``dim``). Above the
    critical load there is no retrieval state and a recall ends far from the pattern: 0.5.

    >>> round(hopfield_error(50, 1000), 5)  # load 0.05
    0.0
    >>> round(hopfield_error(137, 1000), 3)  # near the critical load (0.1379)
    0.012
    >>> hopfield_error(200, 1000)
    0.5

    Parameters
    ----------
    n_patterns : int
        Number of stored patterns.
    dim : int
        Number of neurons (the vectors' dimension).
    """
    n_patterns = NON_NEGATIVE_INT.check("n_patterns", n_patterns)
    dim = POSITIVE_INT.check("dim", dim)
    alpha = n_patterns / dim
    y_c, alpha_c = critical_point()
    if alpha == 0.0:
        return 0.0
    if alpha > alpha_c:
        return 0.5
    lo, hi = y_c, max(y_c, 1.0)
    while load_of(hi) > alpha:  # alpha(y) falls as 1 / (2 y^2) on this branch
        lo, hi = hi, 2.0 * hi
    for _ in range(100):
        middle = (lo + hi) / 2.0
        lo, hi = (middle, hi) if load_of(middle) > alpha else (lo, middle)
    return math.erfc((lo + hi) / 2.0) / 2.0
