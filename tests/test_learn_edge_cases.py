"""holovec.learn under hostile input: targets far from zero, diverging training,
labels and parameters that must survive a file, crafted files, Dask, NumPy scalars as
parameters, encoders of another backend, vectors that are not unit length, memory.

Small dims, tiny data and few epochs keep each test well under a second or two.
"""

from __future__ import annotations

import importlib.util
import pickle

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.base import ClassifierMixin, ClusterMixin
from sklearn.model_selection import GridSearchCV

import holovec.learn as learn
from conftest import device_for
from holovec import VSA
from holovec._format import CHECKSUMS, read_archive, write_archive
from holovec._params import check_parameters
from holovec.encoders import VectorEncoder
from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    CompHDClassifier,
    DistHDClassifier,
    HDEncoder,
    HDKMeans,
    LeHDCClassifier,
    NeuralHDClassifier,
    OnlineHDClassifier,
    QuantHDClassifier,
    RegHDRegressor,
    RidgeHDClassifier,
    RidgeHDRegressor,
    SparseHDClassifier,
    TrainingDivergedError,
    load,
)
from holovec.learn._base import HDEstimator
from holovec.learn.ridge import ridge_peak_bytes
from holovec.models import AllocationError


def _data(n=160, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = X[:, 0] + 0.5 * np.sin(2 * X[:, 1])
    labels = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    return X, y, labels


def _needs(package):
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} not installed")


# -- the targets' offset ------------------------------------------------------------
def test_reghd_learns_targets_far_from_zero(backend):
    X, y, _ = _data(96)
    kw = {"dim": 256, "random_state": 0, "epochs": 3, "backend": backend, "device": "cpu"}
    plain = RegHDRegressor(**kw).fit(X, y).score(X, y)
    for offset in (1e8, 1.7e9):  # R^2 was 0.58 and -0.05 (float32 intercept and targets)
        shifted = RegHDRegressor(**kw).fit(X, y + offset)
        assert isinstance(shifted.intercept_, float)
        assert shifted.score(X, y + offset) == pytest.approx(plain, abs=0.01)


# -- diverging training --------------------------------------------------------------
@pytest.mark.parametrize("lr", [2, 2.5, 5, 0, -0.1, float("nan")])
def test_reghd_refuses_a_step_outside_its_stable_range(lr):
    X, y, _ = _data(40)
    with pytest.raises(ValueError, match=r"lr must be a finite number in \(0, 2\)"):
        RegHDRegressor(dim=64, lr=lr).fit(X, y)


def test_reghd_steps_near_the_bound_stay_finite():
    X, y, _ = _data()
    pred = RegHDRegressor(dim=256, random_state=0, lr=1.9, epochs=3).fit(X, y).predict(X)
    assert np.all(np.isfinite(pred)) and np.max(np.abs(pred)) < 10 * np.max(np.abs(y))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NumPy's overflow warnings on the way
@pytest.mark.parametrize("make", [AdaptHDClassifier, OnlineHDClassifier])
def test_an_exploding_learning_rate_is_an_error_not_nan(make, backend):
    X, _, labels = _data(60)
    with pytest.raises(TrainingDivergedError, match="lower lr"):
        make(dim=128, random_state=0, lr=1e300, epochs=2, backend=backend, device=device_for(backend)).fit(
            X, labels
        )
    assert issubclass(TrainingDivergedError, ValueError)


def test_targets_beyond_the_float_range_are_refused():
    X, y, _ = _data(60)
    with pytest.raises(ValueError, match="scale the targets"):
        RegHDRegressor(dim=128, random_state=0).fit(X, y * 1e300)
    with pytest.raises(TrainingDivergedError, match="scale the targets"):
        RidgeHDRegressor(dim=128, random_state=0).fit(X, y * 1e300)


