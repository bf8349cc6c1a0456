"""The canonical-order section: what the canonical order of a search costs (issue 19: one
answer on every machine).

For each case (model, dim, items, queries, k), NumPy:

- holovec: ``search``, holovec's search of an indexed codebook (``ItemStore.search``): the
  fast product's candidates, then their canonical scores (fixed-order float64 sums) and order;
- ``fast only``: the same search without the canonical step (its order of near-equal
  scores may depend on the machine, the chunk size and the thread count);
- hand-written: one NumPy product of the queries with the items' real view, a division by
  the norms, and ``argpartition`` plus ``argsort`` of the top k.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, ratio_column, time_column
from .rows import Row
from .sizes import Settings
from .tables import Section

#: (model, dim, items, queries, k)
CASES = [
    ("FHRR", 1_000, 3_000, 20, 10),
    ("FHRR", 1_000, 3_000, 1_000, 10),
    ("HRR", 10_000, 100_000, 100, 10),
    ("FHRR", 10_000, 20_000, 1_000, 1),
]
QUICK = [("FHRR", 256, 500, 10, 5), ("HRR", 256, 500, 10, 5)]


def hand_written(queries: np.ndarray, items: np.ndarray, k: int) -> np.ndarray:
    real = (lambda x: x.view(np.float32)) if np.iscomplexobj(items) else (lambda x: x)
    q, b = real(queries), real(items)
    scores = (q @ b.T) / np.outer(np.linalg.norm(q, axis=1), np.linalg.norm(b, axis=1))
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    return np.take_along_axis(top, np.argsort(-np.take_along_axis(scores, top, 1), axis=1), 1)


def run(settings: Settings, backends: list[str]) -> list[Row]:
    from holovec import VSA
    from holovec.retrieval._index import SearchIndex, search_indexed

    rows = []
    for name, dim, n, n_q, k in QUICK if settings.quick else CASES:
        if not settings.picked([name]):
            continue
        settings.say(f"[numpy] canonical-order: {name} D={dim} {n_q} x {n}")
        model = VSA.create(name, dim=dim)
        items, queries = model.random(n, seed=1), model.random(n_q, seed=2)
        search = partial(search_indexed, model, queries, SearchIndex(model, items), k, None)
        label = f"D={dim:,}, {n:,} items, {n_q:,} queries, k={k}"
        row = Row("canonical-order", "numpy", name, f"{dim}-{n}-{n_q}-{k}", label)
        row.times["holovec"] = settings.measure(search)
        row.times["fast"] = settings.measure(partial(search, canonical=False))
        row.times["baseline"] = settings.measure(partial(hand_written, queries, items, k))
        rows.append(row)
    return rows


SECTION = Section(
    "canonical-order",
    (
        MODEL,
        LABEL.named("case"),
        HOLOVEC.named("search"),
        time_column("fast", "fast only"),
        BASELINE.named("hand-written"),
        ratio_column("holovec", "fast", "search/fast"),
        RATIO.named("search/hand-written"),
    ),
    title="canonical order of a search, backend: {backend}",
    intro=(
        "canonical-order: ItemStore.search with the canonical scores of its candidates (search) and "
        "without (fast only), next to a NumPy product, argpartition and argsort",
    ),
    run=run,
    supports=("numpy",),
)

if __name__ == "__main__":  # python -m benchmarks.canonical_order [--quick]: the old spelling
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
