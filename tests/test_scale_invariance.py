"""Scale invariance: an answer does not change when the data are multiplied by a constant,
whatever the constant (tiny, huge, near the float limits). The learners' tests of constant
features and channels, HDKMeans's default bandwidth, MiniRocket's convolutions, the
modern Hopfield network's attention and the softmax of class scores; and the bounds and
messages found with them (calibration bins bounded by the samples, series of different
channel counts, float64 values near 1.7e308)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.datasets import load_iris
from sklearn.metrics import adjusted_rand_score

from holovec import VSA
from holovec.learn import (
    CentroidClassifier,
    HDEncoder,
    HDKMeans,
    TimeSeriesEncoder,
    expected_calibration_error,
    softmax,
)
from holovec.learn import kmeans as kmeans_module
from holovec.memory import ModernHopfield


def _sines(n=12, length=40):
    """Two classes of two-channel series (sines of 2 and 5 cycles, and a constant channel)."""
    t = np.linspace(0, 1, length)
    wave = np.stack([np.sin(2 * np.pi * (2 + 3 * (k % 2)) * t + 0.05 * k) for k in range(n)])
    return np.stack([wave, np.full_like(wave, 3.0)], axis=1), np.arange(n) % 2


def _iris():
    X, y = load_iris(return_X_y=True)
    return X, y


# -- constant channels and features: relative to the data's own scale --------------------
@pytest.mark.parametrize("scale", [1e-20, 1e20])
def test_series_at_any_scale_encode_and_classify_as_at_scale_1(scale):
    """TimeSeriesEncoder took a channel as constant when its range was below 1e-12 (an
    absolute threshold): series of values near 1e-20 were all constant and classified at
    chance (0.5 against 1.0). A channel is constant relative to its own magnitude, and a
    constant one is widened relative to it too: the encodings are the same at every scale."""
    X, y = _sines()
    enc = TimeSeriesEncoder(features="values", dim=256, random_state=0).fit(X)
    scaled = TimeSeriesEncoder(features="values", dim=256, random_state=0).fit(X * scale)
    np.testing.assert_allclose(scaled.value_min_, enc.value_min_ * scale, rtol=1e-12)
    np.testing.assert_allclose(scaled.value_max_, enc.value_max_ * scale, rtol=1e-12)
    assert enc.value_min_[1] < 3.0 < enc.value_max_[1]  # (the constant channel, widened)
    np.testing.assert_allclose(scaled.transform(X * scale), enc.transform(X), atol=1e-5)
    other = X.copy()
    other[:, 1] = 2.5  # a test value off the constant channel's training value
    np.testing.assert_allclose(scaled.transform(other * scale), enc.transform(other), atol=1e-5)
    clf = CentroidClassifier(encoder=TimeSeriesEncoder(features="values", dim=256, random_state=0)).fit(
        X * scale, y
    )
    assert clf.score(X * scale, y) == 1.0


def test_a_channel_constant_in_training_is_still_found_at_every_scale():
    """A range of exactly 0, or one within rounding of the values' magnitude, is constant;
    a channel of zeros is widened by the other channels' magnitude."""
    X, _ = _sines()
    X[:, 1] = 7.0 * (1 + 1e-15 * np.arange(X.shape[-1]))  # (a range of 3e-13 of its values)
    for scale in (1e-300, 1.0, 1e300):
        enc = TimeSeriesEncoder(features="values", dim=64, random_state=0).fit(X * scale)
        np.testing.assert_allclose(enc.value_min_[1], 3.5 * scale, rtol=1e-9)
        np.testing.assert_allclose(enc.value_max_[1], 10.5 * scale, rtol=1e-9)
    X[:, 1] = 0.0
    enc = TimeSeriesEncoder(features="values", dim=64, random_state=0).fit(X * 1e-20)
    largest = np.abs(X[:, 0]).max() * 1e-20
    np.testing.assert_allclose([enc.value_min_[1], enc.value_max_[1]], [-largest / 2, largest / 2])


