"""What every structure shares: a model, the seed of its symbols, and the sum of its items.

A structure is one hypervector, :attr:`Structure.vector`: the bundle of its items (bound
role-filler pairs, permuted positions, ...). It keeps the bundle's accumulator, the sum of
the items' lifted forms (``model.lift``, the capability ``bundle_is_sum``), so that items
are added and removed exactly, and finishes it (``model.finish_sum``) when the vector is
read. Symbols (labels) are seeded vectors of a :class:`~holovec.encoders.SymbolTable`, so
a structure saved and loaded, or built again in another process or on another backend
with the same seed, has the same vectors.
"""

from __future__ import annotations

from os import PathLike
from typing import Any, ClassVar

import numpy as np

from .._format.state import StateFile, load_state, save_state
from ..encoders import SymbolTable
from ..models.base import VSAModel
from ..models.registry import require_capability
from ..random import check_seed, fresh_seed

__all__ = ["Structure"]


def _keeps_sums(model: Any) -> bool:
    return bool(model.bundle_is_sum)


class Structure:
    """Base class of the structures (see the module docstring).

    Subclasses set :attr:`kind` (the file format's name) and define ``_state`` (the
    arrays, fields and labels that save writes besides the sum) and ``_restore`` (the
    inverse, given a :class:`~holovec._format.state.StateFile`)."""

    #: the name of the structure's file format (``holovec.structures.<kind>``)
    kind: ClassVar[str] = "structure"

    def __init__(self, model: VSAModel, *, seed: int | None = None) -> None:
        if not isinstance(model, VSAModel):
            raise TypeError(f"model must be a VSA model, got {type(model).__name__}")
        require_capability(model, type(self).__name__, _keeps_sums, "a bundle kept as a sum (bundle_is_sum)")
        self.model = model
        self.seed = fresh_seed() if seed is None else check_seed(seed)
        self.sums = model.xp.zeros((model.dim,), dtype=model.sum_dtype, device=model.backend.device)
        self._vector: Any = None

    # -- symbols --------------------------------------------------------------------------
    def symbols(self, namespace: str) -> SymbolTable:
        """The table of this structure's symbols in ``namespace`` (seeded by :attr:`seed`)."""
        return SymbolTable(self.model, seed=self.seed, namespace=namespace)

    # -- the sum and the vector -------------------------------------------------------------
    def _add_items(self, items: Any, sign: int = 1) -> None:
        """Add (``sign`` 1) or take away (-1) the model vectors ``items`` ``(n, L)``."""
        total = self.model.xp.sum(self.model.lift(items), axis=0)
        self.sums = self.sums + total if sign > 0 else self.sums - total
        self._vector = None

    def _reset(self) -> None:
        self.sums = self.model.xp.zeros_like(self.sums)
        self._vector = None

    @property
    def vector(self) -> Any:
        """The structure as one vector of the model: the bundle of its items."""
        if self._vector is None:
            self._vector = self.model.finish_sum(self.sums)
        return self._vector

    # -- files ------------------------------------------------------------------------------
    def save(self, path: str | PathLike) -> None:
        """Write the structure to ``path`` (``.npz``, no pickle; the model's configuration,
        the seed, the sum and the structure's own fields)."""
        arrays, fields, labels = self._state()
        fields = {"seed": str(self.seed), **fields}
        save_state(path, f"structures.{self.kind}", self.model, {"sums": self.sums, **arrays}, fields, labels)

    @classmethod
    def load(
        cls, path: str | PathLike, model: VSAModel | None = None, *, backend: Any = None, device: Any = None
    ) -> Structure:
        """Read a structure :meth:`save` wrote (with ``model``: the file must be of it;
        without, the model is made from the file, on ``backend`` and ``device``).
        ``ValueError`` for a file of another kind, or a damaged or edited one."""
        names = ("sums", *cls._array_names())
        state = load_state(path, f"structures.{cls.kind}", model, backend, device, names)
        seed = state.fields.get("seed")
        if not isinstance(seed, str) or not seed.isdigit():
            raise ValueError(f"{state.where}: bad seed in the record: {seed!r}")
        sums = state.arrays["sums"]
        want_dtype = state.model.sum_dtype
        if tuple(sums.shape) != (state.model.dim,) or sums.dtype != want_dtype:
            raise ValueError(
                f"{state.where}: the sum has shape {tuple(sums.shape)} and dtype {sums.dtype}; expected "
                f"({state.model.dim},) and the model's sum dtype"
            )
        if not np.isfinite(state.model.backend.to_numpy(sums)).all():
            raise ValueError(f"{state.where}: the sum holds NaN or infinity")
        self = cls.__new__(cls)
        Structure.__init__(self, state.model, seed=int(seed))
        self.sums = sums
        try:
            self._restore(state)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"{state.where}: {e}") from None
        return self

    @classmethod
    def _array_names(cls) -> tuple[str, ...]:
        """The arrays a file of this structure holds besides ``sums``."""
        return ()

    def _state(self) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None]:
        """``(arrays, fields, labels)`` that :meth:`save` writes besides the sum and seed."""
        return {}, {}, None

    def _restore(self, state: StateFile) -> None:
        """Set the structure's own attributes from a loaded file (the model, seed and sum are
        set); ``ValueError`` (or ``KeyError``/``TypeError``) if they do not fit."""

    def _keep_saved_sums(self, saved: Any, what: str) -> None:
        """Take the saved sum where it is the sum of the items just added again (within
        float rounding); ``ValueError`` where it is not (an edited file)."""
        have, got = (self.model.backend.to_numpy(x) for x in (self.sums, saved))
        n_items = max(1, len(self))  # type: ignore[arg-type]
        if not np.allclose(got, have, rtol=0, atol=1e-3 * n_items):
            raise ValueError(f"the saved sum is not the sum of the saved {what}")
        self.sums = saved
        self._vector = None


def count_field(fields: dict[str, Any], name: str) -> int:
    """The field ``name`` of a loaded file, an int >= 0 (``ValueError`` otherwise)."""
    value = fields.get(name)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"bad {name} {value!r} in the record")
    return value


def indices_field(fields: dict[str, Any], name: str, bound: int) -> list[int]:
    """The field ``name`` of a loaded file (absent: empty), a list of ints in ``[0, bound)``."""
    value = fields.get(name, [])
    if not isinstance(value, list) or not all(
        isinstance(i, int) and not isinstance(i, bool) and 0 <= i < bound for i in value
    ):
        raise ValueError(f"bad {name} {value!r} in the record")
    return value
