"""The checks of a model's declarations, draws, errors and protocol hooks."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..models.base import VSAModel
from ..models.protocol import ELEMENT_KINDS
from ._compare import as_numpy, assert_close, is_floating, similarity_of
from .encoders import encoder_examples
from .laws import LAW_CHECKS


def check_declarations(model: VSAModel) -> None:
    """The capabilities are declared, of the right types and consistent with each other."""
    assert model.element_kind in ELEMENT_KINDS, (
        f"element_kind {model.element_kind!r} is not one of {ELEMENT_KINDS}"
    )
    for flag in (
        "is_self_inverse",
        "is_commutative",
        "is_exact_inverse",
        "bundle_is_sum",
        "bind_is_elementwise",
        "packed",
        "atoms_exchangeable",
        "has_phasor_form",
    ):
        assert isinstance(getattr(model, flag), bool), f"{flag} must be a bool"
    assert not model.bind_is_elementwise or model.bundle_is_sum, (
        "elementwise binding is stated on lifted sums"
    )
    assert isinstance(model.atom_size, int) and model.atom_size >= 1
    assert model.dim % model.atom_size == 0, "atoms must tile the vector"
    if not model.packed:
        assert model.vector_length == model.dim, "unpacked vectors have one element per slot"


def check_random(model: VSAModel) -> None:
    """Seeded draws: shape, dtype, the model's own check, and row ``i`` independent of ``n``."""
    many, few = model.random(6, seed=3), model.random(2, seed=3)
    assert tuple(many.shape) == (6, model.vector_length)
    assert model.check(many) is many
    assert_close(model, many[:2], few, "random(6)[:2] equals random(2)", atol=0)
    one = model.random(seed=3)
    assert tuple(one.shape) == (model.vector_length,)
    assert_close(model, one, many[0], "random(seed) equals row 0 of random(n, seed)", atol=0)
    drawn = model.draw(3, 3, 0)
    assert_close(model, drawn, many[:3], "draw(n, seed, VECTORS) equals random(n, seed)", atol=0)


def check_similarity_scale(model: VSAModel) -> None:
    """Similarity is 1 for identical vectors, in [-1, 1], about 0 (sparse: small) for unrelated
    ones, and ``similarity_matrix`` agrees with ``similarity``."""
    vs = model.random(8, seed=5)
    self_sim = as_numpy(model, model.similarity(vs, vs))
    np.testing.assert_allclose(self_sim, 1.0, atol=1e-4, err_msg="similarity of a vector with itself")
    unrelated = as_numpy(model, model.similarity(vs[:4], vs[4:]))
    assert np.all(np.abs(unrelated) < 0.5), f"unrelated vectors should be dissimilar, got {unrelated}"
    matrix = as_numpy(model, model.similarity_matrix(vs[:3], vs))
    assert matrix.shape == (3, 8)
    assert np.all(matrix <= 1 + 1e-6) and np.all(matrix >= -1 - 1e-6), "similarities leave [-1, 1]"
    pairwise = np.stack([as_numpy(model, model.similarity(vs[i][None, :], vs)) for i in range(3)])
    np.testing.assert_allclose(matrix, pairwise, atol=1e-5, err_msg="similarity_matrix vs similarity")


def check_bind_laws(model: VSAModel) -> None:
    """Binding gives a dissimilar vector; unbinding recovers the left operand (exactly where
    ``is_exact_inverse``); commutativity and self-inverse as declared."""
    a, b = model.random(2, seed=11)
    c = model.bind(a, b)
    assert abs(similarity_of(model, c, a)) < 0.5, "a binding must be dissimilar to its operand"
    recovered = similarity_of(model, model.unbind(c, b), a)
    if model.is_exact_inverse:
        assert recovered > 0.999, f"exact inverse: unbind(bind(a, b), b) ~ a, got similarity {recovered}"
    else:
        assert recovered > 0.3, f"approximate inverse: unbind(bind(a, b), b) similar to a, got {recovered}"
    swapped = similarity_of(model, model.bind(b, a), c)
    if model.is_commutative:
        assert swapped > 0.999, f"declared commutative, but bind(b, a) ~ bind(a, b) has {swapped}"
    else:
        assert swapped < 0.999, "declared non-commutative, but bind(b, a) equals bind(a, b)"
    if model.is_self_inverse:
        assert_close(model, model.unbind(c, b), model.bind(c, b), "self-inverse: unbind is bind")
    try:
        e = model.identity()
    except ValueError:  # a binding without an inverse (CDT) has no identity either
        assert not model.is_exact_inverse, "an exact inverse has an identity vector"
        return
    assert similarity_of(model, model.bind(a, e), a) > 0.999, "bind with identity() leaves a vector unchanged"


