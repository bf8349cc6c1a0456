"""The robustness section: accuracy against flipped elements of the stored state (issue 34, item 6).

Digits from scikit-learn (70/30, stratified, ``random_state`` 0). Each learner of
``LEARNERS`` (``--quick``: ``QUICK_LEARNERS``, their retraining epochs cut to
``QUICK_EPOCHS``) is fitted on MAP and on FHRR at ``--dim`` (default 10,000; ``--quick``:
2,000), then scored with a fraction ``p`` of the elements of its fitted prototypes
sign-flipped, ``holovec.noise.perturb(est, "flip", p, seed=...)``, at each level of
``LEVELS`` (``--quick``: ``QUICK_LEVELS``). Each memory (MAP) stores random patterns and
recalls noisy cues (``CUE_NOISE`` of their elements flipped) with its stored state flipped
alike: the classical and the modern Hopfield network (their patterns), a sparse
distributed memory (its counters) and a codebook's cleanup (its vectors: the nearest noisy
vector to the cue). Its accuracy is the fraction of cues whose recall's nearest clean
pattern is the right one.

A row's times: one ``perturb`` call at ``TIMED_LEVEL`` (holovec) next to the same flip
written by hand in NumPy on the same array (a copy, then ``round(p w)`` random elements of
each row of width ``w`` negated); each perturbed array is checked to have exactly that many
changed elements per row. The table's level columns are the accuracies; an info line gives,
for each level, the measured mean similarity (cosine) of each perturbed vector with its
clean self next to ``holovec.noise.expected_similarity``'s closed form, ``1 - 2p``: a
prototype, a pattern or a counter read by similarity keeps that fraction of its similarity,
in expectation, to every query alike, so that the ranking of the classes (or patterns) holds
until the variance of the flips outgrows their margins.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, Column
from .rows import Row
from .sizes import Settings
from .tables import Section

#: the flipped fractions of the stored state
LEVELS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4)
QUICK_LEVELS = (0.0, 0.1, 0.3)
#: the level whose perturb call is timed
TIMED_LEVEL = 0.1
QUICK_DIM = 2_000
MODELS = ("MAP", "FHRR")
LEARNERS = (
    "CentroidClassifier",
    "AdaptHDClassifier",
    "OnlineHDClassifier",
    "QuantHDClassifier",
    "SparseHDClassifier",
)
QUICK_LEARNERS = ("CentroidClassifier", "AdaptHDClassifier")
#: the retraining learners' epochs with --quick (None: their defaults)
QUICK_EPOCHS = 2
#: the memories' stored patterns: one per this many dimensions (at least MIN_PATTERNS)
DIMS_PER_PATTERN, MIN_PATTERNS = 20, 10
#: the cues recalled: the first patterns, at most this many
CUES = 100
#: fraction of a cue's elements flipped
CUE_NOISE = 0.2
#: the sparse distributed memory's locations: one per this many dimensions
DIMS_PER_LOCATION = 5
SEED = 1


@dataclass
class RobustnessRow(Row):
    """A row of the robustness section: the accuracy at each flipped fraction (by ``f"{p:g}"``)."""

    accuracy: dict[str, float] = field(default_factory=dict)


def _level_column(p: float) -> Column:
    def cell(row: Row) -> str:
        value = getattr(row, "accuracy", {}).get(f"{p:g}")
        return "-" if value is None else f"{value:.3f}"

    return Column(f"p={p:g}", cell)


def hand_flip(a: np.ndarray, p: float, seed: int) -> np.ndarray:
    """A copy of ``a`` (2-d) with ``round(p w)`` random elements of each row negated."""
    n, w = a.shape
    k = round(p * w)
    out = a.copy()
    if k:
        rng = np.random.default_rng(seed)
        idx = np.argpartition(rng.random((n, w)), k - 1, axis=1)[:, :k]
        np.put_along_axis(out, idx, -np.take_along_axis(a, idx, axis=1), axis=1)
    return out


def _cosines(clean: np.ndarray, noisy: np.ndarray) -> float:
    """The mean cosine of each row with its noisy self (complex rows: of their real views),
    over the rows that are not all zero (an SDM's locations that nothing was written to)."""
    if np.iscomplexobj(clean):
        clean, noisy = clean.view(clean.real.dtype), noisy.view(noisy.real.dtype)
    clean, noisy = clean.astype(np.float64), noisy.astype(np.float64)
    num = np.sum(clean * noisy, axis=1)
    den = np.linalg.norm(clean, axis=1) * np.linalg.norm(noisy, axis=1)
    kept = den > 0
    return float(np.mean(num[kept] / den[kept]))


def _flip_check(clean: np.ndarray, noisy: np.ndarray, p: float) -> str | None:
    """None where every row has exactly ``round(p w)`` elements changed (an element at 0
    cannot change), else what differs."""
    if np.iscomplexobj(clean):
        clean, noisy = clean.view(clean.real.dtype), noisy.view(noisy.real.dtype)
    k = round(p * clean.shape[1])
    changed = np.sum(clean != noisy, axis=1)
    zeros = np.sum(clean == 0, axis=1)
    if np.all((changed <= k) & (changed >= k - zeros)):
        return None
    return f"changes {int(changed.min())}-{int(changed.max())} elements per row, not {k}"


def _similarity_line(what: str, model: Any, measured: dict[float, float]) -> str:
    from holovec import noise

    parts = [
        f"p={p:g} {s:.3f} (predicted {noise.expected_similarity(model, 'flip', p):.3f})"
        for p, s in measured.items()
    ]
    return f"similarity of the {what} with their clean selves: " + ", ".join(parts)


def run(settings: Settings, backends: list[str]) -> list[Row]:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    dim = QUICK_DIM if settings.quick and not settings.dim_given else settings.dim
    levels = QUICK_LEVELS if settings.quick else LEVELS
    learners = QUICK_LEARNERS if settings.quick else LEARNERS
    X, y = load_digits(return_X_y=True)
    split = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    rows: list[Row] = []
    for backend in backends:
        for model in settings.picked(MODELS):
            settings.say(f"[{backend}] robustness: {model} learners, dim {dim:,}")
            rows += [_learner_row(settings, backend, model, name, dim, levels, split) for name in learners]
        if settings.picked(("MAP",)):
            settings.say(f"[{backend}] robustness: MAP memories, dim {dim:,}")
            rows += _memory_rows(settings, backend, dim, levels)
    return rows


def _learner_row(
    settings: Settings,
    backend: str,
    model: str,
    name: str,
    dim: int,
    levels: tuple[float, ...],
    split: tuple[Any, ...],
) -> RobustnessRow:
    import holovec.learn
    from holovec import noise

    X_train, X_test, y_train, y_test = split
    params: dict[str, Any] = {"model": model, "dim": dim, "random_state": 0, "backend": backend}
    if settings.quick and name != "CentroidClassifier":
        params["epochs"] = QUICK_EPOCHS
    est = getattr(holovec.learn, name)(**params).fit(X_train, y_train)
    label = f"{name.removesuffix('Classifier')}, D={dim:,}"
    row = RobustnessRow("robustness", backend, model, name, label)
    clean = est.model_.to_numpy(est.prototypes_)
    try:
        noisy = {p: noise.perturb(est, "flip", p, seed=SEED) for p in levels}
    except (TypeError, ValueError) as e:  # the learner's fitted state cannot carry the noise
        row.accuracy["0"] = float(est.score(X_test, y_test))
        row.info.append(f"perturb refuses this learner: {e}")
        return row
    for p, e in noisy.items():
        row.accuracy[f"{p:g}"] = float(e.score(X_test, y_test))
    similarity = {p: _cosines(clean, e.model_.to_numpy(e.prototypes_)) for p, e in noisy.items() if p}
    row.info.append(_similarity_line("prototypes", est.model_, similarity))
    row.times["holovec"] = settings.measure(lambda: noise.perturb(est, "flip", TIMED_LEVEL, seed=SEED))
    row.times["baseline"] = settings.measure(lambda: hand_flip(clean, TIMED_LEVEL, SEED))
    for p, e in noisy.items():
        note = _flip_check(clean, e.model_.to_numpy(e.prototypes_), p)
        if note is not None:
            row.notes.append(f"perturb at p={p:g} {note}")
    return row


def _memory_rows(settings: Settings, backend: str, dim: int, levels: tuple[float, ...]) -> list[Row]:
    from holovec import VSA, noise
    from holovec.memory import Hopfield, ModernHopfield, SparseDistributedMemory
    from holovec.retrieval import Codebook

    model = VSA.create("MAP", dim=dim, backend=backend, seed=0)
    n = max(MIN_PATTERNS, dim // DIMS_PER_PATTERN)
    patterns = model.random(n, seed=2)
    n_cues = min(n, CUES)
    cues = noise.flip(model, patterns[:n_cues], CUE_NOISE, seed=3)
    right = np.arange(n_cues)

    def nearest_is_right(recalled: Any, items: Any = patterns) -> float:
        found = np.argmax(model.to_numpy(model.similarity_matrix(recalled, items)), axis=1)
        return float(np.mean(found == right))

    hopfield = Hopfield(model)
    hopfield.store(patterns)
    modern = ModernHopfield(model)
    modern.store(patterns)
    n_locations = max(MIN_PATTERNS, dim // DIMS_PER_LOCATION)
    sdm = SparseDistributedMemory(model, n_locations, seed=4)
    sdm.write(patterns, patterns)
    book = Codebook(model, list(range(n)), patterns)
    cases = (
        ("hopfield", f"Hopfield, {n:,} patterns", hopfield, "patterns",
         lambda m: nearest_is_right(m.recall(cues, iterations=1))),
        ("modern", f"modern Hopfield, {n:,} patterns", modern, "patterns",
         lambda m: nearest_is_right(m.recall(cues))),
        ("sdm", f"SDM, {n_locations:,} locations, {n:,} patterns", sdm, "counters",
         lambda m: nearest_is_right(m.read(cues))),
        ("codebook", f"Codebook cleanup, {n:,} vectors", book, "vectors",
         lambda m: nearest_is_right(cues, m.vectors)),
    )  # fmt: skip
    rows: list[Row] = []
    for key, label, memory, state, recall in cases:
        row = RobustnessRow("robustness", backend, "MAP", key, f"{label}, D={dim:,}")
        clean = model.to_numpy(getattr(memory, state))
        noisy = {p: noise.perturb(memory, "flip", p, seed=SEED) for p in levels}
        for p, m in noisy.items():
            row.accuracy[f"{p:g}"] = recall(m)
        similarity = {p: _cosines(clean, model.to_numpy(getattr(m, state))) for p, m in noisy.items() if p}
        row.info.append(_similarity_line(f"stored {state}", model, similarity))
        row.times["holovec"] = settings.measure(
            lambda memory=memory: noise.perturb(memory, "flip", TIMED_LEVEL, seed=SEED)
        )
        row.times["baseline"] = settings.measure(lambda clean=clean: hand_flip(clean, TIMED_LEVEL, SEED))
        for p, m in noisy.items():
            note = _flip_check(clean, model.to_numpy(getattr(m, state)), p)
            if note is not None:
                row.notes.append(f"perturb at p={p:g} {note}")
        rows.append(row)
    return rows


SECTION = Section(
    "robustness",
    (
        MODEL,
        LABEL,
        HOLOVEC.named(f"perturb, p={TIMED_LEVEL:g}"),
        BASELINE.named("hand-written flip"),
        RATIO,
        *(_level_column(p) for p in LEVELS),
    ),
    title="robustness: accuracy against the flipped fraction p of the stored state, backend: {backend}",
    intro=(
        "robustness: digits (70/30) classifiers with p of their prototypes' elements sign-flipped "
        "(noise.perturb), memories with p of their stored patterns, counters or vectors flipped; "
        f"p=...: test accuracy (memories: cues, {CUE_NOISE:g} of their elements flipped, whose recall's "
        f"nearest clean pattern is the right one); times: one perturb call at p={TIMED_LEVEL:g} and the "
        "same flip hand-written in NumPy on the same array",
    ),
    run=run,
    supports=("numpy",),
    needs=("sklearn",),
)

if __name__ == "__main__":  # python -m benchmarks.robustness [--quick]
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
