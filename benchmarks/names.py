"""The retrieval section's row names, apart from the code that runs it (which imports
holovec), so that results can be read and converted without the library."""

from __future__ import annotations

#: the k of the search rows: ``ItemStore.search(queries, k=K)``
K = 10


def search_key(n_queries: int, n_items: int) -> str:
    """The key of a search row (``Row.key``)."""
    return f"search-{n_queries}x{n_items}"


def bare_operation_name(backend: str, model: str) -> str:
    """What the bare operation of a search row computes on ``backend`` for holovec's
    ``model`` (BSC packed or not: "BSC"); see ``retrieval.bare_operation``."""
    if model == "BSC":
        return "XOR/popcount" if backend == "numpy" else "+-1 float32 matmul"
    return "real matmul" if model == "FHRR" else "matmul"
