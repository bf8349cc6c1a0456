"""scikit-learn's own conformance checks over every holovec estimator.

Instances are small (dim 128, a few epochs) so the ~50 checks per estimator stay fast; each
is checked made with ``random_state=0`` and with its deprecated alias ``seed=0``.
"""

from __future__ import annotations

import pytest

pytest.importorskip("sklearn")

from sklearn.utils.estimator_checks import parametrize_with_checks

from holovec.learn import (
    AdaptHDClassifier,
    CentroidClassifier,
    CompHDClassifier,
    ConformalClassifier,
    DistHDClassifier,
    HDEncoder,
    HDKMeans,
    LeHDCClassifier,
    NeuralHDClassifier,
    OnlineHDClassifier,
    QuantHDClassifier,
    RegHDRegressor,
    RidgeHDClassifier,
    RidgeHDRegressor,
    SparseHDClassifier,
    TimeSeriesEncoder,
)


def estimators(**seeding):
    """Every estimator, small (dim 128, a few epochs), seeded by ``seeding``."""
    small = {"dim": 128, **seeding}
    return [
        HDEncoder(**small),
        HDEncoder(model="MAP", encoding="projection", **small),
        CentroidClassifier(**small),
        CentroidClassifier(model="BSC", binarize=True, **small),
        AdaptHDClassifier(epochs=2, **small),
        OnlineHDClassifier(model="MAP", epochs=2, **small),
        NeuralHDClassifier(epochs=2, regen_every=1, **small),
        RidgeHDClassifier(**small),
        LeHDCClassifier(epochs=2, **small),
        QuantHDClassifier(bits=2, epochs=2, **small),
        DistHDClassifier(epochs=2, regen_every=1, **small),
        CompHDClassifier(compression=4, epochs=2, **small),
        SparseHDClassifier(sparsity=0.5, sparsity_kind="class", epochs=2, **small),
        RidgeHDRegressor(alpha=1e-3, **small),
        RegHDRegressor(epochs=3, **small),
        HDKMeans(n_clusters=3, **small),
        TimeSeriesEncoder(any_length=False, features="values", **small),
        TimeSeriesEncoder(any_length=False, **(small | {"dim": 84 * 2})),  # (MiniRocket's features)
    ]


# random_state, which the checks set to their own values, and seed, its deprecated alias
# (random_state decides where the checks set it too)
ESTIMATORS = [
    *estimators(random_state=0),
    *estimators(seed=0),
    TimeSeriesEncoder(features="values", dim=128, random_state=0),  # (any length: see ANY_LENGTH)
    ConformalClassifier(CentroidClassifier(dim=128, random_state=0), random_state=0),
]


#: checks expected to fail, with the reason (scikit-learn marks them xfail)
SUBSET_ROUNDING = (
    "scores are float32 matrix products, which BLAS rounds by the product's shape: a sample's "
    "score moves by about 1e-7 with the batch it comes in (the check's tolerance is 1e-7). "
    "Fixed-shape products would make it exact at 1.2x the time for full batches and 4x or "
    "more for small ones (measured), so predictions can differ only on exact near-ties"
)


#: a 2D X is univariate series to a TimeSeriesEncoder, of any length where any_length=True
#: (its documented purpose), not scikit-learn's (n_samples, n_features) of fixed width
ANY_LENGTH = (
    "TimeSeriesEncoder(any_length=True) encodes series of any length: a 2D X of another width "
    "at transform is series of another length, which it takes by design (any_length=False "
    "fixes the length, and passes this check)"
)


def expected_failures(estimator) -> dict[str, str]:
    if isinstance(estimator, TimeSeriesEncoder) and estimator.any_length:
        return dict.fromkeys(
            ("check_n_features_in", "check_n_features_in_after_fitting", "check_transformer_general"),
            ANY_LENGTH,
        )
    # the encoder's output and binarised scores (the model's own similarity, computed in
    # fixed-shape products) are exact; the others may pass by luck (xfail is not strict)
    if isinstance(estimator, HDEncoder) or getattr(estimator, "binarize", False):
        return {}
    return {"check_methods_subset_invariance": SUBSET_ROUNDING}


@pytest.mark.filterwarnings("ignore:.*seed is deprecated:FutureWarning")
@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_conventions(estimator, check):
    check(estimator)
