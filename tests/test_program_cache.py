"""One way to run a program (``Backend.program``): compiled, host-lent or eager, kept by key.

The programs of a model live in its ``kernel_cache`` and are shared by the models of its
configuration through a table that holds them weakly, so nothing of the process keeps a
model alive; on JAX a first fit, factorisation, recall or decode compiles a bounded number
of programs (counted with JAX's own monitoring event, see ``test_jax_compiles``).
"""

from __future__ import annotations

import gc
import importlib.util
import weakref

import numpy as np
import pytest

from conftest import device_for
from holovec import VSA
from holovec.backends import get_backend
from holovec.backends.numpy_backend import NumpyBackend
from holovec.backends.programs import HostLent, Padded


def _double(x):
    return 2 * x


# -- how a program runs ----------------------------------------------------------------------
def test_where_nothing_compiles_a_program_is_the_function_itself():
    backend = get_backend("numpy")
    assert backend.program(_double, ("test", "double")) is _double
    assert backend.program(_double, ("test", "double"), twin=lambda: _double) is _double


def test_a_padded_program_sees_shape_classes_and_answers_the_rows_asked(monkeypatch):
    monkeypatch.setattr(NumpyBackend, "static_shapes", True)
    backend, seen, keep = get_backend("numpy"), [], {}

    def rows_and_sum(x):
        seen.append(x.shape[0])
        return x * 2, np.sum(x)  # a result of the batch's rows, and one that is not

    program = backend.program(rows_and_sum, ("test", "padded"), keep=keep, pad=(0,))
    assert isinstance(program, Padded)
    for n in (3, 4, 5, 7):
        x = np.arange(n * 2, dtype=np.float64).reshape(n, 2)
        doubled, _ = program(x)
        np.testing.assert_array_equal(doubled, 2 * x)
    assert seen == [4, 4, 8, 8]
    assert backend.program(rows_and_sum, ("test", "padded"), keep=keep, pad=(0,)) is program


def test_a_host_lent_program_runs_on_the_numpy_twin():
    torch = pytest.importorskip("torch")
    model = VSA.create("FHRR", dim=4096, backend="torch", device="cpu", seed=0)
    host = model.host_model()
    assert host.backend.name == "numpy" and model.host_model() is host  # one twin, kept
    assert isinstance(model._bundle, HostLent)
    x = model.random(8, seed=1)
    got = model.bundle(x)
    assert isinstance(got, torch.Tensor)
    np.testing.assert_allclose(got.numpy(), host.bundle(x.numpy()), rtol=0, atol=0)


def test_a_model_on_numpy_is_its_own_twin():
    model = VSA.create("MAP", dim=64, seed=0)
    assert model.host_model() is model
    assert "_host_model_cache" not in model.__dict__


# -- the cache keeps no model alive ----------------------------------------------------------
def _use(model):
    """Programs of the model's kernels, draws, a memory, a resonator and a learner."""
    from holovec.memory import Hopfield
    from holovec.retrieval import Resonator

    books = [model.random(5, seed=s) for s in (1, 2)]
    model.similarity(model.bind(books[0][0], books[1][0]), books[0][0])
    model.bundle(books[0])
    memory = Hopfield(model)
    memory.store(books[0])
    memory.recall(books[0][:3])
    Resonator(model, books, max_iter=5).factor(model.bind(books[0][1], books[1][2]))


@pytest.mark.parametrize("backend", ["numpy", "torch", "jax"])
def test_a_model_is_not_kept_alive_by_its_programs(backend):
    pytest.importorskip(backend)
    model = VSA.create("MAP", dim=256, backend=backend, device=device_for(backend), seed=3)
    _use(model)
    assert model.kernel_cache or backend == "numpy"
    gone = weakref.ref(model)
    del model
    gc.collect()
    assert gone() is None


