"""Each channel's value range, for :class:`~holovec.learn.TimeSeriesEncoder` (private): the
range learned from training series (widened for a constant channel, by a rule relative to
the data's own scale), the channels whose values leave it, and values mapped by it onto
[0, 1], every step safe for values near the float64 limit.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import kernels
from ._data import is_framework_array
from ._series import Ragged

__all__ = ["channel_extremes", "channel_ranges", "channels_outside", "unit_values"]

#: a channel whose training range is at most this fraction of its largest magnitude is
#: constant (relative, as scikit-learn's test of constant features: scale invariant)
_FLAT_RANGE = 1e-12


def channel_extremes(X: Any, backend: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each channel's smallest and largest value.

    Parameters
    ----------
    X : Ragged, ndarray (n, C, L) or array of ``backend``
        Checked series.
    backend : Backend
        The backend a framework array ``X`` belongs to.

    Returns
    -------
    low, high : float64 ndarray (C,)
        On the host.
    """
    if isinstance(X, Ragged):
        joined = np.concatenate(X.series, axis=1)
        return joined.min(axis=1), joined.max(axis=1)
    if is_framework_array(X):
        xp = backend.xp
        x = xp.astype(backend.asarray(X), kernels.default_float_dtype(backend))
        low = np.asarray(backend.to_numpy(xp.min(x, axis=(0, 2))), np.float64)
        return low, np.asarray(backend.to_numpy(xp.max(x, axis=(0, 2))), np.float64)
    return X.min(axis=(0, 2)), X.max(axis=(0, 2))


def channel_ranges(X: Any, backend: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each channel's training range: its extreme values, widened for a constant channel
    (so that other values map to distinct codes) by half its magnitude either side (for a
    channel of zeros, half the largest magnitude of any channel; 1/2 where every value is
    0). A channel is constant where its range is at most ``1e-12`` times its largest
    magnitude (a range of 0 included): relative to the data's own scale, so the ranges of
    the data times any constant are the ranges times that constant.

    Parameters
    ----------
    X : Ragged, ndarray (n, C, L) or array of ``backend``
        Checked training series.
    backend : Backend
        The backend a framework array ``X`` belongs to.

    Returns
    -------
    low, high : float64 ndarray (C,)
        On the host; a widened end past the float64 limit is clipped to it.
    """
    low, high = channel_extremes(X, backend)
    magnitude = np.maximum(np.abs(low), np.abs(high))
    # (halves: the range of values near the float64 limit would overflow)
    flat = ~(high / 2 - low / 2 > _FLAT_RANGE / 2 * magnitude)
    largest = float(magnitude.max())
    fallback = largest / 2 if largest > 0 else 0.5
    width = np.where(magnitude > 0, magnitude / 2, fallback)
    top = np.finfo(np.float64).max
    with np.errstate(over="ignore"):
        wide_low, wide_high = np.maximum(low - width, -top), np.minimum(high + width, top)
    return np.where(flat, wide_low, low), np.where(flat, wide_high, high)


def channels_outside(X: Any, low: np.ndarray, high: np.ndarray, backend: Any) -> np.ndarray:
    """The channels of ``X`` with a value below ``low`` or above ``high``.

    Parameters
    ----------
    X : Ragged, ndarray (n, C, L) or array of ``backend``
        Checked series.
    low, high : float64 ndarray (C,)
        The channels' ranges (:func:`channel_ranges`).
    backend : Backend
        The backend a framework array ``X`` belongs to.

    Returns
    -------
    int ndarray (n_outside,)
        Their indices, ascending.
    """
    smallest, largest = channel_extremes(X, backend)
    return np.flatnonzero((smallest < low) | (largest > high))


def unit_values(X: Any, low: np.ndarray, high: np.ndarray, backend: Any) -> Any:
    """Series of one length mapped channel by channel from ``[low, high]`` onto [0, 1],
    clipped. Host series are scaled in float64, whatever the backend's float; the halves
    of the values and of the range are used, as the range of values near the float limit
    would overflow (halving is exact, so the quotient is that of the whole values).

    Parameters
    ----------
    X : ndarray (n, C, L) or array of ``backend``
        Series of one length.
    low, high : float64 ndarray (C,)
        The channels' ranges (:func:`channel_ranges`).
    backend : Backend
        The backend the result is made on.

    Returns
    -------
    array (n, C, L)
        Of ``backend``'s default float dtype.
    """
    xp, wide = backend.xp, kernels.default_float_dtype(backend)
    half_low, half_high = low / 2, high / 2
    if isinstance(X, np.ndarray):
        u = np.clip((X / 2 - half_low[:, None]) / (half_high - half_low)[:, None], 0.0, 1.0)
        return backend.asarray(u, dtype=wide)
    start = backend.asarray(half_low, dtype=wide)[:, None]
    span = backend.asarray(half_high - half_low, dtype=wide)[:, None]
    return xp.clip((xp.astype(backend.asarray(X), wide) / 2 - start) / span, 0.0, 1.0)
