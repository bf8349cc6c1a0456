"""TimeSeriesEncoder: shapes, seeds, backends, a synthetic classification task, the time
bandwidth, errors and scikit-learn's conventions (its own checks run in test_learn_sklearn)."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

import holovec.learn.timeseries as timeseries
from conftest import device_for
from holovec.learn import CentroidClassifier, NeuralHDClassifier, RidgeHDClassifier, TimeSeriesEncoder


def _waves(n_per_class=20, length=64, seed=0, noise=0.2):
    """Sine, square and sawtooth waves (3 classes) of random frequency 2..3 cycles, a random
    phase shift of up to 1/20 cycle, amplitude 0.8..1.2 and Gaussian noise; 2 channels (the
    wave and its negation plus an offset)."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0, 1, length)
    X, y = [], []
    for k in range(3 * n_per_class):
        label = k % 3
        phase = 2 * np.pi * ((2 + rng.random()) * t + 0.05 * rng.random())
        wave = [np.sin(phase), np.sign(np.sin(phase)), (phase / np.pi) % 2 - 1][label]
        wave = (0.8 + 0.4 * rng.random()) * wave + noise * rng.normal(size=length)
        X.append(np.stack([wave, 3.0 - wave + noise * rng.normal(size=length)]))
        y.append(label)
    return np.array(X), np.array(y)


def _encoder(**kw):
    return TimeSeriesEncoder(
        **(
            {
                "features": "values",
                "standardize": False,
                "dim": 512,
                "random_state": 0,
                "time_bandwidth": 4.0,
                "value_bandwidth": 6.0,
            }
            | kw
        )
    )


# -- shapes ---------------------------------------------------------------------------
def test_encodes_univariate_multivariate_and_ragged_series():
    X, _ = _waves(4)
    enc = _encoder().fit(X)
    H = enc.transform(X)
    assert H.shape == (12, 512) and H.dtype == np.complex64
    assert enc.n_channels_ == 2 and enc.length_ == 64
    one = _encoder().fit(X[:, 0])  # (n_series, length): one channel
    assert one.transform(X[:, 0]).shape == (12, 512) and one.n_channels_ == 1
    hrr = _encoder(model="HRR").fit_transform(X)  # the other model with a phasor form
    assert hrr.shape == (12, 512) and hrr.dtype == np.float32
    # any length, and a list of series of different lengths: each as if encoded alone
    ragged = [X[0, :, :40], X[1], X[2, :, :17]]
    R = enc.transform(ragged)
    assert R.shape == (3, 512)
    np.testing.assert_allclose(R[1], H[1], atol=1e-5)
    np.testing.assert_allclose(R[2], enc.transform(X[2:3, :, :17])[0], atol=1e-5)


def test_the_mean_makes_series_of_any_length_comparable():
    """Encodings are means over channels and steps: a series sampled twice as densely has
    about the same encoding (cosine > 0.95), not one twice as long."""
    t_short, t_long = np.linspace(0, 1, 50), np.linspace(0, 1, 100)
    enc = _encoder(dim=2000).fit(np.sin(2 * np.pi * 2 * t_long)[None])
    a, b = (
        enc.transform(np.sin(2 * np.pi * 2 * t_short)[None]),
        enc.transform(np.sin(2 * np.pi * 2 * t_long)[None]),
    )
    assert abs(np.linalg.norm(a) / np.linalg.norm(b) - 1) < 0.1
    assert np.abs(np.vdot(a, b)) / (np.linalg.norm(a) * np.linalg.norm(b)) > 0.95


# -- seeds and backends -----------------------------------------------------------------
def test_same_seed_same_vectors_other_seed_others():
    X, _ = _waves(3)
    a, b = _encoder(random_state=5).fit_transform(X), _encoder(random_state=5).fit_transform(X)
    np.testing.assert_array_equal(a, b)
    c = _encoder(random_state=6).fit_transform(X)
    assert np.abs(np.vdot(a[0], c[0])) / (np.linalg.norm(a[0]) * np.linalg.norm(c[0])) < 0.3
    fresh = TimeSeriesEncoder(features="values", dim=256).fit(X)
    assert isinstance(fresh.seed_, int) and fresh.seed is None  # drawn at fit, parameters unchanged
    assert _encoder(seed=None, random_state=5).fit(X).seed_ == 5


@pytest.mark.parametrize("values", ["fpe", "level"])
def test_every_backend_gives_the_same_vectors(backend, values):
    X, _ = _waves(2)
    ref = _encoder(values=values, backend="numpy").fit_transform(X)
    enc = _encoder(values=values, backend=backend, device=device_for(backend)).fit(X)
    out = enc.model_.backend.to_numpy(enc.transform(X))
    np.testing.assert_allclose(out, ref, atol=2e-4)
    on_device = enc.model_.backend.asarray(X)  # the backend's own arrays, checked where they are
    np.testing.assert_allclose(enc.model_.backend.to_numpy(enc.transform(on_device)), ref, atol=2e-4)


