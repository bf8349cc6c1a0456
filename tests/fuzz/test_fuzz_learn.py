"""Fuzz holovec.learn: every estimator of ``holovec.learn.__all__`` and :class:`HDEncoder`
given random inputs (shapes, dtypes, NaN, infinity, huge and tiny values, empty, 1-D and
3-D, as NumPy arrays, lists, strided views, pandas frames if installed, Dask arrays of
known and unknown chunks, torch tensors that require grad or are bfloat16, JAX arrays),
streams (``partial_fit``), random parameters (NumPy scalars, bools, strings, negative
numbers, NaN), and saved files truncated, bit-flipped, edited and crafted.

Properties: every call raises a clear ``TypeError``/``ValueError`` (holovec's own, or one of
scikit-learn's input checks, which the estimators keep by design) or gives a right answer:
outputs finite and of the right shape, predictions among ``classes_``, and the answers of
the same numbers given as a NumPy float64 array; a fitted estimator saves, and loads as
one that predicts exactly alike; a damaged or crafted file is refused with ``ValueError``
in bounded memory, or loads as what it says.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import io
import json
import math
import tracemalloc
import warnings

import numpy as np
import pytest
from fuzz_settings import FUZZ, outcome, sklearn_checks
from hypothesis import event, given
from hypothesis import strategies as st

pytest.importorskip("sklearn")

from sklearn.base import clone, is_classifier

import holovec.learn as learn
from holovec import VSA
from holovec._format import CHECKSUMS, read_archive
from holovec.encoders import VectorEncoder
from holovec.encoders.base import Encoder
from holovec.learn import HDEncoder, TrainingDivergedError
from holovec.learn._base import HDEstimator

ESTIMATORS = {
    name: cls
    for name in learn.__all__
    if isinstance(cls := getattr(learn, name), type) and issubclass(cls, HDEstimator)
}
CLASSES = [*ESTIMATORS, "HDEncoder"]
#: the settings that keep every fit tiny (where the class has the parameter)
SMALL = {"dim": 64, "random_state": 0, "epochs": 1, "regen_every": 1}
CHECKERS = sklearn_checks()
HAVE = {name: importlib.util.find_spec(name) is not None for name in ("torch", "jax", "dask", "pandas")}


def make(name: str, **params):
    cls = HDEncoder if name == "HDEncoder" else ESTIMATORS[name]
    names = cls().get_params(deep=False)
    return cls(**{k: v for k, v in SMALL.items() if k in names} | params)


def _host(model, x) -> np.ndarray:
    return np.asarray(model.to_numpy(x))


def answers(est, X, n: int) -> dict[str, np.ndarray]:
    """What a fitted estimator (or encoder) answers for ``n`` samples ``X``, checked to be
    right in form: finite, of the right shape, predictions among ``classes_``."""
    if isinstance(est, HDEncoder):
        H = est.transform(X)
        est.model_.check(H)
        h = _host(est.model_, H)
        assert h.shape == (n, est.model_.vector_length)
        assert np.all(np.isfinite(h)), "non-finite encodings"
        return {"transform": h}
    pred = np.asarray(est.predict(X))
    assert pred.shape == (n,)
    if not is_classifier(est):
        assert np.all(np.isfinite(pred)), f"non-finite predictions {pred}"
        return {"predict": pred}
    assert all(p in set(est.classes_.tolist()) for p in pred.tolist()), "a prediction not in classes_"
    scores = np.asarray(est.decision_function(X))
    assert scores.shape == ((n,) if len(est.classes_) == 2 else (n, len(est.classes_)))
    assert np.all(np.isfinite(scores)), f"non-finite scores {scores}"
    return {"predict": pred, "decision": scores}


def margins(scores: np.ndarray) -> np.ndarray:
    """How far each sample's best class is ahead of the next (decision_function's output)."""
    if scores.ndim == 1:
        return np.abs(scores)
    top = np.sort(scores, axis=1)
    return top[:, -1] - top[:, -2]


def assert_agree(got: dict, want: dict, est) -> None:
    """The answers of one input agree with those of the same numbers as NumPy float64 (up
    to rounding: a framework sums in another order, and float32 training on a few similar
    samples magnifies it; classes where no near tie decides)."""
    if "transform" in want:
        np.testing.assert_allclose(got["transform"], want["transform"], rtol=1e-4, atol=1e-5)
        return
    if not is_classifier(est):
        scale = max(1.0, float(np.max(np.abs(want["predict"]), initial=0.0)))
        np.testing.assert_allclose(got["predict"], want["predict"], rtol=1e-4, atol=1e-4 * scale)
        return
    np.testing.assert_allclose(got["decision"], want["decision"], rtol=1e-4, atol=1e-4)
    clear = margins(want["decision"]) > 1e-3
    np.testing.assert_array_equal(got["predict"][clear], want["predict"][clear])


# -- inputs ------------------------------------------------------------------------------------
SPECIAL = [0.0, -0.0, 1.0, -2.5, 1.7e9, 3.5e38, -1e300, 1e300, 1e-320, np.nan, np.inf, -np.inf]
#: how the values of a float array are drawn: scales of ordinary numbers, or hostile ones
SCALES = {"ordinary": 1.0, "unix-times": 1.7e9, "beyond-float32": 1e39, "tiny": 1e-310, "huge": 1e300}
#: real dtypes and shapes every estimator learns from, then hostile ones
REAL_KINDS = ["bool", "int8", "uint8", "int64", "float16", "float32", "float64"]
KINDS = [*REAL_KINDS, "complex64", "object", "<U3"]
GOOD_SHAPES = [(6, 3), (7, 2), (5, 1)]
SHAPES = [*GOOD_SHAPES, (1, 2), (0, 3), (4, 0), (6,), (4, 3, 2), ()]
floats = st.one_of(st.floats(-10, 10), st.sampled_from(SPECIAL))


@st.composite
def float_values(draw, size: int, hostile: bool = True) -> np.ndarray:
    """``size`` float64 numbers: ordinary ones at some scale (offset, for Unix times), or
    (``hostile``) huge ones or any mix with NaN, infinity, huge and tiny ones."""
    scales = [*SCALES, "hostile"] if hostile else list(SCALES)[:-1]
    how = draw(st.sampled_from(scales), label="values")
    if how == "hostile":
        return np.array(draw(st.lists(floats, min_size=size, max_size=size)), dtype=np.float64)
    ordinary = np.array(draw(st.lists(st.floats(-10, 10), min_size=size, max_size=size)), dtype=np.float64)
    return ordinary + SCALES[how] if how == "unix-times" else ordinary * SCALES[how]


@st.composite
def feature_arrays(draw, hostile: bool = True) -> np.ndarray:
    """NumPy arrays of any listed dtype and shape, values ordinary or (``hostile``) not;
    else real numbers of a shape to learn from."""
    shape = draw(st.sampled_from(SHAPES if hostile else GOOD_SHAPES), label="shape")
    kind = draw(st.sampled_from(KINDS if hostile else REAL_KINDS), label="dtype")
    size = math.prod(shape)
    dtype = np.dtype(kind)
    if dtype.kind in "fc":
        with np.errstate(over="ignore"):
            x = draw(float_values(size, hostile)).astype(dtype)
        if dtype.kind == "c" and draw(st.booleans(), label="imaginary"):
            x = x + 1j
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = np.array(draw(st.lists(st.integers(info.min, info.max), min_size=size, max_size=size)), dtype)
    elif dtype.kind == "b":
        x = np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size)), dtype)
    elif dtype.kind == "O":
        mixed = st.one_of(floats, st.integers(-5, 5), st.sampled_from(["a", "1.5", None, b"2"]))
        x = np.empty(size, dtype=object)
        x[:] = draw(st.lists(mixed, min_size=size, max_size=size))
    else:
        texts = st.sampled_from(["a", "1", "2.5", "nan", ""])
        x = np.array(draw(st.lists(texts, min_size=size, max_size=size)), dtype)
    return x.reshape(shape)


def _torch(x: np.ndarray, how: str):
    import torch

    t = torch.from_numpy(np.ascontiguousarray(x))
    if how == "torch-grad":
        return t.requires_grad_(True)
    if how == "torch-bf16":
        return t.to(torch.bfloat16)
    return t


def _dask(x: np.ndarray, how: str, chunk: int):
    import dask.array as da

    d = da.from_array(x, chunks=(chunk, *x.shape[1:]))
    if how == "dask-unknown":  # boolean indexing: row counts unknown until computed
        d = d[da.from_array(np.ones(x.shape[0], dtype=bool), chunks=chunk)]
    return d


def containers(x: np.ndarray) -> list[str]:
    """How ``x`` may be given (no features: as NumPy-likes only, see
    :func:`test_framework_arrays_of_no_features_are_refused`)."""
    out = ["numpy", "list", "strided"]
    if x.ndim == 2 and x.shape[1] == 0:
        return out
    numeric = x.dtype.kind in "biufc"
    if HAVE["torch"] and numeric and x.dtype != np.uint64:
        out += ["torch"] + (["torch-grad", "torch-bf16"] if x.dtype.kind == "f" else [])
    if HAVE["jax"] and numeric:
        out.append("jax")
    if HAVE["dask"] and x.ndim >= 1:
        out += ["dask", "dask-unknown"]
    if HAVE["pandas"] and x.ndim == 2:
        out.append("pandas")
    return out


def contained(x: np.ndarray, how: str, chunk: int):
    """``x`` given as ``how`` says."""
    if how == "list":
        return x.tolist()
    if how == "strided":  # a read-only strided view
        view = np.repeat(x, 2, axis=0)[::2] if x.ndim else x.copy()
        view.flags.writeable = False
        return view
    if how.startswith("torch"):
        return _torch(x, how)
    if how == "jax":
        import jax.numpy as jnp

        with warnings.catch_warnings():  # (JAX narrows float64 without 64-bit mode, and warns)
            warnings.simplefilter("ignore", UserWarning)
            return jnp.asarray(x)
    if how.startswith("dask"):
        return _dask(x, how, chunk)
    if how == "pandas":
        import pandas as pd

        return pd.DataFrame(x)
    return x


def host_values(X) -> np.ndarray | None:
    """The real numbers ``X`` holds, as NumPy float64 (``None`` where it holds others)."""
    if hasattr(X, "detach"):  # torch
        X = X.detach().float() if str(X.dtype) == "torch.bfloat16" else X.detach()
        X = X.numpy()
    elif hasattr(X, "compute"):  # dask
        X = X.compute()
    x = np.asarray(X)
    if x.dtype.kind not in "biuf":
        return None
    return x.astype(np.float64)


def class_labels(t: np.ndarray, kind: str):
    """Labels of classes ``t`` (ints 0..2) in the form ``kind`` names."""
    n = len(t)
    if kind == "int":
        return t
    if kind == "str":
        return np.array(["a", "b", "a\x00"])[t]
    if kind == "object":
        return np.array(["x", "yy", "x "], dtype=object)[t]
    if kind == "bool":
        return t > 0
    if kind == "float":
        return t * 0.5 - 1.0
    if kind == "nan":
        return np.where(t == 2, np.nan, t)
    if kind == "mixed":
        return np.array([1, "1", 2.5], dtype=object)[t]
    if kind == "column":
        return t[:, None]
    if kind == "long":
        return np.concatenate([t, [0]])
    if kind == "short":
        return t[: n - 1]
    if kind == "none":
        return None
    if kind == "continuous":
        return np.linspace(0, 1, n) + 0.123
    if kind == "torch" and HAVE["torch"]:
        return _torch(t, "torch")
    return list(t)


def targets(values: np.ndarray, kind: str):
    """Regression targets ``values`` in the form ``kind`` names."""
    n = len(values)
    if kind == "int":
        return np.nan_to_num(values, posinf=0, neginf=0).astype(np.int64)
    if kind == "bool":
        return values > 0
    if kind == "str":
        return values.astype(str)
    if kind == "object":
        return values.astype(object)
    if kind == "column":
        return values[:, None]
    if kind == "long":
        return np.concatenate([values, [0.0]])
    if kind == "short":
        return values[: n - 1]
    if kind == "none":
        return None
    if kind == "torch-grad" and HAVE["torch"]:
        return _torch(values, "torch-grad")
    if kind == "float32":
        return values.astype(np.float32)
    return values


#: forms of labels and targets that are fit to learn from, then others
GOOD_LABELS = ["int", "str", "object", "bool", "float", "column", "torch", "list"]
LABEL_KINDS = [*GOOD_LABELS, "nan", "mixed", "long", "short", "none", "continuous"]
GOOD_TARGETS = ["float", "int", "column", "torch-grad", "float32"]
TARGET_KINDS = [*GOOD_TARGETS, "bool", "str", "object", "long", "short", "none"]
BACKENDS = ["numpy", "torch"] if HAVE["torch"] else ["numpy"]


def fit_input(name: str, data, hostile: bool):
    """An estimator (on a drawn backend), samples ``X`` in a drawn container, their
    ``y``, their number, the container's name and the array inside."""
    x = data.draw(feature_arrays(hostile), label="x")
    how = data.draw(st.sampled_from(containers(x)), label="container")
    X = contained(x, how, data.draw(st.integers(1, 4), label="chunk"))
    n = x.shape[0] if x.ndim else 1
    est = make(name, backend=data.draw(st.sampled_from(BACKENDS), label="backend"), device="cpu")
    if name == "HDEncoder":
        y = None
    elif is_classifier(est):
        t = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)), dtype=np.int64)
        kinds = LABEL_KINDS if hostile else GOOD_LABELS
        y = class_labels(t, data.draw(st.sampled_from(kinds), label="labels"))
    else:
        values = data.draw(float_values(n, hostile), label="target values")
        kinds = TARGET_KINDS if hostile else GOOD_TARGETS
        y = targets(values, data.draw(st.sampled_from(kinds), label="targets"))
    return est, X, y, n, how, x


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.DataConversionWarning")  # y as a column
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, on the way to a divergence error)
@pytest.mark.parametrize("name", CLASSES)
@FUZZ
@given(data=st.data())
def test_fit_refuses_or_learns_any_input(name, data):
    """Any X and y (any shape, dtype, values, container) is refused clearly or learnt, and
    a fitted estimator answers rightly for the X it was fitted on."""
    est, X, y, n, how, _ = fit_input(name, data, hostile=True)
    ok, fitted = outcome(lambda: est.fit(X, y), CHECKERS)
    event(f"fit {how} " + ("ok" if ok else str(fitted)[:40]))
    if ok:
        answers(fitted, X, n)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.DataConversionWarning")  # y as a column
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, on the way to a divergence error)
@pytest.mark.parametrize("name", CLASSES)
@FUZZ
@given(data=st.data())
def test_every_container_answers_as_numpy(name, data):
    """Real numbers to learn from (Unix times, beyond float32's range, subnormal), in any
    container and dtype: learnt as the same numbers in a NumPy float64 array are, or
    refused clearly."""
    est, X, y, n, how, _ = fit_input(name, data, hostile=False)
    ok, fitted = outcome(lambda: est.fit(X, y), CHECKERS)
    event(f"fit {how} " + ("ok" if ok else str(fitted)[:40]))
    if not ok:
        return
    got = answers(fitted, X, n)
    reference = host_values(X)
    ok, again = outcome(lambda: clone(est).fit(reference, y), CHECKERS)
    assert ok, f"{how} X was learnt, the same numbers as NumPy float64 refused: {again}"
    assert_agree(got, answers(again, reference, n), est)


