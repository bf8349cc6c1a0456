"""Calibrated probabilities (scikit-learn's CalibratedClassifierCV over holovec's class
scores), the expected calibration error, and split-conformal prediction sets."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.calibration import CalibratedClassifierCV
from sklearn.datasets import load_digits, load_iris
from sklearn.frozen import FrozenEstimator
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import GaussianNB

from conftest import device_for
from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    NeuralHDClassifier,
    OnlineHDClassifier,
    RidgeHDClassifier,
)
from holovec.learn.calibration import expected_calibration_error, softmax
from holovec.learn.conformal import (
    ConformalClassifier,
    class_probabilities,
    conformal_quantile,
    nonconformity,
)

SMALL = {"dim": 256, "random_state": 0}
CLASSIFIERS = {
    "Centroid": lambda: CentroidClassifier(**SMALL),
    "AdaptHD": lambda: AdaptHDClassifier(epochs=3, **SMALL),
    "OnlineHD": lambda: OnlineHDClassifier(epochs=3, **SMALL),
    "NeuralHD": lambda: NeuralHDClassifier(epochs=4, regen_every=2, **SMALL),
    "RidgeHD": lambda: RidgeHDClassifier(**SMALL),
}


@pytest.fixture(scope="module")
def digits():
    """Digits in a fixed split: half to fit, a fifth to calibrate, the rest to test."""
    X, y = load_digits(return_X_y=True)
    X_fit, X_rest, y_fit, y_rest = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
    X_cal, X_test, y_cal, y_test = train_test_split(
        X_rest, y_rest, test_size=0.6, stratify=y_rest, random_state=0
    )
    return X_fit, y_fit, X_cal, y_cal, X_test, y_test


@pytest.fixture(scope="module")
def fitted_on_digits(digits):
    """Centroid and RidgeHD classifiers (FHRR, dim 1000, seed 0) fitted on the first half."""
    X_fit, y_fit = digits[:2]
    return {
        "Centroid": CentroidClassifier(dim=1000, random_state=0).fit(X_fit, y_fit),
        "RidgeHD": RidgeHDClassifier(dim=1000, random_state=0).fit(X_fit, y_fit),
    }


# -- the expected calibration error ----------------------------------------------------------
def test_ece_matches_a_hand_computation():
    """Top-label ECE with 3 equal-width bins (0, 1/3], (1/3, 2/3], (2/3, 1]:
    confidences 0.9 (right), 0.8 (wrong), 0.7 (right) fall in the last bin: accuracy 2/3,
    mean confidence 0.8, gap 0.1333; 0.5 (right) and 0.4 (wrong) in the middle one:
    accuracy 1/2, confidence 0.45, gap 0.05. ECE = 3/5 * 0.1333 + 2/5 * 0.05 = 0.1."""
    proba = np.array([[0.9, 0.1, 0.0], [0.1, 0.8, 0.1], [0.2, 0.1, 0.7], [0.5, 0.3, 0.2], [0.3, 0.3, 0.4]])
    y = np.array([0, 0, 2, 0, 1])
    assert expected_calibration_error(y, proba, n_bins=3) == pytest.approx(0.1)
    labels = np.array(["cat", "ant", "dog"])  # columns in classes' order, not sorted
    assert expected_calibration_error(labels[y], proba, n_bins=3, classes=labels) == pytest.approx(0.1)
    # 15 bins (the default): each confidence its own bin: mean |correct - confidence|
    assert expected_calibration_error(y, proba) == pytest.approx(np.mean([0.1, 0.8, 0.3, 0.5, 0.4]))


def test_ece_is_zero_for_calibrated_confidences_and_takes_binary_probabilities():
    # 10 samples at confidence 0.8, 8 of them right: calibrated in their bin
    proba = np.tile([0.8, 0.2], (10, 1))
    y = np.array([0] * 8 + [1] * 2)
    assert expected_calibration_error(y, proba) == pytest.approx(0.0, abs=1e-12)
    assert expected_calibration_error(y, proba[:, 1]) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize(
    "y, proba, kwargs, error",
    [
        ([0, 1], [[0.5, 0.5], [1.2, -0.2]], {}, ValueError),
        ([0, 2], [[0.5, 0.5], [0.5, 0.5]], {}, ValueError),
        (["a", "b"], [[0.5, 0.5], [0.5, 0.5]], {}, ValueError),
        (["a", "c"], [[0.5, 0.5], [0.5, 0.5]], {"classes": ["a", "b"]}, ValueError),
        ([0, 1, 1], [[0.5, 0.5], [0.5, 0.5]], {}, ValueError),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"n_bins": 0}, ValueError),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"n_bins": 2.5}, TypeError),
    ],
)
def test_ece_rejects_what_is_not_probabilities_of_its_classes(y, proba, kwargs, error):
    with pytest.raises(error):
        expected_calibration_error(y, proba, **kwargs)


def test_softmax_of_scores_sums_to_one_and_reads_binary_scores():
    S = np.array([[0.1, 0.3, -0.2], [800.0, 0.0, 0.0]])  # (the second would overflow exp)
    P = softmax(S)
    assert np.allclose(P.sum(axis=1), 1) and np.argmax(P[0]) == 1 and P[1, 0] == pytest.approx(1.0)
    assert np.allclose(softmax(S, temperature=1e-3)[0], [0, 1, 0])
    assert np.allclose(softmax(np.array([np.log(3.0)])), [[0.25, 0.75]])
    with pytest.raises(ValueError, match="temperature"):
        softmax(S, temperature=0)


# -- calibrated probabilities ------------------------------------------------------------------
@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_calibrated_classifier_cv_calibrates_every_holovec_classifier(name):
    """CalibratedClassifierCV reads each classifier's decision_function (its class scores):
    temperature, sigmoid and isotonic all give probabilities of the classes_."""
    X, y = load_iris(return_X_y=True)
    for method in ("temperature", "sigmoid", "isotonic"):
        cal = CalibratedClassifierCV(CLASSIFIERS[name](), method=method, cv=2).fit(X, y)
        P = cal.predict_proba(X)
        assert P.shape == (150, 3) and np.allclose(P.sum(axis=1), 1)
        assert cal.classes_.tolist() == [0, 1, 2] and cal.score(X, y) > 0.8


def test_calibrated_classifier_cv_reads_binary_scores():
    X, y = load_iris(return_X_y=True)
    X, y = X[y > 0], np.where(y[y > 0] == 2, "virginica", "versicolor")
    cal = CalibratedClassifierCV(CentroidClassifier(**SMALL), method="temperature", cv=2).fit(X, y)
    assert cal.predict_proba(X).shape == (100, 2) and cal.score(X, y) > 0.8


@pytest.mark.parametrize("name, before, after", [("Centroid", 0.778, 0.023), ("RidgeHD", 0.597, 0.020)])
def test_temperature_scaling_calibrates_holovec_scores_on_digits(
    digits, fitted_on_digits, name, before, after
):
    """Digits, fixed split (898 samples to fit, 359 to calibrate, 540 to test), FHRR
    dim 1000, seed 0. A softmax of the class scores at temperature 1 is far from
    calibrated (cosines differ by tenths: nearly uniform probabilities); a temperature
    fitted on the calibration part (``CalibratedClassifierCV(FrozenEstimator(clf),
    method="temperature")``) brings the top-label ECE (15 bins) on the test part from
    0.778 to 0.023 for CentroidClassifier (accuracy 0.898) and from 0.597 to 0.020 for
    RidgeHDClassifier (0.974), with the same predictions (measured; the user guide's table
    has the other classifiers and methods)."""
    _, _, X_cal, y_cal, X_test, y_test = digits
    clf = fitted_on_digits[name]
    plain = expected_calibration_error(y_test, softmax(clf.decision_function(X_test)), classes=clf.classes_)
    cal = CalibratedClassifierCV(FrozenEstimator(clf), method="temperature").fit(X_cal, y_cal)
    P = cal.predict_proba(X_test)
    calibrated = expected_calibration_error(y_test, P, classes=cal.classes_)
    assert plain == pytest.approx(before, abs=0.05)
    assert calibrated < max(0.04, 2 * after) and calibrated < plain / 10
    assert np.array_equal(cal.classes_[np.argmax(P, axis=1)], clf.predict(X_test))


# -- conformal prediction sets -----------------------------------------------------------------
class _Lookup(ClassifierMixin, BaseEstimator):
    """A classifier of precomputed probabilities: sample ``i`` (``X[i, 0] == i``) gets row
    ``i`` of ``proba``, so that many calibration/test splits cost no scoring."""

    def __init__(self, proba=None):
        self.proba = proba

    def fit(self, X, y):
        self.classes_ = np.arange(self.proba.shape[1])
        return self

    def predict_proba(self, X):
        return self.proba[np.asarray(X)[:, 0].astype(np.int64)]

    def predict(self, X):
        return np.argmax(self.predict_proba(X), axis=1)


@pytest.fixture(scope="module")
def held_out_probabilities(digits, fitted_on_digits):
    """The RidgeHD classifier's softmax probabilities on the 899 digits it did not see."""
    _, _, X_cal, y_cal, X_test, y_test = digits
    clf = fitted_on_digits["RidgeHD"]
    X_pool = np.concatenate([X_cal, X_test])
    return class_probabilities(clf, X_pool), np.concatenate([y_cal, y_test])


