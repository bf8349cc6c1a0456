"""Compatibility with HoloVec 1.x: the forms and names its users bring, in one place.

holovec accepts some of HoloVec 1.x's spellings so that code written for it runs (see
the user guide's page "Coming from HoloVec and TorchHD"). They live here, apart from the
classes that use them, so that what is compatibility and what is holovec's own design
stays plain, and so that they can be dropped together. Its sections, each for the
class it serves:

Codebooks without a model
    ``Codebook({label: vector}, backend=...)``: a codebook that holds arrays of a backend
    and takes the model of the first store that uses it
    (:meth:`holovec.retrieval.Codebook.adopt_model`). :func:`vectors_without_model` checks
    and converts the dict; :func:`row_without_model` a vector added to such a codebook.
Old names of methods
    :class:`CodebookNames`: ``Codebook.extend``, HoloVec 1.x's name of ``update``.
Encoders: HoloVec 1.x argument names
    :func:`levels_argument`: ``n_levels=`` (LevelEncoder) and ``n_bins=``
    (ThermometerEncoder), HoloVec 1.x's names of ``levels``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .backends import dtype_name, get_backend

__all__ = ["CodebookNames"]  # (the functions serve Codebook; they are no API of their own)


def _dtype_of(x: Any) -> str:
    try:
        return dtype_name(x.dtype)
    except TypeError:
        return str(x.dtype)


# -- codebooks without a model -----------------------------------------------------------------------
def vectors_without_model(items: Mapping[Any, Any], backend: Any) -> tuple[Any, dict[Any, Any]]:
    """HoloVec 1.x's ``Codebook({label: vector}, backend=...)``: the backend (a name, a
    :class:`~holovec.backends.Backend` or None, the default) and the dict's vectors as
    arrays of it (NumPy arrays moved to it unchanged), checked to be of one shape and
    dtype (the first vector's)."""
    be = get_backend(backend)
    if not items:
        raise ValueError(
            "an empty dict says nothing about the vectors to hold; give the model instead: Codebook(model)"
        )

    def check(v: Any, arg: str) -> Any:
        if isinstance(v, np.ndarray) and not be.is_array(v):
            v = be.from_numpy(v)
        if not be.is_array(v):
            raise TypeError(
                f"{arg}: expected a {be.array_type_name} of the backend {be.name!r} (or a NumPy array), "
                f"got {type(v).__module__}.{type(v).__name__}"
            )
        return v

    rows = {label: check(v, f"the vector of {label!r}") for label, v in items.items()}
    labels = list(rows)
    first = rows[labels[0]]
    for label in labels[1:]:  # one shape and dtype: say which item differs before stacking
        v = rows[label]
        if tuple(v.shape) != tuple(first.shape) or _dtype_of(v) != _dtype_of(first):
            raise ValueError(
                f"the vector of {label!r} has shape {tuple(v.shape)} and dtype {_dtype_of(v)}, "
                f"the vector of {labels[0]!r} {tuple(first.shape)} and {_dtype_of(first)}; "
                "give vectors of one model"
            )
    return be, rows


def row_without_model(backend: Any, vectors: Any, vector: Any) -> Any:
    """``vector`` as a row ``(1, length)`` for a codebook without a model whose vectors are
    ``vectors`` (arrays of ``backend``): one vector of their dtype and row shape (a NumPy
    array is moved to the backend unchanged)."""
    vector = backend.from_numpy(vector) if isinstance(vector, np.ndarray) else vector
    if not backend.is_array(vector) or _dtype_of(vector) != _dtype_of(vectors):
        raise TypeError(
            f"vector: expected a {backend.array_type_name} of dtype {_dtype_of(vectors)} "
            f"like the codebook's vectors, got {type(vector).__name__}"
            + (f" of dtype {_dtype_of(vector)}" if hasattr(vector, "dtype") else "")
        )
    if tuple(vector.shape) != tuple(vectors.shape[1:]):
        raise ValueError(
            f"add takes one vector of shape {tuple(vectors.shape[1:])} like the codebook's, "
            f"got {tuple(vector.shape)}"
        )
    return vector[None, :]


# -- old names of methods ----------------------------------------------------------------------------
class CodebookNames:
    """HoloVec 1.x's names of :class:`holovec.retrieval.Codebook` methods (a base class of
    it): they call holovec's own."""

    def extend(self: Any, items: Mapping[Any, Any]) -> None:
        """HoloVec 1.x's name of :meth:`~holovec.retrieval.Codebook.update`: add every
        ``label: vector`` of the dict ``items`` (all or, on an error, none).

        Parameters
        ----------
        items : Mapping[object, object]
            ``{label: vector}``, the vectors of the codebook's model.
        """
        self.update(items)


# == encoders: HoloVec 1.x argument names ===============================================================
# Serves LevelEncoder (``n_levels=``) and ThermometerEncoder (``n_bins=``): HoloVec 1.x's
# names of what holovec calls ``levels``. Kept without a warning (they are HoloVec's
# spelling, see the user guide's page "Coming from HoloVec and TorchHD").


def levels_argument(levels: Any, alias: Any, alias_name: str) -> Any:
    """The number of levels of a level or thermometer encoder, given as ``levels`` or under
    its HoloVec 1.x name ``alias_name`` (``"n_levels"``, ``"n_bins"``, whose value is
    ``alias``): ``TypeError`` for both, HoloVec's default 100 for neither. The value is
    checked with the encoder's other parameters (its ``_parameter_rules``)."""
    if levels is not None and alias is not None:
        raise TypeError(f"give levels or {alias_name} (its HoloVec name), not both")
    value = levels if levels is not None else alias
    return 100 if value is None else value
