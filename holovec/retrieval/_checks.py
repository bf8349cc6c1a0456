"""The checks retrieval makes: vectors of the right model, codebooks of an equal model,
and values that are finite (once per codebook and once per batch of queries).

A model's ``check`` reads no values (it also runs on traced arrays). Search needs more:
one NaN or infinity in a codebook would otherwise break every search (a raw framework
error, or on some backends the NaN item returned as the best match). Every codebook and
every batch of queries is therefore checked for non-finite values here, in blocks of
rows so that the temporary memory stays bounded, with one reduction per block.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import DTYPE_KINDS, dtype_name
from ..models.registry import models_using_dtype

#: bytes of vectors checked per block (bounds the temporary memory of the check)
CHECK_BYTES = 32 * 2**20
#: rows named in an error message at most
_SHOWN = 5


def _row_blocks(x: Any, rows_per_block: int) -> list[tuple[int, Any]]:
    n = x.shape[0]
    if n <= rows_per_block:
        return [(0, x)]
    return [(start, x[start : start + rows_per_block]) for start in range(0, n, rows_per_block)]


def check_finite(
    model: Any, x: Any, name: str, labels: list[Any] | None = None, *, first_row: int = 0
) -> Any:
    """``x`` (vectors of ``model`` that passed ``model.check``) itself if every element is
    finite, else a ``ValueError`` naming ``name`` and the first rows that hold NaN or
    infinity (with their labels where given). Vectors of models whose elements are
    integers or bits are finite by construction; arrays traced by a compiler are left
    to the caller. ``first_row``: the row number of ``x``'s first row in the array it is
    a part of (a chunk or shard of a codebook), so that the message names rows of the
    whole."""
    if DTYPE_KINDS.get(model.dtype_name) not in ("float", "complex"):
        return x
    backend, xp = model.backend, model.xp
    if backend.is_traced(x) or x.ndim == 0 or x.shape[-1] == 0:
        return x
    batch = tuple(x.shape[:-1])
    rows = x if x.ndim == 2 else xp.reshape(x, (-1, x.shape[-1]))
    if rows.shape[0] == 0:
        return x
    itemsize = getattr(x.dtype, "itemsize", 8)
    per_block = max(1, CHECK_BYTES // max(1, x.shape[-1] * itemsize))
    blocks = _row_blocks(rows, per_block)
    ok = None
    for _, block in blocks:
        part = xp.all(xp.isfinite(block))
        ok = part if ok is None else ok & part
    if bool(ok):
        return x
    bad: list[int] = []
    for start, block in blocks:
        mask = backend.to_numpy(xp.logical_not(xp.all(xp.isfinite(block), axis=-1)))
        bad.extend(int(i) + start + first_row for i in np.flatnonzero(mask)[: _SHOWN + 1])
        if len(bad) > _SHOWN:
            break
    if not batch:
        where = "the vector holds"
    else:
        names = []
        for i in bad[:_SHOWN]:
            at = i if len(batch) == 1 else tuple(int(j) for j in np.unravel_index(i, batch))
            names.append(f"{at} (label {labels[i]!r})" if labels is not None else f"{at}")
        more = ", ..." if len(bad) > _SHOWN else ""
        where = (
            f"row {names[0]} holds" if len(names) == 1 and not more else f"rows {', '.join(names)}{more} hold"
        )
    raise ValueError(
        f"{name}: {where} NaN or infinity; vectors to store or search must be finite "
        "(a non-finite vector has no similarity with anything)"
    )


def dtype_of(x: Any) -> str:
    """The name of ``x``'s dtype (holovec's names where it has one, e.g. bfloat16)."""
    try:
        return dtype_name(x.dtype)
    except TypeError:
        return str(x.dtype)


def model_vectors(model: Any, x: Any, arg: str) -> Any:
    """``x`` as vectors of ``model``, never converted into something else: an array of the
    model's backend that passes the model's check (type, dtype, shape), or a NumPy array of
    exactly the model's dtype, moved to the model's backend and device unchanged."""
    native = model.backend.is_array(x)
    if native or isinstance(x, np.ndarray):
        got = dtype_of(x)
        if got != model.dtype_name:
            others = [m for m in models_using_dtype(got) if m != model.name]
            hint = f" (the dtype of {', '.join(others)} vectors)" if others else ""
            what = "" if native else "a NumPy array of "
            raise TypeError(
                f"{arg}: {model.name} vectors are {model.dtype_name}, got {what}{got}{hint}; give "
                f"vectors of this model, or, if a conversion is meant, convert first with "
                f"model.asarray({arg}) (it refuses conversions that change values)"
            )
        if native:
            return model.check(x, arg)
        if x.ndim == 0 or x.shape[-1] != model.vector_length:
            raise ValueError(
                f"{arg}: expected vectors of shape (..., {model.vector_length}) for this {model.name} "
                f"model of dim {model.dim}, got shape {tuple(x.shape)}"
            )
        return model.asarray(x)
    raise TypeError(
        f"{arg}: expected a {model.backend.array_type_name} of this {model.name} model's backend "
        f"{model.backend.name!r} (or a NumPy array of {model.dtype_name}), got "
        f"{type(x).__module__}.{type(x).__name__}; convert it with model.asarray({arg})"
    )


def check_same_model(model: Any, book: Any, what: str, whose: str) -> None:
    """``ValueError`` unless the codebook ``book`` holds vectors of a model equal to
    ``model`` (same class, dim, backend and device, dtype, options and seed; not
    necessarily the same object). ``what`` names the codebook, ``whose`` the model."""
    if book.model != model:
        diff = "; ".join(
            f"its {k} is {b!r}, {whose} has {m!r}" for k, b, m in book.model.config_differences(model)
        )
        raise ValueError(
            f"{what} belongs to another model: {diff}; use a codebook of an equal model (same class, "
            "dim, backend and device, dtype, options and seed), e.g. Codebook.load(path, model)"
        )


def claim_codebook(model: Any, book: Any, what: str, whose: str) -> None:
    """Make ``book`` a codebook of ``model`` for a store or a cleanup: a codebook made
    without a model (HoloVec 1.x's form) takes ``model`` (``book.adopt_model``, the one
    change made here); then :func:`check_same_model`."""
    if book.model is None:
        book.adopt_model(model)
    check_same_model(model, book, what, whose)
