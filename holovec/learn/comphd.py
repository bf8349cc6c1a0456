"""CompHD: class prototypes compressed by folding their dimensions into fewer (Morris et
al., 2019; torchhd's ``CompHD``).

A row of ``D`` dimensions is cut into ``s`` chunks of ``D / s``; chunk ``j`` is multiplied
elementwise by a seeded bipolar key ``k_j`` and the chunks are summed (:func:`_folded`):
``fold(h) = sum_j k_j * h[j D/s : (j+1) D/s]``, a linear map. Prototypes are folded once
after training, queries at prediction, and scored by cosine in the ``D / s`` dimensions.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from .._params import POSITIVE_INT
from ..random import fold_in, random_signs
from ._docs import shared_parameters
from ._space import Space
from .retraining import AdaptHDClassifier

__all__ = ["CompHDClassifier"]


def _folded(space: Space, H: Any, keys: Any) -> Any:
    """Rows ``H`` ``(rows, width)`` folded by chunk keys ``keys`` ``(s, dim / s)``: each
    row's ``s`` chunks of ``dim / s`` dimensions multiplied by their keys and summed, shape
    ``(rows, width / s)`` (for complex models the real and imaginary parts each fold alike)."""
    xp = space.xp
    s, c = keys.shape
    n, parts = H.shape[0], H.shape[1] // (s * c)
    chunks = xp.reshape(H, (n, parts, s, c)) * keys[None, None, :, :]
    return xp.reshape(xp.sum(chunks, axis=2), (n, parts * c))


def _folded_cosines(space: Space, H: Any, keys: Any, Q: Any) -> Any:
    """Cosines ``(rows, classes)`` of rows ``H`` (of any positive length), folded, with the
    folded prototypes ``Q``."""
    return space.cosines(space.unit_rows(_folded(space, H, keys)), Q)


@shared_parameters
class CompHDClassifier(AdaptHDClassifier):
    """Prototypes compressed ``compression`` times by folding (CompHD, Morris et al., 2019;
    torchhd's ``CompHD``).

    The prototypes are trained as :class:`AdaptHDClassifier` trains them (``epochs=0``:
    the class means of :class:`CentroidClassifier`), then each of ``D`` dimensions (the
    model's ``dim``) is compressed to ``D / s`` (``s = compression``) by folding: cut into
    ``s`` chunks of ``D / s``, chunk ``j`` multiplied elementwise by its key ``k_j`` (a
    bipolar vector drawn from ``random_state``) and the chunks summed,
    ``fold(p) = sum_j k_j * p_j``. A query is folded the same way and scored by its cosine
    with the folded prototypes ``compressed_prototypes_``: the keys keep the chunks'
    contributions apart (``fold(h) . fold(p) = h . p`` plus cross terms of chunks with
    unrelated keys, which average out), so accuracy falls gracefully with ``s``, and at
    ``s = 1`` the predictions are the uncompressed classifier's. For complex models the
    real and imaginary parts fold alike. ``partial_fit`` learns as AdaptHD's and folds
    again after each call.

    Parameters
    ----------
    {encoder_parameters}
    compression : int, default 4
        The factor ``s`` by which the prototypes are compressed (1: not compressed); it must
        divide ``dim`` (a ``ValueError`` at ``fit`` otherwise).
    epochs : int, default 20
        Retraining passes over the training set after the first pass (0: the class means
        alone, as :class:`CentroidClassifier`), each in an order shuffled from
        ``random_state`` and the epoch.
    lr : float, default 0.035
        The weight of each update, as for :class:`AdaptHDClassifier`.
    batch_size : int, default 1024
        Samples encoded and applied at once; memory is bounded by it, not the data set.
    cache_size : float, default 512
        MiB for keeping the training set's encodings between epochs.
    verbose : bool, default False
        Show a progress bar over the epochs of training, with the training accuracy.
    {random_state}

    Attributes
    ----------
    classes_, encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.
    prototypes_ : array of the model's backend, shape ``(n_classes, width)``
        The uncompressed prototypes that training leaves (what ``partial_fit`` goes on from).
    compressed_prototypes_ : array of the model's backend, shape ``(n_classes, width / compression)``
        The folded prototypes that predictions are scored against (what a device holds).
    chunk_keys_ : array of the model's backend, shape ``(compression, dim / compression)``
        The bipolar key of each chunk.
    class_sums_, class_counts_ :
        The class sums and counts of every sample so far (see :class:`AdaptHDClassifier`).

    References
    ----------
    J. Morris, M. Imani, S. Bosch, A. Thomas, H. Shu and T. Rosing, "CompHD:
    Efficient Hyperdimensional Computing Using Model Compression", ISLPED 2019.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from holovec.learn import CompHDClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> clf = CompHDClassifier(dim=500, compression=5, epochs=2, random_state=0).fit(X, y)
    >>> clf.compressed_prototypes_.shape, clf.score(X, y) > 0.9
    ((10, 200), True)
    """

    _defaults: ClassVar[dict[str, Any]] = {"compression": 4}
    _parameter_rules: ClassVar[dict[str, Any]] = {"compression": POSITIVE_INT}
    #: folded prototypes are not the model's vectors: no binarised inference
    _dropped_parameters: ClassVar[tuple[str, ...]] = ("binarize",)
    binarize = False

    def _fit_encoder(self, X: Any) -> Any:
        X = super()._fit_encoder(X)
        self._check_compression()
        return X

    def _check_compression(self) -> None:
        dim, s = self.model_.dim, self.compression
        if dim % s:
            divisors = [d for d in range(1, min(dim, 100) + 1) if dim % d == 0]
            raise ValueError(
                f"CompHDClassifier: compression={s} must divide the model's dim={dim} (the "
                f"prototypes fold into chunks of dim / compression dimensions); divisors of {dim} "
                f"up to 100: {divisors}"
            )

    def _finish(self) -> None:
        """After training (and at load): the prototypes folded by the chunk keys."""
        super()._finish()
        self._check_compression()
        space, dim, s = self.space_, self.model_.dim, self.compression
        keys = random_signs(space.backend, fold_in(self.encoder_.seed_, "comphd-keys"), 1, dim, space.dtype)
        self.chunk_keys_ = space.xp.reshape(keys, (s, dim // s))
        self.compressed_prototypes_ = space.run(_folded, self.prototypes_, self.chunk_keys_)

    def _batch_scores(self, H: Any, scale: float = 1.0) -> Any:
        # (the cosine of a folded row does not depend on its length: ``scale`` cancels)
        return self.space_.run(_folded_cosines, H, self.chunk_keys_, self.compressed_prototypes_)

    def _canonical_scores(self, H: Any, candidates: np.ndarray) -> np.ndarray:
        space = self.space_
        folded = space.run(_folded, H, self.chunk_keys_)
        return space.canonical_cosines(folded, self.compressed_prototypes_, candidates)
