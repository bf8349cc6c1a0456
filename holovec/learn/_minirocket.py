"""MiniRocket's convolution features, kept per time step (private): the biases fitted on
training series, the indicators ``[conv[t] > bias]`` whose mean over time is MiniRocket's
PPV feature, and their encoding bound to time codes (HDC-MiniROCKET).

MiniRocket (Dempster, Schmidt and Webb, KDD 2021) convolves a series with 84 fixed
kernels at a few dilations (:mod:`._minirocket_parameters`: the kernels, the dilations
and the fitted parameters' layout). The convolution is "same" size (zeros outside the
series) for half of the (kernel, dilation) pairs, alternately, and "valid" (only the
steps ``4d <= t < L - 4d`` where the kernel lies inside the series) for the others. Each
feature has a bias: a quantile, at a low-discrepancy sequence of levels, of the
convolution of a random training series. A multivariate series enters each (kernel,
dilation) pair as the sum of a random subset of its channels. The arithmetic is float32,
in the order of the authors' code (and aeon's), so that the features agree with theirs
up to ties (the channels of a pair are summed before the convolution, not after: a
rounding difference).

The features are sign tests ``conv(x) > bias``, unchanged when the series and the bias
are multiplied by one positive number: each series is multiplied by a power of two that
brings its largest magnitude into ``[1/2, 1)`` (exact in floating point) before the
float32 cast, and its biases by the same power, so that series near the float limits
(float32 values near 1e38, float64 ones beyond float32's range, tiny ones) neither
overflow nor lose their precision, and the indicators are those of the unscaled
arithmetic wherever that one neither overflows nor underflows.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import dtype_name, get_backend
from ._minirocket_parameters import KERNELS, N_KERNELS, MiniRocketParameters, channel_table_of, fit_dilations

__all__ = [
    "encode",
    "fit_parameters",
    "indicators",
    "padded_series",
    "series_exponents",
    "step_weights",
    "window_indicators",
]

#: at most this many channels are summed for one (kernel, dilation) pair
MAX_CHANNELS = 9
_GOLDEN = (np.sqrt(5.0) + 1.0) / 2.0
#: fitted biases are kept in the series' own units (as aeon's) unless a training series'
#: magnitude is beyond ``2**this`` or below its inverse: float32 then holds every bias
_OWN_UNITS_EXPONENT = 64


def _exponents(magnitudes: Any) -> np.ndarray:
    """The powers of two ``k`` with ``magnitudes * 2**-k`` in ``[1/2, 1)`` (0 for 0).

    Parameters
    ----------
    magnitudes : array-like of float (n,)
        Finite, at least 0.

    Returns
    -------
    int64 ndarray (n,)
    """
    return np.frexp(np.asarray(magnitudes, dtype=np.float64))[1].astype(np.int64)


def series_exponents(x: Any, backend: Any) -> np.ndarray:
    """For each series, the power of two ``k`` that brings its largest magnitude into
    ``[1/2, 1)`` (0 for a series of zeros): :func:`padded_series` divides the series by
    ``2**k``, and :meth:`MiniRocketParameters.thresholds` the biases.

    Parameters
    ----------
    x : array (n, C, L)
        Finite real series, an array of ``backend``.
    backend : Backend
        The backend ``x`` belongs to.

    Returns
    -------
    int64 ndarray (n,)
        On the host.
    """
    xp = backend.xp
    x = xp.astype(x, _scaling_dtype(x, backend))
    return _exponents(backend.to_numpy(xp.max(xp.abs(x), axis=(1, 2))))


def _scaling_dtype(x: Any, backend: Any) -> Any:
    """The dtype series are scaled in: float64 for float64 series (they may lie beyond
    float32's range), else float32 (which holds every power of two a series needs).

    Parameters
    ----------
    x : array
        Series of ``backend``.
    backend : Backend
        The backend ``x`` belongs to.

    Returns
    -------
    dtype
        ``backend``'s float64 or float32.
    """
    return backend.dtype("float64" if dtype_name(x.dtype) == "float64" else "float32")


def _scaled(backend: Any, x: Any, exponents: np.ndarray) -> Any:
    """``x * 2**-exponents`` per series, exact: two factors, each inside the float range
    (one would not be, for float64 series near 1e-308 or float32 ones near 1e-45).

    Parameters
    ----------
    backend : Backend
        The backend ``x`` belongs to.
    x : array (n, C, L)
        Series in the dtype of :func:`_scaling_dtype`.
    exponents : int ndarray (n,)
        Each series' power of two (:func:`series_exponents`).

    Returns
    -------
    array (n, C, L)
        Of ``x``'s dtype.
    """
    if not np.any(exponents):
        return x
    first = (-exponents) // 2
    factors = [np.ldexp(1.0, first), np.ldexp(1.0, -exponents - first)]
    for f in factors:
        x = x * backend.asarray(f[:, None, None], dtype=x.dtype)
    return x


def fit_parameters(
    series: Any, n_series: int, n_channels: int, length: int, n_features: int, seed: int
) -> MiniRocketParameters:
    """MiniRocket's parameters for ``n_features`` features (a multiple of 84): dilations for
    ``length`` steps, and for each (kernel, dilation) a random subset of the
    ``n_channels`` channels and the biases, quantiles of the convolution of a random
    training series. ``series(index)`` gives the training series ``index`` (an int
    array) as a list of host float64 arrays ``(n_channels, length_i)``, each convolved in
    float32 after its scaling by a power of two (see the module's note). The draws come
    from NumPy's generator seeded by ``seed`` (host arithmetic: the same everywhere)."""
    rng = np.random.default_rng(seed)
    host = get_backend("numpy")  # (the fit's own convolutions run on the host)
    dilations, per_dilation = fit_dilations(length, n_features)
    n_pairs = N_KERNELS * len(dilations)
    top = np.log2(min(n_channels, MAX_CHANNELS) + 1)
    counts = (2 ** rng.uniform(0, top, n_pairs)).astype(np.int64)
    order = np.argsort(rng.random((n_pairs, n_channels)), axis=1)  # a random order per pair
    channels = order[np.arange(n_channels) < counts[:, None]]
    examples = rng.integers(n_series, size=n_pairs)
    unique, which = np.unique(examples, return_inverse=True)
    raw = [np.asarray(s, dtype=np.float64) for s in series(unique)]
    powers = _exponents([np.abs(s).max() if s.size else 0.0 for s in raw])
    chosen = [np.ldexp(s, -k).astype(np.float32) for s, k in zip(raw, powers.tolist(), strict=True)]
    # the biases in the series' own units where float32 holds them, else in the largest's
    exponent = 0 if np.abs(powers).max() <= _OWN_UNITS_EXPONENT else int(powers.max())
    table = channel_table_of(counts, channels, n_channels)
    n_features = N_KERNELS * int(per_dilation.sum())
    # low-discrepancy levels, float32 as the authors' (golden ratio multiples mod 1)
    levels = ((np.arange(1, n_features + 1) * _GOLDEN) % 1).astype(np.float32)
    biases = np.zeros(n_features, dtype=np.float32)
    lengths = np.array([chosen[i].shape[-1] for i in which])  # each pair's series' length
    start = 0
    for j, (dilation, count) in enumerate(zip(dilations.tolist(), per_dilation.tolist(), strict=True)):
        pairs = np.arange(j * N_KERNELS, (j + 1) * N_KERNELS)
        for size in np.unique(lengths[pairs]):  # (one length unless the training set is ragged)
            group = pairs[lengths[pairs] == size]
            kernels = group - j * N_KERNELS
            y = _pair_series(chosen, which[group], table[group], size)  # (g, size)
            window = np.pad(y, ((0, 0), (4 * dilation, 4 * dilation)))[None]  # (zeros past the ends)
            conv = _convolve(host, window, dilation, int(size), kernels, own=True)[0]
            features = start + kernels[:, None] * count + np.arange(count)  # (g, count)
            shift = (powers[which[group]] - exponent)[:, None]  # (each pair's series' scale)
            with np.errstate(over="ignore", under="ignore"):
                biases[features] = np.ldexp(_quantiles(conv, levels[features]), shift)
        start += N_KERNELS * count
    return MiniRocketParameters(counts, channels, dilations, per_dilation, biases, exponent)


def _quantiles(values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Each row's quantiles at its ``levels`` ``(g, k)``: linear interpolation between the
    row's sorted values (NumPy's default method), in float64."""
    ordered = np.sort(values.astype(np.float64), axis=-1)
    position = levels.astype(np.float64) * (values.shape[-1] - 1)
    low = np.floor(position).astype(np.int64)
    high = np.minimum(low + 1, values.shape[-1] - 1)
    a, b = np.take_along_axis(ordered, low, axis=-1), np.take_along_axis(ordered, high, axis=-1)
    return a + (b - a) * (position - low)


def _pair_series(chosen: list, which: np.ndarray, table: np.ndarray, size: int) -> np.ndarray:
    """The series of a group of pairs, ``(g, size)`` float32: for each pair the sum of its
    channels (``table`` rows, padded with the index of a channel of zeros) of its chosen
    training series, added in the table's order."""
    stack = np.stack([chosen[i] for i in which])  # (g, C, size)
    stack = np.concatenate([stack, np.zeros((len(which), 1, size), np.float32)], axis=1)
    rows = np.arange(len(which))
    total = stack[rows, table[:, 0]]
    for column in range(1, table.shape[1]):
        total = total + stack[rows, table[:, column]]
    return total


def _combined(backend: Any, x: Any, table: np.ndarray) -> Any:
    """The sums of channels ``(..., n_pairs, L)`` of series ``x`` ``(..., C + 1, L)`` (the
    last channel zeros) for the pairs' channel ``table`` ``(n_pairs, width)``, added in the
    table's order."""
    xp = backend.xp
    axis = x.ndim - 2
    total = xp.take(x, backend.asarray(table[:, 0]), axis=axis)
    for column in range(1, table.shape[1]):
        total = total + xp.take(x, backend.asarray(table[:, column]), axis=axis)
    return total


def _convolve(backend: Any, window: Any, dilation: int, steps: int, kernels: np.ndarray, *, own: bool) -> Any:
    """The convolutions ``(n, len(kernels), steps)`` with the ``kernels`` (rows of
    :data:`KERNELS`) at ``dilation`` of the ``window`` ``(n, rows, steps + 8 dilation)``
    of a series: from ``4 dilation`` before the first step wanted to as far after the last
    (zeros past the series' ends: the "same" convolution). Each kernel convolves its own
    row of the window (``own``, ``rows = len(kernels)``), or all the one row. As the
    authors compute it, in float32: ``-sum_j y[t + (j - 4) d]`` over the nine taps (the
    centre first), then ``3 y`` at the three taps of weight 2 added one by one."""
    xp = backend.xp
    n, rows = int(window.shape[0]), int(window.shape[1])
    taps = [window[..., j * dilation : j * dilation + steps] for j in range(9)]
    alpha = -taps[4]
    for j in (0, 1, 2, 3, 5, 6, 7, 8):
        alpha = alpha - taps[j]
    stacked = xp.reshape(xp.stack(taps, axis=2), (n, rows * 9, steps))
    base = (np.arange(len(kernels)) * 9) if own else np.zeros(len(kernels), dtype=np.int64)
    conv = alpha  # (broadcast to every kernel by the first sum where the window has one row)
    for tap in range(3):
        index = backend.asarray(base + KERNELS[kernels, tap])
        conv = conv + 3 * xp.take(stacked, index, axis=1)
    return conv


def padded_series(
    parameters: MiniRocketParameters, x: Any, backend: Any, exponents: np.ndarray | None = None
) -> Any:
    """Series each divided by its power of two, as float32 with the zeros that the widest
    kernel reaches past their ends (``4 * max dilation`` either side) and, for several
    channels, a channel of zeros appended (the index that pads the channel table): the
    input of :func:`window_indicators` (given the same ``exponents``).

    Parameters
    ----------
    parameters : MiniRocketParameters
        The fitted parameters (their dilations and channels).
    x : array (n, C, L)
        Finite real series of ``backend``.
    backend : Backend
        The backend ``x`` belongs to.
    exponents : int ndarray (n,) or None, default None
        Each series' power of two (:func:`series_exponents`); ``None``: computed here.

    Returns
    -------
    float32 array (n, C + 1 or 1, L + 8 * max dilation)
    """
    xp = backend.xp
    n, channels, length = (int(s) for s in x.shape)
    if channels < parameters.n_channels:  # (a gather past the channels: JAX would clamp it)
        raise ValueError(
            f"the MiniRocket parameters use {parameters.n_channels} channels; the series have {channels}"
        )
    exponents = series_exponents(x, backend) if exponents is None else exponents
    x = _scaled(backend, xp.astype(x, _scaling_dtype(x, backend)), exponents)
    x = xp.astype(x, backend.dtype("float32"))
    if channels > 1:
        x = xp.concat([x, xp.zeros((n, 1, length), dtype=x.dtype, device=backend.device)], axis=1)
    reach = 4 * int(parameters.dilations.max())
    pad = xp.zeros((n, int(x.shape[1]), reach), dtype=x.dtype, device=backend.device)
    return xp.concat([pad, x, pad], axis=-1)


def window_indicators(
    parameters: MiniRocketParameters,
    padded: Any,
    start: int,
    stop: int,
    backend: Any,
    exponents: np.ndarray | None = None,
) -> Any:
    """The per-step indicators ``conv[t] > bias`` at the steps ``start <= t < stop``, each
    scaled series against its biases scaled alike (:meth:`MiniRocketParameters.thresholds`).
    At the steps a "valid" feature does not cover (see :func:`step_weights`) the value is
    meaningless. Vectorised over series, kernels, features and steps (a loop over the
    dilations and the channels of a pair); the memory is that of the window's steps.

    Parameters
    ----------
    parameters : MiniRocketParameters
        The fitted parameters.
    padded : array (n, C + 1 or 1, L + 8 * max dilation)
        Series as :func:`padded_series` returns them.
    start, stop : int
        The steps wanted.
    backend : Backend
        The backend ``padded`` belongs to.
    exponents : int ndarray (n,) or None, default None
        The powers of two the series were divided by (``None``: they were not).

    Returns
    -------
    bool array (n, n_features, stop - start)
        On ``backend``.
    """
    xp = backend.xp
    n, steps = int(padded.shape[0]), stop - start
    shifts = np.zeros(1, dtype=np.int64) if exponents is None else np.asarray(exponents)
    thresholds = backend.asarray(parameters.thresholds(shifts))  # (n or 1, n_features)
    multichannel = int(padded.shape[1]) > 1
    table = parameters.channel_table(int(padded.shape[1]) - 1) if multichannel else None
    reach = 4 * int(parameters.dilations.max())
    kernels = np.arange(N_KERNELS)
    parts, first_feature = [], 0
    for j, (dilation, count) in enumerate(
        zip(parameters.dilations.tolist(), parameters.features_per_dilation.tolist(), strict=True)
    ):
        first = reach + start - 4 * dilation
        window = padded[..., first : first + steps + 8 * dilation]
        if multichannel:
            y = _combined(backend, window, table[j * N_KERNELS : (j + 1) * N_KERNELS])
            conv = _convolve(backend, y, dilation, steps, kernels, own=True)
        else:  # (one channel: every pair convolves it; the channel table is all zeros)
            conv = _convolve(backend, window, dilation, steps, kernels, own=False)
        last_feature = first_feature + N_KERNELS * count
        bias = xp.reshape(thresholds[:, first_feature:last_feature], (-1, N_KERNELS, count))
        above = conv[:, :, None, :] > bias[:, :, :, None]  # (n, 84, count, steps)
        parts.append(xp.reshape(above, (n, N_KERNELS * count, steps)))
        first_feature = last_feature
    return parts[0] if len(parts) == 1 else xp.concat(parts, axis=1)


def indicators(parameters: MiniRocketParameters, x: Any, backend: Any) -> Any:
    """:func:`window_indicators` at every step of series ``x`` ``(n, C, L)`` of ``backend``
    (any length ``L``; scaled and cast to float32): bool ``(n, n_features, L)``."""
    exponents = series_exponents(x, backend)
    padded = padded_series(parameters, x, backend, exponents)
    return window_indicators(parameters, padded, 0, int(x.shape[-1]), backend, exponents)


def step_weights(
    parameters: MiniRocketParameters, length: int, start: int = 0, stop: int | None = None
) -> np.ndarray:
    """Host float64 ``(n_features, stop - start)``: each feature's weight at the steps
    ``start <= t < stop`` (default: all) of a series of ``length`` steps, ``1 / n`` over
    the ``n`` steps its convolution covers (all ``length`` for a padded one, the steps
    ``4d <= t < length - 4d`` for a "valid" one), 0 elsewhere, so that the weighted sum of
    the indicators is MiniRocket's PPV. A "valid" feature whose kernel spans more than the
    series (``8d >= length``) covers no step: its weights are all 0."""
    reach = 4 * parameters.feature_dilations()
    first = np.where(parameters.padded(), 0, reach)
    end = np.where(parameters.padded(), length, length - reach)
    t = np.arange(start, length if stop is None else stop)
    covered = (t[None, :] >= first[:, None]) & (t[None, :] < end[:, None])
    return covered / np.maximum(end - first, 1)[:, None]


def encode(model: Any, parameters: MiniRocketParameters, x: Any, blocks: Any, *, shared_times: bool) -> Any:
    """HDC-MiniROCKET's vectors ``(n, vector_length)`` of series ``x`` ``(n, C, L)`` on
    ``model``'s backend: ``sum_t (w_t v_t) * time_t``, ``v_t`` the model vector of the
    +-1 indicators at step ``t`` and ``w_t`` their :func:`step_weights`. ``blocks`` yields
    ``(rows, steps, time codes)``: slices of the series and of the steps, every block of
    rows of one window of steps before the next window, and the codes ``(1 or b, s, D)``
    of those steps' times, or ``None`` for no time code; ``shared_times``: a window's
    codes are the same for every block of rows. Memory is that of one block (its
    indicators ``(b, F, s)``), whatever ``n`` and ``L``; each block's sum over its steps is
    added to its rows' total."""
    xp, backend = model.xp, model.backend
    length = int(x.shape[-1])
    exponents = series_exponents(x, backend)
    padded = padded_series(parameters, x, backend, exponents)
    codes = sign_codes(model)
    totals: dict[int, Any] = {}  # (rows' first index -> their sum so far, in order)
    window: Any = None
    picks: Any = None
    weights: Any = None
    for rows, steps, times in blocks:
        if steps != window:  # a new window of steps: its weights, and the picks made from them
            window, picks = steps, None
            host = step_weights(parameters, length, steps.start, steps.stop).T  # (s, F)
            weights = backend.asarray(host, dtype=model.real_dtype)
        above = window_indicators(parameters, padded[rows], steps.start, steps.stop, backend, exponents[rows])
        above = xp.permute_dims(above, (0, 2, 1))  # (b, s, F)
        if codes is None:  # (a model whose +-1 vectors are not elementwise: finish every step)
            vectors = model.lift(model.finish_sum(xp.astype(above, model.real_dtype) * 2.0 - 1.0)) * weights
            part = xp.sum(vectors if times is None else model.lift(model.bind(vectors, times)), axis=1)
        else:
            # binding elementwise with the same codes for every block: the two choices bound once
            once = times is None or (shared_times and model.bind_is_elementwise)
            if picks is None:
                picks = [c * weights for c in codes]
                if once and times is not None:
                    picks = [model.lift(model.bind(p, times[0])) for p in picks]
            bound = xp.where(above, picks[0], picks[1])
            part = xp.sum(bound if once else model.lift(model.bind(bound, times)), axis=1)
        totals[rows.start] = part if rows.start not in totals else totals[rows.start] + part
    parts = list(totals.values())
    out = parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
    return xp.astype(out, model.dtype)


def sign_codes(model: Any) -> tuple[Any, Any] | None:
    """``lift(finish_sum(+1))`` and ``lift(finish_sum(-1))`` ``(dim,)`` where the model
    vector of any +-1 array is theirs picked element by element (FHRR; HRR, whose scale is
    the same for every +-1 array: checked on a sign pattern), so that the indicators pick
    their elements without a ``finish_sum`` of every step; else ``None``."""
    backend = model.backend
    ones = backend.asarray(np.ones(model.dim), dtype=model.real_dtype)
    plus, minus = model.lift(model.finish_sum(ones)), model.lift(model.finish_sum(-ones))
    pattern = np.random.default_rng(0).random(model.dim) < 0.5
    probe = model.lift(model.finish_sum(backend.asarray(np.where(pattern, 1.0, -1.0), model.real_dtype)))
    picked = model.xp.where(backend.asarray(pattern), plus, minus)
    same = np.allclose(backend.to_numpy(probe), backend.to_numpy(picked), rtol=1e-5, atol=1e-7)
    return (plus, minus) if same else None
