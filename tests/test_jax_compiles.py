"""JAX compiles a bounded number of programs.

Every new array shape costs JAX a compilation (50 ms or more on a GPU), so a learner whose
minibatches, epochs or data set sizes made new shapes, or a resonator whose iterations did,
spent most of its first call compiling: 684 compilations for AdaptHD on the digits. Here
each learner's fit, predict and partial_fit, and the resonator, compile a number of
programs that does not grow with the data set, the epochs, the batches or the iterations;
fitting another data set of the same width (and size class) compiles nothing; and the
padding that makes this possible changes no result (batches are padded to a few sizes and
masked, see ``holovec.learn._base.Batch``). Compilations are counted by JAX's own
monitoring event for a backend compilation, on the test device (the counts are the same
on every platform). Times are never asserted here.
"""

from __future__ import annotations

from contextlib import contextmanager

import array_api_compat
import numpy as np
import pytest

from conftest import device_for

pytest.importorskip("sklearn")
jax = pytest.importorskip("jax")

from holovec import VSA, kernels  # noqa: E402 - after the skips
from holovec.backends.numpy_backend import NumpyBackend  # noqa: E402
from holovec.learn import (  # noqa: E402
    AdaptHDClassifier,
    CentroidClassifier,
    HDEncoder,
    NeuralHDClassifier,
    OnlineHDClassifier,
    RegHDRegressor,
    RidgeHDClassifier,
    RidgeHDRegressor,
)
from holovec.retrieval import Resonator  # noqa: E402

#: the event JAX records for each compilation of a program by the backend (XLA)
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


class Compilations:
    """The programs JAX compiled while counting (their names, in order)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"{len(self.names)} compilations: {self.names}"

    def _listen(self, event: str, duration: float, **kwargs: object) -> None:
        if event == COMPILE_EVENT:
            self.names.append(str(kwargs.get("fun_name")))


@contextmanager
def counting():
    """A context that counts the programs JAX compiles in it."""
    found = Compilations()
    jax.monitoring.register_event_duration_secs_listener(found._listen)
    try:
        yield found
    finally:
        jax.monitoring.unregister_event_duration_listener(found._listen)


def counted(fn):
    """The programs that ``fn()`` compiles."""
    with counting() as found:
        fn()
    return found


DEVICE = device_for("jax")
SMALL = {"dim": 256, "backend": "jax", "device": DEVICE, "random_state": 0, "batch_size": 64}
#: each estimator, made with a number of epochs (retraining learners)
ESTIMATORS = {
    "centroid": lambda epochs: CentroidClassifier(**SMALL),
    "binarized-bsc": lambda epochs: CentroidClassifier(model="BSC", binarize=True, **SMALL),
    "adapthd": lambda epochs: AdaptHDClassifier(epochs=epochs, **SMALL),
    "onlinehd-map": lambda epochs: OnlineHDClassifier(model="MAP", epochs=epochs, **SMALL),
    "neuralhd": lambda epochs: NeuralHDClassifier(epochs=2 * epochs + 2, regen_every=2, **SMALL),
    "ridge": lambda epochs: RidgeHDClassifier(**SMALL),  # the kept system (n x n)
    "ridge-accumulated": lambda epochs: RidgeHDClassifier(**{**SMALL, "dim": 16}),  # (width x width)
    "ridge-regressor": lambda epochs: RidgeHDRegressor(**SMALL),
    "reghd": lambda epochs: RegHDRegressor(epochs=epochs, **SMALL),
}
#: the most programs a first fit (of a new configuration, in a fresh process) compiles:
#: the model, the encoder's projection and its ops at one batch shape, the learner's steps
FIRST_FIT_BOUND = 80


def data(name: str, n: int, seed: int, labels=(0, 1, 2)):
    """``n`` samples of 8 features and their labels (targets for the regressors)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 8))
    if "reg" in name:
        return X, np.sin(X[:, 0]) + 0.1 * X[:, 1]
    return X, np.asarray(labels)[rng.integers(0, len(labels), n)]


