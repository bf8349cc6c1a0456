"""Associative memories: Kanerva's sparse distributed memory, the classical Hopfield
network and the modern (softmax) Hopfield network, for every model whose algebra allows
each, on every backend, batched over cues."""

import importlib

_WHERE = {
    "Hopfield": ".hopfield",
    "ModernHopfield": ".modern_hopfield",
    "SparseDistributedMemory": ".sdm",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str):  # while the modules are written (temporary)
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name], __name__), name)
    raise AttributeError(name)
