"""Eager JAX runs compiled kernels: each model's private kernels are
compiled once per configuration and shared by equal models; a compiled kernel gives the
same results as the same code run op by op; inside a user's ``jax.jit`` and ``jax.vmap``
the kernels inline and nothing changes; compiled draws give the generator's words bit for
bit (the CPU's host callback and the generator written in jax.numpy for other devices).
Times are in ``benchmarks/jax_eager.py``, never here."""

from __future__ import annotations

import numpy as np
import pytest

from holovec import VSA, kernels
from holovec.random import Purpose, Words, address_words, random_words

jax = pytest.importorskip("jax")
jnp = jax.numpy

from conftest import device_for  # noqa: E402
from holovec.backends.jax_backend import JaxBackend  # noqa: E402 - after the skip

DIM = 64
#: every model, with the options whose kernels differ
CONFIGS = [
    ("FHRR", {}),
    ("MAP", {}),
    ("MAP-C", {}),
    ("MAP-I", {}),
    ("BSC", {}),
    ("BSC", {"packed": True}),
    ("HRR", {}),
    ("HRR", {"unitary": True}),
    ("VTB", {}),
    ("GHRR", {}),
    ("BSDC", {}),
    ("BSDC", {"binding": "cdt", "thinning": "cdt"}),
    ("BSDC-SEG", {}),
    ("BSDC-SEG", {"thinning": "vote"}),
]
IDS = [name + "".join(f"-{k}={v}" for k, v in options.items()) for name, options in CONFIGS]


def create(name, options, **kwargs):
    return VSA.create(name, dim=DIM, backend="jax", device=device_for("jax"), **options, **kwargs)


def operations(model, x, y, z):
    """Every operation of the public API on some vectors; values as NumPy arrays."""
    out = {
        "random": model.random(5, seed=3),
        "random_one": model.random(seed=4),
        "draw": model.draw(3, seed=5, purpose=Purpose.SYMBOLS, stream=7),
        "bind": model.bind(x, y),
        "bind_batch": model.bind(model.random(4, seed=6), y),
        "unbind": model.unbind(model.bind(x, y), y),
        "similarity": model.similarity(x, y),
        "similarity_batch": model.similarity(model.random(4, seed=6), x),
        "bundle_even": model.bundle([x, y, z, model.bind(x, y)]),
        "bundle_odd": model.bundle(model.xp.stack([x, y, z])),
        "permute": model.permute(x, 3),
        "similarity_matrix": model.similarity_matrix(model.random(3, seed=8), model.random(7, seed=9)),
    }
    try:
        out["inverse"] = model.inverse(x)
        out["normalize"] = model.normalize(model.bind(x, model.inverse(y)))
    except ValueError:  # BSDC with CDT binding has no inverse
        pass
    return {k: np.asarray(v) for k, v in out.items()}


@pytest.fixture
def uncompiled(monkeypatch):
    """Run a function with the JAX backend's kernels not compiled (op by op, as before)."""

    def run(fn):
        with monkeypatch.context() as patch:
            patch.setattr(JaxBackend, "jit_kernels", False)
            return fn()

    return run


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_compiled_kernels_equal_op_by_op(name, options, uncompiled):
    def results():
        model = create(name, options, seed=11)
        x, y, z = (model.random(seed=s) for s in (1, 2, 3))
        return model, operations(model, x, y, z)

    reference_model, want = uncompiled(results)
    model, got = results()
    assert "_similarity" not in reference_model.__dict__  # op by op
    assert "_similarity" in model.__dict__  # compiled
    assert got.keys() == want.keys()
    for key in want:
        assert got[key].dtype == want[key].dtype, key
        assert got[key].shape == want[key].shape, key
        # identical where the algebra is exact; continuous models within float rounding
        # (the fused program may round a sum differently, never by more than a few ulps)
        if np.issubdtype(want[key].dtype, np.integer) or name in ("MAP", "MAP-I", "BSC", "BSDC", "BSDC-SEG"):
            np.testing.assert_array_equal(got[key], want[key], err_msg=key)
        else:
            np.testing.assert_allclose(got[key], want[key], rtol=0, atol=2e-6, err_msg=key)


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_equal_models_share_compiled_kernels(name, options, monkeypatch):
    from holovec.kernels import draws

    monkeypatch.setattr(draws, "HOST_DRAW_ELEMENTS", 0)  # compiled draws (small: the host)
    first, second = create(name, options, seed=1), create(name, options, seed=1)
    assert first == second and first is not second
    for kernel in type(first)._compiled_kernels:
        assert first.__dict__[kernel] is second.__dict__[kernel], kernel
    x, y = first.random(seed=1), first.random(seed=2)
    first.similarity(x, y)
    size = first._similarity._cache_size()
    second.similarity(second.random(seed=3), y)
    assert second._similarity._cache_size() == size == 1  # no new compilation
    # another seed: other tie-breaks, so its own kernels, but the same compiled draws
    other = create(name, options, seed=2)
    assert other._bundle is not first._bundle
    other.random(seed=1)
    draw = (first.backend, (first._draw.key, "_random", 1, True))  # (Backend.program's key)
    assert other._kernel_cache[draw] is first._kernel_cache[draw]
    # unseeded draws of a seeded model go through the same program, and stay reproducible
    a, b = create(name, options, seed=5), create(name, options, seed=5)
    np.testing.assert_array_equal(np.asarray(a.random(2)), np.asarray(b.random(2)))
    assert not np.array_equal(np.asarray(a.random(2)), np.asarray(a.random(2)))


