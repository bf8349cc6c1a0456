"""SparseHD: sparse class prototypes, retrained with their sparsity kept (Imani et al.,
2019; torchhd's ``SparseHD``).

After the first pass (class means), a mask keeps a ``1 - sparsity`` fraction of the
prototypes' elements: the same dimensions for every class (those that vary most across
the classes) or, class by class, each prototype's largest elements; then ``epochs`` passes
of AdaptHD's rule update the kept elements alone (:func:`_sparse_step`).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._params import Interval, Options
from ._base import Batch
from ._docs import shared_parameters
from ._engine import Rule
from ._space import Space
from ._steps import counts_along, mistakes, taking
from .retraining import AdaptHDClassifier

__all__ = ["SparseHDClassifier"]


def _sparse_step(space: Space, P: Any, H: Any, t: Any, weights: Any, lr: float, keep: Any) -> Any:
    """AdaptHD's step on the kept elements: a misclassified sample added to its class and
    taken from the predicted one, the batch's sum masked by ``keep`` ``(classes, width)``
    (1 for a kept element, 0 for a dropped one) and taking the step along it that
    misclassifies the fewest of the batch's samples (as ``best_step``): prototypes that
    are 0 off the mask stay so."""
    xp = space.xp
    S, true, pred, wrong = mistakes(space, P, H, t, weights)
    D = space.add(xp.zeros_like(P), lr * wrong * (true - pred), H) * keep
    counts = counts_along(space, P, S, D, space.product(H, xp.permute_dims(D, (1, 0))), true, wrong, weights)
    return taking(space, P, D, counts)


def _kept_count(sparsity: float, dim: int) -> int:
    """How many of ``dim`` dimensions a mask of ``sparsity`` keeps (per class, or in all):
    ``round((1 - sparsity) * dim)``, at least 1.

    Parameters
    ----------
    sparsity : float
        The fraction of dimensions dropped, in [0, 1).
    dim : int
        The model's dimension.

    Returns
    -------
    int
        The number of dimensions kept.
    """
    return max(1, round((1.0 - sparsity) * dim))


@shared_parameters
class SparseHDClassifier(AdaptHDClassifier):
    """Sparse class prototypes, retrained with their sparsity kept (SparseHD, Imani et al.,
    2019; torchhd's ``SparseHD``).

    After the first pass (the class means, as :class:`AdaptHDClassifier`'s), the
    prototypes are sparsified to ``n = round((1 - sparsity) * dim)`` dimensions (at least
    1): with ``sparsity_kind="dimension"`` the same ``n`` dimensions for every class, those
    whose values vary most across the unit-length prototypes (the dimensions of smallest
    variance, which tell the classes apart least, are dropped); with ``"class"`` each
    prototype keeps its ``n`` elements of largest magnitude (for complex models the
    modulus: the real and imaginary parts of a dimension are kept or dropped together).
    Ties go to the lower dimension. Then ``epochs`` passes of AdaptHD's rule update the
    kept elements alone (each batch's summed update masked, taking the step that
    misclassifies the fewest of the batch's samples), so that the prototypes stay sparse:
    a device stores and multiplies only the kept elements.

    ``partial_fit`` chooses the mask on the first call of a stream (from that batch's
    class means) and keeps it: each call moves the prototypes by the change of the class
    means on the kept elements, then retrains ``epochs`` passes over the batch.

    Parameters
    ----------
    {encoder_parameters}
    sparsity : float, default 0.5
        The fraction of each prototype's dimensions set to 0, in [0, 1).
    sparsity_kind : {"dimension", "class"}, default "dimension"
        The same dimensions dropped for every class (``"dimension"``), or each class's own
        smallest elements (``"class"``).
    epochs : int, default 20
        Retraining passes over the training set after the sparsification, each in an
        order shuffled from ``random_state`` and the epoch.
    lr : float, default 0.035
        The weight of each update, as for :class:`AdaptHDClassifier`.
    batch_size : int, default 1024
        Samples encoded and applied at once; memory is bounded by it, not the data set.
    cache_size : float, default 512
        MiB for keeping the training set's encodings between epochs.
    verbose : bool, default False
        Show a progress bar over the epochs of training.
    {random_state}

    Attributes
    ----------
    classes_, encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.
    prototypes_ : array of the model's backend, shape ``(n_classes, width)``
        The sparse prototypes (0 where the mask is).
    sparsity_mask_ : array of the model's backend, shape ``(n_classes, width)``
        1 for each kept element, 0 for each dropped one.
    class_sums_, class_counts_ :
        The class sums and counts of every sample so far (see :class:`AdaptHDClassifier`).

    References
    ----------
    M. Imani, S. Salamat, B. Khaleghi, M. Samragh, F. Koushanfar and T. Rosing,
    "SparseHD: Algorithm-Hardware Co-Optimization for Efficient High-Dimensional
    Computing", IEEE FCCM 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from holovec.learn import SparseHDClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = SparseHDClassifier(dim=500, sparsity=0.8, epochs=2, random_state=0).fit(X, y)
    >>> round(float(clf.sparsity_mask_.mean()), 3), clf.score(X, y) > 0.9
    (0.2, True)
    """

    _defaults: ClassVar[dict[str, Any]] = {"sparsity": 0.5, "sparsity_kind": "dimension"}
    _parameter_rules: ClassVar[dict[str, Any]] = {
        "sparsity": Interval(0, 1, closed="left"),
        "sparsity_kind": Options("dimension", "class"),
    }
    #: the signs of sparse prototypes are dense: no binarised inference
    _dropped_parameters: ClassVar[tuple[str, ...]] = ("binarize",)
    binarize = False

    def _learn_stream(self, X: Any, t: np.ndarray, first: bool, *, fitting: bool = False) -> None:
        if first:  # (a stream, or a fit, chooses its mask anew)
            self.sparsity_mask_ = None
        super()._learn_stream(X, t, first, fitting=fitting)

    def _train(self, X: Any, t: np.ndarray) -> None:
        self._sparse(X, t, self._initial)

    def _stream(self, X: Any, t: np.ndarray) -> None:
        self._sparse(X, t, self._stream_initial)

    def _sparse(self, X: Any, t: np.ndarray, first_pass: Any) -> None:
        """``first_pass`` (the class means, or their change over a stream), the prototypes
        sparsified (the mask chosen where there is none yet), then ``epochs`` passes of
        :func:`_sparse_step`."""
        with self._keeping_encodings(X):  # (encoded once for the first pass and the epochs)
            first_pass(X, t)
            if self.sparsity_mask_ is None:
                self.sparsity_mask_ = self._mask(self.prototypes_)
            self.prototypes_ = self.prototypes_ * self.sparsity_mask_
            space, keep, lr = self.space_, self.sparsity_mask_, float(self.lr)

            def learn(P: Any, batch: Batch, epoch: int | None) -> Any:
                return space.run(
                    _sparse_step, P, batch.H, space.indices(batch.take(t)), batch.weights, lr, keep
                )

            def finish(P: Any) -> None:
                self.prototypes_ = space.computed(P)

            self._train_epochs(X, Rule(lambda: self.prototypes_, learn, finish))

    def _mask(self, P: Any) -> Any:
        """The mask of the kept elements of prototypes ``P`` (see the class), chosen on the
        host in float64, as floats of the learning space ``(classes, width)``."""
        space, dim = self.space_, self.model_.dim
        host = np.asarray(space.backend.to_numpy(space.unit_rows(P)), np.float64)
        C, parts = host.shape[0], space.width // dim
        per_dim = host.reshape(C, parts, dim)  # (complex models: the real, then imaginary parts)
        n = _kept_count(self.sparsity, dim)
        if self.sparsity_kind == "dimension":
            spread = np.var(per_dim, axis=0).sum(axis=0)
            order = np.broadcast_to(np.argsort(-spread, kind="stable")[:n], (C, n))
        else:
            order = np.argsort(-np.sum(per_dim**2, axis=1), axis=1, kind="stable")[:, :n]
        keep = np.zeros((C, dim), dtype=bool)
        np.put_along_axis(keep, order, True, axis=1)
        return space.backend.asarray(np.tile(keep, (1, parts)), dtype=space.dtype)

    @classmethod
    def fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        return super().fitted_shapes(n_classes, width) | {"sparsity_mask_": (n_classes, width)}

    #: the prototypes are stored only where the mask keeps them: noise hits the kept elements
    readout_masks: ClassVar[dict[str, str]] = {"prototypes_": "sparsity_mask_"}

    @classmethod
    def readout_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        """The read-out: the sparse ``prototypes_`` alone (their kept elements, see
        :attr:`readout_masks`); the ``sparsity_mask_`` is structure, which dimensions a
        device stores, not values it stores.

        Parameters
        ----------
        n_classes : int or None
            The classes.
        width : int
            The learning space's width (``dim``; twice that for complex models).

        Returns
        -------
        dict of str to tuple of int
            Each read-out attribute's shape.
        """
        shapes = super().readout_shapes(n_classes, width)
        return {name: shape for name, shape in shapes.items() if name != "sparsity_mask_"}

    def restore_derived(self) -> None:
        space, dim = self.space_, self.model_.dim
        keep = np.asarray(space.backend.to_numpy(self.sparsity_mask_), np.float64)
        C, parts = keep.shape[0], space.width // dim
        per_dim = keep.reshape(C, parts, dim)
        counts = per_dim[:, 0].sum(axis=1)
        ok = (
            np.all((keep == 0) | (keep == 1))
            and np.all(per_dim == per_dim[:, :1])
            and np.all(counts == _kept_count(self.sparsity, dim))
            and (self.sparsity_kind == "class" or np.all(per_dim == per_dim[:1]))
        )
        if not ok:
            raise ValueError(
                f"SparseHDClassifier: the saved sparsity_mask_ must keep {_kept_count(self.sparsity, dim)} "
                f"of {dim} dimensions per class (sparsity={self.sparsity!r}, sparsity_kind="
                f"{self.sparsity_kind!r}), as a fit leaves it"
            )
        if np.any(np.asarray(space.backend.to_numpy(self.prototypes_))[keep == 0] != 0):
            raise ValueError("SparseHDClassifier: the saved prototypes_ must be 0 where sparsity_mask_ is")
        self.sparsity_mask_ = space.backend.asarray(keep, dtype=space.dtype)
        super().restore_derived()
