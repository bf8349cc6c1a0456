"""Ridge regression on the hypervectors (IntRVFL, Kleyko et al., 2020; torchhd's ``IntRVFL``).

The encoder is a fixed random nonlinear feature map, so a regularised least-squares read
out of the encodings is a random-feature approximation of kernel ridge regression: the
learner that reaches the accuracy of kernel methods. The solve picks the smaller of two
equivalent systems: with ``n`` samples and ``w`` feature columns, ``(H H' + alpha I) A = Y``,
``W = H' A`` when ``n <= w`` (kept: the encodings, ``n * w`` numbers), else
``(H' H + alpha I) W = H' Y`` accumulated batch by batch (``w * w`` numbers, whatever ``n``).
It runs in float64 where the backend has it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._base import HDEstimator, check_positive_int, check_positive_number
from ._data import n_rows
from ._docs import shared_parameters
from ._targets import class_indices, class_labels, regression_targets

__all__ = ["RidgeHDClassifier", "RidgeHDRegressor"]


def solve_ridge(estimator: HDEstimator, X: Any, Y: np.ndarray, alpha: float) -> Any:
    """The read-out ``W (width, k)`` minimising ``|H W - Y|^2 + alpha |W|^2``."""
    space = estimator.space_
    xp, backend = space.xp, space.backend
    wide = space.wide()
    n, width = Y.shape[0], space.width
    Yd = backend.asarray(Y, dtype=wide)
    if n <= width:
        H = xp.concat([h for _, h in estimator._encoded(X)], axis=0)
        Hw = xp.astype(H, wide)
        K = Hw @ xp.permute_dims(Hw, (1, 0))
        eye = xp.eye(n, dtype=wide, device=space.model.device)
        A = xp.linalg.solve(K + alpha * eye, Yd)
        return xp.astype(xp.permute_dims(Hw, (1, 0)) @ A, space.dtype)
    G = xp.zeros((width, width), dtype=wide, device=space.model.device)
    R = xp.zeros((width, Y.shape[1]), dtype=wide, device=space.model.device)
    for rows, h in estimator._encoded(X):
        hw = xp.astype(h, wide)
        ht = xp.permute_dims(hw, (1, 0))
        G = G + ht @ hw
        R = R + ht @ Yd[rows]
    eye = xp.eye(width, dtype=wide, device=space.model.device)
    return xp.astype(xp.linalg.solve(G + alpha * eye, R), space.dtype)


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

    def _check_params(self) -> None:
        check_positive_int(self.batch_size, "batch_size")
        check_positive_number(self.alpha, "alpha")
        if not isinstance(self.verbose, bool):
            raise TypeError(f"verbose must be True or False, got {self.verbose!r}")

    def _outputs(self, X: Any) -> np.ndarray:
        """``H W`` for every sample, on the host ``(n, k)``."""
        check_is_fitted(self, "coef_")
        X = self._check_input(X)
        xp = self.space_.xp
        parts = [self.space_.product(h, self.coef_) for _, h in self._encoded(X)]
        out = parts[0] if len(parts) == 1 else xp.concat(parts, axis=0)
        return np.asarray(self.model_.backend.to_numpy(out), dtype=np.float64)


@shared_parameters
class RidgeHDClassifier(ClassifierMixin, _Ridge):
    """Ridge regression of one-hot (+1/-1) class targets on the hypervectors (IntRVFL).

    Parameters
    ----------
    {encoder_parameters}
    alpha : float, default 0.1
        The regularisation of the read-out, on unit-length encodings.
    batch_size : int, default 1024
        Samples encoded at once; memory is bounded by it, not the data set.
    backend, device, seed :
        Passed to the default encoder (``seed=None``: fresh randomness, in
        ``encoder_.seed_``).
    verbose : bool, default False
        Accepted as by the other estimators; the closed-form solve shows no progress bar.

    Attributes
    ----------
    coef_ : array of the model's backend, shape ``(width, n_classes)``
        The read-out of every class.
    classes_ : ndarray
        The labels, sorted.
    encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.

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
        self.coef_ = solve_ridge(self, X, Y, self.alpha)
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
        Samples encoded at once; memory is bounded by it, not the data set.
    backend, device, seed :
        Passed to the default encoder (``seed=None``: fresh randomness, in
        ``encoder_.seed_``).
    verbose : bool, default False
        Accepted as by the other estimators; the closed-form solve shows no progress bar.

    Attributes
    ----------
    coef_ : array of the model's backend, shape ``(width, 1)``
        The read-out.
    intercept_ : float
        The training targets' mean, added to every prediction.
    encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.

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
    ) -> None:
        super().__init__(
            model, dim, encoder=encoder, alpha=alpha, batch_size=batch_size, backend=backend,
            device=device, seed=seed, verbose=verbose,
        )  # fmt: skip

    def fit(self, X: Any, y: Any) -> RidgeHDRegressor:
        """Solve for the read-out."""
        self._check_params()
        X = self._fit_encoder(X)
        y = regression_targets(y, n_rows(X))
        self.intercept_ = float(np.mean(y))
        self.coef_ = solve_ridge(self, X, (y - self.intercept_)[:, None], self.alpha)
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The predicted targets, shape ``(n_samples,)``."""
        return self._outputs(X)[:, 0] + self.intercept_
