"""Ridge regression on the hypervectors (IntRVFL, Kleyko et al., 2020; torchhd's ``IntRVFL``).

The encoder is a fixed random nonlinear feature map, so a regularised least-squares read
out of the encodings is a random-feature approximation of kernel ridge regression: the
learner that reaches the accuracy of kernel methods. With ``n`` samples, ``w`` feature
columns (the learning space's width) and ``k`` outputs, two equivalent systems give the
read-out ``W``: ``(H H' + alpha I) A = Y``, ``W = H' A``, which keeps the encodings ``H``,
or ``(H' H + alpha I) W = H' Y``, accumulated batch by batch. Both are solved in float64
where the backend has it (``d = 8`` bytes a number; ``s = 4`` for float32 encodings), and
the one of the smaller peak memory is chosen:

- kept: ``max(n w (s + d), n w d + 3 n^2 d)`` bytes: the encodings while they are widened,
  then the widened encodings and three ``n x n`` matrices (the product, ``alpha I``, their
  sum);
- accumulated: ``3 w^2 d + b w (s + d)`` bytes for batches of ``b`` rows: the sum so far, a
  batch's product and the new sum, and the batch;

plus ``2 n k d`` for the targets and the solution. NumPy reuses a temporary's buffer for
the sum, so it needs one ``n x n`` (or ``w x w``) matrix less: measured with tracemalloc,
fitting 2,000 samples at width 4,000 peaks at 122 MiB (4x the 31 MiB of float32
encodings; the formula says 153 MiB) and 3,000 samples at width 2,000 at 85 MiB (the
formula: 115 MiB). A fit whose peak (by the formula) exceeds the memory available on the
device is refused before anything is allocated (:class:`~holovec.models.AllocationError`).
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from sklearn.base import is_regressor
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from .._params import POSITIVE
from ..backends import dtype_name
from ._data import n_rows
from ._docs import shared_parameters
from ._engine import Classifier, Regressor, Supervised
from ._space import Space, scaled_product
from ._targets import check_target_range

__all__ = ["RidgeHDClassifier", "RidgeHDRegressor"]


def _one_hot(t: np.ndarray, n_classes: int) -> np.ndarray:
    """The +1/-1 targets of class indices ``t``."""
    Y = -np.ones((len(t), n_classes))
    Y[np.arange(len(t)), t] = 1.0
    return Y


def ridge_peak_bytes(n: int, width: int, k: int, batch: int, s: int, d: int) -> tuple[int, int]:
    """The peak bytes of the kept and of the accumulated system (see the module notes):
    ``n`` samples, ``width`` columns, ``k`` outputs, ``batch`` rows encoded at once, ``s``
    and ``d`` bytes per number of the encodings and of the solve."""
    targets = 2 * n * k * d
    kept = max(n * width * (s + d), n * width * d + 3 * n * n * d) + targets
    accumulated = 3 * width * width * d + width * k * d + batch * width * (s + d) + targets
    return kept, accumulated


def _kept_readout(space: Space, Hw: Any, Y: Any, alpha: float) -> Any:
    """``W = Hw' (Hw Hw' + alpha I)^-1 Y``: the read-out from the kept encodings ``Hw``."""
    xp, backend = space.xp, space.backend
    ridge = alpha * xp.eye(Hw.shape[0], dtype=Hw.dtype, device=backend.device)
    K = kernels.matmul(backend, Hw, xp.permute_dims(Hw, (1, 0))) + ridge
    return kernels.matmul(backend, xp.permute_dims(Hw, (1, 0)), space.solve(K, Y))


def _accumulated_system(space: Space, G: Any, R: Any, h: Any, y: Any, weights: Any) -> tuple[Any, Any]:
    """The sums ``G = alpha I + H' H`` and ``R = H' Y`` with one more batch ``h`` (rows of
    padding left out) and its targets ``y``, in the dtype of the sums."""
    xp, backend = space.xp, space.backend
    hw = space.masked(xp.astype(h, G.dtype), weights)
    ht = xp.permute_dims(hw, (1, 0))
    return G + kernels.matmul(backend, ht, hw), R + kernels.matmul(backend, ht, y)


class _Ridge(Supervised):
    _defaults: ClassVar[dict[str, Any]] = {
        "alpha": 0.1,
    }

    _parameter_rules: ClassVar[dict[str, Any]] = {"alpha": POSITIVE}

    @classmethod
    def fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        if n_classes is None:  # the regressor: one read-out and the targets' mean
            return {"coef_": (width, 1), "intercept_": ()}
        return {"coef_": (width, n_classes)}

    def restore_derived(self) -> None:
        self._check_saved_range(self.coef_, "the read-out's values")
        saved = [name for name in self.stream_shapes(None, 1) if getattr(self, name, None) is not None]
        if saved and len(saved) != len(self.stream_shapes(None if is_regressor(self) else 2, 1)):
            raise ValueError(f"a stream's sums are saved all together, or none; the file has {saved}")
        if saved:  # H' H is symmetric, its diagonal the squared lengths of columns
            G, wide, scale = self.gram_, self.space_.wide(), max(1.0, float(np.abs(self.gram_).max()))
            if np.any(np.diag(G) < 0) or not np.allclose(G, G.T, rtol=0, atol=1e-6 * scale):
                raise ValueError("gram_ must be the H' H of a stream's encodings (symmetric, diagonal >= 0)")
            self.gram_, self.cross_ = (self.space_.backend.asarray(a, dtype=wide) for a in (G, self.cross_))
        count = self.target_sums_[0] if "target_sums_" in saved else 1.0
        if not count >= 1:
            raise ValueError(f"target_sums_ must start with the sample count (>= 1), got {count}")

    def _solve(self, X: Any, Y: np.ndarray, alpha: float, advice: str) -> Any:
        """The read-out ``W (width, k)`` minimising ``|H W - Y|^2 + alpha |W|^2``, concrete;
        ``TrainingDivergedError`` with ``advice`` where it overflows the learning space's floats."""
        space = self.space_
        xp, backend = space.xp, space.backend
        wide = space.wide()
        n, k, width = Y.shape[0], Y.shape[1], space.width
        # the rows of the kept system: the samples, padded where every shape compiles (JAX)
        rows = self._padded_rows(n)
        kept, accumulated = ridge_peak_bytes(
            rows, width, k, min(rows, self.batch_size),
            np.dtype(space.dtype_name).itemsize, np.dtype(dtype_name(wide)).itemsize,
        )  # fmt: skip
        space.check_memory(
            min(kept, accumulated),
            f"{type(self).__name__}.fit on {n} samples of width {width}",
            "use a smaller dim, or fewer samples (a random subset, or AdaptHDClassifier / RegHDRegressor, "
            "whose memory a batch bounds)",
        )
        singular = (
            f"{type(self).__name__}.fit: the ridge system is singular in {dtype_name(wide)} (equal "
            f"or dependent encodings, which alpha={alpha!r} is too small to tell apart); raise alpha"
        )
        alpha = float(alpha)  # a Python float: a NumPy scalar would widen float32 systems on JAX
        with space.refusing_singular(singular):
            if kept <= accumulated:
                # rows of padding are zero: the system's padded block is alpha I, its solution 0
                H = self._encode_all(X, zero_padding=True)
                Hw = space.computed(xp.astype(H, wide))  # encoded once on a lazy backend, though used twice
                del H  # (at most the encodings and their widened copy at once)
                Yd = backend.asarray(
                    np.concatenate([Y, np.zeros((rows - n, k))]) if rows > n else Y, dtype=wide
                )
                W = space.run(_kept_readout, Hw, Yd, alpha)
            else:
                G = alpha * xp.eye(width, dtype=wide, device=space.model.device)
                G, R = self._accumulate(X, Y, G, xp.zeros((width, k), dtype=wide, device=space.model.device))
                W = space.solve(G, R)
        return self._checked(W, advice)

    def _checked(self, W: Any, advice: str) -> Any:
        """The read-out ``W`` in the learning space's floats, concrete; ``TrainingDivergedError``
        with ``advice`` where it overflows them."""
        xp = self.space_.xp
        # |h . w| <= sum |w| for unit rows h: every prediction stays finite when this sum does
        self._check_in_range(xp.sum(xp.abs(W)), "the read-out", advice)
        return self.space_.computed(xp.astype(W, self.space_.dtype))

    def _accumulate(self, X: Any, Y: np.ndarray, G: Any, R: Any) -> tuple[Any, Any]:
        """``G + H' H`` and ``R + H' Y`` for the encodings ``H`` of ``X``, batch by batch."""
        space = self.space_
        for batch in self._encoded(X, training=True):
            y = space.backend.asarray(batch.take(Y), dtype=G.dtype)
            G, R = space.run(_accumulated_system, G, R, batch.H, y, batch.weights)
        return space.computed(G), space.computed(R)

    # -- streams: partial_fit keeps the sufficient statistics H' H and H' Y ----------------
    def _starts_stream(self) -> bool:
        """Whether this call starts a stream: the first call, or one after ``fit`` (whose
        solve keeps no sums of the encodings to go on from: the stream starts anew, with a
        warning)."""
        first = not self._fitted()
        if not first and getattr(self, "gram_", None) is None:
            message = (
                f"{type(self).__name__}.partial_fit after fit starts a new stream from this batch: fit "
                "keeps no sums of the encodings to go on from (learn the whole stream with partial_fit)"
            )
            warnings.warn(message, UserWarning, stacklevel=4)
            first = True
        return first

    def _stream_solve(self, X: Any, Y: np.ndarray, first: bool) -> Any:
        """Add a batch ``(X, Y)`` to ``gram_ = H' H`` and ``cross_ = H' Y`` (``(width, k)``);
        returns ``cross_`` for the caller to solve with :meth:`_readout`."""
        space = self.space_
        xp, wide, width = space.xp, space.wide(), space.width
        if first:
            size = np.dtype(dtype_name(wide)).itemsize
            space.check_memory(
                ridge_peak_bytes(1, width, Y.shape[1], min(n_rows(X), self.batch_size), size, size)[1],
                f"{type(self).__name__}.partial_fit at width {width}", "use a smaller dim",
            )  # fmt: skip
            self.gram_ = xp.zeros((width, width), dtype=wide, device=space.model.device)
            self.cross_ = xp.zeros((width, Y.shape[1]), dtype=wide, device=space.model.device)
        self.gram_, self.cross_ = self._accumulate(X, Y, self.gram_, self.cross_)
        return self.cross_

    # a stream's read-out is solved when read: 1.1 s at width 4000, 0.07 s to add 100 samples
    @property
    def coef_(self) -> Any:
        pending = self.__dict__.get("_pending_readout")
        if pending is not None:
            self.coef_ = self._readout(*pending)
        try:
            return self.__dict__["_coef"]
        except KeyError:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'coef_'") from None

    @coef_.setter
    def coef_(self, value: Any) -> None:
        self.__dict__.pop("_pending_readout", None)
        self.__dict__["_coef"] = value

    def _fitted(self) -> bool:  # (without solving a pending read-out)
        return "_coef" in self.__dict__ or "_pending_readout" in self.__dict__

    def _readout(self, R: Any, advice: str, alpha: float) -> Any:
        """The read-out ``(gram_ + alpha I)^-1 R``: what ``fit`` on all the stream solves."""
        space = self.space_
        xp, G = space.xp, self.gram_
        ridge = alpha * xp.eye(G.shape[0], dtype=G.dtype, device=space.model.device)
        singular = f"{type(self).__name__}.partial_fit: the ridge system is singular; raise alpha"
        with space.refusing_singular(singular):
            return self._checked(space.solve(G + ridge, R), advice)

    @classmethod
    def stream_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        k = 2 if n_classes is None else n_classes  # the regressor: H' y and H' 1
        shapes = {"gram_": (width, width), "cross_": (width, k)}
        return shapes | ({"target_sums_": (3,)} if n_classes is None else {})

    def _forget_stream(self) -> None:
        """``fit``: no sums of an earlier stream."""
        for name in (*self.stream_shapes(None, 1), "_pending_readout"):
            self.__dict__.pop(name, None)

    def _outputs(self, X: Any) -> np.ndarray:
        """``H W`` for every sample, on the host ``(n, k)``."""
        check_is_fitted(self, "coef_")
        X = self._check_input(X)
        space, batches = self.space_, self._encoded(X, scaled=True)  # (the scale goes with H W)
        return self._on_host((b, space.run(scaled_product, b.H, self.coef_, b.scale)) for b in batches)


