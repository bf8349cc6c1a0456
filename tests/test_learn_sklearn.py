"""scikit-learn's own conformance checks over every holovec estimator.

Instances are small (dim 256, a few epochs) so the ~50 checks per estimator stay fast.
"""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks

from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    ConformalClassifier,
    HDEncoder,
    HDKMeans,
    LeHDCClassifier,
    NeuralHDClassifier,
    OnlineHDClassifier,
    QuantHDClassifier,
    RegHDRegressor,
    RidgeHDClassifier,
    RidgeHDRegressor,
    TimeSeriesEncoder,
)

# random_state (scikit-learn's name for seed), which the checks set to their own values:
# a seed as well would disagree with them (a ValueError, as it should)
SMALL = {"dim": 256, "random_state": 0}
ESTIMATORS = [
    HDEncoder(**SMALL),
    HDEncoder(model="MAP", encoding="projection", **SMALL),
    CentroidClassifier(**SMALL),
    CentroidClassifier(model="BSC", binarize=True, **SMALL),
    AdaptHDClassifier(epochs=3, **SMALL),
    OnlineHDClassifier(model="MAP", epochs=3, **SMALL),
    NeuralHDClassifier(epochs=4, regen_every=2, **SMALL),
    RidgeHDClassifier(**SMALL),
    LeHDCClassifier(epochs=3, **SMALL),
    QuantHDClassifier(bits=2, epochs=3, **SMALL),
    ConformalClassifier(CentroidClassifier(**SMALL), random_state=0),
    RidgeHDRegressor(alpha=1e-3, **SMALL),
    RegHDRegressor(epochs=5, **SMALL),
    HDKMeans(n_clusters=3, **SMALL),
    TimeSeriesEncoder(any_length=False, **SMALL),  # (any length: no n_features_in_ to check)
]


#: checks expected to fail, with the reason (scikit-learn marks them xfail)
SUBSET_ROUNDING = (
    "scores are float32 matrix products, which BLAS rounds by the product's shape: a sample's "
    "score moves by about 1e-7 with the batch it comes in (the check's tolerance is 1e-7). "
    "Fixed-shape products would make it exact at 1.2x the time for full batches and 4x or "
    "more for small ones (measured), so predictions can differ only on exact near-ties"
)


def expected_failures(estimator) -> dict[str, str]:
    # the encoder's output and binarised scores (the model's own similarity, computed in
    # fixed-shape products) are exact; the others may pass by luck (xfail is not strict)
    if isinstance(estimator, HDEncoder) or getattr(estimator, "binarize", False):
        return {}
    return {"check_methods_subset_invariance": SUBSET_ROUNDING}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_conventions(estimator, check):
    check(estimator)
