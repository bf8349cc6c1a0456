"""JAX baselines: each operation a ``jax.jit``-compiled function, as JAX users write them
(see the package docstring for the interface). Results are asynchronous: the timer
blocks on them."""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp


def _bits(seed: Any, n: int, dim: int) -> jax.Array:
    """Uniform 0/1 uint8 of shape (n, dim): 32 bits from each random word."""
    words = jax.random.bits(jax.random.key(seed), (n, -(-dim // 32)), jnp.uint32)
    bits = (words[..., None] >> jnp.arange(32, dtype=jnp.uint32)) & 1
    return bits.astype(jnp.uint8).reshape(n, -1)[:, :dim]


@partial(jax.jit, static_argnums=(1, 2))
def _fhrr_random(seed: Any, n: int, dim: int) -> jax.Array:
    phase = jax.random.uniform(jax.random.key(seed), (n, dim), jnp.float32, -jnp.pi, jnp.pi)
    return jax.lax.complex(jnp.cos(phase), jnp.sin(phase))


@jax.jit
def _fhrr_bundle(vectors: jax.Array) -> jax.Array:
    total = vectors.sum(axis=0)
    return total / jnp.abs(total)


@jax.jit
def _fhrr_similarity_matrix(queries: jax.Array, items: jax.Array) -> jax.Array:
    # Re(q . conj(b)) = q_re . b_re + q_im . b_im: two real products, faster under XLA on
    # the CPU than the complex product or one product over concatenated (re, im)
    product = queries.real @ items.real.T + queries.imag @ items.imag.T
    return product / queries.shape[-1]


@jax.jit
def _fhrr_similarity(a: jax.Array, b: jax.Array) -> jax.Array:
    return jnp.vdot(b, a).real / a.shape[-1]


@partial(jax.jit, static_argnums=(1, 2))
def _map_random(seed: Any, n: int, dim: int) -> jax.Array:
    return 1 - 2 * _bits(seed, n, dim).astype(jnp.float32)


@jax.jit
def _map_bundle(vectors: jax.Array) -> jax.Array:
    return jnp.sign(vectors.sum(axis=0))


@jax.jit
def _map_similarity_matrix(queries: jax.Array, items: jax.Array) -> jax.Array:
    return (queries @ items.T) / queries.shape[-1]


@jax.jit
def _map_similarity(a: jax.Array, b: jax.Array) -> jax.Array:
    return (a @ b) / a.shape[-1]


_multiply = jax.jit(jnp.multiply)
_xor = jax.jit(jnp.bitwise_xor)


@partial(jax.jit, static_argnums=(1, 2))
def _bsc_random(seed: Any, n: int, dim: int) -> jax.Array:
    return _bits(seed, n, dim)


@jax.jit
def _bsc_bundle(vectors: jax.Array) -> jax.Array:
    k = vectors.shape[0]
    counts = vectors.sum(axis=0, dtype=jnp.int32)
    return (counts > k // 2).astype(jnp.uint8)


@jax.jit
def _bsc_similarity_matrix(queries: jax.Array, items: jax.Array) -> jax.Array:
    q = 1 - 2 * queries.astype(jnp.float32)
    b = 1 - 2 * items.astype(jnp.float32)
    return (q @ b.T) / queries.shape[-1]


@jax.jit
def _bsc_similarity(a: jax.Array, b: jax.Array) -> jax.Array:
    return 1 - 2 * jnp.count_nonzero(a ^ b) / a.shape[-1]


class _JaxBaseline:
    _random: Any
    bind: Any
    bundle: Any
    similarity_matrix: Any
    similarity: Any

    def __init__(self, dim: int, device: Any = None) -> None:
        self.dim = dim
        self.device = device

    def random(self, n: int, seed: int) -> jax.Array:
        out = type(self)._random(seed, n, self.dim)
        return out if self.device is None else jax.device_put(out, self.device)


class FHRRBaseline(_JaxBaseline):
    _random = staticmethod(_fhrr_random)
    bind = staticmethod(_multiply)
    bundle = staticmethod(_fhrr_bundle)
    similarity_matrix = staticmethod(_fhrr_similarity_matrix)
    similarity = staticmethod(_fhrr_similarity)


class MAPBaseline(_JaxBaseline):
    _random = staticmethod(_map_random)
    bind = staticmethod(_multiply)
    bundle = staticmethod(_map_bundle)
    similarity_matrix = staticmethod(_map_similarity_matrix)
    similarity = staticmethod(_map_similarity)


class BSCBaseline(_JaxBaseline):
    _random = staticmethod(_bsc_random)
    bind = staticmethod(_xor)
    bundle = staticmethod(_bsc_bundle)
    similarity_matrix = staticmethod(_bsc_similarity_matrix)
    similarity = staticmethod(_bsc_similarity)


BASELINES = {"FHRR": FHRRBaseline, "MAP": MAPBaseline, "BSC": BSCBaseline}
