"""TimeSeriesEncoder's standardisation (``standardize=True``, the default): each element
centred on its training mean and divided by its training standard deviation, statistics
merged batch by batch, subsampled past ``STANDARDIZE_SAMPLES``, the same on every backend."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")

import holovec.learn.timeseries as timeseries
from conftest import device_for
from holovec.learn import RidgeHDClassifier, TimeSeriesEncoder


def _walks(n=12, channels=2, length=40, seed=0):
    return np.random.default_rng(seed).normal(size=(n, channels, length)).cumsum(axis=-1)


def _pair(features, **kw):
    """The same encoder with and without standardisation, fitted on the same series."""
    dim = 84 * 3 if features == "minirocket" else 256
    common = {"features": features, "dim": dim, "random_state": 0, "time_bandwidth": 2.0} | kw
    return TimeSeriesEncoder(**common), TimeSeriesEncoder(standardize=False, **common)


@pytest.mark.parametrize("features", ["minirocket", "values"])
def test_encodings_are_the_raw_ones_standardised_by_their_training_statistics(features):
    X = _walks()
    standard, raw = _pair(features)
    standard.fit(X)
    H_raw = np.asarray(raw.fit_transform(X), dtype=np.complex128)
    mean = H_raw.mean(axis=0)
    std = np.sqrt(np.mean(np.abs(H_raw - mean) ** 2, axis=0))
    np.testing.assert_allclose(standard.element_mean_, mean, atol=1e-6)
    np.testing.assert_allclose(standard.element_scale_, np.where(std > 1e-6, std, 1.0), rtol=1e-4)
    H = np.asarray(standard.transform(X))
    varying = std > 1e-6
    want = (H_raw - mean)[:, varying] / std[varying]
    np.testing.assert_allclose(H[:, varying], want, atol=1e-4)
    # the training series' elements have mean 0 and unit spread where they vary
    np.testing.assert_allclose(H.mean(axis=0), 0, atol=1e-5)
    spread = np.sqrt(np.mean(np.abs(H) ** 2, axis=0))
    np.testing.assert_allclose(spread[varying], 1, atol=1e-4)
    assert raw.element_mean_ is None and raw.element_scale_ is None


def test_minirocket_elements_at_time_bandwidth_0_are_standardised_ppv():
    """At time bandwidth 0 the raw element is ``2 PPV - 1`` (real): standardised, it is
    what StandardScaler gives MiniRocket's features (up to the sign of the centring)."""
    X = _walks(length=60)
    standard, raw = _pair("minirocket", time_bandwidth=0.0)
    H = np.asarray(standard.fit_transform(X))
    ppv = (np.real(np.asarray(raw.fit_transform(X), dtype=np.complex128)) + 1) / 2
    std = ppv.std(axis=0)
    varying = std > 1e-6
    want = (ppv - ppv.mean(axis=0))[:, varying] / std[varying]
    np.testing.assert_allclose(np.real(H)[:, varying], want, atol=1e-4)
    np.testing.assert_allclose(np.imag(H), 0, atol=1e-6)


def test_statistics_do_not_depend_on_the_batch_size():
    X = _walks(n=13)
    a = TimeSeriesEncoder(dim=84 * 2, random_state=0, batch_size=256).fit(X)
    b = TimeSeriesEncoder(dim=84 * 2, random_state=0, batch_size=3).fit(X)
    np.testing.assert_allclose(a.element_mean_, b.element_mean_, atol=1e-12)
    np.testing.assert_allclose(a.element_scale_, b.element_scale_, rtol=1e-10)