FRAMEWORKS = [how for how, name in (("torch", "torch"), ("jax", "jax"), ("dask", "dask")) if HAVE[name]]


@FUZZ
@given(name=st.sampled_from(CLASSES), how=st.sampled_from(FRAMEWORKS), rows=st.integers(1, 4))
def test_framework_arrays_of_no_features_are_refused(name, how, rows):
    X = contained(np.zeros((rows, 0)), how, 2)
    est = make(name)
    y = None if name == "HDEncoder" else np.arange(rows) % 2 if is_classifier(est) else np.zeros(rows)
    ok, err = outcome(lambda: est.fit(X, y), CHECKERS)
    assert not ok and "feature" in str(err), "X of no features"


STREAMING = [name for name, cls in ESTIMATORS.items() if hasattr(cls(), "partial_fit")]
#: what partial_fit is told the classes are (``"labels"``: those of the first batch)
CLASSES_GIVEN = ["labels", "labels", None, "one", "mixed", "table", "ints", "texts", "torch"]


def classes_given(kind: str | None, y):
    if kind == "labels":
        values = np.ravel(np.asarray(y, dtype=object)).tolist() if y is not None else [0, 1]
        return sorted(set(values), key=repr)
    return {
        None: None,
        "one": [0],
        "mixed": [1, "1", 2.5],
        "table": np.arange(4).reshape(2, 2),
        "ints": [0, 1, 2],
        "texts": ["a", "b"],
    }.get(kind, _torch(np.arange(3), "torch") if HAVE["torch"] else [0, 1])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.DataConversionWarning")  # y as a column
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, on the way to a divergence error)
@pytest.mark.parametrize("name", STREAMING)
@FUZZ
@given(data=st.data())
def test_partial_fit_refuses_or_learns_any_stream(name, data):
    """Two batches of a stream, each ordinary or hostile (and the classes told, right or
    wrong): each call is refused clearly or learnt, and the estimator then answers rightly."""
    est = make(name)
    for step in range(2):
        _, X, y, n, _, _ = fit_input(name, data, hostile=data.draw(st.booleans(), label="hostile"))
        kwargs = {}
        if is_classifier(est):
            kwargs["classes"] = classes_given(data.draw(st.sampled_from(CLASSES_GIVEN), label="classes"), y)
        ok, err = outcome(lambda X=X, y=y, kwargs=kwargs: est.partial_fit(X, y, **kwargs), CHECKERS)
        event(f"step {step} " + ("ok" if ok else str(err)[:40]))
        if ok:
            # RidgeHD's stream solves its read-out when it is first read: a stream that
            # diverged says so there, clearly (TrainingDivergedError), and nothing else may fail
            read, err = outcome(lambda X=X, n=n: answers(est, X, n), CHECKERS)
            if not read:
                assert isinstance(err, TrainingDivergedError), repr(err)
                return


