"""Associative memories: Kanerva's sparse distributed memory, the classical Hopfield
network and the modern (softmax) Hopfield network, for every model whose algebra allows
each, on every backend, batched over cues, saved and loaded in holovec's validated
archive format."""

from .hopfield import Hopfield
from .modern_hopfield import ModernHopfield
from .sdm import SparseDistributedMemory

__all__ = ["Hopfield", "ModernHopfield", "SparseDistributedMemory"]
