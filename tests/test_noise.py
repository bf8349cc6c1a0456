"""holovec.noise: the laws of each noise checked by measurement at dim 2000 (tolerances
from the binomial or hypergeometric spread), exact counts of flipped positions, the same
positions on every backend for one seed, originals never touched, every error message."""

from __future__ import annotations

import copy
import importlib.util
import math

import numpy as np
import pytest

from conftest import device_for, to_numpy
from holovec import VSA, noise
from holovec.memory import Hopfield, ModernHopfield, SparseDistributedMemory
from holovec.random import fold_in
from holovec.retrieval import Codebook

D = 2000
FRACTIONS = (0.1, 0.2, 0.4)


def _np(name: str, dim: int = D, **kw):
    return VSA.create(name, dim=dim, backend="numpy", **kw)


def _changed(model, a, b) -> np.ndarray:
    """Per row, the number of elements of ``model`` in which ``a`` and ``b`` differ."""
    ea, eb = to_numpy(model, model.elements(a)), to_numpy(model, model.elements(b))
    return np.sum(ea != eb, axis=-1)


# -- laws --------------------------------------------------------------------------------
@pytest.mark.parametrize("name, options", [("MAP", {}), ("BSC", {}), ("BSC", {"packed": True}), ("FHRR", {})])
@pytest.mark.parametrize("p", (0.0, *FRACTIONS, 0.5, 1.0))
def test_flip_changes_exactly_round_p_dim_elements(name, options, p):
    model = _np(name, **options)
    x = model.random(3, seed=1)
    y = noise.flip(model, x, p, seed=2)
    k = round(p * D)
    assert y.shape == x.shape and y.dtype == x.dtype
    assert (_changed(model, x, y) == k).all()
    expected = noise.expected_similarity(model, "flip", p)
    assert expected == 1 - 2 * k / D
    np.testing.assert_allclose(to_numpy(model, model.similarity(x, y)), expected, atol=1e-5)