def test_the_counter_counts_compilations():
    double = jax.jit(lambda x: 2 * x)
    x, y = np.ones(3, dtype=np.float32), np.ones(4, dtype=np.float32)
    assert len(counted(lambda: double(x))) == 1
    assert len(counted(lambda: double(x))) == 0  # compiled already
    assert len(counted(lambda: double(y))) == 1  # a new shape


# (the binarised centroid and the ridge regressor train as the centroid and the ridge classifier)
@pytest.mark.parametrize("name", [n for n in ESTIMATORS if n not in ("binarized-bsc", "ridge-regressor")])
def test_a_first_fit_compiles_the_same_whatever_the_data_and_epochs(name):
    """What a first fit compiles depends on the configuration alone: not on the number of
    samples (and so of batches and of the last batch's rows) nor on the epochs."""
    array_api_compat.array_namespace(jax.numpy.zeros(1))  # (its first call makes an array)
    counts = []
    for n, epochs in ((100, 1), (250, 3)):  # 2 and 4 batches of 64
        X, y = data(name, n, seed=n)
        jax.clear_caches()  # as in a fresh process
        counts.append(len(counted(lambda X=X, y=y, epochs=epochs: ESTIMATORS[name](epochs).fit(X, y))))
    assert counts[0] == counts[1], counts
    assert counts[0] <= FIRST_FIT_BOUND


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_another_data_set_of_the_same_width_compiles_nothing(name):
    X, y = data(name, 200, seed=1)
    first = ESTIMATORS[name](2).fit(X, y)
    first.predict(X[:50])
    # other samples, another number of them, other labels (of as many classes), 4 batches
    X2, y2 = data(name, 230, seed=2, labels=("a", "b", "c"))
    found = counted(lambda: ESTIMATORS[name](2).fit(X2, y2).predict(X2[:40]))
    assert len(found) == 0, found


@pytest.mark.parametrize("name", ["centroid", "adapthd", "ridge", "reghd"])
def test_predicting_any_number_of_rows_compiles_a_program_per_power_of_two(name):
    X, y = data(name, 200, seed=3)
    if "reg" not in name:  # classes far apart: no near ties (whose check compiles once)
        X[:, 0] += 4 * y
    est = ESTIMATORS[name](1).fit(X, y)
    for n in (16, 32, 64):  # the shapes of prediction: powers of two up to the batch size
        est.predict(X[:n])
    found = counted(lambda: [est.predict(X[:n]) for n in (1, 9, 17, 33, 50, 63, 65, 130, 199)])
    assert len(found) == 0, found


@pytest.mark.parametrize("name", ["centroid", "adapthd", "onlinehd-map", "reghd"])
def test_streams_of_batches_of_any_size_compile_nothing_new(name):
    X, y = data(name, 300, seed=4)
    est = ESTIMATORS[name](1)
    kwargs = {"classes": [0, 1, 2]} if "reg" not in name else {}
    est.partial_fit(X[:20], y[:20], **kwargs)  # batches of 17 to 32 rows: one shape
    found = counted(
        lambda: [est.partial_fit(X[s : s + m], y[s : s + m]) for s, m in ((20, 31), (51, 17), (68, 25))]
    )
    assert len(found) == 0, found


def test_the_encoder_transforms_any_number_of_rows_with_a_few_programs():
    X, _ = data("encoder", 200, seed=5)
    enc = HDEncoder(**SMALL).fit(X)
    enc.transform(X[:40])  # the programs of a batch of 64 rows
    found = counted(lambda: enc.transform(X[:50]))
    assert len(found) <= 1, found  # the cut of the 64 rows to 50
    assert len(counted(lambda: enc.transform(X[:50]))) == 0


# -- padding changes no result ---------------------------------------------------------------
PADDED = {
    "centroid": lambda **kw: CentroidClassifier(**kw),
    "adapthd": lambda **kw: AdaptHDClassifier(epochs=3, **kw),
    "onlinehd-map": lambda **kw: OnlineHDClassifier(model="MAP", epochs=3, **kw),
    "ridge": lambda **kw: RidgeHDClassifier(**kw),
    "ridge-accumulated": lambda **kw: RidgeHDClassifier(**{**kw, "dim": 16}),
    "ridge-regressor": lambda **kw: RidgeHDRegressor(alpha=1e-2, **kw),
    "reghd": lambda **kw: RegHDRegressor(epochs=3, **kw),
}