@pytest.mark.parametrize("scale", [1e-25, 1e25])
def test_hdencoder_standardises_features_at_any_scale(scale):
    """HDEncoder's test of a feature that did not vary was absolute for features below 1
    (``10 eps max(1, |mean|)``): iris times 1e-25 was all constant and scored 0.33. It is
    scikit-learn's relative rule: iris at any scale scores as iris."""
    X, y = _iris()
    want = CentroidClassifier(dim=500, random_state=0).fit(X, y)
    got = CentroidClassifier(dim=500, random_state=0).fit(X * scale, y)
    np.testing.assert_allclose(got.encoder_.scale_, want.encoder_.scale_ * scale, rtol=1e-12)
    assert abs(got.score(X * scale, y) - want.score(X, y)) <= 1 / len(y)
    assert want.score(X, y) > 0.8


def test_hdencoder_keeps_scale_1_for_features_constant_to_rounding():
    """A constant feature (a variance of exactly 0, or within the float rounding of its mean,
    at any scale) keeps scale 1, as scikit-learn's StandardScaler; a varying one does not."""
    rng = np.random.default_rng(0)
    for scale in (1e-30, 1.0, 1e30):
        X = np.stack([rng.normal(size=20), np.full(20, 0.1), 5.0 + 1e-16 * rng.normal(size=20)], axis=1)
        enc = HDEncoder(dim=64, random_state=0).fit(X * scale)
        assert enc.scale_[0] != 1.0 and enc.scale_[1] == 1.0 and enc.scale_[2] == 1.0


# -- HDKMeans's default bandwidth ---------------------------------------------------------
@pytest.mark.parametrize("scale", [1e19, 1e-23, 1e30, 1e-30])
def test_kmeans_default_bandwidth_follows_the_data_at_every_scale(scale):
    """The default bandwidth was a variance computed in the input's float32: at 1e19 its
    squares overflowed and at 1e-23 they underflowed, the bandwidth silently became 1.0 and
    the adjusted Rand index fell from 0.73 to 0.00. It is computed scale-safely: the
    bandwidth is the one at scale 1 over the scale, and so are the clusters."""
    X, y = _iris()
    X = X.astype(np.float32)
    want = HDKMeans(n_clusters=3, dim=1000, random_state=0).fit(X)
    got = HDKMeans(n_clusters=3, dim=1000, random_state=0).fit(X * np.float32(scale))
    bandwidth = want.encoder_.bandwidth
    np.testing.assert_allclose(got.encoder_.bandwidth * scale, bandwidth, rtol=1e-5)
    assert adjusted_rand_score(want.labels_, got.labels_) > 0.95
    assert adjusted_rand_score(y, want.labels_) > 0.6


def test_kmeans_bandwidth_of_constant_features_is_1_and_an_uncomputable_one_an_error(monkeypatch):
    """Features that do not vary at all cluster alike at any bandwidth (1); one that is not
    a positive finite number is an error, never a silent 1.0."""
    host = VSA.create("FHRR", 8).backend
    assert kmeans_module._bandwidth(np.full((5, 2), 3e-30), host) == 1.0
    assert kmeans_module._bandwidth(np.zeros((5, 2)), host) == 1.0
    monkeypatch.setattr(kmeans_module, "BANDWIDTH_PER_SPREAD", 1e-320)
    with pytest.raises(ValueError, match="bandwidth"):
        kmeans_module._bandwidth(np.array([[0.0], [1.7e308]]), host)


# -- MiniRocket's convolutions --------------------------------------------------------------
def _walks(n=6, channels=2, length=40, seed=0):
    W = np.random.default_rng(seed).normal(size=(n, channels, length)).cumsum(axis=-1)
    return W / np.abs(W).max()


def _rocket(**kw):
    defaults = {"features": "minirocket", "dim": 84 * 3, "random_state": 0, "time_bandwidth": 3.0}
    return TimeSeriesEncoder(**(defaults | kw))


