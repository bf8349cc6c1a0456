"""holovec.noise.perturb on fitted learners through their read-out hook (``readout_shapes``,
``readout_masks``, ``restore_readout``): QuantHD's quantised prototypes carry the noise
(never quantised again from the real ones), LeHDC's binary prototypes do (never taken again
as the signs of the latent weights), SparseHD's kept elements do (the mask and the dropped
elements kept), on every backend; the other learners perturb what they did before."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from conftest import device_for, to_numpy
from holovec import noise

pytest.importorskip("sklearn")

from sklearn.datasets import load_digits

from holovec import learn
from holovec.learn.persistence import ESTIMATORS

D = 1000
CASES = {
    "quant1": ("QuantHDClassifier", {"bits": 1}),
    "quant2": ("QuantHDClassifier", {"bits": 2}),
    "lehdc": ("LeHDCClassifier", {}),
    "sparse-dimension": ("SparseHDClassifier", {"sparsity": 0.6}),
    "sparse-class": ("SparseHDClassifier", {"sparsity": 0.6, "sparsity_kind": "class"}),
}
_FITTED: dict = {}


def _data():
    X, y = load_digits(return_X_y=True)
    return X[:400], y[:400]


def _fitted(case: str, backend: str):
    key = (case, backend)
    if key not in _FITTED:
        name, options = CASES[case]
        X, y = _data()
        device = device_for(backend)
        est = getattr(learn, name)(
            model="MAP", dim=D, epochs=3, random_state=0, backend=backend, device=device, **options
        )
        _FITTED[key] = est.fit(X, y)
    return _FITTED[key]


def _host(est, attribute: str) -> np.ndarray:
    return np.array(to_numpy(est.model_, getattr(est, attribute)), dtype=np.float64)


def _state(est) -> dict:
    shapes = {**type(est).fitted_shapes(10, D), **type(est).stream_shapes(10, D)}
    return {n: copy.deepcopy(_host(est, n)) for n, s in shapes.items() if len(s) == 2}


@pytest.mark.parametrize("case", list(CASES))
def test_no_noise_predicts_what_the_estimator_predicts(backend, case):
    est = _fitted(case, backend)
    X, _ = _data()
    same = noise.perturb(est, "flip", 0.0, seed=1)
    np.testing.assert_array_equal(same.predict(X), est.predict(X))
    np.testing.assert_array_equal(_host(same, "prototypes_"), _host(est, "prototypes_"))


@pytest.mark.parametrize("case", list(CASES))
def test_flips_hit_the_stored_readout_and_leave_the_original(backend, case):
    est = _fitted(case, backend)
    X, y = _data()
    before = _state(est)
    p = 0.2
    noisy = noise.perturb(est, "flip", p, seed=3)
    for name, value in before.items():  # the original untouched
        np.testing.assert_array_equal(_host(est, name), value)
    old, new = before["prototypes_"], _host(noisy, "prototypes_")
    assert np.all((new == old) | (new == -old))  # sign flips, nothing else
    if "sparsity_mask_" in before:
        mask = before["sparsity_mask_"]
        np.testing.assert_array_equal(_host(noisy, "sparsity_mask_"), mask)  # structure: kept
        assert np.all(new[mask == 0] == 0)  # the dropped elements stay 0
        positions = (mask == 1).sum(axis=1)  # the kept ones (the same count per class)
    else:
        for kept in ("real_prototypes_", "latent_weights_"):  # the training state: kept
            if kept in before:
                np.testing.assert_array_equal(_host(noisy, kept), before[kept])
        positions = np.full(len(old), old.shape[1])
    k = np.round(p * positions)
    # k of the stored positions change sign per prototype, fewer only where one is 0
    stored = before.get("sparsity_mask_", np.ones_like(old)) == 1
    changed, zeros = np.sum(new != old, axis=1), np.sum((old == 0) & stored, axis=1)
    assert np.all(changed <= k) and np.all(changed >= k - zeros)
    assert np.all(changed > 0.5 * k)
    assert noisy.score(X, y) < est.score(X, y)


@pytest.mark.parametrize("case", list(CASES))
def test_half_the_signs_flipped_bring_accuracy_towards_chance(backend, case):
    est = _fitted(case, backend)
    X, y = _data()
    assert est.score(X, y) > 0.9
    assert noise.perturb(est, "flip", 0.5, seed=5).score(X, y) < 0.35  # chance: 0.1


def test_quanthd_predicts_from_the_flipped_prototypes_and_partial_fit_goes_on():
    est = _fitted("quant1", "numpy")
    X, y = _data()
    noisy = noise.perturb(est, "flip", 0.3, seed=2)
    P = _host(noisy, "prototypes_")
    assert np.all(np.abs(P) == 1) and not np.array_equal(P, _host(est, "prototypes_"))
    # the scores are the cosines with exactly the flipped prototypes
    H = np.asarray(est.encoder_.transform(X), np.float64)
    H /= np.linalg.norm(H, axis=1, keepdims=True)
    want = H @ (P / np.linalg.norm(P, axis=1, keepdims=True)).T
    np.testing.assert_allclose(noisy.decision_function(X), want, atol=1e-5)
    # partial_fit goes on from the real prototypes, kept as they were: the noise is written over
    clean = copy.deepcopy(est)
    clean.partial_fit(X[:100], y[:100])
    noisy.partial_fit(X[:100], y[:100])
    np.testing.assert_array_equal(_host(noisy, "prototypes_"), _host(clean, "prototypes_"))


def test_lehdc_predicts_from_the_flipped_prototypes_and_partial_fit_goes_on():
    est = _fitted("lehdc", "numpy")
    X, y = _data()
    noisy = noise.perturb(est, "flip", 0.3, seed=2)
    P = _host(noisy, "prototypes_")
    assert np.all(np.abs(P) == 1) and not np.array_equal(P, _host(est, "prototypes_"))
    assert not np.array_equal(P, np.where(_host(noisy, "latent_weights_") >= 0, 1.0, -1.0))
    # the prediction is the nearest of exactly the flipped prototypes
    H = np.asarray(est.encoder_.transform(X), np.float64)
    np.testing.assert_array_equal(noisy.predict(X), est.classes_[np.argmax(H @ P.T, axis=1)])
    # partial_fit goes on from the latent weights, kept as they were: the noise is written over
    clean = copy.deepcopy(est)
    clean.partial_fit(X[:100], y[:100])
    noisy.partial_fit(X[:100], y[:100])
    np.testing.assert_array_equal(_host(noisy, "latent_weights_"), _host(clean, "latent_weights_"))
    np.testing.assert_array_equal(_host(noisy, "prototypes_"), _host(clean, "prototypes_"))


def test_sparsehd_noise_of_real_values_stays_on_the_kept_elements():
    est = _fitted("sparse-class", "numpy")
    X, _ = _data()
    mask, old = _host(est, "sparsity_mask_"), _host(est, "prototypes_")
    for noisy in (
        noise.perturb(est, "gaussian", 0.5, seed=1),
        noise.perturb(est, "stuck_at", 0.25, seed=1, value=1.0),
    ):
        new = _host(noisy, "prototypes_")
        np.testing.assert_array_equal(_host(noisy, "sparsity_mask_"), mask)
        assert np.all(new[mask == 0] == 0) and np.any(new[mask == 1] != old[mask == 1])
        assert noisy.predict(X).shape == (len(X),)
    stuck = _host(noise.perturb(est, "stuck_at", 0.25, seed=1, value=1.0), "prototypes_")
    kept = (mask == 1).sum(axis=1)
    assert np.all(np.sum((stuck == 1) & (mask == 1), axis=1) >= np.round(0.25 * kept))


def test_the_default_readout_is_the_fitted_state_with_a_width_axis():
    for cls in ESTIMATORS.values():
        shapes = {n: s for n, s in cls.fitted_shapes(3, D).items() if D in s}
        readout = cls.readout_shapes(3, D)
        if cls is learn.SparseHDClassifier:
            assert readout == {"prototypes_": (3, D)}
            assert cls.readout_masks == {"prototypes_": "sparsity_mask_"}
        else:
            assert readout == shapes, cls.__name__
            assert cls.readout_masks == {}, cls.__name__


@pytest.mark.parametrize("name", ["CentroidClassifier", "AdaptHDClassifier"])
def test_other_learners_flip_their_prototypes_as_before(name):
    X, y = _data()
    est = getattr(learn, name)(model="MAP", dim=D, random_state=0).fit(X, y)
    old = copy.deepcopy(_host(est, "prototypes_"))
    noisy = noise.perturb(est, "flip", 0.2, seed=1)
    new = _host(noisy, "prototypes_")
    np.testing.assert_array_equal(_host(est, "prototypes_"), old)
    assert np.all((new == old) | (new == -old))
    changed, zeros = np.sum(new != old, axis=1), np.sum(old == 0, axis=1)
    assert np.all(changed <= round(0.2 * D)) and np.all(changed >= round(0.2 * D) - zeros)
