"""partial_fit on every learner that learns online: equal to fit for the one-pass rules,
close to fit for the retraining ones, saved and resumed mid-stream, checked as scikit-learn
defines it (classes on the first call, the same ones after)."""

from functools import partial

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_digits
from sklearn.model_selection import train_test_split

from conftest import device_for
from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    HDEncoder,
    LeHDCClassifier,
    NeuralHDClassifier,
    OnlineHDClassifier,
    QuantHDClassifier,
    RegHDRegressor,
    RidgeHDClassifier,
    RidgeHDRegressor,
    load,
)

CLASSES = np.arange(10)


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    return train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def _stream(est, X, y, calls=5, **kw):
    for part in np.array_split(np.arange(len(y)), calls):
        est.partial_fit(X[part], y[part], **kw)
    return est


def _host(est, x):
    return np.asarray(est.model_.to_numpy(x), dtype=np.float64)


@pytest.mark.parametrize(
    "make",
    [
        lambda **kw: CentroidClassifier(**kw),
        lambda **kw: AdaptHDClassifier(epochs=0, **kw),  # the first pass: class means
        lambda **kw: RidgeHDClassifier(**kw),
    ],
    ids=["centroid", "adapthd-first-pass", "ridge"],
)
def test_one_pass_rules_stream_to_what_fit_gives(make, backend, digits):
    """Bundles (class sums, means) and the ridge sums H'H, H'Y add over batches: five
    partial_fit calls give fit's state on the concatenated data up to float rounding
    (without standardisation, which a stream takes from its first batch)."""
    Xtr, Xte, ytr, _ = (part[:300] for part in digits)
    enc = HDEncoder(dim=256, random_state=0, standardize=False, backend=backend, device=device_for(backend))
    full = make(encoder=enc).fit(Xtr, ytr)
    stream = _stream(make(encoder=enc), Xtr, ytr, classes=CLASSES)
    state = "prototypes_" if hasattr(full, "prototypes_") else "coef_"
    a, b = _host(full, getattr(full, state)), _host(stream, getattr(stream, state))
    np.testing.assert_allclose(b, a, atol=1e-5 * np.abs(a).max())
    assert np.mean(stream.predict(Xte) == full.predict(Xte)) >= 0.99


def test_ridge_regressor_streams_to_what_fit_gives():
    """The regressor's sums (H'(y - shift), H'1, count and sum of y - shift) give fit's
    centred read-out and intercept; a large offset of the targets costs no precision."""
    X, y = load_diabetes(return_X_y=True)
    y = y + 1e6
    enc = HDEncoder(dim=500, random_state=0, standardize=False)
    full = RidgeHDRegressor(encoder=enc).fit(X, y)
    stream = _stream(RidgeHDRegressor(encoder=enc), X, y)
    a = _host(full, full.coef_)
    np.testing.assert_allclose(_host(stream, stream.coef_), a, atol=1e-5 * np.abs(a).max())
    assert stream.intercept_ == pytest.approx(full.intercept_, abs=1e-6)
    np.testing.assert_allclose(stream.predict(X), full.predict(X), atol=1e-3)


@pytest.mark.parametrize(
    "cls, tolerance",
    [
        (CentroidClassifier, 0.03),
        (AdaptHDClassifier, 0.03),
        (OnlineHDClassifier, 0.03),
        (NeuralHDClassifier, 0.03),
        (RidgeHDClassifier, 0.03),
        (LeHDCClassifier, 0.02),
        (partial(QuantHDClassifier, bits=1, epochs=5), 0.03),
    ],
    ids=["centroid", "adapthd", "onlinehd", "neuralhd", "ridge", "lehdc", "quanthd"],
)
def test_five_partial_fit_calls_score_within_0_03_of_fit_on_digits(cls, tolerance, digits):
    """Digits (70/30 split, random_state=0), dim 1000, seed 0, default settings (the
    stream standardises by its first batch): test accuracy of fit against five
    partial_fit calls, measured: Centroid 0.904 / 0.904, AdaptHD 0.969 / 0.956, OnlineHD
    0.948 / 0.943, NeuralHD 0.967 / 0.961, RidgeHD 0.978 / 0.983 (before this, AdaptHD's
    stream scored 0.51 and OnlineHD's 0.81).

    LeHDC (defaults, 30 epochs): 0.959 / 0.948, the issue's bound 0.02 (20 epochs: 0.956 /
    0.954). Each call runs as many Adam steps over its fifth of the data as fit runs over
    that fifth, but in a row; with the weight decay towards 0 in every call the stream
    scored 0.937 (and 0.932 against 0.959 at D=10,000): the decay of a later call now
    pulls towards where the earlier calls left the weights (0.950 at D=10,000). Binary
    QuantHD (5 epochs): 0.961 / 0.944 (at 20 epochs 0.967 / 0.943; ternary at 5: 0.939 /
    0.956): AdaptHD's stream, which loses 0.013 here, plus the quantiser's. The same
    bound as the other retraining rules, 0.03."""
    Xtr, Xte, ytr, yte = digits
    fitted = cls(dim=1000, random_state=0).fit(Xtr, ytr).score(Xte, yte)
    streamed = _stream(cls(dim=1000, random_state=0), Xtr, ytr, classes=CLASSES).score(Xte, yte)
    assert streamed >= fitted - tolerance, (fitted, streamed)