def _bundle_law(model, n_items: int, p: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    items = model.random(n_items, seed=11)
    s = model.bundle(items)
    before = to_numpy(model, model.similarity(s[None, :], items)).astype(np.float64)
    after = to_numpy(model, model.similarity(noise.flip(model, s, p, seed=5)[None, :], items))
    k = round(p * D)
    # k of D agreements +-1 drawn without replacement: the hypergeometric spread of the sum
    std = 2 / D * np.sqrt(k * (1 - before**2) * (D - k) / (D - 1))
    return before, after, std


@pytest.mark.parametrize("name, n_items", [("MAP", 5), ("BSC", 7)])
@pytest.mark.parametrize("p", FRACTIONS)
def test_a_flipped_bundle_keeps_1_minus_2p_of_its_similarity(name, n_items, p):
    model = _np(name)
    before, after, std = _bundle_law(model, n_items, p)
    factor = noise.expected_similarity(model, "flip", p)
    assert np.all(np.abs(after - factor * before) <= 5 * std + 1e-6), (after, factor * before, std)


@pytest.mark.parametrize("value", (1.0, -1.0))
def test_stuck_signs_keep_1_minus_q(value):
    model = _np("MAP")
    x = model.random(20, seed=3)
    y = noise.stuck_at(model, x, 0.3, value, seed=4)
    k = round(0.3 * D)
    assert np.all(np.sum(to_numpy(model, y) == value, axis=-1) >= k)
    sims = to_numpy(model, model.similarity(x, y))
    # each stuck element agrees with probability 1/2: 1 - 2 Binomial(k, 1/2) / D
    expected = noise.expected_similarity(model, "stuck_at", 0.3, value=value)
    assert expected == pytest.approx(1 - k / D)
    assert abs(sims.mean() - expected) <= 5 * math.sqrt(k) / D / math.sqrt(len(sims))


def test_stuck_bits_of_packed_bsc_hold_the_value():
    model = _np("BSC", packed=True)
    x = model.random(4, seed=3)
    y = noise.stuck_at(model, x, 0.25, 1, seed=4)
    bits = to_numpy(model, model.elements(y))
    assert np.all(bits.sum(axis=-1) >= round(0.25 * D))
    sims = to_numpy(model, model.similarity(x, y))
    assert abs(sims.mean() - noise.expected_similarity(model, "stuck_at", 0.25, value=1)) < 0.03


def test_stuck_at_zero_on_hrr_keeps_sqrt_1_minus_q():
    model = _np("HRR")
    x = model.random(10, seed=3)
    sims = to_numpy(model, model.similarity(x, noise.stuck_at(model, x, 0.36, 0.0, seed=1)))
    np.testing.assert_allclose(sims, 0.8, atol=0.02)
    assert noise.expected_similarity(model, "stuck_at", 0.36, value=0.0) == pytest.approx(0.8)


@pytest.mark.parametrize("sigma", (0.25, 0.5, 1.0))
def test_gaussian_noise_keeps_1_over_sqrt_1_plus_sigma2(sigma):
    model = _np("HRR")
    x = model.random(20, seed=1)
    sims = to_numpy(model, model.similarity(x, noise.gaussian(model, x, sigma, seed=2)))
    # cos = (1 + u)^(-1/2) at u = sigma^2 (chi2_D / D - 1) + 2 x.n / |x|^2, to first order:
    # Var u = (2 sigma^4 + 4 sigma^2) / D; the mean of 20 vectors, and a bias of O(1 / D)
    std = 0.5 * (1 + sigma**2) ** -1.5 * math.sqrt((2 * sigma**4 + 4 * sigma**2) / D / len(sims))
    assert abs(sims.mean() - noise.expected_similarity(model, "gaussian", sigma)) < 5 * std + 2 / D


@pytest.mark.parametrize("name, options", [("FHRR", {}), ("GHRR", {"m": 2})])
@pytest.mark.parametrize("sigma", (0.3, 0.8))
def test_phase_noise_keeps_exp_minus_sigma2_over_2(name, options, sigma):
    model = _np(name, **options)
    x = model.random(10, seed=1)
    y = noise.phase_noise(model, x, sigma, seed=2)
    sims = to_numpy(model, model.similarity(x, y))
    var = (1 + math.exp(-2 * sigma**2)) / 2 - math.exp(-(sigma**2))  # of cos(theta)
    units = D // model.atom_size
    std = math.sqrt(var / units / len(sims))
    assert abs(sims.mean() - noise.expected_similarity(model, "phase", sigma)) < 5 * std
    np.testing.assert_allclose(np.abs(to_numpy(model, y)), np.abs(to_numpy(model, x)), rtol=1e-5)


@pytest.mark.parametrize("bits", (1, 2, 3))
def test_quantised_phasors_keep_sinc(bits):
    model = _np("FHRR")
    x = model.random(10, seed=1)
    y = noise.quantize(model, x, bits)
    phases = np.angle(to_numpy(model, y)) / (2 * np.pi / 2**bits)
    np.testing.assert_allclose(phases, np.round(phases), atol=1e-4)
    sims = to_numpy(model, model.similarity(x, y))
    assert abs(sims.mean() - noise.expected_similarity(model, "quantize", bits)) < 0.01


def test_quantize_levels_and_one_bit_alphabets():
    hrr = _np("HRR")
    x = hrr.random(10, seed=1)
    for bits in (1, 2, 4):
        q = to_numpy(hrr, noise.quantize(hrr, x, bits))
        assert all(len(np.unique(row)) <= 2**bits for row in q)
        assert np.all(np.abs(q).max(axis=-1) == np.abs(to_numpy(hrr, x)).max(axis=-1))  # nothing clipped
    sims = to_numpy(hrr, hrr.similarity(x, noise.quantize(hrr, x, 1)))
    assert abs(sims.mean() - noise.expected_similarity(hrr, "quantize", 1)) < 0.02
    for name, options in [("MAP", {}), ("BSC", {}), ("BSC", {"packed": True})]:
        model = _np(name, **options)
        v = model.random(3, seed=2)
        np.testing.assert_array_equal(to_numpy(model, noise.quantize(model, v, 1)), to_numpy(model, v))
        assert noise.expected_similarity(model, "quantize", 1) == 1.0
    mapi = _np("MAP-I")
    s = mapi.bundle(mapi.random(5, seed=3))
    q = to_numpy(mapi, noise.quantize(mapi, s, 2))
    assert np.all(q == np.round(q)) and len(np.unique(q)) <= 4  # still integers: a MAP-I vector
    mapi.check_values(mapi.asarray(q))


def test_ghrr_flips_whole_blocks():
    model = _np("GHRR", m=2)
    x = model.random(2, seed=1)
    y = noise.flip(model, x, 0.25, seed=3)
    a, b = to_numpy(model, model.atoms(x)), to_numpy(model, model.atoms(y))
    negated = np.all(np.isclose(a, -b), axis=-1)
    kept = np.all(a == b, axis=-1)
    assert np.all(negated | kept) and np.all(negated.sum(axis=-1) == round(0.25 * D / 4))
    np.testing.assert_allclose(to_numpy(model, model.similarity(x, y)), 0.5, atol=1e-5)


def test_sparse_codes_flip_bits():
    model = _np("BSDC")
    x = model.random(2, seed=1)
    assert np.all(_changed(model, x, noise.flip(model, x, 0.05, seed=2)) == round(0.05 * D))


# -- learners and memories ---------------------------------------------------------------
def _fitted(cls_name: str, **kw):
    pytest.importorskip("sklearn")
    from holovec import learn

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 4)) * 3
    y = np.repeat(np.arange(3), 40)
    X = centres[y] + rng.normal(size=(len(y), 4))
    return getattr(learn, cls_name)(dim=D, random_state=0, **kw).fit(X, y), X


