"""TimeSeriesEncoder(features="minirocket"): MiniRocket's features kept per time step and
bound to time (HDC-MiniROCKET). The per-step indicators against aeon's MiniRocket, the
equivalence with MiniRocket at time_bandwidth 0, the position task that MiniRocket cannot
tell apart, backends, pickling and bad input."""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks

import holovec.learn._minirocket as minirocket
import holovec.learn.timeseries as timeseries
from conftest import device_for
from holovec.backends import get_backend
from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    ConformalClassifier,
    HDKMeans,
    LeHDCClassifier,
    OnlineHDClassifier,
    QuantHDClassifier,
    RidgeHDClassifier,
    TimeSeriesEncoder,
)
from holovec.learn._minirocket import indicators, step_weights
from holovec.learn._minirocket_parameters import MiniRocketParameters

HOST = get_backend("numpy")


def _walks(n, channels, length, seed=0):
    return np.random.default_rng(seed).normal(size=(n, channels, length)).cumsum(axis=-1)


def _ppv(parameters, X, backend=HOST):
    """MiniRocket's features from the per-step indicators: their weighted mean over time."""
    above = backend.to_numpy(indicators(parameters, backend.asarray(X), backend))
    return (above * step_weights(parameters, X.shape[-1])[None]).sum(axis=-1)


def _encoder(**kw):
    return TimeSeriesEncoder(
        **({"features": "minirocket", "dim": 84 * 3, "random_state": 0, "standardize": False} | kw)
    )


# -- the reference ------------------------------------------------------------------------
@pytest.mark.parametrize(("channels", "length"), [(1, 70), (3, 45)])
def test_indicators_averaged_over_time_are_aeons_minirocket_features(channels, length):
    """Given aeon's fitted parameters (``MiniRocket.parameters``: channels per combination,
    channel indices, dilations, features per dilation, biases), the indicators' mean over
    the steps each feature covers is aeon's ``transform`` (PPV) up to float32 rounding:
    kernel order, padding, dilations and channel sums as the reference has them."""
    MiniRocket = pytest.importorskip("aeon.transformations.collection.convolution_based").MiniRocket
    X = _walks(8, channels, length)
    reference = MiniRocket(n_kernels=84 * 5, random_state=1).fit(X)
    parameters = MiniRocketParameters(*reference.parameters)
    assert len(parameters.dilations) > 2  # several dilations, both paddings
    np.testing.assert_allclose(_ppv(parameters, X), reference.transform(X), atol=1e-6)


def test_fitted_biases_are_quantiles_of_the_training_convolutions_as_in_aeon():
    """With one training series every bias is a quantile of its convolution (at the levels
    ``(k * golden ratio) mod 1``), whatever the random draws: aeon's biases within a few
    float32 steps of the largest (aeon interpolates the quantile in float32, we in float64)."""
    MiniRocket = pytest.importorskip("aeon.transformations.collection.convolution_based").MiniRocket
    X = _walks(1, 1, 60)
    reference = MiniRocket(n_kernels=84 * 4, random_state=1).fit(X).parameters
    ours = _encoder(dim=84 * 4).fit(X).minirocket_
    np.testing.assert_array_equal(ours.dilations, reference[2])
    np.testing.assert_array_equal(ours.features_per_dilation, reference[3])
    step = np.spacing(np.abs(reference[4]).max())
    np.testing.assert_allclose(ours.biases, reference[4], rtol=0, atol=4 * step)


# -- MiniRocket as the special case ---------------------------------------------------------
@pytest.mark.parametrize("model", ["FHRR", "HRR"])
def test_time_bandwidth_zero_gives_2_ppv_minus_1(model):
    """``h[f] = sum_t w_t[f] v_t[f]`` at bandwidth 0 (every time code the identity) is
    ``2 PPV_f - 1`` (FHRR: real phasors +-1; HRR: scaled by ``finish_sum``'s 1/sqrt(dim));
    a tiny bandwidth gives nearly the same."""
    X = _walks(6, 2, 50)
    enc = _encoder(model=model, time_bandwidth=0).fit(X)
    scale = 1.0 if model == "FHRR" else 1 / np.sqrt(84 * 3)
    H = np.asarray(enc.transform(X))
    np.testing.assert_allclose(H, scale * (2 * _ppv(enc.minirocket_, X) - 1), atol=1e-6)
    near = np.asarray(_encoder(model=model, time_bandwidth=1e-4).fit(X).transform(X))
    np.testing.assert_allclose(near, H, atol=1e-3 * scale)


