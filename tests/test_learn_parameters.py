"""The learners' parameters: one table of rules per class (holovec._params), scikit-learn's
``random_state`` and its deprecated alias ``seed``, and the module layout of the prototype
classifiers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import clone

import holovec.learn as learn
from holovec._format import CHECKSUMS, read_archive, write_archive
from holovec._params import parameter_rules
from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    HDEncoder,
    NeuralHDClassifier,
    OnlineHDClassifier,
    RegHDRegressor,
    RidgeHDClassifier,
    RidgeHDRegressor,
)

ESTIMATORS = [
    CentroidClassifier,
    AdaptHDClassifier,
    OnlineHDClassifier,
    NeuralHDClassifier,
    RidgeHDClassifier,
    RidgeHDRegressor,
    RegHDRegressor,
]


def _data(n=40):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 4))
    labels = np.where(X[:, 0] > 0, "a", "b")
    return X, labels, X[:, 0] + 0.5 * X[:, 1]


def _target(cls, labels, values):
    return values if cls in (RidgeHDRegressor, RegHDRegressor) else labels


def _answers(est, X):
    return est.predict(X)


@pytest.mark.parametrize("cls", [*ESTIMATORS, HDEncoder])
def test_every_parameter_with_a_rule_is_in_the_signature(cls):
    """Each class states its rules in one table, over parameters it has."""
    params = set(cls().get_params(deep=False))
    rules = parameter_rules(cls)
    assert {"batch_size", "random_state"} <= set(rules)
    assert set(rules) <= params


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_seed_is_a_deprecated_alias_of_random_state(cls):
    """``seed`` gives what ``random_state`` gives, with a FutureWarning at fit."""
    X, labels, values = _data()
    y = _target(cls, labels, values)
    by_state = cls(dim=128, random_state=3).fit(X, y)
    with pytest.warns(FutureWarning, match="seed is deprecated"):
        by_seed = cls(dim=128, seed=3).fit(X, y)
    assert by_state.encoder_.seed_ == by_seed.encoder_.seed_ == 3
    np.testing.assert_array_equal(_answers(by_state, X), _answers(by_seed, X))


def test_random_state_decides_over_seed():
    """What scikit-learn's tools set (random_state) never conflicts with the alias: it decides."""
    X, labels, _ = _data()
    with pytest.warns(FutureWarning, match="random_state=2 is used"):
        assert CentroidClassifier(dim=64, seed=1, random_state=2).fit(X, labels).encoder_.seed_ == 2
    with pytest.warns(FutureWarning, match="random_state=2 is used"):
        assert HDEncoder(dim=64, seed=1, random_state=2).fit(X).seed_ == 2
    # the estimator's random_state is its encoder's (scikit-learn's tools set both)
    clf = CentroidClassifier(encoder=HDEncoder(dim=64, random_state=1), random_state=2).fit(X, labels)
    assert clf.encoder_.seed_ == 2
    clf = CentroidClassifier(encoder=HDEncoder(dim=64, random_state=1)).fit(X, labels)
    assert clf.encoder_.seed_ == 1


def test_sklearn_tools_set_random_state_on_estimators_made_with_seed():
    """BaggingClassifier and GridSearchCV set random_state (of the estimator and of its
    encoder, to different values): no conflict; clone keeps both parameters."""
    from sklearn.ensemble import BaggingClassifier
    from sklearn.model_selection import GridSearchCV

    X, labels, _ = _data()
    for base in (CentroidClassifier(dim=64, seed=0), CentroidClassifier(encoder=HDEncoder(dim=64, seed=0))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)  # (the alias's)
            bag = BaggingClassifier(base, n_estimators=2, random_state=0).fit(X, labels)
        assert bag.score(X, labels) > 0.6
        assert clone(base).get_params()["seed"] == base.get_params()["seed"]
    search = GridSearchCV(CentroidClassifier(dim=64, random_state=0), {"random_state": [0, 1]}, cv=2)
    assert search.fit(X, labels).best_params_["random_state"] in (0, 1)


def test_a_holovec_encoders_seed_is_its_own():
    """The vectors of a holovec encoder are its own seed's; the estimator's random_state
    orders the passes (no conflict)."""
    from holovec import VSA
    from holovec.encoders import FractionalPowerEncoder

    X, labels, _ = _data()
    enc = FractionalPowerEncoder(VSA.create("FHRR", dim=64, seed=0), 0.0, 1.0, seed=1)
    values = (X[:, 0] - X[:, 0].min()) / np.ptp(X[:, 0])  # (scalars in the encoder's range)
    clf = CentroidClassifier(encoder=enc, random_state=0).fit(values, labels)
    assert clf.encoder_.seed_ == 0 and clf.encoder_.encoder_ is enc


@pytest.mark.parametrize(
    ("value", "error", "words"),
    [
        (np.random.RandomState(0), TypeError, "random_state must be one of None or an int"),
        (np.random.default_rng(0), TypeError, "random_state must be one of None or an int"),
        (1.5, TypeError, "random_state must be one of None or an int"),
        (True, TypeError, "random_state must be one of None or an int"),
        (-1, ValueError, r"random_state must be in \[0, 2\*\*128\)"),
        (2**128, ValueError, r"random_state must be in \[0, 2\*\*128\)"),
    ],
)
@pytest.mark.parametrize("cls", [CentroidClassifier, HDEncoder])
def test_bad_random_states_are_refused(cls, value, error, words):
    X, labels, _ = _data()
    with pytest.raises(error, match=words):
        cls(dim=64, random_state=value).fit(X, labels)


