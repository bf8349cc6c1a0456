"""Vectors are the frameworks' own arrays, so model operations go through ``jax.jit``,
``jax.vmap``, ``jax.grad``, ``torch.compile`` and torch autograd (the design page,
docs/design.rst: the public API)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import device_for
from holovec import VSA

DIM = 512

# torch.compile imports torch.jit internals that warn about their own deprecation
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")


@pytest.fixture
def jax():
    return pytest.importorskip("jax")


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def bind_bundle_similarity(model, a, b, c):
    """A small pipeline through every core operation, with an even (tied) bundle."""
    x = model.bind(a, b)
    y = model.permute(model.unbind(x, c), 3)
    s = model.bundle([x, y, c, a])
    return model.similarity(s, x), model.similarity_matrix(s, model.xp.stack([a, b, c, x]))


def inputs(model):
    return model.random(seed=1), model.random(seed=2), model.random(seed=3)


def assert_close(got, want, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=0, atol=atol)


# -- JAX ---------------------------------------------------------------------------------


def test_jax_jit_closed_over_model(jax, model_name):
    model = VSA.create(model_name, dim=DIM, backend="jax", device=device_for("jax"), seed=4)
    a, b, c = inputs(model)
    eager = bind_bundle_similarity(model, a, b, c)
    jitted = jax.jit(lambda a, b, c: bind_bundle_similarity(model, a, b, c))(a, b, c)
    for got, want in zip(jitted, eager, strict=True):
        assert isinstance(got, jax.Array)
        assert got.shape == want.shape
        assert_close(got, want)
    # the backend's own jit hook does the same
    hooked = model.backend.jit(lambda a, b, c: bind_bundle_similarity(model, a, b, c))(a, b, c)
    for got, want in zip(hooked, eager, strict=True):
        assert_close(got, want)


def test_jax_jit_model_as_argument(jax, model_name):
    """Models are static pytrees: they can be passed to a jitted function directly."""
    model = VSA.create(model_name, dim=DIM, backend="jax", device=device_for("jax"), seed=4)
    a, b, c = inputs(model)
    jitted = jax.jit(bind_bundle_similarity)
    eager = bind_bundle_similarity(model, a, b, c)
    for got, want in zip(jitted(model, a, b, c), eager, strict=True):
        assert_close(got, want)
    # a second model of the same kind (another seed, so other tie-breaks) is a new static value
    other = VSA.create(model_name, dim=DIM, backend="jax", device=device_for("jax"), seed=5)
    for got, want in zip(jitted(other, a, b, c), bind_bundle_similarity(other, a, b, c), strict=True):
        assert_close(got, want)


def test_jax_vmap(jax, model_name):
    model = VSA.create(model_name, dim=DIM, backend="jax", device=device_for("jax"))
    _, b, c = inputs(model)
    X = model.random(6, seed=9)
    mapped = jax.vmap(lambda x: bind_bundle_similarity(model, x, b, c)[0])(X)
    assert mapped.shape == (6,)
    looped = np.array([float(bind_bundle_similarity(model, X[i], b, c)[0]) for i in range(6)])
    assert_close(mapped, looped)
    # vmap of bind over both arguments equals the broadcasting op
    Y = model.random(6, seed=10)
    assert_close(jax.vmap(model.bind)(X, Y), model.bind(X, Y), atol=1e-6)
    # and jit of vmap
    jitted = jax.jit(jax.vmap(lambda x: model.similarity(model.bind(x, b), c)))(X)
    assert_close(jitted, model.similarity(model.bind(X, b), c))


@pytest.mark.parametrize("model_name", ["FHRR", "MAP"])
def test_jax_grad_through_similarity(jax, model_name):
    jnp = jax.numpy
    model = VSA.create(model_name, dim=DIM, backend="jax", device=device_for("jax"))
    a, b, _ = inputs(model)
    # d/dt sim(t * a, b) = sim(a, b)
    grad_t = jax.grad(lambda t: model.similarity(a * t, b))(jnp.float32(2.0))
    assert_close(grad_t, model.similarity(a, b), atol=1e-6)
    if model_name == "MAP":
        # d/dx sim(x, b) = b / dim
        grad_x = jax.grad(lambda x: model.similarity(x, b))(a)
        assert_close(grad_x, b / DIM, atol=1e-7)
    else:
        # sim(exp(i theta), b) = mean(cos(theta - phi_b)): gradient -sin(theta - phi_b) / dim
        theta = jnp.angle(a)
        grad_theta = jax.grad(lambda th: model.similarity(jnp.exp(1j * th).astype(model.dtype), b))(theta)
        assert_close(grad_theta, -jnp.sin(theta - jnp.angle(b)) / DIM, atol=1e-7)
    # grad under jit
    jitted = jax.jit(jax.grad(lambda t: model.similarity(a * t, b)))(jnp.float32(0.5))
    assert_close(jitted, grad_t, atol=1e-6)


# -- PyTorch -----------------------------------------------------------------------------


# Inductor (the default torch.compile backend, C++ code generation on the CPU) for the real
# models; it generates no code for complex numbers and only falls back to eager kernels for
# FHRR, so FHRR compiles with "aot_eager": the same graph capture (Dynamo + AOTAutograd),
# without paying inductor's C++ compile (several seconds) for nothing.
COMPILE_BACKEND = {"MAP": "inductor", "BSC": "inductor", "FHRR": "aot_eager"}


def test_torch_compile(torch, model_name):
    model = VSA.create(model_name, dim=DIM, backend="torch", device=device_for("torch"), seed=4)
    a, b, c = inputs(model)
    eager = bind_bundle_similarity(model, a, b, c)
    compiled = torch.compile(
        lambda a, b, c: bind_bundle_similarity(model, a, b, c),
        backend=COMPILE_BACKEND[model_name],
        fullgraph=True,
    )
    got = compiled(a, b, c)
    for g, w in zip(got, eager, strict=True):
        assert isinstance(g, torch.Tensor)
        assert g.shape == w.shape
        assert_close(g.detach(), w, atol=1e-5)
    # other inputs of the same shapes reuse the compiled function
    d = model.random(seed=7)
    for g, w in zip(compiled(d, b, c), bind_bundle_similarity(model, d, b, c), strict=True):
        assert_close(g.detach(), w, atol=1e-5)


def test_torch_autograd_through_map_similarity(torch):
    model = VSA.create("MAP", dim=DIM, backend="torch", device=device_for("torch"))
    a, b, _ = inputs(model)
    x = a.clone().requires_grad_(True)
    s = model.similarity(x, b)
    s.backward()
    assert_close(x.grad, b / DIM, atol=1e-7)
    # through bind and a learnable scale: d/dt sim(bind(t * a, c), bind(b, c)) = sim(a, b)
    t = torch.tensor(2.0, requires_grad=True)
    c = model.random(seed=3)
    model.similarity(model.bind(a * t, c), model.bind(b, c)).backward()
    assert_close(t.grad, model.similarity(a, b), atol=1e-6)
    # similarity_matrix too: batch of queries against a codebook
    Q = model.random(3, seed=5).requires_grad_(True)
    B = model.random(4, seed=6)
    model.similarity_matrix(Q, B).sum().backward()
    assert_close(Q.grad, (B.sum(0) / DIM).expand(3, DIM), atol=1e-6)


def test_torch_autograd_through_fhrr_similarity(torch):
    model = VSA.create("FHRR", dim=DIM, backend="torch", device=device_for("torch"))
    a, b, _ = inputs(model)
    theta = torch.angle(a).detach().requires_grad_(True)
    model.similarity(torch.polar(torch.ones_like(theta), theta), b).backward()
    expected = -torch.sin(theta.detach() - torch.angle(b)) / DIM
    assert_close(theta.grad, expected, atol=1e-7)


def test_encoder_and_model_as_jax_jit_arguments():
    """The JIT snippet of the backends guide: an encoder and a model passed to jax.jit."""
    jax = pytest.importorskip("jax")
    from holovec import VSA
    from holovec.encoders import FractionalPowerEncoder

    model = VSA.create("FHRR", dim=1000, backend="jax")
    encoder = FractionalPowerEncoder(model, 0, 1, seed=1)

    @jax.jit
    def process_batch(encoder, model, items):
        hvs = [encoder.encode(item) for item in items]
        return model.bundle(hvs)

    batch = [0.1, 0.2, 0.3]
    eager = model.bundle([encoder.encode(v) for v in batch])
    assert float(model.similarity(process_batch(encoder, model, batch), eager)) > 0.9999
