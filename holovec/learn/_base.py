"""What every holovec estimator shares: its encoder, its parameters' rules, minibatches,
progress and the check that training stayed finite (private)."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, clone

from ..backends import dtype_name, get_backend, resolve_backend_name
from ..encoders.base import Encoder
from ._data import batch_rows, batches, n_rows, take_rows
from ._space import Space
from .encoding import HDEncoder

#: the encoder settings an estimator passes on to its default encoder (None: the encoder's default)
_SHARED = ("model", "dim", "backend", "device", "seed")


class TrainingDivergedError(ValueError):
    """Training produced numbers beyond the range of the learning space's floats (an
    overflow, then NaN): the learning rate is too large for the data, or the targets are.
    A ``ValueError`` (the parameters or data were unfit); the message says what to change."""


@dataclass(frozen=True)
class Interval:
    """The rule of a numeric parameter: an int (``integral``) or a finite real number within
    ``low`` and ``high`` (``None``: unbounded), which ``closed`` includes (``"both"``,
    ``"left"``, ``"right"`` or ``"neither"``). NumPy scalars pass like the Python numbers
    they equal (grid searches make them from ``np.arange``)."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    integral: bool = False

    def check(self, name: str, value: Any) -> None:
        kind = numbers.Integral if self.integral else numbers.Real
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, kind):
            raise TypeError(f"{name} must be {self.describe()}, got {type(value).__name__} {value!r}")
        if not ((self.integral or math.isfinite(value)) and self._within(value)):  # (ints of any size)
            raise ValueError(f"{name} must be {self.describe()}, got {value!r}")

    def _within(self, value: Any) -> bool:
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        above = self.low is None or (value >= self.low if left else value > self.low)
        below = self.high is None or (value <= self.high if right else value < self.high)
        return above and below

    def describe(self) -> str:
        noun = "an int" if self.integral else "a finite number"
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            return f"{noun} in {'[' if left else '('}{self.low}, {self.high}{']' if right else ')'}"
        if self.low is not None:
            return f"{noun} {'>=' if left else '>'} {self.low}"
        if self.high is not None:
            return f"{noun} {'<=' if right else '<'} {self.high}"
        return noun


@dataclass(frozen=True)
class Flag:
    """The rule of a True/False parameter."""

    def check(self, name: str, value: Any) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False, got {value!r}")


#: shared rules: a positive int, a non-negative int, a positive number, a non-negative number
POSITIVE_INT = Interval(1, integral=True)
NON_NEGATIVE_INT = Interval(0, integral=True)
POSITIVE = Interval(0, closed="neither")
NON_NEGATIVE = Interval(0)


