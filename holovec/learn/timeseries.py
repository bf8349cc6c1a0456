"""TimeSeriesEncoder: univariate and multivariate time series as hypervectors, a
scikit-learn transformer and the ``encoder=`` of every holovec classifier."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import kernels
from .._params import NON_NEGATIVE, NONE, POSITIVE, Either, Flag, Interval, Options, fit_context
from ..backends import dtype_name
from ..encoders import FractionalPowerEncoder, LevelEncoder
from ..models import model_class, model_names
from ..random import check_seed, fold_in, fresh_seed
from ..vsa import VSA
from ._channel_ranges import channel_ranges, channels_outside, unit_values
from ._data import batches, is_framework_array, n_rows, take_rows
from ._docs import shared_parameters
from ._minirocket import encode, fit_parameters
from ._minirocket_parameters import N_KERNELS
from ._series import Ragged, check_series, check_timestamps, host_series, length_groups, normalised_times
from .encoding import HDEncoder, tiny_scale

__all__ = ["TimeSeriesEncoder"]

#: elements of one bound array (series x channels x steps x dim) encoded at once: blocks of
#: series, channels and steps bound the memory, whatever the number and length of the series
_CHUNK_ELEMENTS = 2**22
#: training series whose encodings give each element's mean and spread (``standardize``):
#: every one of a smaller training set, else this many drawn with the encoder's seed
STANDARDIZE_SAMPLES = 2048
#: ``time_bandwidth=None``: no time code on MiniRocket's features (where it is MiniRocket),
#: a time code as sharp as the value code on the values
DEFAULT_TIME_BANDWIDTH = {"minirocket": 0.0, "values": 8.0}


def _phasor_models() -> list[str]:
    return [name for name in model_names() if model_class(name).has_phasor_form]


@shared_parameters
class TimeSeriesEncoder(HDEncoder):
    """Time series as hypervectors: what the series does at each step, bound to the step's
    time, bundled.

    By default the steps' vectors hold MiniRocket's convolution features, standardised
    over the training series (below). With ``features="values"`` a series ``x[c, t]`` of
    ``C`` channels and ``L`` steps becomes the mean (the sum over
    ``C * L``, so that series of any length are comparable)

        ``h = 1/(C L) sum_{c, t} key_c * value_c(x[c, t]) * time(tau_t)``

    where ``*`` is the model's binding, ``key_c`` a random vector per channel,
    ``value_c`` a level code or a fractional power encoding (FPE) of the value scaled by
    the channel's training range to [0, 1], and ``time`` an FPE of the step's time
    ``tau_t`` normalised to [0, 1] over the series (evenly spaced, or from
    ``timestamps``). The similarity of ``time(a)`` and ``time(b)`` is
    ``sinc(time_bandwidth * (a - b))``: values at nearby times add up alike, so a series
    and its copy shifted by a fraction ``d`` of its length stay similar while
    ``d < 1 / time_bandwidth`` (HDC-MiniROCKET's time encoding, Schlegel, Neubert and
    Protzel 2022; ``time_bandwidth`` is their scale of the timestamps). At
    ``time_bandwidth=0`` every time code is the identity: a bag of the values.

    ``features="minirocket"`` encodes MiniRocket's convolution features instead of the
    values (HDC-MiniROCKET, Schlegel, Neubert and Protzel, IJCNN 2022). MiniRocket
    (Dempster, Schmidt and Webb, KDD 2021) convolves the series (a random subset of its
    channels summed, for a multivariate one) with 84 fixed kernels at dilations fitted
    to the longest training series, and thresholds each convolution at biases fitted on
    training series (the default): ``F = dim`` features, whose indicators ``v_t[f] = +1`` where the
    convolution exceeds the bias at step ``t``, else ``-1``, form a vector ``v_t`` of
    the model (``finish_sum`` of the +-1 array). They are bound to the time and averaged:

        ``h = sum_t (w_t v_t) * time(tau_t)``

    with the weights ``w_t[f] = 1/n_f`` (elementwise) over the ``n_f`` steps that
    feature ``f``'s convolution covers (all for a zero-padded one; those where the
    kernel lies inside the series for the others, as MiniRocket alternates), else 0.

    At ``time_bandwidth=0`` the element ``h[f]`` is ``2 PPV_f - 1`` (times the scale of
    the model's ``finish_sum``), where ``PPV_f`` is MiniRocket's feature (the proportion
    of steps above the bias): exactly MiniRocket; a positive ``time_bandwidth`` tells
    where in the series each pattern occurs (``timestamps`` place the steps' vectors in
    time; the convolutions take the steps as evenly spaced, as MiniRocket does). ``dim``
    must be a multiple of 84 (each kernel has ``dim // 84`` features; another dim is a
    ``ValueError``); the default is MiniRocket's 10,000 features rounded down as
    MiniRocket does: 9996. Series of any length encode: a feature whose kernel reaches
    past both ends of a shorter series without zero padding covers no step and gives 0;
    a series shorter than 9 steps at ``fit`` gets dilation 1. Its fitted parameters are
    ``minirocket_``.

    Needs a model with a phasor form (FHRR, HRR): the time encoding is an FPE. Output
    rows are vectors of the model (complex for FHRR; not unit phasors, a mean of them),
    which every holovec classifier takes as its ``encoder=``; in a
    :class:`~sklearn.pipeline.Pipeline`, follow it with a holovec classifier with
    ``encoder="precomputed"`` or use it as the classifier's encoder.

    Parameters
    ----------
    model : str, default "FHRR"
        A model with a phasor form (see above).
    dim : int or None, default None
        Dimension of the hypervectors (None: 10000; 9996 for ``features="minirocket"``).
    features : {"minirocket", "values"}, default "minirocket"
        What is bound to the time: MiniRocket's features, or the values of the channels
        (see above; with MiniRocket's features ``values``, ``value_bandwidth``, ``levels``
        and ``out_of_range`` are unused).
    values : {"fpe", "level"}, default "fpe"
        The value encoding: an FPE of ``value_bandwidth`` sinc widths across the channel's
        range (continuous), or ``levels`` level codes (:class:`~holovec.encoders.LevelEncoder`).
    value_bandwidth : float, default 8.0
        Sharpness of the value FPE: the similarity of two values ``d`` apart (a fraction of
        the range) is ``sinc(value_bandwidth * d)``.
    levels : int, default 32
        Number of levels of ``values="level"``.
    time_bandwidth : float or None, default None
        Sharpness of the time FPE, as above for times ``d`` apart (a fraction of the
        series); 0: no time code. None: 0 for MiniRocket's features (the encoding is then
        MiniRocket's, whose accuracy it reaches on the UCR sets; a positive value is
        HDC-MiniROCKET, which helps where when a pattern occurs tells the classes apart:
        tune it, for example with :class:`~sklearn.model_selection.GridSearchCV`), 8.0 for
        the values (without a time code they are a bag of values).
    standardize : bool, default True
        Centre each element of the encodings on its mean over the training series and
        divide it by its standard deviation there (where it varies), as MiniRocket's
        classifier standardises its features: a rare pattern's feature, which varies
        little, then weighs as much as a common one's. The statistics come from the
        encodings of the training series at ``fit`` (at most 2,048 of them, drawn with the
        seed), which encodes them once more; a single training series is not
        standardised.
    out_of_range : {"clip", "error"}, default "clip"
        Values outside a channel's training range at ``transform``: clipped to it (they
        encode as the range's ends, as a level code would), or a ``ValueError`` naming the
        channels.
    any_length : bool, default True
        Accept series of any length at ``transform`` (and lists of series of different
        lengths). With False the length seen at ``fit`` is required, and ``n_features_in_``
        is the length (scikit-learn's convention for a 2D ``X``).
    backend, device, random_state, seed, batch_size :
        As for :class:`~holovec.learn.HDEncoder` (``batch_size``: series per batch; within
        a batch, series, channels and steps are encoded in blocks of about ``2**22``
        elements of the bound arrays, so memory does not grow with the series' length).
    output : {"vectors", "real"}, default "vectors"
        What :meth:`transform` returns: the model's vectors, or real numbers for
        scikit-learn's estimators (FHRR's complex vectors as their real parts, then their
        imaginary parts): ``make_pipeline(TimeSeriesEncoder(output="real"),
        RidgeClassifierCV())`` works.

    Attributes
    ----------
    model_, seed_ : the model and the seed used
    value_min_, value_max_ : ndarray (n_channels,)
        The channels' training range (for a constant channel, whose range is at most
        ``1e-12`` of its magnitude, widened either side by half its magnitude).
    n_channels_ : int
    length_ : int or None
        The length at fit (``None`` for a ragged list).
    channel_keys_ : the channels' key vectors, ``(n_channels, vector_length)``
    minirocket_ : MiniRocket's fitted parameters (dilations, features per dilation,
        channels, biases; ``features="minirocket"`` only, else None)
    element_mean_, element_scale_ : ndarray or None
        Each element's mean over the training series' encodings (complex for a complex
        model) and its standard deviation (1 where it did not vary), ``(vector_length,)``
        each; None without ``standardize``.
    n_features_in_ : int (``any_length=False`` only)

    Examples
    --------
    >>> import numpy as np
    >>> from holovec.learn import CentroidClassifier, RidgeHDClassifier, TimeSeriesEncoder
    >>> t = np.linspace(0, 1, 50)
    >>> X = np.stack([np.sin(2 * np.pi * (2 + 3 * (k % 2)) * t + 0.05 * k) for k in range(20)])
    >>> y = np.arange(20) % 2
    >>> enc = TimeSeriesEncoder(dim=84 * 12, random_state=0)  # MiniRocket's features
    >>> enc.fit_transform(X).shape
    (20, 1008)
    >>> bool(RidgeHDClassifier(encoder=enc).fit(X, y).score(X, y) > 0.9)
    True
    >>> values = TimeSeriesEncoder(features="values", dim=1000, time_bandwidth=2.0, random_state=0)
    >>> bool(CentroidClassifier(encoder=values).fit(X, y).score(X, y) > 0.9)
    True
    """

    _dropped_parameters: ClassVar[tuple[str, ...]] = ("encoding", "bandwidth", "encoder")
    _defaults: ClassVar[dict[str, Any]] = {
        "features": "minirocket",
        "values": "fpe",
        "value_bandwidth": 8.0,
        "levels": 32,
        "time_bandwidth": None,
        "standardize": True,
        "out_of_range": "clip",
        "any_length": True,
        "batch_size": 256,
    }

    # (merged with HDEncoder's, less the parameters dropped)
    _parameter_rules: ClassVar[dict[str, Any]] = {
        "features": Options("minirocket", "values"),
        "values": Options("fpe", "level"),
        "value_bandwidth": POSITIVE,
        "levels": Interval(2, integral=True),
        "time_bandwidth": Either(NONE, NON_NEGATIVE),
        "out_of_range": Options("clip", "error"),
        "any_length": Flag(),
    }
    # the holovec encoder HDEncoder wraps: none; read by code written for HDEncoder (a
    # class default, not documented as an attribute)
    encoder = None
    # class defaults (``features`` and ``standardize`` are parameters): encoders pickled
    # before the parameters existed read them (they encoded values, unstandardised)
    features = "values"
    standardize = False

    # -- fit ----------------------------------------------------------------------------------
    @fit_context
    def fit(self, X: Any, y: Any = None) -> TimeSeriesEncoder:
        """Choose the seed, make the model and the codes, and learn the channels' ranges."""
        self.fit_checked(X)
        return self

    @fit_context
    def fit_checked(self, X: Any) -> Any:
        """:meth:`fit`, returning ``X`` as checked (see :meth:`check_input`)."""
        seed = self.chosen_seed()
        self.seed_ = check_seed(seed) if seed is not None else fresh_seed()
        rocket = self.features == "minirocket"
        dim = (N_KERNELS * (10000 // N_KERNELS) if rocket else 10000) if self.dim is None else self.dim
        model = VSA.create(self.model, dim, self.backend, device=self.device, seed=self.seed_)
        if not model.has_phasor_form:
            raise TypeError(
                f"TimeSeriesEncoder encodes time by a fractional power encoding, which needs a model "
                f"with a phasor form ({', '.join(_phasor_models())}); {model.name} has none"
            )
        if rocket and model.dim % N_KERNELS:
            low = max(N_KERNELS, model.dim // N_KERNELS * N_KERNELS)
            raise ValueError(
                f"TimeSeriesEncoder with features='minirocket' needs dim a multiple of {N_KERNELS} (its "
                f"{N_KERNELS} kernels have dim // {N_KERNELS} features each), got {model.dim}; use "
                f"{low} or {low + N_KERNELS} (MiniRocket's 10,000 features are dim=9996, the default)"
            )
        self.model_ = model
        self.encoder_ = None  # (no holovec encoder inside, as for HDEncoder's "precomputed")
        X = self._checked(X, reset=True)
        self.value_min_, self.value_max_ = channel_ranges(X, model.backend)
        self.n_channels_ = X.n_channels if isinstance(X, Ragged) else int(X.shape[1])
        self.length_ = None if isinstance(X, Ragged) else int(X.shape[-1])
        self.minirocket_ = None
        if rocket:  # dilations for the longest training series (sktime's reference_length="max")
            longest = max(s.shape[-1] for s in X.series) if isinstance(X, Ragged) else self.length_
            self.minirocket_ = fit_parameters(
                lambda index: host_series(X, index),
                n_rows(X),
                self.n_channels_,
                longest,
                model.dim,
                self._sub_seed("minirocket"),
            )
        self._make_codes()
        self._fit_standardization(X)
        return X

    def _fit_standardization(self, X: Any) -> None:
        """Each element's mean and standard deviation over the training series' encodings
        (at most :data:`STANDARDIZE_SAMPLES` series), merged batch by batch in float64 on
        the host (Chan, Golub and LeVeque's update: no sum of squares that cancels)."""
        self.element_mean_ = self.element_scale_ = None
        n = n_rows(X)
        if not self.standardize or n < 2:
            return
        rows = np.arange(n)
        if n > STANDARDIZE_SAMPLES:
            rng = np.random.default_rng(self._sub_seed("standardize"))
            rows = np.sort(rng.choice(n, STANDARDIZE_SAMPLES, replace=False))
        model = self.model_
        count, mean, m2 = 0, 0.0, 0.0
        for chunk in batches(len(rows), self.batch_size):
            picked = rows[chunk]
            part = take_rows(X, slice(picked[0], picked[-1] + 1) if len(rows) == n else picked)
            h = model.backend.to_numpy(self._encode_raw(part, None))
            h = h.astype(np.complex128 if np.iscomplexobj(h) else np.float64)
            b, part_mean = len(h), h.mean(axis=0)
            part_m2 = np.sum(np.abs(h - part_mean) ** 2, axis=0)
            delta = part_mean - mean
            m2 = m2 + part_m2 + np.abs(delta) ** 2 * (count * b / (count + b))
            mean, count = mean + delta * (b / (count + b)), count + b
        std = np.sqrt(m2 / count)
        eps = float(np.finfo(np.dtype(dtype_name(model.real_dtype))).eps)
        self.element_mean_ = mean
        self.element_scale_ = np.where(tiny_scale(std, mean, count, eps), 1.0, std)

    def _time_bandwidth(self) -> float:
        """``time_bandwidth``, or its default for the features (:data:`DEFAULT_TIME_BANDWIDTH`)."""
        if self.time_bandwidth is None:
            return DEFAULT_TIME_BANDWIDTH[self.features]
        return float(self.time_bandwidth)

    def _sub_seed(self, what: str) -> int:
        return fold_in(self.seed_, "timeseries", what) % 2**64

    def _make_codes(self) -> None:
        model = self.model_
        time_seed, value_seed = self._sub_seed("time"), self._sub_seed("values")
        self.time_encoder_ = None  # (time_bandwidth 0: every time code is the identity)
        bandwidth = self._time_bandwidth()
        if bandwidth > 0:
            self.time_encoder_ = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth, seed=time_seed)
        if self.values == "fpe":
            self.value_encoder_ = FractionalPowerEncoder(
                model, 0.0, 1.0, self.value_bandwidth, seed=value_seed
            )
        else:
            self.value_encoder_ = LevelEncoder(model, 0.0, 1.0, self.levels, seed=value_seed)
        self.channel_keys_ = model.random(self.n_channels_, seed=self._sub_seed("channels"))

    # the FPE encoders do not pickle (their codec holds the array module): they are made
    # again from the seed, which gives the same vectors
    _REMADE = ("time_encoder_", "value_encoder_")

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        return {k: v for k, v in state.items() if k not in self._REMADE}

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        if hasattr(self, "model_"):
            self._make_codes()

    # -- input --------------------------------------------------------------------------------
    def _checked(self, X: Any, *, reset: bool) -> Any:
        name = type(self).__name__
        if not self.any_length and not is_framework_array(X) and not isinstance(X, (list, tuple)):
            with np.errstate(over="ignore", invalid="ignore"):  # (near the float limit: see check_series)
                X = validate_data(
                    self, X, reset=reset, dtype=np.float64, allow_nd=True, skip_check_array=False
                )
        X = check_series(X, name)
        if not self.any_length:
            if isinstance(X, Ragged):
                raise ValueError(f"{name} with any_length=False needs series of one length")
            if reset:
                self.n_features_in_ = int(X.shape[-1])
            elif X.shape[-1] != self.length_:
                raise ValueError(
                    f"X has {X.shape[-1]} features, but {name} is expecting {self.length_} features "
                    "as input (time steps; any_length=True accepts series of any length)."
                )
        if not reset:
            channels = X.n_channels if isinstance(X, Ragged) else int(X.shape[1])
            if channels != self.n_channels_:
                raise ValueError(f"X has {channels} channels, but {name} was fitted on {self.n_channels_}")
        return X

    def check_input(self, X: Any) -> Any:
        """``X`` checked against the fit (channels; length if fixed; the range if
        ``out_of_range="error"``): series ``(n, C, L)`` for :meth:`encode_checked`."""
        check_is_fitted(self, "model_")
        X = self._checked(X, reset=False)
        if self.out_of_range == "error" and self.features == "values":
            bad = channels_outside(X, self.value_min_, self.value_max_, self.model_.backend)
            if bad.size:
                raise ValueError(
                    f"X: channels {bad.tolist()} have values outside their training range "
                    f"[{self.value_min_[bad].tolist()}, {self.value_max_[bad].tolist()}] "
                    "(out_of_range='clip' clips them to it)"
                )
        return X

    # -- encoding -----------------------------------------------------------------------------
    def transform(self, X: Any, timestamps: Any = None) -> Any:
        """The hypervectors of the series, ``(n_series, vector_length)`` on the model's
        backend. ``timestamps``: the time of each step, ``(n_series, length)`` or one
        ``(length,)`` row for all (a list of rows for a ragged ``X``): real numbers, or
        NumPy datetimes; each series' times are scaled to [0, 1]. Without them the steps
        are evenly spaced."""
        X = self.check_input(X)
        stamps = check_timestamps(timestamps, X, type(self).__name__)
        parts = []
        for rows in batches(n_rows(X), self.batch_size):
            part_stamps = None if stamps is None else take_rows(stamps, rows)
            parts.append(self._encode(take_rows(X, rows), part_stamps))
        return self.as_output(parts[0] if len(parts) == 1 else self.model_.xp.concat(parts, axis=0))

    def fit_transform(self, X: Any, y: Any = None, timestamps: Any = None) -> Any:
        """:meth:`fit`, then :meth:`transform` (with ``timestamps``)."""
        return self.fit(X).transform(X, timestamps=timestamps)

    def encode_checked(self, rows: Any) -> Any:
        """The encodings of rows of :meth:`check_input`'s result (evenly spaced steps)."""
        return self._encode(rows, None)

    def _encode(self, X: Any, stamps: Any) -> Any:
        """The encodings of checked series, standardised where :meth:`_fit_standardization`
        found the statistics."""
        H = self._encode_raw(X, stamps)
        if getattr(self, "element_mean_", None) is None:  # (also encoders pickled before it)
            return H
        backend = self.model_.backend
        mean = backend.asarray(self.element_mean_, dtype=self.model_.dtype)
        inverse = backend.asarray(1.0 / self.element_scale_, dtype=self.model_.real_dtype)
        return (H - mean) * inverse

    def _encode_raw(self, X: Any, stamps: Any) -> Any:
        if not isinstance(X, (Ragged, list)):
            return self._encode_block(X, stamps)
        X = X if isinstance(X, Ragged) else Ragged(list(X))
        xp = self.model_.xp
        parts, order = [], []
        for index, block, times in length_groups(X, stamps):
            parts.append(self._encode_block(block, times))
            order.append(index)
        out = xp.concat(parts, axis=0) if len(parts) > 1 else parts[0]
        inverse = np.argsort(np.concatenate(order))
        return xp.take(out, self.model_.backend.asarray(inverse), axis=0)

    def _encode_block(self, X: Any, stamps: np.ndarray | None) -> Any:
        """Series of one length ``(n, C, L)`` -> ``(n, vector_length)``: blocks of series,
        channels and steps encoded, bound and summed by broadcasting (no loop over series
        or steps), each block's sum added to its series' total."""
        if self.features == "minirocket":
            return self._encode_minirocket(X, stamps)
        model = self.model_
        xp, backend = model.xp, model.backend
        n, channels, length = (int(s) for s in X.shape)
        u = unit_values(X, self.value_min_, self.value_max_, backend)  # (n, C, L) in [0, 1]
        keys = model.lift(self.channel_keys_)
        group = min(channels, max(1, _CHUNK_ELEMENTS // model.vector_length))  # channels per block
        totals: dict[int, Any] = {}  # (rows' first index -> their sum so far, in order)
        for rows, steps, times in self._blocks(stamps, n, length, group * model.vector_length):
            for first in range(0, channels, group):
                some = slice(first, min(channels, first + group))
                values = self.value_encoder_.encode(u[rows, some, steps], clip=True)  # (b, g, s, D)
                bound = values if times is None else model.bind(values, times[:, None, :, :])
                per_channel = xp.sum(model.lift(bound), axis=2)
                # binding distributes over the sum (FHRR, HRR): each channel's key bound once
                part = xp.sum(model.bind(per_channel, keys[None, some, :]), axis=1)
                totals[rows.start] = part if rows.start not in totals else totals[rows.start] + part
        parts = [total * (1.0 / (channels * length)) for total in totals.values()]
        out = parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
        return xp.astype(out, model.dtype)

    def _blocks(self, stamps: np.ndarray | None, n: int, length: int, width: int) -> Any:
        """``(rows, steps, time codes)`` for blocks of series and steps of about
        ``_CHUNK_ELEMENTS`` elements, ``width`` per series and step: every block of rows of
        a window of steps before the next window, the codes ``(1 or b, s, D)`` of the
        steps' times (made once per window without ``stamps``), ``None`` at
        ``time_bandwidth=0``. The blocks depend on ``length`` and ``width`` only, so a
        series encodes the same whatever the batch it comes in."""
        backend = self.model_.backend
        wide = kernels.default_float_dtype(backend)
        per_window = min(length, max(1, _CHUNK_ELEMENTS // width))
        per_block = max(1, _CHUNK_ELEMENTS // (width * per_window))
        tau = normalised_times(stamps, length)  # host (1 or n, L)
        encoder = self.time_encoder_
        for start in range(0, length, per_window):
            steps = slice(start, min(length, start + per_window))
            shared = None
            if encoder is not None and stamps is None:
                shared = encoder.encode(backend.asarray(tau[:, steps], dtype=wide))  # (1, s, D)
            for first in range(0, n, per_block):
                rows = slice(first, min(n, first + per_block))
                if encoder is not None and stamps is not None:  # (each series' own times)
                    yield rows, steps, encoder.encode(backend.asarray(tau[rows, steps], dtype=wide))
                else:
                    yield rows, steps, shared

    def _encode_minirocket(self, X: Any, stamps: np.ndarray | None) -> Any:
        """MiniRocket's per-step indicators as +-1 vectors bound to the time codes and
        summed with their weights, in blocks of series and steps (see
        :func:`~._minirocket.encode`)."""
        n, _, length = (int(s) for s in X.shape)
        blocks = self._blocks(stamps, n, length, self.model_.vector_length)
        x = self.model_.backend.asarray(X)
        return encode(self.model_, self.minirocket_, x, blocks, shared_times=stamps is None)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.three_d_array = True
        return tags
