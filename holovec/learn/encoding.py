"""HDEncoder: feature matrices (or any holovec encoder's input) as hypervectors, a
scikit-learn transformer."""

from __future__ import annotations

import math
import secrets
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from .._params import (
    KNOWN_SHAPE,
    NONE,
    POSITIVE,
    POSITIVE_INT,
    Either,
    Flag,
    InstanceOf,
    Options,
    fit_context,
)
from ..backends import dtype_name
from ..backends.arrays import check_has_data
from ..encoders import SinusoidEncoder, VectorEncoder
from ..encoders.base import Encoder
from ..random import check_seed
from ..vsa import VSA
from ._data import (
    batch_rows,
    batches,
    check_features,
    count_rows,
    is_framework_array,
    n_rows,
    padded_index,
    padded_size,
    take_rows,
)
from ._docs import shared_parameters
from ._seed import RANDOM_STATE, chosen_seed
from ._signature import DeclaredParameters

__all__ = ["HDEncoder", "feature_encoder"]

#: the encodings of feature matrices, by name
ENCODINGS = {"sinusoid": SinusoidEncoder, "projection": VectorEncoder}


def feature_encoder(encoding: str, model: Any, n_features: int, bandwidth: float | str, seed: int) -> Encoder:
    """The holovec encoder of ``n_features`` numeric features that ``HDEncoder`` makes for
    ``encoding`` (``"sinusoid"`` or ``"projection"``), ``model``, ``bandwidth`` (a number, or
    ``"scale"``: ``1 / sqrt(n_features)``) and ``seed``: also what a saved encoder is made
    again from (:func:`holovec.learn.load`)."""
    width = 1.0 / math.sqrt(n_features) if bandwidth == "scale" else float(bandwidth)
    return ENCODINGS[encoding](model, n_features, bandwidth=width, seed=seed)


def tiny_scale(scale: np.ndarray, mean: np.ndarray, n_samples: int, eps: float) -> np.ndarray:
    """Where a feature (nearly) did not vary in training: scale 1, so a test value that
    differs gives a finite, proportionate code instead of a huge one.

    scikit-learn's rule (``sklearn.preprocessing._data._is_constant_feature``, from the
    error bound of the two-pass variance): constant where ``var <= n eps var + (n eps
    mean)^2``, a bound relative to the feature's own magnitude (a variance of exactly 0
    included), so it holds for the data times any constant. Tested on the standard
    deviation (``hypot`` of the bound's square roots: the variance of very small or very
    large features would underflow or overflow).

    Parameters
    ----------
    scale : ndarray of float64, shape (n_features,)
        The features' standard deviations.
    mean : ndarray of float64, shape (n_features,)
        Their means.
    n_samples : int
        The number of samples they were computed from.
    eps : float
        The machine epsilon of the float type they were computed in.

    Returns
    -------
    ndarray of bool, shape (n_features,)
    """
    n_eps = n_samples * eps
    return scale <= np.hypot(math.sqrt(n_eps) * scale, n_eps * np.abs(mean))