class HDEstimator(BaseEstimator):
    """Base of the estimators: builds the encoder (``encoder_``) and the model (``model_``)
    from the parameters, and iterates over encoded minibatches.

    ``encoder`` may be ``None`` (an :class:`HDEncoder` made from ``model``, ``dim``,
    ``backend``, ``device`` and ``seed``), ``"precomputed"`` (``X`` holds the model's
    vectors), an :class:`HDEncoder` (cloned; the shared settings left at ``None`` are
    the encoder's), or any holovec encoder (its model is used).

    Each parameter is checked at ``fit`` against its rule in ``_parameter_rules`` (merged
    along the class's bases: a subclass restates a rule to change it).
    """

    _parameter_rules: ClassVar[dict[str, Any]] = {"batch_size": POSITIVE_INT, "verbose": Flag()}

    @classmethod
    def _rules(cls) -> dict[str, Any]:
        rules: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            rules.update(vars(klass).get("_parameter_rules", {}))
        return rules

    def _check_params(self) -> None:
        """``TypeError`` or ``ValueError`` for the first parameter that breaks its rule."""
        for name, rule in self._rules().items():
            rule.check(name, getattr(self, name))

    def _make_encoder(self) -> HDEncoder:
        enc = self.encoder
        mine = {k: getattr(self, k) for k in _SHARED}
        if enc is None or (isinstance(enc, str) and enc == "precomputed"):
            settings = {k: v for k, v in mine.items() if v is not None}
            if enc is not None:
                settings["encoding"] = "precomputed"
            return HDEncoder(**settings)
        if isinstance(enc, Encoder):
            self._check_holovec_encoder(enc)
            return HDEncoder(encoder=enc)
        if isinstance(enc, HDEncoder):
            enc = clone(enc)
            given = enc.get_params(deep=False)
            self._check_agree({k: given[k] for k in _SHARED}, mine, "encoder")
            if isinstance(given["encoder"], Encoder):
                self._check_holovec_encoder(given["encoder"])
            enc.set_params(**{k: v for k, v in mine.items() if v is not None})
            return enc
        raise TypeError(
            f"encoder must be None, 'precomputed', an HDEncoder or a holovec encoder, got {enc!r}"
        )

    def _check_holovec_encoder(self, enc: Encoder) -> None:
        """``ValueError`` where this estimator's settings contradict a holovec encoder's
        model: its model, dim, seed, backend and device are the encoder's to decide
        (``backend="auto"`` leaves the choice to it)."""
        model = enc.model
        given = {"model": model.name, "dim": model.dim, "seed": getattr(enc, "seed", None)}
        self._check_agree(given, {k: getattr(self, k) for k in _SHARED}, "the encoder's model")
        here, asked = model.backend, self.backend
        if isinstance(asked, str) and asked.lower() == "auto":
            asked = None
        if asked is not None:
            name = resolve_backend_name(asked) if isinstance(asked, str) else asked.name
            if name != here.name:
                raise ValueError(
                    f"{type(self).__name__}: backend={self.backend!r} disagrees with the encoder's "
                    f"{model.name} model, which computes on {here.name!r}; leave backend=None to use "
                    f"the encoder's, or build the encoder's model on {name!r}"
                )
        if self.device is not None and get_backend(here.name, self.device) != here:
            raise ValueError(
                f"{type(self).__name__}: device={self.device!r} disagrees with the encoder's "
                f"{model.name} model, on device {here.device_name!r}; leave device=None to use "
                "the encoder's, or build the encoder's model on that device"
            )

    def _check_agree(self, given: dict, mine: dict, whose: str) -> None:
        for key, value in mine.items():
            if value is not None and key in given and given[key] is not None and given[key] != value:
                if key == "model" and str(value).upper() == str(given[key]).upper():
                    continue
                raise ValueError(
                    f"{type(self).__name__}: {key}={value!r} disagrees with {whose} ({key}={given[key]!r}); "
                    f"leave {key}=None to use the encoder's"
                )

    def _fit_encoder(self, X: Any) -> Any:
        """Fit the encoder on ``X``; ``X`` as checked."""
        self.encoder_ = self._make_encoder()
        X = self.encoder_._fit(X)
        self.model_ = self.encoder_.model_
        self.space_ = Space(self.model_)
        if hasattr(self.encoder_, "n_features_in_"):
            self.n_features_in_ = self.encoder_.n_features_in_
        return X

    def _check_input(self, X: Any) -> Any:
        """``X`` checked against the fitted encoder (shape, features, finiteness)."""
        X = self.encoder_._checked(X)
        if hasattr(self.encoder_, "n_features_in_"):
            self.n_features_in_ = self.encoder_.n_features_in_
        return X

    def _encoded(
        self, X: Any, *, epoch: int | None = None, order_free: bool = False
    ) -> Iterator[tuple[Any, Any]]:
        """``(rows, H)`` for each minibatch of checked ``X``: the selected rows and their
        encodings as unit real rows on the model's backend. With ``epoch``, in an order
        shuffled from the seed and the epoch (from the kept encodings, if any).
        ``order_free``: the caller's result does not depend on the batches (row-wise
        scores, sums), so a partitioned backend may take all rows at once."""
        seed = None if epoch is None else self.encoder_.seed_
        kept = getattr(self, "_kept", None) if epoch is not None else None
        size = batch_rows(self.model_, self.batch_size, n_rows(X)) if order_free else self.batch_size
        for rows in batches(n_rows(X), size, seed=seed, epoch=epoch or 0):
            if kept is not None:
                yield rows, take_rows(kept, rows)
            else:
                yield rows, self.space_.features(self.encoder_._encode(take_rows(X, rows)))

    @contextmanager
    def _keeping_encodings(self, X: Any) -> Iterator[None]:
        """While training for several epochs: the training set's encodings are kept on the
        backend when they fit in ``cache_size`` MiB (encoded once instead of every epoch);
        memory stays bounded by ``cache_size`` plus a batch either way."""
        space = self.space_
        needed = n_rows(X) * space.width * np.dtype(dtype_name(space.dtype)).itemsize
        try:
            if needed <= self.cache_size * 2**20:
                self._kept = None
                self._kept = self._encode_all(X)
            yield
        finally:
            self.__dict__.pop("_kept", None)

    def _refresh_encodings(self, X: Any) -> None:
        """Encode the kept training set again (after the encoder changed)."""
        if getattr(self, "_kept", None) is not None:
            self._kept = None
            self._kept = self._encode_all(X)

    def _encode_all(self, X: Any) -> Any:
        """Every row's encoding, concrete (computed once on a lazy backend)."""
        parts = [h for _, h in self._encoded(X)]
        return self.space_.computed(parts[0] if len(parts) == 1 else self.space_.xp.concat(parts, axis=0))

    def _beyond_range(self, total: Any) -> float | None:
        """``total`` (a sum over the fitted state that bounds it and the scores made from
        it) where it is not a number within the range of the learning space's floats, else
        ``None`` (one number read back per check)."""
        value = float(total)
        return None if value <= float(np.finfo(self.space_.dtype_name).max) else value  # (NaN too)

    def _check_in_range(self, total: Any, what: str, advice: str) -> None:
        """``TrainingDivergedError`` unless ``total`` is within range (see :meth:`_beyond_range`)."""
        value = self._beyond_range(total)
        if value is not None:
            raise TrainingDivergedError(
                f"{type(self).__name__}: training diverged: {what} left the range of "
                f"{self.space_.dtype_name} numbers (a sum over them came to {value:.3g}); {advice}"
            )

    def _check_saved_range(self, state: Any, what: str, *, power: int = 1) -> None:
        """After loading: ``ValueError`` unless the sum of ``|state| ** power`` (the bound
        training checks) is within range as a fit leaves it (see :meth:`_beyond_range`), so
        that every score made from a file stays finite. Summed in float64 on the host, where
        the values of a learning space's floats cannot overflow on the way."""
        host = np.abs(np.asarray(self.space_.backend.to_numpy(state), dtype=np.float64))
        value = self._beyond_range(np.sum(host**power))
        if value is not None:
            raise ValueError(
                f"{type(self).__name__}: {what} lie beyond the range of {self.space_.dtype_name} "
                f"numbers (a sum over them comes to {value:.3g}), which no fit leaves"
            )

    @classmethod
    def _fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        """The fitted state a saved estimator of this class holds, for checking a file
        before its arrays are read: each attribute's shape (an array of the learning
        space's floats; ``()``: a number), given the classes (``None`` for a regressor)
        and the learning space's width."""
        raise NotImplementedError

    def _restore_derived(self) -> None:
        """After loading: the saved state checked as a fit leaves it (with
        :meth:`_check_saved_range`), and what derives from it made again."""
        raise NotImplementedError

    def save(self, path: Any) -> None:
        """Write the fitted estimator to ``path`` (``.npz`` + JSON, no pickle; read it back
        with :func:`holovec.learn.load`)."""
        from .persistence import save

        save(self, path)

    def _progress(self, total: int, desc: str) -> Any:
        """A tqdm bar over epochs when ``verbose``, else a plain range."""
        if not self.verbose:
            return range(total)
        from tqdm.auto import trange

        return trange(total, desc=desc)