@shared_parameters
class RidgeHDClassifier(Classifier, _Ridge):
    """Ridge regression of one-hot (+1/-1) class targets on the hypervectors (IntRVFL).

    Parameters
    ----------
    {encoder_parameters}
    alpha : float, default 0.2
        The regularisation of the read-out, on unit-length encodings (0.2: within noise of
        0.1 on scikit-learn's tables, closer to MiniRocket on the UCR series).
    batch_size : int, default 1024
        Samples encoded at once (see the notes on memory).
    verbose : bool, default False
        Accepted as by the other estimators; the closed-form solve shows no progress bar.
    {random_state}

    Attributes
    ----------
    coef_ : array of the model's backend, shape ``(width, n_classes)``
        The read-out of every class.
    classes_ : ndarray
        The labels, sorted.
    encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.

    Notes
    -----
    {ridge_memory}

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from holovec.learn import RidgeHDClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> RidgeHDClassifier(dim=2000, random_state=0).fit(X, y).score(X, y) > 0.95
    True
    """

    # (the hooks of the template fit and partial_fit: see holovec.learn._engine)
    _defaults: ClassVar[dict[str, Any]] = {
        "alpha": 0.2,
    }

    def _learn(self, X: Any, t: np.ndarray) -> None:
        self._forget_stream()
        Y = _one_hot(t, len(self.classes_))
        self.coef_ = self._solve(X, Y, self.alpha, f"raise alpha (now {self.alpha!r})")

    def _learn_stream(self, X: Any, t: np.ndarray, first: bool) -> None:
        """Add one more batch of a stream to the sums ``H' H`` and ``H' Y``: ``coef_`` (solved
        when first read) is ``fit``'s on every batch so far, up to rounding."""
        R = self._stream_solve(X, _one_hot(t, len(self.classes_)), first)
        # (solved with this call's alpha when read)
        self._pending_readout = (R, f"raise alpha (now {self.alpha!r})", float(self.alpha))

    def decision_function(self, X: Any) -> np.ndarray:
        """The read-out of every class ``(n_samples, n_classes)``; for two classes the
        difference ``classes_[1] - classes_[0]``, shape ``(n_samples,)``."""
        check_is_fitted(self, "coef_")
        scores = self._outputs(X)
        return scores[:, 1] - scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X: Any) -> np.ndarray:
        """The class of highest read-out (ties: the first class)."""
        check_is_fitted(self, "coef_")
        return self.classes_[np.argmax(self._outputs(X), axis=1)]