def _coverage_over_splits(proba, y, alpha, method, n_cal, repeats, seed=0):
    """Coverage and mean set size of split conformal over ``repeats`` random
    calibration/test splits of the pool (the rest of each split its test set), all splits
    at once; the first three checked against ConformalClassifier's own sets."""
    S = nonconformity(proba, method)  # every class's score, (n, k)
    true = S[np.arange(len(y)), y]
    order = np.argsort(np.random.default_rng(seed).random((repeats, len(y))), axis=1)
    cal, test = order[:, :n_cal], order[:, n_cal:]
    rank = int(np.ceil((n_cal + 1) * (1 - alpha)))
    q = np.sort(true[cal], axis=1)[:, rank - 1 : rank]  # (rank <= n_cal here)
    sets = S[test] <= q[:, :, None]  # (repeats, n_test, k)
    frozen = FrozenEstimator(_Lookup(proba).fit(None, None))
    index = np.arange(len(y))[:, None]
    for r in range(3):
        cp = ConformalClassifier(frozen, alpha=alpha, method=method).fit(index[cal[r]], y[cal[r]])
        assert cp.quantile_ == q[r, 0] and np.array_equal(cp.predict_set(index[test[r]]), sets[r])
    coverage = (true[test] <= q).mean(axis=1)
    return coverage, sets.sum(axis=2).mean(axis=1)