# -- parameters --------------------------------------------------------------------------------
def _holovec_encoder():
    return VectorEncoder(VSA.create("MAP", 64, backend="numpy", seed=1), 3, seed=1)


#: encoders to pass (made anew for each example: estimators clone them)
HD_ENCODERS = [
    lambda: HDEncoder(dim=64, random_state=1),
    lambda: HDEncoder(model="MAP", encoding="projection"),
]
HD_ENCODERS += [lambda: HDEncoder(dim=32), lambda: HDEncoder(encoding="nope")]
#: values each parameter is tried with (hostile and valid); parameters not listed get GENERIC
GENERIC = [None, True, np.True_, 0, -1, 1, np.int64(2), 2.5, np.float32(0.5), np.nan, np.inf, "1", [1], 1j]
POOLS = {
    "model": ["FHRR", "MAP", "BSC", "HRR", "map", "VTB", "GHRR", "BSDC", "nope", 3, None, np.str_("MAP")],
    "dim": [64, 128, np.int64(64), np.uint16(96), 1, 0, -64, 2**70, 64.0, "64", True, np.nan, None],
    "encoding": ["sinusoid", "projection", "precomputed", "nope", None, 3],
    "bandwidth": ["scale", 1.0, 0.01, 1e300, 5e-324, 0, -1.0, np.nan, np.float32(2.0), "1", True, None],
    "standardize": [True, False, np.True_, 0, 1, None, "yes"],
    "encoder": [None, "precomputed", "PRECOMPUTED", "bad", 3, _holovec_encoder, *HD_ENCODERS],
    "epochs": [0, 1, 2, np.int64(1), np.uint8(2), -1, 1.5, "1", True, None, np.nan],
    "lr": [0.05, 1.0, 1.99, 2, 2.5, 5, 1e300, 1e-300, 0, -0.1, np.nan, np.inf, np.float32(0.1), "0.1"],
    "alpha": [0.1, 1e-300, 5e-324, 1e300, 0, -1.0, np.nan, np.inf, np.float64(1.0), np.int64(1), "1", True],
    "batch_size": [1, 2, 5, 2**40, np.int32(3), np.uint64(4), 0, -1, 2.0, "2", True, None],
    "cache_size": [0, 0.001, 512, 1e300, -1, np.nan, np.inf, np.float32(1.0), "1", True, None],
    "regen_rate": [0.04, 0.5, 0.99, 1e-300, 0, 1, -0.1, np.nan, np.float32(0.3), "0.1", True],
    "regen_every": [1, 2, np.int64(1), 0, -1, 1.5, True, None],
    "binarize": [True, False, np.True_, np.False_, 0, 1, "yes", None],
    "verbose": [False, np.False_, 0, 1, None, "yes"],
    "backend": [None, "numpy", "NumPy", "torch", "pytorch", "dask", "nope", 3],
    "device": [None, "cpu", "CPU", "cuda:7", "nope", 3, -1],
    "seed": [0, 1, -1, 2**64 - 1, 2**64, 2**128, np.int64(3), np.uint64(2**63), 1.5, "1", True, np.nan],
}
_DATA = np.random.default_rng(0).normal(size=(12, 3))
_LABELS = np.array(["p", "q", "r"])[np.arange(12) % 3]
_TARGETS = _DATA[:, 0] + 0.5 * _DATA[:, 1] + 1.7e9