@pytest.mark.parametrize("p", FRACTIONS)
def test_flipped_prototypes_scale_the_scores_by_1_minus_2p(p):
    clf, X = _fitted("CentroidClassifier", model="MAP")
    before = copy.deepcopy(to_numpy(clf.model_, clf.prototypes_))
    noisy = noise.perturb(clf, "flip", p, seed=1)
    np.testing.assert_array_equal(to_numpy(clf.model_, clf.prototypes_), before)  # untouched
    after = to_numpy(clf.model_, noisy.prototypes_)
    assert np.all((after == before) | (after == -before))
    # k signs changed per prototype, fewer only where a flipped element is 0 (a tied sum)
    changed, zeros = np.sum(after != before, axis=-1), np.sum(before == 0, axis=-1)
    assert np.all(changed <= round(p * D)) and np.all(changed >= round(p * D) - zeros)
    s0, s1 = clf.decision_function(X), noisy.decision_function(X)
    # per sample, a sum over the k flipped of h_j P_j (unit h, P): spread about 2 sqrt(q/D)
    assert np.all(np.abs(s1 - (1 - 2 * p) * s0) < 5 * 2 * math.sqrt(p * (1 - p) / D) + 1e-6)


def test_complex_models_prototypes_are_rows_of_twice_dim():
    clf, _ = _fitted("CentroidClassifier", model="FHRR")
    before = to_numpy(clf.model_, clf.prototypes_)
    assert before.shape[-1] == 2 * D  # real parts, then imaginary parts
    after = to_numpy(clf.model_, noise.perturb(clf, "flip", 0.1, seed=1).prototypes_)
    assert np.all(np.sum(after != before, axis=-1) <= round(0.1 * 2 * D))
    assert np.all(np.sum(after != before, axis=-1) >= round(0.1 * 2 * D) - np.sum(before == 0, axis=-1))


