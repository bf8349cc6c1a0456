"""Retrieval: codebooks, item stores (top-k search), cleanup and associative memories."""

from .assoc import AssocStore
from .block_factorizer import BlockCodeFactorizer
from .cleanup import cleanup
from .codebook import Codebook
from .resonator import Resonator, ResonatorResult
from .sharding import shard_rows
from .store import ItemStore, search

__all__ = [
    "AssocStore",
    "BlockCodeFactorizer",
    "Codebook",
    "ItemStore",
    "Resonator",
    "ResonatorResult",
    "cleanup",
    "search",
    "shard_rows",
]
