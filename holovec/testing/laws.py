"""The algebraic laws that every model states through its flags (the design page,
docs/design.rst, invariant 6): bind inverse, commutativity, self-inverse, identity,
similarity preservation, permutation, bundles of lists and batches, broadcasting and the
shapes of similarities.

Each check takes a model and an optional ``seed`` (the suites over every model use the
default; the law tests of the core models draw it with hypothesis). Where a model has no
inverse or identity (BSDC's CDT binding, which is not invertible) it says so with a
``ValueError``, and the checks accept that only from a model that is not an exact inverse.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..models.base import VSAModel
from ._compare import as_numpy, assert_close, similarity_of

#: the tolerance of laws that hold exactly, up to float rounding for float models
EXACT = 1e-5


def _optional(model: VSAModel, make: Any) -> Any:
    """``make()``, or ``None`` where the model refuses it as having no such vector (allowed
    only where binding is not an exact inverse)."""
    try:
        return make()
    except ValueError:
        assert not model.is_exact_inverse, "an exact inverse has an inverse and an identity vector"
        return None


def check_flags_match_behaviour(model: VSAModel, seed: int = 1) -> None:
    """Each flag is what the model does, measured on 16 pairs of random vectors: exact
    inverse, commutativity, self-inverse and whether binding commutes with permutation.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    a, b = model.random(16, seed=seed), model.random(16, seed=seed + 1)
    round_trip = as_numpy(model, model.similarity(model.unbind(model.bind(a, b), b), a))
    assert (round_trip.min() > 1 - 1e-4) == model.is_exact_inverse, (
        f"is_exact_inverse={model.is_exact_inverse}, but unbind(bind(a, b), b) ~ a has {round_trip.min()}"
    )
    swapped = as_numpy(model, model.similarity(model.bind(a, b), model.bind(b, a)))
    assert (swapped.min() > 1 - 1e-4) == model.is_commutative, (
        f"is_commutative={model.is_commutative}, but bind(b, a) ~ bind(a, b) has {swapped.min()}"
    )
    moved = as_numpy(
        model, model.similarity(model.bind(model.permute(a, 1), b), model.permute(model.bind(a, b), 1))
    )
    assert (moved.min() > 1 - 1e-4) == model.bind_commutes_with_permute, (
        f"bind_commutes_with_permute={model.bind_commutes_with_permute}, but bind(permute(a, 1), b) ~ "
        f"permute(bind(a, b), 1) has {moved.min()}"
    )
    inverse = _optional(model, lambda: model.inverse(b))
    if inverse is not None:
        self_inverse = np.allclose(as_numpy(model, inverse), as_numpy(model, b))
        assert self_inverse == model.is_self_inverse, f"is_self_inverse={model.is_self_inverse}"


def check_bind_inverse(model: VSAModel, seed: int = 1) -> None:
    """Exact inverses give the left operand back (bit for bit for discrete models);
    ``unbind(c, b)`` is ``bind(c, inverse(b))``; a self-inverse model's inverse is the vector
    itself, and binding twice with ``b`` returns ``a`` exactly where (and only where) it is
    self-inverse.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    a, b = model.random(seed=seed), model.random(seed=seed + 1)
    c = model.bind(a, b)
    recovered = model.unbind(c, b)
    if model.is_exact_inverse:
        assert abs(similarity_of(model, recovered, a) - 1.0) < EXACT, "unbind(bind(a, b), b) is a"
        assert_close(model, recovered, a, "unbind(bind(a, b), b)", atol=EXACT)
    inverse = _optional(model, lambda: model.inverse(b))
    if inverse is None:
        return
    with_inverse = model.bind(c, inverse)
    assert_close(model, recovered, with_inverse, "unbind(c, b) is bind(c, inverse(b))", atol=EXACT)
    if model.is_exact_inverse:
        assert abs(similarity_of(model, with_inverse, a) - 1.0) < EXACT, "bind(c, inverse(b)) is a"
    if model.is_self_inverse:
        assert_close(model, inverse, b, "a self-inverse model's inverse(b) is b", atol=0)
        if model.is_exact_inverse:
            assert_close(model, model.bind(c, b), a, "binding twice with b gives a", atol=0)
    elif model.is_exact_inverse:
        # binding twice with b is a * b**2 (FHRR), not a
        assert abs(similarity_of(model, model.bind(c, b), a)) < 0.5, "binding twice with b is not a"


def check_identity(model: VSAModel, seed: int = 1) -> None:
    """``identity()`` is one vector of the model's dtype, neutral on the right (and on the
    left where binding commutes), and its own inverse.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    e = _optional(model, model.identity)
    if e is None:
        return
    a = model.random(seed=seed)
    assert tuple(e.shape) == (model.vector_length,), f"identity() has shape {tuple(e.shape)}"
    assert e.dtype == model.dtype, f"identity() is {e.dtype}, the model's vectors {model.dtype}"
    assert_close(model, model.bind(a, e), a, "bind(a, identity())", atol=EXACT)
    if model.is_commutative:
        assert_close(model, model.bind(e, a), a, "bind(identity(), a)", atol=EXACT)
    assert_close(model, model.inverse(e), e, "the identity is its own inverse", atol=EXACT)


