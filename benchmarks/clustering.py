"""The clustering section: ``holovec.learn.HDKMeans`` next to scikit-learn's ``KMeans``.

On the raw features of digits (10 clusters) and iris (3 clusters), for seeds 0, 1, 2
(``--quick``: seed 0, dimension 1,000 unless ``--dim`` is given), each backend asked for
fits ``HDKMeans(k, dim=D, seed=s)`` (FHRR, its default encoder) and scikit-learn's
``KMeans(k, random_state=s)`` (its defaults: k-means++, one run), one call each per seed.
A row gives the fit time of each (the least over the seeds, and the median) and, in its
info lines, the adjusted Rand index of the clusters with the classes (mean and lowest over
the seeds) and the issue's goal: HDKMeans's mean at least 0.9 times KMeans's.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, Column
from .rows import Row
from .sizes import Settings
from .tables import Section
from .timing import Timing

SEEDS, QUICK_SEEDS = (0, 1, 2), (0,)
#: the dimension of a --quick run (without --dim)
QUICK_DIM = 1_000
#: the issue's goal: mean ARI of HDKMeans >= this times KMeans's on the same raw data
GOAL = 0.9
#: (data set, loader name in sklearn.datasets, number of clusters)
DATASETS = (("digits", "load_digits", 10), ("iris", "load_iris", 3))


def _fits(fit: Callable[[int], Any], seeds: tuple[int, ...], y: Any) -> tuple[Timing, list[float]]:
    """Each seed's fit (returning its labels, host arrays: the fit has finished) timed
    once, and its ARI with ``y``."""
    from sklearn.metrics import adjusted_rand_score

    times, aris = [], []
    for seed in seeds:
        start = time.perf_counter()
        labels = fit(seed)
        times.append(time.perf_counter() - start)
        aris.append(float(adjusted_rand_score(y, labels)))
    return Timing(min(times), statistics.median(times), len(times), 1), aris


def run(settings: Settings, backends: list[str]) -> list[Row]:
    import sklearn.datasets
    from sklearn.cluster import KMeans

    from holovec.learn import HDKMeans

    seeds = QUICK_SEEDS if settings.quick else SEEDS
    dim = QUICK_DIM if settings.quick and not settings.dim_given else settings.dim
    rows = []
    theirs: dict[str, tuple[Timing, list[float]]] = {}  # KMeans runs once, shown in every table
    for backend in backends:
        for name, loader, k in DATASETS:
            X, y = getattr(sklearn.datasets, loader)(return_X_y=True)
            settings.say(f"[{backend}] clustering: {name}, HDKMeans dim {dim:,}, {len(seeds)} seed(s)")
            if name not in theirs:
                theirs[name] = _fits(lambda s, k=k, X=X: KMeans(k, random_state=s).fit(X).labels_, seeds, y)
            ours = _fits(
                lambda s, k=k, X=X, b=backend: HDKMeans(k, dim=dim, random_state=s, backend=b).fit(X).labels_,
                seeds, y,
            )  # fmt: skip
            row = Row(
                "clustering", backend, "FHRR", name, f"{name}, k={k}, {len(X):,} samples, D={dim:,}",
                baseline_name="KMeans",
            )  # fmt: skip
            row.times["holovec"], row.times["baseline"] = ours[0], theirs[name][0]
            row.info += _ari_lines(ours[1], theirs[name][1])
            rows.append(row)
    return rows


def _ari_lines(ours: list[float], theirs: list[float]) -> list[str]:
    a, b = statistics.mean(ours), statistics.mean(theirs)
    met = "met" if a >= GOAL * b else "NOT met"
    return [
        f"ARI HDKMeans {a:.3f} (lowest {min(ours):.3f}), KMeans {b:.3f} (lowest {min(theirs):.3f}); "
        f"ratio {a / b:.2f}, goal >= {GOAL}: {met}"
    ]


SECTION = Section(
    "clustering",
    (
        MODEL,
        LABEL,
        HOLOVEC.named("HDKMeans fit"),
        BASELINE.named("KMeans fit"),
        RATIO,
        Column("seeds", lambda row: str(row.times["holovec"].samples)),
    ),
    title="clustering, backend: {backend}",
    intro=(
        "clustering: HDKMeans (FHRR, default encoder) and scikit-learn's KMeans on the raw features; "
        "fit: the least over the seeds of one call each; ARI: adjusted Rand index with the classes",
    ),
    run=run,
    needs=("sklearn",),
)

if __name__ == "__main__":  # python -m benchmarks.clustering [--quick]
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
