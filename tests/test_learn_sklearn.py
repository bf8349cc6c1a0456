"""scikit-learn's own conformance checks over every holovec estimator (issue 12).

Instances are small (dim 256, a few epochs) so the ~50 checks per estimator stay fast.
"""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks

from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    HDEncoder,
    NeuralHDClassifier,
    OnlineHDClassifier,
    RegHDRegressor,
    RidgeHDClassifier,
    RidgeHDRegressor,
)

SMALL = {"dim": 256, "seed": 0}
ESTIMATORS = [
    HDEncoder(**SMALL),
    HDEncoder(model="MAP", encoding="projection", **SMALL),
    CentroidClassifier(**SMALL),
    CentroidClassifier(model="BSC", binarize=True, **SMALL),
    AdaptHDClassifier(epochs=3, **SMALL),
    OnlineHDClassifier(model="MAP", epochs=3, **SMALL),
    NeuralHDClassifier(epochs=4, regen_every=2, **SMALL),
    RidgeHDClassifier(**SMALL),
    RidgeHDRegressor(alpha=1e-3, **SMALL),
    RegHDRegressor(epochs=5, **SMALL),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_conventions(estimator, check):
    check(estimator)
