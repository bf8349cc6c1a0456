"""RegHD-style regression: one hypervector model trained by least-mean-squares (private
module of :class:`RegHDRegressor`)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from .._params import NON_NEGATIVE, POSITIVE_INT, Interval
from ._base import Batch
from ._docs import shared_parameters
from ._engine import Regressor, Rule
from ._space import Space, scaled_product
from ._targets import check_target_range

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
    err = r - (kernels.matmul(backend, H, coef) + b)
    ridge = _DELTA * xp.eye(err.shape[0], dtype=space.dtype, device=backend.device)
    if weights is None:
        gram = space.product(H, xp.permute_dims(H, (1, 0))) + (1.0 + ridge)
    else:
        err, Hm = err * weights, space.masked(H, weights)
        gram = space.product(Hm, xp.permute_dims(Hm, (1, 0))) + (weights[:, None] * weights[None, :] + ridge)
    with kernels.full_precision(backend):  # (the LU solve may multiply inside)
        a = lr * xp.linalg.solve(gram, err[:, None])[:, 0]
    coef = coef + kernels.matmul(backend, a, H)
    return coef, b + xp.sum(a, keepdims=True), total + xp.sum(err * err, keepdims=True)


@shared_parameters
class RegHDRegressor(Regressor):
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
        Passes over the training set, each in an order shuffled from ``random_state`` and the epoch:
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
    >>> RegHDRegressor(dim=2000, random_state=0).fit(X, y).score(X, y) > 0.9
    True
    """

    _defaults: ClassVar[dict[str, Any]] = {
        "epochs": 5,
        "lr": 0.1,
        "batch_size": 32,
        "cache_size": 512,
    }

    _parameter_rules: ClassVar[dict[str, Any]] = {
        "epochs": POSITIVE_INT,
        # the affine projection algorithm's step converges in (0, 2) and diverges beyond
        "lr": Interval(0, 2, closed="neither"),
        "cache_size": NON_NEGATIVE,
    }

    @classmethod
    def fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        return {"coef_": (width,), "intercept_": ()}

    # (the hooks of the template fit and partial_fit: see holovec.learn._engine)
    def _learn(self, X: Any, y: np.ndarray) -> None:
        """Train ``w`` and ``b`` for ``epochs`` passes."""
        self._start(y)
        self._train_epochs(X, self._rule(y))

    def _starts_stream(self) -> bool:
        return not hasattr(self, "coef_")

    def _learn_stream(self, X: Any, y: np.ndarray, first: bool) -> None:
        """One pass over a batch of a stream."""
        if first:
            self._start(y)
        self._train_epochs(X, self._rule(y), passes=[None])

    def _start(self, y: np.ndarray) -> None:
        self.coef_ = self.space_.zeros(1)[0]
        self.intercept_ = float(np.mean(y))

    def _rule(self, y: np.ndarray) -> Rule:
        """Least-mean-squares over the residuals ``y - intercept_`` (taken in float64 on the
        host, so the targets' offset loses no precision): ``w`` and the intercept's change
        ``b`` move against each batch's errors; each pass ends with them checked and set."""
        space = self.space_
        xp, backend = space.xp, space.backend
        lr = float(self.lr)  # a Python float: a NumPy scalar would widen float32 arrays

        def start() -> tuple[Any, Any, Any, Any]:  # a pass's state (its residuals made at its first batch)
            zero = xp.zeros((1,), dtype=space.dtype, device=space.model.device)
            return self.coef_, zero, zero, None

        def learn(state: tuple[Any, ...], batch: Batch, epoch: int | None) -> tuple[Any, ...]:
            coef, b, total, residual = state
            if residual is None:
                residual = y - self.intercept_
                check_target_range(residual, space.dtype_name, type(self).__name__)
            r = backend.asarray(batch.take(residual), dtype=space.dtype)
            return (*space.run(_lms_step, coef, b, total, batch.H, r, batch.weights, lr), residual)

        def end(state: tuple[Any, ...], epoch: int | None) -> tuple[Any, dict[str, str] | None]:
            # the pass computed once on a lazy backend (not again by each prediction)
            done = space.computed(xp.concat(state[:3]))
            coef, b = done[:-2], done[-2]
            self._check_in_range(
                xp.sum(xp.abs(coef)) + xp.abs(b), "the model vector",
                f"lower lr (now {self.lr!r}), or scale the targets (divide them by their spread)",
            )  # fmt: skip
            self.coef_ = coef
            self.intercept_ = self.intercept_ + float(b)
            shown = {"train_mse": f"{float(done[-1]) / len(y):.4g}"} if self.verbose else None
            return start(), shown

        return Rule(start, learn, lambda state: None, end)

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