def _value(pool_value):
    return pool_value() if callable(pool_value) else pool_value


def _has_holovec_encoder(est) -> bool:
    enc = est.get_params(deep=False).get("encoder")
    return isinstance(enc, Encoder) or (isinstance(enc, HDEncoder) and isinstance(enc.encoder, Encoder))


def _params_equal(a: dict, b: dict) -> bool:
    def plain(v):
        return v.get_params(deep=False) if isinstance(v, HDEncoder) else v

    return {k: plain(v) for k, v in a.items()} == {k: plain(v) for k, v in b.items()}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # (NumPy's, on the way to a divergence error)
@pytest.mark.parametrize("name", CLASSES)
@FUZZ
@given(data=st.data())
def test_parameters_are_checked_or_work(name, data, tmp_path_factory):
    """One to three parameters set to random values: ``fit`` refuses them clearly, or the
    estimator learns, answers, saves and loads as one that predicts exactly alike."""
    names = sorted(make(name).get_params(deep=False))
    chosen = data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True), label="names")
    params = {k: _value(data.draw(st.sampled_from(POOLS.get(k, GENERIC)), label=k)) for k in chosen}
    ok, est = outcome(lambda: make(name, **params), CHECKERS)
    if not ok:
        return
    y = None if name == "HDEncoder" else _LABELS if is_classifier(est) else _TARGETS
    if "device" not in chosen and params.get("backend") not in (None, "nope", 3):
        est.set_params(device="cpu")
    ok, fitted = outcome(lambda: est.fit(_DATA, y), CHECKERS)
    event("fit " + ("ok" if ok else str(fitted)[:40]))
    if not ok:
        return
    got = answers(fitted, _DATA, len(_DATA))
    if name == "HDEncoder":
        return
    buffer = io.BytesIO()
    ok, err = outcome(lambda: fitted.save(buffer))
    if _has_holovec_encoder(fitted):
        assert not ok, "an estimator with a holovec encoder (no plain data) was saved"
        return
    assert ok, f"a fitted estimator could not be saved: {err}"
    copy = learn.load(io.BytesIO(buffer.getvalue()))
    assert type(copy) is type(fitted)
    assert _params_equal(copy.get_params(deep=False), fitted.get_params(deep=False))
    again = answers(copy, _DATA, len(_DATA))
    for key, value in got.items():
        np.testing.assert_array_equal(again[key], value, err_msg=f"{key} after a save and load")