def test_random_state_survives_clone_save_and_load(tmp_path):
    X, labels, _ = _data()
    clf = AdaptHDClassifier(dim=64, epochs=2, random_state=5).fit(X, labels)
    assert clone(clf).get_params()["random_state"] == 5
    clf.save(tmp_path / "clf.npz")
    copy = learn.load(tmp_path / "clf.npz")
    assert copy.random_state == 5 and copy.seed is None
    np.testing.assert_array_equal(copy.predict(X), clf.predict(X))


def test_files_written_before_random_state_load(tmp_path):
    """Files of holovec before ``random_state`` have no such parameter: loaded with the
    default (None), predicting alike."""
    X, labels, _ = _data()
    clf = CentroidClassifier(encoder=HDEncoder(dim=64), seed=4).fit(X, labels)
    clf.save(tmp_path / "new.npz")
    record, arrays = read_archive(
        tmp_path / "new.npz", format="holovec.estimator", versions=1, what="estimator"
    )
    del record["params"]["random_state"]
    del record["params"]["encoder"]["HDEncoder"]["random_state"]
    del record["encoder"]["params"]["random_state"]
    meta = {k: v for k, v in record.items() if k not in ("format", "version", *CHECKSUMS.fields)}
    write_archive(tmp_path / "old.npz", format="holovec.estimator", version=1, metadata=meta, arrays=arrays)
    copy = learn.load(tmp_path / "old.npz")
    assert copy.random_state is None and copy.encoder.random_state is None
    np.testing.assert_array_equal(copy.predict(X), clf.predict(X))


@pytest.mark.parametrize(
    ("params", "error", "words"),
    [
        ({"batch_size": 2.0}, TypeError, "batch_size must be a positive int, got float"),
        ({"batch_size": "8"}, TypeError, "batch_size must be a positive int, got str"),
        ({"batch_size": 0}, ValueError, "batch_size must be a positive int, got 0"),
        ({"bandwidth": "wide"}, ValueError, r"bandwidth must be positive \(a finite number > 0\) or one of"),
        ({"bandwidth": -1.0}, ValueError, r"bandwidth must be positive \(a finite number > 0\) or one of"),
        ({"bandwidth": [1.0]}, TypeError, "bandwidth must be"),
        (
            {"encoding": "fourier"},
            ValueError,
            "encoding must be one of 'sinusoid', 'projection', 'precomputed'",
        ),
        ({"encoding": 1}, TypeError, "encoding must be one of"),
        ({"standardize": "yes"}, TypeError, "standardize must be True or False"),
        ({"encoder": "ngram"}, TypeError, "encoder must be one of None or a holovec encoder"),
    ],
)
def test_encoder_parameters_wrong_type_is_type_error_bad_value_is_value_error(params, error, words):
    X, _, _ = _data()
    with pytest.raises(error, match=words):
        HDEncoder(dim=64, seed=0, **params).fit(X)


@pytest.mark.parametrize("cls", [AdaptHDClassifier, OnlineHDClassifier, NeuralHDClassifier])
def test_zero_epochs_is_the_first_pass_alone(cls):
    X, labels, _ = _data()
    clf = cls(dim=64, epochs=0, seed=0).fit(X, labels)
    assert clf.prototypes_.shape == (2, 64 * 2)


def test_reghd_needs_at_least_one_epoch():
    """RegHD's epochs are its only passes (no first pass besides): 0 has no meaning."""
    X, _, values = _data()
    with pytest.raises(ValueError, match="epochs must be a positive int, got 0"):
        RegHDRegressor(dim=64, epochs=0, seed=0).fit(X, values)
    with pytest.raises(TypeError, match="epochs must be a positive int, got float"):
        RegHDRegressor(dim=64, epochs=2.0, seed=0).fit(X, values)


def test_prototype_classifiers_keep_their_module_path():
    from holovec.learn import centroid, neuralhd, prototypes, retraining

    assert prototypes.CentroidClassifier is centroid.CentroidClassifier is CentroidClassifier
    assert prototypes.AdaptHDClassifier is retraining.AdaptHDClassifier is AdaptHDClassifier
    assert prototypes.OnlineHDClassifier is retraining.OnlineHDClassifier is OnlineHDClassifier
    assert prototypes.NeuralHDClassifier is neuralhd.NeuralHDClassifier is NeuralHDClassifier
    assert set(prototypes.__all__) >= {
        "AdaptHDClassifier",
        "CentroidClassifier",
        "NeuralHDClassifier",
        "OnlineHDClassifier",
    }


def test_singular_systems_are_the_backends_declared_errors():
    """What the backend declares ``xp.linalg.solve`` raises for a singular system (NumPy's
    ``LinAlgError``; on torch also torch's) becomes the ValueError; other errors pass."""
    from holovec.learn._space import Space

    space = Space(CentroidClassifier(dim=64, seed=0).fit(*_data()[:2]).model_)
    with pytest.raises(ValueError, match="raise alpha"), space.refusing_singular("raise alpha"):
        space.solve(np.zeros((3, 3), np.float32), np.ones((3, 1), np.float32))
    with pytest.raises(KeyError), space.refusing_singular("raise alpha"):
        raise KeyError("other")
    torch = pytest.importorskip("torch")
    from holovec import kernels
    from holovec.backends import get_backend

    assert torch.linalg.LinAlgError in kernels.singular_system_errors(get_backend("torch", "cpu"))


@pytest.mark.parametrize(
    ("encoder", "error"),
    [("pre", ValueError), (3, TypeError), (np.zeros(3), TypeError)],
)
def test_estimator_encoder_parameter_is_checked_by_its_rule(encoder, error):
    X, labels, _ = _data()
    with pytest.raises(error, match="encoder must be one of None, 'precomputed' or an HDEncoder"):
        CentroidClassifier(dim=64, encoder=encoder).fit(X, labels)
