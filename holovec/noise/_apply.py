"""The noises themselves, on arrays: the vectors of a model, chosen by what the model
declares about its elements (``element_kind``, ``atoms``, ``elements``), or the plain real or
complex numbers that objects keep (sums, prototypes, read-outs), row by row.

Every noise works on a view of its array as rows of units, ``(n_rows, n_units,
unit_size)``: a unit is what one position names (an element; an atom of the model, such as
a GHRR block, for sign flips and phase noise), and the view's ``back`` turns rows into an
array of the input's shape and layout (packed BSC: packed again). Nothing is written into
the input: every result is a new array.
"""

from __future__ import annotations

import cmath
import math
import numbers
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from .. import kernels
from .._params import Interval, Options
from ..backends import dtype_name
from ._draws import FLIP, GAUSSIAN, PHASE, STUCK, count, noise_seed, normals, positions

__all__ = ["LEVEL_RULES", "NOISES", "perturb_array"]

#: the noises, by name, and the rule of each one's level
NOISES = Options("flip", "stuck_at", "gaussian", "phase", "quantize")
FRACTION = Interval(0, 1, words="a fraction")
NOISE_LEVEL = Interval(0, words="a noise level")
BITS = Interval(1, 32, integral=True)
LEVEL_RULES = {
    "flip": FRACTION,
    "stuck_at": FRACTION,
    "gaussian": NOISE_LEVEL,
    "phase": NOISE_LEVEL,
    "quantize": BITS,
}

#: element kinds whose elements are bits (flipped: 0 <-> 1)
BIT_KINDS = ("binary", "sparse")
#: element kinds whose vectors stay vectors of the model when a unit changes sign
SIGN_KINDS = ("bipolar", "bounded", "gaussian", "phasor", "unitary-blocks")
#: element kinds quantize puts on uniform real levels (bipolar: levels rounded to integers,
#: so that +-1 vectors stay themselves and MAP-I's integer bundles stay integers)
LEVEL_KINDS = ("bipolar", "bounded", "gaussian")


class View(NamedTuple):
    """An array as rows of units: ``data`` ``(n_rows, n_units, unit_size)``, and ``back``,
    which turns such rows into an array like the input."""

    data: Any
    back: Callable[[Any], Any]


def _view(xp: Any, units: Any, finish: Callable[[Any], Any] | None = None) -> View:
    """The view of ``units`` ``(..., n_units, unit_size)``; ``finish`` maps the result back
    to the caller's layout (``model.from_elements``, ``model.from_atoms``)."""
    shape = tuple(units.shape)
    data = xp.reshape(units, (-1, *shape[-2:]))

    def back(rows: Any) -> Any:
        out = xp.reshape(rows, shape)
        return out if finish is None else finish(out)

    return View(data, back)


def _elements(model: Any, x: Any, vectors: bool) -> View:
    """``x`` as rows of single elements (a model's vectors through ``model.elements``)."""
    xp = model.xp
    if not vectors:
        return _view(xp, x[..., None], lambda e: e[..., 0])
    e = model.elements(x)
    return _view(xp, e[..., None], lambda u: model.from_elements(u[..., 0]))


def _atoms(model: Any, x: Any, vectors: bool) -> View:
    """``x`` as rows of the model's atoms (single elements where atoms are not exchangeable,
    and for plain numbers)."""
    if not vectors or not model.atoms_exchangeable:
        return _elements(model, x, vectors)
    return _view(model.xp, model.atoms(x), model.from_atoms)


def _unsupported(model: Any, noise: str, needs: str) -> TypeError:
    return TypeError(
        f"{noise} cannot perturb {model.name} vectors (element_kind {model.element_kind!r}): it needs {needs}"
    )


def _wide(name: str) -> str:
    """The real dtype in which noise is computed for arrays of dtype ``name``."""
    return "float64" if name in ("float64", "complex128") else "float32"


# -- the noises: (model, x, level, seed, value, vectors) -> a new array ---------------------
def _flip(model: Any, x: Any, p: float, seed: int, value: Any, vectors: bool) -> Any:
    xp, kind = model.xp, model.element_kind
    if vectors and kind in BIT_KINDS:
        view, negate = _elements(model, x, vectors), False
    elif not vectors or kind in SIGN_KINDS:
        view, negate = _atoms(model, x, vectors), True
    else:
        raise _unsupported(model, "flip", f"bits ({', '.join(BIT_KINDS)}) or signs ({', '.join(SIGN_KINDS)})")
    rows = view.data
    mask = positions(model.backend, seed, FLIP, rows.shape[0], rows.shape[1], count(p, rows.shape[1]))
    changed = -rows if negate else xp.astype(rows == 0, rows.dtype)
    return view.back(xp.where(mask[:, :, None], changed, rows))