def check_commutativity(model: VSAModel, seed: int = 1) -> None:
    """Commutative models give ``bind(a, b) == bind(b, a)``; the others a dissimilar vector,
    from which ``unbind`` recovers the LEFT operand given the right one, not the other way
    round.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    a, b = model.random(16, seed=seed), model.random(16, seed=seed + 1)
    ab, ba = model.bind(a, b), model.bind(b, a)
    if model.is_commutative:
        assert_close(model, ab, ba, "bind(a, b) == bind(b, a)", atol=EXACT)
        return
    assert as_numpy(model, model.similarity(ab, ba)).max() < 0.5, "bind(b, a) must differ from bind(a, b)"
    assert as_numpy(model, model.similarity(model.unbind(ab, b), a)).mean() > 0.5, "unbind(ab, b) ~ a"
    assert as_numpy(model, model.similarity(model.unbind(ab, a), b)).max() < 0.5, "unbind(ab, a) is not b"


def check_binding_preserves_similarity(model: VSAModel, seed: int = 1) -> None:
    """Binding both vectors with the same key keeps their similarity: exactly (an isometry)
    where binding is an exact inverse, to ``3.2 / sqrt(dim)`` (0.1 at 1,024) where it is an
    approximate one; on either side where binding commutes. A binding without an inverse
    (CDT's thinned OR) states no such law.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    if _optional(model, model.identity) is None:
        return
    a, other, key = model.random(16, seed=seed), model.random(16, seed=seed + 1), model.random(seed=seed + 2)
    b = model.bundle([a, other, model.random(16, seed=seed + 3)])  # related to a: not just about 0
    before = as_numpy(model, model.similarity(a, b))
    tolerance = EXACT if model.is_exact_inverse else 3.2 / math.sqrt(model.dim)
    after = as_numpy(model, model.similarity(model.bind(a, key), model.bind(b, key)))
    np.testing.assert_allclose(after, before, atol=tolerance, err_msg="similarity after binding with a key")
    if model.is_commutative:
        left = as_numpy(model, model.similarity(model.bind(key, a), model.bind(key, b)))
        np.testing.assert_allclose(left, before, atol=tolerance, err_msg="similarity after key-first binding")


#: shifts from a fixed set of interesting values (0, small, negative, past the length): a
#: shift is defined modulo the model's cycle, and JAX compiles one program per shift value
SHIFTS = (0, 1, -1, 5, -7, 31, 1001, -3001)


def check_permute_laws(model: VSAModel, seed: int = 1) -> None:
    """``permute(-k)`` undoes ``permute(k)`` for every shift, shifts compose, a batch is
    permuted row by row, and a permuted key of an exact model is still an exact key.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    x = model.random(seed=seed)
    for shift in SHIFTS:
        p = model.permute(x, shift)
        assert_close(model, model.permute(p, -shift), x, f"permute(permute(x, {shift}), {-shift})", atol=0)
        assert_close(
            model, model.permute(p, 1), model.permute(x, shift + 1), f"shifts {shift} and 1 compose", atol=0
        )
    X = model.random(4, seed=seed + 1)
    P = model.permute(X, 5)
    for i in range(4):
        assert_close(model, P[i], model.permute(X[i], 5), "a batch is permuted row by row", atol=0)
    if model.is_exact_inverse:
        key = model.permute(model.random(seed=seed + 2), 3)
        found = similarity_of(model, model.unbind(model.bind(x, key), key), x)
        assert found > 1 - EXACT, "a permuted key of an exact model is an exact key"


def check_bundle_shapes(model: VSAModel, seed: int = 1) -> None:
    """A bundle of a list equals the bundle of the stacked array; items on axis 0 and batch
    axes after it give one bundle per batch entry.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    items = model.random(15, seed=seed)
    from_list = model.bundle([items[i] for i in range(5)])
    assert_close(model, from_list, model.bundle(items[:5]), "bundle of a list and of an array", atol=EXACT)
    stacked = model.xp.reshape(items, (5, 3, model.vector_length))
    out = model.bundle(stacked)
    assert tuple(out.shape) == (3, model.vector_length), f"a batched bundle has shape {tuple(out.shape)}"
    for j in range(3):
        assert_close(
            model, out[j], model.bundle(stacked[:, j]), "a batched bundle, entry by entry", atol=EXACT
        )


def check_broadcasting(model: VSAModel, seed: int = 1) -> None:
    """Binding one vector with a batch is row-by-row binding (either side), and unbinding
    the batch gives the vector back on every row where the inverse is exact.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    a, B = model.random(seed=seed), model.random(6, seed=seed + 1)
    for got, what in ((model.bind(a, B), "bind(a, B)"), (model.bind(B, a), "bind(B, a)")):
        assert tuple(got.shape) == (6, model.vector_length), f"{what} has shape {tuple(got.shape)}"
    for i in range(6):
        assert_close(model, model.bind(a, B)[i], model.bind(a, B[i]), "bind(a, B) row by row", atol=EXACT)
        assert_close(model, model.bind(B, a)[i], model.bind(B[i], a), "bind(B, a) row by row", atol=EXACT)
    u = model.unbind(model.bind(a, B), B)
    assert tuple(u.shape) == (6, model.vector_length)
    if model.is_exact_inverse:
        for i in range(6):
            assert_close(model, u[i], a, "unbind(bind(a, B), B) row by row", atol=EXACT)


def check_similarity_shapes(model: VSAModel, seed: int = 1) -> None:
    """A batch against one vector gives one score a row, either way round; two vectors a
    0-d array of the backend that formats like a float; outer batches broadcast; and the
    similarity is symmetric.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    a, b = model.random(seed=seed), model.random(seed=seed + 1)
    B = model.random(7, seed=seed + 2)
    s = as_numpy(model, model.similarity(B, a))
    assert s.shape == (7,), f"similarity(B, a) has shape {s.shape}"
    for i in range(7):
        assert abs(float(s[i]) - similarity_of(model, B[i], a)) < 1e-6, "similarity(B, a) row by row"
    assert tuple(model.similarity(a, B).shape) == (7,)
    pair = model.similarity(a, b)
    assert model.backend.is_array(pair), f"similarity of two vectors is a {type(pair)}, not a backend array"
    assert tuple(pair.shape) == ()
    assert f"{pair:.3f}" == f"{float(pair):.3f}", "a similarity formats like a float"
    outer = model.similarity(B[:, None, :], B[None, :, :])
    assert tuple(outer.shape) == (7, 7)
    A, C = model.random(8, seed=seed + 3), model.random(8, seed=seed + 4)
    np.testing.assert_allclose(
        as_numpy(model, model.similarity(A, C)),
        as_numpy(model, model.similarity(C, A)),
        rtol=0,
        atol=1e-6,
        err_msg="similarity is symmetric",
    )


def check_similarity_matrix_chunks(model: VSAModel, seed: int = 1) -> None:
    """``similarity_matrix`` is the brute-force ``similarity`` of every pair, whatever the
    chunk size (one chunk, dividing the items or not, all of them), keeps the queries'
    batch axes, and gives one row for one query vector.

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    Q, B = model.random(5, seed=seed), model.random(10, seed=seed + 1)
    brute = as_numpy(model, model.similarity(Q[:, None, :], B[None, :, :]))
    Qb = model.xp.reshape(model.random(6, seed=seed + 2), (2, 3, model.vector_length))
    brute_b = as_numpy(model, model.similarity(Qb[..., None, :], B))
    for chunk_size in (None, 5, 3, 10):
        S = as_numpy(model, model.similarity_matrix(Q, B, chunk_size=chunk_size))
        assert S.shape == (5, 10), f"similarity_matrix has shape {S.shape}"
        np.testing.assert_allclose(S, brute, rtol=0, atol=EXACT, err_msg=f"chunk_size={chunk_size}")
        if chunk_size in (None, 3):  # batch axes of the queries are kept
            Sb = as_numpy(model, model.similarity_matrix(Qb, B, chunk_size=chunk_size))
            assert Sb.shape == (2, 3, 10)
            np.testing.assert_allclose(Sb, brute_b, rtol=0, atol=EXACT, err_msg=f"chunk_size={chunk_size}")
    assert tuple(model.similarity_matrix(Q[0], B).shape) == (10,), "one query vector gives one row"


def check_normalize(model: VSAModel, seed: int = 1) -> None:
    """``normalize`` of a bundle's raw sum gives vectors of the model's dtype that it keeps
    as they are (idempotent).

    Parameters
    ----------
    model : VSAModel
        The model whose laws are checked.
    seed : int, optional
        The seed of the random vectors the check draws.
    """
    if model.packed:  # a sum of packed bytes is no vector; the unpacked twin is checked
        return
    X = model.random(5, seed=seed)
    raw = X[0] + X[1] + X[2] + X[3]
    once = model.normalize(raw)
    assert once.dtype == model.dtype, f"normalize gives {once.dtype}, the model's vectors {model.dtype}"
    assert_close(model, model.normalize(once), once, "normalize(normalize(x)) is normalize(x)", atol=EXACT)


#: every law check, in the order the conformance suite runs them
LAW_CHECKS = (
    check_flags_match_behaviour,
    check_bind_inverse,
    check_identity,
    check_commutativity,
    check_binding_preserves_similarity,
    check_permute_laws,
    check_bundle_shapes,
    check_broadcasting,
    check_similarity_shapes,
    check_similarity_matrix_chunks,
    check_normalize,
)