@pytest.mark.parametrize(
    "make",
    [
        lambda: CentroidClassifier(dim=256, random_state=0),
        lambda: AdaptHDClassifier(dim=256, epochs=3, random_state=0),
        lambda: OnlineHDClassifier(dim=256, epochs=3, random_state=0),
        lambda: NeuralHDClassifier(dim=256, epochs=4, regen_every=2, random_state=0),
        lambda: RidgeHDClassifier(dim=256, random_state=0),
        lambda: RidgeHDRegressor(dim=256, random_state=0),
        lambda: RegHDRegressor(dim=256, random_state=0),
        lambda: LeHDCClassifier(dim=256, epochs=2, random_state=0),
        lambda: QuantHDClassifier(dim=256, bits=2, epochs=2, random_state=0),
    ],
    ids=[
        "centroid",
        "adapthd",
        "onlinehd",
        "neuralhd",
        "ridge",
        "ridge-regressor",
        "reghd",
        "lehdc",
        "quanthd",
    ],
)
def test_a_stream_saved_and_loaded_goes_on_as_if_uninterrupted(make, digits, tmp_path):
    """The state partial_fit goes on from (class sums and counts, H'H and H'Y, target
    sums, regenerated encoder, LeHDC's latent weights with Adam's moments and step count,
    QuantHD's real prototypes) is saved: three calls, save, load, two more calls predict
    as five calls in one process."""
    Xtr, Xte, ytr, _ = digits
    kw = {} if hasattr(make(), "classes") or "Regressor" in type(make()).__name__ else {"classes": CLASSES}
    parts = np.array_split(np.arange(len(ytr)), 5)
    whole, halted = make(), make()
    for i, part in enumerate(parts):
        whole.partial_fit(Xtr[part], ytr[part], **kw)
        if i == 2:
            halted.save(tmp_path / "stream.npz")
            halted = load(tmp_path / "stream.npz")
        halted.partial_fit(Xtr[part], ytr[part], **kw)
    if "Regressor" in type(whole).__name__:
        np.testing.assert_allclose(halted.predict(Xte), whole.predict(Xte), rtol=1e-4, atol=1e-4)
    else:
        np.testing.assert_array_equal(halted.predict(Xte), whole.predict(Xte))


@pytest.mark.parametrize(
    "cls",
    [
        CentroidClassifier,
        AdaptHDClassifier,
        OnlineHDClassifier,
        NeuralHDClassifier,
        RidgeHDClassifier,
        partial(LeHDCClassifier, epochs=2),
        partial(QuantHDClassifier, epochs=2),
    ],
)
def test_stream_labels_are_checked_as_scikit_learn_defines_them(cls, digits):
    Xtr, _, ytr, _ = digits
    X, y = Xtr[:60], ytr[:60]
    with pytest.raises(ValueError, match="needs classes"):
        cls(dim=64, random_state=0).partial_fit(X, y)
    with pytest.raises(ValueError, match=r"labels not in classes_.*\[11\]"):
        cls(dim=64, random_state=0).partial_fit(X, np.where(y == 3, 11, y), classes=CLASSES)
    with pytest.raises(ValueError, match="at least 2 labels"):
        cls(dim=64, random_state=0).partial_fit(X, y * 0, classes=[0])
    stream = cls(dim=64, random_state=0).partial_fit(X, y, classes=CLASSES)
    stream.partial_fit(X, y, classes=CLASSES[::-1])  # the same labels, in any order
    with pytest.raises(ValueError, match=r"classes=\[0, 1, 2\] is not the same.*classes_=\[0, 1, 2, 3"):
        stream.partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match=r"labels not in classes_.*\[12\]"):
        stream.partial_fit(X, np.where(y == 3, 12, y))
    with pytest.raises(ValueError, match=r"X has 63 features, but .* is expecting 64"):
        stream.partial_fit(X[:, 1:], y)
    with pytest.raises(ValueError, match="NaN"):
        stream.partial_fit(np.where(X == 0, np.nan, X), y)
    assert stream.n_features_in_ == 64


