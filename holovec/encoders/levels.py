"""Graded level codes: the one builder of the level vectors of every encoder.

``levels`` vectors between two ends: neighbouring levels are similar, the similarity
falls linearly with the distance of the levels, and the changes accumulate in one
random order. Level ``i`` takes ``round(i * n / (levels - 1))`` of the ``n`` changeable
atoms (see ``model.atoms``: elements, GHRR blocks, BSDC-SEG segments, unitary HRR's
Fourier coefficients) from the second end, the rest from the first. How an atom changes
depends on what the model's elements are (``model.element_kind``):

- ``"bipolar"``, ``"bounded"``, ``"binary"``: it is negated (a bit flipped). The second
  end is the first negated, and only half of the atoms ever change, so the two ends
  have similarity 0 exactly (about 0 for bounded reals).
- every other kind: it is replaced by the atom of a second random vector, and all atoms
  change by the last level (a replaced atom is unrelated, not opposed), so the last
  level is that second vector.

:class:`~holovec.encoders.LevelEncoder`, :class:`~holovec.encoders.ImageEncoder` and the
level axes of :class:`~holovec.encoders.TrajectoryEncoder` all use :class:`LevelCodes`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._params import POSITIVE_INT
from ..models.base import VSAModel
from ..random import Purpose, random_words
from ._values import host_backend

#: element kinds whose atoms are changed by negation (flips) rather than replacement
NEGATED_KINDS = ("bipolar", "bounded", "binary")


class LevelCodes:
    """``levels`` graded vectors of ``model`` drawn from ``seed`` (see the module docstring).

    ``strict=True`` (level encoders) refuses models whose atoms cannot be exchanged and
    tables with fewer changeable atoms than steps; ``strict=False`` (images, trajectories)
    mixes single elements of such models (vectors near the model's space, e.g. sparse
    codes whose number of ones varies a little) and repeats levels where atoms run out.

    Attributes: ``switch`` (host ints, one per atom) is the first level that takes the
    atom from the second end (``levels`` or more: never); ``ends`` are the two end vectors
    ``(2, vector_length)`` of the model, so that level ``i`` takes atom ``j`` from
    ``ends[1]`` where ``i >= switch[j]``; ``element_switch`` is ``switch`` per element.
    """

    def __init__(
        self,
        model: VSAModel,
        levels: int,
        seed: int,
        *,
        ends_purpose: Purpose = Purpose.LEVEL_ENDS,
        order_purpose: Purpose = Purpose.LEVEL_ORDER,
        strict: bool = False,
    ) -> None:
        self.model = model
        self.levels = POSITIVE_INT.check("levels", levels)
        self.seed = seed
        self.atom_size = model.atom_size if model.atoms_exchangeable or strict else 1
        draw = model.draw(2, seed, ends_purpose)
        first = self._atoms(draw[:1])[0]
        if model.element_kind in NEGATED_KINDS:
            second = self._atoms(model.finish_sum(-model.lift(draw[:1])))[0]
            changes = first.shape[0] // 2
        else:
            second = self._atoms(draw[1:])[0]
            changes = first.shape[0]
        self._first, self._second = first, second
        n_atoms, steps = first.shape[0], max(1, self.levels - 1)
        if strict and changes < self.levels - 1:
            raise ValueError(
                f"{self.levels} levels need at least {self.levels - 1} elements to change from level to "
                f"level, but a {model.name} vector of dim {model.dim} has {changes} to change; use fewer "
                "levels or a larger dim"
            )
        # level i has changed the atoms of rank < counts[i], in one random order
        counts = np.floor(np.arange(self.levels) * changes / steps + 0.5).astype(np.int64)
        words = random_words(host_backend(), seed, 1, n_atoms, purpose=order_purpose)[0]
        rank = np.empty(n_atoms, dtype=np.int64)
        rank[np.argsort(words, kind="stable")] = np.arange(n_atoms)
        self.switch = np.searchsorted(counts, rank, side="right")
        self.element_switch = np.repeat(self.switch, self.atom_size)
        self.ends = model.xp.concat([self._from_atoms(first[None]), self._from_atoms(second[None])], axis=0)
        self._table: Any = None

    def _atoms(self, x: Any) -> Any:
        if self.atom_size == 1 and not self.model.atoms_exchangeable:
            return self.model.elements(x)[..., None]  # non-strict: single elements
        return self.model.atoms(x)

    def _from_atoms(self, a: Any) -> Any:
        if self.atom_size == 1 and not self.model.atoms_exchangeable:
            return self.model.from_elements(a[..., 0])
        return self.model.from_atoms(a)

    def vectors(self, index: Any = None) -> Any:
        """Level vectors ``(*index.shape, vector_length)`` for host level indices (all
        levels, ``(levels, vector_length)``, for ``index=None``; that table is kept)."""
        if index is None:
            if self._table is None:
                self._table = self.vectors(np.arange(self.levels))
            return self._table
        model, xp = self.model, self.model.xp
        index = np.asarray(index, dtype=np.int64)
        take_second = model.backend.asarray(index.reshape(-1, 1, 1) >= self.switch[None, :, None])
        out = self._from_atoms(xp.where(take_second, self._second, self._first))
        return xp.reshape(out, (*index.shape, model.vector_length))
