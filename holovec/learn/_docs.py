"""Docstring text that several estimators share: written once here, put into each
estimator's docstring where a line says ``{encoder_parameters}``, ``{ridge_memory}``,
``{retraining_parameters}`` or ``{random_state}``, and the Parameters section of each
method that has none, from the method's signature and :data:`ARGUMENTS` (private)."""

from __future__ import annotations

import inspect
from typing import TypeVar

T = TypeVar("T", bound=type)

#: the default encoder's parameters, the same for every estimator that encodes its input
ENCODER_PARAMETERS = """\
    model, dim : str and int, or None
        The model and dimension of the default encoder (``None``: ``"FHRR"`` and 10000, or
        those of ``encoder``).
    encoder : None, "precomputed", HDEncoder or a holovec encoder
        How samples become hypervectors (see :class:`HDEncoder`).
    backend, device : str or None
        Passed to the default encoder (``None``: holovec's default backend, its best device).
"""


#: the ridge learners' memory, as measured (see holovec.learn.ridge for the derivation)
RIDGE_MEMORY = """\
    Memory grows with the data set: the solve keeps the ``n`` encodings and an ``n x n``
    system, or accumulates a ``w x w`` one (``w``: the width, ``2 dim`` for FHRR),
    whichever peaks lower. In float64 the first peaks at up to ``max(12 n w, 8 n w +
    24 n^2)`` bytes (the widened encodings and three ``n x n`` matrices), the second at up
    to ``24 w^2``; NumPy reuses one square matrix's buffer. Measured with tracemalloc on
    NumPy: 2,000 samples at width 4,000 peak at 122 MiB, four times their 31 MiB of
    float32 encodings. A fit whose peak exceeds the memory available is refused before
    allocating (:class:`~holovec.models.AllocationError`).
"""

#: ``random_state`` and its deprecated alias ``seed``, the same for every estimator
RANDOM_STATE = """\
    random_state : int or None, default None
        The seed of every random choice (the default encoder's model and projection, the
        order of the passes, dropout, first centroids; ``None``: fresh randomness, in
        ``encoder_.seed_``), set by scikit-learn's tools too. A NumPy ``RandomState`` or
        ``Generator`` is refused (``TypeError``): holovec's generator is seeded by an int,
        so that a fit reproduces from its parameters.
    seed : int or None, default None
        Deprecated alias of ``random_state`` (a ``FutureWarning`` at ``fit``); where both
        are given, ``random_state`` is used.
"""

#: the retraining classifiers' (AdaptHD, OnlineHD, NeuralHD) parameters after ``lr``
RETRAINING_PARAMETERS = (
    """\
    binarize : bool, default False
        After training, round the prototypes to the model's own vectors and predict by the
        model's similarity (MAP and BSC only), as for :class:`CentroidClassifier`.
    batch_size : int, default 1024
        Samples encoded and applied at once (every sample of a batch sees the prototypes
        as they were before it); memory is bounded by it, not the data set.
    cache_size : float, default 512
        MiB for keeping the training set's encodings between epochs: kept when they fit,
        else encoded again every epoch (0: never kept).
    verbose : bool, default False
        Show a progress bar over the epochs of training, with the training accuracy.
"""
    + RANDOM_STATE
)

#: the attributes of the retraining classifiers (AdaptHD, OnlineHD, NeuralHD)
RETRAINING_ATTRIBUTES = """\
    classes_, prototypes_, class_vectors_, encoder_, model_, n_features_in_ :
        As for :class:`CentroidClassifier`.
"""

_MARKERS = {
    "retraining_attributes": RETRAINING_ATTRIBUTES,
    "encoder_parameters": ENCODER_PARAMETERS,
    "ridge_memory": RIDGE_MEMORY,
    "retraining_parameters": RETRAINING_PARAMETERS,
    "random_state": RANDOM_STATE,
}


#: the methods' arguments, by name: ``(type, description)``, for their Parameters sections
ARGUMENTS = {
    "X": (
        "array-like",
        "The samples: what the encoder takes (a feature matrix ``(n_samples, n_features)`` of "
        'NumPy, PyTorch or JAX; the model\'s vectors for ``encoder="precomputed"``; a batch of a '
        "holovec encoder's inputs, such as a list of texts; series for a TimeSeriesEncoder).",
    ),
    "y": (
        "array-like of shape (n_samples,) or None",
        "The samples' class labels (classifiers) or targets (regressors); ignored by the "
        "encoders and clusterers (scikit-learn's convention).",
    ),
    "classes": (
        "array-like or None, default None",
        "Every label of the stream: needed on the first call of ``partial_fit``, optional "
        "(the same labels) on later calls.",
    ),
    "path": ("str or path-like", "The ``.npz`` file."),
    "n_classes": (
        "int or None",
        "The rows of the fitted state: the classes (the clusters of HDKMeans), ``None`` for a regressor.",
    ),
    "width": ("int", "The learning space's width (``dim``; twice that for complex models)."),
    "rows": ("array", "A batch of the rows that :meth:`check_input` returned."),
    "timestamps": (
        "array-like or None, default None",
        "The time of each step, ``(n_series, length)`` or one ``(length,)`` row for all (a "
        "list of rows for ragged series): real numbers or NumPy datetimes; ``None``: evenly spaced.",
    ),
    "params": ("dict", "The estimator's saved parameters."),
}


def document_methods(cls: T) -> T:
    """Give each public method of ``cls`` (holovec's own) that has no Parameters section
    one made from its signature and :data:`ARGUMENTS`."""
    for name, member in vars(cls).items():
        # (class methods, and scikit-learn's available_if, hold the function)
        function = getattr(member, "fn", getattr(member, "__func__", member))
        if name.startswith("_") or not inspect.isfunction(function) or not function.__doc__:
            continue
        if "Parameters\n" in function.__doc__:
            continue
        arguments = [p for p in inspect.signature(function).parameters if p not in ("self", "cls")]
        if not arguments or not all(a in ARGUMENTS for a in arguments):
            continue
        lines = ["", "", "        Parameters", "        ----------"]
        for argument in arguments:
            kind, text = ARGUMENTS[argument]
            lines += [f"        {argument} : {kind}", f"            {text}"]
        function.__doc__ = function.__doc__.rstrip() + "\n".join(lines) + "\n        "
    return cls


def shared_parameters(cls: T) -> T:
    """Class decorator: the shared texts in place of their marker lines, and the methods'
    Parameters sections (see :func:`document_methods`)."""
    for marker, text in _MARKERS.items():
        cls.__doc__ = cls.__doc__.replace(f"    {{{marker}}}\n", text)
    return document_methods(cls)
