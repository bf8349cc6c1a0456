"""Time series input for :class:`~holovec.learn.TimeSeriesEncoder` (private): checks of
series and timestamps, and the groups of equal length that a ragged list is encoded in."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import array_api_compat
import numpy as np
from sklearn.utils import check_array

from .._params import KNOWN_SHAPE
from ..backends.arrays import check_has_data, to_host
from ._data import is_framework_array, take_rows

__all__ = ["Ragged", "check_series", "check_timestamps", "host_series", "length_groups", "normalised_times"]


@dataclass(frozen=True)
class Ragged:
    """A list of series ``(n_channels, length_i)`` (host float64) of different lengths."""

    series: list[np.ndarray]

    def __len__(self) -> int:
        return len(self.series)

    def __getitem__(self, i: int) -> np.ndarray:
        return self.series[i]

    @property
    def n_channels(self) -> int:
        return int(self.series[0].shape[0])


def _as_3d(x: Any) -> Any:
    return x[:, None, :] if x.ndim == 2 else x


def _framework_series(X: Any, name: str) -> Any:
    """A torch or JAX array of series, checked where it is (no copy to the host)."""
    KNOWN_SHAPE.check("X", X)
    if getattr(X, "requires_grad", False) is True:
        X = X.detach()
    xp = array_api_compat.array_namespace(X)
    if xp.isdtype(X.dtype, "bool") or not xp.isdtype(X.dtype, ("real floating", "integral")):
        raise TypeError(f"{name}: X must hold real numbers, got dtype {X.dtype}")
    if X.ndim not in (2, 3) or X.shape[0] < 1 or X.shape[-1] < 1:
        raise ValueError(
            f"{name} needs series as an array (n_series, length) or (n_series, n_channels, length) "
            f"with at least one series and one time step, got shape {tuple(X.shape)}"
        )
    if xp.isdtype(X.dtype, "real floating") and not bool(xp.all(xp.isfinite(X))):
        raise ValueError(f"Input X contains NaN or infinity; {name} needs finite values.")
    return _as_3d(X)


def _ragged(X: list, name: str) -> Ragged | None:
    """A list of series of different lengths as :class:`Ragged`, or ``None`` if the series
    have one length (an array then serves)."""
    try:  # (framework arrays copied to the host, a tensor detached)
        parts = [np.asarray(s) if (host := to_host(s)) is None else host for s in X]
    except (TypeError, ValueError):
        return None
    if len(parts) < 1:
        return None
    _check_channel_counts(parts, name)
    if len({p.shape[-1] if p.ndim else -1 for p in parts}) <= 1:
        return None
    out = []
    for i, p in enumerate(parts):
        if p.ndim not in (1, 2):
            raise ValueError(
                f"{name}: series {i} has shape {p.shape}; each must be (length,) or (n_channels, length)"
            )
        with np.errstate(over="ignore", invalid="ignore"):  # (see check_series)
            out.append(check_array(np.atleast_2d(p), dtype=np.float64, input_name=f"X[{i}]"))
    return Ragged(out)


def _check_channel_counts(parts: list, name: str) -> None:
    """``ValueError`` naming the first series whose number of channels differs from the
    first series' (a series ``(length,)`` has one channel), instead of NumPy's
    "inhomogeneous shape" when the list becomes an array.

    Parameters
    ----------
    parts : list of ndarray
        The series, as host arrays (others than 1-D or 2-D are left to the later checks).
    name : str
        The estimator's name, for the message.
    """
    counts = [(i, p.shape[0] if p.ndim == 2 else 1) for i, p in enumerate(parts) if p.ndim in (1, 2)]
    found = sorted({c for _, c in counts})
    if len(found) <= 1:
        return
    (i0, c0), (i1, c1) = counts[0], next((i, c) for i, c in counts if c != counts[0][1])
    raise ValueError(
        f"{name}: the series have different numbers of channels {found}: series {i0} has {c0}, "
        f"series {i1} has {c1}; every series needs the same channels"
    )


def check_series(X: Any, name: str) -> Any:
    """``X`` as series of shape ``(n_series, n_channels, length)``: a host float64 array, a
    framework array (on its device), or :class:`Ragged` for a list of series of different
    lengths. ``(n_series, length)`` is one channel. ``ValueError``/``TypeError`` for
    anything else (NaN, infinity, other numbers of dimensions, no series or time steps)."""
    if isinstance(X, Ragged):  # (checked already: estimators check again before predicting)
        return X
    check_has_data(X, "X")
    if is_framework_array(X):
        return _framework_series(X, name)
    if isinstance(X, (list, tuple)):
        ragged = _ragged(X, name)
        if ragged is not None:
            return ragged
    # (scikit-learn's quick test of finiteness sums the values: finite ones near the float
    # limit overflow there, which it then checks one by one, so NumPy's warning is noise)
    with np.errstate(over="ignore", invalid="ignore"):
        X = check_array(X, dtype=np.float64, allow_nd=True, ensure_min_samples=1)
    if X.ndim != 3 and X.ndim != 2:
        raise ValueError(
            f"{name} needs series as an array (n_series, length) or (n_series, n_channels, length), "
            f"got {X.ndim} dimensions (shape {X.shape})"
        )
    if X.shape[-1] < 1 or X.shape[1] < 1:
        raise ValueError(f"{name}: found series with 0 time steps or channels (shape {X.shape})")
    return _as_3d(X)


def check_timestamps(timestamps: Any, X: Any, name: str) -> Any:
    """Timestamps for ``X`` (checked by :func:`check_series`) as host float64: an array
    ``(n_series, length)`` (or one ``(length,)`` row for every series), or for a ragged
    ``X`` a list of one row per series; each row finite and non-decreasing, its last time
    after its first (unless the series has one step). Real numbers (a NumPy, torch or JAX
    array, or a list), or NumPy datetimes and durations (their count of units);
    ``TypeError`` for anything else (complex, bool, strings)."""
    if timestamps is None:
        return None
    if isinstance(X, Ragged):
        if not hasattr(timestamps, "__len__") or isinstance(timestamps, str):
            raise TypeError(f"{name}: timestamps for a list of series must be a list of one row per series")
        if len(timestamps) != len(X):
            raise ValueError(f"{name}: {len(timestamps)} rows of timestamps for {len(X)} series")
        rows = [_host_times(t, name, f" of series {i}") for i, t in enumerate(timestamps)]
        for i, (t, s) in enumerate(zip(rows, X.series, strict=True)):
            _check_row_times(t[None, :] if t.ndim == 1 else t, (1, s.shape[-1]), name, i)
        return rows
    n, length = int(X.shape[0]), int(X.shape[-1])
    t = _host_times(timestamps, name, "")
    t = np.broadcast_to(t, (n, length)) if t.ndim == 1 and t.shape == (length,) else t
    _check_row_times(t, (n, length), name, None)
    return t


def _host_times(t: Any, name: str, which: str) -> np.ndarray:
    """Timestamps as host float64 (a framework's array copied, a tensor detached), or a
    ``TypeError`` naming what they hold instead of real numbers."""
    host = to_host(t)
    if host is None or host.dtype.kind not in "iufmM":
        what = type(t).__name__ if host is None else f"dtype {host.dtype}"
        raise TypeError(f"{name}: timestamps{which} must be real numbers (or NumPy datetimes), got {what}")
    return np.asarray(host.astype(np.int64) if host.dtype.kind in "mM" else host, dtype=np.float64)


def _check_row_times(t: np.ndarray, shape: tuple[int, int], name: str, index: int | None) -> None:
    which = "" if index is None else f" of series {index}"
    if t.shape != shape:
        raise ValueError(
            f"{name}: timestamps{which} have shape {t.shape}, expected {shape} (one time per step "
            "of each series, or one row for every series)"
        )
    if not np.all(np.isfinite(t)):
        raise ValueError(f"{name}: timestamps{which} contain NaN or infinity")
    if np.any(np.diff(t, axis=1) < 0) or (shape[1] > 1 and np.any(t[:, -1] <= t[:, 0])):
        raise ValueError(f"{name}: timestamps{which} must increase along each series (last after first)")


def normalised_times(stamps: np.ndarray | None, length: int) -> np.ndarray:
    """Times in [0, 1] per series: ``(1, length)`` evenly spaced without ``stamps``, else
    ``(n, length)``, each row's first time 0 and last 1."""
    if stamps is None:
        return np.linspace(0.0, 1.0, length)[None, :] if length > 1 else np.zeros((1, 1))
    if length == 1:
        return np.zeros((stamps.shape[0], 1))
    first, last = stamps[:, :1], stamps[:, -1:]
    return (stamps - first) / (last - first)


def length_groups(X: Ragged, stamps: list | None) -> Iterator[tuple[np.ndarray, np.ndarray, Any]]:
    """The series of ``X`` grouped by length: ``(index, series (g, C, L), stamps (g, L) or
    None)`` per length (a loop over the lengths, not the series)."""
    lengths = np.array([s.shape[-1] for s in X.series])
    for length in np.unique(lengths):
        index = np.flatnonzero(lengths == length)
        block = np.stack([X.series[i] for i in index])
        times = None if stamps is None else np.stack([np.atleast_2d(stamps[i])[0] for i in index])
        yield index, block, times


def host_series(X: Any, index: np.ndarray) -> list[np.ndarray]:
    """The series ``index`` of checked ``X`` as host float64 arrays ``(n_channels, length)``
    (only those rows of a framework's array are copied to the host; float64 holds every
    value exactly, so values beyond float32's range are scaled before MiniRocket's float32
    arithmetic rather than made infinite)."""
    if isinstance(X, Ragged):
        return [X.series[i] for i in index]
    return list(np.asarray(to_host(take_rows(X, index)), dtype=np.float64))
