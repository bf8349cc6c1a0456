"""Level and thermometer codes: scalars as one of a table of graded vectors.

Both encoders quantise a value in ``[min_val, max_val]`` to the nearest of ``levels``
equally spaced levels and return that level's vector from a table made once (one gather
per call); ``decode`` is the nearest level by one ``similarity_matrix`` against the table.
The fractional power encoders (continuous, with binding that adds) are in
:mod:`holovec.encoders.fpe`.
"""

from __future__ import annotations

import math
from functools import partial
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._deprecation import keyword_only_after
from .._params import FINITE, FLAG, Rule
from ..backends import dtype_name
from ..compat import levels_argument
from ..models.base import VSAModel
from ..random import Purpose
from ._common import level_step
from ._rules import LEVELS
from ._values import check_values, check_vectors, empty_vectors, index_dtype, is_empty
from .base import Encoder
from .levels import LevelCodes

__all__ = ["LevelEncoder", "ThermometerEncoder"]

#: element kinds whose elements have an "on" and an "off" value (thermometer codes)
_ON_OFF_KINDS = ("bipolar", "bounded", "binary", "phasor", "gaussian")


def _level_index(xp: Any, low: float, step: float, levels: int, halved: bool, x: Any) -> Any:
    """The nearest level of each value, as indices. ``halved``: the range exceeds the
    largest float, so ``x - low`` is taken as ``x / 2 - low / 2`` (which cannot overflow)."""
    if halved:
        index = xp.round((x * 0.5 - low * 0.5) * (2 / step))
    else:
        index = xp.round((x - low) * (1 / step))
    return xp.astype(xp.clip(index, 0, levels - 1), xp.int32)


def _level_vectors(
    model: VSAModel, low: float, step: float, levels: int, halved: bool, x: Any, table: Any
) -> Any:
    """The rows of ``table`` of the nearest levels of checked values ``x``."""
    xp = model.xp
    index = _level_index(xp, low, step, levels, halved, x)
    rows = xp.take(table, xp.reshape(index, (-1,)), axis=0)
    return xp.reshape(rows, (*index.shape, model.vector_length))


class _LevelTable(Encoder):
    """A table of ``levels`` vectors for the values ``min_val + i * step``; values map to the
    nearest level (``round``), vectors to the most similar level."""

    _parameter_rules: ClassVar[dict[str, Rule]] = {
        "min_val": FINITE,
        "max_val": FINITE,
        "levels": LEVELS,
        "clip": FLAG,
    }

    def __init__(
        self, model: VSAModel, min_val: Any, max_val: Any, levels: int, seed: int | None, clip: bool
    ) -> None:
        super().__init__(model, seed=seed, min_val=min_val, max_val=max_val, levels=levels, clip=clip)
        self.min_val, self.max_val = float(min_val), float(max_val)
        if self.min_val >= self.max_val:
            raise ValueError(f"min_val must be below max_val, got min_val={min_val!r}, max_val={max_val!r}")
        self.levels, self.clip = int(levels), clip
        top = float(np.finfo(np.dtype(dtype_name(kernels.default_float_dtype(self.backend)))).max)
        self.step, self._halved = level_step(self.min_val, self.max_val, self.levels, top)
        self._table: Any = None

    @property
    def table(self) -> Any:
        """The level vectors, shape ``(levels, vector_length)``: row ``i`` encodes ``level_values[i]``."""
        return self._table

    @property
    def level_values(self) -> Any:
        """The value of each level (the backend's widest float), shape ``(levels,)``."""
        index = self.xp.arange(
            self.levels, dtype=kernels.default_float_dtype(self.backend), device=self.backend.device
        )
        return self._values_of(index)

    def _values_of(self, index: Any) -> Any:
        """The values of levels ``index`` (floats of the backend), without overflow."""
        if not self._halved:
            return self.min_val + index * self.step
        half = (self.min_val * 0.5 + index * (self.step * 0.5)) * 2
        return self.xp.minimum(half, self.max_val)

    def _checked(self, values: Any, clip: bool | None) -> Any:
        clip = self.clip if clip is None else clip
        x = check_values(self.backend, values, low=self.min_val, high=self.max_val, clip=clip)
        x = self._rows_of_vectors(x)
        return self.xp.clip(x, self.min_val, self.max_val) if clip else x  # also under tracing

    def level_index(self, values: Any, *, clip: bool | None = None) -> Any:
        """The index of the level nearest to each value (integers, the shape of ``values``).

        Parameters
        ----------
        values : array_like
            One value or an array of values.
        clip : bool, optional
            Whether values outside the range are clipped to it; ``None`` for the encoder's
            ``clip``.
        """
        return _level_index(
            self.xp, self.min_val, self.step, self.levels, self._halved, self._checked(values, clip)
        )

    def encode(self, values: Any, *, clip: bool | None = None) -> Any:
        """One value or an array of values -> their nearest levels' vectors, ``(..., vector_length)``.

        Parameters
        ----------
        values : array_like
            One value or an array of values.
        clip : bool, optional
            Whether values outside the range are clipped to it; ``None`` for the encoder's
            ``clip``.
        """
        key = ("levels", self.min_val, self.step, self.levels, self._halved)
        fn = self.backend.program(
            partial(_level_vectors, self.model, self.min_val, self.step, self.levels, self._halved),
            (self.model.config_key, *key),
            keep=self.model.kernel_cache,
        )
        x = self._checked(values, clip)
        if is_empty(tuple(x.shape)):
            return empty_vectors(self.model, tuple(x.shape))
        return fn(x, self._table)

    def decode(self, vectors: Any) -> Any:
        """The value of the level most similar to each vector: a 0-d array for one vector, else
        shape ``(...)`` (one ``similarity_matrix`` against the table).

        Parameters
        ----------
        vectors : array
            One vector of the model, or a batch ``(..., vector_length)``.
        """
        xp, model = self.xp, self.model
        vectors = check_vectors(model, vectors, "vectors")
        batch = tuple(vectors.shape[:-1])
        if is_empty(batch):
            return xp.zeros(
                batch, dtype=kernels.default_float_dtype(self.backend), device=self.backend.device
            )
        best = xp.argmax(model.similarity_matrix(vectors, self._table), axis=-1)
        return self._values_of(xp.astype(best, kernels.default_float_dtype(self.backend)))


