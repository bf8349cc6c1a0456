"""Plots of what holovec computes, drawn with matplotlib (an optional dependency:
``pip install "holovec[plot]"``).

=============================  ==========================================================
:func:`similarity_matrix`      a heatmap of queries against items (or a codebook) on the
                               one similarity scale, -1 to 1
:func:`fpe_kernel`             a fractional power encoder's measured similarity against
                               distance, next to its kernel's formula
:func:`capacity_curve`         retrieval accuracy against dimension: the planner
                               (:func:`holovec.capacity.accuracy`) and a measurement
:func:`learning_curve`         an iterative learner's test accuracy against its epochs
:func:`robustness_curve`       accuracy or similarity against a noise level
                               (:mod:`holovec.noise`), with the closed form where there is
                               one
=============================  ==========================================================

matplotlib is imported the first time a function draws, never by ``import holovec`` or
``import holovec.plot``. Each function draws on ``ax`` (a new figure's axes when ``None``)
with matplotlib's object-oriented API, never calls ``plt.show()``, and returns the axes;
what is drawn is the numbers holovec computes, so ``ax.images[0].get_array()`` or a line's
``get_ydata()`` gives them back.

>>> import matplotlib; matplotlib.use("Agg")
>>> from holovec import VSA, plot
>>> model = VSA.create("MAP", dim=1000)
>>> ax = plot.capacity_curve(model, n_items=100, k=5, dims=[50, 100, 200], trials=10)
>>> ax.get_xlabel()
'dimension'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._params import FINITE, FLAG, NON_NEGATIVE_INT, POSITIVE_INT, Rule
from .models import VSAModel

__all__ = ["capacity_curve", "fpe_kernel", "learning_curve", "robustness_curve", "similarity_matrix"]

#: the levels a robustness curve takes by default, per noise
DEFAULT_LEVELS = {
    "flip": np.linspace(0.0, 0.5, 11),
    "stuck_at": np.linspace(0.0, 0.9, 10),
    "gaussian": np.linspace(0.0, 2.0, 11),
    "phase": np.linspace(0.0, 2.0, 11),
    "quantize": np.arange(1, 9),
}


def _axes(ax: Any) -> Any:
    """``ax`` checked, or a new figure's axes; matplotlib imported here, on first use."""
    try:
        import matplotlib.axes
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError(
            f'holovec.plot draws with matplotlib, which is not installed ({e}): pip install "holovec[plot]"'
        ) from None
    if ax is None:
        return plt.subplots()[1]
    if not isinstance(ax, matplotlib.axes.Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return ax


def _model(model: Any, name: str = "model") -> VSAModel:
    if not isinstance(model, VSAModel):
        raise TypeError(f"{name} must be a holovec model (VSA.create(...)), got {type(model).__name__}")
    return model


def _numbers(name: str, values: Any, rule: Rule) -> list:
    """A non-empty sequence of numbers, each kept by ``rule``, as a list of Python numbers."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise TypeError(f"{name} must be a sequence of numbers, got {type(values).__name__}")
    values = list(np.asarray(values).tolist()) if isinstance(values, np.ndarray) else list(values)
    if not values:
        raise ValueError(f"{name} must hold at least one value, got an empty sequence")
    return [rule.check(f"{name}[{i}]", v) for i, v in enumerate(values)]


def _vectors_and_labels(model: VSAModel, obj: Any, name: str) -> tuple[Any, list | None]:
    """A Codebook's vectors and labels, or an array of vectors (2-d: one a row) and None."""
    from .retrieval import Codebook

    if isinstance(obj, Codebook):
        return obj.vectors, list(obj.labels)
    model.check(obj, name)
    if obj.ndim == 1:
        obj = model.xp.reshape(obj, (1, -1))
    if obj.ndim != 2:
        raise ValueError(f"{name} must be one vector or a 2-d array of vectors, got shape {tuple(obj.shape)}")
    return obj, None


def similarity_matrix(
    model: VSAModel, queries: Any, items: Any = None, *, labels: Sequence[Any] | None = None, ax: Any = None
) -> Any:
    """A heatmap of ``model.similarity_matrix(queries, items)``: one row per query, one
    column per item, coloured on the one similarity scale (``vmin=-1``, ``vmax=1``), with a
    colorbar.

    Parameters
    ----------
    model : VSAModel
        The model of the vectors.
    queries : array or Codebook
        Vectors ``(n_queries, vector_length)`` (or one vector), or a
        :class:`~holovec.retrieval.Codebook`, whose labels name the rows.
    items : array or Codebook, optional
        The items, as ``queries``; ``None`` for the queries themselves (their similarities
        with each other).
    labels : sequence, optional
        The names of the rows (and of the columns when ``items`` is ``None``); by default
        a codebook's labels, else the row numbers.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; ``None`` for a new figure's.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on; ``ax.images[0].get_array()`` is the similarity matrix.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from holovec import VSA, plot
    >>> from holovec.retrieval import Codebook
    >>> model = VSA.create("FHRR", dim=500)
    >>> book = Codebook.from_seed(model, ["a", "b", "c"], seed=1)
    >>> ax = plot.similarity_matrix(model, book)
    >>> ax.images[0].get_array().shape, [t.get_text() for t in ax.get_yticklabels()]
    ((3, 3), ['a', 'b', 'c'])
    """
    model = _model(model)
    ax = _axes(ax)
    Q, row_labels = _vectors_and_labels(model, queries, "queries")
    if items is None:
        B, col_labels = Q, row_labels
    else:
        B, col_labels = _vectors_and_labels(model, items, "items")
    if labels is not None:
        if isinstance(labels, (str, bytes)) or not isinstance(labels, (Sequence, np.ndarray)):
            raise TypeError(f"labels must be a sequence (one label a query), got {type(labels).__name__}")
        if len(labels) != Q.shape[0]:
            raise ValueError(f"labels must hold one label per query ({Q.shape[0]}), got {len(labels)}")
        row_labels = list(labels)
        col_labels = row_labels if items is None else col_labels
    S = model.to_numpy(model.similarity_matrix(Q, B))
    image = ax.imshow(S, vmin=-1.0, vmax=1.0, cmap="RdBu_r", interpolation="nearest", aspect="auto")
    ax.figure.colorbar(image, ax=ax, label="similarity")
    for labelled, n, set_ticks, set_labels in (
        (row_labels, S.shape[0], ax.set_yticks, ax.set_yticklabels),
        (col_labels, S.shape[1], ax.set_xticks, ax.set_xticklabels),
    ):
        if labelled is not None:
            set_ticks(np.arange(n))
            set_labels([str(x) for x in labelled])
    ax.set_xlabel("items")
    ax.set_ylabel("queries")
    return ax


def fpe_kernel(encoder: Any, distances: Any = None, *, ax: Any = None) -> Any:
    """A fractional power encoder's similarity against distance: the measured
    ``similarity(encode(min_val), encode(min_val + d))`` at each distance ``d`` as markers,
    and the expected similarity as a line: the encoder's own public ``encoder.kernel(d)``,
    the characteristic function of its phase distribution (``sin(pi t) / (pi t)`` at
    ``t = bandwidth * d / (max_val - min_val)`` for the default uniform phases; see
    :class:`~holovec.encoders.FractionalPowerEncoder` for the others).

    Parameters
    ----------
    encoder : FractionalPowerEncoder
        An encoder of scalars (``n_features=None``).
    distances : array_like, optional
        Distances in ``[0, max_val - min_val]``, the units of the values; by default 41 of
        them from 0 to four kernel widths (``4 (max_val - min_val) / bandwidth``) or the
        range, whichever is smaller.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; ``None`` for a new figure's.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: ``ax.lines[0]`` the expected kernel (on 400 distances over the range of
        ``distances``), ``ax.lines[1]`` the measured similarities.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from holovec import VSA, plot
    >>> from holovec.encoders import FractionalPowerEncoder
    >>> fpe = FractionalPowerEncoder(VSA.create("FHRR", dim=1000), 0.0, 1.0, bandwidth=4.0, seed=1)
    >>> ax = plot.fpe_kernel(fpe)
    >>> [line.get_label() for line in ax.lines]
    ['expected (sinc kernel)', 'measured']
    """
    from .encoders import FractionalPowerEncoder

    if not isinstance(encoder, FractionalPowerEncoder):
        raise TypeError(f"encoder must be a FractionalPowerEncoder, got {type(encoder).__name__}")
    if encoder.n_features is not None:
        raise ValueError(
            f"fpe_kernel plots an encoder of scalars (n_features=None), got n_features={encoder.n_features}"
        )
    low, span = float(encoder.min_val[0]), float(encoder.max_val[0] - encoder.min_val[0])
    if distances is None:
        distances = np.linspace(0.0, min(span, 4 * span / float(encoder.bandwidth[0])), 41)
    d = np.asarray(distances, dtype=np.float64).reshape(-1)
    if d.size == 0:
        raise ValueError("distances must hold at least one distance, got none")
    if not (np.all(np.isfinite(d)) and np.all(d >= 0) and np.all(d <= span)):
        raise ValueError(
            f"distances must be finite and in [0, {span}] (max_val - min_val), got {distances!r}"
        )
    ax = _axes(ax)
    model = encoder.model
    far = np.minimum(low + d, float(encoder.max_val[0]))  # low + span may round above max_val
    measured = model.to_numpy(model.similarity(encoder.encode(far), encoder.encode(low)))
    grid = np.linspace(d.min(), d.max(), 400)
    ax.plot(grid, encoder.kernel(grid), label=f"expected ({encoder.kernel_name} kernel)")
    ax.plot(d, np.asarray(measured, dtype=np.float64).reshape(-1), "o", markersize=3, label="measured")
    ax.set_xlabel("distance")
    ax.set_ylabel("similarity")
    ax.set_ylim(-1.05, 1.05)
    ax.legend()
    return ax


def _model_at(model: VSAModel, dim: int) -> VSAModel:
    """A model of ``model``'s class, backend, dtype and options at dimension ``dim``."""
    if dim == model.dim:
        return model
    config = model.get_config()
    return type(model)(dim, model.backend, dtype=config["dtype"], **dict(config["options"]))


def _measured_accuracy(model: VSAModel, n_items: int, k: int, trials: int, seed: int) -> float:
    """The fraction of bundled items that score above every other item of the codebook, over
    ``trials`` bundles of ``k`` distinct random items (all at once)."""
    xp = model.xp
    book = model.random(n_items, seed=seed)
    rng = np.random.default_rng(seed)
    members = np.argsort(rng.random((trials, n_items)), axis=1)[:, :k]  # (trials, k), distinct
    picked = xp.take(book, model.backend.from_numpy(members.T.reshape(-1)), axis=0)
    bundles = model.bundle(xp.reshape(picked, (k, trials, -1)))  # the items on axis 0
    S = model.to_numpy(model.similarity_matrix(bundles, book))  # (trials, n_items)
    inside = np.zeros((trials, n_items), dtype=bool)
    inside[np.arange(trials)[:, None], members] = True
    best_other = np.where(inside, -np.inf, S).max(axis=1, initial=-np.inf)
    return float(np.mean(np.take_along_axis(S, members, axis=1) > best_other[:, None]))


def capacity_curve(
    model: Any,
    n_items: int,
    k: int,
    dims: Sequence[int],
    *,
    measured: bool = True,
    trials: int = 20,
    seed: int = 0,
    ax: Any = None,
) -> Any:
    """Accuracy of finding a bundled item against the dimension: the planner
    (:func:`holovec.capacity.accuracy`, ``query="member"``) as a line and, if ``measured``,
    a measurement as markers.

    The measurement draws a codebook of ``n_items`` random vectors at each dimension,
    bundles ``k`` distinct random items of it ``trials`` times (one batched call), and
    counts the bundled items that score above every item not in the bundle: the event
    whose probability the planner gives (such items are in the bundle's top ``k``; ties
    count as misses). The measurement's standard error is about ``sqrt(a (1 - a) / (trials
    k))``, a bit more since a bundle's items share their distractors.

    Parameters
    ----------
    model : VSAModel or str
        A model (its class, backend, dtype and options; its dimension does not count) or a
        model name such as ``"MAP"`` (the default backend).
    n_items : int
        The size of the codebook.
    k : int
        The items in a bundle, at most ``n_items``.
    dims : sequence of int
        The dimensions.
    measured : bool, optional
        Whether to measure the accuracy too.
    trials : int, optional
        Bundles measured at each dimension.
    seed : int, optional
        Seed of the codebooks and of the items bundled.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; ``None`` for a new figure's.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: ``ax.lines[0]`` the planner, ``ax.lines[1]`` the measurement (if any).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from holovec import VSA, capacity, plot
    >>> ax = plot.capacity_curve("BSC", n_items=50, k=3, dims=[32, 64], measured=False)
    >>> bool(ax.lines[0].get_ydata()[1] == capacity.accuracy("BSC", 64, 50, 3))
    True
    """
    from . import capacity
    from .vsa import VSA

    dims = _numbers("dims", dims, POSITIVE_INT)
    n_items, k = POSITIVE_INT.check("n_items", n_items), POSITIVE_INT.check("k", k)
    measured = FLAG.check("measured", measured)
    trials, seed = POSITIVE_INT.check("trials", trials), NON_NEGATIVE_INT.check("seed", seed)
    if isinstance(model, str):
        model = VSA.create(model, dims[0])
    model = _model(model)
    planned = [capacity.accuracy(model, d, n_items, k) for d in dims]  # checks k <= n_items too
    ax = _axes(ax)
    ax.plot(dims, planned, label="planner (capacity.accuracy)")
    if measured:
        found = [_measured_accuracy(_model_at(model, d), n_items, k, trials, seed) for d in dims]
        ax.plot(dims, found, "o", label=f"measured ({trials} bundles)")
    ax.set_xlabel("dimension")
    ax.set_ylabel("accuracy")
    ax.set_title(f"{model.name}: {k} of {n_items} items bundled")
    ax.set_ylim(-0.02, 1.02)
    ax.legend()
    return ax


def learning_curve(
    estimator: Any,
    X: Any,
    y: Any,
    X_test: Any,
    y_test: Any,
    *,
    epochs: Sequence[int],
    label: str | None = None,
    ax: Any = None,
) -> Any:
    """Test accuracy against epochs of an iterative learner: for each ``e`` of ``epochs``, a
    clone of ``estimator`` with ``epochs=e`` (``sklearn.base.clone(estimator).set_params(epochs=e)``)
    fitted on ``X, y`` and scored on ``X_test, y_test``.

    Parameters
    ----------
    estimator : estimator
        A holovec learner with an ``epochs`` parameter (AdaptHD, OnlineHD, NeuralHD, ...);
        it is cloned, not fitted.
    X : array_like
        The training samples.
    y : array_like
        The training labels.
    X_test : array_like
        The test samples.
    y_test : array_like
        The test labels.
    epochs : sequence of int
        The numbers of epochs.
    label : str, optional
        The curve's name in the legend; ``None`` for the estimator's class name (several
        learners can be drawn on one ``ax``).
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; ``None`` for a new figure's.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: ``ax.lines[0]`` the test accuracy (its ``score``) at each number of epochs.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from holovec import plot
    >>> from holovec.learn import AdaptHDClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> ax = plot.learning_curve(AdaptHDClassifier(dim=500, random_state=0), X, y, X, y, epochs=[0, 2])
    >>> [int(e) for e in ax.lines[0].get_xdata()]
    [0, 2]
    """
    from sklearn.base import clone

    epochs = _numbers("epochs", epochs, NON_NEGATIVE_INT)
    if not callable(getattr(estimator, "get_params", None)) or "epochs" not in estimator.get_params():
        raise TypeError(
            f"estimator must be a learner with an epochs parameter (AdaptHDClassifier, ...), "
            f"got {type(estimator).__name__}"
        )
    if label is not None and not isinstance(label, str):
        raise TypeError(f"label must be a str or None, got {type(label).__name__}")
    ax = _axes(ax)
    scores = [clone(estimator).set_params(epochs=e).fit(X, y).score(X_test, y_test) for e in epochs]
    ax.plot(epochs, scores, "o-", label=type(estimator).__name__ if label is None else label)
    ax.set_xlabel("epochs")
    ax.set_ylabel("test accuracy")
    ax.legend()
    return ax


def robustness_curve(
    obj: Any,
    X_test: Any = None,
    y_test: Any = None,
    *,
    vectors: Any = None,
    noise: str = "flip",
    levels: Sequence[float] | None = None,
    seed: int = 0,
    value: Any = None,
    ax: Any = None,
) -> Any:
    """Accuracy or similarity against a noise level, the noise of
    :func:`holovec.noise.perturb` at each level (each with the same ``seed``).

    - A fitted estimator with ``X_test, y_test``: the accuracy (its ``score``) of the
      estimator whose fitted state carries the noise.
    - A model with ``vectors``, or a :class:`~holovec.retrieval.Codebook`: the mean
      similarity of each vector with its noisy self, and
      :func:`holovec.noise.expected_similarity`'s closed form as a line where it has one
      (``1 - 2 p`` for flips of MAP or BSC).

    Parameters
    ----------
    obj : estimator, VSAModel or Codebook
        What the noise is put on.
    X_test : array_like, optional
        The test samples (an estimator only).
    y_test : array_like, optional
        The test labels (an estimator only).
    vectors : array, optional
        Vectors of the model ``(n, vector_length)`` (a model only).
    noise : str, optional
        ``"flip"``, ``"stuck_at"``, ``"gaussian"``, ``"phase"`` or ``"quantize"``.
    levels : sequence of float, optional
        The levels (see :func:`holovec.noise.perturb`); by default 11 from 0 to 0.5 for
        flips, 0 to 0.9 stuck, 0 to 2 for gaussian and phase noise, 1 to 8 bits.
    seed : int, optional
        Seed of the noise.
    value : float or complex, optional
        The value of stuck elements (stuck_at only).
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; ``None`` for a new figure's.

    Returns
    -------
    matplotlib.axes.Axes
        The axes: ``ax.lines[0]`` the measurement, ``ax.lines[1]`` the closed form (if any).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> from holovec import VSA, plot
    >>> model = VSA.create("MAP", dim=1000)
    >>> ax = plot.robustness_curve(model, vectors=model.random(4, seed=1), levels=[0.0, 0.25])
    >>> [round(float(s), 6) for s in ax.lines[0].get_ydata()]   # exactly 1 - 2 p for MAP
    [1.0, 0.5]
    """
    from .noise import expected_similarity, perturb
    from .retrieval import Codebook

    seed = NON_NEGATIVE_INT.check("seed", seed)
    if not isinstance(noise, str) or noise not in DEFAULT_LEVELS:
        raise ValueError(f"noise must be one of {', '.join(map(repr, DEFAULT_LEVELS))}, got {noise!r}")
    level_rule = POSITIVE_INT if noise == "quantize" else FINITE
    levels = _numbers("levels", DEFAULT_LEVELS[noise] if levels is None else levels, level_rule)
    kwargs = {"seed": seed, "value": value}
    expected = None
    if isinstance(obj, (VSAModel, Codebook)):
        if X_test is not None or y_test is not None:
            raise TypeError("X_test and y_test go with a fitted estimator; a model takes vectors=")
        if isinstance(obj, VSAModel):
            if vectors is None:
                raise TypeError("robustness_curve of a model needs vectors=: the vectors to perturb")
            V, _ = _vectors_and_labels(obj, vectors, "vectors")
            obj = Codebook(obj, list(range(V.shape[0])), V)
        elif vectors is not None:
            raise TypeError("vectors= goes with a model; a codebook holds its own")
        model = _model(obj.model, "the codebook's model")
        measured = [
            float(
                np.mean(
                    model.to_numpy(model.similarity(obj.vectors, perturb(obj, noise, p, **kwargs).vectors))
                )
            )
            for p in levels
        ]
        try:
            expected = [expected_similarity(model, noise, p, value=value) for p in levels]
        except ValueError:  # no closed form for this noise and model
            expected = None
        what = "similarity"
    else:
        if X_test is None or y_test is None or vectors is not None:
            raise TypeError("robustness_curve of an estimator needs X_test and y_test (and no vectors=)")
        measured = [perturb(obj, noise, p, **kwargs).score(X_test, y_test) for p in levels]
        what = "accuracy"
    ax = _axes(ax)
    ax.plot(levels, measured, "o-", label="measured")
    if expected is not None:
        ax.plot(levels, expected, "--", label="expected (noise.expected_similarity)")
    ax.set_xlabel(f"{noise} level")
    ax.set_ylabel(what)
    ax.legend()
    return ax