def test_ridge_partial_fit_after_fit_starts_a_new_stream(digits):
    """fit solves without keeping H'H: partial_fit after it starts a new stream, with a
    warning that says so, and fit after a stream forgets the stream's sums."""
    Xtr, Xte, ytr, _ = digits
    fitted = RidgeHDClassifier(dim=64, random_state=0).fit(Xtr, ytr)
    with pytest.warns(UserWarning, match="starts a new stream"):
        fitted.partial_fit(Xtr[:100], ytr[:100], classes=CLASSES)
    fresh = RidgeHDClassifier(dim=64, random_state=0).partial_fit(Xtr[:100], ytr[:100], classes=CLASSES)
    np.testing.assert_array_equal(fitted.predict(Xte), fresh.predict(Xte))
    stream = RidgeHDClassifier(dim=64, random_state=0).partial_fit(Xtr, ytr, classes=CLASSES)
    width = stream.space_.width  # (twice dim for a complex model)
    assert stream.gram_.shape == (width, width) and stream.cross_.shape == (width, 10)
    assert not hasattr(stream.fit(Xtr, ytr), "gram_")
    regressor = RidgeHDRegressor(dim=64, random_state=0).partial_fit(Xtr, ytr.astype(float))
    np.testing.assert_allclose(regressor.target_sums_[:2], [len(ytr), np.sum(ytr - np.mean(ytr))], atol=1e-9)


def test_retraining_streams_keep_the_class_means(digits):
    """AdaptHD's stream keeps the class sums and counts of every sample so far (fit
    keeps them too), the means its prototypes start from."""
    Xtr, _, ytr, _ = digits
    stream = _stream(AdaptHDClassifier(dim=64, epochs=1, random_state=0), Xtr, ytr, classes=CLASSES)
    np.testing.assert_array_equal(stream.class_counts_, np.bincount(ytr))
    fitted = AdaptHDClassifier(dim=64, epochs=1, random_state=0).fit(Xtr, ytr)
    np.testing.assert_array_equal(fitted.class_counts_, np.bincount(ytr))
    assert not hasattr(OnlineHDClassifier(dim=64, epochs=1, random_state=0).fit(Xtr, ytr), "class_sums_")


