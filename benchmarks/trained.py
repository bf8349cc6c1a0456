"""The trained section: LeHDC and QuantHD against the centroid rule on digits (issue 24, item 2).

scikit-learn's digits, 70/30 split stratified with ``random_state=0``, FHRR at ``--dim``
(default 10,000; ``--quick``: 1,000 and fewer epochs), seed 0. Each row times the fit of
a trained learner (the best of a few fits, encoding included) next to the one-pass
centroid's on the same model and dimension, and gives both test accuracies and the size of
the learner's class prototypes: LeHDC (binary prototypes trained as a binary neural
network, 1 bit per element) and QuantHD at 1, 2 and 4 bits per element, with its accuracy
before retraining (the quantised class means) next to it: the accuracy/size trade-off.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, Column
from .rows import Row
from .sizes import Settings
from .tables import Section
from .timing import waiter

MODEL_NAME = "FHRR"
QUICK_DIM = 1_000
#: (key, label, estimator parameters, epochs, quick epochs)
LEARNERS = (
    ("lehdc", "LeHDC, binary", {"kind": "lehdc"}, 30, 10),
    ("quanthd-1", "QuantHD, 1 bit", {"kind": "quanthd", "bits": 1}, 20, 5),
    ("quanthd-2", "QuantHD, 2 bits (ternary)", {"kind": "quanthd", "bits": 2}, 20, 5),
    ("quanthd-4", "QuantHD, 4 bits", {"kind": "quanthd", "bits": 4}, 20, 5),
)


@dataclass
class TrainedRow(Row):
    accuracy: float | None = None  #: the learner's test accuracy
    centroid_accuracy: float | None = None  #: the centroid's, same model and dimension
    untrained_accuracy: float | None = None  #: QuantHD's before retraining (epochs=0)
    bits: int = 32  #: bits per element of the class prototypes


def _score(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _make(params: dict[str, Any], **kw: Any) -> Any:
    from holovec.learn import LeHDCClassifier, QuantHDClassifier

    params = dict(params)
    kind = params.pop("kind")
    return (LeHDCClassifier if kind == "lehdc" else QuantHDClassifier)(**params, **kw)


def run(settings: Settings, backends: list[str]) -> list[Row]:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    if not settings.picked((MODEL_NAME,)):
        return []
    dim = QUICK_DIM if settings.quick and not settings.dim_given else settings.dim
    X, y = load_digits(return_X_y=True)
    split = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
    rows: list[Row] = []
    for backend in backends:
        settings.say(f"[{backend}] trained: digits, {MODEL_NAME} dim {dim:,}")
        rows += _backend_rows(settings, backend, dim, split)
    return rows


def _backend_rows(settings: Settings, backend: str, dim: int, split: tuple[Any, ...]) -> list[Row]:
    from holovec.learn import CentroidClassifier

    Xtr, Xte, ytr, yte = split
    wait = waiter(backend)
    common = {"model": MODEL_NAME, "dim": dim, "seed": 0, "backend": backend}
    fitted: dict[str, Any] = {}  # the last estimator each timed fit made, for its accuracy

    def fit(key: str, make: Any) -> Any:
        fitted[key] = make().fit(Xtr, ytr)
        return fitted[key].prototypes_

    centroid_time = settings.measure(lambda: fit("centroid", lambda: CentroidClassifier(**common)), wait)
    centroid_accuracy = fitted["centroid"].score(Xte, yte)
    rows: list[Row] = []
    for key, label, params, epochs, quick_epochs in LEARNERS:
        epochs = quick_epochs if settings.quick else epochs
        row = TrainedRow(
            "trained", backend, MODEL_NAME, key, f"{label}, {epochs} epochs", baseline_name="centroid"
        )
        row.times["holovec"] = settings.measure(
            lambda k=key, p=params, e=epochs: fit(k, lambda: _make(p, epochs=e, **common)), wait
        )
        row.times["baseline"] = centroid_time
        row.accuracy, row.centroid_accuracy = fitted[key].score(Xte, yte), centroid_accuracy
        row.bits = params.get("bits", 1)
        row.info.append(f"accuracy {row.accuracy:.4f}, centroid {centroid_accuracy:.4f}")
        if params["kind"] == "quanthd":
            row.untrained_accuracy = _make(params, epochs=0, **common).fit(Xtr, ytr).score(Xte, yte)
            row.info.append(f"before retraining {row.untrained_accuracy:.4f}")
        rows.append(row)
    return rows


def _prototype_size(row: Row) -> str:
    bits = getattr(row, "bits", None)
    return "-" if bits is None else f"{bits} bit{'s' if bits > 1 else ''} ({32 // bits}x smaller)"


SECTION = Section(
    "trained",
    (
        MODEL,
        LABEL,
        HOLOVEC.named("fit"),
        BASELINE.named("centroid fit"),
        RATIO.named("fit/centroid"),
        Column("accuracy", lambda row: _score(getattr(row, "accuracy", None))),
        Column("untrained", lambda row: _score(getattr(row, "untrained_accuracy", None))),
        Column("centroid", lambda row: _score(getattr(row, "centroid_accuracy", None))),
        Column("bits/element", _prototype_size),
    ),
    title="trained: trained learners on digits (70/30), backend: {backend}",
    intro=(
        "trained: LeHDC (binary prototypes trained as a binary neural network) and QuantHD "
        "(prototypes of a few bits, retrained quantised) against the one-pass centroid on "
        "the same model and dimension; 'untrained': QuantHD's quantised class means "
        "(epochs=0); bits/element against float32 prototypes",
    ),
    run=run,
    needs=("sklearn",),
)

if __name__ == "__main__":  # python -m benchmarks.trained [--quick]
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