@pytest.mark.parametrize(("scale", "dtype"), [(1e38, np.float32), (3e38, np.float32), (1e-40, np.float32)])
def test_minirocket_encodes_float32_series_near_the_limits_as_at_scale_1(scale, dtype):
    """The convolutions of finite float32 series near 1e38 overflowed (encodings 2.0 away
    from those at scale 1; subnormal ones near 1e-40 lost their digits): each series and its
    biases are scaled by a power of two first, so the encoding is the one at scale 1."""
    W = _walks()
    want = np.asarray(_rocket().fit_transform(W.astype(np.float32)))
    with np.errstate(under="ignore"):
        scaled = (W * scale).astype(dtype)
    enc = _rocket().fit(scaled)
    assert np.all(np.isfinite(enc.minirocket_.biases))
    np.testing.assert_allclose(np.asarray(enc.transform(scaled)), want, atol=0.05)


def test_minirocket_series_of_any_scale_in_one_set_keep_their_features():
    """Series of very different scales in one set each convolve without overflow; a series
    encodes the same whether it comes alone or with others (each is scaled by its own power
    of two, its biases likewise)."""
    W = _walks()
    mixed = W * np.array([1.0, 1e30, 1e-30, 1e300, 1e-300, 1.7e308])[:, None, None]
    enc = _rocket().fit(W)
    alone = np.concatenate([np.asarray(enc.transform(row[None])) for row in mixed])
    together = np.asarray(enc.transform(mixed))
    np.testing.assert_allclose(together, alone, atol=1e-6)
    assert np.all(np.isfinite(together))


# -- the modern Hopfield network's beta, the softmax's temperature -----------------------------
@pytest.mark.parametrize("beta", [1e39, 1e300])
def test_modern_hopfield_with_beta_beyond_float32_gives_the_hard_max(beta, tmp_path):
    """A finite beta beyond float32's range made every exponent infinite and the recalls
    NaN (the docstring promised no overflow whatever beta): a large beta is the hard max,
    from a file too."""
    model = VSA.create("MAP", dim=256, seed=0)
    patterns = model.random(20, seed=1)
    memory = ModernHopfield(model, beta=beta)
    memory.store(patterns)
    weights = np.asarray(memory.weights(patterns[:4]))
    np.testing.assert_array_equal(weights, np.eye(20)[:4])
    np.testing.assert_array_equal(np.asarray(memory.recall(patterns[3])), np.asarray(patterns[3]))
    memory.save(tmp_path / "m.npz")
    again = ModernHopfield.load(tmp_path / "m.npz", model)
    assert again.beta == beta
    np.testing.assert_array_equal(np.asarray(again.weights(patterns[:4])), weights)


def test_modern_hopfield_shares_the_hard_max_among_tied_patterns():
    model = VSA.create("MAP", dim=64, seed=0)
    p = model.random(3, seed=2)
    memory = ModernHopfield(model, beta=1e39)
    memory.store(model.xp.stack([p[0], p[1], p[0]]))
    np.testing.assert_array_equal(np.asarray(memory.weights(p[0])), [0.5, 0.0, 0.5])


def test_softmax_of_a_tiny_temperature_is_the_hard_max():
    """``softmax(scores, temperature=1e-320)`` divided before subtracting the maximum: every
    row NaN. The maximum goes first: a tiny temperature gives the hard max (ties shared)."""
    scores = np.array([[0.0, 1.0, 1.0], [2.0, -1.0, 0.5]])
    for t in (1e-320, 1e-300, 1e-30):
        np.testing.assert_array_equal(softmax(scores, temperature=t), [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]])


