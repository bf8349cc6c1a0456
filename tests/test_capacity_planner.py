"""The capacity planner (holovec.capacity) against measurement, published figures and itself.

Measurement: ``trials`` seeded bundles (or key-value memories), vectorised; an item counts
as found when it scores above every distractor (a tie counts half, as a random tie-break
would). The tolerance is three binomial standard errors, ``3 sqrt(p (1 - p) / trials)``,
counting one sample per trial although every item of a trial is scored: the items of one
bundle share its distractors, so they are not independent, and ``trials`` is the
conservative count.
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from conftest import to_numpy
from holovec import VSA, capacity
from holovec.capacity import hopfield
from holovec.testing import model_variants

DENSE = [v for v in model_variants() if v.name in capacity.supported_models()]
N_ITEMS = 200


def measured_accuracy(model, n_items: int, k: int, query: str, trials: int, seed: int = 0) -> float:
    """The fraction of bundled items (or stored values) found again, ties counted half."""
    codebook = model.random(n_items, seed=100 + seed)
    rng = np.random.default_rng(seed)
    width = model.vector_length
    if query == "member":  # k distinct items per trial; distractors: the other n_items - k
        chosen = np.argsort(rng.random((trials, n_items)), axis=1)[:, :k]
        items = codebook[model.backend.asarray(np.ascontiguousarray(chosen.T).astype(np.int32))]
        scores = to_numpy(model, model.similarity_matrix(model.bundle(items), codebook)).astype(np.float64)
        rows = np.arange(trials)[:, None]
    else:  # k pairs per trial, values drawn with replacement; distractors: n_items - 1 values
        chosen = rng.integers(0, n_items, size=(k, trials))
        keys = model.random(k * trials, seed=200 + seed).reshape(k, trials, width)
        values = codebook[model.backend.asarray(chosen.astype(np.int32))]
        memory = model.bundle(model.bind(values, keys))
        reads = model.unbind(memory[None], keys).reshape(k * trials, width)
        scores = to_numpy(model, model.similarity_matrix(reads, codebook)).astype(np.float64)
        rows, chosen = np.arange(k * trials)[:, None], chosen.reshape(-1, 1)
    mine = scores[rows, chosen]
    others = scores.copy()
    others[rows, chosen] = -np.inf
    best = others.max(axis=1, keepdims=True)
    return float(np.mean((mine > best) + 0.5 * (mine == best)))


def check_against_measurement(model, k: int, query: str, trials: int) -> None:
    planned = capacity.accuracy(model, model.dim, N_ITEMS, k, query=query)
    found = measured_accuracy(model, N_ITEMS, k, query, trials)
    tolerance = 3 * math.sqrt(planned * (1 - planned) / trials)
    assert abs(found - planned) <= tolerance, (
        f"{model.name} {query} dim {model.dim} k {k}: planned {planned:.4f}, measured {found:.4f}"
    )


@pytest.mark.parametrize("query,k", [("member", 15), ("lookup", 8)])
@pytest.mark.parametrize("variant", DENSE, ids=lambda v: v.id)
def test_planner_matches_measurement_for_every_model(variant, query, k):
    """At the dimension the planner gives for 90 % (where a wrong plan shows most), the
    measured accuracy is the planned one within three binomial standard errors."""
    dim = capacity.dimension(variant.name, N_ITEMS, k, 0.9, query=query, **variant.options)
    model = variant.create(dim)
    planned = capacity.accuracy(model, dim, N_ITEMS, k, query=query)
    assert 0.9 <= planned < 0.97  # an informative point: neither chance nor certainty
    check_against_measurement(model, k, query, trials=600)


@pytest.mark.parametrize("name", ["MAP", "FHRR", "BSC"])
@pytest.mark.parametrize("query", ["member", "lookup"])
def test_planner_matches_measurement_on_every_backend(make_model, name, query):
    """The same plan holds on NumPy, PyTorch and JAX (the statistics are computed on NumPy)."""
    model = make_model(name, 192 if name == "FHRR" else 384)
    check_against_measurement(model, 10, query, trials=200)


def test_planner_answers_do_not_depend_on_backend_dim_or_seed(backend, make_model):
    model = make_model("MAP", 64, seed=5)
    assert capacity.accuracy(model, 500, 1000, 15) == capacity.accuracy("MAP", 500, 1000, 15)
    assert capacity.dimension(model, 1000, 15) == capacity.dimension("map", 1000, 15)


def test_statistics_are_deterministic():
    before = capacity.bundle_statistics("FHRR", 7, query="lookup")
    capacity.statistics.bundle_statistics.cache_clear()
    assert capacity.bundle_statistics("FHRR", 7, query="lookup") == before


def _peak_bytes(call) -> int:
    """The peak of the memory that ``call()`` allocates (NumPy's arrays included)."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("query", ["member", "lookup", "symmetric"])
def test_statistics_take_memory_that_does_not_grow_with_k(query):
    """A bundle too large for a chunk is summed a block of items at a time, never held
    whole: measuring bundles of 32,769 takes no more memory than bundles of 8,193 (the
    whole bundle's items were 16 k kilobytes at the calibration dimension)."""
    from holovec.models.registry import model_class

    cls = model_class("MAP")
    statistics = capacity.statistics
    statistics.calibration_model(cls, ())  # (made once, outside the measurement)
    small, large = (
        _peak_bytes(lambda k=k: statistics.bundle_statistics.__wrapped__(cls, (), k, query))
        for k in (2**13 + 1, 2**15 + 1)
    )
    assert large <= small + 4 * 2**20, (small, large)


@pytest.mark.parametrize("name,query", [("MAP", "member"), ("FHRR", "lookup")])
def test_statistics_of_large_bundles_are_the_theorys(name, query):
    """Bundles summed in blocks (their items' mean score recovered from the sums) score as
    the theory says: MAP's sign bundle of k (odd) the central binomial coefficient, FHRR's
    phase bundle ``E|sum of k unit phasors| / k = sqrt(pi / (4 k))``, read exactly by
    ``unbind``; unrelated vectors score ``N(0, 1 / dim)`` (FHRR: ``1 / (2 dim)``)."""
    k = 2**13 + 1
    stats = capacity.bundle_statistics(name, k, query=query)
    if name == "MAP":
        mean, spread = math.comb(k - 1, (k - 1) // 2) / 2 ** (k - 1), 1.0
    else:
        mean, spread = math.sqrt(math.pi / (4 * k)), math.sqrt(0.5)
    assert stats.item_mean == pytest.approx(mean, rel=0.05)
    assert stats.item_spread == pytest.approx(spread, rel=0.05)
    assert abs(stats.other_mean) < 0.003 and stats.other_spread == pytest.approx(spread, rel=0.05)


@pytest.mark.parametrize("k", [3, 15, 31])
def test_sign_bundle_statistics_are_the_central_binomial_coefficient(k):
    """A sign bundle of k (odd) +-1 items agrees with an item in a fraction of its elements
    that gives the mean score C(k-1, (k-1)/2) / 2^(k-1) (about sqrt(2 / (pi k))); an
    unrelated vector scores 0 with spread 1 / sqrt(dim); FHRR's with sqrt(1 / (2 dim))."""
    stats = capacity.bundle_statistics("MAP", k)
    assert stats.item_mean == pytest.approx(math.comb(k - 1, (k - 1) // 2) / 2 ** (k - 1), rel=0.01)
    assert stats.item_spread == pytest.approx(math.sqrt(1 - stats.item_mean**2), rel=0.03)
    assert abs(stats.other_mean) < 0.003 and stats.other_spread == pytest.approx(1.0, rel=0.03)
    assert capacity.bundle_statistics("FHRR", k).other_spread == pytest.approx(math.sqrt(0.5), rel=0.03)


@pytest.mark.parametrize("n,m,d", [(300, 40, 64), (500, 60, 256), (1000, 150, 128)])
def test_linear_sum_lookup_matches_frady_closed_form(n, m, d):
    """Frady, Kleyko and Sommer (2018): m bound pairs summed (MAP-I) in n dimensions, read
    among d values: p = integral phi(h) Phi(h + sqrt(n / m))^(d - 1) dh."""
    from scipy import integrate, stats

    snr = math.sqrt(n / m)
    theory = integrate.quad(lambda h: stats.norm.pdf(h) * stats.norm.cdf(h + snr) ** (d - 1), -12, 12)[0]
    assert capacity.accuracy("MAP-I", n, d, m, query="lookup") == pytest.approx(theory, abs=0.015)


@pytest.mark.parametrize(
    "name,published", [("MAP", 800), ("BSC", 800), ("FHRR", 350)], ids=["MAP", "BSC", "FHRR"]
)
def test_published_bundle_capacity(name, published):
    """Schlegel, Neubert and Protzel (2022), bundle capacity: k = 15 of 1,000 items found at
    99 % needs about 800 dimensions for MAP and BSC and 350 for FHRR (read off their plot,
    where dims go in coarse steps, so the published figures are upper ends): the planner
    is within 15 %."""
    dim = capacity.dimension(name, 1000, 15, 0.99)
    assert abs(dim - published) <= 0.15 * published, f"{name}: planned {dim}, published about {published}"


@pytest.mark.parametrize("query", ["member", "lookup"])
@pytest.mark.parametrize("name,target", [("MAP", 0.99), ("FHRR", 0.9), ("VTB", 0.999), ("HRR", 0.5)])
def test_dimension_and_accuracy_are_inverses(name, target, query):
    dim = capacity.dimension(name, 500, 12, target, query=query)
    assert capacity.accuracy(name, dim, 500, 12, query=query) >= target
    below = dim - 1
    if name == "VTB":  # a square: the square below misses
        assert math.isqrt(dim) ** 2 == dim
        below = (math.isqrt(dim) - 1) ** 2
    assert capacity.accuracy(name, below, 500, 12, query=query) < target


@pytest.mark.parametrize("query", ["member", "lookup"])
@pytest.mark.parametrize("name", ["MAP", "FHRR"])
def test_max_items_inverts_accuracy(name, query):
    k = capacity.max_items(name, 400, 300, 0.95, query=query)
    assert 5 < k < 300
    assert capacity.accuracy(name, 400, 300, k, query=query) >= 0.95
    assert capacity.accuracy(name, 400, 300, k + 1, query=query) < 0.95
    assert capacity.max_items(name, 4, 300, 0.999, query=query) == 0


@pytest.mark.parametrize("query", ["member", "lookup"])
@pytest.mark.parametrize("name", ["MAP", "FHRR", "HRR"])
def test_accuracy_is_monotone(name, query):
    """More dimensions help; more items bundled and more candidates hurt."""
    by_dim = [capacity.accuracy(name, dim, 300, 10, query=query) for dim in (64, 128, 256, 512)]
    by_k = [capacity.accuracy(name, 256, 300, k, query=query) for k in (2, 4, 8, 16, 32)]
    by_n = [capacity.accuracy(name, 256, n, 10, query=query) for n in (20, 100, 1000, 10000)]
    assert by_dim == sorted(by_dim) and by_dim[0] < by_dim[-1]
    assert by_k == sorted(by_k, reverse=True) and by_k[0] > by_k[-1]
    assert by_n == sorted(by_n, reverse=True) and by_n[0] > by_n[-1]


def test_hopfield_critical_load_is_ags():
    """Amit, Gutfreund and Sompolinsky (1985): retrieval states exist up to the load
    alpha_c = 0.138, where the overlap is m = 0.967 (1.6 % of the bits wrong)."""
    assert capacity.hopfield_critical_load() == pytest.approx(0.138, abs=5e-4)
    assert capacity.hopfield_capacity(10_000) == 1379
    y_c = hopfield.critical_point()[0]
    assert math.erf(y_c) == pytest.approx(0.967, abs=1e-3)
    errors = [capacity.hopfield_error(p, 1000) for p in (0, 50, 100, 130, 137)]
    assert errors[0] == 0 and errors == sorted(errors) and 0.01 < errors[-1] < 0.0163
    assert capacity.hopfield_error(139, 1000) == 0.5
    # the equations themselves: m = erf(m / sqrt(2 alpha r)), r = 1 / (1 - C)^2
    alpha, m = 0.1, 1 - 2 * capacity.hopfield_error(100, 1000)
    y = m / math.sqrt(2 * alpha)  # solve for r by fixed point from the C equation
    for _ in range(200):
        c = math.sqrt(2 / math.pi) * (y * math.sqrt(2) / m) * math.exp(-(y**2))
        y = m * (1 - c) / math.sqrt(2 * alpha)
    assert math.erf(y) == pytest.approx(m, abs=1e-6)


def test_sparse_models_are_refused_with_the_supported_ones():
    for name in ("BSDC", "BSDC-SEG"):
        with pytest.raises(TypeError, match=r"dense model \(.*MAP.*\).*sparse"):
            capacity.dimension(name, 100, 5)


@pytest.mark.parametrize(
    "call,error,match",
    [
        (lambda: capacity.accuracy("MAP", 512, 100, 101), ValueError, "k must be at most n_items"),
        (lambda: capacity.accuracy("MAP", 512, 100, 0), ValueError, "k must be a positive int"),
        (lambda: capacity.accuracy("MAP", 0, 100, 5), ValueError, "dim must be a positive int"),
        (lambda: capacity.accuracy("MAP", 512, 100, 2.5), TypeError, "k must be"),
        (lambda: capacity.accuracy("MAP", 512, 100, 5, query="recall"), ValueError, "query must be one of"),
        (
            lambda: capacity.dimension("MAP", 100, 5, 1.0),
            ValueError,
            r"accuracy must be a probability \(a finite number in \(0, 1\)\)",
        ),
        (lambda: capacity.dimension("MAP", 100, 5, 0), ValueError, "accuracy must be"),
        (lambda: capacity.dimension("MAP", 100, 5, True), TypeError, "accuracy must be a probability"),
        (lambda: capacity.max_items("MAP", 512, 100, float("nan")), ValueError, "accuracy must be a prob"),
        (lambda: capacity.accuracy(42, 512, 100, 5), TypeError, "model must be a model or a model name"),
        (lambda: capacity.accuracy("NOPE", 512, 100, 5), ValueError, "NOPE"),
        (lambda: capacity.accuracy("MAP", 512, 100, 5, colour=1), TypeError, "colour"),
        (lambda: capacity.accuracy("GHRR", 512, 100, 5, m=[2]), TypeError, "options must be plain values"),
        (lambda: capacity.accuracy(VSA.create("HRR", 64), 256, 100, 5, unitary=True), TypeError, "name"),
    ],
)
def test_bad_input_is_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()
