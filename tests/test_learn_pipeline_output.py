"""``output="real"``: holovec's transformers feed scikit-learn's own estimators in a pipeline
(complex FHRR vectors as their real parts, then their imaginary parts, on every backend)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.linear_model import RidgeClassifierCV
from sklearn.pipeline import make_pipeline

from conftest import backend_param, to_numpy
from holovec.learn import HDEncoder, TimeSeriesEncoder


def series(n=40, length=30, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    t = np.linspace(0, 1, length)
    X = np.sin(2 * np.pi * (1 + y[:, None]) * t)[:, None, :] + 0.1 * rng.normal(size=(n, 1, length))
    return X, y


def test_complex_vectors_feed_a_linear_model_in_a_pipeline():
    X, y = series()
    with pytest.raises(ValueError, match=r"[Cc]omplex"):
        make_pipeline(TimeSeriesEncoder(features="values", dim=256, random_state=0), RidgeClassifierCV()).fit(
            X, y
        )
    pipe = make_pipeline(
        TimeSeriesEncoder(features="values", dim=256, random_state=0, output="real"), RidgeClassifierCV()
    )
    assert pipe.fit(X, y).score(X, y) > 0.9


@pytest.mark.parametrize("backend", [backend_param("numpy"), backend_param("torch"), backend_param("jax")])
def test_real_output_is_the_real_then_imaginary_parts(backend):
    X = np.random.default_rng(1).normal(size=(5, 3))
    vectors = HDEncoder(dim=64, backend=backend, random_state=0).fit(X)
    real = HDEncoder(dim=64, backend=backend, random_state=0, output="real").fit(X)
    H, R = to_numpy(vectors.model_, vectors.transform(X)), to_numpy(real.model_, real.transform(X))
    assert R.shape == (5, 128) and not np.iscomplexobj(R)
    np.testing.assert_array_equal(R, np.concatenate([H.real, H.imag], axis=1))
    assert len(real.get_feature_names_out()) == 128


def test_real_vectors_are_unchanged_and_bad_values_are_refused():
    X = np.random.default_rng(2).normal(size=(4, 3))
    a = HDEncoder(model="MAP", dim=64, random_state=0).fit(X)
    b = HDEncoder(model="MAP", dim=64, random_state=0, output="real").fit(X)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    with pytest.raises(ValueError, match="output"):
        HDEncoder(dim=64, output="complex").fit(X)
