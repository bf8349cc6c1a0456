"""holovec.plot draws holovec's own numbers: the heatmap is model.similarity_matrix, the
planner line is capacity.accuracy, the kernel line is the encoder's kernel, measured points
agree with the closed forms they are drawn next to, and matplotlib stays out of
``import holovec.plot``."""

from __future__ import annotations

import ast
import math
import sys
from pathlib import Path

# before matplotlib is imported here: whether importing holovec.plot imports it
_MATPLOTLIB_BEFORE = "matplotlib" in sys.modules
import holovec  # noqa: E402
import holovec.plot  # noqa: E402

_MATPLOTLIB_AFTER = "matplotlib" in sys.modules

import numpy as np  # noqa: E402
import pytest  # noqa: E402

try:  # the [plot] extra; without it, only the tests of a missing matplotlib run
    import matplotlib
except ImportError:
    matplotlib = plt = None
else:
    matplotlib.use("Agg")  # no window; before pyplot is imported
    import matplotlib.pyplot as plt

needs_matplotlib = pytest.mark.skipif(matplotlib is None, reason="matplotlib is not installed ([plot] extra)")

from holovec import VSA, capacity, noise, plot  # noqa: E402
from holovec.encoders import FractionalPowerEncoder, VectorFPE  # noqa: E402
from holovec.retrieval import Codebook  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    if plt is not None:
        plt.close("all")


# -- import lightness and a missing matplotlib ---------------------------------------------
def test_importing_holovec_plot_does_not_import_matplotlib():
    if _MATPLOTLIB_BEFORE:
        pytest.skip("matplotlib was imported before this module (another test imported it)")
    assert not _MATPLOTLIB_AFTER, "import holovec / import holovec.plot imported matplotlib"


def test_matplotlib_is_imported_inside_functions_only():
    tree = ast.parse(Path(holovec.plot.__file__).read_text(encoding="utf-8"))
    top = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert not [n for n in names if n.split(".")[0] == "matplotlib"], names


def test_missing_matplotlib_says_how_to_install(monkeypatch):
    model = VSA.create("MAP", dim=64)
    for name in ("matplotlib", "matplotlib.axes", "matplotlib.pyplot"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r'pip install "holovec\[plot\]"'):
        plot.similarity_matrix(model, model.random(3, seed=1))


# -- similarity_matrix --------------------------------------------------------------------
@needs_matplotlib
@pytest.mark.parametrize("name", ["MAP", "BSC", "FHRR"])
def test_similarity_matrix_shows_the_models_matrix_on_one_scale(name):
    model = VSA.create(name, dim=500)
    Q, B = model.random(3, seed=1), model.random(5, seed=2)
    ax = plot.similarity_matrix(model, Q, B)
    image = ax.images[0]
    np.testing.assert_array_equal(
        np.asarray(image.get_array()), model.to_numpy(model.similarity_matrix(Q, B))
    )
    assert image.get_clim() == (-1.0, 1.0)
    assert len(ax.figure.axes) == 2  # the heatmap and its colorbar


@needs_matplotlib
def test_similarity_matrix_of_a_codebook_takes_its_labels_and_the_given_axes():
    model = VSA.create("FHRR", dim=400)
    book = Codebook.from_seed(model, ["a", "b", "c"], seed=3)
    _, given = plt.subplots()
    ax = plot.similarity_matrix(model, book, ax=given)
    assert ax is given
    S = np.asarray(ax.images[0].get_array())
    np.testing.assert_allclose(np.diag(S), 1.0, atol=1e-6)
    np.testing.assert_array_equal(S, model.to_numpy(model.similarity_matrix(book.vectors, book.vectors)))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    queries = model.random(2, seed=4)
    ax = plot.similarity_matrix(model, queries, book, labels=["q0", "q1"])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["q0", "q1"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]


@needs_matplotlib
def test_similarity_matrix_refuses_bad_input():
    model = VSA.create("MAP", dim=64)
    V = model.random(3, seed=1)
    with pytest.raises(TypeError, match="model must be a holovec model"):
        plot.similarity_matrix("MAP", V)
    with pytest.raises(ValueError, match=r"one label per query \(3\), got 2"):
        plot.similarity_matrix(model, V, labels=["a", "b"])
    with pytest.raises(TypeError, match="labels must be a sequence"):
        plot.similarity_matrix(model, V, labels="abc")
    with pytest.raises(TypeError, match="ax must be a matplotlib Axes"):
        plot.similarity_matrix(model, V, ax="axes")
    with pytest.raises(ValueError):
        plot.similarity_matrix(model, VSA.create("MAP", dim=32).random(2, seed=1))