class LevelEncoder(_LevelTable):
    """Graded level codes: neighbouring levels similar, the two ends about orthogonal.

    Level 0 is a random vector; each next level changes a further fixed random subset of
    its elements, so the similarity of levels ``i`` and ``j`` falls linearly with
    ``|i - j|``, from 1 to about 0 between the ends (and never rises again: the changed
    elements accumulate in one random order). How an element changes depends on the model's
    ``element_kind`` (the table is built by :class:`~holovec.encoders.levels.LevelCodes`):

    - MAP, MAP-C, MAP-I, BSC (also bit-packed): the element is negated (bit flipped); each
      step flips ``D / (2 (levels - 1))`` elements, half of them in all, so the ends have
      similarity 0 exactly (MAP, BSC) or about 0 (MAP-C).
    - FHRR, HRR, VTB: the element is replaced by the element of a second random vector;
      each step replaces ``D / (levels - 1)`` elements, all of them in all (a replaced
      element is unrelated, not opposed), so the last level is the second vector. Unitary
      HRR (``unitary=True``) replaces Fourier coefficients instead, so that every level is
      unitary too.
    - GHRR: whole ``m x m`` blocks are replaced (each level stays a vector of unitary
      blocks); BSDC-SEG: whole segments (each level stays one-hot per segment).

    Counts are rounded, ``round(i * n / (levels - 1))`` changes for level ``i``, so there
    must be at least ``levels - 1`` units to change. Models whose ``atoms_exchangeable`` is
    False (BSDC) raise ``TypeError``: replacing elements would not keep its fixed number
    of ones.

    The two random vectors are ``model``'s own vectors drawn from ``seed`` (bit-identical
    across backends for binary models) and the order of changes comes from
    :mod:`holovec.random`, so the same seed gives the same table on every backend.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes.
    min_val : float
        The lower end of the values' range.
    max_val : float
        The upper end of the values' range.
    levels : int, optional
        Number of levels (at least 2); ``None`` for the default.
    seed : int, optional
        Seed of the level vectors; ``None`` draws them from the model's generator.
    clip : bool, optional
        Whether values outside the range are clipped to it (else ``ValueError``).
    n_levels : int, optional
        Deprecated alias of ``levels`` (HoloVec's name).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import LevelEncoder
    >>> model = VSA.create("MAP", dim=1000)
    >>> enc = LevelEncoder(model, 0.0, 1.0, levels=11, seed=4)
    >>> v = enc.encode([0.0, 0.1, 0.5, 1.0])
    >>> [round(float(s), 2) for s in model.similarity(v[0], v)]
    [1.0, 0.9, 0.5, 0.0]
    >>> [round(float(x), 2) for x in enc.decode(v)]
    [0.0, 0.1, 0.5, 1.0]
    """

    requires = "atoms that two vectors can exchange (model.atoms_exchangeable)"

    @classmethod
    def supports(cls, model: Any) -> bool:
        return model.atoms_exchangeable

    @keyword_only_after(4)
    def __init__(
        self,
        model: VSAModel,
        min_val: float,
        max_val: float,
        levels: int | None = None,
        *,
        seed: int | None = None,
        clip: bool = False,
        n_levels: int | None = None,
    ) -> None:
        levels = levels_argument(levels, n_levels, "n_levels")
        super().__init__(model, min_val, max_val, levels, seed, clip)
        codes = LevelCodes(
            model,
            self.levels,
            self.seed,
            ends_purpose=Purpose.SCALAR_LEVELS,
            order_purpose=Purpose.SCALAR_LEVEL_ORDER,
            strict=True,
        )
        self._table = codes.vectors()


