"""Docstring text that several estimators share: written once here, put into each
estimator's docstring where a line says ``{encoder_parameters}``, ``{ridge_memory}``,
``{retraining_parameters}`` or ``{random_state}``
(private)."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T", bound=type)

#: the default encoder's parameters, the same for every estimator that encodes its input
ENCODER_PARAMETERS = """\
    model, dim : str and int, or None
        The model and dimension of the default encoder (``None``: ``"FHRR"`` and 10000, or
        those of ``encoder``).
    encoder : None, "precomputed", HDEncoder or a holovec encoder
        How samples become hypervectors (see :class:`HDEncoder`).
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

#: ``random_state``, scikit-learn's name for ``seed``, the same for every estimator
RANDOM_STATE = """\
    random_state : int or None, default None
        scikit-learn's name for ``seed`` (set by its tools, such as ``check_estimator``):
        give either, or both equal (``ValueError`` where they differ). A NumPy
        ``RandomState`` or ``Generator`` is refused (``TypeError``): holovec's generator is
        seeded by an int, so that a fit reproduces from its parameters.
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
    backend, device, seed :
        Passed to the default encoder (``seed=None``: fresh randomness, in
        ``encoder_.seed_``); the seed also orders the retraining passes.
    verbose : bool, default False
        Show a progress bar over the epochs of training, with the training accuracy.
"""
    + RANDOM_STATE
)

_MARKERS = {
    "encoder_parameters": ENCODER_PARAMETERS,
    "ridge_memory": RIDGE_MEMORY,
    "retraining_parameters": RETRAINING_PARAMETERS,
    "random_state": RANDOM_STATE,
}


def shared_parameters(cls: T) -> T:
    """Class decorator: the shared texts in place of their marker lines."""
    for marker, text in _MARKERS.items():
        cls.__doc__ = cls.__doc__.replace(f"    {{{marker}}}\n", text)
    return cls
