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

from typing import Any, ClassVar

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._params import POSITIVE
from ..backends import dtype_name
from ._base import HDEstimator
from ._data import n_rows
from ._docs import shared_parameters
from ._space import Space
from ._targets import class_indices, class_labels, regression_targets

__all__ = ["RidgeHDClassifier", "RidgeHDRegressor"]


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
    K = backend.matmul(Hw, xp.permute_dims(Hw, (1, 0))) + ridge
    return backend.matmul(xp.permute_dims(Hw, (1, 0)), space.solve(K, Y))


def _accumulated_system(space: Space, G: Any, R: Any, h: Any, y: Any, weights: Any) -> tuple[Any, Any]:
    """The sums ``G = alpha I + H' H`` and ``R = H' Y`` with one more batch ``h`` (rows of
    padding left out) and its targets ``y``, in the dtype of the sums."""
    xp, backend = space.xp, space.backend
    hw = space.masked(xp.astype(h, G.dtype), weights)
    ht = xp.permute_dims(hw, (1, 0))
    return G + backend.matmul(ht, hw), R + backend.matmul(ht, y)


class _Ridge(HDEstimator):
    def __init__(
        self,
        model: str | None = None,
        dim: int | None = None,
        *,
        encoder: Any = None,
        alpha: float = 0.1,
        batch_size: int = 1024,
        backend: Any = None,
        device: Any = None,
        seed: int | None = None,
        verbose: bool = False,
        random_state: int | None = None,
    ) -> None:
        self.model = model
        self.dim = dim
        self.encoder = encoder
        self.alpha = alpha
        self.batch_size = batch_size
        self.backend = backend
        self.device = device
        self.seed = seed
        self.verbose = verbose
        self.random_state = random_state

    _parameter_rules: ClassVar[dict[str, Any]] = {"alpha": POSITIVE}

    @classmethod
    def fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        if n_classes is None:  # the regressor: one read-out and the targets' mean
            return {"coef_": (width, 1), "intercept_": ()}
        return {"coef_": (width, n_classes)}

    def restore_derived(self) -> None:
        self._check_saved_range(self.coef_, "the read-out's values")

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
                R = xp.zeros((width, k), dtype=wide, device=space.model.device)
                for batch in self._encoded(X, training=True):
                    y = backend.asarray(batch.take(Y), dtype=wide)
                    G, R = space.run(_accumulated_system, G, R, batch.H, y, batch.weights)
                W = space.solve(G, R)
        # |h . w| <= sum |w| for unit rows h: every prediction stays finite when this sum does
        self._check_in_range(xp.sum(xp.abs(W)), "the read-out", advice)
        return space.computed(xp.astype(W, space.dtype))

    def _outputs(self, X: Any) -> np.ndarray:
        """``H W`` for every sample, on the host ``(n, k)``."""
        check_is_fitted(self, "coef_")
        X = self._check_input(X)
        space, batches = self.space_, self._encoded(X)
        return self._on_host((batch, space.run(Space.product, batch.H, self.coef_)) for batch in batches)


@shared_parameters
class RidgeHDClassifier(ClassifierMixin, _Ridge):
    """Ridge regression of one-hot (+1/-1) class targets on the hypervectors (IntRVFL).

    Parameters
    ----------
    {encoder_parameters}
    alpha : float, default 0.1
        The regularisation of the read-out, on unit-length encodings.
    batch_size : int, default 1024
        Samples encoded at once (see the notes on memory).
    backend, device, seed :
        Passed to the default encoder (``seed=None``: fresh randomness, in
        ``encoder_.seed_``).
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
    >>> RidgeHDClassifier(dim=2000, seed=0).fit(X, y).score(X, y) > 0.95
    True
    """

    def fit(self, X: Any, y: Any) -> RidgeHDClassifier:
        """Solve for the read-out of every class."""
        self._check_params()
        X = self._fit_encoder(X)
        y = class_labels(y, n_rows(X))
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError(
                f"{type(self).__name__} needs samples of at least 2 classes; y has 1 class: "
                f"{self.classes_.tolist()!r}"
            )
        t = class_indices(y, self.classes_)
        Y = -np.ones((len(t), len(self.classes_)))
        Y[np.arange(len(t)), t] = 1.0
        self.coef_ = self._solve(X, Y, self.alpha, f"raise alpha (now {self.alpha!r})")
        return self

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
class RidgeHDRegressor(RegressorMixin, _Ridge):
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
    backend, device, seed :
        Passed to the default encoder (``seed=None``: fresh randomness, in
        ``encoder_.seed_``).
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
    >>> RidgeHDRegressor(dim=2000, alpha=1e-3, seed=0).fit(X, y).score(X, y) > 0.99
    True
    """

    def __init__(
        self,
        model: str | None = None,
        dim: int | None = None,
        *,
        encoder: Any = None,
        alpha: float = 1.0,
        batch_size: int = 1024,
        backend: Any = None,
        device: Any = None,
        seed: int | None = None,
        verbose: bool = False,
        random_state: int | None = None,
    ) -> None:
        super().__init__(
            model, dim, encoder=encoder, alpha=alpha, batch_size=batch_size, backend=backend,
            device=device, seed=seed, verbose=verbose,
            random_state=random_state,
        )  # fmt: skip

    def fit(self, X: Any, y: Any) -> RidgeHDRegressor:
        """Solve for the read-out."""
        self._check_params()
        X = self._fit_encoder(X)
        y = regression_targets(y, n_rows(X))
        self.intercept_ = float(np.mean(y))
        self.coef_ = self._solve(
            X, (y - self.intercept_)[:, None], self.alpha,
            f"scale the targets (divide them by their spread), or raise alpha (now {self.alpha!r})",
        )  # fmt: skip
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The predicted targets, shape ``(n_samples,)``."""
        return self._outputs(X)[:, 0] + self.intercept_