# -- saved files -------------------------------------------------------------------------------
FORMAT = {"format": "holovec.estimator", "versions": 1, "what": "estimator"}
SAVED_KINDS = {
    # regenerated projections (encoder arrays), complex model, object-string labels
    "neural": (lambda: make("NeuralHDClassifier", epochs=2), np.array(["a", "b", "a\x00"], dtype=object)),
    # binarised prototypes of packed bits, int labels
    "centroid-bsc": (lambda: make("CentroidClassifier", model="BSC", binarize=True), np.arange(3)),
    # a read-out and a float64 intercept far from zero
    "reghd": (lambda: make("RegHDRegressor"), None),
}


@functools.cache
def saved(kind: str) -> tuple[object, bytes, dict, dict]:
    """A tiny fitted estimator, its file, and the file's record and arrays."""
    build, labels = SAVED_KINDS[kind]
    est = build().fit(_DATA, _TARGETS if labels is None else labels[np.arange(12) % 3])
    buffer = io.BytesIO()
    est.save(buffer)
    data = buffer.getvalue()
    record, arrays = read_archive(io.BytesIO(data), **FORMAT)
    return est, data, record, arrays


def load_or_refuse(data: bytes, limit: int | None = 4 * 2**20):
    """The estimator in ``data``, or None where it is refused with a ValueError; any other
    exception fails. Memory stays below ``limit`` either way (None: not measured)."""
    tracemalloc.start()
    try:
        try:
            est = learn.load(io.BytesIO(data))
        except ValueError:
            est = None
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert limit is None or peak < limit, f"loading peaked at {peak} bytes"
    event("loaded" if est is not None else "refused")
    return est