@pytest.mark.parametrize("model", ["FHRR", "HRR"])
def test_picking_the_sign_vectors_equals_finishing_every_step(model, monkeypatch):
    """Where a +-1 array's model vector is ``finish_sum(+1)`` or ``finish_sum(-1)`` element
    by element (FHRR; HRR, one scale for every +-1 array), the encoder picks elements
    instead of finishing every step (and binds the two choices once where binding is
    elementwise): the same vectors as the general path, with and without timestamps."""
    X = _walks(4, 2, 30)
    stamps = np.linspace(0, 1, 30) ** 2
    fast = _encoder(model=model, time_bandwidth=3.0).fit(X)
    expected = [np.asarray(fast.transform(X)), np.asarray(fast.transform(X, timestamps=stamps))]
    monkeypatch.setattr(minirocket, "sign_codes", lambda model: None)
    general = [np.asarray(fast.transform(X)), np.asarray(fast.transform(X, timestamps=stamps))]
    for a, b in zip(expected, general, strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)


def _two_bursts(n, length=96, seed=0):
    """A fast and a slow burst (Gaussian-windowed sines of 4 and 12.5 steps a cycle, peak 3,
    plus N(0, 0.3^2) noise), one in each half at a random place: fast first in class 0, slow
    first in class 1. Both classes hold the same two patterns, only their places differ."""
    rng = np.random.default_rng(seed)
    t = np.arange(length)
    y = rng.integers(0, 2, n)
    early = rng.integers(0, length // 2 - 12, n) + 6
    late = rng.integers(length // 2, length - 12, n) + 6

    def burst(centre, freq):
        d = t[None, :] - centre[:, None]
        return 3 * np.exp(-((d / 4) ** 2)) * np.sin(2 * np.pi * freq * d)

    fast_first = burst(early, 0.25) + burst(late, 0.08)
    slow_first = burst(early, 0.08) + burst(late, 0.25)
    X = np.where(y[:, None] == 0, fast_first, slow_first) + 0.3 * rng.normal(size=(n, length))
    return X, y


def test_time_codes_tell_apart_what_minirocket_cannot():
    """HDC-MiniROCKET's point (Schlegel, Neubert and Protzel 2022, Fig. 1: a sharp peak in
    the first or the second half of Gaussian noise, reported about chance for MiniRocket
    and 94% for HDC-MiniROCKET): PPV features are nearly a bag of local patterns over time,
    only the zero padding at the ends telling where a pattern lies. Here both classes hold
    the same two bursts in swapped halves. Ridge on 336 features, 80 training series, 200
    held out: measured 0.575 at bandwidth 0 (MiniRocket's features; aeon's MiniRocket with
    RidgeClassifierCV: 0.715 on 336 features, 0.875 on 9,996, through the ends), 0.995 at
    bandwidth 2. (One peak in noise as in the paper: 0.745 and 0.935; aeon 0.73 and 0.83.)"""
    X, y = _two_bursts(80, seed=0)
    Xt, yt = _two_bursts(200, seed=1)

    def accuracy(bandwidth):
        clf = RidgeHDClassifier(encoder=_encoder(dim=84 * 4, time_bandwidth=bandwidth))
        return clf.fit(X, y).score(Xt, yt)

    assert accuracy(0.0) < 0.7
    assert accuracy(2.0) > 0.95


# -- backends --------------------------------------------------------------------------------
def test_every_backend_gives_the_same_indicators_and_vectors(backend):
    """Integer-valued series: every convolution is a sum of small integers, exact in
    float32 in any order (and through a fused multiply-add), so the comparisons with the
    biases, and the indicators, are the same bit for bit on every backend and device. For
    real-valued series only a convolution within rounding of its bias may flip (XLA may fuse
    ``alpha + 3 x`` into one rounding); the encodings then agree to float rounding of the
    time codes (2e-4, as for the values encoding)."""
    X = np.random.default_rng(0).integers(-4, 5, size=(5, 2, 40)).cumsum(axis=-1).astype(np.float64)
    ref = _encoder(backend="numpy", time_bandwidth=3.0).fit(X)
    enc = _encoder(backend=backend, device=device_for(backend), time_bandwidth=3.0).fit(X)
    b = enc.model_.backend
    assert np.array_equal(enc.minirocket_.biases, ref.minirocket_.biases)  # fitted on the host
    mine = b.to_numpy(indicators(enc.minirocket_, b.asarray(X), b))
    np.testing.assert_array_equal(mine, HOST.to_numpy(indicators(ref.minirocket_, X, HOST)))
    np.testing.assert_allclose(b.to_numpy(enc.transform(X)), ref.transform(X), atol=2e-4)
    # the backend's own arrays of integers (cast to float32, as MiniRocket does) encode alike
    on_device = b.asarray(X.astype(np.int32))
    np.testing.assert_allclose(b.to_numpy(enc.transform(on_device)), ref.transform(X), atol=2e-4)
    walks = _walks(4, 2, 40, seed=3)  # real values: near-ties only
    flips = b.to_numpy(indicators(enc.minirocket_, b.asarray(walks), b)) != HOST.to_numpy(
        indicators(ref.minirocket_, walks, HOST)
    )
    assert flips.mean() < 1e-3


# -- memory, batches and blocks --------------------------------------------------------------
def test_blocks_of_series_and_steps_bound_the_indicators_not_the_vectors(monkeypatch):
    """The per-step indicators of ``n`` series are ``n x F x L`` bools: they are made in
    blocks of series and steps of at most the encoder's block size (``b * F * s`` elements;
    here 16 steps of one series), never for a whole long series at once (they used to be:
    memory grew with the length). Blocks, batch sizes and lists give the same vectors, to
    float rounding (the sums over the steps are split), with and without timestamps."""
    X = _walks(5, 2, 60)
    stamps = np.cumsum(np.random.default_rng(1).random(60))
    enc = _encoder(time_bandwidth=3.0).fit(X)
    whole = [np.asarray(enc.transform(X)), np.asarray(enc.transform(X, timestamps=stamps))]
    sizes = []

    def recorded(made, *args):
        out = made(*args)
        sizes.append(int(np.prod(out.shape)))
        return out

    for name in ("window_indicators", "indicators"):  # (whichever the encoder calls)
        made = getattr(minirocket, name, None)
        monkeypatch.setattr(minirocket, name, functools.partial(recorded, made), raising=False)
    monkeypatch.setattr(timeseries, "_CHUNK_ELEMENTS", 84 * 3 * 16)
    blocked = [np.asarray(enc.transform(X)), np.asarray(enc.transform(X, timestamps=stamps))]
    assert len(sizes) == 2 * 5 * 4 and max(sizes) <= 84 * 3 * 16  # 5 series x 4 windows, twice
    np.testing.assert_allclose(blocked, whole, atol=1e-6)
    monkeypatch.undo()
    small = _encoder(time_bandwidth=3.0, batch_size=2).fit(X)
    np.testing.assert_allclose(small.transform(X, timestamps=stamps), whole[1], atol=1e-6)
    np.testing.assert_allclose(small.transform(list(X)), whole[0], atol=1e-6)


def _sines(n=24, length=40):
    """Two classes of noisy two-channel sines (2 and 5 cycles), of 30 to 39 steps."""
    rng = np.random.default_rng(0)
    t = np.linspace(0, 1, length)
    wave = np.stack([np.sin(2 * np.pi * (2 + 3 * (k % 2)) * t + 0.3 * k) for k in range(n)])
    X = np.stack([wave, wave**2], axis=1) + 0.1 * rng.normal(size=(n, 2, length))
    return [X[i, :, : 30 + i % 10] for i in range(n)], np.arange(n) % 2


@pytest.mark.parametrize(
    "make",
    [
        CentroidClassifier,
        lambda encoder: AdaptHDClassifier(encoder=encoder, epochs=3),
        lambda encoder: OnlineHDClassifier(encoder=encoder, epochs=3),
        RidgeHDClassifier,
        lambda encoder: LeHDCClassifier(encoder=encoder, epochs=3),
        lambda encoder: QuantHDClassifier(encoder=encoder, epochs=3),
        lambda encoder: ConformalClassifier(CentroidClassifier(encoder=encoder), random_state=0),
    ],
    ids=["centroid", "adapthd", "onlinehd", "ridge", "lehdc", "quanthd", "conformal"],
)
def test_is_the_encoder_of_every_classifier(make):
    """Every classifier that takes an ``encoder=`` takes it, on a ragged multichannel
    list: two classes of sines of 2 and 5 cycles, 24 series, training accuracy at least
    0.75 (chance 0.5; measured 1.0, LeHDC at 3 epochs 0.83)."""
    X, y = _sines()
    clf = make(encoder=_encoder(time_bandwidth=2.0)).fit(X, y)
    assert np.mean(clf.predict(X) == y) >= 0.75
    assert np.array_equal(pickle.loads(pickle.dumps(clf)).predict(X[:4]), clf.predict(X[:4]))


def test_is_the_encoder_of_hdkmeans():
    """Clusters of the same sines agree with the classes (measured 0.79 at bandwidth 2)."""
    X, y = _sines()
    labels = HDKMeans(n_clusters=2, encoder=_encoder(time_bandwidth=2.0), random_state=0).fit(X).labels_
    assert max(np.mean(labels == y), np.mean(labels != y)) >= 0.7


# -- series of any length, timestamps, persistence -------------------------------------------
def test_ragged_shorter_and_timestamped_series_encode():
    """A ragged training set fits its dilations to the longest series; each series of a
    list encodes as it would alone; a series shorter than the widest kernel (and than 9
    steps) still encodes, its uncovered features 0; evenly spaced timestamps are the default."""
    X = _walks(6, 2, 40)
    ragged = [X[0], X[1, :, :25], X[2, :, :7], X[3]]
    enc = _encoder(time_bandwidth=2.0).fit(ragged)
    assert enc.length_ is None and enc.minirocket_.dilations.max() == 4  # (40 - 1) / 8 = 4.9
    H = enc.transform(ragged)
    assert H.shape == (4, 84 * 3)
    np.testing.assert_allclose(H[1], enc.transform(X[1:2, :, :25])[0], atol=1e-6)
    np.testing.assert_allclose(H[3], enc.transform(X[3:4])[0], atol=1e-6)
    short = np.asarray(_encoder(time_bandwidth=0).fit(X).transform(X[:, :, :5]))
    uncovered = step_weights(enc.minirocket_, 5).sum(axis=1) == 0  # ("valid" ones: 8 d >= 5)
    assert uncovered.mean() == 0.5 and np.all(short[:, uncovered] == 0) and np.all(np.isfinite(short))
    stamps = np.arange(40.0) * 0.5 + 3
    np.testing.assert_allclose(enc.transform(X, timestamps=stamps), enc.transform(X), atol=1e-5)
    assert _encoder().fit(X[:, :, :6]).minirocket_.dilations.tolist() == [1]


def test_pickles_with_its_fitted_parameters_and_refits_the_same():
    """The fitted parameters travel with a pickle (estimators on a series encoder are
    pickled, not saved: see test_learn_timeseries); the same seed fits the same ones."""
    X, y = _walks(10, 2, 30), np.arange(10) % 2
    clf = CentroidClassifier(encoder=_encoder(time_bandwidth=2.0)).fit(X, y)
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.encoder_.minirocket_.biases, clf.encoder_.minirocket_.biases)
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    np.testing.assert_array_equal(_encoder().fit(X).transform(X), _encoder().fit(X).transform(X))
    other = _encoder(random_state=1).fit(X).minirocket_
    assert not np.array_equal(other.biases, clf.encoder_.minirocket_.biases)


@parametrize_with_checks(
    [TimeSeriesEncoder(features="minirocket", dim=84 * 2, any_length=False, random_state=0)]
)
def test_follows_scikit_learns_conventions(estimator, check):
    check(estimator)


# -- errors ----------------------------------------------------------------------------------
def test_refuses_bad_dims_features_and_parameters():
    X = _walks(4, 1, 30)
    with pytest.raises(ValueError, match=r"multiple of 84.*9996"):
        _encoder(dim=10000).fit(X)
    with pytest.raises(ValueError, match="multiple of 84"):
        _encoder(dim=50).fit(X)
    with pytest.raises(ValueError, match="features"):
        _encoder(features="rocket").fit(X)
    with pytest.raises(TypeError, match="features"):
        _encoder(features=1).fit(X)
    with pytest.raises(ValueError, match="time_bandwidth"):
        _encoder(time_bandwidth=-1.0).fit(X)
    with pytest.raises(TypeError, match="FHRR, HRR"):
        _encoder(model="MAP").fit(X)
    with pytest.raises(ValueError, match="channels"):
        _encoder().fit(_walks(4, 2, 30)).transform(X)
    assert TimeSeriesEncoder(features="minirocket", random_state=0).fit(X).model_.dim == 9996
    with pytest.raises(ValueError, match="sizes"):
        MiniRocketParameters(np.ones(84), np.zeros(84), [1], [2], np.zeros(84))
    with pytest.raises(ValueError, match="indices >= 0"):
        MiniRocketParameters(np.ones(84), -np.ones(84), [1], [1], np.zeros(84))
    three = MiniRocketParameters(np.ones(84), np.full(84, 2), [1], [1], np.zeros(84))
    with pytest.raises(ValueError, match="3 channels"):
        indicators(three, np.zeros((1, 2, 20)), HOST)
    bad = X.copy()
    bad[0, 0, 5] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        _encoder().fit(X).transform(bad)
    with pytest.raises(ValueError, match="0 time steps"):
        _encoder().fit(X).transform(X[:, :, :0])
    with pytest.raises(TypeError, match="timestamps must be real numbers"):
        _encoder().fit(X).transform(X, timestamps=np.arange(30) + 1j)