def test_lehdc_streams_go_on_from_their_adam_state(digits):
    """LeHDC's stream keeps its latent weights, Adam's moments and step count: a call
    takes epochs * batches more steps, partial_fit after fit goes on from fit's state,
    and a class first seen in a later batch starts from its mean there."""
    Xtr, Xte, ytr, yte = (part[:400] for part in digits)
    later = ytr == 9
    stream = LeHDCClassifier(dim=256, epochs=3, batch_size=64, random_state=0)
    stream.partial_fit(Xtr[~later], ytr[~later], classes=CLASSES)
    steps = stream.adam_steps_
    assert steps == 3 * -(-np.sum(~later) // 64) and stream.class_counts_[9] == 0
    stream.partial_fit(Xtr[later], ytr[later])
    assert stream.adam_steps_ == steps + 3 and stream.class_counts_[9] == np.sum(later)
    assert np.mean(stream.predict(Xte[yte == 9]) == 9) > 0.5  # started from its mean
    np.testing.assert_array_equal(
        _host(stream, stream.prototypes_), np.where(_host(stream, stream.latent_weights_) >= 0, 1, -1)
    )
    fitted = LeHDCClassifier(dim=256, epochs=3, random_state=0).fit(Xtr, ytr)
    before = fitted.adam_steps_
    assert fitted.partial_fit(Xtr[:64], ytr[:64]).adam_steps_ == before + 3


def test_quanthd_streams_keep_the_real_prototypes(digits):
    """QuantHD's stream retrains the real prototypes (kept), and quantises them after each
    call: the prototypes stay of their bits."""
    Xtr, _, ytr, _ = digits
    stream = _stream(QuantHDClassifier(dim=256, bits=2, epochs=2, random_state=0), Xtr, ytr, classes=CLASSES)
    assert set(np.unique(_host(stream, stream.prototypes_)).tolist()) <= {-1.0, 0.0, 1.0}
    real = _host(stream, stream.real_prototypes_)
    assert len(np.unique(real)) > 3 and real.shape == stream.prototypes_.shape
    np.testing.assert_array_equal(stream.class_counts_, np.bincount(ytr))


def test_ridge_partial_fit_solves_the_read_out_once_when_read(digits, monkeypatch):
    """A call adds its batch to H'H and H'Y and solves nothing: the width x width solve
    (1.1 s at width 4000, against 0.07 s to add 100 samples) runs once, when coef_ is read
    (predict), and gives fit's read-out on the whole stream."""
    from holovec.learn._space import Space

    Xtr, Xte, ytr, _ = digits
    solves = []
    solve = Space.solve
    monkeypatch.setattr(Space, "solve", lambda self, A, B: solves.append(1) or solve(self, A, B))
    expected = _stream(RidgeHDRegressor(dim=128, random_state=0), Xtr, ytr.astype(float)).predict(Xte[:5])
    solves.clear()
    stream = _stream(RidgeHDRegressor(dim=128, random_state=0), Xtr, ytr.astype(float))
    assert solves == []
    first = stream.set_params(alpha=100.0).predict(Xte[:5])  # (the calls' alpha, as if solved then)
    stream.predict(Xte[:5])
    assert len(solves) == 1
    np.testing.assert_allclose(first, expected, rtol=1e-6)


def _negate(name):
    def edit(record, arrays):
        arrays[name] = -arrays[name]

    return edit


def _zero_first(name):
    def edit(record, arrays):
        arrays[name][0] = 0.0

    return edit


@pytest.mark.parametrize(
    "make, edit",
    [
        (lambda: QuantHDClassifier(dim=128, bits=2, epochs=1, random_state=0), _negate("real_prototypes_")),
        (lambda: QuantHDClassifier(dim=128, bits=1, epochs=1, random_state=0), _negate("real_prototypes_")),
        (lambda: RidgeHDClassifier(dim=64, random_state=0), _negate("gram_")),
        (lambda: RidgeHDClassifier(dim=64, random_state=0), _zero_first("gram_")),  # (no longer symmetric)
        (lambda: AdaptHDClassifier(dim=128, epochs=1, random_state=0), _zero_first("class_counts_")),
    ],
    ids=["quanthd-ternary", "quanthd-binary", "ridge-negated", "ridge-asymmetric", "adapthd-counts"],
)
def test_a_stream_state_at_odds_with_itself_is_refused_at_load(make, edit, digits, tmp_path):
    """A file whose stream state contradicts itself (prototypes that are no quantised real
    prototypes, an H'H that is not symmetric with a diagonal >= 0, class sums longer than
    their count of unit encodings) is refused, not resumed from."""
    from holovec._format import CHECKSUMS, read_archive, write_archive

    Xtr, _, ytr, _ = digits
    make().partial_fit(Xtr[:200], ytr[:200], classes=CLASSES).save(tmp_path / "a.npz")
    load(tmp_path / "a.npz")  # (the file as saved loads)
    record, arrays = read_archive(
        tmp_path / "a.npz", format="holovec.estimator", versions=1, what="estimator"
    )
    edit(record, arrays)
    meta = {k: v for k, v in record.items() if k not in ("format", "version", *CHECKSUMS.fields)}
    write_archive(tmp_path / "b.npz", format="holovec.estimator", version=1, metadata=meta, arrays=arrays)
    with pytest.raises(ValueError, match=r"class_sums_|gram_|quantised"):
        load(tmp_path / "b.npz")


@pytest.mark.parametrize(
    "classes", [[0, 1, 2, np.nan], [[0, 1], [2, 3]], [0.5, 1.5]], ids=["nan", "2-d", "continuous"]
)
@pytest.mark.parametrize("cls", [CentroidClassifier, RidgeHDClassifier])
def test_stream_classes_are_checked_as_fit_checks_labels(cls, classes, digits):
    """``classes=`` is checked as ``y`` is in fit (scikit-learn's classification targets, 1-D):
    a NaN class, a 2-D array or continuous values are refused, not taken as classes."""
    Xtr, _, ytr, _ = digits
    with pytest.raises(ValueError, match="classes must be a 1-D array of class labels"):
        cls(dim=64, random_state=0).partial_fit(Xtr[:20], ytr[:20] % 2, classes=classes)


def test_lehdc_stream_decays_towards_the_earlier_calls_weights(digits):
    """After a stream's first call, LeHDC's weight decay pulls the latent weights towards
    where the calls before left them, not towards 0. With a strong decay (1.0) over 20
    epochs of a second batch, measured: the weights keep 0.97 of their norm and move 0.03
    of it; decayed towards 0 they kept 0.24 of it."""
    Xtr, _, ytr, _ = digits
    est = LeHDCClassifier(dim=256, epochs=20, lr=1e-2, weight_decay=1.0, random_state=0)
    est.partial_fit(Xtr[:300], ytr[:300], classes=CLASSES)
    before = np.asarray(_host(est, est.latent_weights_), dtype=np.float64)
    est.partial_fit(Xtr[300:600], ytr[300:600])
    after = np.asarray(_host(est, est.latent_weights_), dtype=np.float64)
    assert np.linalg.norm(after) > 0.8 * np.linalg.norm(before)
    assert np.linalg.norm(after - before) < 0.2 * np.linalg.norm(before)