@shared_parameters
class HDEncoder(DeclaredParameters, ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Samples as hypervectors of a holovec model: a scikit-learn transformer.

    By default a numeric matrix ``X (n_samples, n_features)`` is standardised (each
    feature centred and scaled by its training standard deviation, in float64 before the
    cast to the projection's float type, so that features far from zero, such as Unix
    times, keep their spread; a feature constant in training keeps scale 1) and encoded by
    a seeded nonlinear random projection (``encoding="sinusoid"``,
    :class:`~holovec.encoders.SinusoidEncoder`) or a linear one (``"projection"``,
    :class:`~holovec.encoders.VectorEncoder`: SimHash for MAP and BSC).
    ``encoding="precomputed"`` takes ``X`` as vectors of the model already (they are
    checked) and passes them through.

    Any holovec encoder can be plugged in instead (``encoder=NGramEncoder(model, n=3)``
    for texts, an image or sequence encoder, ...): ``X`` is then whatever a batch of that
    encoder's inputs is (a list of texts, an array of images), and the model is the
    encoder's.

    Parameters
    ----------
    model : str, default "FHRR"
        The model's name (FHRR: the sinusoid encoding is then random Fourier features,
        the most accurate default; MAP and BSC allow binarised inference); see
        :meth:`holovec.VSA.available_models`.
    dim : int or None, default None
        Dimension of the hypervectors: 10000, or for ``"precomputed"`` the width of ``X``.
    encoding : {"sinusoid", "projection", "precomputed"}, default "sinusoid"
        How numeric features become hypervectors: a seeded nonlinear random projection,
        a linear one, or none (``X`` holds the model's vectors already).
    bandwidth : float or "scale", default "scale"
        How fast the sinusoid encoding (and the FHRR phases) turn with the input:
        ``"scale"`` is ``1 / sqrt(n_features)``, so that on standardised features the
        projection has unit variance. Unused by ``"projection"`` on models other than FHRR.
    standardize : bool, default True
        Centre and scale the features with their training mean and standard deviation.
    encoder : holovec encoder or None, default None
        An encoder to use instead of the encodings above (its model is used).
    backend, device : str or None
        Where the model computes (``None``: holovec's default backend and its best device).
    batch_size : int, default 1024
        Rows encoded at once: memory is bounded by ``batch_size * dim``, not the data set.
    output : {"vectors", "real"}, default "vectors"
        What :meth:`transform` returns: the model's vectors, or real numbers that
        scikit-learn's estimators take (complex vectors as their real parts, then their
        imaginary parts, ``(n, 2 * vector_length)``; real vectors unchanged), for pipelines
        such as ``make_pipeline(TimeSeriesEncoder(output="real"), RidgeClassifierCV())``.
    random_state : int or None, default None
        Seeds the model and the projection; ``None`` draws a fresh seed at ``fit`` (stored
        in ``seed_``). A NumPy ``RandomState`` or ``Generator`` is refused (``TypeError``):
        holovec's generator is seeded by an int, so that a fit reproduces from its parameters.
    seed : int or None, default None
        Deprecated alias of ``random_state`` (a ``FutureWarning`` at ``fit``); where both
        are given, ``random_state`` is used.

    Attributes
    ----------
    model_ : holovec model
        The model the vectors belong to.
    encoder_ : holovec encoder or None
        The encoder that makes the vectors (``None`` for ``"precomputed"``).
    mean_, scale_ : ndarray or None
        The standardisation statistics, NumPy arrays of shape ``(n_features,)`` (``None``
        without standardising).
    seed_ : int
        The seed used.
    n_features_in_ : int
        Number of features seen in ``fit`` (numeric input only).

    Notes
    -----
    Each parameter is checked at ``fit`` against its rule (``_parameter_rules``): a value
    of the wrong type is a ``TypeError``, a value of the right type out of range a
    ``ValueError``.

    The output columns are named ``hdencoder0``, ``hdencoder1``, ... by
    :meth:`get_feature_names_out` (scikit-learn's convention for transformers whose
    outputs are not their inputs), so pipelines and ``set_output`` can label them.

    Examples
    --------
    >>> import numpy as np
    >>> from holovec.learn import HDEncoder
    >>> X = np.array([[0.0, 1.0], [0.1, 1.1], [5.0, -3.0]])
    >>> enc = HDEncoder(dim=2000, random_state=0).fit(X)
    >>> H = enc.transform(X)
    >>> H.shape, enc.model_.name
    ((3, 2000), 'FHRR')
    """

    # class defaults (not documented as attributes: they are parameters): encoders pickled
    # before the parameters existed read them
    random_state = None
    seed = None
    output = "vectors"

    _positional: ClassVar[tuple[str, ...]] = ("model", "dim")
    _defaults: ClassVar[dict[str, Any]] = {
        "model": "FHRR",
        "dim": None,
        "encoding": "sinusoid",
        "bandwidth": "scale",
        "standardize": True,
        "encoder": None,
        "backend": None,
        "device": None,
        "batch_size": 1024,
        "output": "vectors",
        "random_state": None,
        "seed": None,
    }

    # -- parameters -------------------------------------------------------------------------
    _parameter_rules: ClassVar[dict[str, Any]] = {
        "encoding": Options(*ENCODINGS, "precomputed"),
        "bandwidth": Either(POSITIVE, Options("scale")),
        "standardize": Flag(),
        "encoder": Either(NONE, InstanceOf(Encoder, what="a holovec encoder (holovec.encoders)")),
        "batch_size": POSITIVE_INT,
        "output": Options("vectors", "real"),
        "random_state": RANDOM_STATE,
        "seed": RANDOM_STATE,
    }

    def chosen_seed(self) -> int | None:
        """The seed that ``random_state`` gives, or its deprecated alias ``seed`` (with a
        ``FutureWarning``; ``None``: neither given; see :class:`HDEncoder`)."""
        return chosen_seed(self)

    @property
    def _numeric(self) -> bool:
        return self.encoder is None

    # -- fit / transform --------------------------------------------------------------------
    @fit_context
    def fit(self, X: Any, y: Any = None) -> HDEncoder:
        """Choose the seed, create the model and encoder, and learn the standardisation."""
        self.fit_checked(X)
        return self

    @fit_context
    def fit_checked(self, X: Any) -> Any:
        """:meth:`fit`, returning ``X`` as checked (an estimator built on this encoder then
        encodes it with :meth:`encode_checked` without checking it twice)."""
        seed = self.chosen_seed()
        self.seed_ = check_seed(seed) if seed is not None else secrets.randbits(64)
        if self.encoder is not None:
            self.model_ = self.encoder.model
            self.encoder_ = self.encoder
            self.mean_ = self.scale_ = None
            if n_rows(X) < 1:
                raise ValueError("Found 0 sample(s) while a minimum of 1 is required.")
            return X
        if self.encoding == "precomputed":
            dim = self.dim if self.dim is not None else int(getattr(X, "shape", np.shape(X))[-1])
            self.model_ = VSA.create(self.model, dim, self.backend, device=self.device, seed=self.seed_)
            X = self._vectors(X, reset=True)
            self.encoder_ = None
            self.mean_ = self.scale_ = None
            return X
        X = check_features(self, X, reset=True)
        dim = 10000 if self.dim is None else self.dim
        self.model_ = VSA.create(self.model, dim, self.backend, device=self.device, seed=self.seed_)
        self._fit_scaling(X)
        n = self.n_features_in_
        self.encoder_ = feature_encoder(self.encoding, self.model_, n, self.bandwidth, self.seed_)
        self._check_range(X)
        return X

    def _fit_scaling(self, X: Any) -> None:
        if not self.standardize:
            self.mean_ = self.scale_ = None
            return
        eps = float(np.finfo(np.float64).eps)
        if is_framework_array(X):  # statistics on the device, two small vectors to the host
            xp, backend = self.model_.xp, self.model_.backend
            Xd = xp.astype(backend.asarray(X), kernels.default_float_dtype(backend))
            mean = backend.to_numpy(xp.mean(Xd, axis=0)).astype(np.float64)
            scale = backend.to_numpy(xp.std(Xd, axis=0)).astype(np.float64)
            eps = float(xp.finfo(Xd.dtype).eps)  # (the rounding of the float they are computed in)
        else:
            with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused below
                mean, scale = np.mean(X, axis=0, dtype=np.float64), np.std(X, axis=0, dtype=np.float64)
        overflow = ~(np.isfinite(mean) & np.isfinite(scale))
        if overflow.any():
            raise ValueError(
                f"X: features {np.flatnonzero(overflow)[:10].tolist()} are too large to standardise "
                "(their mean or standard deviation overflows float64); scale them down"
            )
        scale = np.where(tiny_scale(scale, mean, n_rows(X), eps), 1.0, scale)
        self.mean_, self.scale_ = mean, scale

    def _vectors(self, X: Any, *, reset: bool) -> Any:
        """Precomputed input: vectors of the model (checked, values included)."""
        model = self.model_
        check_has_data(X, "X")
        KNOWN_SHAPE.check("X", X)
        if not (is_framework_array(X) or isinstance(X, np.ndarray)):
            X = np.asarray(X)
        X = X.detach() if getattr(X, "requires_grad", False) is True else X  # (as check_features)
        if X.ndim != 2 or X.shape[0] < 1:
            raise ValueError(
                f"encoding='precomputed' needs a 2D array of {model.name} vectors, shape (n_samples, "
                f"{model.vector_length}) with n_samples >= 1, got shape {tuple(X.shape)}"
            )
        if reset:
            self.n_features_in_ = int(X.shape[1])
        elif X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        return model.asarray(X)

    def transform(self, X: Any) -> Any:
        """The hypervectors of the samples: an array of the model's backend, ``(n, vector_length)``
        (``output="real"``: real numbers, see :class:`HDEncoder`)."""
        X = self.check_input(X)
        size = batch_rows(self.model_, self.batch_size, n_rows(X))
        parts = [self._encode_rows(X, rows, size) for rows in batches(n_rows(X), size)]
        return self.as_output(parts[0] if len(parts) == 1 else self.model_.xp.concat(parts, axis=0))

    def as_output(self, H: Any) -> Any:
        """Encodings as :meth:`transform` returns them: the vectors, or with ``output="real"``
        complex vectors as their real parts, then their imaginary parts (the same columns on
        every backend).

        Parameters
        ----------
        H : array
            Vectors of the model, ``(n, vector_length)``.
        """
        xp = self.model_.xp
        if self.output == "real" and xp.isdtype(H.dtype, "complex floating"):
            return xp.concat([xp.real(H), xp.imag(H)], axis=-1)
        return H

    def _encode_rows(self, X: Any, rows: np.ndarray | slice, batch_size: int) -> Any:
        """The encodings of ``rows`` of checked ``X``. Where every array shape compiles a
        program (``Backend.static_shapes``: JAX), the rows are encoded in a batch padded to
        a power of two (at most ``batch_size``), so that any number of rows encodes with one
        of a few programs; only the cut of the result is made for its number of rows."""
        if not self.model_.backend.static_shapes:
            return self.encode_checked(take_rows(X, rows))
        count = count_rows(rows)
        index = padded_index(rows, padded_size(count, batch_size))
        encoded = self.encode_checked(take_rows(X, index))
        return encoded if len(index) == count else encoded[:count]

    def check_input(self, X: Any) -> Any:
        """``X`` checked against the fitted encoder (its features, their range; vectors of
        the model for ``"precomputed"``), for :meth:`encode_checked` to encode batch by batch."""
        check_is_fitted(self, "model_")
        if not self._numeric:
            if n_rows(X) < 1:
                raise ValueError("Found 0 sample(s) while a minimum of 1 is required.")
            return X
        if self.encoding == "precomputed":
            return self._vectors(X, reset=False)
        X = check_features(self, X, reset=False)
        self._check_range(X)
        return X

    def _standardized(self, X: Any) -> Any:
        """Checked features, standardised (where asked) in float64, before any cast to the
        projection's float32: host input on the host, a framework's array on its device in
        the backend's widest float (float64, or float32 on JAX without 64-bit mode, which
        then holds the input's own precision)."""
        if not is_framework_array(X):
            x = np.asarray(X, dtype=np.float64)
            return x if self.mean_ is None else (x - self.mean_) / self.scale_
        backend = self.model_.backend
        wide = kernels.default_float_dtype(backend)
        x = self.model_.xp.astype(backend.asarray(X), wide)
        if self.mean_ is None:
            return x
        return (x - backend.asarray(self.mean_, dtype=wide)) / backend.asarray(self.scale_, dtype=wide)

    def _check_range(self, X: Any) -> None:
        """``ValueError`` naming the samples whose (standardised) features do not fit the
        projection's float type: finite numbers that the cast would make infinite."""
        real = dtype_name(self.encoder_.real_dtype)
        limit = float(np.finfo(np.dtype(real)).max)
        x = self._standardized(X)
        xp = np if isinstance(x, np.ndarray) else self.model_.xp
        with np.errstate(invalid="ignore", over="ignore"):
            too_large = ~(xp.abs(x) <= limit)  # NaN (inf - inf) counts too
        if not bool(xp.any(too_large)):
            return
        mask = too_large if isinstance(too_large, np.ndarray) else self.model_.backend.to_numpy(too_large)
        rows = np.flatnonzero(mask.any(axis=1))
        what = (
            "standardised with the training mean and scale, (X - mean_) / scale_, are"
            if self.mean_ is not None
            else "are"
        )
        raise ValueError(
            f"X: the features of samples {rows[:10].tolist()}{' and more' if rows.size > 10 else ''} "
            f"{what} too large for the model's {real} (at most {limit:.6g} in magnitude); "
            "scale the features down" + ("" if self.mean_ is not None else ", or set standardize=True")
        )

    def encode_checked(self, rows: Any) -> Any:
        """The encodings of rows of :meth:`check_input`'s result (one batch), on the model's
        backend, unbatched (:meth:`transform` checks and batches)."""
        if not self._numeric:
            enc = self.encoder_
            if hasattr(enc, "encode_batch"):
                return enc.encode_batch(list(rows))
            return enc.encode(rows)
        if self.encoding == "precomputed":
            return rows
        return self.encoder_.encode(self._standardized(rows))  # which casts to its float type

    @property
    def _n_features_out(self) -> int:
        """The width of :meth:`transform`'s output (named by :meth:`get_feature_names_out`)."""
        model = self.model_
        complex_ = model.xp.isdtype(model.dtype, "complex floating")
        widen = self.output == "real" and complex_
        return int(model.vector_length) * (2 if widen else 1)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = []  # outputs the model's dtype
        tags.requires_fit = True
        return tags
