"""HDKMeans: spherical k-means of hypervector encodings, on every backend."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.cluster import KMeans
from sklearn.datasets import load_digits, load_iris, make_blobs
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score

from conftest import device_for
from holovec.learn import HDEncoder, HDKMeans, load


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(n_samples=90, centers=3, cluster_std=1.0, random_state=4)
    return X, y


def test_digits_clusters_at_least_nine_tenths_of_kmeans():
    """The issue's goal, ARI(HDKMeans) >= 0.9 ARI(KMeans) on the same raw digits. Measured
    (seed 0): HDKMeans dim 500 0.705, KMeans 0.615; over seeds 0-4 HDKMeans (dim 500) 0.66
    and KMeans 0.65 on average (dim 10000 in the clustering benchmark section)."""
    X, y = load_digits(return_X_y=True)
    ours = adjusted_rand_score(y, HDKMeans(10, dim=500, random_state=0).fit(X).labels_)
    theirs = adjusted_rand_score(y, KMeans(10, random_state=0).fit(X).labels_)
    assert ours >= 0.9 * theirs


def test_iris_clusters_at_least_nine_tenths_of_kmeans():
    """ARI on raw iris, measured (seeds 0-4, dim 500): HDKMeans 0.716-0.73, KMeans 0.716-0.73."""
    X, y = load_iris(return_X_y=True)
    ours = adjusted_rand_score(y, HDKMeans(3, dim=500, random_state=1).fit(X).labels_)
    theirs = adjusted_rand_score(y, KMeans(3, random_state=1).fit(X).labels_)
    assert ours >= 0.9 * theirs


def test_same_seed_gives_the_same_clusters_on_every_backend(backend, blobs):
    X, y = blobs
    on_numpy = HDKMeans(3, dim=256, random_state=2, backend="numpy").fit(X)
    here = HDKMeans(3, dim=256, random_state=2, backend=backend, device=device_for(backend)).fit(X)
    assert here.model_.backend.name == backend
    np.testing.assert_array_equal(here.labels_, on_numpy.labels_)
    np.testing.assert_array_equal(here.predict(X), here.labels_)
    assert here.n_iter_ == on_numpy.n_iter_
    np.testing.assert_allclose(here.transform(X), on_numpy.transform(X), atol=1e-4)
    assert adjusted_rand_score(y, here.labels_) > 0.9


def test_methods_agree_with_the_fit(blobs):
    """transform is 1 - cosine to each centroid; predict its argmin; score minus the sum of
    the smallest; on the training set they give labels_ and -inertia_."""
    X, _ = blobs
    km = HDKMeans(3, dim=256, random_state=0)
    fitted = km.fit_transform(X)
    D = km.transform(X)
    assert D.shape == (len(X), 3) and D.min() >= 0.0 and D.max() <= 2.0
    np.testing.assert_allclose(fitted, D, atol=1e-5)
    np.testing.assert_array_equal(km.predict(X), np.argmin(D, axis=1))
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    assert km.score(X) == pytest.approx(-km.inertia_, rel=1e-5)
    np.testing.assert_array_equal(km.fit_predict(X), km.labels_)
    C = km.model_.to_numpy(km.cluster_centers_)
    assert C.shape == (3, km.space_.width)
    np.testing.assert_allclose(np.linalg.norm(C, axis=1), 1.0, rtol=1e-5)
    assert km.labels_.dtype.kind == "i" and 1 <= km.n_iter_ <= km.max_iter


def test_centroids_are_the_normalised_sums_of_their_members(blobs):
    X, _ = blobs
    km = HDKMeans(3, dim=256, random_state=0).fit(X)
    H = km.space_.features(km.encoder_.transform(X))
    H, C = km.model_.to_numpy(H), km.model_.to_numpy(km.cluster_centers_)
    for c in range(3):
        total = H[km.labels_ == c].sum(axis=0)
        np.testing.assert_allclose(C[c], total / np.linalg.norm(total), atol=1e-5)


def test_empty_clusters_take_the_farthest_samples():
    """Three distinct points, repeated 5, 4 and 1 times, in 3 clusters from random samples:
    half the draws repeat a point, so that one centroid ties with another and loses every
    sample (the first cluster wins a tie); it then takes the sample farthest from its
    centroid (the lone point), and every run finds the three points."""
    X = np.repeat([[0.0, 0.0], [3.0, 0.0], [0.0, 6.0]], [5, 4, 1], axis=0)
    truth = np.repeat([0, 1, 2], [5, 4, 1])
    for seed in range(8):
        km = HDKMeans(3, dim=256, random_state=seed, init="random", n_init=1).fit(X)
        assert adjusted_rand_score(truth, km.labels_) == 1.0
        assert km.inertia_ == pytest.approx(0.0, abs=1e-4)


def test_fewer_distinct_points_than_clusters_warns():
    """Two distinct points in 3 clusters: a centroid repeats another and never wins a tie
    (the first cluster does), as with scikit-learn's KMeans, which warns alike."""
    X = np.repeat([[0.0, 0.0], [5.0, 5.0]], [6, 4], axis=0)
    with pytest.warns(ConvergenceWarning, match="2 distinct clusters"):
        km = HDKMeans(3, dim=256, random_state=0).fit(X)
        again = HDKMeans(3, dim=256, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, again.labels_)
    assert len(np.unique(km.labels_)) == 2


def test_more_runs_never_raise_the_inertia(blobs):
    """Run 0 of n_init runs is the single run of the same seed; the lowest inertia is kept."""
    X, _ = blobs
    one = HDKMeans(4, dim=256, random_state=0, init="random", n_init=1).fit(X)
    many = HDKMeans(4, dim=256, random_state=0, init="random", n_init=6).fit(X)
    assert many.inertia_ <= one.inertia_


def test_a_given_encoder_is_used_as_it_is(blobs):
    X, _ = blobs
    km = HDKMeans(3, encoder=HDEncoder(model="MAP", dim=256, bandwidth=0.5), random_state=0).fit(X)
    assert km.model_.name == "MAP" and km.encoder_.bandwidth == 0.5 and km.encoder_.standardize
    default = HDKMeans(3, dim=256, random_state=0).fit(X)  # raw features, bandwidth of their spread
    assert not default.encoder_.standardize and isinstance(default.encoder_.bandwidth, float)


def test_saved_clusterer_loads_and_predicts_the_same(blobs, tmp_path):
    X, _ = blobs
    km = HDKMeans(3, dim=256, random_state=0).fit(X)
    km.save(tmp_path / "km.npz")
    back = load(tmp_path / "km.npz")
    assert isinstance(back, HDKMeans) and back.n_clusters == 3
    np.testing.assert_array_equal(back.predict(X), km.labels_)
    np.testing.assert_allclose(back.transform(X), km.transform(X), atol=1e-6)


@pytest.mark.parametrize(
    ("params", "error", "words"),
    [
        ({"n_clusters": 0}, ValueError, "n_clusters"),
        ({"n_clusters": 2.5}, TypeError, "n_clusters"),
        ({"init": "kmeans"}, ValueError, "init"),
        ({"n_init": 0}, ValueError, "n_init"),
        ({"max_iter": 0}, ValueError, "max_iter"),
        ({"tol": -1.0}, ValueError, "tol"),
        ({"n_clusters": 20}, ValueError, "n_samples=10 should be >= n_clusters=20"),
    ],
)
def test_bad_parameters_are_refused(params, error, words):
    X = np.arange(20.0).reshape(10, 2)
    with pytest.raises(error, match=words):
        HDKMeans(**{"dim": 64, **params}).fit(X)
