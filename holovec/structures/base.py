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

from collections.abc import Callable, Iterable
from os import PathLike
from typing import Any, ClassVar

import numpy as np

from .._format.state import StateFile, load_state, save_state
from ..encoders import SymbolTable
from ..models.base import CHUNK_BYTES, VSAModel
from ..models.registry import require_capability
from ..random import check_seed, fresh_seed

__all__ = ["Structure"]


def _keeps_sums(model: Any) -> bool:
    return bool(model.bundle_is_sum)


class Structure:
    """Base class of the structures (see the module docstring).

    Subclasses set :attr:`kind` (the file format's name) and define ``_state`` (the
    arrays, fields and labels that save writes besides the sum) and ``_restore`` (the
    inverse, given a :class:`~holovec._format.state.StateFile`).

    Parameters
    ----------
    model : VSAModel
        The model whose vectors hold the structure.
    seed : int, optional
        Seed of the structure's symbols; ``None`` draws them from the model's generator.
    """

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
        """The table of this structure's symbols in ``namespace`` (seeded by :attr:`seed`).

        Parameters
        ----------
        namespace : str
            The namespace of the symbols (each role of a structure has its own).
        """
        return SymbolTable(self.model, seed=self.seed, namespace=namespace)

    def saved_symbols(self, namespace: str, labels: Iterable[Any]) -> SymbolTable:
        """The table of :meth:`symbols` that has seen ``labels`` (a loaded file's) and draws
        their vectors when they are asked for (see :class:`SavedSymbols`), not now: loading
        a structure then costs what its file holds, not a vector per label.

        Parameters
        ----------
        namespace : str
            The table's namespace (as :meth:`symbols`).
        labels : iterable
            The labels seen, in the order first seen (repeats are seen once).

        Returns
        -------
        SymbolTable
            A table equal in every answer to one that looked ``labels`` up.
        """
        return SavedSymbols.of(self.symbols(namespace), labels)

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
        the seed, the sum and the structure's own fields).

        Parameters
        ----------
        path : str | PathLike
            The file to write (``.npz``).
        """
        arrays, fields, labels = self._state()
        fields = {"seed": str(self.seed), **fields}
        save_state(path, f"structures.{self.kind}", self.model, {"sums": self.sums, **arrays}, fields, labels)

    @classmethod
    def load(
        cls, path: str | PathLike, model: VSAModel | None = None, *, backend: Any = None, device: Any = None
    ) -> Structure:
        """Read a structure :meth:`save` wrote.

        Loading is bounded by the file: the model's dim by the saved sum (checked before
        the model is made), and no label's vector is drawn (the labels seen draw theirs
        when they are asked for), except where the saved items are added again to check
        the saved sum (graphs, automata): then in blocks of bounded memory, in the time
        their adding takes.

        Parameters
        ----------
        path : str or path-like
            The ``.npz`` file.
        model : VSAModel or None
            The model the file must be of (same name, dim, dtype and options); None: the
            model is made from the file.
        backend : str or None
            Where a model made from the file computes (default: the backend it was saved
            from); only without ``model``.
        device : str or None
            Its device (default: the backend's best); only without ``model``.

        Returns
        -------
        Structure
            The structure, of this class.

        Raises
        ------
        ValueError
            For a file of another kind, a damaged or edited one, or one whose record and
            arrays disagree (a sum of another shape, counts the labels do not back).
        """
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

    def _forget_symbols(self) -> None:
        """Drop the vectors the structure's symbol tables keep (they are drawn again when
        next needed): what :meth:`_add_saved` calls after each block. Structures that add
        their saved items again at load define it."""

    def _add_saved(
        self, items: list[Any], add: Callable[[list[Any]], None], labels_per_item: int, saved: Any, what: str
    ) -> None:
        """Add a loaded file's ``items`` again with ``add`` (a list of them at a time) and
        keep the ``saved`` sum where it is theirs (``ValueError`` if not).

        In blocks of about :data:`~holovec.models.base.CHUNK_BYTES` of vectors, forgetting
        the symbols' vectors after each (:meth:`_forget_symbols`): a file that names many
        labels costs the time of adding its items, and memory of one block, not a vector
        per label.

        Parameters
        ----------
        items : list
            The saved items (edges, transitions, ...), as ``add`` takes them.
        add : callable
            Adds a list of items to the structure (its own checks included).
        labels_per_item : int
            The vectors each item draws (2 for an edge, 3 for a transition).
        saved : array
            The sum the file holds.
        what : str
            The items' name, for the message ("edges").
        """
        m = self.model
        # the labels' vectors, their binds and lifted forms: a few vectors of 8 bytes an element
        per_item = 32 * labels_per_item * max(m.dim, m.vector_length)
        block = max(1, CHUNK_BYTES // per_item)
        for start in range(0, len(items), block):
            add(items[start : start + block])
            self._forget_symbols()
        self._keep_saved_sums(saved, what)

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


class SavedSymbols(SymbolTable):
    """A :class:`~holovec.encoders.SymbolTable` made from a file (by
    :meth:`Structure.saved_symbols`): it knows the labels seen, in their saved order, and
    draws none of their vectors until asked, so that a load draws nothing.

    Vectors of fewer labels than are saved, all of them seen, are drawn alone (a count or
    a lookup costs its own labels); anything else (a decode among all the labels seen, a
    new label, the matrix) first draws and keeps every saved label's vector, in one draw.
    Every answer is that of a table that looked the labels up; only the table's public
    methods are called, so that it follows their changes."""

    #: digest -> label of the saved labels not drawn yet (replaced, never changed in place)
    _saved: dict[int, Any] = {}  # noqa: RUF012

    @classmethod
    def of(cls, table: SymbolTable, labels: Iterable[Any]) -> SavedSymbols:
        """A table that has seen ``labels`` and draws their vectors when asked.

        Parameters
        ----------
        table : SymbolTable
            An empty table whose model, seed and namespace the new one has.
        labels : iterable
            The labels seen, in the order first seen (repeats are seen once).

        Returns
        -------
        SavedSymbols
            The table; ``TypeError`` for a label that is no symbol.
        """
        out = cls(table.model, seed=table.seed, namespace=table.namespace)
        saved: dict[int, Any] = {}
        for label in labels:
            saved.setdefault(out.digest(label), label)  # a TypeError for a label of no symbol
        out._saved = saved
        return out

    def _draw_saved(self) -> None:
        """Draw the saved labels' vectors into the table (first, in the saved order)."""
        if self._saved:
            saved, self._saved = self._saved, {}  # cleared first: the table's own methods may call ours
            try:
                SymbolTable.rows(self, list(saved.values()))
            except BaseException:
                if not SymbolTable.__len__(self):
                    self._saved = saved
                raise

    def __contains__(self, label: Any) -> bool:
        return self.digest(label) in self._saved or super().__contains__(label)

    def __len__(self) -> int:
        return len(self._saved) + super().__len__()

    @property
    def labels(self) -> list[Any]:
        return [*self._saved.values(), *super().labels]

    @property
    def matrix(self) -> Any:
        self._draw_saved()
        return super().matrix

    def rows(self, labels: Iterable[Any]) -> np.ndarray:
        self._draw_saved()
        return super().rows(labels)

    def vectors(self, labels: Iterable[Any]) -> Any:
        if self._saved and not isinstance(labels, (str, bytes)):
            labels = list(labels)
            # fewer labels than are saved, all seen: the same vectors drawn alone (a count
            # costs its labels); as many (a decode among them all): the table drawn and kept
            if 0 < len(labels) < len(self._saved) and all(self.digest(x) in self._saved for x in labels):
                return self.draw(labels)
        self._draw_saved()
        return super().vectors(labels)

    def decode(self, vectors: Any, candidates: Iterable[Any] | None = None) -> Any:
        self._draw_saved()
        return super().decode(vectors, candidates)

    def __repr__(self) -> str:  # the table it stands for
        return "SymbolTable" + super().__repr__()[len(type(self).__name__) :]

    def repr_without_model(self) -> str:
        return "SymbolTable" + super().repr_without_model()[len(type(self).__name__) :]