def predicts_as_saved(est, kind: str) -> bool:
    saved_est = saved(kind)[0]
    want, got = answers(saved_est, _DATA, len(_DATA)), answers(est, _DATA, len(_DATA))
    return (
        type(est) is type(saved_est)
        and _params_equal(est.get_params(deep=False), saved_est.get_params(deep=False))
        and all(np.array_equal(got[key], want[key]) for key in want)
        and (not is_classifier(est) or est.classes_.dtype == saved_est.classes_.dtype)
    )


def archive(record: dict, arrays: dict, *, sign: bool) -> bytes:
    """An estimator file of ``record`` and ``arrays``; ``sign`` makes its checksums again
    (a crafted file that passes them), else it keeps those ``record`` holds."""
    record = copy.deepcopy(record)
    if sign:
        CHECKSUMS.sign(record, arrays)
    out = io.BytesIO()
    np.savez(out, **arrays, metadata=np.array(json.dumps(record)))
    return out.getvalue()


kinds = st.sampled_from(sorted(SAVED_KINDS))


@FUZZ
@given(kind=kinds, data=st.data())
def test_fuzz_truncated_estimator_files_are_refused(kind, data):
    file = saved(kind)[1]
    cut = data.draw(st.integers(0, len(file) - 1), label="cut")
    assert load_or_refuse(file[:cut]) is None


