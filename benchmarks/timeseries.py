"""The timeseries section: ``holovec.learn.TimeSeriesEncoder`` next to MiniROCKET (issue 24, item 1).

GunPoint (1 channel, 150 steps), JapaneseVowels (12 channels, 7-29 steps, a ragged list)
and BasicMotions (6 channels, 100 steps), with the train/test splits aeon ships inside its
wheel (offline). For each backend asked for, each holovec method (FHRR at ``--dim``,
default 10,000, 9,996 for MiniROCKET's features; ``--quick``: 2,000; seed 0; ``METHODS``:
the defaults (MiniROCKET's features, time bandwidth 0, standardised) with the ridge and
centroid classifiers, the values encoding with both, HDC-MiniROCKET (bandwidth 4) with the
ridge classifier, and HDC-MiniROCKET on HRR with MiniROCKET's own classifier, as its paper) is timed fit +
predict on the test split, encoding included, and its test accuracy kept. The reference is
aeon's ``MiniRocket`` (``random_state=0``) + ``StandardScaler(with_mean=False)`` +
``RidgeClassifierCV`` over 10 alphas, the configuration of MiniROCKET's paper, on series
padded to equal length by aeon's ``Padder`` where they are ragged; it runs once (on NumPy,
numba) and is shown in every table. Info lines give the accuracies and the issue's goal: the
best holovec method within 0.02 of MiniROCKET on each set.
"""

from __future__ import annotations

from typing import Any

from .columns import BASELINE, HOLOVEC, LABEL, MODEL, RATIO, Column
from .rows import Row
from .sizes import Settings
from .tables import Section
from .timing import Timing, waiter

SETS = ("GunPoint", "JapaneseVowels", "BasicMotions")
QUICK_DIM = 2_000
#: the issue's goal: the best holovec method at most this far below MiniROCKET's accuracy
GOAL_GAP = 0.02
#: HDC-MiniROCKET's time scale (their ``s``, our ``time_bandwidth``): their GunPoint figure
#: is 1.000 for s = 3 to 7 (0.993 at s = 0, MiniROCKET)
HDC_MINIROCKET_SCALE = 4.0
#: (key, label, classifier, encoder parameters); the classifier "paper" is HDC-MiniROCKET's
#: own (MiniROCKET's): StandardScaler(with_mean=False) + RidgeClassifierCV, on HRR (real)
METHODS = (
    ("ridge", "TimeSeriesEncoder (defaults: MiniROCKET's features) + ridge", "RidgeHDClassifier", {}),
    ("centroid", "TimeSeriesEncoder (defaults) + centroid", "CentroidClassifier", {}),
    ("values-centroid", "values encoding + centroid", "CentroidClassifier", {"features": "values"}),
    ("values-ridge", "values encoding + ridge", "RidgeHDClassifier", {"features": "values"}),
    ("hdc-minirocket", f"HDC-MiniROCKET (s={HDC_MINIROCKET_SCALE:g}) + ridge", "RidgeHDClassifier",
     {"time_bandwidth": HDC_MINIROCKET_SCALE}),
    ("hdc-minirocket-paper", f"HDC-MiniROCKET (HRR, s={HDC_MINIROCKET_SCALE:g}) + RidgeClassifierCV", "paper",
     {"model": "HRR", "time_bandwidth": HDC_MINIROCKET_SCALE}),
)  # fmt: skip


def _load(name: str) -> tuple[Any, Any, Any, Any]:
    from aeon.datasets import load_classification

    return (*load_classification(name, split="train"), *load_classification(name, split="test"))


def _minirocket(
    settings: Settings, X_train: Any, y_train: Any, X_test: Any, y_test: Any
) -> tuple[Timing, float]:
    import numpy as np
    from aeon.transformations.collection.convolution_based import MiniRocket
    from aeon.transformations.collection.unequal_length import Padder
    from sklearn.linear_model import RidgeClassifierCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if isinstance(X_train, list):  # MiniROCKET needs equal lengths: aeon's padding
        padder = Padder().fit(X_train + X_test)
        X_train, X_test = padder.transform(X_train), padder.transform(X_test)
    predicted: list[Any] = []

    def fit_predict() -> Any:
        clf = make_pipeline(
            MiniRocket(random_state=0),
            StandardScaler(with_mean=False),
            RidgeClassifierCV(alphas=np.logspace(-3, 3, 10)),
        )
        predicted[:] = [clf.fit(X_train, y_train).predict(X_test)]
        return predicted[0]

    fit_predict()  # numba compiles (or loads its cache) on the first call
    timing = settings.measure(fit_predict)
    return timing, float(np.mean(predicted[0] == y_test))