def test_a_learners_model_is_not_kept_alive_by_its_programs():
    pytest.importorskip("sklearn")
    pytest.importorskip("jax")
    from holovec.learn import CentroidClassifier

    X = np.random.default_rng(0).normal(size=(40, 4))
    y = np.arange(40) % 2
    estimator = CentroidClassifier(dim=128, backend="jax", device=device_for("jax"), random_state=0).fit(X, y)
    estimator.predict(X)
    gone = weakref.ref(estimator.model_)
    del estimator
    gc.collect()
    assert gone() is None


def test_compiled_programs_are_shared_by_a_configuration_and_die_with_its_last_model():
    pytest.importorskip("jax")
    from holovec.backends.programs import _SHARED

    def made():
        return VSA.create("MAP", dim=192, backend="jax", device=device_for("jax"), seed=5)

    first, second = made(), made()
    assert second._bind is first._bind  # one compiled program for the configuration
    key = (first.backend, (first.config_key, "_bind"))
    assert key in _SHARED
    del first, second
    gc.collect()
    assert key not in _SHARED


# -- JAX compiles few programs ---------------------------------------------------------------
jax_only = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax is not installed")


def _counted(fn):
    from test_jax_compiles import counted

    return counted(fn)


@jax_only
@pytest.mark.parametrize("learner", ["AdaptHDClassifier", "RidgeHDClassifier"])
def test_a_first_fit_and_predict_on_digits_compiles_at_most_30_programs(learner):
    pytest.importorskip("sklearn")
    import jax
    from sklearn.datasets import load_digits

    import holovec.learn

    X, y = load_digits(return_X_y=True)
    X, y = X[:400], y[:400]
    cls = getattr(holovec.learn, learner)
    jax.clear_caches()
    # a configuration no other test uses (dim): its programs are compiled here
    settings = {"dim": 328, "backend": "jax", "device": device_for("jax"), "random_state": 0}
    found = _counted(lambda: cls(**settings).fit(X, y).predict(X))
    assert len(found) <= 30, found


@jax_only
def test_a_first_factorisation_compiles_at_most_30_programs():
    import jax

    from holovec.retrieval import Resonator

    model = VSA.create("MAP", dim=328, backend="jax", device=device_for("jax"), seed=1)
    books = [model.random(10, seed=s) for s in (1, 2, 3)]
    s = model.bind(model.bind(books[0][:7], books[1][:7]), books[2][:7])
    jax.clear_caches()
    found = _counted(lambda: Resonator(model, books, max_iter=20).factor(s))
    assert len(found) <= 30, found


def _memory(kind):
    from holovec.memory import Hopfield, ModernHopfield

    model = VSA.create("MAP", dim=128, backend="jax", device=device_for("jax"), seed=0)
    patterns = model.random(40, seed=1)
    memory = Hopfield(model) if kind == "hopfield" else ModernHopfield(model)
    memory.store(patterns)
    return memory.recall, patterns


@jax_only
@pytest.mark.parametrize("kind", ["hopfield", "modern"])
def test_a_recall_at_new_batch_sizes_compiles_at_most_2_programs_per_size(kind):
    recall, patterns = _memory(kind)
    cues = [patterns[:k] for k in range(1, 33)]
    recall(cues[0])  # (a first recall reads the stored patterns out of their buffer)
    # a new class: the pad and the cut, the value checks of the model and the memory's one
    # program (the settling or the update, its iterations included)
    first = _counted(lambda: recall(cues[30]))
    assert len(first) <= 5, first
    counts = [len(_counted(lambda k=k: recall(cues[k - 1]))) for k in range(17, 25)]  # 8 new sizes
    assert max(counts) <= 2, counts  # the pad and the cut


@jax_only
def test_a_decode_at_new_lengths_compiles_at_most_2_programs_per_length():
    from holovec.structures import Sequence

    model = VSA.create("MAP", dim=128, backend="jax", device=device_for("jax"), seed=0)
    labels = [f"x{i}" for i in range(16)]
    made = {k: Sequence(model, labels[:k], seed=0) for k in range(9, 17)}
    made[16].decode()
    counts = [len(_counted(made[k].decode)) for k in range(9, 17)]  # 8 new lengths, one class
    assert max(counts) <= 2, counts