@pytest.mark.parametrize("scale", [1e-300, 1e-100, 1e100, 1e300])
def test_softmax_of_scores_and_temperature_times_a_constant_is_the_same(scale):
    scores = np.array([[0.1, 0.3, -0.2], [1.5, 1.0, 0.5]])
    want = softmax(scores, temperature=0.1)
    np.testing.assert_allclose(softmax(scores * scale, temperature=0.1 * scale), want, rtol=1e-12)
    wide = np.array([[-1.7e308, 1.7e308]])  # (a gap past the float64 range)
    np.testing.assert_allclose(softmax(wide, temperature=1e308), softmax(np.array([[-1.7, 1.7]])), rtol=1e-12)


# -- found with them --------------------------------------------------------------------------
def _ece_dense(y, P, n_bins):
    """The error with one entry per bin (the former computation), for moderate n_bins."""
    confidence, correct = P.max(axis=1), np.argmax(P, axis=1) == y
    bins = np.clip(np.ceil(confidence * n_bins).astype(np.int64) - 1, 0, n_bins - 1)
    gap = np.bincount(bins, weights=correct - confidence, minlength=n_bins)
    return float(np.abs(gap).sum() / len(y))


def test_calibration_error_memory_is_bounded_by_the_samples_not_the_bins():
    """``n_bins=10**9`` allocated two arrays of n_bins entries (16 GB) for two samples: only
    the occupied bins are kept, with the same result."""
    rng = np.random.default_rng(0)
    P = rng.dirichlet(np.ones(3), size=200)
    y = rng.integers(0, 3, size=200)
    for n_bins in (1, 15, 1000, 10**5):
        want = _ece_dense(y, P, n_bins)
        assert expected_calibration_error(y, P, n_bins=n_bins) == pytest.approx(want, abs=1e-15)
    proba = np.array([[0.3, 0.7], [0.6, 0.4]])
    tracemalloc.start()
    try:
        for n_bins in (10**7, 10**9, 10**18):
            assert expected_calibration_error([1, 0], proba, n_bins=n_bins) == pytest.approx(0.35)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2**20


def test_series_of_different_channel_counts_are_refused_naming_them():
    """A list of series with different numbers of channels failed with NumPy's
    "inhomogeneous shape": the message names the series and their channel counts."""
    rng = np.random.default_rng(0)
    cases = [
        [rng.normal(size=(2, 20)), rng.normal(size=(2, 20)), rng.normal(size=(3, 20))],  # one length
        [rng.normal(size=(20,)), rng.normal(size=(3, 20))],  # (length,) is one channel
        [rng.normal(size=(2, 20)), rng.normal(size=(3, 25))],  # ragged
    ]
    for X, (first, other) in zip(cases, [(0, 2), (0, 1), (0, 1)], strict=True):
        with pytest.raises(ValueError, match=rf"channels.*series {first} has \d+, series {other} has \d+"):
            TimeSeriesEncoder(features="values", dim=64, random_state=0).fit(X)


@pytest.mark.parametrize("features", ["values", "minirocket"])
def test_finite_float64_series_near_the_float64_limit_encode_as_at_scale_1(features):
    """Finite float64 values near 1.7e308 were refused as "NaN or infinity" (the range of a
    channel overflowed to infinity) or, for MiniRocket, cast to float32 infinities: they
    are finite; they encode as the same series at scale 1."""
    X, y = _sines()
    X[:, 1] = X[:, 0] ** 2 - 0.5  # (no constant channel: its convolutions are ties of rounding)
    X = X / np.abs(X).max()  # (values of both signs: the range spans twice the largest)
    kw = {"features": features, "dim": 84 * 3, "random_state": 0}
    want = np.asarray(TimeSeriesEncoder(**kw).fit_transform(X))
    got = np.asarray(TimeSeriesEncoder(**kw).fit_transform(X * 1.7e308))
    np.testing.assert_allclose(got, want, atol=1e-5)
    clf = CentroidClassifier(encoder=TimeSeriesEncoder(**kw)).fit(X * 1.7e308, y)
    assert clf.score(X * 1.7e308, y) == 1.0