def run(settings: Settings, backends: list[str]) -> list[Row]:
    if not settings.picked(("FHRR",)):
        return []
    dim = QUICK_DIM if settings.quick and not settings.dim_given else settings.dim
    data = {name: _load(name) for name in SETS}
    reference = {}
    for name, split in data.items():
        settings.say(f"timeseries: {name}, MiniROCKET (aeon)")
        reference[name] = _minirocket(settings, *split)
    rows: list[Row] = []
    for backend in backends:
        for name, split in data.items():
            settings.say(f"[{backend}] timeseries: {name}, FHRR dim {dim:,}")
            rows += _rows(settings, backend, dim, name, split, reference[name])
    return rows


def _rows(
    settings: Settings,
    backend: str,
    dim: int,
    name: str,
    split: tuple[Any, ...],
    reference: tuple[Timing, float],
) -> list[Row]:
    import numpy as np

    X_train, y_train, X_test, y_test = split
    wait = waiter(backend)
    rows, best = [], 0.0
    for key, label, classifier, params in METHODS:
        predicted: list[Any] = []

        def fit_predict(
            classifier: str = classifier, params: dict[str, Any] = params, predicted: list[Any] = predicted
        ) -> Any:
            clf = _classifier(classifier, params, dim, backend)
            predicted[:] = [clf.fit(X_train, y_train).predict(X_test)]
            return predicted[0]

        model = params.get("model", "FHRR")
        row = Row(
            "timeseries", backend, model, f"{name}-{key}", f"{name}: {label}", baseline_name="MiniROCKET"
        )
        row.times["holovec"], row.times["baseline"] = settings.measure(fit_predict, wait), reference[0]
        accuracy = float(np.mean(np.asarray(predicted[0]) == y_test))
        best = max(best, accuracy)
        row.info.append(f"accuracy {accuracy:.3f}, MiniROCKET {reference[1]:.3f}")
        row.accuracy, row.reference_accuracy = accuracy, reference[1]  # type: ignore[attr-defined]
        rows.append(row)
    met = "met" if best >= reference[1] - GOAL_GAP else "NOT met"
    rows[-1].info.append(
        f"goal {name}: best holovec {best:.3f} within {GOAL_GAP} of MiniROCKET {reference[1]:.3f}: {met}"
    )
    return rows


def _classifier(name: str, params: dict[str, Any], dim: int, backend: str) -> Any:
    """A method's classifier, with its TimeSeriesEncoder (MiniROCKET features: as many as
    MiniROCKET's default 10,000 rounded to its 84 kernels, 9,996, unless --quick)."""
    import numpy as np
    from sklearn.linear_model import RidgeClassifierCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import holovec.learn

    if params.get("features", "minirocket") == "minirocket":
        dim = dim // 84 * 84
    encoder = holovec.learn.TimeSeriesEncoder(dim=dim, random_state=0, backend=backend, **params)
    if name == "paper":
        alphas = np.logspace(-3, 3, 10)
        return make_pipeline(encoder, StandardScaler(with_mean=False), RidgeClassifierCV(alphas=alphas))
    return getattr(holovec.learn, name)(encoder=encoder)


def _score(row: Row, field: str) -> str:
    value = getattr(row, field, None)
    return "-" if value is None else f"{value:.3f}"


SECTION = Section(
    "timeseries",
    (
        MODEL,
        LABEL,
        HOLOVEC.named("fit + predict"),
        BASELINE.named("MiniROCKET fit + predict"),
        RATIO.named("holovec/MiniROCKET"),
        Column("accuracy", lambda row: _score(row, "accuracy")),
        Column("MiniROCKET", lambda row: _score(row, "reference_accuracy")),
    ),
    title="timeseries: UCR/UEA sets from aeon's wheel (train/test as shipped), backend: {backend}",
    intro=(
        "timeseries: TimeSeriesEncoder (FHRR) with a holovec classifier against aeon's "
        "MiniRocket + RidgeClassifierCV on the same splits; times are fit + predict, encoding "
        "included; MiniROCKET runs once on NumPy (numba) and is shown in every table",
    ),
    run=run,
    needs=("sklearn", "aeon"),
)

if __name__ == "__main__":  # python -m benchmarks.timeseries [--quick]
    from .cli import section_main

    raise SystemExit(section_main(SECTION.name))