@pytest.mark.parametrize(
    "alpha, expected, measured, size",
    [(0.05, 0.9536, 0.9538, 0.97), (0.1, 0.9007, 0.9012, 0.90), (0.2, 0.8013, 0.8023, 0.80)],
)
def test_conformal_sets_cover_the_true_class_as_guaranteed(
    held_out_probabilities, alpha, expected, measured, size
):
    """Split conformal (score 1 - p_y) over 4000 random splits of 899 held-out digits into
    n = 150 calibration and 749 test samples. For exchangeable samples and no ties (the
    899 scores are distinct) the expected coverage is exactly
    ceil((n + 1)(1 - alpha)) / (n + 1), within [1 - alpha, 1 - alpha + 1/(n + 1)]: 0.9536,
    0.9007 and 0.8013 for alpha 0.05, 0.1 and 0.2; measured 0.9538, 0.9012 and 0.8023
    (one split's coverage varies by 0.019 to 0.035: the standard error of the mean is at
    most 0.00056, the tolerance 0.003), mean set sizes 0.97, 0.90 and 0.80 (RidgeHD at
    dim 1000 is 97% accurate: sets are mostly one class, some empty)."""
    proba, y = held_out_probabilities
    n_cal = 150
    coverage, sizes = _coverage_over_splits(proba, y, alpha, "lac", n_cal, repeats=4000)
    assert np.ceil((n_cal + 1) * (1 - alpha)) / (n_cal + 1) == pytest.approx(expected, abs=1e-4)
    assert 1 - alpha - 0.003 <= coverage.mean() <= 1 - alpha + 1 / (n_cal + 1) + 0.003
    assert coverage.mean() == pytest.approx(expected, abs=0.003)
    assert sizes.mean() == pytest.approx(size, abs=0.03)


def test_adaptive_conformal_sets_cover_at_least_as_guaranteed(held_out_probabilities):
    """The APS score (probability mass down to the true class), not randomised: coverage
    at least 1 - alpha (0.9; measured 0.90 over 1000 splits, n = 150), with sets larger
    than LAC's (1.69 classes against 0.90: they adapt to the softmax's uncertainty)."""
    proba, y = held_out_probabilities
    coverage, sizes = _coverage_over_splits(proba, y, 0.1, "aps", 150, repeats=1000)
    assert coverage.mean() >= 0.9 - 0.005
    assert sizes.mean() > _coverage_over_splits(proba, y, 0.1, "lac", 150, repeats=1000)[1].mean()


def test_conformal_sets_shrink_as_alpha_grows(held_out_probabilities):
    """With one calibration set, the quantile falls as alpha grows, so the sets are nested."""
    proba, y = held_out_probabilities
    frozen = FrozenEstimator(_Lookup(proba).fit(None, None))
    index = np.arange(len(y))[:, None]
    sets = [
        ConformalClassifier(frozen, alpha=a, method=m).fit(index[:300], y[:300]).predict_set(index[300:])
        for m in ("lac", "aps")
        for a in (0.02, 0.05, 0.1, 0.2, 0.4)
    ]
    for group in (sets[:5], sets[5:]):
        sizes = [s.sum() for s in group]
        assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
        assert all(np.all(s <= b) for b, s in itertools.pairwise(group))