# -- fpe_kernel -----------------------------------------------------------------------------
@needs_matplotlib
@pytest.mark.parametrize(("kernel", "bandwidth"), [("sinc", 4.0), ("gaussian", 6.0)])
def test_fpe_kernel_draws_the_kernel_and_measurements_close_to_it(kernel, bandwidth):
    model = VSA.create("FHRR", dim=1000)
    fpe = FractionalPowerEncoder(model, -1.0, 1.0, bandwidth=bandwidth, seed=5, kernel=kernel)
    ax = plot.fpe_kernel(fpe)
    expected, points = ax.lines
    np.testing.assert_allclose(expected.get_ydata(), fpe.kernel(expected.get_xdata()))
    if kernel == "sinc":  # the documented formula: sinc(bandwidth d / range) (and the fixed phases)
        np.testing.assert_allclose(
            expected.get_ydata(), np.sinc(bandwidth * expected.get_xdata() / 2), atol=2e-3
        )
    d = np.asarray(points.get_xdata())
    assert d.min() == 0.0 and math.isclose(d.max(), 4 * 2.0 / bandwidth)  # four kernel widths
    measured = np.asarray(points.get_ydata())
    np.testing.assert_allclose(
        measured, model.to_numpy(model.similarity(fpe.encode(-1.0 + d), fpe.encode(-1.0))), atol=1e-6
    )
    # the measured similarity is a mean over 1000 phases: its spread is at most 1 / sqrt(2000)
    assert np.abs(measured - fpe.kernel(d)).max() < 5 / math.sqrt(2 * model.dim)


@needs_matplotlib
def test_fpe_kernel_takes_given_distances_and_refuses_bad_ones():
    model = VSA.create("FHRR", dim=256)
    fpe = FractionalPowerEncoder(model, 0.0, 1.0, bandwidth=2.0, seed=1)
    ax = plot.fpe_kernel(fpe, [0.0, 0.25, 0.5])
    np.testing.assert_array_equal(ax.lines[1].get_xdata(), [0.0, 0.25, 0.5])
    with pytest.raises(ValueError, match=r"distances must be finite and in \[0, 1.0\]"):
        plot.fpe_kernel(fpe, [0.5, 1.5])
    with pytest.raises(ValueError, match="at least one distance"):
        plot.fpe_kernel(fpe, [])
    with pytest.raises(TypeError, match="encoder must be a FractionalPowerEncoder"):
        plot.fpe_kernel(model)
    with pytest.raises(ValueError, match="n_features=None"):
        plot.fpe_kernel(VectorFPE(model, 2, 0.0, 1.0, seed=1))


# -- capacity_curve -----------------------------------------------------------------------
@needs_matplotlib
@pytest.mark.parametrize("name", ["MAP", "FHRR"])
def test_capacity_curve_draws_the_planner_and_measurements_within_binomial_tolerance(name):
    n_items, k, dims, trials = 100, 5, [50, 100, 200, 400], 40
    model = VSA.create(name, dim=100)
    ax = plot.capacity_curve(model, n_items, k, dims, trials=trials, seed=0)
    planner, measured = ax.lines
    assert list(planner.get_xdata()) == dims
    assert list(planner.get_ydata()) == [capacity.accuracy(model, d, n_items, k) for d in dims]
    for a, m in zip(planner.get_ydata(), measured.get_ydata(), strict=True):
        # trials * k bundled items, a bundle's items sharing their distractors: some slack
        tolerance = 4 * math.sqrt(a * (1 - a) / (trials * k)) + 0.03
        assert abs(m - a) <= tolerance, (name, a, m, tolerance)


@needs_matplotlib
def test_capacity_curve_takes_a_name_and_can_skip_the_measurement():
    ax = plot.capacity_curve("BSC", n_items=30, k=2, dims=[16, 64], measured=False)
    assert len(ax.lines) == 1
    assert list(ax.lines[0].get_ydata()) == [capacity.accuracy("BSC", d, 30, 2) for d in (16, 64)]


@needs_matplotlib
def test_capacity_curve_refuses_bad_parameters():
    model = VSA.create("MAP", dim=64)
    with pytest.raises(ValueError, match="k must be at most n_items"):
        plot.capacity_curve(model, 5, 10, [64])
    with pytest.raises(ValueError, match="dims must hold at least one value"):
        plot.capacity_curve(model, 50, 3, [])
    with pytest.raises(TypeError, match=r"dims\[1\] must be a positive int, got float"):
        plot.capacity_curve(model, 50, 3, [64, 128.0])
    with pytest.raises(ValueError, match="trials must be a positive int, got 0"):
        plot.capacity_curve(model, 50, 3, [64], trials=0)
    with pytest.raises(TypeError, match="measured must be"):
        plot.capacity_curve(model, 50, 3, [64], measured="yes")


# -- learning_curve -----------------------------------------------------------------------
def _blobs():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 4))
    y = rng.integers(0, 3, 120)
    X = centres[y] + 0.8 * rng.normal(size=(120, 4))
    return X[:80], y[:80], X[80:], y[80:]