def test_binarised_prototypes_are_made_again_and_readouts_are_columns():
    clf, X = _fitted("CentroidClassifier", model="BSC", binarize=True)
    noisy = noise.perturb(clf, "flip", 0.2, seed=1)
    m = noisy.model_
    np.testing.assert_array_equal(
        to_numpy(m, noisy.class_vectors_), to_numpy(m, m.finish_sum(noisy.prototypes_))
    )
    assert noisy.model_ is clf.model_ and noisy.encoder_ is not clf.encoder_
    ridge, X = _fitted("RidgeHDClassifier", model="MAP")
    noisy = noise.perturb(ridge, "flip", 0.1, seed=1)
    a, b = to_numpy(ridge.model_, ridge.coef_), to_numpy(ridge.model_, noisy.coef_)
    assert a.shape == b.shape and a.shape[0] == D
    assert np.all(np.sum(np.sign(a) != np.sign(b), axis=0) == round(0.1 * D))  # per column
    assert noise.perturb(ridge, "gaussian", 0.1, seed=1).predict(X).shape == (len(X),)


def test_estimator_errors():
    clf, _ = _fitted("QuantHDClassifier")
    with pytest.raises(ValueError, match="gaussian leaves this QuantHDClassifier's fitted state outside"):
        noise.perturb(clf, "gaussian", 0.5, seed=1)
    from holovec.learn import CentroidClassifier

    with pytest.raises(ValueError, match="this CentroidClassifier is not fitted yet: call fit"):
        noise.perturb(CentroidClassifier(dim=100), "flip", 0.1)


def test_codebooks_and_modern_hopfield_are_copied_with_noise():
    model = _np("BSC")
    book = Codebook.from_seed(model, ["a", "b", "c"], seed=1)
    before = book.vectors.copy()
    noisy = noise.perturb(book, "flip", 0.2, seed=9)
    assert isinstance(noisy, Codebook) and noisy is not book and noisy.labels == book.labels
    np.testing.assert_array_equal(book.vectors, before)
    np.testing.assert_array_equal(noisy.vectors, noise.flip(model, before, 0.2, seed=fold_in(9, "vectors")))
    memory = ModernHopfield(model, beta=30.0)
    memory.store(before)
    out = noise.perturb(memory, "stuck_at", 0.1, seed=2, value=1)
    assert isinstance(out, ModernHopfield) and out.beta == 30.0 and out.n_patterns == 3
    np.testing.assert_array_equal(memory.patterns, before)
    np.testing.assert_array_equal(
        out.patterns, noise.stuck_at(model, before, 0.1, 1, seed=fold_in(2, "patterns"))
    )
    assert noise.perturb(ModernHopfield(model), "flip", 0.1, seed=1).n_patterns == 0


def test_memories_through_their_hooks_and_without():
    model = _np("MAP", dim=256)
    patterns = model.random(5, seed=1)
    with pytest.raises(TypeError, match="an explicit network keeps only its weights"):
        noise.perturb(Hopfield(model, explicit=True), "flip", 0.1)
    net = Hopfield(model)
    net.store(patterns)
    out = noise.perturb(net, "flip", 0.1, seed=3)
    assert isinstance(out, Hopfield) and out.n_patterns == 5
    np.testing.assert_array_equal(net.patterns, patterns)
    np.testing.assert_array_equal(out.patterns, noise.flip(model, patterns, 0.1, seed=fold_in(3, "patterns")))
    sdm = SparseDistributedMemory(model, 200, seed=1)
    sdm.write(patterns, patterns)
    counters = sdm.counters.copy()
    out = noise.perturb(sdm, "flip", 0.25, seed=4)
    np.testing.assert_array_equal(sdm.counters, counters)
    flipped = np.sum(to_numpy(model, out.counters) != counters, axis=-1)
    nonzero = np.sum(counters != 0, axis=-1)
    assert np.all(flipped <= nonzero) and flipped.sum() > 0  # signs of counters (0 stays 0)
    q = noise.perturb(sdm, "quantize", 2)
    assert len(np.unique(to_numpy(model, q.counters)[0])) <= 4


