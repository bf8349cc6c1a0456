"""holovec.learn's fast paths give the answers of the plain ones, and still refuse bad input.

The fast paths: precomputed values checked once, in cache-sized blocks (``model.asarray``);
+-1 encodings bundled unscaled with the scale on the coefficients; a batch's kept rows
multiplied block by block (``Rows``); torch's CPU tensors computed by NumPy (``Space.run``);
retraining passes that score only the samples whose class may no longer lead (``Leads``)
and stop once a pass was sure of every sample; near ties decided among the tied classes.
Times are the benchmark's (benchmarks/learn.py), never asserted here.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from conftest import device_for

pytest.importorskip("sklearn")

from sklearn.datasets import load_digits

import holovec.models._values as values
from holovec import VSA
from holovec._fixed_order import rounding_margin
from holovec.learn import AdaptHDClassifier, CentroidClassifier, HDEncoder, OnlineHDClassifier
from holovec.learn._leads import Leads
from holovec.learn._space import Space
from holovec.learn.retraining import _Retraining

DIM = 512


@pytest.fixture(scope="module")
def encoded():
    """Digits (600 samples) as MAP vectors, precomputed on NumPy: training and test rows."""
    X, y = load_digits(return_X_y=True)
    X, y = X[:600], y[:600]
    H = np.asarray(HDEncoder(model="MAP", dim=DIM, random_state=0, backend="numpy").fit(X).transform(X))
    return H[:450], H[450:], y[:450], y[450:]


def _fit(cls, backend, H, y, **kw):
    """``cls`` on precomputed MAP encodings of ``backend`` (batches of 128: four per pass)."""
    model = VSA.create("MAP", DIM, backend, device=device_for(backend))
    est = cls(model="MAP", dim=DIM, encoder="precomputed", backend=backend, device=device_for(backend),
              random_state=1, batch_size=128, **kw)  # fmt: skip
    return est.fit(model.backend.asarray(H), y), model.backend.asarray


def _counting(monkeypatch, cls):
    """Count the rows that ``cls``'s retraining rule scores."""
    rule, scored = cls._retrain_rule, []

    def counted(space, P, H, t, weights, lr):
        scored.append(H.shape[0])
        return rule(space, P, H, t, weights, lr)

    monkeypatch.setattr(cls, "_retrain_rule", staticmethod(counted))
    return scored


@pytest.mark.parametrize("cls", [AdaptHDClassifier, OnlineHDClassifier])
def test_retraining_scores_the_samples_at_risk_and_learns_the_same(cls, backend, encoded, monkeypatch):
    Htr, Hte, ytr, _ = encoded
    scored = _counting(monkeypatch, cls)
    fast, on = _fit(cls, backend, Htr, ytr, epochs=8)
    fast_scored = sum(scored)
    scored.clear()
    monkeypatch.setattr(_Retraining, "_leads", lambda self, n: None)  # every sample of every pass
    plain, _ = _fit(cls, backend, Htr, ytr, epochs=8)
    np.testing.assert_array_equal(fast.predict(on(Hte)), plain.predict(on(Hte)))
    np.testing.assert_allclose(
        fast.model_.backend.to_numpy(fast.prototypes_), plain.model_.backend.to_numpy(plain.prototypes_),
        rtol=0, atol=1e-6,
    )  # fmt: skip
    if fast.space_.reads_blocks:  # (eager CPU backends; elsewhere every pass scores every sample)
        assert fast_scored < sum(scored)


def test_a_pass_sure_of_every_sample_ends_retraining(backend, monkeypatch):
    """Two classes far apart: the first pass is sure of every sample (each leads by more
    than ``4 * rounding_margin``), so no later pass runs, and 30 epochs learn what 1 does."""
    rng = np.random.default_rng(0)
    centres = np.where(rng.random((2, DIM)) < 0.5, -1.0, 1.0)
    flips = rng.random((80, DIM)) < 0.1
    y = np.arange(80) % 2
    H = np.where(flips, -centres[y], centres[y]).astype(np.float32)
    scored = _counting(monkeypatch, AdaptHDClassifier)
    many, _ = _fit(AdaptHDClassifier, backend, H, y, epochs=30)
    assert len(scored) == 1  # the first pass's one batch, then no more
    one, _ = _fit(AdaptHDClassifier, backend, H, y, epochs=1)
    to = many.model_.backend.to_numpy
    np.testing.assert_array_equal(to(many.prototypes_), to(one.prototypes_))


