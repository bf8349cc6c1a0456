"""Dot products whose rounding depends only on the two vectors (the canonical scores).

Matrix libraries (OpenBLAS, MKL, XLA, cuBLAS) sum a dot product in an order they choose by
CPU, kernel, product shape and thread count, so the same pair of float32 vectors can score
a float step apart from one machine, batch or chunk to the next. Where such scores decide
an order (top-k, ties, the predicted class), holovec recomputes them here, in arithmetic
every backend performs identically:

1. the operands are widened to float64, where the product of two float32 numbers is exact
   (and no sum of such products overflows or underflows: float32 vectors of any finite
   size are safe here; the cosine models' ``score_operand`` divides float64 rows too large
   for these sums by their largest magnitude, see :mod:`holovec.models._magnitude`, and a
   search refuses scores that still overflow);
2. the products are summed by a *pairwise fold* in float64: a row of length ``n`` becomes
   ``x[i] + x[i + n // 2]`` for ``i < n // 2`` (the last element carried when ``n`` is odd),
   repeated until one number is left. Every step is an elementwise IEEE-754 addition,
   correctly rounded on every CPU, GPU and framework;
3. the caller's formula (a division by norms, a clip) runs on the float64 results, and the
   score is rounded once to float32.

The result therefore depends on the two vectors alone, never on the batch, the chunking,
the thread count, the BLAS kernel or the framework. It costs ``n`` multiplications and
additions per pair in float64, which is why it is applied to the few candidates whose
order it decides, not to whole similarity matrices.
"""

from __future__ import annotations

from typing import Any

from . import kernels

#: bytes of float64 products one step of :func:`pair_dots` may hold
CANONICAL_BYTES = 32 * 2**20


def fold_sum(xp: Any, x: Any) -> Any:
    """The sum over the last axis of ``x`` in the fixed pairwise order described above (an
    empty axis sums to 0). Only elementwise additions and slices: the same bits on every
    backend for the same input."""
    n = x.shape[-1]
    if n == 0:
        return xp.sum(x, axis=-1)
    while n > 1:
        half = n // 2
        folded = x[..., :half] + x[..., half : 2 * half]
        x = xp.concat([folded, x[..., 2 * half :]], axis=-1) if n % 2 else folded
        n = x.shape[-1]
    return x[..., 0]


def _wide(backend: Any, x: Any) -> Any:
    return backend.xp.astype(x, backend.dtype("float64"))


def pair_dots(backend: Any, left: Any, right: Any, *, squares: bool = True) -> tuple[Any, Any, Any]:
    """Canonical float64 ``(dots, squares_left, squares_right)`` of real rows: ``left``
    ``(m, w)`` against each of its candidates ``right`` ``(m, c, w)``; results ``(m, c)``,
    ``(m, 1)`` and ``(m, c)`` (``squares=False``: ``None`` for ``squares_right``). Call inside
    ``kernels.float64_scope(backend)``; the caller bounds ``m * c * w``."""
    xp = backend.xp
    lw = _wide(backend, left)[:, None, :]
    rw = _wide(backend, right)
    # fenced: each product rounded on its own before the sum, as in eager arithmetic
    dots = fold_sum(xp, kernels.fence(backend, lw * rw))
    squares_left = fold_sum(xp, kernels.fence(backend, lw * lw))
    squares_right = fold_sum(xp, kernels.fence(backend, rw * rw)) if squares else None
    return dots, squares_left, squares_right


def rounding_margin(width: int, float64: bool = False) -> float:
    """How far a score computed by any matrix library may be from its canonical value, on
    the scale [-1, 1]: a bound for dot products of ``width`` products summed in float32 (or
    float64) in any order, with or without fused multiply-adds (``gamma_w = w u / (1 - w u)``
    for the unit roundoff ``u``, Higham's bound, relative to ``|q| |b|``), taken twice (the
    dot product and the norms it is divided by) plus a few roundings of the formula and of
    the canonical score itself. Reduced-precision products (TF32, bfloat16) are outside it:
    holovec asks every backend for full float32 products."""
    u = 2.0**-53 if float64 else 2.0**-24
    wu = max(1, int(width)) * u
    gamma = wu / (1.0 - wu) if wu < 0.5 else 1.0
    return min(2.0, 2.0 * gamma + 16.0 * u)