def test_conformal_quantile_is_the_finite_sample_rank():
    scores = np.arange(1.0, 11.0)  # n = 10
    assert conformal_quantile(scores, 0.1) == 10.0  # rank ceil(11 * 0.9) = 10
    assert conformal_quantile(scores, 0.2) == 9.0  # rank ceil(11 * 0.8) = 9
    assert conformal_quantile(scores, 0.5) == 6.0  # rank ceil(5.5) = 6
    assert conformal_quantile(scores, 0.05) == np.inf  # rank 11 > n: every class


def test_conformal_classifier_wraps_a_holovec_classifier(backend):
    X, y = load_iris(return_X_y=True)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.4, stratify=y, random_state=0)
    clf = CentroidClassifier(dim=256, random_state=0, backend=backend, device=device_for(backend))
    cp = ConformalClassifier(clf, alpha=0.2, calibration_size=0.3, random_state=0).fit(X_train, y_train)
    assert cp.estimator_ is not clf and cp.classes_.tolist() == [0, 1, 2] and cp.n_features_in_ == 4
    assert len(cp.calibration_scores_) == 27  # 0.3 of 90
    assert np.array_equal(cp.predict(X_test), cp.estimator_.predict(X_test))
    sets = cp.predict_set(X_test)
    assert sets.shape == (60, 3) and sets.dtype == bool
    assert sets[np.arange(60), y_test].mean() >= 0.6
    # the quantile is the ceil((n + 1)(1 - alpha))-th smallest score of 1 - softmax(scores)
    P = softmax(cp.estimator_.decision_function(X_test))
    assert np.array_equal(sets, 1 - P <= cp.quantile_)
    rank = int(np.ceil(28 * 0.8))
    assert cp.quantile_ == np.sort(cp.calibration_scores_)[rank - 1]
    # the same seed, the same split
    again = ConformalClassifier(clf, alpha=0.2, calibration_size=0.3, random_state=0).fit(X_train, y_train)
    assert np.array_equal(again.calibration_scores_, cp.calibration_scores_)


def test_a_frozen_estimator_is_calibrated_on_all_samples_and_not_refitted():
    X, y = load_iris(return_X_y=True)
    clf = RidgeHDClassifier(**SMALL).fit(X[::2], y[::2])
    cp = ConformalClassifier(FrozenEstimator(clf), alpha=0.1).fit(X[1::2], y[1::2])
    assert cp.estimator_.estimator is clf and len(cp.calibration_scores_) == 75
    assert cp.predict_set(X[1::2]).shape == (75, 3)


def test_conformal_classifier_uses_predict_proba_of_any_classifier():
    X, y = load_iris(return_X_y=True)
    cp = ConformalClassifier(GaussianNB(), alpha=0.1, random_state=1).fit(X, y)
    P = cp.estimator_.predict_proba(X)
    assert np.array_equal(cp.predict_set(X), 1 - P <= cp.quantile_)


def test_too_few_calibration_samples_give_every_class():
    X, y = load_iris(return_X_y=True)
    cp = ConformalClassifier(CentroidClassifier(**SMALL), alpha=0.05, calibration_size=0.1, random_state=0)
    cp.fit(X[::10], y[::10])  # 15 samples, 2 to calibrate: rank ceil(3 * 0.95) = 3 > 2
    assert cp.quantile_ == np.inf and cp.predict_set(X).all()


@pytest.mark.parametrize(
    "params, error",
    [
        ({"alpha": 0.0}, ValueError),
        ({"alpha": 1.5}, ValueError),
        ({"alpha": "0.1"}, TypeError),
        ({"method": "raps"}, ValueError),
        ({"calibration_size": 1.0}, ValueError),
        ({"random_state": -1}, ValueError),
    ],
)
def test_conformal_classifier_checks_its_parameters_at_fit(params, error):
    X, y = load_iris(return_X_y=True)
    cp = ConformalClassifier(CentroidClassifier(**SMALL), **params)
    with pytest.raises(error, match=next(iter(params))):
        cp.fit(X, y)


def test_conformal_classifier_needs_class_scores():
    class NoScores(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.unique(y)
            return self

        def predict(self, X):
            return np.zeros(len(X), dtype=int)

    X, y = load_iris(return_X_y=True)
    with pytest.raises(TypeError, match="predict_proba or decision_function"):
        ConformalClassifier(NoScores(), random_state=0).fit(X, y)
