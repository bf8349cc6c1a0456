"""A finite-state automaton whose transition table is one vector.

A transition ``state --symbol--> next`` is ``bind(permute(next, 1), bind(state, symbol))``:
the key ``bind(state, symbol)`` on the right, as in a record, so ``unbind(table, key)``
recovers ``permute(next, 1)`` for non-commutative models too. The permutation marks the
target (as in :class:`~holovec.encoders.GraphEncoder`'s directed edges, whose source is here
the key): without it a commutative model's table is symmetric in the two states, and
``s --a--> n`` reads as ``n --a--> s`` too. So the model's bind must not let the shift pass
through (HRR's circular convolution does: a ``TypeError``; its inverse is no mark either,
since ``bind(inverse(n), n)`` is the identity for every self-loop). The automaton also
keeps its transitions, so that they are removed exactly and the states are known as
cleanup candidates.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import numpy as np

from .._format.state import StateFile
from .._params import FINITE
from ..models.base import VSAModel
from ..models.registry import require_capability
from ._items import distinct, n_candidates_or, planned_accuracy, planned_capacity
from .base import Structure
from .graph import MARK_NEEDS, shift_marks_target

__all__ = ["FiniteStateAutomaton"]


class FiniteStateAutomaton(Structure):
    """A deterministic finite-state automaton as one hypervector.

    Parameters
    ----------
    model : VSAModel
        A model whose bundle is a sum and whose bind a permutation does not pass through
        (MAP, MAP-I, MAP-C, BSC, FHRR, VTB, GHRR; not HRR, see the module docstring).
    start : object, optional
        The start state of :meth:`run` (or give ``start`` there).
    accept : Iterable[object], optional
        The accepting states (for :meth:`accepts`).
    seed : int, optional
        Seed of the state and input symbols.

    Notes
    -----
    Capacity: reading a next state is a key-value lookup among the ``k`` transitions with
    the states as candidates, right with the probability
    ``holovec.capacity.accuracy(model, dim, n_states, k, query="lookup")``
    (:meth:`expected_accuracy`); a run of ``m`` steps is right with about its ``m``-th
    power.

    Examples
    --------
    Binary numbers divisible by 3 (the state is the remainder so far):

    >>> from holovec import VSA
    >>> from holovec.structures import FiniteStateAutomaton
    >>> fsa = FiniteStateAutomaton(VSA.create("MAP", dim=2000), start=0, accept=[0], seed=1)
    >>> fsa.add_transitions([(r, b, (2 * r + int(b)) % 3) for r in range(3) for b in "01"])
    >>> fsa.next_state(2, "1")
    2
    >>> fsa.run("110")
    (0, [0, 1, 0, 0])
    >>> fsa.accepts_batch(["110", "111", "1001"])
    [True, False, True]
    """

    kind: ClassVar[str] = "automaton"

    def __init__(
        self, model: VSAModel, *, start: Any = None, accept: Iterable[Any] = (), seed: int | None = None
    ) -> None:
        super().__init__(model, seed=seed)
        require_capability(model, "FiniteStateAutomaton", shift_marks_target, MARK_NEEDS)
        self.state_table = self.symbols("fsa-state")
        self.symbol_table = self.symbols("fsa-symbol")
        # the digests of (state, symbol) -> (state, symbol, next state): 1 and True are two states
        self._table: dict[tuple[int, int], tuple[Any, Any, Any]] = {}
        self.start = start
        if start is not None:
            self.state_table.digest(start)  # a TypeError for a label of another type
        self.accept = distinct(self.state_table, accept)  # a TypeError for a bad label

    # -- transitions ---------------------------------------------------------------------------
    def _keys(self, states: Sequence[Any], symbols: Sequence[Any]) -> Any:
        """The vectors ``bind(state, symbol)``, ``(n, vector_length)``."""
        return self.model.bind(self.state_table.vectors(states), self.symbol_table.vectors(symbols))

    def _items(self, triples: list[tuple[Any, Any, Any]]) -> Any:
        states, symbols, targets = (list(x) for x in zip(*triples, strict=True))
        model = self.model
        return model.bind(model.permute(self.state_table.vectors(targets), 1), self._keys(states, symbols))

    def add_transition(self, state: Any, symbol: Any, next_state: Any) -> None:
        """Add ``state --symbol--> next_state``; ``ValueError`` if ``(state, symbol)`` has a
        transition (the automaton is deterministic).

        Parameters
        ----------
        state : object
            The state the transition leaves.
        symbol : object
            The input symbol that triggers it.
        next_state : object
            The state it leads to.
        """
        self.add_transitions([(state, symbol, next_state)])

    def add_transitions(self, transitions: Iterable[tuple[Any, Any, Any]]) -> None:
        """Add many ``(state, symbol, next_state)`` transitions at once.

        Parameters
        ----------
        transitions : Iterable[tuple[object, object, object]]
            ``(state, symbol, next_state)`` triples.
        """
        new: dict[tuple[Any, Any], Any] = {}
        for entry in transitions:
            try:
                state, symbol, target = entry
            except (TypeError, ValueError):
                raise ValueError(f"a transition is (state, symbol, next_state), got {entry!r}") from None
            self.state_table.digest(target)  # a TypeError for a label of another type
            key = self._pair(state, symbol)
            if key in self._table or key in new:
                raise ValueError(f"state {state!r} already has a transition on {symbol!r}: remove it first")
            new[key] = (state, symbol, target)
        if not new:
            return
        self._add_items(self._items(list(new.values())), 1)
        self._table.update(new)

    def _pair(self, state: Any, symbol: Any) -> tuple[int, int]:
        """The key of ``(state, symbol)`` in the table: their symbols' digests."""
        return self.state_table.digest(state), self.symbol_table.digest(symbol)

    def remove_transition(self, state: Any, symbol: Any) -> Any:
        """Take ``state --symbol--> ...`` away (exactly) and return its next state;
        ``ValueError`` if there is none.

        Parameters
        ----------
        state : object
            The state the transition leaves.
        symbol : object
            The input symbol that triggers it.
        """
        key = self._pair(state, symbol)
        if key not in self._table:
            raise ValueError(f"no transition from state {state!r} on {symbol!r}")
        triple = self._table.pop(key)
        self._add_items(self._items([triple]), -1)
        return triple[2]

    def clear(self) -> None:
        """Remove every transition (the start and accepting states stay)."""
        self._table.clear()
        self._reset()

    def __len__(self) -> int:
        return len(self._table)

    @property
    def transitions(self) -> dict[tuple[Any, Any], Any]:
        """The transitions added (and not removed): ``{(state, symbol): next_state}``."""
        return {(s, a): n for s, a, n in self._table.values()}

    @property
    def states(self) -> list[Any]:
        """Every state named: of the transitions, the start and the accepting states."""
        named = [x for s, _, n in self._table.values() for x in (s, n)]
        return distinct(
            self.state_table, [*([] if self.start is None else [self.start]), *named, *self.accept]
        )

    @property
    def alphabet(self) -> list[Any]:
        """The input symbols of the transitions."""
        return distinct(self.symbol_table, (a for _, a, _ in self._table.values()))

    @property
    def threshold(self) -> float:
        """``4.5/sqrt(dim)``: an unrelated state's similarity, about ``N(0, 1/dim)``,
        reaches it with probability about 3.4e-6 (:meth:`decode`'s default)."""
        return 4.5 / math.sqrt(self.model.dim)

    # -- reading the vector ----------------------------------------------------------------------
    def _check_known(self, labels: list[Any], known: list[Any], what: str) -> None:
        have = set(map(self.state_table.digest if what == "state" else self.symbol_table.digest, known))
        table = self.state_table if what == "state" else self.symbol_table
        for label in labels:
            if table.digest(label) not in have:
                shown = ", ".join(map(repr, known[:10])) + (" ..." if len(known) > 10 else "")
                raise ValueError(
                    f"unknown {what} {label!r}: the automaton's {what}s are {shown or 'none yet'}"
                )

    def lookup(self, states: Sequence[Any], symbols: Sequence[Any]) -> tuple[list[Any], np.ndarray]:
        """The next state of each ``(states[i], symbols[i])`` read from the vector, and its
        similarity (host floats): ``unbind(table, bind(state, symbol))``, un-permuted, the
        nearest of :attr:`states`, all pairs in one similarity matrix. Each is right with
        the probability :meth:`expected_accuracy`; a pair without a transition gives an
        unrelated state of similarity about 0 (see :meth:`next_state`).

        Parameters
        ----------
        states : Sequence[object]
            The states to read from.
        symbols : Sequence[object]
            The symbol read in each state (as long as ``states``).
        """
        states, symbols = list(states), list(symbols)
        if len(states) != len(symbols):
            raise ValueError(f"{len(states)} states and {len(symbols)} symbols: give one symbol per state")
        if not self._table:
            raise ValueError("the automaton has no transitions yet")
        known = self.states
        self._check_known(states, known, "state")
        self._check_known(symbols, self.alphabet, "symbol")
        if not states:
            return [], np.zeros(0)
        model = self.model
        noisy = model.permute(model.unbind(self.vector[None, :], self._keys(states, symbols)), -1)
        sims = model.backend.to_numpy(model.similarity_matrix(noisy, self.state_table.vectors(known)))
        best = np.argmax(sims, axis=1)  # the first of equal maxima: the lowest row
        return [known[i] for i in best], np.take_along_axis(sims, best[:, None], axis=1)[:, 0]

    def next_state(self, state: Any, symbol: Any, threshold: float | None = None) -> Any:
        """The next state after ``state`` on ``symbol`` (lists of both: a list, one
        similarity matrix). With ``threshold``, a read below it is ``None`` (no
        transition; e.g. :attr:`threshold`). Accuracy: :meth:`lookup`. Unknown states and
        symbols are a ``ValueError``.

        Parameters
        ----------
        state : object
            A state, or a list of states.
        symbol : object
            A symbol, or a list of symbols (one per state).
        threshold : float, optional
            Similarity a read must reach; ``None`` for :attr:`threshold`.
        """
        several = isinstance(state, list)
        found, sims = self.lookup(state if several else [state], symbol if several else [symbol])
        if threshold is not None:
            limit = FINITE.check("threshold", threshold)
            found = [f if s >= limit else None for f, s in zip(found, sims, strict=True)]
        return found if several else found[0]

    def run_batch(
        self, inputs: Iterable[Sequence[Any]], start: Any = None, threshold: float | None = None
    ) -> list[tuple[Any, list[Any]]]:
        """Run many inputs (each a sequence of symbols; a str is one of characters) from
        ``start`` (default :attr:`start`): ``[(final_state, path), ...]``, ``path`` the
        states visited, start first. One lookup per step for all inputs; with
        ``threshold``, a step read below it ends that run in ``None``. A run of ``m`` steps
        is right with about ``expected_accuracy() ** m``.

        Parameters
        ----------
        inputs : Iterable[Sequence[object]]
            The inputs, each a sequence of symbols (a str: its characters).
        start : object, optional
            The state each run starts from; ``None`` for :attr:`start`.
        threshold : float, optional
            Similarity each step must reach (a step below it ends the run in ``None``);
            ``None`` reads every step.
        """
        start = self.start if start is None else start
        if start is None:
            raise ValueError("no start state: give start= here or to the automaton")
        words = [list(w) for w in inputs]
        paths: list[list[Any]] = [[start] for _ in words]
        longest = max(map(len, words), default=0)
        for t in range(longest):  # one batched lookup per step
            live = [i for i, w in enumerate(words) if len(w) > t and paths[i][-1] is not None]
            if not live:
                break
            step = self.next_state([paths[i][-1] for i in live], [words[i][t] for i in live], threshold)
            for i, s in zip(live, step, strict=True):
                paths[i].append(s)
        return [(p[-1], p) for p in paths]

    def run(
        self, symbols: Sequence[Any], start: Any = None, threshold: float | None = None
    ) -> tuple[Any, list[Any]]:
        """Run one input: ``(final_state, path)`` (see :meth:`run_batch`).

        Parameters
        ----------
        symbols : Sequence[object]
            The input, a sequence of symbols (a str: its characters).
        start : object, optional
            The state the run starts from; ``None`` for :attr:`start`.
        threshold : float, optional
            Similarity each step must reach (a step below it ends the run in ``None``);
            ``None`` reads every step.
        """
        if not isinstance(symbols, (str, Sequence)):
            raise TypeError(f"run takes a sequence of symbols (or a str), got {type(symbols).__name__}")
        return self.run_batch([symbols], start, threshold)[0]

    def accepts_batch(self, inputs: Iterable[Sequence[Any]], start: Any = None) -> list[bool]:
        """Whether each input ends in an accepting state (:attr:`accept`).

        Parameters
        ----------
        inputs : Iterable[Sequence[object]]
            The inputs, each a sequence of symbols (a str: its characters).
        start : object, optional
            The state each run starts from; ``None`` for :attr:`start`.
        """
        accept = set(map(self.state_table.digest, self.accept))
        return [
            f is not None and self.state_table.digest(f) in accept for f, _ in self.run_batch(inputs, start)
        ]

    def accepts(self, symbols: Sequence[Any], start: Any = None) -> bool:
        """Whether one input ends in an accepting state.

        Parameters
        ----------
        symbols : Sequence[object]
            The input, a sequence of symbols (a str: its characters).
        start : object, optional
            The state the run starts from; ``None`` for :attr:`start`.
        """
        return self.accepts_batch([symbols], start)[0]

    def decode(self, threshold: float | None = None) -> dict[tuple[Any, Any], Any]:
        """The transition table read from the vector: every (state, symbol) pair of
        :attr:`states` and :attr:`alphabet`, in one similarity matrix, whose read reaches
        ``threshold`` (default :attr:`threshold`). Each transition is right with the
        probability :meth:`expected_accuracy`; a pair without one passes with about 3.4e-6.

        Parameters
        ----------
        threshold : float, optional
            Similarity a read must reach; ``None`` for :attr:`threshold`.
        """
        if not self._table:
            return {}
        limit = self.threshold if threshold is None else FINITE.check("threshold", threshold)
        pairs = [(s, a) for s in self.states for a in self.alphabet]
        found, sims = self.lookup([s for s, _ in pairs], [a for _, a in pairs])
        return {p: f for p, f, s in zip(pairs, found, sims, strict=True) if s >= limit}

    # -- capacity ------------------------------------------------------------------------------
    def expected_accuracy(self, n_candidates: int | None = None) -> float:
        """The planner's probability that one next state reads right at this size: ``k``
        transitions, ``n_candidates`` states (default: :attr:`states`),
        ``holovec.capacity.accuracy(..., query="lookup")``.

        Parameters
        ----------
        n_candidates : int, optional
            Number of states to plan for; ``None`` for :attr:`states`.
        """
        return planned_accuracy(
            self.model, n_candidates_or(n_candidates, len(self.states)), len(self), "lookup"
        )

    def capacity(self, accuracy: float = 0.99, n_candidates: int | None = None) -> int:
        """The most transitions read right with probability ``accuracy`` each at this
        dimension, among ``n_candidates`` states (default: :attr:`states`;
        ``holovec.capacity.max_items(..., query="lookup")``).

        Parameters
        ----------
        accuracy : float, optional
            Probability with which each item must read right.
        n_candidates : int, optional
            Number of states to plan for; ``None`` for :attr:`states`.
        """
        return planned_capacity(
            self.model, n_candidates_or(n_candidates, len(self.states)), accuracy, "lookup"
        )

    # -- repr and files ------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (
            f"FiniteStateAutomaton({len(self)} transitions, {len(self.states)} states, "
            f"model={self.model!r}, seed={self.seed})"
        )

    def _state(self) -> tuple[dict[str, Any], dict[str, Any], list[Any] | None]:
        flat = [x for triple in self._table.values() for x in triple]
        has_start = self.start is not None
        labels = [*flat, *self.accept, *([self.start] if has_start else [])]
        return {}, {"transitions": len(self), "accept": len(self.accept), "start": has_start}, labels

    def _restore(self, state: StateFile) -> None:
        f = state.fields
        n, n_accept, has_start = f.get("transitions"), f.get("accept"), f.get("start")
        if not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in (n, n_accept)):
            raise ValueError("bad fields in the record (transitions, accept)")
        if not isinstance(has_start, bool):
            raise ValueError("bad field in the record (start)")
        labels = state.labels or []
        if len(labels) != 3 * n + n_accept + has_start:
            raise ValueError(f"the record lists {len(labels)} labels for {n} transitions")
        sums = state.arrays["sums"]
        accept = labels[3 * n : 3 * n + n_accept]
        start = labels[-1] if has_start else None
        FiniteStateAutomaton.__init__(self, self.model, start=start, accept=accept, seed=self.seed)
        triples = list(zip(labels[0 : 3 * n : 3], labels[1 : 3 * n : 3], labels[2 : 3 * n : 3], strict=True))
        # the transitions again, in blocks of bounded memory: a sum that does not fit is refused
        self._add_saved(triples, self.add_transitions, 3, sums, "transitions")

    def _forget_symbols(self) -> None:
        self.state_table, self.symbol_table = self.symbols("fsa-state"), self.symbols("fsa-symbol")