@pytest.mark.parametrize("name", list(PADDED))
def test_padded_batches_give_the_results_of_unpadded_ones(name, monkeypatch):
    """The padded path run on NumPy (as JAX runs it) learns what the unpadded one does:
    rows of padding are masked out of every sum and update, and dropped from results."""
    X, y = data(name, 150, seed=6)  # batches of 64, 64 and 22 (padded to 64)
    settings = {"dim": 256, "random_state": 0, "batch_size": 64, "backend": "numpy"}
    plain = PADDED[name](**settings).fit(X, y)
    assert not plain._pads_batches
    classifier = "reg" not in name
    expected = (plain.decision_function(X) if classifier else None), plain.predict(X)
    monkeypatch.setattr(NumpyBackend, "static_shapes", True)
    padded = PADDED[name](**settings).fit(X, y)
    assert padded._pads_batches
    if classifier:
        np.testing.assert_allclose(padded.decision_function(X), expected[0], atol=1e-5)
        np.testing.assert_array_equal(padded.predict(X), expected[1])
    else:
        np.testing.assert_allclose(padded.predict(X), expected[1], atol=1e-5)


@pytest.mark.parametrize("name", ["centroid", "adapthd", "ridge", "reghd"])
def test_a_rows_result_does_not_depend_on_its_batch(name):
    """On JAX a row's prediction is the same alone, in a padded batch, or among others."""
    X, y = data(name, 200, seed=7)
    est = ESTIMATORS[name](2).fit(X, y)
    together = est.predict(X[:70])
    alone = np.concatenate([est.predict(X[i : i + 1]) for i in range(0, 70, 7)])
    if "reg" in name:
        np.testing.assert_allclose(alone, together[::7], atol=1e-5)
    else:
        np.testing.assert_array_equal(alone, together[::7])


@pytest.mark.parametrize("updating", [3, 20])
def test_a_compiled_update_of_few_or_many_rows_adds_them_all(updating):
    """In a compiled step the prototypes' update is the product of the rows that update (in
    a fixed number of rows) where they are few, else of all rows: the same sum either way."""
    from holovec.learn._space import Space

    space = Space(VSA.create("MAP", dim=64, backend="jax", device=DEVICE))
    rng = np.random.default_rng(8)
    P, H = rng.normal(size=(3, 64)).astype(np.float32), rng.normal(size=(32, 64)).astype(np.float32)
    coef = np.zeros((32, 3), dtype=np.float32)
    coef[rng.choice(32, updating, replace=False)] = rng.normal(size=(updating, 3))
    added = jax.jit(space.add)(P, coef, H)
    np.testing.assert_allclose(np.asarray(added), P + coef.T.astype(np.float64) @ H, atol=1e-5)


# -- the resonator ---------------------------------------------------------------------------
def _products(model, books, n, seed):
    rows = np.random.default_rng(seed).integers(0, books[0].shape[0], size=(n, len(books)))
    product = None
    for f, book in enumerate(books):
        factor = model.xp.take(book, model.backend.asarray(rows[:, f]), axis=0)
        product = factor if product is None else model.bind(product, factor)
    return product, rows


@pytest.mark.parametrize("name", ["MAP", "FHRR"])
def test_the_resonator_compiles_one_loop_per_configuration(name):
    model = VSA.create(name, dim=512, backend="jax", device=DEVICE, seed=1)
    books = [model.random(15, seed=s) for s in (1, 2, 3)]
    s, _ = _products(model, books, 30, seed=1)
    jax.clear_caches()
    first = counted(lambda: Resonator(model, books, max_iter=50).factor(s))
    # the codebooks' checks and initial estimates, the padding, the products' check, the
    # loop and the cut of the estimates: none per iteration
    assert len(first) <= 12, first
    # another resonator of the same configuration, other products of as many
    others = [model.random(15, seed=s) for s in (4, 5, 6)]
    s2, truth2 = _products(model, others, 30, seed=2)
    result = None

    def again():
        nonlocal result
        result = Resonator(model, others, max_iter=50).factor(s2)

    assert len(counted(again)) == 0
    np.testing.assert_array_equal(result.indices, truth2)
    # a batch of another size in the same power of two: only its padding and its cut
    fewer = s[:17]
    assert len(counted(lambda: Resonator(model, books, max_iter=50).factor(fewer))) <= 2