def check_bundle_and_permute(model: VSAModel) -> None:
    """A bundle is similar to each item and not to others; permutations invert."""
    items = model.random(4, seed=21)
    s = model.bundle(items[:3])
    for i in range(3):
        assert similarity_of(model, s, items[i]) > 0.2, "a bundle of 3 must be similar to each item"
    assert similarity_of(model, s, items[3]) < similarity_of(model, s, items[0]), (
        "a bundle is closer to its items"
    )
    assert_close(
        model, model.permute(model.permute(items[0], 3), -3), items[0], "permute(-k) undoes permute(k)", 0
    )
    assert abs(similarity_of(model, model.permute(items[0], 1), items[0])) < 0.5, "a permutation decorrelates"


def check_errors(model: VSAModel) -> None:
    """Wrong shapes raise ValueError, wrong dtypes or array types TypeError, empty bundles
    ValueError, each before any computation."""
    a = model.random(seed=1)
    short = a[..., :-1]
    for call in (
        lambda: model.bind(a, short),
        lambda: model.similarity(short, a),
        lambda: model.check(short),
    ):
        try:
            call()
        except ValueError:
            pass
        else:
            raise AssertionError("a vector of the wrong length must raise ValueError")
    wrong_dtype = model.backend.asarray(np.zeros(model.vector_length, dtype=np.int8))  # no model's dtype
    for bad in ([1, 2, 3], wrong_dtype):
        try:
            model.check(bad, "bad")
        except TypeError as err:
            assert "bad" in str(err), "the error names the argument"
        else:
            raise AssertionError(f"check must refuse {type(bad).__name__} input with TypeError")
    try:
        model.bundle([])
    except ValueError:
        pass
    else:
        raise AssertionError("an empty bundle must raise ValueError")


def check_equality(model: VSAModel) -> None:
    """Models are equal (and hash alike) by configuration; differences are listed."""
    twin = type(model)(
        model.dim,
        model.backend,
        seed=model.seed,
        device=model.device,
        dtype=model.dtype_name,
        **{o: getattr(model, o) for o in model.option_names},
    )
    assert twin == model and hash(twin) == hash(model), "equal configurations give equal models"
    assert model.config_differences(twin) == []


def check_sum_form(model: VSAModel) -> None:
    """``bundle(items) == finish_sum(sum(lift(items)))`` where ``bundle_is_sum``, and
    ``lift(bind(a, b)) == lift(a) * lift(b)`` where ``bind_is_elementwise``."""
    if not model.bundle_is_sum:
        return
    xp = model.xp
    for k in (2, 3):  # an even count exercises the tie-break
        items = model.random(k, seed=31)
        summed = xp.sum(model.lift(items), axis=0)
        assert_close(model, model.finish_sum(summed), model.bundle(items), f"finish_sum of {k} lifted items")
    if model.bind_is_elementwise:
        a, b = model.random(2, seed=32)
        lifted = as_numpy(model, model.lift(model.bind(a, b)))
        product = as_numpy(model, model.lift(a)) * as_numpy(model, model.lift(b))
        np.testing.assert_allclose(lifted, product, atol=1e-5, err_msg="lift(bind(a, b))")


def check_elements_and_atoms(model: VSAModel) -> None:
    """``elements``/``from_elements`` and ``atoms``/``from_atoms`` round-trip, and a mix of
    atoms of two vectors is a vector of the model."""
    a, b = model.random(2, seed=41)
    e = model.elements(a)
    assert tuple(e.shape) == (model.dim,)
    assert_close(model, model.from_elements(e), a, "from_elements(elements(x))", atol=1e-5)
    if not model.atoms_exchangeable:
        try:
            model.atoms(a)
        except TypeError:
            return
        raise AssertionError("atoms() must raise TypeError where atoms_exchangeable is False")
    atoms_a, atoms_b = model.atoms(a), model.atoms(b)
    assert atoms_a.ndim == 2, "atoms of one vector: (n_atoms, atom width)"
    assert_close(model, model.from_atoms(atoms_a), a, "from_atoms(atoms(x))", atol=1e-5)
    n = atoms_a.shape[-2]
    take_b = model.backend.asarray((np.arange(n) % 2 == 0)[:, None])
    mixed = model.from_atoms(model.xp.where(take_b, atoms_b, atoms_a))
    model.check(mixed, "mixed")
    assert similarity_of(model, mixed, a) > 0.2 and similarity_of(model, mixed, b) > 0.2, (
        "a mix resembles both vectors"
    )


