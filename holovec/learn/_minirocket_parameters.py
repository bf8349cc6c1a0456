"""MiniRocket's parameters (private): the fixed kernels, the dilations for a training
length, and the fitted parameter set that :mod:`._minirocket` fits and convolves with.

The 84 kernels have length 9, weight -1 at six taps and 2 at three (every choice of
three of the nine taps); the dilations ``d`` are spaced exponentially up to
``(L - 1) / 8`` for the training length ``L``, each kernel's ``n_features // 84``
features split over them. The parameter set holds the channels summed for each (kernel,
dilation) pair and a bias per feature in a stated unit, checks them, and gives the views
the convolution reads (channel table, padding, each feature's dilation, the biases of
scaled series).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

__all__ = [
    "KERNELS",
    "MAX_DILATIONS",
    "N_KERNELS",
    "MiniRocketParameters",
    "channel_table_of",
    "fit_dilations",
]

#: the taps of weight 2 of the 84 kernels (the other six taps have weight -1), in order
KERNELS = np.array(list(itertools.combinations(range(9), 3)), dtype=np.int64)
N_KERNELS = len(KERNELS)
#: MiniRocket's default most dilations per kernel
MAX_DILATIONS = 32


@dataclass(frozen=True, eq=False)
class MiniRocketParameters:
    """MiniRocket's fitted parameters, in the layout of the authors' code (and of aeon's
    ``MiniRocket.parameters``): features are ordered by dilation, then kernel, then the
    kernel's features at that dilation; (kernel, dilation) pairs (combinations) by
    dilation, then kernel.

    Attributes
    ----------
    channel_counts : int ndarray (84 * n_dilations,)
        The number of channels summed for each combination.
    channel_indices : int ndarray (sum(channel_counts),)
        Those channels, combination after combination.
    dilations : int ndarray (n_dilations,)
    features_per_dilation : int ndarray (n_dilations,)
        Features of each kernel at each dilation.
    biases : float32 ndarray (n_features,)
        In units of ``2**exponent`` of the series' values.
    exponent : int, default 0
        The biases' unit (0: the series' own, as aeon's parameters; fitted on series of
        magnitudes beyond float32's comfort, the largest training series' power of two, so
        that float32 holds the biases).
    """

    channel_counts: np.ndarray
    channel_indices: np.ndarray
    dilations: np.ndarray
    features_per_dilation: np.ndarray
    biases: np.ndarray
    exponent: int = 0

    def __post_init__(self) -> None:
        counts = np.asarray(self.channel_counts, dtype=np.int64)
        object.__setattr__(self, "channel_counts", counts)
        object.__setattr__(self, "channel_indices", np.asarray(self.channel_indices, dtype=np.int64))
        object.__setattr__(self, "dilations", np.asarray(self.dilations, dtype=np.int64))
        object.__setattr__(self, "features_per_dilation", np.asarray(self.features_per_dilation, np.int64))
        object.__setattr__(self, "biases", np.asarray(self.biases, dtype=np.float32))
        if isinstance(self.exponent, bool) or not isinstance(self.exponent, (int, np.integer)):
            raise TypeError(f"the MiniRocket biases' exponent must be an int, got {self.exponent!r}")
        object.__setattr__(self, "exponent", int(self.exponent))
        n_dilations = len(self.dilations)
        if (
            len(self.features_per_dilation) != n_dilations
            or counts.shape != (N_KERNELS * n_dilations,)
            or np.any(counts < 1)
            or self.channel_indices.shape != (int(counts.sum()),)
            or np.any(self.channel_indices < 0)
            or self.biases.shape != (self.n_features,)
            or np.any(self.dilations < 1)
            or not np.all(np.isfinite(self.biases))
            or abs(self.exponent) > 4096
        ):
            raise ValueError(
                "MiniRocket parameters disagree in their sizes: 84 channel counts (each >= 1) per "
                "dilation, their channels (indices >= 0), positive dilations and a finite bias per "
                "feature (with an exponent of at most 4096 in magnitude) are needed"
            )

    @property
    def n_features(self) -> int:
        return N_KERNELS * int(self.features_per_dilation.sum())

    @property
    def n_channels(self) -> int:
        """The fewest channels a series needs (one more than the largest channel used)."""
        return int(self.channel_indices.max()) + 1

    def channel_table(self, n_channels: int) -> np.ndarray:
        """The channels of each combination, ``(n_combinations, max count)``, padded with
        ``n_channels`` (the index of a channel of zeros appended to the series)."""
        return channel_table_of(self.channel_counts, self.channel_indices, n_channels)

    def padded(self) -> np.ndarray:
        """Whether each feature's convolution is zero-padded ("same"), else "valid": the
        pairs alternate, ``(dilation index + kernel) % 2 == 0`` being padded."""
        pairs = (np.arange(len(self.dilations))[:, None] + np.arange(N_KERNELS)[None, :]) % 2 == 0
        return np.repeat(pairs.ravel(), np.repeat(self.features_per_dilation, N_KERNELS))

    def feature_dilations(self) -> np.ndarray:
        """Each feature's dilation."""
        return np.repeat(self.dilations, N_KERNELS * self.features_per_dilation)

    def thresholds(self, exponents: np.ndarray) -> np.ndarray:
        """The biases for series multiplied by ``2**-exponents[i]``: ``biases *
        2**(exponent - exponents[i])``, exact where float32 holds the result; past its
        range a bias is infinite (no scaled convolution reaches it) or rounds towards 0
        (below every scaled convolution's rounding).

        Parameters
        ----------
        exponents : int ndarray (n,)
            Each series' power of two (:func:`~._minirocket.series_exponents`).

        Returns
        -------
        float32 ndarray (n, n_features)
        """
        shift = self.exponent - np.asarray(exponents, dtype=np.int64)[:, None]
        with np.errstate(over="ignore", under="ignore"):
            return np.ldexp(self.biases.astype(np.float64)[None, :], shift).astype(np.float32)


def fit_dilations(length: int, n_features: int, max_dilations: int = MAX_DILATIONS) -> tuple:
    """The dilations for series of ``length`` steps, and each kernel's number of features
    at each: ``max_dilations`` exponents spaced evenly up to ``log2((length - 1) / 8)``
    (the widest kernel spans the series; at least dilation 1 for a series shorter than 9),
    rounded down, repeats merged with their features added up, the remainder of
    ``n_features // 84`` given one each to the first dilations."""
    per_kernel = n_features // N_KERNELS
    count = min(per_kernel, max_dilations)
    multiplier = per_kernel / count
    top = np.log2((length - 1) / 8) if length > 9 else 0.0
    dilations, repeats = np.unique(np.logspace(0, top, count, base=2).astype(np.int32), return_counts=True)
    per_dilation = (repeats * multiplier).astype(np.int32)
    per_dilation[: per_kernel - int(per_dilation.sum())] += 1  # (fewer than the dilations)
    return dilations.astype(np.int64), per_dilation.astype(np.int64)


def channel_table_of(counts: np.ndarray, indices: np.ndarray, n_channels: int) -> np.ndarray:
    """The channels of each combination, padded with ``n_channels``.

    Parameters
    ----------
    counts : int ndarray (n_combinations,)
        The number of channels of each combination (each at least 1).
    indices : int ndarray (sum(counts),)
        Those channels, combination after combination.
    n_channels : int
        The index that pads the rows (that of a channel of zeros appended to the series).

    Returns
    -------
    int64 ndarray (n_combinations, max(counts))
    """
    width = int(counts.max())
    table = np.full((len(counts), width), n_channels, dtype=np.int64)
    table[np.arange(width) < counts[:, None]] = indices
    return table
