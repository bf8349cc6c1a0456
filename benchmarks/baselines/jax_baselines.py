"""JAX baselines: each operation a ``jax.jit``-compiled function, as JAX users write them
(see the package docstring for the interface). Results are asynchronous: the timer
blocks on them."""

from __future__ import annotations

from functools import partial
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np


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
    # (the long item matrix on the left, as holovec: see the README)
    product = items.real @ queries.real.T + items.imag @ queries.imag.T
    return product.T / queries.shape[-1]


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
    return (items @ queries.T).T / queries.shape[-1]


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
    return (b @ q.T).T / queries.shape[-1]


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


_SHIFTS = np.arange(8, dtype=np.uint8)


def _unpack(x: jax.Array) -> jax.Array:
    """0/1 uint8 bits, 8 per byte (bit ``i`` of a byte at position ``i``)."""
    return ((x[..., None] >> _SHIFTS) & 1).reshape(*x.shape[:-1], -1)


def _pack(bits: jax.Array) -> jax.Array:
    """0/1 uint8 bits (a multiple of 8 on the last axis) as bytes."""
    bits = bits.reshape(*bits.shape[:-1], -1, 8)
    return (bits << _SHIFTS).sum(axis=-1, dtype=jnp.uint8)


def _valid_bytes(dim: int) -> np.ndarray:
    """Packed bytes with the bits of the ``dim`` elements set and the padding bits clear."""
    bits = np.zeros(64 * -(-dim // 64), dtype=np.uint8)
    bits[:dim] = 1
    return np.packbits(bits, bitorder="little")


@partial(jax.jit, static_argnums=(1, 2))
def _packed_random(seed: Any, n: int, dim: int) -> jax.Array:
    valid = _valid_bytes(dim)
    return jax.random.bits(jax.random.key(seed), (n, valid.size), jnp.uint8) & valid


@jax.jit
def _packed_bundle(vectors: jax.Array) -> jax.Array:
    # unpack, count, compare, pack; the padding bits are 0, so never a majority
    k = vectors.shape[0]
    counts = _unpack(vectors).sum(axis=0, dtype=jnp.int32)
    return _pack((counts > k // 2).astype(jnp.uint8))


@partial(jax.jit, static_argnums=1)
def _packed_to_floats(x: jax.Array, dim: int) -> jax.Array:
    return 1 - 2 * _unpack(x)[..., :dim].astype(jnp.float32)


@partial(jax.jit, static_argnums=2)
def _packed_similarity_matrix(queries: jax.Array, items: jax.Array, dim: int) -> jax.Array:
    return (items @ queries.T).T / dim


@partial(jax.jit, static_argnums=2)
def _packed_hamming_matrix(queries: jax.Array, items: jax.Array, dim: int) -> jax.Array:
    # uint32 words (uint64 needs x64 mode); lax.map over the queries, as XLA would
    # otherwise keep the whole (queries, items, words) XOR in memory (1.3 GB)
    q = jax.lax.bitcast_convert_type(queries.reshape(queries.shape[0], -1, 4), jnp.uint32)
    b = jax.lax.bitcast_convert_type(items.reshape(items.shape[0], -1, 4), jnp.uint32)

    def one_query(word: jax.Array) -> jax.Array:
        return jnp.sum(jax.lax.population_count(b ^ word), axis=-1, dtype=jnp.int32)

    return 1 - 2 * jax.lax.map(one_query, q).astype(jnp.float32) / dim


@partial(jax.jit, static_argnums=2)
def _packed_similarity(a: jax.Array, b: jax.Array, dim: int) -> jax.Array:
    return 1 - 2 * jnp.sum(jax.lax.population_count(a ^ b), dtype=jnp.int32) / dim


class PackedBSCBaseline(_JaxBaseline):
    """BSC stored as holovec's packed BSC stores it: uint8 rows of ``8 * ceil(dim / 64)``
    bytes, bit ``j`` in bit ``j % 8`` of byte ``j // 8``, the padding bits zero."""

    _random = staticmethod(_packed_random)
    bind = staticmethod(_xor)
    bundle = staticmethod(_packed_bundle)
    #: timed too, and printed under the table: (key, label, method)
    extras: ClassVar[dict[str, tuple[tuple[str, str, str], ...]]] = {
        "similarity_matrix": (
            (
                "hamming",
                "hand-written packed Hamming search (XOR + population_count of uint32 words, "
                "lax.map over the queries)",
                "hamming_matrix",
            ),
        )
    }

    def adopt(self, x: jax.Array, name: str) -> jax.Array:
        """The similarity row's queries and items (``Q``, ``items``) as +1/-1 float32, made
        once and not timed: the float matrix-product search of the same codebook."""
        return _packed_to_floats(x, self.dim) if name in ("Q", "items") else x

    def similarity_matrix(self, queries: jax.Array, items: jax.Array) -> jax.Array:
        # queries, items: the +1/-1 float32 copies made by ``adopt``
        return _packed_similarity_matrix(queries, items, self.dim)

    def hamming_matrix(self, queries: jax.Array, items: jax.Array) -> jax.Array:
        return _packed_hamming_matrix(queries, items, self.dim)

    def similarity(self, a: jax.Array, b: jax.Array) -> jax.Array:
        return _packed_similarity(a, b, self.dim)


BASELINES = {
    "FHRR": FHRRBaseline,
    "MAP": MAPBaseline,
    "BSC": BSCBaseline,
    "BSC-PACKED": PackedBSCBaseline,
}