def _stuck(model: Any, x: Any, p: float, seed: int, value: Any, vectors: bool) -> Any:
    xp = model.xp
    view = _elements(model, x, vectors)
    rows = view.data
    fill = _fill(model, rows.dtype, value, vectors)
    mask = positions(model.backend, seed, STUCK, rows.shape[0], rows.shape[1], count(p, rows.shape[1]))
    return view.back(xp.where(mask[:, :, None], fill, rows))


def _fill(model: Any, dtype: Any, value: Any, vectors: bool) -> Any:
    """``value`` as a 0-d array of ``dtype``, checked: a finite number (complex only for
    complex numbers), exactly representable in an integer dtype, and for vectors a value of
    the model's elements (``model.check_values`` of a vector of it)."""
    xp, backend = model.xp, model.backend
    is_complex = xp.isdtype(dtype, "complex floating")
    real_only = not is_complex
    if value is None:
        raise TypeError("stuck_at needs value=: the number the stuck elements hold")
    number = numbers.Real if real_only else numbers.Complex
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, number):
        what = "a real number" if real_only else "a number (real or complex)"
        raise TypeError(f"value must be {what}, got {type(value).__name__} {value!r}")
    if not cmath.isfinite(complex(value)):
        raise ValueError(f"value must be finite, got {value!r}")
    if xp.isdtype(dtype, "integral"):
        info = np.iinfo(dtype_name(dtype))
        if value != math.floor(value) or not info.min <= value <= info.max:
            raise ValueError(
                f"value must be an integer in [{info.min}, {info.max}] (the elements' dtype), got {value!r}"
            )
        value = int(value)
    fill = xp.asarray(value, dtype=dtype, device=backend.device)
    if vectors:
        probe = xp.broadcast_to(fill, (1, model.dim))
        try:
            # a packed model checks its elements as it packs them (from_elements does not)
            if model.has_packed_form:
                model.pack(probe)
            else:
                model.check_values(model.from_elements(probe), "value")
        except (TypeError, ValueError):
            raise ValueError(
                f"value must be a value of {model.name}'s elements ({model.allowed_values}), got {value!r}"
            ) from None
    return fill


def _gaussian(model: Any, x: Any, sigma: float, seed: int, value: Any, vectors: bool) -> Any:
    xp = model.xp
    if vectors and model.element_kind != "gaussian":
        raise _unsupported(
            model,
            "gaussian",
            "real elements that may take any value (element_kind 'gaussian': HRR, VTB); "
            "use flip for sign or bit errors, quantize for fewer levels",
        )
    view = _elements(model, x, vectors)
    rows = view.data[:, :, 0]
    if not xp.isdtype(rows.dtype, "real floating"):
        raise TypeError(
            f"gaussian needs real floating-point numbers, got {dtype_name(rows.dtype)} (use phase)"
        )
    wide = model.backend.dtype(_wide(dtype_name(rows.dtype)))
    r = xp.astype(rows, wide)
    # sigma is relative to each row's RMS element: the same noise-to-signal ratio at every
    # scale (HRR's elements have variance 1/dim, prototypes are sums)
    rms = xp.sqrt(xp.mean(r * r, axis=-1, keepdims=True))
    noise = normals(model.backend, seed, GAUSSIAN, r.shape[0], r.shape[1], dtype_name(wide))
    return view.back(xp.astype(r + (sigma * rms) * noise, rows.dtype)[:, :, None])


def _phase(model: Any, x: Any, sigma: float, seed: int, value: Any, vectors: bool) -> Any:
    xp = model.xp
    view = _atoms(model, x, vectors)
    rows = view.data
    if not xp.isdtype(rows.dtype, "complex floating"):
        if vectors:
            raise _unsupported(model, "phase", "complex vectors (FHRR, GHRR); use gaussian for real vectors")
        raise TypeError(f"phase needs complex numbers, got {dtype_name(rows.dtype)} (use gaussian)")
    theta = normals(model.backend, seed, PHASE, rows.shape[0], rows.shape[1], _wide(dtype_name(rows.dtype)))
    # one rotation per unit: a GHRR block times a unit phasor stays unitary
    turn = xp.astype(kernels.unit_phasor(model.backend, theta * sigma), rows.dtype)
    return view.back(rows * turn[:, :, None])