class ThermometerEncoder(_LevelTable):
    """Thermometer codes: level ``i`` has its first ``round(i * D / (levels - 1))`` elements
    "on", the rest "off".

    The similarity of levels ``i`` and ``j`` is ``1 - 2 * |n_i - n_j| / D`` exactly (``n``
    the number of elements on): it falls monotonically with the distance, from 1 to -1
    between the ends (level 0 all off, the last level all on). The codes are deterministic
    (no random vector, so ``seed`` is accepted for HoloVec's signature but not used); bind
    them with a random key to give several features unrelated codes.

    On and off: MAP, MAP-C, MAP-I: +1 and -1; BSC (also bit-packed): 1 and 0; FHRR: the
    phasors +1 and -1; HRR and VTB: +-1/sqrt(D) (the norm of their random vectors). Other
    models (GHRR, BSDC, BSDC-SEG) raise ``TypeError``.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes.
    min_val : float
        The lower end of the values' range.
    max_val : float
        The upper end of the values' range.
    levels : int, optional
        Number of levels (at least 2); ``None`` for the default.
    seed : int, optional
        Accepted for HoloVec's signature; the codes are deterministic.
    clip : bool, optional
        Whether values outside the range are clipped to it (else ``ValueError``).
    n_bins : int, optional
        Deprecated alias of ``levels`` (HoloVec's name).

    Examples
    --------
    >>> from holovec import VSA
    >>> from holovec.encoders import ThermometerEncoder
    >>> model = VSA.create("BSC", dim=1000)
    >>> enc = ThermometerEncoder(model, 0.0, 10.0, levels=11)
    >>> v = enc.encode([0.0, 5.0, 10.0])
    >>> [int(x.sum()) for x in v]
    [0, 500, 1000]
    >>> [round(float(s), 2) for s in model.similarity(v[0], v)]
    [1.0, 0.0, -1.0]
    """

    requires = "elements with an on and an off value (model.element_kind in " + repr(_ON_OFF_KINDS) + ")"

    @classmethod
    def supports(cls, model: Any) -> bool:
        return model.element_kind in _ON_OFF_KINDS

    @keyword_only_after(4)
    def __init__(
        self,
        model: VSAModel,
        min_val: float,
        max_val: float,
        levels: int | None = None,
        *,
        seed: int | None = None,
        clip: bool = False,
        n_bins: int | None = None,
    ) -> None:
        levels = levels_argument(levels, n_bins, "n_bins")
        super().__init__(model, min_val, max_val, levels, 0 if seed is None else seed, clip)
        dim, levels = model.dim, self.levels
        if levels - 1 > dim:
            raise ValueError(f"{levels} thermometer levels need dim >= {levels - 1}, got dim {dim}")
        self.counts = np.floor(np.arange(levels) * dim / (levels - 1) + 0.5).astype(np.int64)
        self._table = self._make_table()

    def _make_table(self) -> Any:
        xp, model, backend = self.xp, self.model, self.backend
        index = index_dtype(backend)
        on = (
            xp.arange(model.dim, dtype=index, device=backend.device)[None, :]
            < backend.asarray(self.counts, dtype=index)[:, None]
        )
        kind = model.element_kind
        if kind == "binary":  # on 1, off 0
            return model.from_elements(xp.astype(on, model.dtype))
        scale = 1 / math.sqrt(model.dim) if kind == "gaussian" else 1.0  # the elements' typical size
        return model.from_elements(xp.astype(xp.where(on, scale, -scale), model.dtype))