def test_leads_declare_safe_only_samples_that_stay_right():
    """The bound of ``Leads``: after random updates of the prototypes, every sample it lets a
    pass skip still scores its own class highest (exact cosines, float64), with a margin."""
    rng = np.random.default_rng(1)
    n, C, W = 300, 5, 256
    H = rng.standard_normal((n, W))
    H /= np.linalg.norm(H, axis=1, keepdims=True)
    P = rng.standard_normal((C, W)) + 3 * H[:C]

    def cosines(P):
        return H @ (P / np.linalg.norm(P, axis=1, keepdims=True)).T

    t = np.argmax(cosines(P), axis=1)
    margin = rounding_margin(W)
    leads = Leads(n, C, margin)
    rows = np.arange(n)
    norms = np.linalg.norm(P, axis=1)
    step = 0.05 * rng.standard_normal((C, W))
    leads.record(rows, cosines(P), norms, np.linalg.norm(step, axis=1))
    P = P + step
    checked = 0
    for _ in range(5):
        safe = np.setdiff1d(rows, leads.at_risk(rows, t, np.linalg.norm(P, axis=1)))
        S = cosines(P)[safe]
        own = S[np.arange(len(safe)), t[safe]]
        S[np.arange(len(safe)), t[safe]] = -np.inf
        assert np.all(own > S.max(axis=1) + 2 * margin)
        checked += len(safe)
        step = 0.02 * rng.standard_normal((C, W))
        norms = np.linalg.norm(P, axis=1)
        leads.record(np.array([], dtype=int), np.zeros((0, C)), norms, np.linalg.norm(step, axis=1))
        P = P + step
    assert 0 < checked < 5 * n  # (the test tests something)


