"""The public API of the design page (docs/design.rst), end to end, on every backend and model."""

import numpy as np

from conftest import to_numpy


def test_design_snippet(make_model, model_name):
    model = make_model(model_name, dim=2000)
    a = model.random(seed=1)
    B = model.random(100, seed=2)
    assert a.shape == (2000,) and B.shape == (100, 2000)
    c = model.bind(a, B[0])
    a2 = model.unbind(c, B[0])
    s = model.bundle([a, B[0], B[1]])
    p = model.permute(a, shift=1)
    sim = model.similarity(a, a2)
    assert abs(float(sim) - 1.0) < 1e-5
    assert f"{sim:.3f}" == "1.000"
    S = model.similarity_matrix(B[:7], B)
    assert S.shape == (7, 100)
    np.testing.assert_allclose(np.diag(to_numpy(model, S)[:, :7]), 1.0, atol=1e-5)
    assert float(model.similarity(s, a)) > 0.3
    assert abs(float(model.similarity(p, a))) < 0.15
