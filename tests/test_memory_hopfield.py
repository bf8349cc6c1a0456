"""The classical Hopfield network (``Hopfield``) and the modern softmax one
(``ModernHopfield``): their published capacities, retrieval from noisy cues, the same
answers on every backend, and clear errors."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from conftest import to_numpy
from holovec import VSA, capacity
from holovec._format.state import save_state
from holovec.memory import Hopfield, ModernHopfield
from holovec.memory import _common as common


def flipped(model, x, fraction: float, seed: int):
    """``x`` with ``round(fraction * dim)`` elements of each vector flipped (negated: +-1
    and phasors; 1 - bit for BSC), the same elements on every backend."""
    host = to_numpy(model, x)
    rows = host.reshape(-1, model.dim)
    order = np.argsort(np.random.default_rng(seed).random(rows.shape), axis=1)
    mask = order < round(fraction * model.dim)
    other = (1 - rows) if model.element_kind == "binary" else -rows
    return model.asarray(np.where(mask, other, rows).reshape(host.shape))


# -- Hopfield: capacity ------------------------------------------------------------------------
def test_hopfield_patterns_are_fixed_points_below_capacity_and_not_well_above():
    """Amit, Gutfreund and Sompolinsky (1985): a +-1 network of N elements holding
    p = alpha N random patterns keeps them as fixed points up to alpha_c = 0.138, with a
    fraction (1 - m) / 2 of wrong elements, m = erf(m / sqrt(2 alpha r)) (their
    replica-symmetric equations at T = 0): 0.10% at alpha = 0.1, 1.6% just below alpha_c;
    above it the retrieval states vanish. Measured at N = 1000 (synchronous updates from
    the patterns themselves): 0.00% at alpha 0.05, 0.08% at 0.1, 0.8% at 0.138, 22% at 0.2."""
    model = VSA.create("MAP", dim=1000, backend="numpy")

    def errors(n: int) -> float:
        patterns = model.random(n, seed=1)
        net = Hopfield(model)
        net.store(patterns)
        settled = net.recall(patterns, iterations=10)
        return float(np.mean(settled != patterns))

    assert net_capacity(model) == capacity.hopfield_capacity(1000) == 137  # 0.1379 * 1000
    assert errors(50) < 1e-4
    ags = capacity.hopfield_error(100, 1000)  # 0.10%
    assert 0.5 * ags < errors(100) < 2 * ags
    assert errors(200) > 0.1  # AGS: no retrieval state (measured 22%)


def net_capacity(model) -> int:
    return Hopfield(model).capacity


@pytest.mark.parametrize("name", ["MAP", "BSC"])
def test_hopfield_recovers_cues_with_a_tenth_flipped_exactly_at_low_load(make_model, name):
    """At alpha = 0.05 (25 patterns, dim 500) a cue with 10% of its elements flipped
    settles on its pattern exactly (the one-step error rate, Phi(-0.8 / sqrt(alpha)), is
    1e-4 per element, and the next step clears it)."""
    model = make_model(name, 500)
    patterns = model.random(25, seed=2)
    net = Hopfield(model)
    net.store(patterns)
    out = net.recall(flipped(model, patterns, 0.1, seed=3))
    assert out.dtype == patterns.dtype and out.shape == patterns.shape
    np.testing.assert_array_equal(to_numpy(model, out), to_numpy(model, patterns))
    one = net.recall(flipped(model, patterns[4], 0.1, seed=4))
    np.testing.assert_array_equal(to_numpy(model, one), to_numpy(model, patterns[4]))


def test_hopfield_phasor_network_recovers_noisy_cues_at_low_load(make_model):
    """The phasor network (Noest 1988) over FHRR at alpha = 0.02 (10 patterns, dim 500):
    a cue with 10% of its phasors reversed (similarity 0.8) settles next to its pattern
    (measured similarity 0.97 to 0.99: the crosstalk turns each phase a little), far from the
    others; the capacity it reports is the measured 0.03 dim."""
    model = make_model("FHRR", 500)
    patterns = model.random(10, seed=5)
    net = Hopfield(model)
    net.store(patterns)
    assert net.capacity == 15
    out = net.recall(flipped(model, patterns, 0.1, seed=6))
    sims = to_numpy(model, model.similarity_matrix(out, patterns))
    assert np.all(np.diag(sims) > 0.95)
    assert np.all(np.argmax(sims, axis=1) == np.arange(10))
    phasors = to_numpy(model, out)
    np.testing.assert_allclose(np.abs(phasors), 1, atol=1e-5)


# -- Hopfield: the same answers everywhere -----------------------------------------------------
def _hopfield_answer(model, explicit=False):
    patterns = model.random(120, seed=7)
    net = Hopfield(model, explicit=explicit)
    net.store(patterns[:60])
    net.store(patterns[60:])  # a second store adds
    cues = flipped(model, patterns[:40], 0.25, seed=8)
    return net, net.recall(cues, iterations=5), net.energy(cues)


@pytest.mark.parametrize("name", ["MAP", "BSC", "FHRR"])
def test_hopfield_answers_are_the_same_on_every_backend(make_model, name):
    """Integer models compute exactly: the same states on NumPy, PyTorch and JAX; FHRR to
    float rounding. (A load of 0.3 and cues 25% flipped, so that the states still move.)"""
    model = make_model(name, 400)
    reference = VSA.create(name, dim=400, backend="numpy")
    _, out, energy = _hopfield_answer(model)
    _, want, want_energy = _hopfield_answer(reference)
    if name == "FHRR":
        np.testing.assert_allclose(to_numpy(model, out), want, atol=1e-3)
        np.testing.assert_allclose(to_numpy(model, energy), want_energy, rtol=1e-4)
    else:
        np.testing.assert_array_equal(to_numpy(model, out), want)
        np.testing.assert_array_equal(to_numpy(model, energy), want_energy)


@pytest.mark.parametrize("name", ["MAP", "FHRR"])
def test_explicit_weights_give_the_implicit_answers(name):
    model = VSA.create(name, dim=400, backend="numpy")
    net, out, energy = _hopfield_answer(model)
    dense, dense_out, dense_energy = _hopfield_answer(model, explicit=True)
    w = to_numpy(model, dense.weight_matrix())
    np.testing.assert_allclose(w, to_numpy(model, net.weight_matrix()), atol=1e-3)
    assert w.shape == (400, 400) and np.all(np.diagonal(w) == 0)
    np.testing.assert_allclose(w, np.conj(w.T), atol=1e-3)  # Hermitian (symmetric)
    if name == "MAP":
        np.testing.assert_array_equal(dense_out, out)
        np.testing.assert_array_equal(dense_energy, energy)
    else:
        np.testing.assert_allclose(dense_out, out, atol=1e-3)
        np.testing.assert_allclose(dense_energy, energy, rtol=1e-4)


def test_hopfield_energy_is_lowest_at_the_stored_patterns():
    model = VSA.create("BSC", dim=500, backend="numpy")
    patterns = model.random(25, seed=9)
    net = Hopfield(model)
    net.store(patterns)
    stored = net.energy(patterns)
    assert stored.shape == (25,) and net.energy(patterns[0]).shape == ()
    assert np.max(stored) < np.min(net.energy(model.random(25, seed=10)))
    # E = -1/2 (sum_p <p, s>^2 - n dim) for +-1 states
    s = 1.0 - 2.0 * patterns[0]
    lifted = 1.0 - 2.0 * patterns
    np.testing.assert_allclose(net.energy(patterns[0]), -0.5 * (np.sum((lifted @ s) ** 2) - 25 * 500))


def test_hopfield_clear_len_and_repr():
    model = VSA.create("MAP", dim=64, backend="numpy")
    net = Hopfield(model)
    assert len(net) == 0 and net.capacity == 8
    net.store(model.random(3, seed=1))
    net.store(model.random(seed=2))
    assert len(net) == net.n_patterns == 4 and "4 patterns" in repr(net)
    net.clear()
    assert len(net) == 0
    with pytest.raises(ValueError, match="store"):
        net.recall(model.random(seed=1))


# -- modern Hopfield ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["MAP", "BSC", "FHRR"])
def test_modern_hopfield_retrieves_many_more_patterns_than_dim_in_one_step(make_model, name):
    """Ramsauer et al. (2021): the softmax update retrieves from a number of patterns
    exponential in the dimension, in one step. Measured: 4000 random patterns at dim 256
    (15.6 per element, 110 times the classical network's 0.138), the default beta =
    sqrt(dim) = 16: every cue with 10% of its elements flipped (similarity 0.8) gives its
    pattern (FHRR: similarity above 0.9999), with attention 0.98 on it."""
    model = make_model(name, 256)
    patterns = model.random(4000, seed=11)
    memory = ModernHopfield(model)
    memory.store(patterns)
    assert memory.beta == 16.0 and len(memory) == 4000
    cues = flipped(model, patterns[:64], 0.1, seed=12)
    out = memory.recall(cues)
    assert out.dtype == patterns.dtype and out.shape == cues.shape
    if name == "FHRR":
        assert np.all(to_numpy(model, model.similarity(out, patterns[:64])) > 0.9999)
    else:
        np.testing.assert_array_equal(to_numpy(model, out), to_numpy(model, patterns[:64]))
    w = to_numpy(model, memory.weights(cues))
    assert w.shape == (64, 4000)
    np.testing.assert_allclose(w.sum(axis=1), 1, atol=1e-4)
    assert np.all(w[np.arange(64), np.arange(64)] > 0.95)


def test_modern_hopfield_small_beta_gives_metastable_averages_large_beta_one_pattern():
    """The temperature trade-off of Ramsauer et al. (2021): 8 clusters of 8 patterns (each
    its prototype with 10% flipped), cues a member with 10% more flipped, dim 256. At
    beta = 4 the attention spreads over the cue's cluster (largest weight measured 0.19)
    and the answer is a metastable average: closer to the cluster's prototype (0.95) than
    to the cue's own pattern (0.82), similar to every member. At the default beta = 16
    (largest weight 0.93) each cue retrieves its own pattern exactly."""
    model = VSA.create("MAP", dim=256, backend="numpy")
    prototypes = model.random(8, seed=13)
    members = flipped(model, np.repeat(prototypes, 8, axis=0), 0.1, seed=14)
    cues = flipped(model, members[::8], 0.1, seed=15)
    sharp, soft = ModernHopfield(model), ModernHopfield(model, beta=4)
    for memory in (sharp, soft):
        memory.store(members)

    np.testing.assert_array_equal(sharp.recall(cues), members[::8])
    assert np.all(np.max(sharp.weights(cues), axis=1) > 0.8)

    w, out = soft.weights(cues), soft.recall(cues)
    assert np.all(np.max(w, axis=1) < 0.5)
    to_prototype = np.diag(model.similarity_matrix(out, prototypes))
    to_own = np.diag(model.similarity_matrix(out, members[::8]))
    assert np.all(to_prototype > to_own)
    to_cluster = model.similarity(out[:, None, :], members.reshape(8, 8, 256))
    assert np.all(to_cluster > 0.5)


@pytest.mark.parametrize("name", ["HRR", "MAP-C", "VTB", "GHRR", "MAP-I"])
def test_modern_hopfield_serves_every_model_whose_bundle_is_a_sum(name):
    model = VSA.create(name, dim=256, backend="numpy")
    patterns = model.random(500, seed=16)
    memory = ModernHopfield(model)
    memory.store(patterns)
    noisy = model.from_atoms(
        np.where(
            (np.random.default_rng(17).random((20, 256 // model.atom_size)) < 0.2)[..., None],
            model.atoms(model.random(20, seed=18)),
            model.atoms(patterns[:20]),
        )
    )
    sims = model.similarity_matrix(memory.recall(noisy), patterns)
    assert np.all(np.diag(sims[:, :20]) > 0.99)


def test_modern_hopfield_softmax_is_stable_for_any_beta():
    """The largest score is subtracted before the exponential: no overflow at a huge beta
    (the attention is then one-hot), the uniform attention at a tiny one."""
    model = VSA.create("FHRR", dim=64, backend="numpy")
    patterns = model.random(10, seed=19)
    sharp, flat = ModernHopfield(model, beta=1e6), ModernHopfield(model, beta=1e-6)
    for memory in (sharp, flat):
        memory.store(patterns)
    np.testing.assert_allclose(sharp.weights(patterns), np.eye(10), atol=1e-6)
    np.testing.assert_allclose(flat.weights(patterns[0]), 0.1, atol=1e-5)
    assert np.all(np.isfinite(sharp.recall(patterns, iterations=3)))


# -- errors ------------------------------------------------------------------------------------
def test_unsupported_models_are_refused_naming_the_supported_ones():
    with pytest.raises(TypeError, match=r"Hopfield needs .*\(BSC, FHRR, MAP, MAP-I\); HRR has not"):
        Hopfield(VSA.create("HRR", dim=64))
    with pytest.raises(TypeError, match=r"\(BSC, FHRR, MAP, MAP-I\); MAP-C"):
        Hopfield(VSA.create("MAP-C", dim=64))
    with pytest.raises(TypeError, match=r"ModernHopfield needs .*MAP-C.*; BSDC has not"):
        ModernHopfield(VSA.create("BSDC", dim=64))
    for cls in (Hopfield, ModernHopfield):
        with pytest.raises(TypeError, match="model must be a VSA model"):
            cls("MAP")


@pytest.mark.parametrize("cls", [Hopfield, ModernHopfield])
def test_bad_patterns_cues_and_parameters_are_refused(cls):
    model = VSA.create("MAP", dim=64, backend="numpy")
    memory = cls(model)
    with pytest.raises(ValueError, match="empty: call store"):
        memory.recall(model.random(seed=1))
    with pytest.raises(ValueError, match="patterns must be one vector"):
        memory.store(model.random(4, seed=1).reshape(2, 2, 64))
    with pytest.raises(ValueError, match="shape"):
        memory.store(np.ones((3, 65), np.float32))
    with pytest.raises(TypeError, match="float32, got float64"):
        memory.store(np.ones((3, 64)))
    with pytest.raises(TypeError, match="backend"):
        memory.store([1.0] * 64)
    with pytest.raises(ValueError, match="at least one pattern"):
        memory.store(np.ones((0, 64), np.float32))
    memory.store(model.random(3, seed=1))
    with pytest.raises(TypeError, match="cues: MAP vectors are float32"):
        memory.recall(np.ones(64, np.int32))
    with pytest.raises(ValueError, match="cues must be one vector"):
        memory.recall(np.ones((1, 1, 64), np.float32))
    for bad, error in ((0, ValueError), (-1, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="iterations"):
            memory.recall(model.random(seed=1), iterations=bad)


@pytest.mark.parametrize("cls", [Hopfield, ModernHopfield])
def test_an_empty_batch_of_cues_gets_an_empty_answer(cls):
    model = VSA.create("MAP", dim=64, backend="numpy")
    memory = cls(model)
    memory.store(model.random(5, seed=1))
    none = model.random(2, seed=2)[:0]
    assert memory.recall(none).shape == (0, 64)
    if cls is Hopfield:
        assert memory.energy(none).shape == (0,)
    else:
        assert memory.weights(none).shape == (0, 5)


@pytest.mark.parametrize("cls", [Hopfield, ModernHopfield])
def test_nan_in_patterns_or_cues_is_refused(cls):
    """A NaN pattern would turn every later answer into NaN (softmax) or a wrong vector."""
    model = VSA.create("MAP", dim=64, backend="numpy")
    memory = cls(model)
    bad = model.random(3, seed=1)
    bad[1, 7] = np.nan
    with pytest.raises(ValueError, match="patterns holds NaN"):
        memory.store(bad)
    assert memory.n_patterns == 0
    memory.store(model.random(3, seed=2))
    with pytest.raises(ValueError, match="cues holds NaN"):
        memory.recall(bad)
    bad[1, 7] = np.inf
    with pytest.raises(ValueError, match="cues holds NaN or infinity"):
        memory.recall(bad[1])


def test_bad_beta_and_explicit_are_refused():
    model = VSA.create("MAP", dim=64)
    for bad, error in ((0, ValueError), (-1.0, ValueError), (float("nan"), ValueError), ("1", TypeError)):
        with pytest.raises(error, match="beta"):
            ModernHopfield(model, beta=bad)
    with pytest.raises(TypeError, match="explicit must be True or False"):
        Hopfield(model, explicit=1)


# -- save and load -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["implicit", "explicit", "modern"])
def test_memories_round_trip_through_a_file(tmp_path, kind):
    model = VSA.create("BSC" if kind != "explicit" else "FHRR", dim=128, backend="numpy", seed=3)
    patterns = model.random(10, seed=21)
    memory = (
        ModernHopfield(model, beta=7.5) if kind == "modern" else Hopfield(model, explicit=kind == "explicit")
    )
    cls = type(memory)
    path = tmp_path / "memory.npz"
    cls(model).save(path)
    assert len(cls.load(path, model)) == 0
    memory.store(patterns)
    memory.save(path)
    for loaded in (cls.load(path, model), cls.load(path)):
        assert loaded.model == model and len(loaded) == 10
        cues = flipped(model, patterns, 0.1, seed=22)
        np.testing.assert_allclose(loaded.recall(cues), memory.recall(cues), atol=1e-5)
    if kind == "modern":
        assert cls.load(path).beta == 7.5
    with pytest.raises(ValueError, match="model"):
        cls.load(path, VSA.create("BSC", dim=256))


@pytest.mark.parametrize("cls", [Hopfield, ModernHopfield])
def test_load_refuses_a_model_that_is_not_a_model(tmp_path, cls):
    model = VSA.create("MAP", dim=64, backend="numpy")
    memory = cls(model)
    memory.store(model.random(3, seed=1))
    memory.save(tmp_path / "m.npz")
    for bad in ("MAP", 3):
        with pytest.raises(TypeError, match="model must be a VSA model"):
            cls.load(tmp_path / "m.npz", bad)


@pytest.mark.parametrize("cls", [Hopfield, ModernHopfield])
def test_a_tampered_or_inconsistent_file_is_refused(tmp_path, cls):
    model = VSA.create("MAP", dim=64, backend="numpy")
    patterns = model.random(5, seed=23)
    memory = cls(model)
    memory.store(patterns)
    path = tmp_path / "memory.npz"
    memory.save(path)
    data = bytearray(path.read_bytes())
    data[data.index(patterns.tobytes()) + 9] ^= 0x01
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"checksum|CRC"):
        cls.load(path)
    # a well-formed file whose record disagrees with its arrays
    kind = "memory.hopfield" if cls is Hopfield else "memory.modern_hopfield"
    fields = {"n_patterns": 6, "explicit": False, "beta": 8.0}
    arrays = {"patterns": patterns}
    if cls is Hopfield:
        arrays["weights"] = np.zeros((0, 0), np.float32)
    save_state(path, kind, model, arrays, fields)
    with pytest.raises(ValueError, match=r"shape \(6, 64\)"):
        cls.load(path)
    save_state(path, kind, model, {**arrays, "patterns": patterns * 2}, {**fields, "n_patterns": 5})
    with pytest.raises(ValueError, match="patterns"):
        cls.load(path)
    if cls is Hopfield:
        weights = np.ones((64, 64), np.float32)  # not Hebbian: a non-zero diagonal
        save_state(
            path, kind, model, {"patterns": patterns[:0], "weights": weights}, {**fields, "explicit": True}
        )
        with pytest.raises(ValueError, match="Hebbian"):
            cls.load(path)


def test_answers_do_not_depend_on_the_chunks_of_cues(monkeypatch):
    """Many cues are answered in chunks that bound the temporary memory; one cue per chunk
    gives the answers of one chunk for all."""
    model = VSA.create("MAP", dim=128, backend="numpy")
    patterns = model.random(12, seed=24)
    cues = flipped(model, patterns, 0.2, seed=25)
    nets = (Hopfield(model), ModernHopfield(model, beta=5.0))
    for net in nets:
        net.store(patterns)
    whole = [nets[0].recall(cues), nets[0].energy(cues), nets[1].recall(cues), nets[1].weights(cues)]
    one_at_a_time = functools.partial(common.row_chunks, budget=1)
    monkeypatch.setattr(common, "row_chunks", one_at_a_time)  # (the blocks of both networks)
    chunked = [nets[0].recall(cues), nets[0].energy(cues), nets[1].recall(cues), nets[1].weights(cues)]
    for want, got in zip(whole, chunked, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_hopfield_takes_a_map_i_bundle_as_the_cue_of_its_sign():
    """MAP-I bundles hold integers; the network takes a vector as its state
    ``lift(model.normalize(x))``, so a bundle dominated by one pattern recalls it."""
    model = VSA.create("MAP-I", dim=500, backend="numpy", seed=1)
    patterns = model.random(20, seed=26)
    net = Hopfield(model)
    net.store(patterns)
    bundle = 3 * patterns[2] + model.random(2, seed=27).sum(axis=0)
    np.testing.assert_array_equal(net.recall(bundle), patterns[2])
