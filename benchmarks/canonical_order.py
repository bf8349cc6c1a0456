"""What the canonical order of a search costs (issue 19: one answer on every machine).

For each case (model, dim, items, queries, k), the minimum time of

- ``search``: holovec's search of an indexed codebook (``ItemStore.search``): the fast
  product's candidates, then their canonical scores (fixed-order float64 sums) and order;
- ``fast only``: the same search without the canonical step (its order of near-equal
  scores may depend on the machine, the chunk size and the thread count);
- ``hand-written``: one NumPy product of the queries with the items' real view, a
  division by the norms, and ``argpartition`` plus ``argsort`` of the top k.

Never asserted in tests. Run::

    python -m benchmarks.canonical_order [--quick] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import numpy as np

from ._args import positive_int

#: (model, dim, items, queries, k)
CASES = [
    ("FHRR", 1_000, 3_000, 20, 10),
    ("FHRR", 1_000, 3_000, 1_000, 10),
    ("HRR", 10_000, 100_000, 100, 10),
    ("FHRR", 10_000, 20_000, 1_000, 1),
]
QUICK = [("FHRR", 256, 500, 10, 5), ("HRR", 256, 500, 10, 5)]


def best_time(fn: Callable[[], object], repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def hand_written(queries: np.ndarray, items: np.ndarray, k: int) -> np.ndarray:
    real = (lambda x: x.view(np.float32)) if np.iscomplexobj(items) else (lambda x: x)
    q, b = real(queries), real(items)
    scores = (q @ b.T) / np.outer(np.linalg.norm(q, axis=1), np.linalg.norm(b, axis=1))
    top = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    return np.take_along_axis(top, np.argsort(-np.take_along_axis(scores, top, 1), axis=1), 1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.canonical_order", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="tiny cases (a smoke run)")
    parser.add_argument("--repeats", type=positive_int, default=3, help="timed calls per cell (best)")
    args = parser.parse_args(argv)

    from holovec import VSA
    from holovec.retrieval.store import SearchIndex, _search_index

    print(f"{'case':<44} {'search':>10} {'fast only':>10} {'hand-written':>13} {'search/fast':>12}")
    for name, dim, n, n_q, k in QUICK if args.quick else CASES:
        model = VSA.create(name, dim=dim)
        items, queries = model.random(n, seed=1), model.random(n_q, seed=2)
        index = SearchIndex(model, items)
        search = partial(_search_index, model, queries, index, k, None)
        full = best_time(search, args.repeats)
        fast = best_time(partial(search, canonical=False), args.repeats)
        bare = best_time(partial(hand_written, queries, items, k), args.repeats)
        case = f"{name} D={dim:,} items={n:,} queries={n_q:,} k={k}"
        times = f"{full * 1e3:>8.1f}ms {fast * 1e3:>8.1f}ms {bare * 1e3:>11.1f}ms"
        print(f"{case:<44} {times} {full / fast:>11.2f}x")


if __name__ == "__main__":
    main()
