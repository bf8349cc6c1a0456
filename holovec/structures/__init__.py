"""Symbolic data structures held in one hypervector: multisets, hash tables, sequences,
stacks, queues, binary trees, graphs and finite-state automata.

Each structure is the bundle of its bound items, kept as a sum so that items are added
and removed exactly (:class:`~holovec.structures.base.Structure`); its reads unbind a key
and clean the result up among the candidates, right with the probability that
:mod:`holovec.capacity` predicts (each structure's ``expected_accuracy`` and ``capacity``).
"""

from .automaton import FiniteStateAutomaton
from .base import Structure
from .graph import Graph
from .hashtable import HashTable, MissingKeyError
from .multiset import Multiset
from .sequence import EmptyStructureError, Queue, Sequence, Stack
from .tree import Tree

__all__ = [
    "EmptyStructureError",
    "FiniteStateAutomaton",
    "Graph",
    "HashTable",
    "MissingKeyError",
    "Multiset",
    "Queue",
    "Sequence",
    "Stack",
    "Structure",
    "Tree",
]