# -- reproducibility ------------------------------------------------------------------------
def _host_draws(name: str, options: dict, dim: int = 512) -> dict:
    model = VSA.create(name, dim=dim, backend="numpy", **options)
    x = model.random(3, seed=1)
    return {
        "x": x,
        "flip": noise.flip(model, x, 0.3, seed=8),
        "stuck": noise.stuck_at(model, x, 0.2, 1, seed=9),
    }


@pytest.mark.parametrize("name, options", [("MAP", {}), ("BSC", {}), ("BSC", {"packed": True})])
def test_the_same_positions_on_every_backend(backend, name, options):
    host = _host_draws(name, options)
    model = VSA.create(name, dim=512, backend=backend, device=device_for(backend), **options)
    x = model.random(3, seed=1)
    np.testing.assert_array_equal(to_numpy(model, x), host["x"])
    np.testing.assert_array_equal(to_numpy(model, noise.flip(model, x, 0.3, seed=8)), host["flip"])
    np.testing.assert_array_equal(to_numpy(model, noise.stuck_at(model, x, 0.2, 1, seed=9)), host["stuck"])


def test_the_same_noise_on_every_backend(backend):
    for name, fn in [("HRR", noise.gaussian), ("FHRR", noise.phase_noise)]:
        host_model = _np(name, dim=512)
        want = fn(host_model, host_model.random(2, seed=1), 0.5, seed=3)
        model = VSA.create(name, dim=512, backend=backend, device=device_for(backend))
        got = to_numpy(model, fn(model, model.random(2, seed=1), 0.5, seed=3))
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    model = VSA.create("FHRR", dim=512, backend=backend, device=device_for(backend))
    got = to_numpy(model, noise.quantize(model, model.random(2, seed=1), 3))
    np.testing.assert_allclose(
        got, noise.quantize(_np("FHRR", 512), _np("FHRR", 512).random(2, seed=1), 3), atol=1e-5
    )


@pytest.mark.skipif(importlib.util.find_spec("dask") is None, reason="dask not installed")
def test_dask_rows_are_flipped_where_they_live():
    host = _host_draws("MAP", {})
    model = VSA.create("MAP", dim=512, backend="dask")
    x = model.random(3, seed=1)
    np.testing.assert_array_equal(to_numpy(model, noise.flip(model, x, 0.3, seed=8)), host["flip"])


def test_rows_do_not_depend_on_the_batch_and_seeded_models_repeat():
    model = _np("MAP")
    x = model.random(6, seed=1)
    whole = noise.flip(model, x, 0.2, seed=4)
    np.testing.assert_array_equal(noise.flip(model, x[:2], 0.2, seed=4), whole[:2])
    np.testing.assert_array_equal(noise.flip(model, x[0], 0.2, seed=4), whole[0])
    assert not np.array_equal(noise.flip(model, x, 0.2, seed=5), whole)
    a, b = _np("BSC", seed=3), _np("BSC", seed=3)
    v = a.random(seed=1)
    np.testing.assert_array_equal(noise.flip(a, v, 0.1), noise.flip(b, v, 0.1))
    assert not np.array_equal(noise.flip(a, v, 0.1), noise.flip(a, v, 0.1))  # the next seed


def test_inputs_are_never_written():
    for name in ("MAP", "BSC", "HRR", "FHRR"):
        model = _np(name, dim=256)
        x = model.random(2, seed=1)
        keep = x.copy()
        outs = [noise.flip(model, x, 0.0, seed=1), noise.quantize(model, x, 8)]
        if name == "HRR":
            outs += [noise.gaussian(model, x, 0.0, seed=1)]
        if name == "FHRR":
            outs += [noise.phase_noise(model, x, 0.0, seed=1)]
        for out in outs:
            assert not np.shares_memory(out, x)
        np.testing.assert_array_equal(x, keep)