def test_the_resonators_first_call_compiles_the_same_whatever_the_iterations():
    model = VSA.create("MAP", dim=512, backend="jax", device=DEVICE, seed=1)
    books = [model.random(15, seed=s) for s in (1, 2, 3)]
    counts = []
    for n, max_iter in ((30, 10), (60, 100)):
        s, _ = _products(model, books, n, seed=n)
        jax.clear_caches()
        counts.append(len(counted(lambda s=s, m=max_iter: Resonator(model, books, max_iter=m).factor(s))))
    assert counts[0] == counts[1], counts


def test_a_compiled_while_loop_runs_as_the_python_one():
    def halve(state):
        x, steps = state
        return x / 2, steps + 1

    def big(state):
        return state[0].max() > 1

    numpy_model = VSA.create("MAP", dim=8, backend="numpy")
    jax_model = VSA.create("MAP", dim=8, backend="jax", device=DEVICE)
    start = np.array([5.0, 100.0], dtype=np.float32)
    x, steps = kernels.while_loop(numpy_model.backend, big, halve, (start, np.int32(0)))
    jx, jsteps = jax.jit(lambda s: kernels.while_loop(jax_model.backend, big, halve, s))((start, np.int32(0)))
    np.testing.assert_array_equal(np.asarray(jx), x)
    assert int(jsteps) == int(steps) == 7


def _memory(kind: str):
    from holovec.memory import Hopfield, ModernHopfield, SparseDistributedMemory

    model = VSA.create("MAP", dim=256, backend="jax", device=DEVICE, seed=0)
    patterns = model.random(12, seed=1)
    if kind == "sdm":
        memory = SparseDistributedMemory(model, 64, seed=0)
        memory.write(patterns, patterns)
        return memory, memory.read, patterns
    memory = Hopfield(model) if kind == "hopfield" else ModernHopfield(model)
    memory.store(patterns)
    return memory, memory.recall, patterns


@pytest.mark.parametrize("kind", ["hopfield", "modern", "sdm"])
def test_memories_answer_any_number_of_cues_with_the_programs_of_its_class(kind):
    # each new number of cues compiled 9 to 14 programs; now a gather that pads the cues to
    # a power of two and the slice that trims the answer
    _, answer, patterns = _memory(kind)
    cues = [patterns[:k] for k in range(1, 9)]  # the slices made here, outside the count
    full = answer(cues[7])
    for k in (5, 6, 7):
        found = counted(lambda k=k: answer(cues[k - 1]))
        assert len(found) <= 2, found
        np.testing.assert_array_equal(np.asarray(answer(cues[k - 1])), np.asarray(full)[:k])
    assert answer(patterns[3]).shape == (256,)


def test_sequences_of_any_length_decode_with_the_programs_of_their_class():
    # each new length compiled about 14 programs (the queries of its positions and the
    # codebook of its labels); now those of its shape class, and the gather padding the codebook
    from holovec.structures import Sequence

    model = VSA.create("MAP", dim=256, backend="jax", device=DEVICE, seed=0)
    host = VSA.create("MAP", dim=256, seed=0)
    labels = [f"x{i}" for i in range(8)]
    made = {k: Sequence(model, labels[:k], seed=0) for k in (5, 6, 7, 8)}
    made[8].decode()
    for k in (5, 6, 7):
        found = counted(made[k].decode)
        assert len(found) <= 2, found
        assert made[k].decode() == Sequence(host, labels[:k], seed=0).decode()
