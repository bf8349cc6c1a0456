"""Activation of a sparse distributed memory's hard locations: distances, the default
radius and the 0/1 activation matrices, in chunks of addresses.

The distance of two vectors is ``dim * (1 - similarity) / 2``: the Hamming distance for
BSC and for +-1 MAP vectors, and the same scale (0 equal, ``dim / 2`` unrelated, ``dim``
opposite) for the other models. A location is active for an address at a distance of at
most the radius.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import kernels

#: element kinds whose distances are Hamming distances, so that the distance of a random
#: vector to a fixed one is exactly Binomial(dim, 1/2)
BINOMIAL_KINDS = ("binary", "bipolar")
#: distances sampled at most to estimate the default radius of the other models
_RADIUS_SAMPLES = 2**20


def binomial_tail(n: int, r: float) -> float:
    """``P[Binomial(n, 1/2) <= r]``: the probability that a random binary vector lies within
    Hamming distance ``r`` of a fixed one (Kanerva's activation probability).

    Summed in log space from ``log C(n, k) = sum_{j < k} log((n - j) / (j + 1))`` (a
    cumulative sum, relative error about ``n * 1e-16``), so it is exact to float precision
    for every ``n``, with no overflow and no SciPy."""
    k_max = math.floor(r)
    if k_max < 0:
        return 0.0
    if k_max >= n:
        return 1.0
    j = np.arange(k_max, dtype=np.float64)
    log_comb = np.concatenate(([0.0], np.cumsum(np.log(n - j) - np.log(j + 1))))
    top = log_comb.max()
    return float(min(1.0, math.exp(top - n * math.log(2)) * np.exp(log_comb - top).sum()))


def binomial_radius(n: int, probability: float) -> int:
    """The integer radius ``r`` whose :func:`binomial_tail` is nearest ``probability`` on a
    log scale (activation probabilities span orders of magnitude)."""
    j = np.arange(n, dtype=np.float64)
    log_comb = np.concatenate(([0.0], np.cumsum(np.log(n - j) - np.log(j + 1))))
    log_tail = np.logaddexp.accumulate(log_comb) - n * math.log(2)  # log P[Bin <= r], r = 0..n
    return int(np.argmin(np.abs(log_tail - math.log(probability))))


def default_probability(n_locations: int) -> float:
    """The activation probability of the default radius: ``1 / sqrt(n_locations)``.

    Kanerva's design (1988: dim 1000, a million locations, radius 451) activates about one
    location in a thousand, ``1 / sqrt(M)``, so that each address reaches ``sqrt(M)``
    locations. His signal-to-noise ratio of a read at a stored address after ``T`` writes,
    ``SNR^2 = M / (1/p + T (1 + M p^2))`` (Kanerva 1993), is largest at
    ``p = (2 M T)^(-1/3)``; ``T`` is not known when the memory is made, and at
    ``p = 1 / sqrt(M)`` the noise term ``sqrt(M) + 2 T`` is at most twice the optimum's
    ``T + 1.5 (2 M T)^(1/3)`` for every ``T >= sqrt(M) / 2`` (equal there), so the capacity
    at any required SNR is within a factor 2 of the best radius's."""
    return 1.0 / math.sqrt(n_locations)


def default_radius(model: Any, locations: Any, probability: float) -> float:
    """The radius at which a random address activates about ``probability`` of the
    locations: by the exact binomial for binary and bipolar models, else the midpoint
    between two neighbouring order statistics of the distances among the (random)
    locations themselves, the ``probability`` quantile of a random pair's distance."""
    dim, n = model.dim, locations.shape[0]
    if model.element_kind in BINOMIAL_KINDS:
        return float(binomial_radius(dim, probability))
    if n < 2:
        return float(dim)  # one location: every address activates it
    rows = min(n, max(1, _RADIUS_SAMPLES // (n - 1)))
    sims = model.backend.to_numpy(model.similarity_matrix(locations[:rows], locations)).astype(np.float64)
    keep = np.ones(sims.shape, dtype=bool)
    keep[np.arange(rows), np.arange(rows)] = False  # a location's distance to itself
    d = np.sort(dim * (1 - sims[keep]) / 2)
    k = min(max(1, round(probability * d.size)), d.size - 1)
    return float((d[k - 1] + d[k]) / 2)


def similarity_floor(dim: int, radius: float) -> float:
    """The least similarity of an active location: distance ``<= radius`` is similarity
    ``>= 1 - 2 radius / dim``, less a slack for the rounding of float similarities (far
    below the step ``2 / dim`` between Hamming distances)."""
    return 1 - 2 * radius / dim - min(2.0**-20, 0.5 / dim)


def address_bytes(model: Any, n_locations: int) -> int:
    """Temporary bytes per address of a chunk: its similarities, activations and sums."""
    width = 16 if model.xp.isdtype(model.sum_dtype, "complex floating") else 8
    return n_locations * (4 + 2 * width) + model.dim * 2 * width


def active(model: Any, addresses: Any, locations: Any, floor: float) -> Any:
    """Boolean activation matrix ``(n, n_locations)`` of 2-d addresses."""
    return model.similarity_matrix(addresses, locations) >= floor


def weighted_sum(model: Any, mask: Any, values: Any, transpose: bool) -> Any:
    """``mask @ values`` (or ``mask.T @ values``) for a 0/1 mask and lifted values, one
    matrix product: complex values are multiplied as their real view (half the work of a
    complex product, and the mask stays real)."""
    xp, backend = model.xp, model.backend
    complex_values = xp.isdtype(values.dtype, "complex floating")
    real = kernels.real_view(backend, values) if complex_values else values
    a = xp.astype(mask, real.dtype)
    if transpose:
        a = xp.matrix_transpose(a)
    out = kernels.matmul(backend, a, real)
    return kernels.complex_view(backend, out) if complex_values else out
