"""The retrieval probability of Gaussian scores (Frady, Kleyko and Sommer 2018), with NumPy
and ``math`` only: a fixed quadrature, so that every machine computes the same sums.

An item scores ``mu1 + sigma1 * h`` and each of ``n`` distractors an independent
``N(mu0, sigma0^2)``; the item is found when it beats them all::

    p = integral phi(h) Phi((mu1 - mu0 + sigma1 h) / sigma0) ^ n  dh
"""

from __future__ import annotations

import math

import numpy as np

#: the quadrature nodes (the trapezoid rule on [-10, 10]: phi is below 1e-22 outside, and
#: the integrand is smooth, so the rule is accurate far beyond the 1e-6 that matters)
NODES = np.linspace(-10.0, 10.0, 2001)
WEIGHTS = np.exp(-0.5 * NODES**2) / math.sqrt(2.0 * math.pi) * (NODES[1] - NODES[0])
WEIGHTS[[0, -1]] *= 0.5

_erfc = np.frompyfunc(math.erfc, 1, 1)


def normal_cdf(x: np.ndarray) -> np.ndarray:
    """``Phi(x)``, elementwise, from ``math.erfc`` (accurate in both tails)."""
    return np.asarray(_erfc(-np.asarray(x, dtype=np.float64) / math.sqrt(2.0)), dtype=np.float64) / 2.0


def log_normal_cdf(x: np.ndarray) -> np.ndarray:
    """``log Phi(x)``, elementwise, without cancellation in either tail."""
    x = np.asarray(x, dtype=np.float64)
    upper = np.asarray(_erfc(np.abs(x) / math.sqrt(2.0)), dtype=np.float64) / 2.0  # Phi(-|x|)
    with np.errstate(divide="ignore"):
        return np.where(x < 0, np.log(upper), np.log1p(-upper))


def found_probability(snr: float, spread_ratio: float, distractors: int) -> float:
    """The probability that an item beats ``distractors`` independent Gaussian scores.

    ``snr = (mu1 - mu0) / sigma0`` and ``spread_ratio = sigma1 / sigma0``.

    >>> round(found_probability(3.0, 1.0, 10), 4)
    0.8956
    >>> found_probability(1.0, 1.0, 0)
    1.0
    """
    if distractors == 0:
        return 1.0
    log_cdf = log_normal_cdf(snr + spread_ratio * NODES)
    p = float(np.sum(WEIGHTS * np.exp(distractors * log_cdf)))
    # a fixed rounding of the sum, so that a comparison with a target does not flip with
    # the last bits of a libm's exp or erfc
    return min(1.0, max(0.0, round(p, 12)))
