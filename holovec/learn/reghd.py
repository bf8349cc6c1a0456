"""RegHD-style regression: one hypervector model trained by least-mean-squares (private
module of :class:`RegHDRegressor`)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from .._params import NON_NEGATIVE, POSITIVE_INT, Interval
from ._base import HDEstimator
from ._data import n_rows
from ._docs import shared_parameters
from ._space import Space, scaled_product
from ._targets import check_target_range, regression_targets

__all__ = ["RegHDRegressor"]

#: regularisation of each batch's step (keeps the small solve well posed for similar samples)
_DELTA = 1e-3


def _lms_step(
    space: Space, coef: Any, b: Any, total: Any, H: Any, r: Any, weights: Any, lr: float
) -> tuple[Any, Any, Any]:
    """One batch's step of the affine projection algorithm (NLMS for a batch of ``m``):
    ``a = lr (H H' + 1 + delta I)^-1 err`` moves the prediction of every sample of the
    batch ``lr`` of the way to its residual ``r`` at once (the 1 is the intercept's
    column); ``w += a H``, ``b += sum(a)``, and ``total`` adds the squared errors. Rows of
    padding (``weights`` 0, see ``Batch``) have no error and no intercept: the system's
    block of them is ``delta I`` and their coefficients 0. On a lazy backend the step stays
    in the pass's graph (its chunks are square). A pure function of arrays (``Space.run``)."""
    xp, backend = space.xp, space.backend
    err = r - (backend.matmul(H, coef) + b)
    ridge = _DELTA * xp.eye(err.shape[0], dtype=space.dtype, device=backend.device)
    if weights is None:
        gram = space.product(H, xp.permute_dims(H, (1, 0))) + (1.0 + ridge)
    else:
        err, Hm = err * weights, space.masked(H, weights)
        gram = space.product(Hm, xp.permute_dims(Hm, (1, 0))) + (weights[:, None] * weights[None, :] + ridge)
    with backend.full_precision():  # (the LU solve may multiply inside)
        a = lr * xp.linalg.solve(gram, err[:, None])[:, 0]
    coef = coef + backend.matmul(a, H)
    return coef, b + xp.sum(a, keepdims=True), total + xp.sum(err * err, keepdims=True)


@shared_parameters
class RegHDRegressor(RegressorMixin, HDEstimator):
    """Regression by one model hypervector (single-model RegHD, Hernández-Cano et al., 2021).

    The prediction is ``<w, h> + b`` for the unit-length encoding ``h``; each minibatch
    moves ``w`` and ``b`` against the batch's errors, for ``epochs`` passes in a seeded
    shuffled order. ``partial_fit`` applies one pass to a
    stream. This is RegHD's single-model form; its multi-model clustering is not included,
    and :class:`RidgeHDRegressor` solves the same read-out in closed form.

    Each batch's step is that of the affine projection algorithm (normalised LMS for a
    batch): it moves the batch's predictions ``lr`` of the way to their targets. Few
    epochs and a small ``lr`` regularise (the step fits noise otherwise). The intercept
    starts at the targets' mean and is kept in float64 on the host, so a large offset of
    the targets (timestamps, say) costs no precision; the model vector learns the rest.

    Parameters
    ----------
    {encoder_parameters}
    epochs : int, default 5
        Passes over the training set, each in an order shuffled from ``seed`` and the epoch:
        at least 1 (they are the whole training; the classifiers' ``epochs=0`` means their
        first pass alone, which RegHD does not have).
    lr : float in (0, 2), default 0.1
        How far each batch's step moves the batch's predictions towards their targets
        (the step converges for ``0 < lr < 2`` and diverges beyond).
    batch_size : int, default 32
        Samples per step (small batches take more steps per epoch); memory is bounded by
        it, not the data set.
    cache_size : float, default 512
        MiB for keeping the training set's encodings between epochs: kept when they fit,
        else encoded again every epoch (0: never kept).
    backend, device, seed :
        Passed to the default encoder (``seed=None``: fresh randomness, in
        ``encoder_.seed_``); the seed also orders the passes.
    verbose : bool, default False
        Show a progress bar over the epochs of training.
    {random_state}

    Attributes
    ----------
    coef_ : array of the model's backend, shape ``(width,)``
        The model hypervector ``w`` in the learning space.
    intercept_ : float
        The bias ``b`` (float64).
    encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from holovec.learn import RegHDRegressor
    >>> X = np.linspace(0, 6, 200)[:, None]
    >>> y = np.sin(X[:, 0])
    >>> RegHDRegressor(dim=2000, seed=0).fit(X, y).score(X, y) > 0.9
    True
    """

    def __init__(
        self,
        model: str | None = None,
        dim: int | None = None,
        *,
        encoder: Any = None,
        epochs: int = 5,
        lr: float = 0.1,
        batch_size: int = 32,
        cache_size: float = 512,
        backend: Any = None,
        device: Any = None,
        seed: int | None = None,
        verbose: bool = False,
        random_state: int | None = None,
    ) -> None:
        self.model = model
        self.dim = dim
        self.encoder = encoder
        self.epochs = epochs
        self.lr = lr
        self.batch_size = batch_size
        self.cache_size = cache_size
        self.backend = backend
        self.device = device
        self.seed = seed
        self.verbose = verbose
        self.random_state = random_state

    _parameter_rules: ClassVar[dict[str, Any]] = {
        "epochs": POSITIVE_INT,
        # the affine projection algorithm's step converges in (0, 2) and diverges beyond
        "lr": Interval(0, 2, closed="neither"),
        "cache_size": NON_NEGATIVE,
    }

    @classmethod
    def fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        return {"coef_": (width,), "intercept_": ()}

    def fit(self, X: Any, y: Any) -> RegHDRegressor:
        """Train ``w`` and ``b`` for ``epochs`` passes."""
        self._check_params()
        X = self._fit_encoder(X)
        y = regression_targets(y, n_rows(X))
        self._start(y)
        bar = self._progress(self.epochs, type(self).__name__)
        with self._keeping_encodings(X):
            for epoch in bar:
                loss = self._pass(X, y, epoch)
                if self.verbose:
                    bar.set_postfix(train_mse=f"{loss / len(y):.4g}")
        return self

    def partial_fit(self, X: Any, y: Any) -> RegHDRegressor:
        """One pass over a batch of a stream (the first call fits the encoder on it)."""
        if not hasattr(self, "coef_"):
            self._check_params()
            X = self._fit_encoder(X)
            y = regression_targets(y, n_rows(X))
            self._start(y)
        else:
            X = self._check_input(X)
            y = regression_targets(y, n_rows(X))
        self._pass(X, y, None)
        return self

    def _start(self, y: np.ndarray) -> None:
        self.coef_ = self.space_.zeros(1)[0]
        self.intercept_ = float(np.mean(y))

    def _pass(self, X: Any, y: np.ndarray, epoch: int | None) -> float:
        """One pass of least-mean-squares over the residuals ``y - intercept_`` (taken in
        float64 on the host, so the targets' offset loses no precision): ``w`` and the
        intercept's change ``b`` move against each batch's errors. Returns the sum of
        squared errors before each step."""
        space = self.space_
        xp, backend = space.xp, space.backend
        residual = y - self.intercept_
        check_target_range(residual, space.dtype_name, type(self).__name__)
        lr = float(self.lr)  # a Python float: a NumPy scalar would widen float32 arrays
        coef = self.coef_
        b = total = xp.zeros((1,), dtype=space.dtype, device=space.model.device)
        for batch in self._encoded(X, epoch=epoch, training=epoch is not None):
            r = backend.asarray(batch.take(residual), dtype=space.dtype)
            coef, b, total = space.run(_lms_step, coef, b, total, batch.H, r, batch.weights, lr)
        # the pass computed once on a lazy backend (not again by each prediction)
        state = space.computed(xp.concat([coef, b, total]))
        coef, b = state[:-2], state[-2]
        self._check_in_range(
            xp.sum(xp.abs(coef)) + xp.abs(b), "the model vector",
            f"lower lr (now {self.lr!r}), or scale the targets (divide them by their spread)",
        )  # fmt: skip
        self.coef_ = coef
        self.intercept_ = self.intercept_ + float(b)
        return float(state[-1])

    def restore_derived(self) -> None:
        self._check_saved_range(self.coef_, "the model vector's values")

    def predict(self, X: Any) -> np.ndarray:
        """The predicted targets ``<w, h> + b``, shape ``(n_samples,)``."""
        check_is_fitted(self, "coef_")
        X = self._check_input(X)
        space, column = self.space_, self.coef_[:, None]
        batches = self._encoded(X, scaled=True)  # (the scale goes with H w)
        out = self._on_host((b, space.run(scaled_product, b.H, column, b.scale)) for b in batches)
        # the float64 intercept added on the host (the learning space's floats may be float32)
        return out[:, 0] + self.intercept_