@FUZZ
@given(kind=kinds, data=st.data())
def test_fuzz_bit_flips_are_refused_or_harmless(kind, data):
    """A flipped bit is refused, or lies where nothing read changes (a zip time stamp):
    then the estimator predicts exactly as the one saved."""
    file = bytearray(saved(kind)[1])
    flips = st.tuples(st.integers(0, len(file) - 1), st.integers(0, 7))
    for pos, bit in data.draw(st.lists(flips, min_size=1, max_size=3), label="flips"):
        file[pos] ^= 1 << bit
    est = load_or_refuse(bytes(file))
    assert est is None or predicts_as_saved(est, kind)


def leaves(record: dict, prefix: tuple = ()) -> list[tuple]:
    """The paths of the record's fields, nested ones included (lists are values)."""
    out = []
    for key, value in record.items():
        out.append((*prefix, key))
        if isinstance(value, dict):
            out += leaves(value, (*prefix, key))
    return out


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.text(max_size=8)
    | st.sampled_from([0, 1, 2, 64, 10**8, -1, "numpy", "torch", "FHRR", "MAP", "float64", "<U3", "object"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@FUZZ
@given(kind=kinds, data=st.data(), value=JSON_VALUES, sign=st.booleans())
def test_fuzz_edited_metadata(kind, data, value, sign):
    """An edited field is refused unless the checksums are made again (a crafted file):
    then it is refused with a ValueError, or loads as an estimator that answers rightly."""
    _, _, record, arrays = saved(kind)
    path = data.draw(st.sampled_from(leaves(record)), label="field")
    edited = copy.deepcopy(record)
    where = edited
    for key in path[:-1]:
        where = where[key]
    changed = where[path[-1]] != value or type(where[path[-1]]) is not type(value)
    where[path[-1]] = value
    # a model made from what the file now says may import a framework: not measured
    framework = path[-1] in ("backend", "device")
    est = load_or_refuse(archive(edited, arrays, sign=sign), limit=None if framework else 4 * 2**20)
    if sign and path[0] in CHECKSUMS.fields:  # signing made the checksums again: no edit
        assert est is not None and predicts_as_saved(est, kind)
    elif changed and not sign:
        assert est is None, f"an edit of {path} without its checksum was loaded"
    elif est is not None:  # (a clear refusal of these samples allowed: the file may be far from them)
        outcome(lambda: answers(est, _DATA, len(_DATA)))


@FUZZ
@given(
    kind=kinds,
    data=st.data(),
    dtype=st.one_of(st.none(), st.sampled_from(["<f4", "<f8", "<c8", "|u1", "<i8", "|b1", ">f4"])),
    fill=st.sampled_from([0.0, 1.0, -1.0, 0.5, 1e38, 3e38, 1e300, np.nan, np.inf]),
    how=st.sampled_from(["replace", "reshape", "drop", "extra"]),
)
def test_fuzz_crafted_arrays(kind, data, dtype, fill, how):
    """An array replaced by one of another shape, dtype or values, dropped, or added (with
    checksums that hold): refused with a ValueError, or (the right shape and dtype, finite
    values) loaded as an estimator that answers rightly; in bounded memory."""
    _, _, record, arrays = saved(kind)
    arrays = dict(arrays)
    name = data.draw(st.sampled_from(sorted(arrays)), label="array")
    right = arrays[name].shape
    if how == "drop":
        del arrays[name]
    elif how == "extra":
        arrays["extra_"] = np.zeros(3)
    else:
        longer = (right[0] + 1, *right[1:]) if right else (1,)
        shapes = [right, right[:-1], (*right, 1), longer, (0, *right[1:])]
        shape = right if how == "replace" else data.draw(st.sampled_from(shapes), label="shape")
        dtype = arrays[name].dtype if dtype is None else dtype  # (None: the array's own)
        with np.errstate(invalid="ignore", over="ignore"):
            if np.dtype(dtype).kind in "iub":
                fill = np.nan_to_num(fill, posinf=255, neginf=0)
            arrays[name] = np.full(shape, fill).astype(dtype)
    est = load_or_refuse(archive(record, arrays, sign=True))
    if est is not None:  # (a clear refusal of these samples allowed: the file may be far from them)
        outcome(lambda: answers(est, _DATA, len(_DATA)))