def _quantize(model: Any, x: Any, bits: int, seed: Any, value: Any, vectors: bool) -> Any:
    xp, kind = model.xp, model.element_kind
    view = _elements(model, x, vectors)
    rows = view.data[:, :, 0]
    dtype = rows.dtype
    if vectors and kind in BIT_KINDS:  # one bit per element already: nothing to round
        return view.back(xp.asarray(rows, copy=True)[:, :, None])
    if xp.isdtype(dtype, "complex floating"):
        if vectors and kind != "phasor":
            raise _unsupported(model, "quantize", "bits, signs, real numbers or phasors (not unitary blocks)")
        out = _phase_levels(model, rows, bits) if vectors else _complex_levels(model, rows, bits)
    elif xp.isdtype(dtype, "real floating"):
        if vectors and kind not in LEVEL_KINDS:
            raise _unsupported(model, "quantize", "bits, signs, real numbers or phasors")
        wide = xp.astype(rows, model.backend.dtype(_wide(dtype_name(dtype))))
        out = _levels(xp, wide, _scale(xp, wide), bits)
        out = xp.round(out) if vectors and kind == "bipolar" else out
    else:
        raise TypeError(f"quantize needs floating-point numbers, got {dtype_name(dtype)}")
    return view.back(xp.astype(out, dtype)[:, :, None])


def _scale(xp: Any, r: Any) -> Any:
    """Each row's largest modulus, ``(n, 1)``: the quantiser's range, so nothing is clipped."""
    return xp.max(xp.abs(r), axis=-1, keepdims=True)


def _levels(xp: Any, r: Any, scale: Any, bits: int) -> Any:
    """Real rows on ``2**bits`` uniform levels from ``-scale`` to ``scale`` (both ends levels,
    so that +-1 vectors stay themselves), rounded to the nearest."""
    top = float(2**bits - 1)
    safe = xp.where(scale > 0, scale, xp.ones_like(scale))
    # |r| / scale <= 1 in correctly rounded division: the level index stays in [0, top]
    index = xp.round((r / safe + 1.0) * (top / 2))
    # (2 j - top) / top: exactly -1 and 1 at the ends (j * (2 / top) - 1 may pass 1), and
    # levels j and top - j exact opposites
    return (2.0 * index - top) / top * scale


def _complex_levels(model: Any, rows: Any, bits: int) -> Any:
    """Complex rows with real and imaginary parts on the levels of one range per row."""
    xp = model.xp
    wide = model.backend.dtype(_wide(dtype_name(rows.dtype)))
    re, im = xp.astype(xp.real(rows), wide), xp.astype(xp.imag(rows), wide)
    scale = xp.maximum(_scale(xp, re), _scale(xp, im))
    return kernels.complex(model.backend, _levels(xp, re, scale, bits), _levels(xp, im, scale, bits))


def _phase_levels(model: Any, rows: Any, bits: int) -> Any:
    """Phasors with their phases on ``2**bits`` uniform levels (0 one of them), moduli kept."""
    xp = model.xp
    step = 2 * math.pi / 2**bits
    phases = xp.round(xp.atan2(xp.imag(rows), xp.real(rows)) / step) * step
    return kernels.unit_phasor(model.backend, phases) * xp.astype(xp.abs(rows), xp.real(rows).dtype)


_NOISE = {"flip": _flip, "stuck_at": _stuck, "gaussian": _gaussian, "phase": _phase, "quantize": _quantize}


def perturb_array(
    model: Any,
    x: Any,
    noise: str,
    level: Any,
    *,
    seed: Any = None,
    value: Any = None,
    vectors: bool = True,
    names: tuple[str, str] = ("x", "level"),
) -> Any:
    """A new array: ``x`` with ``noise`` of ``level``, seeded (see the package).

    ``vectors``: ``x`` holds vectors of ``model`` (checked by ``model.check``), else plain
    real or complex numbers of the model's backend, its rows along the last axis. ``names``:
    the names of ``x`` and ``level`` in messages."""
    noise = NOISES.check("noise", noise)
    level = LEVEL_RULES[noise].check(names[1], level)
    x = model.check(x, names[0]) if vectors else _numbers(model, x, names[0])
    seed = None if noise == "quantize" else noise_seed(model, seed)
    if noise != "stuck_at" and value is not None:
        raise TypeError(f"value= goes with stuck_at only, not with {noise}")
    return _NOISE[noise](model, x, level, seed, value, vectors)


def _numbers(model: Any, x: Any, name: str) -> Any:
    """``x`` if it is an array of floating-point numbers of the model's backend (1-d or more)."""
    backend, xp = model.backend, model.xp
    if not isinstance(x, backend.array_type):
        raise TypeError(f"{name}: expected a {backend.array_type_name} of the backend {backend.name!r}")
    if not (xp.isdtype(x.dtype, "real floating") or xp.isdtype(x.dtype, "complex floating")):
        raise TypeError(f"{name}: expected floating-point numbers, got {dtype_name(x.dtype)}")
    if x.ndim == 0:
        raise ValueError(f"{name}: expected an array of at least one axis, got a 0-d array")
    return x