# -- files ------------------------------------------------------------------
ESTIMATORS = {
    "CentroidClassifier": lambda **kw: CentroidClassifier(**kw),
    "AdaptHDClassifier": lambda **kw: AdaptHDClassifier(epochs=2, **kw),
    "OnlineHDClassifier": lambda **kw: OnlineHDClassifier(model="MAP", epochs=2, binarize=True, **kw),
    "NeuralHDClassifier": lambda **kw: NeuralHDClassifier(epochs=2, regen_every=1, **kw),
    "RidgeHDClassifier": lambda **kw: RidgeHDClassifier(**kw),
    "RidgeHDRegressor": lambda **kw: RidgeHDRegressor(**kw),
    "RegHDRegressor": lambda **kw: RegHDRegressor(epochs=2, **kw),
    "LeHDCClassifier": lambda **kw: LeHDCClassifier(epochs=2, **kw),
    "QuantHDClassifier": lambda **kw: QuantHDClassifier(bits=2, epochs=2, **kw),
    "HDKMeans": lambda **kw: HDKMeans(n_clusters=3, **kw),
    "DistHDClassifier": lambda **kw: DistHDClassifier(epochs=2, regen_every=1, **kw),
    "CompHDClassifier": lambda **kw: CompHDClassifier(compression=4, epochs=2, **kw),
    "SparseHDClassifier": lambda **kw: SparseHDClassifier(
        sparsity=0.5, sparsity_kind="class", epochs=2, **kw
    ),
}


def test_every_estimator_class_is_covered():
    public = {n for n in learn.__all__ if isinstance(getattr(learn, n), type)}
    estimators = {n for n in public if issubclass(getattr(learn, n), HDEstimator)}
    assert estimators == set(ESTIMATORS)


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_every_estimator_round_trips_through_a_file(name, tmp_path):
    X, y, labels = _data(80)
    est = ESTIMATORS[name](dim=128, random_state=0)
    classifier = isinstance(est, ClassifierMixin)
    est.fit(X, labels if classifier else y + 1e9)  # (regressors: with a large offset)
    est.save(tmp_path / "est.npz")
    copy = load(tmp_path / "est.npz")  # regressors were refused before
    assert type(copy) is type(est) and copy.get_params() == est.get_params()
    if classifier:
        np.testing.assert_array_equal(copy.predict(X), est.predict(X))
        np.testing.assert_allclose(copy.decision_function(X), est.decision_function(X), atol=1e-6)
    elif isinstance(est, ClusterMixin):  # (a clusterer: its centroids' assignments and distances)
        np.testing.assert_array_equal(copy.predict(X), est.predict(X))
        np.testing.assert_allclose(copy.transform(X), est.transform(X), atol=1e-6)
    else:
        np.testing.assert_allclose(copy.predict(X), est.predict(X), rtol=1e-12)