def check_phasor_form(model: VSAModel) -> None:
    """Where ``has_phasor_form``: binding adds phases, and ``to_phasors`` inverts ``from_phases``."""
    if not model.has_phasor_form:
        try:
            model.from_phases(None)
        except TypeError:
            return
        raise AssertionError("from_phases must raise TypeError without a phasor form")
    rng = np.random.default_rng(0)
    free = ~model.fixed_phases()
    p, q = (np.where(free, rng.uniform(-np.pi, np.pi, model.phase_count), 0.0) for _ in range(2))
    as_backend = lambda x: model.backend.asarray(x, dtype=model.phase_dtype)  # noqa: E731
    zp, zq, zpq = (model.from_phases(as_backend(x)) for x in (p, q, p + q))
    model.check(zp, "from_phases(p)")
    assert_close(model, model.bind(zp, zq), zpq, "bind adds phases", atol=1e-3)
    assert_close(model, model.to_phasors(zp), np.exp(1j * p), "to_phasors(from_phases(p))", atol=1e-3)
    assert model.phase_weights().shape == (model.phase_count,)


def check_search_protocol(model: VSAModel) -> None:
    """``search_scores(search_index(q), search_index(items))`` equals ``similarity_matrix``."""
    items = model.random(12, seed=51)
    queries = model.random(3, seed=52)
    expected = as_numpy(model, model.similarity_matrix(queries, items))
    index = model.search_index(items)
    assert all(part.shape[0] == 12 for part in index), "every member of the index has the items first"
    scores = as_numpy(model, model.search_scores(model.search_index(queries), index))
    np.testing.assert_allclose(scores, expected, atol=1e-6, err_msg="search_scores vs similarity_matrix")


def check_encoders(model: VSAModel) -> None:
    """Every encoder that ``supports`` the model encodes a small batch into checked vectors;
    every other refuses the model with ``TypeError`` at construction."""
    for cls, make, use in encoder_examples():
        if cls.supports(model):
            out = use(make(model))
            model.check(out, f"{cls.__name__} output")
        else:
            try:
                make(model)
            except TypeError as err:
                assert cls.__name__ in str(err)
            else:
                raise AssertionError(f"{cls.__name__} must refuse a model it does not support")


def model_checks() -> list[Callable[[VSAModel], None]]:
    """The checks that every model must pass, each a function of a model (small ``dim``)."""
    return [
        check_declarations,
        check_random,
        check_similarity_scale,
        check_bind_laws,
        check_bundle_and_permute,
        check_errors,
        check_equality,
        check_sum_form,
        check_elements_and_atoms,
        check_phasor_form,
        check_search_protocol,
        *LAW_CHECKS,
        check_encoders,
    ]


def check_reproducible_across_backends(model: VSAModel, other: VSAModel) -> None:
    """The same seeds give the same vectors on two backends: bit-identical for discrete
    models, to 1e-6 (times a small factor for derived operations) for continuous ones.

    Parameters
    ----------
    model : VSAModel
        The model checked.
    other : VSAModel
        The same model on another backend.
    """
    for seed in (0, 7):
        x, y = as_numpy(model, model.random(5, seed=seed)), as_numpy(other, other.random(5, seed=seed))
        if is_floating(model):
            np.testing.assert_allclose(x, y, atol=1e-6, err_msg=f"random(5, seed={seed})")
        else:
            assert np.array_equal(x, y), f"random(5, seed={seed}) differs across backends"
    a, b = model.random(2, seed=9)
    c, d = other.random(2, seed=9)
    for what, mine, theirs in (
        ("bind", model.bind(a, b), other.bind(c, d)),
        ("bundle", model.bundle([a, b]), other.bundle([c, d])),
    ):
        x, y = as_numpy(model, mine), as_numpy(other, theirs)
        if is_floating(model):
            np.testing.assert_allclose(x, y, atol=1e-5, err_msg=what)
        else:
            assert np.array_equal(x, y), f"{what} differs across backends"