def test_blocks_of_rows_give_the_product_of_the_gathered_rows(backend):
    from holovec.learn._rows import Rows

    model = VSA.create("MAP", 64, backend, device=device_for(backend))
    space = Space(model)
    rng = np.random.default_rng(2)
    data = space.backend.asarray(rng.standard_normal((700, 64)).astype(np.float32))
    M = space.backend.asarray(rng.standard_normal((64, 3)).astype(np.float32))
    index = np.sort(rng.permutation(700)[:500])
    rows = Rows(space, data, index)
    monkey = pytest.MonkeyPatch.context()
    with monkey as m:
        m.setattr("holovec.learn._rows.ROW_BLOCK_BYTES", 64 * 4 * 100)  # blocks of 100 rows
        blocked = space.backend.to_numpy(rows.product(M))
    gathered = space.backend.to_numpy(data)[index] @ space.backend.to_numpy(M)
    np.testing.assert_allclose(blocked, gathered, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(space.backend.to_numpy(rows.subset(np.array([0, 7])).gathered()),
                                  space.backend.to_numpy(data)[index[[0, 7]]])  # fmt: skip


def test_unscaled_bundles_are_the_sums_of_the_unit_rows(backend, encoded):
    Htr, Hte, ytr, _ = encoded
    clf, on = _fit(CentroidClassifier, backend, Htr, ytr)
    onehot = (ytr[:, None] == clf.classes_[None, :]).astype(np.float64)
    sums = onehot.T @ (Htr.astype(np.float64) / np.sqrt(DIM))
    np.testing.assert_allclose(clf.model_.backend.to_numpy(clf.prototypes_), sums, rtol=1e-6, atol=1e-6)
    exact = (Hte / np.sqrt(DIM)) @ (sums / np.linalg.norm(sums, axis=1, keepdims=True)).T
    np.testing.assert_allclose(clf.decision_function(on(Hte)), exact, atol=1e-5)


def _sum_bound(n_terms: np.ndarray, magnitudes: np.ndarray) -> np.ndarray:
    """How far two float32 sums of the same ``n_terms`` terms, in any two orders, may be
    apart: each is within ``gamma_(n-1) * sum |terms|`` of the exact sum (Higham's bound,
    ``gamma_m = m u / (1 - m u)``, ``u = 2**-24``, for any order and with or without fused
    multiply-adds), so twice that."""
    mu = np.maximum(n_terms - 1, 0) * 2.0**-24
    return 2 * mu / (1 - mu) * magnitudes


def test_torch_on_the_cpu_learns_what_numpy_learns(encoded):
    """torch's CPU path runs every learning step with NumPy on views of its tensors
    (``Space.run``), so on one BLAS thread it learns NumPy's prototypes bit for bit. On
    several, OpenBLAS sums a product's terms in an order that depends on its thread count,
    and NumPy's own fit multiplies its minibatches on one thread where torch's lent ones
    get the library's threads: the centroids (sums of ``n_c`` terms ``+-1/sqrt(dim)``)
    then agree within the float32 rounding bound of those sums, and predictions are
    equal either way (near ties are decided canonically)."""
    pytest.importorskip("torch")
    threadpoolctl = pytest.importorskip("threadpoolctl")
    Htr, Hte, ytr, _ = encoded
    for cls in (CentroidClassifier, AdaptHDClassifier, OnlineHDClassifier):
        kw = {} if cls is CentroidClassifier else {"epochs": 5}
        with threadpoolctl.threadpool_limits(1, user_api="blas"):
            ours, _ = _fit(cls, "numpy", Htr, ytr, **kw)
            theirs, to_torch = _fit(cls, "torch", Htr, ytr, **kw)
        np.testing.assert_array_equal(theirs.predict(to_torch(Hte)), ours.predict(Hte))
        np.testing.assert_array_equal(theirs.model_.backend.to_numpy(theirs.prototypes_), ours.prototypes_)
    # the library's own threads: what a user's fit does
    ours, _ = _fit(CentroidClassifier, "numpy", Htr, ytr)
    theirs, to_torch = _fit(CentroidClassifier, "torch", Htr, ytr)
    np.testing.assert_array_equal(theirs.predict(to_torch(Hte)), ours.predict(Hte))
    counts = np.array([np.sum(ytr == c) for c in ours.classes_], dtype=np.float64)[:, None]
    bound = _sum_bound(counts, counts * np.float32(1 / np.sqrt(DIM)))
    learned = theirs.model_.backend.to_numpy(theirs.prototypes_).astype(np.float64)
    difference = np.abs(learned - ours.prototypes_)
    assert np.all(difference <= bound), f"{np.sum(difference > bound)} elements beyond the float32 bound"
    # and since torch on the CPU runs small products on NumPy's BLAS rule too (one thread):
    # bit for bit, whatever the thread count
    np.testing.assert_array_equal(learned, ours.prototypes_)


def test_near_ties_are_decided_among_the_tied_classes(backend, encoded):
    """With prototype 3 made equal to prototype 0, the two tie exactly on every sample, and
    the tie goes to the first, 0 (the canonical cosines of the tied classes alone decide):
    no sample is predicted 3 any more, those that were go to their best other class, and
    every other prediction stays."""
    Htr, Hte, ytr, _ = encoded
    clf, on = _fit(CentroidClassifier, backend, Htr, ytr)
    before = clf.predict(on(Hte))
    P = clf.model_.backend.to_numpy(clf.prototypes_).copy()
    P[3] = P[0]
    clf.prototypes_ = clf.model_.backend.asarray(P)
    after = clf.predict(on(Hte))
    scores = clf.decision_function(on(Hte))
    scores[:, 3] = -np.inf
    assert np.any(before == 3) and not np.any(after == 3)
    np.testing.assert_array_equal(after[before != 3], before[before != 3])
    np.testing.assert_array_equal(after[before == 3], np.argmax(scores[before == 3], axis=1))


def test_values_are_checked_in_blocks_and_bad_ones_still_named(backend, monkeypatch):
    monkeypatch.setattr(values, "CHECK_BLOCK_BYTES", 4 * 64 * 3)  # blocks of 3 rows
    model = VSA.create("MAP", 64, backend, device=device_for(backend))
    good = np.where(np.random.default_rng(3).random((40, 64)) < 0.5, -1.0, 1.0).astype(np.float32)
    model.asarray(good)
    bad = good.copy()
    bad[38, 5] = 0.5  # in the last block
    with pytest.raises(ValueError, match=r"1 of 2560 values are not MAP elements .*0\.5 at \[38, 5\]"):
        model.asarray(bad)
    fhrr = VSA.create("FHRR", 64, backend, device=device_for(backend))
    phasors = np.exp(1j * np.random.default_rng(4).random((40, 64))).astype(np.complex64)
    phasors[39, 63] = np.nan
    with pytest.raises(ValueError, match=r"nan.* at \[39, 63\]"):
        fhrr.asarray(phasors)
    monkeypatch.setattr(values, "CHECK_BLOCK_BYTES", 4)  # blocks of a row of 8 bytes
    packed = VSA.create("BSC", 60, backend, device=device_for(backend), packed=True)  # 4 padding bits
    words = np.zeros((50, packed.vector_length), dtype=np.uint8)
    packed.asarray(words[0])  # (one vector: never split)
    words[49, -1] = 0xFF  # padding bits set
    with pytest.raises(ValueError, match=r"at \[49, 7\]"):
        packed.asarray(words)


def test_precomputed_vectors_are_checked_once_per_call_and_refused_when_wrong(backend, encoded, monkeypatch):
    Htr, Hte, ytr, _ = encoded
    calls = []
    check = values.check_values
    monkeypatch.setattr(values, "check_values", lambda *a: calls.append(1) or check(*a))
    clf, on = _fit(AdaptHDClassifier, backend, Htr, ytr, epochs=2)
    assert len(calls) == 1
    clf.predict(on(Hte))
    assert len(calls) == 2
    bad = Hte.copy()
    bad[-1, -1] = 0.0
    with pytest.raises(ValueError, match="not MAP elements"):
        clf.predict(on(bad))
    with pytest.raises(ValueError, match="not MAP elements"):
        _fit(CentroidClassifier, backend, bad, np.arange(len(bad)) % 2)


def test_checking_values_keeps_no_model_alive(backend):
    """The NumPy twin that checks a torch CPU tensor's values lives and dies with its model
    (a cache of the process kept 16 models and their twins alive)."""
    model = VSA.create("MAP", 256, backend, device=device_for(backend), seed=5)
    rows = np.where(np.random.default_rng(5).random((200, 256)) < 0.5, -1.0, 1.0).astype(np.float32)
    model.asarray(model.backend.asarray(rows))  # (200 x 256: lent to NumPy on torch's CPU)
    gone = weakref.ref(model)
    del model
    gc.collect()
    assert gone() is None


def test_precomputed_tensors_that_require_grad_are_learned_from_their_values(encoded):
    """Fitted prototypes hold values, not an autograd graph (one could not be copied or
    pickled), as for features (``check_features`` detaches them)."""
    torch = pytest.importorskip("torch")
    import copy

    Htr, _, ytr, _ = encoded
    for cls in (CentroidClassifier, AdaptHDClassifier):
        clf = cls(model="MAP", dim=DIM, encoder="precomputed", backend="torch", device="cpu", random_state=1,
                  **({} if cls is CentroidClassifier else {"epochs": 2}))  # fmt: skip
        clf.fit(torch.tensor(Htr, requires_grad=True), ytr)
        assert not clf.prototypes_.requires_grad
        copy.deepcopy(clf)


def test_leads_bounds_hold_in_float64_after_long_moves():
    """Float64 scores have a margin below the units of a long sum of update lengths
    (``moved``): the bound's own rounding is kept out too. A lead of ``3.9 * margin``,
    under the ``4 * margin`` that two scores within ``margin`` of the exact ones and two
    more ``margin`` of the next pass need, stays at risk (it was skipped in about one case of
    four, rounded to the units of ``moved = 1000``)."""
    margin = rounding_margin(64, True)
    rng = np.random.default_rng(6)
    norms, rows = np.ones(2), np.array([0])
    for a in rng.uniform(0.2, 0.5, 200):
        leads = Leads(1, 2, margin)
        leads.record(rows[:0], np.zeros((0, 2)), norms, np.array([1e3, 1e3]))
        leads.record(rows, np.array([[a, a - 3.9 * margin]]), norms, np.zeros(2))
        assert len(leads.at_risk(rows, np.array([0]), norms)) == 1