@pytest.mark.parametrize(("name", "options"), CONFIGS, ids=IDS)
def test_compiled_kernels_inside_jit_and_vmap(name, options):
    model = create(name, options, seed=3)
    x, y, z = (model.random(seed=s) for s in (1, 2, 3))
    eager = operations(model, x, y, z)

    def pipeline(x, y, z):
        return model.similarity(model.bundle([model.bind(x, y), z, x]), model.unbind(model.bind(x, y), y))

    jitted = jax.jit(pipeline)(x, y, z)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(pipeline(x, y, z)), rtol=0, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(jax.jit(model.bind)(x, y)), eager["bind"])
    # draws inside a user's jit are the same vectors
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda: model.random(5, seed=3))()), eager["random"])
    # vmap over a batch equals the broadcasting op
    X, Y = model.random(4, seed=6), model.random(4, seed=7)
    np.testing.assert_array_equal(np.asarray(jax.vmap(model.bind)(X, Y)), np.asarray(model.bind(X, Y)))
    np.testing.assert_allclose(
        np.asarray(jax.vmap(model.similarity, in_axes=(0, None))(X, x)),
        np.asarray(model.similarity(X, x)),
        rtol=0,
        atol=1e-6,
    )


def test_models_given_to_jit_as_static_arguments_reuse_the_trace():
    @jax.jit
    def bind(model, a, b):
        return model.bind(a, b)

    first, second = create("FHRR", {}, seed=1), create("FHRR", {}, seed=1)
    a, b = first.random(seed=1), first.random(seed=2)
    np.testing.assert_array_equal(np.asarray(bind(first, a, b)), np.asarray(first.bind(a, b)))
    bind(second, a, b)
    assert bind._cache_size() == 1


def test_errors_of_compiled_kernels_are_the_models_own():
    model = create("BSDC", {"binding": "cdt"})
    with pytest.raises(ValueError, match="no inverse"):
        model.inverse(model.random(seed=1))
    fhrr = create("FHRR", {})
    with pytest.raises(TypeError, match="complex64"):
        fhrr.bind(fhrr.random(seed=1), jnp.ones(DIM, jnp.float32))
    with pytest.raises(ValueError, match="shape"):
        fhrr.bind(fhrr.random(seed=1), fhrr.random(2, seed=1)[:, :10])


# -- the generator, compiled --------------------------------------------------------------

U64 = 2**64 - 1
CASES = [
    # seed, n_rows, words_per_row, row_start, stream, purpose
    (0, 6, 8, 0, 0, 0),
    (1, 3, 13, 0, 0, 0),
    (2**128 - 1, 3, 11, 0, 3, 1),
    (123456789, 1, 45, 2**32 + 5, 0, 0),  # the first counter word is past 2**32
    (99, 3, 9, 2**31 - 1, 0, 0),  # the first counter word crosses 2**32 inside the draw
    (7, 2, 17, 2**40 + 1, 2**40 + 7, 2**63),
    (2**100 + 17, 6, 1, 5, U64, U64),
]


@pytest.mark.parametrize("generic", [False, True], ids=["host-callback", "jax-numpy"])
@pytest.mark.parametrize(("seed", "n_rows", "wpr", "row_start", "stream", "purpose"), CASES)
def test_compiled_generator_gives_the_host_words(seed, n_rows, wpr, row_start, stream, purpose, generic):
    """The address as traced words (Words) gives NumPy's C Philox words bit for bit, by the
    CPU's host callback and by the generator in jax.numpy that serves the other devices."""
    backend = VSA.create("MAP", dim=8, backend="jax", device=device_for("jax")).backend

    def words(address):
        seed_, stream_, purpose_ = Words(address[:4]), Words(address[4:6]), Words(address[6:])
        return random_words(
            backend,
            seed_,
            n_rows,
            wpr,
            row_start=row_start,
            stream=stream_,
            purpose=purpose_,
            generic=generic,
        )

    address = jnp.asarray(address_words(seed, stream, purpose))
    got = jax.jit(words)(address)
    want = random_words(backend, seed, n_rows, wpr, row_start=row_start, stream=stream, purpose=purpose)
    assert got.dtype == jnp.uint32 and got.shape == (n_rows, wpr)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
    # and eagerly (the jax.numpy generator's loop also runs op by op)
    if generic:
        np.testing.assert_array_equal(np.asarray(words(address)), np.asarray(want))


def test_address_words():
    words = address_words(2**128 - 1, 2**64 - 1, 5)
    assert words.dtype == np.uint32
    assert words.tolist() == [2**32 - 1] * 6 + [5, 0]
    with pytest.raises(ValueError, match="stream"):
        address_words(1, 2**64, 0)
    with pytest.raises(ValueError, match="seed"):
        address_words(2**128, 0, 0)


@pytest.mark.parametrize("name", ["FHRR", "BSC", "HRR", "BSDC-SEG"])
def test_compiled_draws_without_the_host_generator(name, monkeypatch):
    """The path of GPUs and TPUs (no host callback: the generator in jax.numpy, compiled
    with the model's sampler), tested on the CPU: the same vectors as NumPy's."""
    monkeypatch.setattr(kernels, "philox_words_of", lambda backend, *args: None)
    model = create(name, {}, seed=9)
    reference = VSA.create(name, dim=DIM, backend="numpy", seed=9)
    got, want = np.asarray(model.random(4, seed=2)), reference.random(4, seed=2)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-6)
    np.testing.assert_allclose(np.asarray(model.random()), reference.random(), rtol=0, atol=1e-6)
