"""Kanerva's sparse distributed memory: his analysis (activation probability, overlap of
activation sets, the signal-to-noise ratio of a read, capacity, critical distance) checked
against measurement at sizes that run in seconds, then the API on every backend.

Notation (Kanerva 1988, 1993): ``N`` the dimension, ``M`` the number of hard locations,
``r`` the radius, ``p`` the probability that a random address activates a location, ``T``
the number of stored items. The analytic tests run on NumPy (the arithmetic is the same
on every backend, which the backend tests check)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from scipy.stats import binom, norm

from conftest import device_for, to_numpy
from holovec import VSA
from holovec._format.state import save_state
from holovec.memory import SparseDistributedMemory
from holovec.models.registry import models_where
from holovec.testing import ANY_MODEL_DIM

N, M = 256, 2000  # the analytic tests' dimension and number of locations


def _bsc(dim: int = N):
    return VSA.create("BSC", dim=dim, backend="numpy")


def _flip(items: np.ndarray, d: int, seed: int) -> np.ndarray:
    """Each row of 0/1 ``items`` with ``d`` random bits flipped (distance exactly ``d``)."""
    rng = np.random.default_rng(seed)
    where = np.argsort(rng.random(items.shape), axis=1)[:, :d]
    out = items.copy()
    np.put_along_axis(out, where, 1 - np.take_along_axis(items, where, axis=1), axis=1)
    return out


def _overlap_probability(n: int, r: float, d: int) -> float:
    """P[a random location lies within r of both x and y], dist(x, y) = d: of the d bits
    where x and y differ, the location differs from x in i (and from y in d - i); of the
    n - d where they agree, it differs from both in j. Both balls hold it when
    ``i + j <= r`` and ``d - i + j <= r``:
    ``sum_i C(d, i) 2^-d P[Bin(n - d, 1/2) <= r - max(i, d - i)]``."""
    i = np.arange(d + 1)
    return float(np.sum(binom.pmf(i, d, 0.5) * binom.cdf(r - np.maximum(i, d - i), n - d, 0.5)))


def _noise_sd(p: float, t: int) -> float:
    """Kanerva's noise of a read after ``t`` writes of random data: each other item shares
    ``o ~ Bin(Mp, p)`` of the read address's ``Mp`` locations and adds ``+-o``, so the
    variance is ``(t - 1) E[o^2] = (t - 1) (Mp p (1 - p) + (Mp p)^2)``."""
    return float(np.sqrt((t - 1) * (M * p * p * (1 - p) + (M * p * p) ** 2)))


# -- Kanerva's analysis ------------------------------------------------------------------
def test_activation_probability_is_the_binomial_tail():
    """A random address lies within Hamming distance r of a location with probability
    ``p = P[Bin(N, 1/2) <= r]`` (Kanerva 1988; his N = 1000, r = 451 gives p = 0.00107).
    At N = 256, r = 111: p = 0.0195; measured over 400 addresses x 2000 locations. The
    default radius is the one whose p is nearest ``1 / sqrt(M)`` (here 0.0224 -> r = 111)."""
    assert binom.cdf(451, 1000, 0.5) == pytest.approx(0.00107185, rel=1e-5)
    model = _bsc()
    memory = SparseDistributedMemory(model, M, seed=3)
    r = memory.radius
    assert r == 111
    logs = np.abs(np.log(binom.cdf(np.arange(N + 1), N, 0.5)) - np.log(1 / np.sqrt(M)))
    assert r == int(np.argmin(logs))
    p = binom.cdf(r, N, 0.5)
    assert memory.activation_probability == pytest.approx(p, rel=1e-9)
    measured = to_numpy(model, memory.activations(model.random(400, seed=4))).mean()
    assert measured == pytest.approx(p, rel=0.06)  # measured 0.0197 against 0.0195
    # MAP's +-1 vectors have the same Hamming distances
    bipolar = SparseDistributedMemory(VSA.create("MAP", dim=N), M, radius=r, seed=3)
    assert bipolar.activation_probability == pytest.approx(p, rel=1e-9)


def test_overlap_of_activation_sets_follows_the_intersection_of_two_balls():
    """Two addresses at distance d share ``M q(d)`` locations, q the probability that a
    random location lies in both Hamming balls (see ``_overlap_probability``). Kanerva's
    N = 1000, r = 451 gives q/p = 0.445 at d = 50, 0.267 at d = 100, 0.097 at d = 200;
    here N = 256, r = 111, measured over 300 pairs at each d."""
    assert _overlap_probability(1000, 451, 100) / binom.cdf(451, 1000, 0.5) == pytest.approx(0.2667, abs=1e-3)
    model = _bsc()
    memory = SparseDistributedMemory(model, M, seed=3)
    x = model.random(300, seed=5)
    ax = to_numpy(model, memory.activations(x)).astype(float)
    for d in (0, 8, 24, 48, 96):
        y = model.asarray(_flip(to_numpy(model, x), d, seed=d))
        shared = (ax * to_numpy(model, memory.activations(y))).sum(axis=1).mean()
        expected = M * _overlap_probability(N, memory.radius, d)
        assert shared == pytest.approx(expected, rel=0.1, abs=0.3), d  # d=24: 16.8, predicted 17.2


def test_read_bit_error_follows_the_signal_to_noise_ratio():
    """After T writes of random contents at random addresses, a read at a stored address
    sums the item ``Mp`` times (signal) and each other item ``o ~ Bin(Mp, p)`` times with
    a random sign (noise variance ``(T - 1)(Mp p (1 - p) + (Mp p)^2)``): the bit error is
    ``Phi(-Mp / sd)``, Kanerva's ``SNR^2 = M / (1/p + T (1 + M p^2))`` up to the read's own
    count variance. N = 256, M = 2000, p = 0.0195 (Mp = 39): predicted 0.0081, 0.045,
    0.100 at T = 200, 400, 700; measured 0.0091, 0.049, 0.104."""
    model = _bsc()
    memory = SparseDistributedMemory(model, M, seed=3)
    p = binom.cdf(memory.radius, N, 0.5)
    addresses, contents = model.random(700, seed=5), model.random(700, seed=6)
    written = 0
    for t in (200, 400, 700):
        memory.write(addresses[written:t], contents[written:t])
        written = t
        error = np.mean(to_numpy(model, memory.read(addresses[:200])) != to_numpy(model, contents[:200]))
        predicted = norm.cdf(-M * p / _noise_sd(p, t))
        assert error == pytest.approx(predicted, rel=0.2), t
    assert memory.n_written == 700


def test_capacity_reads_are_good_below_the_predicted_number_of_items_and_bad_above():
    """Capacity at a bit error of 1%: ``Mp / sd(T) = 2.326`` gives
    ``T_c = 1 + Mp / (2.326^2 (p (1 - p) + M p^3))`` = 213 for N = 256, M = 2000. At T_c / 2
    reads err in under 0.5% of the bits (measured 0.04%; 1.2% at T_c), at 4 T_c in over 5%
    (12.8%)."""
    model = _bsc()
    memory = SparseDistributedMemory(model, M, seed=3)
    p = binom.cdf(memory.radius, N, 0.5)
    t_c = 1 + M * p / (norm.ppf(0.99) ** 2 * (p * (1 - p) + M * p**3))
    assert t_c == pytest.approx(213, abs=2)
    addresses, contents = model.random(4 * round(t_c), seed=7), model.random(4 * round(t_c), seed=8)

    def error(t: int) -> float:
        memory.clear()
        memory.write(addresses[:t], contents[:t])
        return float(np.mean(to_numpy(model, memory.read(addresses[:t])) != to_numpy(model, contents[:t])))

    assert error(round(t_c / 2)) < 0.005
    assert error(4 * round(t_c)) > 0.05


def test_critical_distance_cues_nearer_converge_farther_do_not():
    """Critical distance (Kanerva 1988, ch. 7): a read at distance d from a stored item
    lands at distance ``d' = N Phi(-M q(d) / sd(T))`` from it (the item's own counters are
    the ``M q(d)`` shared locations); iterated reads converge where ``d' < d``, and the
    critical distance d* is where the curve meets the diagonal. N = 512, M = 4000, T = 100:
    d* = 135. One read from d = 33, 67, 101 lands at 5.1, 33.2, 82.6 (measured 5.6, 35.8,
    87.6). Ten reads from d*/4 reach the item, from 1.5 d* (202) almost never (1%); at this
    size the transition is broad (the active counts vary by item), half converge near
    0.75 d*."""
    n, m, t = 512, 4000, 100
    model = _bsc(n)
    memory = SparseDistributedMemory(model, m, seed=3)
    r = memory.radius
    p = binom.cdf(r, n, 0.5)
    sd = np.sqrt((t - 1) * (m * p * p * (1 - p) + (m * p * p) ** 2))
    after = np.array([n * norm.cdf(-m * _overlap_probability(n, r, d) / sd) for d in range(n // 2)])
    d_star = int(np.nonzero(after[1:] >= np.arange(1, n // 2))[0][0]) + 1
    assert d_star == pytest.approx(135, abs=3)
    items = model.random(t, seed=7)
    memory.write(items, items)
    host = to_numpy(model, items)
    for d in (33, 67, 101):
        once = to_numpy(model, memory.read(model.asarray(_flip(host, d, seed=d))))
        assert (once != host).sum(axis=1).mean() == pytest.approx(after[d], rel=0.15, abs=1.5), d
    near = to_numpy(model, memory.read(model.asarray(_flip(host, d_star // 4, seed=1)), iterations=10))
    assert np.mean((near != host).sum(axis=1) <= 1) >= 0.95
    far = to_numpy(model, memory.read(model.asarray(_flip(host, 3 * d_star // 2, seed=2)), iterations=10))
    assert np.mean((far != host).sum(axis=1) <= d_star // 4) <= 0.05


# -- models and backends -----------------------------------------------------------------
@pytest.mark.parametrize("name", ["BSC", "MAP", "FHRR"])
def test_every_backend_recalls_and_gives_the_same_memory(backend, make_model, name):
    """Every model with a summed bundle, on every backend: items written at their own
    addresses are read back from their addresses and, after three reads, from cues with
    12 of 256 elements replaced; the same seed gives the same locations, radius, counters
    and reads as NumPy (BSC and MAP counters are integers: exactly equal; FHRR's within
    rounding, and its reads are phases of noisy sums, similarity about 0.97)."""
    models = (make_model(name, 256, seed=0), VSA.create(name, dim=256, backend="numpy", seed=0))
    memories = [SparseDistributedMemory(m, 1000, seed=1) for m in models]
    for m, memory in zip(models, memories, strict=True):
        items = m.random(20, seed=2)
        memory.write(items, items)
    model, reference = models
    mine, ref = memories
    items, host = model.random(20, seed=2), reference.random(20, seed=2)
    assert float(to_numpy(model, model.similarity(mine.read(items), items)).min()) > 0.95
    cues = host.copy()
    cues[:, :12] = reference.random(20, seed=3)[:, :12]  # about 6 (BSC, MAP) to 12 (FHRR) changed
    sims = to_numpy(model, model.similarity(mine.read(model.asarray(cues), iterations=3), items))
    assert sims.min() > 0.9 and sims.mean() > 0.95  # an item may settle a few elements off

    assert mine.radius == pytest.approx(ref.radius, rel=1e-6)
    exact = name != "FHRR"
    same = np.testing.assert_array_equal if exact else partial(np.testing.assert_allclose, atol=1e-4)
    same(to_numpy(model, mine.locations), ref.locations)
    np.testing.assert_array_equal(to_numpy(model, mine.activations(items)), ref.activations(host))
    same(to_numpy(model, mine.counters), ref.counters)
    same(to_numpy(model, mine.read(model.asarray(cues))), ref.read(cues))


@pytest.mark.parametrize("name", models_where(lambda cls: cls.bundle_is_sum))
def test_every_model_with_a_summed_bundle_stores_and_reads(name):
    """MAP, MAP-I, MAP-C, BSC, FHRR, HRR, VTB, GHRR: items read back from their addresses
    (MAP-C's clipped sums are the least faithful, similarity about 0.85)."""
    model = VSA.create(name, dim=ANY_MODEL_DIM, seed=0)
    memory = SparseDistributedMemory(model, 300, seed=1)
    items = model.random(10, seed=2)
    memory.write(items, items)
    assert model.backend.to_numpy(model.similarity(memory.read(items), items)).mean() > 0.75


def test_default_radius_of_continuous_models_activates_one_over_sqrt_m():
    """Models whose distances are not binomial take the default radius from the distances
    among the locations: a fresh random address activates about 1 / sqrt(M) of them."""
    for name in ("FHRR", "HRR"):
        model = VSA.create(name, dim=256, seed=0)
        memory = SparseDistributedMemory(model, 400, seed=1)
        measured = model.backend.to_numpy(memory.activations(model.random(300, seed=2))).mean()
        assert measured == pytest.approx(1 / 20, rel=0.15), name
        assert memory.activation_probability == pytest.approx(1 / 20, rel=0.15), name


@pytest.mark.parametrize("name", ["FHRR", "HRR", "VTB", "GHRR", "MAP-C"])
def test_default_radius_is_the_same_on_every_backend(backend, name):
    """The default radius of a continuous model is the same number, bit for bit, on every
    backend and device (NumPy's: drawn and measured on the host in float64, rounded to
    float32), where each backend's own float32 similarities of its own draws differ in
    the last bits (FHRR: the midpoints of NumPy's and JAX's differed by 7e-6)."""
    model = VSA.create(name, dim=ANY_MODEL_DIM, backend=backend, device=device_for(backend))
    reference = VSA.create(name, dim=ANY_MODEL_DIM, backend="numpy")
    for n_locations, seed in ((500, 3), (40, 11)):
        radius = SparseDistributedMemory(model, n_locations, seed=seed).radius
        assert radius == SparseDistributedMemory(reference, n_locations, seed=seed).radius
        assert radius == float(np.float32(radius)) and 0 < radius < ANY_MODEL_DIM / 2


def test_a_read_that_activates_no_location_reads_zero_counters():
    """An address with no location within the radius reads counters of zero: the model's
    ``finish_sum`` of zeros (MAP: its tie-break vector; HRR: the zero vector)."""
    for name in ("MAP", "HRR"):
        model = VSA.create(name, dim=64, seed=0)
        memory = SparseDistributedMemory(model, 50, radius=0, seed=1)
        items = model.random(3, seed=2)
        memory.write(items, items)
        cue = model.random(2, seed=3)
        assert not np.any(model.backend.to_numpy(memory.activations(cue)))
        zeros = model.finish_sum(model.xp.zeros((2, 64), dtype=model.sum_dtype))
        np.testing.assert_array_equal(memory.read(cue), zeros)


def test_chunks_of_addresses_give_the_same_counters_and_reads(monkeypatch):
    """Writes and reads go through chunks of addresses (bounded memory): a chunk of one
    address at a time gives what one chunk gives."""
    import holovec.memory._common as common
    import holovec.memory.sdm as sdm

    model = VSA.create("MAP", dim=64, seed=0)
    items = model.random(7, seed=2)
    whole = SparseDistributedMemory(model, 50, seed=1)
    chunked = SparseDistributedMemory(model, 50, seed=1)
    whole.write(items, model.random(7, seed=3))
    monkeypatch.setattr(sdm, "row_chunks", partial(common.row_chunks, budget=1))
    chunked.write(items, model.random(7, seed=3))
    np.testing.assert_array_equal(chunked.counters, whole.counters)
    np.testing.assert_array_equal(chunked.read(items, iterations=2), whole.read(items, iterations=2))
    np.testing.assert_array_equal(chunked.activations(items), whole.activations(items))


def test_single_vectors_and_clear():
    model = VSA.create("BSC", dim=64, seed=0)
    memory = SparseDistributedMemory(model, 100, radius=28, seed=1)
    x = model.random(seed=2)
    memory.write(x, x)
    assert memory.n_written == 1 and memory.read(x).shape == (64,)
    assert memory.activations(x).shape == (100,)
    np.testing.assert_array_equal(memory.read(x), x)
    memory.clear()
    assert memory.n_written == 0 and not np.any(memory.counters)
    assert "n_locations=100" in repr(memory)


# -- errors --------------------------------------------------------------------------------
def test_unsupported_models_and_bad_parameters_are_refused():
    with pytest.raises(TypeError, match=r"SparseDistributedMemory needs .*BSC, FHRR.*MAP.*; BSDC has not"):
        SparseDistributedMemory(VSA.create("BSDC", dim=256), 10)
    with pytest.raises(TypeError, match="VSA model"):
        SparseDistributedMemory("MAP", 10)
    model = VSA.create("MAP", dim=64)
    for bad, error in ((0, ValueError), (1.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="n_locations"):
            SparseDistributedMemory(model, bad)
    for bad, error in ((-1, ValueError), (65, ValueError), (float("nan"), ValueError), ("1", TypeError)):
        with pytest.raises(error, match="radius"):
            SparseDistributedMemory(model, 10, bad)
    with pytest.raises(TypeError, match="seed"):
        SparseDistributedMemory(model, 10, seed=1.5)


def test_bad_addresses_contents_and_iterations_are_refused():
    model = VSA.create("MAP", dim=64)
    memory = SparseDistributedMemory(model, 10, seed=0)
    x = model.random(3, seed=1)
    with pytest.raises(ValueError, match="same shape"):
        memory.write(x, x[:2])
    with pytest.raises(ValueError, match="addresses"):
        memory.read(model.xp.reshape(model.random(4, seed=1), (2, 2, 64)))
    with pytest.raises(ValueError, match="addresses"):
        memory.read(model.random(2, seed=1)[:, :32])
    with pytest.raises(TypeError, match="contents"):
        memory.write(x, model.xp.astype(x, model.backend.dtype("float64")))
    with pytest.raises(TypeError, match="addresses"):
        memory.read([1.0] * 64)
    for bad, error in ((0, ValueError), (1.0, TypeError)):
        with pytest.raises(error, match="iterations"):
            memory.read(x, iterations=bad)
    nan = to_numpy(model, x).copy()  # a NumPy model: its own arrays
    nan[:, 5] = np.nan
    with pytest.raises(ValueError, match="contents holds NaN"):
        memory.write(x, nan)  # would poison the counters of every location it reaches
    with pytest.raises(ValueError, match="addresses holds NaN"):
        memory.read(nan)
    assert memory.n_written == 0 and not np.any(to_numpy(model, memory.counters))


def test_arrays_of_another_backend_are_refused():
    torch = pytest.importorskip("torch")
    model = VSA.create("MAP", dim=64)
    memory = SparseDistributedMemory(model, 10, seed=0)
    with pytest.raises(TypeError, match="addresses"):
        memory.read(torch.ones(64))


# -- files ---------------------------------------------------------------------------------
def test_save_and_load_give_the_same_memory(tmp_path, backend):
    model = VSA.create("BSC", dim=128, backend=backend, device=device_for(backend), seed=4)
    memory = SparseDistributedMemory(model, 200, seed=2**100 + 7)
    items = model.random(10, seed=1)
    memory.write(items, items)
    memory.save(tmp_path / "sdm")
    path = tmp_path / "sdm.npz"
    for loaded in (SparseDistributedMemory.load(path), SparseDistributedMemory.load(path, model)):
        assert loaded.model == model
        fields = (loaded.n_locations, loaded.radius, loaded.seed, loaded.n_written)
        assert fields == (200, memory.radius, memory.seed, 10)
        for got, want in ((loaded.locations, memory.locations), (loaded.counters, memory.counters)):
            np.testing.assert_array_equal(to_numpy(model, got), to_numpy(model, want))
        want = to_numpy(model, memory.read(items))
        np.testing.assert_array_equal(to_numpy(model, loaded.read(items)), want)
    other = SparseDistributedMemory.load(path, backend="numpy")
    np.testing.assert_array_equal(other.read(to_numpy(model, items)), to_numpy(model, memory.read(items)))


def test_damaged_or_inconsistent_files_are_refused(tmp_path):
    model = VSA.create("MAP", dim=64, seed=0)
    memory = SparseDistributedMemory(model, 20, seed=1)
    memory.write(model.random(5, seed=2), model.random(5, seed=3))
    path = tmp_path / "sdm.npz"
    memory.save(path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(bytes(data))
    with pytest.raises(ValueError):
        SparseDistributedMemory.load(damaged)
    with pytest.raises(ValueError, match="model"):
        SparseDistributedMemory.load(path, VSA.create("MAP", dim=32))
    with pytest.raises(TypeError, match="model must be a VSA model"):
        SparseDistributedMemory.load(path, "MAP")
    fields = {"n_locations": 20, "radius": memory.radius, "seed": "1", "n_written": 5}
    counters = to_numpy(model, memory.counters)
    crafted = (
        ({**fields, "n_locations": 21}, counters),  # counters of 20 locations
        ({**fields, "radius": 100.0}, counters),  # beyond dim
        ({**fields, "seed": -1}, counters),
        ({**fields, "extra": 1}, counters),
        (fields, counters + 0.5),  # MAP counters are sums of +-1
        (fields, np.full_like(counters, 6.0)),  # more than the 5 contents written
        (fields, np.where(counters == counters.flat[0], np.inf, counters).astype(np.float32)),
    )
    for i, (f, c) in enumerate(crafted):
        save_state(tmp_path / f"crafted{i}.npz", "memory.sdm", model, {"counters": c}, f)
        with pytest.raises(ValueError, match="sparse distributed memory"):
            SparseDistributedMemory.load(tmp_path / f"crafted{i}.npz")