@needs_matplotlib
def test_learning_curve_points_are_the_scores_of_separately_fitted_learners():
    pytest.importorskip("sklearn")
    from holovec.learn import AdaptHDClassifier

    X, y, X_test, y_test = _blobs()
    estimator = AdaptHDClassifier(dim=500, random_state=0)
    ax = plot.learning_curve(estimator, X, y, X_test, y_test, epochs=[0, 1, 3])
    line = ax.lines[0]
    assert [int(e) for e in line.get_xdata()] == [0, 1, 3]
    expected = [
        AdaptHDClassifier(dim=500, random_state=0, epochs=e).fit(X, y).score(X_test, y_test)
        for e in (0, 1, 3)
    ]
    assert list(line.get_ydata()) == expected
    assert line.get_label() == "AdaptHDClassifier"
    plot.learning_curve(estimator, X, y, X_test, y_test, epochs=[2], label="AdaptHD, again", ax=ax)
    assert [line.get_label() for line in ax.lines] == ["AdaptHDClassifier", "AdaptHD, again"]
    assert not hasattr(estimator, "model_")  # cloned, not fitted


@needs_matplotlib
def test_learning_curve_refuses_bad_parameters():
    pytest.importorskip("sklearn")
    from holovec.learn import AdaptHDClassifier, CentroidClassifier

    X, y, X_test, y_test = _blobs()
    with pytest.raises(TypeError, match="an epochs parameter"):
        plot.learning_curve(CentroidClassifier(dim=64), X, y, X_test, y_test, epochs=[1])
    with pytest.raises(ValueError, match=r"epochs\[0\] must be a non-negative int, got -1"):
        plot.learning_curve(AdaptHDClassifier(dim=64), X, y, X_test, y_test, epochs=[-1])
    with pytest.raises(TypeError, match="label must be a str or None, got int"):
        plot.learning_curve(AdaptHDClassifier(dim=64), X, y, X_test, y_test, epochs=[1], label=1)


# -- robustness_curve ---------------------------------------------------------------------
@needs_matplotlib
@pytest.mark.parametrize("name", ["MAP", "BSC"])
def test_robustness_curve_of_flips_is_one_minus_twice_the_fraction(name):
    model = VSA.create(name, dim=1000)
    levels = [0.0, 0.1, 0.25, 0.4]
    ax = plot.robustness_curve(model, vectors=model.random(6, seed=1), levels=levels, seed=2)
    measured, expected = ax.lines
    np.testing.assert_allclose(measured.get_ydata(), [1 - 2 * p for p in levels], atol=1e-6)
    assert list(expected.get_ydata()) == [noise.expected_similarity(model, "flip", p) for p in levels]


@needs_matplotlib
def test_robustness_curve_of_a_codebook_and_of_other_noises():
    model = VSA.create("FHRR", dim=1000)
    book = Codebook.from_seed(model, ["a", "b", "c", "d"], seed=1)
    levels = [0.0, 0.5, 1.0]
    ax = plot.robustness_curve(book, noise="phase", levels=levels, seed=3)
    measured, expected = ax.lines
    np.testing.assert_allclose(expected.get_ydata(), [math.exp(-(s**2) / 2) for s in levels])
    # a mean over 4 vectors of 1000 elements each: spread about 1 / sqrt(4000)
    np.testing.assert_allclose(measured.get_ydata(), expected.get_ydata(), atol=0.05)


@needs_matplotlib
def test_robustness_curve_of_an_estimator_scores_its_perturbed_copies():
    pytest.importorskip("sklearn")
    from holovec.learn import CentroidClassifier

    X, y, X_test, y_test = _blobs()
    estimator = CentroidClassifier(dim=500, random_state=0).fit(X, y)
    levels = [0.0, 0.2]
    ax = plot.robustness_curve(estimator, X_test, y_test, levels=levels, seed=4)
    assert len(ax.lines) == 1  # no closed form of an accuracy
    expected = [noise.perturb(estimator, "flip", p, seed=4).score(X_test, y_test) for p in levels]
    assert list(ax.lines[0].get_ydata()) == expected
    assert expected[0] == estimator.score(X_test, y_test)


@needs_matplotlib
def test_robustness_curve_refuses_bad_parameters():
    model = VSA.create("MAP", dim=64)
    V = model.random(2, seed=1)
    with pytest.raises(ValueError, match="noise must be one of"):
        plot.robustness_curve(model, vectors=V, noise="bits")
    with pytest.raises(TypeError, match="needs vectors="):
        plot.robustness_curve(model)
    with pytest.raises(TypeError, match="X_test and y_test go with a fitted estimator"):
        plot.robustness_curve(model, V, vectors=V)
    with pytest.raises(ValueError, match=r"level must be a fraction"):
        plot.robustness_curve(model, vectors=V, levels=[0.5, 1.5])
    with pytest.raises(TypeError, match="gaussian cannot perturb"):
        plot.robustness_curve(model, vectors=V, noise="gaussian", levels=[0.1])
    with pytest.raises(TypeError, match="needs X_test and y_test"):
        plot.robustness_curve(object())