def test_many_series_are_subsampled_with_the_seed(monkeypatch):
    monkeypatch.setattr(timeseries, "STANDARDIZE_SAMPLES", 5)
    X = _walks(n=11)
    enc = TimeSeriesEncoder(dim=84 * 2, random_state=3).fit(X)
    again = TimeSeriesEncoder(dim=84 * 2, random_state=3).fit(X)
    np.testing.assert_array_equal(enc.element_mean_, again.element_mean_)
    raw = TimeSeriesEncoder(dim=84 * 2, random_state=3, standardize=False).fit(X)
    H = np.asarray(raw.transform(X), dtype=np.complex128)
    # the mean of some 5 of the 11 encodings (sorted: which ones the seed chose)
    rng = np.random.default_rng(enc._sub_seed("standardize"))
    rows = np.sort(rng.choice(11, 5, replace=False))
    np.testing.assert_allclose(enc.element_mean_, H[rows].mean(axis=0), atol=1e-6)
    assert not np.allclose(enc.element_mean_, H.mean(axis=0), atol=1e-3)


def test_one_training_series_is_not_standardised():
    X = _walks(n=1)
    enc = TimeSeriesEncoder(dim=84, random_state=0).fit(X)
    assert enc.element_mean_ is None
    raw = TimeSeriesEncoder(dim=84, random_state=0, standardize=False).fit(X)
    np.testing.assert_array_equal(np.asarray(enc.transform(X)), np.asarray(raw.transform(X)))


def test_standardisation_is_the_same_on_every_backend(backend):
    X = _walks(n=8)
    ref = TimeSeriesEncoder(dim=84 * 2, random_state=0, time_bandwidth=2.0).fit(X)
    enc = TimeSeriesEncoder(
        dim=84 * 2, random_state=0, time_bandwidth=2.0, backend=backend, device=device_for(backend)
    ).fit(X)
    np.testing.assert_allclose(enc.element_scale_, ref.element_scale_, rtol=1e-4)
    out = enc.model_.backend.to_numpy(enc.transform(X))
    np.testing.assert_allclose(out, np.asarray(ref.transform(X)), atol=2e-3)


def test_standardised_encoder_pickles_and_classifies():
    t = np.linspace(0, 1, 50)
    X = np.stack([np.sin(2 * np.pi * (2 + 3 * (k % 2)) * t + 0.05 * k) for k in range(20)])
    y = np.arange(20) % 2
    clf = RidgeHDClassifier(encoder=TimeSeriesEncoder(dim=84 * 4, random_state=0)).fit(X, y)
    assert clf.score(X, y) == 1.0
    again = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(again.predict(X), clf.predict(X))
    np.testing.assert_array_equal(again.encoder_.element_mean_, clf.encoder_.element_mean_)


def test_the_defaults():
    enc = TimeSeriesEncoder()
    assert (enc.features, enc.time_bandwidth, enc.standardize) == ("minirocket", None, True)
    assert enc._time_bandwidth() == 0.0
    assert TimeSeriesEncoder(features="values")._time_bandwidth() == 8.0
    assert RidgeHDClassifier().alpha == 0.2
    with pytest.raises(ValueError, match="multiple of 84"):
        TimeSeriesEncoder(dim=1000).fit(_walks(n=2))
    with pytest.raises((TypeError, ValueError), match="standardize"):
        TimeSeriesEncoder(standardize="yes").fit(_walks(n=2))


def test_an_encoder_pickled_before_standardisation_encodes_as_it_did():
    """An encoder pickled before ``features`` and ``standardize`` existed (a values encoder,
    unstandardised) reads them from the class defaults: the same encodings, and
    ``get_params`` works."""
    X = _walks(n=6, channels=1)
    enc = TimeSeriesEncoder(features="values", standardize=False, dim=64, random_state=0).fit(X)
    state = enc.__getstate__()
    for name in ("features", "standardize", "element_mean_", "element_scale_"):
        state.pop(name, None)
    old = TimeSeriesEncoder.__new__(TimeSeriesEncoder)
    old.__setstate__(state)
    assert old.get_params()["standardize"] is False and old.features == "values"
    np.testing.assert_array_equal(np.asarray(old.transform(X)), np.asarray(enc.transform(X)))