def test_blocks_of_series_channels_and_steps_bound_memory_not_the_vectors(monkeypatch):
    """The bound array of values is series x channels x steps x dim: it is made in blocks of
    at most the encoder's block size (here one channel and one step of one series: dim
    elements), never a whole long series at once (it used to be: memory grew with the
    length and the channels). Blocks and batch sizes give the same vectors to float
    rounding, with and without timestamps."""
    X = _waves(2)[0][:, :, :12]
    stamps = np.cumsum(np.random.default_rng(1).random(12))
    enc = _encoder().fit(X)
    whole = [enc.transform(X), enc.transform(X, timestamps=stamps)]
    made, sizes = enc.value_encoder_.encode, []

    def recorded(u, **kw):
        sizes.append(int(np.prod(u.shape)))
        return made(u, **kw)

    monkeypatch.setattr(enc.value_encoder_, "encode", recorded)
    monkeypatch.setattr(timeseries, "_CHUNK_ELEMENTS", 512)
    blocked = [enc.transform(X), enc.transform(X, timestamps=stamps)]
    assert len(sizes) == 2 * 6 * 2 * 12 and max(sizes) == 1  # 6 series, 2 channels, 12 steps
    np.testing.assert_allclose(blocked, whole, atol=1e-6)
    monkeypatch.undo()
    small = _encoder(batch_size=4).fit(X)
    np.testing.assert_allclose(small.transform(X, timestamps=stamps), whole[1], atol=1e-6)


# -- learning -------------------------------------------------------------------------
@pytest.mark.parametrize(("values", "centroid", "ridge"), [("fpe", 0.95, 0.95), ("level", 0.8, 0.9)])
def test_centroid_tells_sine_square_and_sawtooth_apart(values, centroid, ridge):
    """Held-out accuracy on the encodings of 60 noisy waves with phase, frequency and
    amplitude jitter, dim 1000: measured centroid 0.983 (fpe) and 0.867 (level), ridge
    0.983 and 0.967."""
    X, y = _waves(20, seed=1)
    Xt, yt = _waves(20, seed=2)
    clf = CentroidClassifier(encoder=_encoder(dim=1000, values=values)).fit(X, y)
    assert clf.score(Xt, yt) >= centroid
    assert RidgeHDClassifier(encoder=_encoder(dim=1000, values=values)).fit(X, y).score(Xt, yt) >= ridge


def test_similarity_of_shifted_series_decays_with_the_time_bandwidth():
    """A series and its copy shifted by 4 of 64 steps: time codes of times ``d`` apart have
    similarity ``sinc(time_bandwidth * d)``, so the encodings' cosine falls as the bandwidth
    grows (measured 0.986, 0.970, 0.806, 0.445 for bandwidths 0.5, 2, 8, 32; what remains
    at large bandwidths is the similarity of the values at each step, close in a walk)."""
    rng = np.random.default_rng(0)
    walk = np.cumsum(rng.normal(size=68))
    X = np.stack([walk[4:], walk[:-4]])
    cos = []
    for bw in (0.5, 2.0, 8.0, 32.0):
        H = _encoder(dim=4000, time_bandwidth=bw).fit_transform(X)
        cos.append(float(np.abs(np.vdot(H[0], H[1])) / (np.linalg.norm(H[0]) * np.linalg.norm(H[1]))))
    assert cos[0] > 0.95 and all(a > b for a, b in itertools.pairwise(cos)) and cos[-1] < 0.6


def test_timestamps_place_the_steps_in_time():
    """Evenly spaced timestamps give the encoding without them; timestamps that bunch the
    steps at the start give another."""
    X, _ = _waves(2)
    enc = _encoder().fit(X)
    even = enc.transform(X, timestamps=np.arange(64.0) * 3 + 100)
    np.testing.assert_allclose(even, enc.transform(X), atol=1e-5)
    bunched = enc.transform(X, timestamps=np.linspace(0, 1, 64) ** 3)
    assert np.abs(bunched - even).max() > 0.05
    per_series = np.tile(np.linspace(0, 1, 64) ** 3, (6, 1))
    np.testing.assert_allclose(enc.transform(X, timestamps=per_series), bunched, atol=1e-6)
    dates = np.datetime64("2024-01-01") + np.arange(64) * np.timedelta64(1, "h")  # (their count of hours)
    np.testing.assert_allclose(enc.transform(X, timestamps=dates), even, atol=1e-5)


