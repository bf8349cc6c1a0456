"""DistHD, CompHD and SparseHD: each rule's laws as its paper states them, their accuracy
on digits against their compression or sparsity, streams, files and every backend.

Small dims (at most 1000) and few epochs keep this fast; accuracies measured at these
settings are in the comments (seed 0, 30% of digits held out).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import device_for

pytest.importorskip("sklearn")

from sklearn.datasets import load_digits, load_iris
from sklearn.model_selection import train_test_split

from holovec import VSA
from holovec.encoders.sinusoid import SinusoidEncoder
from holovec.learn import (
    AdaptHDClassifier,
    CompHDClassifier,
    DistHDClassifier,
    HDEncoder,
    SparseHDClassifier,
    load,
)
from holovec.learn._space import Space
from holovec.learn.comphd import _folded
from holovec.learn.disthd import _harm
from holovec.learn.neuralhd import NeuralHDClassifier

NEW_RULES = {
    "disthd": lambda **kw: DistHDClassifier(epochs=3, regen_every=1, **kw),
    "comphd": lambda **kw: CompHDClassifier(compression=4, epochs=2, **kw),
    "sparsehd-dimension": lambda **kw: SparseHDClassifier(sparsity=0.5, epochs=2, **kw),
    "sparsehd-class": lambda **kw: SparseHDClassifier(sparsity=0.5, sparsity_kind="class", epochs=2, **kw),
}


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)


# -- CompHD ---------------------------------------------------------------------------------
def test_comphd_without_compression_predicts_as_the_uncompressed_classifier(digits):
    Xtr, Xte, ytr, _ = digits
    for model in ("FHRR", "MAP"):
        kw = {"model": model, "dim": 500, "epochs": 2, "random_state": 0}
        plain = AdaptHDClassifier(**kw).fit(Xtr, ytr)
        folded = CompHDClassifier(compression=1, **kw).fit(Xtr, ytr)
        np.testing.assert_array_equal(folded.predict(Xte), plain.predict(Xte))
        np.testing.assert_allclose(folded.decision_function(Xte), plain.decision_function(Xte), atol=1e-5)


@pytest.mark.parametrize("model", ["FHRR", "MAP"])
def test_folding_is_the_keyed_sum_of_the_chunks_and_linear(model):
    space = Space(VSA.create(model, 12, "numpy"))
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((3, space.width)).astype(np.float32) for _ in range(2))
    keys = np.where(rng.random((4, 3)) < 0.5, -1.0, 1.0).astype(np.float32)  # s = 4 chunks of 3
    fold = _folded(space, a, keys)
    assert fold.shape == (3, space.width // 4)
    parts = space.width // 12  # (complex models: the real and imaginary parts fold alike)
    by_hand = np.concatenate(
        [sum(keys[j] * a[:, p * 12 + 3 * j : p * 12 + 3 * (j + 1)] for j in range(4)) for p in range(parts)],
        axis=1,
    )
    np.testing.assert_allclose(fold, by_hand, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        _folded(space, a + b, keys), fold + _folded(space, b, keys), rtol=1e-5, atol=1e-5
    )
    np.testing.assert_allclose(_folded(space, 2.5 * a, keys), 2.5 * fold, rtol=1e-6, atol=1e-6)


def test_comphd_accuracy_falls_gracefully_with_the_compression(digits):
    """Measured (D=1000, FHRR, 3 epochs of AdaptHD, seed 0): s=1 0.952 (AdaptHD's own), s=2
    0.946, s=5 0.933, s=10 0.909; from the class means alone (epochs=0): 0.904, 0.900, 0.893,
    0.878."""
    Xtr, Xte, ytr, yte = digits
    scores = {}
    for s in (1, 2, 5, 10):
        clf = CompHDClassifier(dim=1000, compression=s, epochs=3, random_state=0).fit(Xtr, ytr)
        assert clf.compressed_prototypes_.shape == (10, 2 * 1000 // s)
        assert set(np.unique(clf.chunk_keys_)) <= {-1.0, 1.0} and clf.chunk_keys_.shape == (s, 1000 // s)
        np.testing.assert_allclose(
            clf.compressed_prototypes_, _folded(clf.space_, clf.prototypes_, clf.chunk_keys_), atol=1e-6
        )
        scores[s] = clf.score(Xte, yte)
    assert scores[1] > 0.94 and scores[10] > 0.88, scores
    assert scores[1] + 0.01 >= scores[2] >= scores[1] - 0.02, scores  # (graceful: a little at a time)
    assert scores[2] + 0.01 >= scores[5] >= scores[1] - 0.04, scores
    assert scores[5] + 0.01 >= scores[10] >= scores[1] - 0.08, scores


def test_comphd_refuses_a_compression_that_does_not_divide_dim(digits):
    Xtr, _, ytr, _ = digits
    with pytest.raises(ValueError, match=r"compression=3 must divide the model's dim=1000"):
        CompHDClassifier(dim=1000, compression=3, epochs=0).fit(Xtr, ytr)


# -- SparseHD -------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["dimension", "class"])
@pytest.mark.parametrize("model", ["FHRR", "MAP"])
def test_sparsehd_keeps_exactly_1_minus_sparsity_of_the_dimensions(kind, model, digits):
    Xtr, _, ytr, _ = digits
    dim = 200
    for sparsity in (0.0, 0.5, 0.8, 0.9):
        clf = SparseHDClassifier(
            model=model, dim=dim, sparsity=sparsity, sparsity_kind=kind, epochs=0, random_state=0
        ).fit(Xtr, ytr)
        mask = np.asarray(clf.sparsity_mask_)
        per_dim = mask.reshape(10, -1, dim)  # (complex: the real and imaginary parts together)
        assert np.all(per_dim == per_dim[:, :1])
        kept = per_dim[:, 0].astype(bool)
        assert np.all(kept.sum(axis=1) == round((1 - sparsity) * dim))
        assert np.all(np.asarray(clf.prototypes_)[mask == 0] == 0)
        # which: the first pass's unit class means, largest variance (dimension) or magnitude
        means = np.asarray(clf.class_sums_) / np.asarray(clf.class_counts_)[:, None]
        unit = (means / np.linalg.norm(means, axis=1, keepdims=True)).reshape(10, -1, dim)
        if kind == "dimension":
            assert np.all(kept == kept[:1])
            spread = np.var(unit, axis=0).sum(axis=0)
            if sparsity:
                assert spread[kept[0]].min() >= spread[~kept[0]].max() - 1e-6
        else:
            size = np.sum(unit**2, axis=1)
            if sparsity:
                assert np.all(
                    np.where(kept, size, np.inf).min(axis=1)
                    >= np.where(kept, -np.inf, size).max(axis=1) - 1e-6
                )


def test_sparsehd_retrains_on_the_kept_elements_only(digits):
    Xtr, Xte, ytr, yte = digits
    clf = SparseHDClassifier(dim=500, sparsity=0.8, sparsity_kind="class", epochs=3, random_state=0)
    clf.fit(Xtr, ytr)
    mask = np.asarray(clf.sparsity_mask_)
    assert np.all(np.asarray(clf.prototypes_)[mask == 0] == 0)
    assert clf.score(Xte, yte) > 0.9


def test_sparsehd_accuracy_against_the_sparsity(digits):
    """Measured (D=1000, FHRR, 3 epochs, seed 0), dimension-wise: sparsity 0 0.952, 0.5
    0.944, 0.8 0.932, 0.9 0.926; class-wise: 0 0.952, 0.5 0.963, 0.8 0.967, 0.9 0.963."""
    Xtr, Xte, ytr, yte = digits
    for kind in ("dimension", "class"):
        scores = {
            s: SparseHDClassifier(dim=1000, sparsity=s, sparsity_kind=kind, epochs=3, random_state=0)
            .fit(Xtr, ytr)
            .score(Xte, yte)
            for s in (0.0, 0.5, 0.8, 0.9)
        }
        assert scores[0.0] > 0.94 and scores[0.5] > scores[0.0] - 0.02, (kind, scores)
        assert scores[0.8] > scores[0.0] - 0.04 and scores[0.9] > 0.9, (kind, scores)


# -- DistHD ---------------------------------------------------------------------------------
def _reference_harm(P, H, t, alpha, beta, theta):
    """DistHD's score, sample by sample as the paper states it."""
    U = P / np.linalg.norm(P, axis=1, keepdims=True)
    total = np.zeros(P.shape[1])
    for h, c in zip(H, t, strict=True):
        s = U @ h
        if s[c] >= s.max():
            continue  # classified right: no say
        first, second = np.argsort(-s, kind="stable")[:2]
        near_true, near_first, near_second = (np.abs(h - U[k]) for k in (c, first, second))
        if second == c:  # partially correct
            total += 0.5 * (alpha * near_true - beta * near_first)
        else:
            total += alpha * near_true - beta * near_first - theta * near_second
    return total


def _hand_made():
    """Three classes in 6 dimensions; sample 0 (class 0) loses to class 1 with class 0 second,
    sample 1 (class 2) loses to class 0 with class 1 second, sample 2 is right. Dimensions
    4 and 5 are where the mistaken samples lie far from their class and near the winner."""
    P = np.array(
        [[1.0, 0.2, 0.1, 0.3, -0.8, 0.9], [0.9, 0.1, 0.2, 0.1, 0.9, -0.7], [0.1, 1.0, 0.9, 0.2, 0.1, 0.1]]
    )
    H = np.array([[1, 0.1, 0.2, 0.2, 1, -1], [1, 0.2, 0.1, 0.1, 1, 0.1], [0.1, 1, 1, 0.1, 0.1, 0.1]])
    return P, H / np.linalg.norm(H, axis=1, keepdims=True), np.array([0, 2, 2])


def test_disthd_scores_dimensions_as_the_paper_and_regenerates_the_highest():
    P, H, t = _hand_made()
    space = Space(VSA.create("MAP", 6, "numpy", dtype="float64"))
    harm, wrong = _harm(space, P, H, t, None, 0.5, 1.0, 0.25)
    expected = _reference_harm(P, H, t, 0.5, 1.0, 0.25)
    np.testing.assert_allclose(harm, expected, rtol=1e-12, atol=1e-12)
    assert int(wrong) == 2
    assert set(np.argsort(-expected)[:2]) == {4, 5}
    # the estimator regenerates the dimensions of highest score over its data
    clf = DistHDClassifier(model="MAP", dim=6, encoder="precomputed", regen_rate=0.3)
    vectors = np.where(H >= 0, 1.0, -1.0)  # MAP vectors: their unit rows are the samples
    X = super(NeuralHDClassifier, clf)._fit_encoder(vectors)  # (precomputed: no regenerating)
    clf.classes_, clf.prototypes_ = np.arange(3), P.astype(np.float32)
    clf._scored = (X, t)
    expected = _reference_harm(P, vectors / math.sqrt(6), t, 0.5, 1.0, 0.25)
    assert np.count_nonzero(expected) and len(np.unique(expected)) == 6  # (no ties)
    np.testing.assert_array_equal(clf._dims_to_regenerate(2), np.argsort(-expected)[:2])
    clf._scored = (X[2:], t[2:])  # only right samples: nothing to regenerate
    assert clf._dims_to_regenerate(2) is None


def test_disthd_regenerates_ceil_rate_times_dim_dimensions_each_time(digits, monkeypatch):
    Xtr, Xte, ytr, yte = digits
    redrawn = []
    regenerate = SinusoidEncoder.regenerate

    def spy(self, dims):
        redrawn.append(np.asarray(dims))
        regenerate(self, dims)

    monkeypatch.setattr(SinusoidEncoder, "regenerate", spy)
    clf = DistHDClassifier(dim=256, epochs=4, regen_every=1, regen_rate=0.05, random_state=0).fit(Xtr, ytr)
    assert len(redrawn) == 3 == clf.encoder_.encoder_.regenerations  # (none after the last epoch)
    for dims in redrawn:
        assert len(np.unique(dims)) == len(dims) == math.ceil(0.05 * 256)
    assert clf.score(Xte, yte) > 0.85


def test_disthd_needs_an_encoder_that_regenerates(digits):
    Xtr, _, ytr, _ = digits
    with pytest.raises(ValueError, match="DistHDClassifier needs an encoder that can regenerate"):
        DistHDClassifier(dim=128, encoder=HDEncoder(encoding="projection", model="MAP"), epochs=1).fit(
            Xtr, ytr
        )


def test_default_settings_on_digits(digits):
    """Measured at the defaults but for D=1000 (20 epochs, seed 0): DistHD 0.967, CompHD (s=4)
    0.946, SparseHD (0.5, dimension-wise) 0.954; AdaptHD 0.963 and NeuralHD 0.967 alike."""
    Xtr, Xte, ytr, yte = digits
    for cls in (DistHDClassifier, CompHDClassifier, SparseHDClassifier):
        assert cls(dim=1000, random_state=0).fit(Xtr, ytr).score(Xte, yte) > 0.93


# -- what the three share -------------------------------------------------------------------
@pytest.mark.parametrize("name", list(NEW_RULES))
def test_saved_and_loaded_predicts_alike(name, digits, tmp_path):
    Xtr, Xte, ytr, _ = digits
    clf = NEW_RULES[name](dim=256, random_state=0).fit(Xtr, ytr)
    clf.save(tmp_path / "clf.npz")
    back = load(tmp_path / "clf.npz")
    assert type(back) is type(clf) and back.get_params() == clf.get_params()
    np.testing.assert_array_equal(back.predict(Xte), clf.predict(Xte))
    np.testing.assert_allclose(back.decision_function(Xte), clf.decision_function(Xte), atol=1e-6)
    for name in ("compressed_prototypes_", "sparsity_mask_"):
        if hasattr(clf, name):
            np.testing.assert_array_equal(np.asarray(getattr(back, name)), np.asarray(getattr(clf, name)))


@pytest.mark.parametrize("name", list(NEW_RULES))
def test_streams_learn_and_go_on_after_a_file(name, digits, tmp_path):
    Xtr, Xte, ytr, yte = digits
    parts = np.array_split(np.arange(len(ytr)), 4)
    whole, halted = NEW_RULES[name](dim=256, random_state=0), NEW_RULES[name](dim=256, random_state=0)
    for i, part in enumerate(parts):
        whole.partial_fit(Xtr[part], ytr[part], classes=np.arange(10))
        if i == 2:
            halted.save(tmp_path / "stream.npz")
            halted = load(tmp_path / "stream.npz")
        halted.partial_fit(Xtr[part], ytr[part], classes=np.arange(10))
        if i == 0 and hasattr(whole, "sparsity_mask_"):
            first_mask = np.asarray(whole.sparsity_mask_).copy()
    np.testing.assert_array_equal(halted.predict(Xte), whole.predict(Xte))
    assert whole.score(Xte, yte) > 0.85
    if hasattr(whole, "sparsity_mask_"):  # the stream keeps the mask of its first call
        np.testing.assert_array_equal(np.asarray(whole.sparsity_mask_), first_mask)
        assert np.all(np.asarray(whole.prototypes_)[first_mask == 0] == 0)
    if hasattr(whole, "compressed_prototypes_"):  # folded again after each call
        np.testing.assert_allclose(
            whole.compressed_prototypes_,
            _folded(whole.space_, whole.prototypes_, whole.chunk_keys_),
            atol=1e-6,
        )


@pytest.mark.parametrize("name", list(NEW_RULES))
def test_every_backend_fits_and_predicts_alike(name, backend, iris):
    Xtr, Xte, ytr, yte = iris
    reference = NEW_RULES[name](dim=256, random_state=3, batch_size=32).fit(Xtr, ytr)
    clf = NEW_RULES[name](dim=256, random_state=3, batch_size=32, backend=backend, device=device_for(backend))
    clf.fit(Xtr, ytr)
    assert clf.model_.backend.name == backend
    np.testing.assert_array_equal(clf.predict(Xte), reference.predict(Xte))
    np.testing.assert_allclose(clf.decision_function(Xte), reference.decision_function(Xte), atol=2e-4)
    assert clf.score(Xte, yte) > 0.75


@pytest.mark.parametrize(
    "make, error, match",
    [
        (lambda: CompHDClassifier(compression=0), ValueError, "compression must be a positive int"),
        (lambda: CompHDClassifier(compression=2.0), TypeError, "compression must be a positive int"),
        (
            lambda: SparseHDClassifier(sparsity=1.0),
            ValueError,
            r"sparsity must be a finite number in \[0, 1\)",
        ),
        (lambda: SparseHDClassifier(sparsity=-0.1), ValueError, "sparsity must be"),
        (lambda: SparseHDClassifier(sparsity_kind="row"), ValueError, "sparsity_kind must be one of"),
        (lambda: DistHDClassifier(alpha=-1.0), ValueError, "alpha must be"),
        (lambda: DistHDClassifier(theta=float("nan")), ValueError, "theta must be"),
        (lambda: DistHDClassifier(regen_rate=0.0), ValueError, "regen_rate must be"),
        (lambda: DistHDClassifier(regen_every=0), ValueError, "regen_every must be a positive int"),
    ],
)
def test_bad_parameters_are_refused_clearly(make, error, match, iris):
    Xtr, _, ytr, _ = iris
    with pytest.raises(error, match=match):
        make().set_params(dim=128).fit(Xtr, ytr)
