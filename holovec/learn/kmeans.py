"""Hyperdimensional k-means: clusters of encodings by the model's similarity (private
module of :class:`HDKMeans`).

The samples are encoded once (unit rows of the learning space, as the classifiers see
them) and clustered by spherical k-means: each sample goes to the centroid of highest
cosine, each centroid is the normalised sum (the bundle) of its members. Every step is
matrix products on the model's backend and device: the ``(n, k)`` cosines, and the
``(k, width)`` sums moved by the changes of assignment (one-hot rows) times the encodings
of the samples that changed. Only the cosines and the labels come to the host, where the
assignment, seeding and convergence are decided in float64 with NumPy's rules (the first
cluster wins a tie), so that the same seed gives the same clusters on every backend up to
float rounding of near ties.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, ClassVar

import numpy as np
from sklearn.base import ClassNamePrefixFeaturesOutMixin, ClusterMixin, TransformerMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from .. import kernels
from .._params import NON_NEGATIVE, POSITIVE_INT, Either, Options, fit_context
from ..backends import dtype_name
from ..random import fold_in
from ._base import HDEstimator
from ._data import n_rows
from ._docs import shared_parameters
from ._space import Space
from .encoding import HDEncoder

__all__ = ["HDKMeans"]


def _cosines(space: Space, H: Any, C: Any) -> np.ndarray:
    """Host float64 cosines ``(n, k)`` of unit rows ``H`` with unit centroids ``C``."""
    S = space.product(H, space.xp.permute_dims(C, (1, 0)))
    return np.asarray(space.backend.to_numpy(S), dtype=np.float64)


#: the default encoder's bandwidth times the samples' RMS distance: the cosine of two
#: encodings is then about exp(-2 d^2 / rms^2) for samples d apart (near 1 for near samples,
#: 0.14 for two at the typical distance); on digits and iris 1.5 to 3 gave the best
#: clusters (adjusted Rand index; 1: 0.06 lower on digits)
BANDWIDTH_PER_SPREAD = 2.0


def _bandwidth(X: Any, backend: Any) -> float:
    """The default encoder's bandwidth for checked features ``X``: ``BANDWIDTH_PER_SPREAD``
    over the RMS distance of two samples, ``sqrt(2 * total variance)`` (1 where the
    features do not vary at all).

    Scale-safe, so the bandwidth times the data's scale is the same at every scale: the
    variance is computed in the backend's widest float (float64 where it has one) of the
    features divided by their largest magnitude (at most 1: no square overflows, and
    none of a feature that matters underflows), and the spread is that of the scaled
    features times the magnitude.

    Parameters
    ----------
    X : array
        The checked features ``(n_samples, n_features)``: NumPy, or an array of
        ``backend``'s framework.
    backend : Backend
        The encoder's model's backend (where a framework's array is reduced).

    Returns
    -------
    float
        The bandwidth, positive and finite; ``ValueError`` where it is not (features so
        large that their spread's inverse underflows to 0).
    """
    if isinstance(X, np.ndarray):
        xp, x = np, np.asarray(X, dtype=np.float64)
    else:
        xp = backend.xp
        x = xp.astype(backend.asarray(X), kernels.default_float_dtype(backend))
    magnitude = float(xp.max(xp.abs(x)))
    if magnitude == 0.0:
        return 1.0
    unit_spread = math.sqrt(2.0 * float(xp.sum(xp.var(x / magnitude, axis=0))))
    if unit_spread == 0.0:
        return 1.0  # (every sample the same: any bandwidth clusters them alike)
    bandwidth = BANDWIDTH_PER_SPREAD / unit_spread / magnitude
    if not 0.0 < bandwidth < math.inf:
        raise ValueError(
            f"HDKMeans: the default encoder's bandwidth, {BANDWIDTH_PER_SPREAD} over the samples' RMS "
            f"distance ({unit_spread:g} x {magnitude:g}), is not a positive float; scale the features "
            "nearer 1 or give an encoder with its own bandwidth"
        )
    return bandwidth


def _distances(cosines: np.ndarray) -> np.ndarray:
    """Cosine distances ``1 - cos`` (half the squared distance of unit rows), at least 0
    (a cosine of a row with itself may round above 1)."""
    return np.maximum(1.0 - cosines, 0.0)


@shared_parameters
class HDKMeans(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, HDEstimator):
    """k-means on hypervectors: spherical k-means of the samples' encodings.

    The samples are encoded by the estimator's :class:`HDEncoder` (as the classifiers
    encode them) and clustered by Lloyd's iterations with the model's similarity, the
    cosine of the learning space: each sample joins the centroid it is most similar to
    (the first one on a tie), and each centroid becomes the normalised bundle (sum) of its
    members. With the sinusoid encoding the cosine of two encodings approximates a
    Gaussian kernel of the features, so this is close to kernel k-means. A cluster left
    empty takes the sample farthest from its centroid (as scikit-learn's ``KMeans`` does).

    The default encoder (``encoder=None``) takes the features as they are, unstandardised
    (k-means's geometry is the data's own, as ``KMeans`` sees it: standardising iris
    lowers either's adjusted Rand index from about 0.72 to 0.62-0.64), with the bandwidth
    ``BANDWIDTH_PER_SPREAD`` (2) over the RMS distance of two samples, ``sqrt(2 * total
    variance)``. A given :class:`HDEncoder` is used with its own settings.

    Distances are cosine distances ``1 - cos`` (half the squared Euclidean distance of the
    unit rows): ``transform`` returns them, ``inertia_`` sums them over the samples, and
    ``score`` is minus that sum.

    Parameters
    ----------
    n_clusters : int, default 8
        The number of clusters (at most the number of samples).
    {encoder_parameters}
    init : {"k-means++", "random"}, default "k-means++"
        The first centroids: samples chosen by greedy k-means++ on the encodings (each
        next one drawn with probability proportional to its distance to the chosen ones,
        the best of ``2 + log(k)`` draws), or ``n_clusters`` distinct samples at random.
    n_init : int or "auto", default "auto"
        Runs from different seeds; the one of lowest inertia is kept. ``"auto"``: 1 for
        k-means++, 10 for random (scikit-learn's rule).
    max_iter : int, default 300
        The most Lloyd iterations of one run.
    tol : float, default 1e-4
        A run stops when the centroids move less than this (the sum of their squared
        shifts; they are unit rows) or no sample changes cluster.
    batch_size : int, default 1024
        Samples encoded at once (and scored at once by ``predict``). ``fit`` keeps all
        the encodings, ``n * width`` floats of the learning space.
    verbose : bool, default False
        Show a progress bar over the runs.
    {random_state}

    Attributes
    ----------
    cluster_centers_ : array of the model's backend, shape ``(n_clusters, width)``
        The centroids, unit rows of the learning space (``width`` is ``dim``, twice that
        for complex models).
    labels_ : ndarray of int, shape ``(n_samples,)``
        Each training sample's cluster.
    inertia_ : float
        The sum of the training samples' cosine distances to their centroids.
    n_iter_ : int
        The Lloyd iterations of the run kept.
    encoder_ : HDEncoder
        The fitted encoder.
    model_ : holovec model
        The model of the encodings.
    n_features_in_ : int
        Number of features seen in ``fit`` (numeric input only).

    Notes
    -----
    A saved estimator (:meth:`save`) holds the encoder and ``cluster_centers_``: it
    predicts and transforms as the fitted one; ``labels_``, ``inertia_`` and ``n_iter_``
    describe the training run and are not saved.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.metrics import adjusted_rand_score
    >>> from holovec.learn import HDKMeans
    >>> X, y = load_iris(return_X_y=True)
    >>> km = HDKMeans(n_clusters=3, dim=2000, random_state=0).fit(X)
    >>> adjusted_rand_score(y, km.labels_) > 0.5
    True
    """

    _parameter_rules: ClassVar[dict[str, Any]] = {
        "n_clusters": POSITIVE_INT,
        "init": Options("k-means++", "random"),
        "n_init": Either(Options("auto"), POSITIVE_INT),
        "max_iter": POSITIVE_INT,
        "tol": NON_NEGATIVE,
    }

    _positional: ClassVar[tuple[str, ...]] = ("n_clusters", "model", "dim")
    _defaults: ClassVar[dict[str, Any]] = {
        "n_clusters": 8,
        "init": "k-means++",
        "n_init": "auto",
        "max_iter": 300,
        "tol": 1e-4,
    }

    # -- fitting ----------------------------------------------------------------------------
    def _make_encoder(self) -> HDEncoder:
        """The encoder; the default one sees the features unstandardised (see ``fit``)."""
        encoder = super()._make_encoder()
        if self.encoder is None:
            encoder.set_params(standardize=False)
        return encoder

    def _fit_encoder(self, X: Any) -> Any:
        """The encoder fitted on ``X``; the default one fitted again with the bandwidth of
        the features' spread (as checked by the first fit)."""
        X = super()._fit_encoder(X)
        if self.encoder is None:
            encoder = self.encoder_.set_params(bandwidth=_bandwidth(X, self.encoder_.model_.backend))
            X = encoder.fit_checked(X)
            self.model_, self.space_ = encoder.model_, Space(encoder.model_)
        return X

    @fit_context
    def fit(self, X: Any, y: Any = None) -> HDKMeans:
        """Cluster the samples ``X`` (``y`` is ignored)."""
        self._fit(X)
        return self

    @fit_context
    def fit_transform(self, X: Any, y: Any = None) -> np.ndarray:
        """:meth:`fit`, then the training samples' distances to the centroids (from the
        encodings of the fit, not encoded again)."""
        return _distances(self._fit(X))

    @fit_context
    def fit_predict(self, X: Any, y: Any = None) -> np.ndarray:
        """:meth:`fit`, then ``labels_``."""
        self._fit(X)
        return self.labels_

    def _fit(self, X: Any) -> np.ndarray:
        """Fit; the training samples' cosines with the centroids kept, ``(n, k)``."""
        X = self._fit_encoder(X)
        n, k = n_rows(X), self.n_clusters
        if n < k:
            raise ValueError(f"n_samples={n} should be >= n_clusters={k}.")
        space = self.space_
        itemsize = np.dtype(dtype_name(space.dtype)).itemsize
        space.check_memory(
            2 * self._padded_rows(n) * space.width * itemsize,
            f"{type(self).__name__}.fit (the encodings of {n} samples)",
            "use fewer samples or a smaller dim",
        )
        H = self._encode_all(X)[:n]  # (rows past n are padding where batches are padded)
        n_init = self.n_init
        if isinstance(n_init, str):  # "auto"
            n_init = 1 if self.init == "k-means++" else 10
        best = None
        for run in self._progress(n_init, "k-means runs"):
            rng = np.random.default_rng(fold_in(self.encoder_.seed_, "k-means", run) % 2**64)
            result = self._lloyd(H, self._first_centroids(H, rng))
            if best is None or result[3] < best[3]:  # the first run of lowest inertia
                best = result
        C, labels, cosines, inertia, n_iter = best
        found = len(np.unique(labels))
        if found < k:  # (samples repeated: a centroid that repeats another never wins a tie)
            warnings.warn(
                f"{type(self).__name__}: found {found} distinct clusters, fewer than n_clusters={k}: "
                "the samples may hold fewer distinct points",
                ConvergenceWarning,
                stacklevel=3,
            )
        self.cluster_centers_ = space.computed(C)
        self.labels_, self.inertia_, self.n_iter_ = labels, inertia, n_iter
        return cosines

    def _first_centroids(self, H: Any, rng: np.random.Generator) -> Any:
        """The first centroids: rows of ``H`` chosen by k-means++ or at random."""
        n, k = H.shape[0], self.n_clusters
        if self.init == "random":
            chosen = rng.choice(n, size=k, replace=False)
        else:
            chosen = self._kmeans_plus_plus(H, rng)
        return self._rows(H, chosen)

    def _kmeans_plus_plus(self, H: Any, rng: np.random.Generator) -> np.ndarray:
        """Greedy k-means++ (Arthur and Vassilvitskii 2007; scikit-learn's variant): each
        next centroid is the best, by the distances that remain, of ``2 + log(k)`` samples
        drawn with probability proportional to their distance to the chosen ones."""
        n, k = H.shape[0], self.n_clusters
        trials = 2 + int(math.log(k))
        chosen = [int(rng.integers(n))]
        closest = _distances(_cosines(self.space_, H, self._rows(H, chosen)))[:, 0]
        for _ in range(1, k):
            cumulative = np.cumsum(closest)
            draws = rng.uniform(size=trials) * cumulative[-1]
            candidates = np.minimum(np.searchsorted(cumulative, draws), n - 1)
            near = np.minimum(
                closest[:, None], _distances(_cosines(self.space_, H, self._rows(H, candidates)))
            )
            pick = int(np.argmin(near.sum(axis=0)))  # (the first on a tie)
            chosen.append(int(candidates[pick]))
            closest = near[:, pick]
        return np.asarray(chosen)

    def _rows(self, H: Any, index: Any) -> Any:
        return self.space_.xp.take(H, self.space_.indices(np.asarray(index)), axis=0)

    def _lloyd(self, H: Any, C: Any) -> tuple[Any, np.ndarray, np.ndarray, float, int]:
        """Lloyd's iterations from centroids ``C``: the centroids, labels, cosines ``(n, k)``
        and inertia of the last assignment (made with the centroids returned), iterations."""
        space, k = self.space_, self.n_clusters
        cosines = _cosines(space, H, C)
        labels = np.argmax(cosines, axis=1)
        n_iter, sums, members = 0, space.zeros(k), None
        while n_iter < self.max_iter:
            n_iter += 1
            labels = self._fill_empty(labels, cosines)
            one_hot = space.one_hot(space.indices(labels), k)
            # the sums move by the samples that changed cluster: a product of those rows
            # only (Space.add), once few samples move
            change = one_hot if n_iter == 1 else one_hot - members
            sums, members = space.add(sums, change, H), one_hot
            new = space.unit_rows(sums)
            shift = float(space.xp.sum((new - C) ** 2))
            C, cosines = new, _cosines(space, H, new)
            previous, labels = labels, np.argmax(cosines, axis=1)
            if np.array_equal(labels, previous) or shift <= self.tol:
                break
        inertia = float(np.sum(_distances(cosines[np.arange(len(labels)), labels])))
        return C, labels, cosines, inertia, n_iter

    def _fill_empty(self, labels: np.ndarray, cosines: np.ndarray) -> np.ndarray:
        """``labels`` where each empty cluster takes one of the samples farthest from their
        centroids (the farthest first; among equals the first sample), as scikit-learn does."""
        empty = np.flatnonzero(np.bincount(labels, minlength=self.n_clusters) == 0)
        if len(empty) == 0:
            return labels
        own = cosines[np.arange(len(labels)), labels]
        farthest = np.argsort(own, kind="stable")[: len(empty)]
        labels = labels.copy()
        labels[farthest] = empty
        return labels

    # -- predicting -------------------------------------------------------------------------
    def _scores(self, X: Any) -> np.ndarray:
        """Cosines ``(n, k)`` of the samples' encodings with the centroids."""
        check_is_fitted(self, "cluster_centers_")
        X = self._check_input(X)
        space, C = self.space_, self.cluster_centers_
        return self._on_host((b, space.run(Space.cosines, b.H, C)) for b in self._encoded(X, order_free=True))

    def predict(self, X: Any) -> np.ndarray:
        """The cluster of each sample: the centroid of highest cosine (the first on a tie)."""
        return np.argmax(self._scores(X), axis=1)

    def transform(self, X: Any) -> np.ndarray:
        """The cosine distances ``1 - cos`` of the samples to the centroids, ``(n, k)``."""
        return _distances(self._scores(X))

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the sum of the samples' cosine distances to their nearest centroids (the
        inertia of ``X``; higher is better, as scikit-learn's scores are)."""
        return -float(np.sum(np.min(self.transform(X), axis=1)))

    @property
    def _n_features_out(self) -> int:
        """The outputs of :meth:`transform`: one per cluster (names for pipelines)."""
        return self.cluster_centers_.shape[0]

    # -- the hooks of holovec.learn.load ------------------------------------------------------
    @classmethod
    def fitted_rows(cls, params: dict[str, Any], n_classes: int | None) -> int | None:
        """A row per cluster: ``params["n_clusters"]`` (checked by its rule)."""
        cls._parameter_rules["n_clusters"].check("n_clusters", params["n_clusters"])
        return int(params["n_clusters"])

    @classmethod
    def fitted_shapes(cls, n_classes: int | None, width: int) -> dict[str, tuple[int, ...]]:
        """The centroids: ``n_classes`` is the number of clusters here."""
        return {"cluster_centers_": (n_classes, width)}

    def restore_derived(self) -> None:
        self._check_saved_range(self.cluster_centers_, "the cluster centroids", power=2)
