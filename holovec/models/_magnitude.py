"""Dot products that neither overflow nor underflow: rows divided by their largest magnitude.

The squared norm of a float32 vector overflows once its elements pass about
``1.8e19 / sqrt(width)``, and underflows to 0 below about ``1e-23``: HRR vectors scaled
by 1e20 (finite, and accepted everywhere) had similarity NaN with themselves, and a
search of them crashed on the NaN scores. So before its dot products, a model divides
each row whose largest magnitude lies outside a safe range (:class:`SafeRange`) by that
magnitude, which brings the row's squared norm into ``[1, width]``. Cosines do not change
under such factors; the dot-product scores of MAP and FHRR take the divisors into their
formula (:func:`holovec.models._search.dot_similarity`).

Rows inside the range are not touched, so ordinary vectors score as before, bit for bit.
Whether any row may be outside is read from the squared norms (or dot products) the score
computes anyway, a test that proves every row inside at no extra pass; only where it fails
are the largest magnitudes computed and the sums made again. Under a trace the backend
branches in the compiled program where it can (``kernels.cond``: JAX), else, as in a lazy
graph (Dask), the division is always made (by exactly 1 for the rows inside).
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import kernels


@dataclass(frozen=True)
class SafeRange:
    """Squared norms ``low <= |x|**2 <= high`` whose dot products are accurate to the
    dtype's rounding: no partial sum overflows, and the products that underflow are too
    small to matter."""

    low: float
    high: float

    def magnitudes(self, width: int) -> tuple[float, float]:
        """The largest magnitudes ``m`` of rows of ``width`` elements that are surely in the
        range (``m**2 <= |x|**2 <= width * m**2``): ``sqrt(low) <= m <= sqrt(high / width)``."""
        return math.sqrt(self.low), math.sqrt(self.high / max(1, width))

    def holds_all(self, width: int) -> tuple[float, float]:
        """Bounds of squared norms that prove every row's largest magnitude inside
        :meth:`magnitudes`: ``width * low <= |x|**2 <= high / width``."""
        width = max(1, width)
        return width * self.low, self.high / width


#: cosines: the squared norms and the dot products (at most their geometric mean) stay
#: below the largest float by a margin, and above the smallest normal float by enough that
#: the subnormal products of a row (each off by half a subnormal step) do not count
COSINE_RANGE = {"float32": SafeRange(2.0**-78, 2.0**124), "float64": SafeRange(2.0**-980, 2.0**1020)}
#: dot-product scores that multiply two squared norms (``sqrt(|a|**2 |b|**2)``): each at most
#: the square root of the largest float; small rows need no care (their score is about 0)
PRODUCT_RANGE = {"float32": SafeRange(0.0, 2.0**62), "float64": SafeRange(0.0, 2.0**510)}


def largest_magnitudes(xp: Any, x: Any) -> Any:
    """``max |x|`` over the last axis (complex rows: the largest modulus, which bounds every
    real and imaginary part; measured: XLA on the CPU fused the two maxima of the parts
    with the dot products, outside the branch that needs them)."""
    return xp.max(xp.abs(x), axis=-1)


def row_divisors(xp: Any, x: Any, safe: SafeRange) -> Any:
    """Per row (``x.shape[:-1]``): its largest magnitude where that lies outside ``safe``
    (and is not 0: a zero row stays as it is), else exactly 1."""
    largest = largest_magnitudes(xp, x)
    low, high = safe.magnitudes(x.shape[-1])
    outside = (largest > high) | ((largest < low) & (largest > 0))
    return xp.where(outside, largest, xp.ones_like(largest))


def within_range(
    backend: Any, x: Any, squares_of: Callable[[Any], Any], safe: SafeRange
) -> tuple[Any, Any, Any | None]:
    """``(x, squares, None)`` where every row of ``x`` is inside ``safe``, else
    ``(x / divisors, its squared norms, divisors)`` (:func:`row_divisors`; ``x``'s rows on
    the last axis, ``squares_of`` their squared norms, real). Under a trace the divisors
    come back in both cases (1 for every row inside). Call it in :func:`quiet_overflow`
    (NumPy warns of the overflow it detects)."""
    squares = squares_of(x)
    traced = backend.lazy or backend.is_traced(squares)
    return choose(
        backend,
        (squares,),
        x.shape[-1],
        safe,
        lambda: (x, squares, backend.xp.ones_like(squares) if traced else None),
        lambda: divided_rows(backend, x, squares_of, safe),
    )


def choose(
    backend: Any,
    squares: tuple[Any, ...],
    width: int,
    safe: SafeRange,
    inside: Callable[[], Any],
    outside: Callable[[], Any],
) -> Any:
    """``inside()`` where the squared norms ``squares`` (of rows of ``width`` elements)
    prove every row inside ``safe``, else ``outside()`` (which must also be right for rows
    inside: under a trace it may run in any case, and both must give results of the same
    structure). Read from the host where values can be; under a trace the backend's
    :func:`~holovec.kernels.control.cond` decides."""
    low, high = safe.holds_all(width)
    if backend.lazy or backend.is_traced(squares[0]):
        xp = backend.xp
        held = [xp.all((s >= low) & (s <= high)) for s in squares]
        return kernels.cond(backend, functools.reduce(lambda p, q: p & q, held), inside, outside)
    for s in squares:
        extremes = _extremes(s)
        if extremes is not None and not (low <= extremes[0] and extremes[1] <= high):  # nor NaN
            return outside()
    return inside()


def divided_rows(
    backend: Any, x: Any, squares_of: Callable[[Any], Any], safe: SafeRange
) -> tuple[Any, Any, Any]:
    """``(x / divisors, its squared norms, divisors)`` (:func:`row_divisors`)."""
    divisors = row_divisors(backend.xp, x, safe)
    rows = x / divisors[..., None]
    return rows, squares_of(rows), divisors


def product_index(backend: Any, x: Any, squares_of: Callable[[Any], Any], safe: SafeRange) -> tuple[Any, ...]:
    """A search index of dot-product scores: ``(x, squares)``, or where rows had to be
    divided (:func:`within_range`) ``(divided rows, their squares, divisors)``."""
    with quiet_overflow(x):
        x, squares, divisors = within_range(backend, x, squares_of, safe)
    return (x, squares) if divisors is None else (x, squares, divisors)


def index_divisors(queries: tuple[Any, ...], items: tuple[Any, ...]) -> tuple[Any, Any] | None:
    """The divisors of two :func:`product_index` tuples, shaped ``(n_q, 1)`` and ``(1, n)``
    for a score matrix (1 for a side not divided), or ``None`` where neither was."""
    if len(queries) < 3 and len(items) < 3:
        return None
    d_q = queries[2][:, None] if len(queries) > 2 else 1.0
    d_b = items[2][None, :] if len(items) > 2 else 1.0
    return d_q, d_b


def bounded_dots(
    backend: Any, a: Any, b: Any, dots_of: Callable[[Any, Any], Any], safe: SafeRange
) -> tuple[Any, tuple[Any, Any] | None]:
    """``(dots_of(a, b), None)`` where no partial sum overflowed (the dot products are
    finite), else the dot products of the rows divided by :func:`row_divisors` and the
    divisors ``(d_a, d_b)``: the true dot products are ``dots * d_a * d_b``. Under a trace
    the divisors come back in both cases (1 where nothing overflowed)."""
    with quiet_overflow(a):
        dots = dots_of(a, b)
    if backend.lazy or backend.is_traced(dots):
        xp = backend.xp
        ones = (xp.ones(a.shape[:-1], dtype=dots.dtype), xp.ones(b.shape[:-1], dtype=dots.dtype))
        return kernels.cond(
            backend,
            xp.all(xp.isfinite(dots)),
            lambda: (dots, ones),
            lambda: _divided_dots(backend, a, b, dots_of, safe),
        )
    extremes = _extremes(dots)
    if extremes is None or (-math.inf < extremes[0] and extremes[1] < math.inf):  # nor NaN
        return dots, None
    return _divided_dots(backend, a, b, dots_of, safe)


def _divided_dots(
    backend: Any, a: Any, b: Any, dots_of: Callable[[Any, Any], Any], safe: SafeRange
) -> tuple[Any, tuple[Any, Any]]:
    d_a, d_b = row_divisors(backend.xp, a, safe), row_divisors(backend.xp, b, safe)
    return dots_of(a / d_a[..., None], b / d_b[..., None]), (d_a, d_b)


def clipped_products(xp: Any, values: Any, d_a: Any, d_b: Any) -> Any:
    """``values * d_a * d_b`` clipped to [-1, 1] (broadcasting; divisors of
    :func:`bounded_dots`, at least 1), computed without overflow: values at or above
    ``1 / (d_a d_b)`` in magnitude saturate at their sign. Divisors of 1 give ``clip``'s
    values exactly. (No ``sign``: torch's, through the array API, is a masked assignment
    that ``torch.compile`` cannot trace.)"""
    limit = (1.0 / d_a) / d_b
    magnitude = xp.abs(values)
    denominator = xp.where(magnitude >= limit, magnitude, limit)  # saturated: +-1
    return values / xp.where(denominator > 0, denominator, 1.0)  # 0 where both are 0


def quiet_overflow(x: Any) -> Any:
    """A context in which NumPy (``x`` a NumPy array) does not warn of the overflow
    (``inf``, or ``inf - inf``) that the caller is about to detect and redo; nothing for
    other frameworks (which do not warn)."""
    return np.errstate(over="ignore", invalid="ignore") if isinstance(x, np.ndarray) else _NOTHING


_NOTHING = contextlib.nullcontext()


def _extremes(values: Any) -> tuple[float, float] | None:
    """The smallest and largest of ``values`` (concrete, real; NaN where one is NaN), read
    from the host as two numbers: cheap on every framework (array methods, not the
    namespace's functions, whose wrappers cost microseconds a call on torch). ``None``
    where there are no values."""
    if values.ndim == 0:
        value = values.item()
        return value, value
    if math.prod(values.shape) == 0:
        return None
    return values.min().item(), values.max().item()