# -- errors ----------------------------------------------------------------------------------
FRACTION = r"a fraction \(a finite number in \[0, 1\]\)"
BITS = r"bits must be a positive int of at most 32"
NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    "fn, args, kwargs, error, message",
    [
        ("flip", (1.5,), {}, ValueError, rf"p must be {FRACTION}, got 1.5"),
        ("flip", ("a",), {}, TypeError, rf"p must be {FRACTION}, got str 'a'"),
        ("flip", (True,), {}, TypeError, rf"p must be {FRACTION}, got bool True"),
        ("flip", (NAN,), {}, ValueError, rf"p must be {FRACTION}, got nan"),
        ("flip", (0.1,), {"seed": -1}, ValueError, r"seed must be in \[0, 2\*\*128\), got -1"),
        ("flip", (0.1,), {"seed": 1.5}, TypeError, r"seed must be a non-negative int \(or None\), got float"),
        ("stuck_at", (-0.1, 1.0), {}, ValueError, rf"p must be {FRACTION}, got -0.1"),
        ("stuck_at", (0.1, 0.0), {}, ValueError, r"value must be a value of MAP's elements \(\+1 or -1"),
        ("stuck_at", (0.1, None), {}, TypeError, r"stuck_at needs value=: the number the stuck elements"),
        ("stuck_at", (0.1, "1"), {}, TypeError, r"value must be a real number, got str '1'"),
        ("stuck_at", (0.1, True), {}, TypeError, r"value must be a real number, got bool True"),
        ("stuck_at", (0.1, 1j), {}, TypeError, r"value must be a real number, got complex 1j"),
        ("stuck_at", (0.1, INF), {}, ValueError, r"value must be finite, got inf"),
        (
            "gaussian",
            (0.1,),
            {},
            TypeError,
            r"gaussian cannot perturb MAP vectors \(element_kind 'bipolar'\)",
        ),
        (
            "gaussian",
            (-0.1,),
            {},
            ValueError,
            r"sigma must be a noise level \(a finite number >= 0\), got -0.1",
        ),
        ("phase_noise", (0.1,), {}, TypeError, r"phase cannot perturb MAP vectors .*: it needs complex"),
        ("quantize", (0,), {}, ValueError, BITS + ", got 0"),
        ("quantize", (33,), {}, ValueError, BITS + ", got 33"),
        ("quantize", (2.0,), {}, TypeError, BITS + ", got float 2.0"),
    ],
)
def test_bad_input_is_named(fn, args, kwargs, error, message):
    model = _np("MAP", dim=64)
    with pytest.raises(error, match=message):
        getattr(noise, fn)(model, model.random(2, seed=1), *args, **kwargs)


def test_bad_vectors_and_objects_are_named():
    model = _np("MAP", dim=64)
    with pytest.raises(TypeError, match=r"x: expected a numpy.ndarray of this MAP model's backend"):
        noise.flip(model, [1.0] * 64, 0.1)
    with pytest.raises(ValueError, match=r"^x"):
        noise.flip(model, model.random(2, seed=1)[:, :10], 0.1)
    with pytest.raises(TypeError, match=r"perturb takes a Codebook, a memory .* got ndarray"):
        noise.perturb(model.random(seed=1), "flip", 0.1)