@shared_parameters
class RidgeHDRegressor(Regressor, _Ridge):
    """Ridge regression of a target on the hypervectors (random-feature kernel ridge).

    The targets are centred by their training mean (``intercept_``); ``alpha`` regularises
    the read-out of the unit-length encodings.

    Parameters
    ----------
    {encoder_parameters}
    alpha : float, default 1.0
        The regularisation of the read-out, on unit-length encodings (more than the
        classifier's 0.1: noisy targets need more than class labels; measured on the
        diabetes data).
    batch_size : int, default 1024
        Samples encoded at once (see the notes on memory).
    verbose : bool, default False
        Accepted as by the other estimators; the closed-form solve shows no progress bar.
    {random_state}

    Attributes
    ----------
    coef_ : array of the model's backend, shape ``(width, 1)``
        The read-out.
    intercept_ : float
        The training targets' mean, added to every prediction.
    encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.

    Notes
    -----
    {ridge_memory}

    Examples
    --------
    >>> import numpy as np
    >>> from holovec.learn import RidgeHDRegressor
    >>> X = np.linspace(0, 6, 200)[:, None]
    >>> y = np.sin(X[:, 0])
    >>> RidgeHDRegressor(dim=2000, alpha=1e-3, random_state=0).fit(X, y).score(X, y) > 0.99
    True
    """

    _defaults: ClassVar[dict[str, Any]] = {
        "alpha": 1.0,
    }

    # (the hooks of the template fit and partial_fit: see holovec.learn._engine)
    def _learn(self, X: Any, y: np.ndarray) -> None:
        self.intercept_ = float(np.mean(y))
        self._forget_stream()
        self.coef_ = self._solve(
            X, (y - self.intercept_)[:, None], self.alpha,
            f"scale the targets (divide them by their spread), or raise alpha (now {self.alpha!r})",
        )  # fmt: skip

    def _learn_stream(self, X: Any, y: np.ndarray, first: bool) -> None:
        """Add one more batch of a stream to the sums: ``coef_`` (solved when first read) and
        ``intercept_`` are ``fit``'s on every batch so far, up to rounding. The targets are
        summed less the first batch's mean (``target_sums_``: count, sum, that mean): their
        offset costs no precision."""
        if first:
            self.target_sums_ = np.array([0.0, 0.0, float(np.mean(y))])
        shift = self.target_sums_[2]
        check_target_range(y - shift, self.space_.dtype_name, type(self).__name__)
        cross = self._stream_solve(X, np.column_stack([y - shift, np.ones(len(y))]), first)
        self.target_sums_ = self.target_sums_ + np.array([len(y), np.sum(y - shift), 0.0])
        mean = self.target_sums_[1] / self.target_sums_[0]  # of y - shift
        # H' (y - mean(y)) = H' (y - shift) - (mean(y) - shift) H' 1
        advice = f"scale the targets (divide them by their spread), or raise alpha (now {self.alpha!r})"
        self._pending_readout = (cross[:, :1] - mean * cross[:, 1:], advice, float(self.alpha))
        self.intercept_ = float(shift + mean)

    def predict(self, X: Any) -> np.ndarray:
        """The predicted targets, shape ``(n_samples,)``."""
        return self._outputs(X)[:, 0] + self.intercept_