@pytest.mark.parametrize("make", [RidgeHDRegressor, RegHDRegressor])
def test_regressors_round_trip_on_every_backend(make, backend, tmp_path):
    X, y, _ = _data(60)
    reg = make(dim=128, random_state=0, backend=backend, device=device_for(backend)).fit(X, y)
    reg.save(tmp_path / "reg.npz")
    np.testing.assert_allclose(load(tmp_path / "reg.npz").predict(X), reg.predict(X), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(
        load(tmp_path / "reg.npz", backend="numpy").predict(X), reg.predict(X), rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize(
    "labels",
    [
        np.array(["a", "a\x00", "b"], dtype=object),  # one class after a load, before
        np.array(["x", "yy", "zzz"], dtype="<U5"),
        np.array([3, 7, 250], dtype=np.uint8),
        np.array([-1.0, 2.0, 5.0]),
    ],
    ids=["object-str", "unicode", "uint8", "float"],
)
def test_saved_labels_come_back_equal_and_of_their_dtype(labels, tmp_path):
    X, _, t = _data(90)
    y = labels[t]
    clf = CentroidClassifier(dim=128, random_state=0).fit(X, y)
    clf.save(tmp_path / "clf.npz")
    copy = load(tmp_path / "clf.npz")
    assert copy.classes_.dtype == clf.classes_.dtype and list(copy.classes_) == list(clf.classes_)
    np.testing.assert_array_equal(copy.predict(X), clf.predict(X))
    assert copy.predict(X).dtype == clf.predict(X).dtype


def _craft(source, target, edit):
    """A file whose record and arrays ``edit(record, arrays)`` changed, with checksums that
    hold (what a crafted file has)."""
    record, arrays = read_archive(source, format="holovec.estimator", versions=1, what="estimator")
    edit(record, arrays)
    meta = {k: v for k, v in record.items() if k not in ("format", "version", *CHECKSUMS.fields)}
    write_archive(target, format="holovec.estimator", version=1, metadata=meta, arrays=arrays)
    return target


def _set(path, value):
    def edit(record, arrays):
        where = record
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = value

    return edit


CRAFTED = {  # what the file changes -> what the refusal names
    # 2 prototypes for 3 classes: loaded, and never predicted the third class
    "fewer-prototypes": (lambda r, a: a.update(prototypes_=a["prototypes_"][:2]), r"prototypes_.*\(3, 256\)"),
    "wider-prototypes": (lambda r, a: a.update(prototypes_=np.zeros((3, 300), np.float32)), "prototypes_"),
    "float64-prototypes": (
        lambda r, a: a.update(prototypes_=a["prototypes_"].astype(np.float64)),
        "float32 array",
    ),
    "nan-prototypes": (lambda r, a: a["prototypes_"].__setitem__((0, 0), np.nan), "prototypes_ holds NaN"),
    "no-prototypes": (lambda r, a: (a.pop("prototypes_"), r["fitted"].pop("prototypes_")), "prototypes_"),
    "one-class": (_set(("fitted", "classes_", "values"), [0]), "at least 2 distinct labels"),
    "unsorted-classes": (_set(("fitted", "classes_", "values"), [2, 0, 1]), "sorted order"),
    "no-classes": (_set(("fitted", "classes_"), None), "needs classes_"),
    "label-dtype": (_set(("fitted", "classes_", "kind"), "|V8"), "numbers or strings"),
    "short-mean": (lambda r, a: a.update(encoder_mean_=a["encoder_mean_"][:3]), "encoder_mean_"),
    "zero-scale": (lambda r, a: a["encoder_scale_"].__setitem__(1, 0.0), "must be positive"),
    "features": (_set(("encoder", "n_features_in"), 7), r"encoder_mean_.*\(7,\)"),
    "dim": (_set(("params", "dim"), 64), "dim=64 disagrees"),
    "encoder-dim": (_set(("encoder", "params", "dim"), 64), "dim=64 disagrees"),
    "bad-parameter": (_set(("params", "batch_size"), 0), "batch_size must be"),
    "extra-array": (lambda r, a: a.update(extra=np.zeros(3)), "unexpected array 'extra'"),
    "unknown-fitted": (_set(("fitted", "weights_"), None), "weights_"),
    "binarized-fhrr": (_set(("params", "binarize"), True), "binarize=True needs"),
}


@pytest.mark.parametrize("case", list(CRAFTED))
def test_crafted_classifier_files_are_refused(case, tmp_path):
    X, _, labels = _data(60)
    CentroidClassifier(dim=128, random_state=0).fit(X, labels).save(tmp_path / "good.npz")
    edit, words = CRAFTED[case]
    bad = _craft(tmp_path / "good.npz", tmp_path / "bad.npz", edit)
    with pytest.raises(ValueError, match=words):
        load(bad)


REGRESSOR_CRAFTED = {
    "coef-rows": (lambda r, a: a.update(coef_=a["coef_"][:-1]), r"coef_.*\(256,\)"),
    "coef-2d": (lambda r, a: a.update(coef_=a["coef_"][:, None]), r"coef_.*\(256,\)"),
    "intercept-nan": (_set(("fitted", "intercept_"), float("nan")), "intercept_ must be a finite number"),
    "intercept-text": (_set(("fitted", "intercept_"), "1.0"), "intercept_ must be a finite number"),
    "classes": (_set(("fitted", "classes_"), {"kind": "<i8", "values": [0, 1]}), "has no classes_"),
    "lr": (_set(("params", "lr"), 5.0), "lr must be"),
}


def test_a_crafted_ridge_read_out_is_refused(tmp_path):
    X, _, labels = _data(60)
    RidgeHDClassifier(dim=64, random_state=0).fit(X, labels).save(tmp_path / "good.npz")

    def two_of_three(record, arrays):  # read-outs of 2 classes for 3
        arrays["coef_"] = arrays["coef_"][:, :2]

    with pytest.raises(ValueError, match=r"coef_.*\(128, 3\)"):
        load(_craft(tmp_path / "good.npz", tmp_path / "bad.npz", two_of_three))


@pytest.mark.parametrize("case", list(REGRESSOR_CRAFTED))
def test_crafted_regressor_files_are_refused(case, tmp_path):
    X, y, _ = _data(60)
    RegHDRegressor(dim=128, random_state=0, epochs=1).fit(X, y).save(tmp_path / "good.npz")
    edit, words = REGRESSOR_CRAFTED[case]
    bad = _craft(tmp_path / "good.npz", tmp_path / "bad.npz", edit)
    with pytest.raises(ValueError, match=words):
        load(bad)


def test_numpy_scalar_parameters_fit_and_save(tmp_path):
    """What GridSearchCV makes from np.arange grids (epochs=np.int64(1) was refused, and
    save failed with "int64 is not JSON serializable")."""
    X, y, labels = _data(60)
    clf = AdaptHDClassifier(
        dim=np.int64(128), random_state=np.int64(0), epochs=np.int64(1), batch_size=np.int32(16),
        lr=np.float64(0.05), cache_size=np.float32(1.0), binarize=np.False_,
    ).fit(X, labels)  # fmt: skip
    assert clf.prototypes_.dtype == np.float32  # not widened by a float64 lr
    clf.save(tmp_path / "clf.npz")
    params = load(tmp_path / "clf.npz").get_params()
    assert params == clf.get_params()
    assert type(params["epochs"]) is int and type(params["lr"]) is float
    reg = RegHDRegressor(dim=128, random_state=0, lr=np.float64(0.2), epochs=np.int64(2)).fit(X, y)
    assert reg.coef_.dtype == np.float32
    search = GridSearchCV(RegHDRegressor(dim=64, random_state=0), {"epochs": np.arange(1, 3)}, cv=2).fit(X, y)
    assert isinstance(search.best_params_["epochs"], np.integer)
    RidgeHDClassifier(dim=128, random_state=0, alpha=np.float32(0.5)).fit(X, labels).save(tmp_path / "r.npz")
    enc = HDEncoder(
        dim=np.int64(128), random_state=np.uint32(1), bandwidth=np.float64(0.5), batch_size=np.int16(8)
    )
    CentroidClassifier(encoder=enc).fit(X, labels).save(tmp_path / "c.npz")
    assert load(tmp_path / "c.npz").encoder.get_params() == enc.get_params()


def test_saving_an_unsaveable_parameter_names_it(tmp_path):
    from holovec.backends import get_backend

    X, _, labels = _data(40)
    clf = CentroidClassifier(dim=64, random_state=0, backend=get_backend("numpy")).fit(X, labels)
    with pytest.raises(TypeError, match="parameter backend="):
        clf.save(tmp_path / "clf.npz")


@pytest.mark.parametrize(
    ("value", "error", "words"),
    [
        (1.5, TypeError, "epochs must be a non-negative int"),
        ("3", TypeError, "epochs must be a non-negative int"),
        (True, TypeError, "epochs must be a non-negative int"),
        (-1, ValueError, "epochs must be a non-negative int"),
        (np.int64(-2), ValueError, "epochs must be a non-negative int"),
        (10**400, None, None),  # any size of int
    ],
)
def test_parameters_are_checked_by_their_rules(value, error, words):
    X, _, labels = _data(30)
    if error is None:
        check_parameters(AdaptHDClassifier(dim=64, epochs=value))
        return
    with pytest.raises(error, match=words):
        AdaptHDClassifier(dim=64, epochs=value).fit(X, labels)


# -- Dask -----------------------------------------------------------------------------
DASK_CASES = {
    "ridge-classifier": lambda **kw: RidgeHDClassifier(dim=128, batch_size=32, **kw),
    "ridge-regressor": lambda **kw: RidgeHDRegressor(dim=128, batch_size=32, **kw),
    "ridge-accumulated": lambda **kw: RidgeHDRegressor(dim=32, **kw),  # 150 samples, width 64
    "reghd": lambda **kw: RegHDRegressor(dim=128, epochs=2, **kw),
}


def _outputs(est, X):
    return est.decision_function(X) if hasattr(est, "decision_function") else est.predict(X)


@pytest.mark.parametrize("case", list(DASK_CASES))
def test_fitted_on_dask_is_computed_and_pickles(case):
    """Ridge's solve failed with Dask's "chunks must be a square matrix"; fitted state
    stayed a lazy graph (each prediction trained again) that could not be pickled."""
    _needs("dask")
    import dask.array as da

    X, y, labels = _data(150)
    target = labels if case == "ridge-classifier" else y
    est = DASK_CASES[case](random_state=0, backend="dask").fit(da.from_array(X, chunks=(50, -1)), target)
    ref = DASK_CASES[case](random_state=0, backend="numpy").fit(X, target)
    assert len(est.coef_.__dask_graph__()) <= 2  # computed: one array (or a slice of it)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_allclose(_outputs(copy, X), _outputs(est, X), atol=1e-6)
    np.testing.assert_allclose(_outputs(est, X), _outputs(ref, X), atol=1e-4)


# -- encoders of another backend, vectors that are not unit length ---------------
@pytest.mark.parametrize("asked", ["torch", "jax", "dask"])
def test_an_estimator_backend_contradicting_its_encoder_is_refused(asked):
    _needs(asked)
    X, _, labels = _data(30)
    enc = VectorEncoder(VSA.create("MAP", 64, backend="numpy"), 4, seed=0)
    for encoder in (enc, HDEncoder(encoder=enc)):
        with pytest.raises(ValueError, match=f"backend='{asked}' disagrees"):
            CentroidClassifier(encoder=encoder, backend=asked).fit(X, labels)
    for agreeing in ("numpy", "auto", None):  # auto: the encoder's choice
        CentroidClassifier(encoder=enc, backend=agreeing, device="cpu").fit(X, labels)


@pytest.mark.parametrize("make", [CentroidClassifier, AdaptHDClassifier])
def test_precomputed_vectors_of_any_length_score_as_cosines(make, backend):
    model = VSA.create("FHRR", 128, backend=backend, device=device_for(backend))
    rng = np.random.default_rng(0)
    V = model.to_numpy(model.random(60, seed=1))
    labels = rng.integers(0, 3, 60)
    kw = {"encoder": "precomputed", "model": "FHRR", "backend": backend, "device": "cpu", "random_state": 0}
    unit = make(**kw).fit(V, labels)
    moduli = rng.uniform(0.5, 4.0, size=V.shape)  # finite complex numbers: FHRR vectors still
    scaled = make(**kw).fit((V * moduli).astype(V.dtype), labels)
    scores = scaled.decision_function((3 * V).astype(V.dtype))
    assert np.all(np.abs(scores) <= 1 + 1e-6)  # up to 3 before
    # a vector's length does not change its score (a cosine)
    np.testing.assert_allclose(scores, scaled.decision_function(V), atol=1e-5)
    assert np.all(np.abs(unit.decision_function(V)) <= 1 + 1e-6)


# -- ridge's memory -------------------------------------------------------------------
def test_ridge_refuses_a_fit_beyond_the_memory_available(monkeypatch):
    from holovec.backends.numpy_backend import NumpyBackend

    X, _, labels = _data(3000)
    monkeypatch.setattr(NumpyBackend, "available_memory", lambda self: 300 * 2**20)
    # 3,000 samples at width 20,000: 720 MB kept, 9.6 GB accumulated; refused before encoding
    with pytest.raises(AllocationError, match=r"RidgeHDClassifier.fit on 3000 samples of width 20000"):
        RidgeHDClassifier(dim=10000, random_state=0).fit(X, labels)


@pytest.mark.parametrize(("n", "dim"), [(300, 600), (900, 200)], ids=["kept", "accumulated"])
def test_ridge_peak_memory_is_within_the_stated_bound(n, dim):
    import tracemalloc

    X, _, labels = _data(n)
    clf = RidgeHDClassifier(dim=dim, random_state=0, batch_size=256)
    clf.fit(X[:20], labels[:20])  # (imports and caches outside the measurement)
    tracemalloc.start()
    try:
        clf.fit(X, labels)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    bound = min(ridge_peak_bytes(n, 2 * dim, 3, 256, 4, 8))
    assert bound / 2 < peak <= bound + 2**20  # (NumPy saves one matrix: see ridge's notes)


# -- found by the fuzz suite (tests/fuzz/test_fuzz_learn.py) -----------------------------------
def test_labels_that_do_not_sort_together_are_refused():
    """Labels mixing strings and numbers: NumPy's raw "'<' not supported" from inside
    scikit-learn's check before; now a TypeError naming the kinds."""
    X, _, labels = _data(10)
    mixed = np.array(["1", 1, 1, 2, 2, 1, 1, 2, 1, 1], dtype=object)
    with pytest.raises(TypeError, match=r"labels of one kind.*int, str"):
        CentroidClassifier(dim=64, random_state=0).fit(X, mixed)
    with pytest.raises(TypeError, match="classes must hold labels of one kind"):
        AdaptHDClassifier(dim=64, random_state=0).partial_fit(
            X, labels, classes=np.array([1, "1", 2], dtype=object)
        )


def test_stream_labels_of_another_kind_than_the_classes_are_unknown_labels():
    X, _, labels = _data(10)
    words = np.array(["x", "y", "z"], dtype=object)[labels]
    with pytest.raises(ValueError, match="y holds labels not in classes_"):
        CentroidClassifier(dim=64, random_state=0).partial_fit(X, words, classes=[0, 1, 2])


@pytest.mark.parametrize(
    ("make", "targets"),
    [
        (RegHDRegressor, "y"),
        (RidgeHDRegressor, "y"),
        (RidgeHDClassifier, "labels"),
        (CentroidClassifier, "labels"),
    ],
)
def test_a_crafted_state_beyond_the_float_range_is_refused(make, targets, tmp_path):
    """Finite values whose sum overflows float32 (1e38 each): regressors and ridge loaded
    them and predicted infinity (with NumPy's overflow warning); no fit leaves them."""
    X, y, labels = _data(40)
    make(dim=64, random_state=0).fit(X, y if targets == "y" else labels).save(tmp_path / "good.npz")
    name = "prototypes_" if make is CentroidClassifier else "coef_"

    def huge(record, arrays):
        arrays[name] = np.full_like(arrays[name], 1e38)

    with pytest.raises(ValueError, match="beyond the range of float32 numbers"):
        load(_craft(tmp_path / "good.npz", tmp_path / "bad.npz", huge))


def test_a_singular_ridge_system_is_an_error_that_says_raise_alpha(backend):
    """Equal samples (+-1 encodings: an exactly singular system) and an alpha that vanishes
    next to them: NumPy's LinAlgError and torch's RuntimeError escaped from the solve
    before (JAX: non-finite values, refused by the range check)."""
    X, y, _ = _data(12)
    X[1] = X[0]
    encoder = HDEncoder(model="MAP", encoding="projection", dim=64, random_state=0)
    reg = RidgeHDRegressor(encoder=encoder, alpha=1e-300, backend=backend, device=device_for(backend))
    with pytest.raises(ValueError, match="raise alpha") as info:
        reg.fit(X, y)
    assert type(info.value) in (ValueError, TrainingDivergedError)  # not a framework's error