def test_more_errors_are_named():
    bsc, hrr = _np("BSC", dim=64), _np("HRR", dim=64)
    x = bsc.random(seed=1)
    with pytest.raises(ValueError, match=r"value must be an integer in \[0, 255\] .*, got 0.5"):
        noise.stuck_at(bsc, x, 0.1, 0.5)
    with pytest.raises(ValueError, match=r"value must be an integer in \[0, 255\] .*, got 300"):
        noise.stuck_at(bsc, x, 0.1, 300)
    with pytest.raises(ValueError, match=r"value must be a value of BSC's elements"):
        noise.stuck_at(bsc, x, 0.1, 2)
    with pytest.raises(ValueError, match=r"value must be a value of BSC's elements"):
        noise.stuck_at(
            _np("BSC", dim=64, packed=True), _np("BSC", dim=64, packed=True).random(seed=1), 0.1, 2
        )
    with pytest.raises(TypeError, match=r"quantize cannot perturb GHRR vectors"):
        noise.quantize(_np("GHRR", dim=64, m=2), _np("GHRR", dim=64, m=2).random(seed=1), 2)
    with pytest.raises(TypeError, match=r"value= goes with stuck_at only, not with flip"):
        noise.perturb(Codebook.from_seed(bsc, ["a"], seed=1), "flip", 0.1, value=1)
    noises = "'flip', 'stuck_at', 'gaussian', 'phase', 'quantize'"
    with pytest.raises(ValueError, match=f"noise must be one of {noises}, got 'blur'"):
        noise.perturb(Codebook.from_seed(bsc, ["a"], seed=1), "blur", 0.1)
    with pytest.raises(ValueError, match=r"level must be a fraction .*, got 2"):
        noise.perturb(Codebook.from_seed(bsc, ["a"], seed=1), "flip", 2)
    with pytest.raises(ValueError, match="perturb needs the codebook's model"):
        noise.perturb(Codebook({"a": x}, backend="numpy"), "flip", 0.1)
    with pytest.raises(TypeError, match="gaussian needs real floating-point numbers"):
        noise.perturb(SparseDistributedMemory(_np("FHRR", dim=64), 10, seed=1), "gaussian", 0.1)
    with pytest.raises(TypeError, match="phase needs complex numbers"):
        noise.perturb(SparseDistributedMemory(hrr, 10, seed=1), "phase", 0.1)


def test_expected_similarity_errors_are_named():
    bsc, hrr, mapc = _np("BSC", dim=64), _np("HRR", dim=64), _np("MAP-C", dim=64)
    with pytest.raises(ValueError, match="no closed form of quantize at 2 bits for HRR"):
        noise.expected_similarity(hrr, "quantize", 2)
    with pytest.raises(ValueError, match="no closed form of stuck_at for MAP-C"):
        noise.expected_similarity(mapc, "stuck_at", 0.1, value=0.0)
    with pytest.raises(ValueError, match="no closed form of flip for BSDC"):
        noise.expected_similarity(_np("BSDC"), "flip", 0.1)
    with pytest.raises(TypeError, match="stuck_at needs value="):
        noise.expected_similarity(bsc, "stuck_at", 0.1)
    with pytest.raises(TypeError, match="gaussian cannot perturb BSC vectors"):
        noise.expected_similarity(bsc, "gaussian", 0.1)
    with pytest.raises(TypeError, match="phase cannot perturb BSC vectors"):
        noise.expected_similarity(bsc, "phase", 0.1)
    with pytest.raises(ValueError, match="level must be a noise level"):
        noise.expected_similarity(hrr, "gaussian", -1)
    with pytest.raises(ValueError, match="noise must be one of"):
        noise.expected_similarity(hrr, "salt", 0.1)


def test_a_memory_with_other_counters_is_checked_and_leaves_the_original():
    model = _np("MAP", dim=64)
    sdm = SparseDistributedMemory(model, 20, seed=1)
    sdm.write(model.random(3, seed=2), model.random(3, seed=3))
    counters = sdm.counters + 0.5
    out = sdm.with_counters(counters)
    assert out.counters is counters and out.n_written == sdm.n_written == 3
    assert not np.array_equal(sdm.counters, counters)
    with pytest.raises(ValueError, match=r"counters must be of shape \(20, 64\), got \(2, 64\)"):
        sdm.with_counters(counters[:2])
    with pytest.raises(ValueError, match="counters must be of the model's sum dtype"):
        sdm.with_counters(counters.astype(np.float16))
    with pytest.raises(ValueError, match="counters hold NaN or infinity"):
        sdm.with_counters(np.where(counters > 0, np.inf, counters).astype(counters.dtype))
    with pytest.raises(TypeError, match="counters must be an array of the numpy backend"):
        sdm.with_counters(counters.tolist())