def test_timestamps_and_lists_of_series_may_be_arrays_of_any_backend(backend):
    """Timestamps, and a ragged list of series, as the backend's own arrays (torch tensors
    that require grad included: they are detached) give what NumPy's give."""
    X, _ = _waves(2)
    enc = _encoder(backend=backend, device=device_for(backend)).fit(X)
    b = enc.model_.backend

    def own(x):
        x = b.asarray(x)
        return x.requires_grad_(True) if hasattr(x, "requires_grad_") else x

    times = np.linspace(0, 1, 64) ** 3
    expected = b.to_numpy(enc.transform(X, timestamps=times))
    np.testing.assert_allclose(b.to_numpy(enc.transform(X, timestamps=own(times))), expected, atol=1e-6)
    ragged = [X[0], X[1, :, :40]]
    expected = b.to_numpy(enc.transform(ragged))
    np.testing.assert_allclose(b.to_numpy(enc.transform([own(s) for s in ragged])), expected, atol=1e-6)


# -- errors ---------------------------------------------------------------------------
def test_refuses_bad_series_timestamps_and_parameters():
    X, _ = _waves(2)
    enc = _encoder().fit(X)
    bad = X.copy()
    bad[0, 0, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        enc.transform(bad)
    with pytest.raises(ValueError, match="NaN"):
        _encoder().fit(bad)
    with pytest.raises(ValueError, match="dimensions"):
        enc.transform(X[None])
    with pytest.raises(ValueError):
        enc.transform(X[0, 0])  # one series without its batch axis
    with pytest.raises(ValueError, match="channels"):
        enc.transform(X[:, :1])
    with pytest.raises(ValueError, match="expecting 64 features"):
        _encoder(any_length=False).fit(X).transform(X[:, :, :50])
    with pytest.raises(ValueError, match="timestamps"):
        enc.transform(X, timestamps=np.arange(50.0))
    with pytest.raises(ValueError, match="increase"):
        enc.transform(X, timestamps=np.arange(64.0)[::-1])
    for bad_times in (np.arange(64) + 1j, np.arange(64) > 3, ["a"] * 64, {"t": 1}):  # (cast silently once)
        with pytest.raises(TypeError, match="timestamps must be real numbers"):
            enc.transform(X, timestamps=bad_times)
    with pytest.raises(TypeError, match="one row per series"):
        enc.transform([X[0], X[1, :, :9]], timestamps=3.0)
    with pytest.raises(ValueError, match="training range"):
        _encoder(out_of_range="error").fit(X).transform(X * 2)
    with pytest.raises(TypeError, match="FHRR, HRR"):
        _encoder(model="MAP").fit(X)
    with pytest.raises(ValueError, match="values"):
        _encoder(values="spline").fit(X)
    with pytest.raises(ValueError, match="levels"):
        _encoder(values="level", levels=1).fit(X)
    with pytest.raises(ValueError, match="time_bandwidth"):
        _encoder(time_bandwidth=-1.0).fit(X)
    with pytest.raises(ValueError, match="regenerate"):
        NeuralHDClassifier(encoder=_encoder()).fit(X, np.arange(6) % 2)


def test_out_of_range_values_clip_to_the_training_range():
    """``out_of_range="clip"``: a value beyond a channel's training range encodes as the
    range's end."""
    X, _ = _waves(2)
    enc = _encoder().fit(X)
    high = X.copy()
    high[:, 0, 10] = enc.value_max_[0] + 5.0
    at_end = X.copy()
    at_end[:, 0, 10] = enc.value_max_[0]
    np.testing.assert_allclose(enc.transform(high), enc.transform(at_end), atol=1e-6)
    unit = np.linspace(0, 1, 12).reshape(1, 1, 12)  # a range of exactly 1, and a constant channel
    strict = _encoder(out_of_range="error").fit(np.concatenate([unit, np.ones_like(unit)], axis=1))
    assert strict.transform(np.concatenate([unit, np.ones_like(unit)], axis=1)).shape == (1, 512)


# -- scikit-learn -----------------------------------------------------------------------
def test_works_in_pipelines_grid_search_clone_and_pickle():
    X, y = _waves(8)
    pipe = make_pipeline(_encoder(), CentroidClassifier(model="FHRR", encoder="precomputed"))
    assert pipe.fit(X, y).score(X, y) >= 0.9
    search = GridSearchCV(
        CentroidClassifier(encoder=_encoder()), {"encoder__time_bandwidth": [1.0, 4.0]}, cv=2
    ).fit(X, y)
    assert search.best_params_["encoder__time_bandwidth"] in (1.0, 4.0)
    enc = _encoder(time_bandwidth=3.0).fit(X)
    assert clone(enc).get_params() == enc.get_params()
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(enc)).transform(X), enc.transform(X))


def test_saving_an_estimator_on_a_series_encoder_is_refused_clearly(tmp_path):
    """The estimator file holds an HDEncoder's parameters; a TimeSeriesEncoder's fitted ranges
    are not among them: a TypeError saying to pickle (it used to fail with AttributeError)."""
    import pickle

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 2, 30)), np.arange(20) % 2
    clf = CentroidClassifier(encoder=TimeSeriesEncoder(features="values", dim=128, random_state=0)).fit(X, y)
    with pytest.raises(TypeError, match="pickle"):
        clf.save(tmp_path / "clf.npz")
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(clf)).predict(X), clf.predict(X))
