"""What every holovec estimator shares: its encoder, minibatches and progress (private)."""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, clone

from ..backends import dtype_name
from ..encoders.base import Encoder
from ._data import batch_rows, batches, n_rows, take_rows
from ._space import Space
from .encoding import HDEncoder

#: the encoder settings an estimator passes on to its default encoder (None: the encoder's default)
_SHARED = ("model", "dim", "backend", "device", "seed")


def check_positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive int, got {value!r}")
    return int(value)


def check_positive_number(value: Any, name: str, *, zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {type(value).__name__} {value!r}")
    if not (np.isfinite(value) and (value >= 0 if zero else value > 0)):
        raise ValueError(
            f"{name} must be a {'non-negative' if zero else 'positive'} finite number, got {value!r}"
        )
    return float(value)


class HDEstimator(BaseEstimator):
    """Base of the estimators: builds the encoder (``encoder_``) and the model (``model_``)
    from the parameters, and iterates over encoded minibatches.

    ``encoder`` may be ``None`` (an :class:`HDEncoder` made from ``model``, ``dim``,
    ``backend``, ``device`` and ``seed``), ``"precomputed"`` (``X`` holds the model's
    vectors), an :class:`HDEncoder` (cloned; the shared settings left at ``None`` are
    the encoder's), or any holovec encoder (its model is used).
    """

    def _make_encoder(self) -> HDEncoder:
        enc = self.encoder
        mine = {k: getattr(self, k) for k in _SHARED}
        if enc is None or (isinstance(enc, str) and enc == "precomputed"):
            settings = {k: v for k, v in mine.items() if v is not None}
            if enc is not None:
                settings["encoding"] = "precomputed"
            return HDEncoder(**settings)
        if isinstance(enc, Encoder):
            model = enc.model
            given = {"model": model.name, "dim": model.dim, "seed": getattr(enc, "seed", None)}
            self._check_agree(given, mine, "the encoder's model")
            return HDEncoder(encoder=enc)
        if isinstance(enc, HDEncoder):
            enc = clone(enc)
            given = enc.get_params(deep=False)
            self._check_agree({k: given[k] for k in _SHARED}, mine, "encoder")
            enc.set_params(**{k: v for k, v in mine.items() if v is not None})
            return enc
        raise TypeError(
            f"encoder must be None, 'precomputed', an HDEncoder or a holovec encoder, got {enc!r}"
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
        check_positive_int(self.batch_size, "batch_size")
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
                parts = [h for _, h in self._encoded(X)]
                self._kept = parts[0] if len(parts) == 1 else space.xp.concat(parts, axis=0)
            yield
        finally:
            self.__dict__.pop("_kept", None)

    def _refresh_encodings(self, X: Any) -> None:
        """Encode the kept training set again (after the encoder changed)."""
        if getattr(self, "_kept", None) is not None:
            self._kept = None
            parts = [h for _, h in self._encoded(X)]
            self._kept = parts[0] if len(parts) == 1 else self.space_.xp.concat(parts, axis=0)

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
