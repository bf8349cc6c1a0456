"""Symbolic data structures held in one hypervector."""

import importlib

_WHERE = {
    "Multiset": ".multiset",
    "HashTable": ".hashtable",
    "Sequence": ".sequence",
    "Stack": ".sequence",
    "Queue": ".sequence",
    "Tree": ".tree",
    "Graph": ".graph",
    "FiniteStateAutomaton": ".automaton",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str):  # while the modules are written (temporary)
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name], __name__), name)
    raise AttributeError(name)
