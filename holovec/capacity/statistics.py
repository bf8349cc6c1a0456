"""The score statistics of a model's bundles, measured once per model class, options, k and
query, on a NumPy twin of the model at a calibration dimension, with fixed seeds.

Measured rather than derived, so that every model is served through its public protocol
alone, one that a user registers too: the planner runs the model's own ``bundle``,
``bind``, ``unbind`` and ``similarity`` (sign ties, normalisation and approximate unbinding
included), where a closed form would hold for one model's algebra only. Dense models
(every ``element_kind`` but ``"sparse"``) have elements drawn independently with a law that
does not depend on ``dim``, so a score is a mean over ``dim`` independent terms: its mean
does not depend on ``dim`` and its spread falls as ``1 / sqrt(dim)``. One measurement at
the calibration dimension then gives the statistics at every dimension.

Memory is bounded whatever ``k``: bundles that fit a chunk (``CHUNK_ELEMENTS``) are made
whole, a batch of them at a time; a larger one, of a model whose bundle is a sum
(``bundle_is_sum``: ``bundle(items) == finish_sum(sum(lift(items)))``), is summed a block of
items at a time, and its first block's items are scored, with the mean over all of them
recovered from the sums (see :func:`measure_summed`).
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np

from .. import kernels
from ..models.registry import build_model, model_class
from ..random import fold_in
from ..vsa import VSA

#: dimensions tried for the twin, in order (a square for VTB, a multiple of 4 for GHRR,
#: of 16 for BSDC-SEG and of 64 for packed BSC; the others for models with other shapes)
CALIBRATION_DIMS = (1024, 1296, 900, 1152, 960, 1000, 1089, 1200)
#: elements of the item vectors drawn per measurement: the mean item score then has a
#: standard error of about sigma1 / 1450 (0.3 % of the signal for k = 15 MAP)
SAMPLE_ELEMENTS = 1 << 21
#: elements drawn per chunk of bundles (bounds the temporary memory)
CHUNK_ELEMENTS = 1 << 20
#: distractor scores per measurement: their spread has a relative standard error of 0.6 %
#: (1.6 % where k is in the thousands: few bundles, and at most MAX_DISTRACTORS vectors)
DISTRACTOR_SCORES, MAX_DISTRACTORS = 1 << 14, 2048
#: seeds of the draws (chunk c adds c): items, keys and distractors never share a stream
ITEM_SEED, KEY_SEED, DISTRACTOR_SEED = 1 << 20, 2 << 20, 3 << 20
#: the queries measured, and the vectors drawn per item of each (items, and keys)
QUERY_DRAWS = {"member": 1, "lookup": 2, "symmetric": 2}
#: significant digits kept: the statistics are the same on every machine unless a
#: BLAS rounds a score across a boundary of the 6th digit
DIGITS = 6


class BundleStatistics(NamedTuple):
    """The scores of a query, per unit of ``1 / sqrt(dim)`` for the spreads.

    At dimension ``dim`` the item found scores ``item_mean`` with standard deviation
    ``item_spread / sqrt(dim)``; a distractor scores ``other_mean`` with standard deviation
    ``other_spread / sqrt(dim)``.

    Parameters
    ----------
    item_mean : float
        Mean score of the item found.
    item_spread : float
        Standard deviation of its score, times ``sqrt(dim)``.
    other_mean : float
        Mean score of a distractor.
    other_spread : float
        Standard deviation of a distractor's score, times ``sqrt(dim)``.
    """

    item_mean: float
    item_spread: float
    other_mean: float
    other_spread: float


#: the element kinds of sparse codes: one or few active elements per block, whose overlaps
#: are small counts (BSDC, BSDC-SEG, GSBC)
SPARSE_KINDS = ("sparse", "block-code")


def supported_models() -> list[str]:
    """The registered models whose statistics the planner can scale (dense codes)."""
    return [name for name in VSA.available_models() if model_class(name).element_kind not in SPARSE_KINDS]


def check_supported(cls: type) -> None:
    if cls.element_kind in SPARSE_KINDS:
        raise TypeError(
            f"the capacity planner needs a dense model ({', '.join(supported_models())}); "
            f"{cls.name} is a sparse code, whose distractor overlaps are small counts whose "
            "tails a Gaussian misjudges and whose law changes with the density that dim sets"
        )


def rounded(x: float) -> float:
    return float(f"{x:.{DIGITS}g}")


@functools.lru_cache(maxsize=64)
def calibration_model(cls: type, options: tuple) -> Any:
    """The NumPy twin of a model class and options, at the first calibration dim it takes."""
    for dim in CALIBRATION_DIMS:
        try:
            return build_model(cls, dim, "numpy", **dict(options))
        except ValueError:
            continue
    raise ValueError(
        f"the capacity planner found no calibration dimension that {cls.name} with options "
        f"{dict(options)} accepts (tried {', '.join(map(str, CALIBRATION_DIMS))})"
    )


@functools.lru_cache(maxsize=1024)
def bundle_statistics(cls: type, options: tuple, k: int, query: str) -> BundleStatistics:
    """The statistics of ``query`` for bundles of ``k``.

    Parameters
    ----------
    cls : type
        The model class.
    options : tuple
        Its options, a sorted tuple of ``(name, value)`` pairs.
    k : int
        Items bundled (``"member"``) or pairs stored (``"lookup"``, ``"symmetric"``).
    query : str
        ``"member"``, ``"lookup"`` or ``"symmetric"`` (see :func:`measure_chunk`).

    Returns
    -------
    BundleStatistics
        The means and spreads, rounded to ``DIGITS`` significant digits.
    """
    check_supported(cls)
    twin = calibration_model(cls, options)
    dim, width = twin.dim, twin.vector_length
    per_bundle = k * QUERY_DRAWS[query] * dim
    n_bundles = max(2, SAMPLE_ELEMENTS // per_bundle)
    per_chunk = max(1, min(n_bundles, CHUNK_ELEMENTS // per_bundle))
    chunks = -(-n_bundles // per_chunk)
    # a bundle larger than a chunk is kept as a sum, its items drawn a block at a time
    in_blocks = per_bundle > CHUNK_ELEMENTS and twin.bundle_is_sum
    items, others = [], []
    for chunk in range(chunks):  # a loop over chunks of bundles, each batched
        if in_blocks:
            item_scores, queries = measure_summed(twin, k, query, chunk)
        else:
            item_scores, queries = measure_chunk(twin, k, per_chunk, query, chunk)
        items.append(item_scores.ravel())
        queries = queries.reshape(-1, width)[:2048]
        wanted = -(-DISTRACTOR_SCORES // (chunks * queries.shape[0]))
        n_others = max(1, min(wanted, MAX_DISTRACTORS // chunks))
        distractors = twin.random(n_others, seed=DISTRACTOR_SEED + chunk)
        others.append(np.asarray(twin.to_numpy(twin.similarity_matrix(queries, distractors))).ravel())
    item, other = np.concatenate(items).astype(np.float64), np.concatenate(others).astype(np.float64)
    root = math.sqrt(dim)
    return BundleStatistics(
        rounded(item.mean()), rounded(item.std() * root), rounded(other.mean()), rounded(other.std() * root)
    )


def measure_chunk(twin: Any, k: int, n: int, query: str, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Item scores ``(k, n)`` of ``n`` bundles of ``k``, and the query vectors.

    Parameters
    ----------
    twin : VSAModel
        The model on NumPy at the calibration dimension.
    k : int
        Items (or pairs) per bundle.
    n : int
        Bundles, made at once (a batch axis).
    query : str
        ``"member"``: ``bundle(items)``, scored against each of its items. ``"lookup"``:
        ``bundle(bind(item_i, key_i))`` read by ``unbind(memory, key_j)`` and scored against
        ``item_j``. ``"symmetric"``: each pair stored both ways,
        ``bundle(bind(item_i, key_i), bind(key_i, item_i))`` (an undirected edge of a
        non-commutative model), read as a lookup.
    chunk : int
        The chunk's number (offsets the seeds).

    Returns
    -------
    tuple of numpy.ndarray
        The item scores and the query vectors (the bundles, or the reads).
    """
    width = twin.vector_length

    def draw(seed: int) -> Any:  # (k, n, width): the items on axis 0, the bundles a batch axis
        return np.swapaxes(twin.random(n * k, seed=seed + chunk).reshape(n, k, width), 0, 1)

    items = draw(ITEM_SEED)
    if query == "member":
        queries = twin.bundle(items)
        scores = twin.similarity(queries[None], items)
    else:
        keys = draw(KEY_SEED)
        bound = twin.bind(items, keys)
        if query == "symmetric":
            bound = np.concatenate([bound, twin.bind(keys, items)], axis=0)
        memory = twin.bundle(bound)
        queries = twin.unbind(memory[None], keys)
        scores = twin.similarity(queries, items)
    return np.asarray(twin.to_numpy(scores)), np.asarray(twin.to_numpy(queries))


def measure_summed(twin: Any, k: int, query: str, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`measure_chunk` for one bundle too large for a chunk, of a model whose bundle
    is a sum, in one pass over blocks of items: memory is a few blocks, whatever ``k``.

    The pass sums the lifted members (in float64, so that no number of items loses the
    sum's precision; ``finish_sum`` then makes the bundle) and the score operands of what
    each read is scored by: the item (member) or ``bind(item, key)`` (lookups, whose read
    ``unbind(memory, key)`` is scored against the item, and ``unbind`` is the adjoint of
    ``bind`` for the models' similarity). The first block's items are scored as a whole
    bundle's are; the mean over all ``k`` of their dot products with the bundle then
    follows from the sums, and corrects the block's mean as a control variate: where
    every item has one norm (MAP, BSC, FHRR, GHRR) the score is that dot product scaled,
    so the mean is the mean over all ``k`` items, as if each were scored (the signal of a
    large bundle, about ``1 / sqrt(k)``, would otherwise drown in the block's noise).

    Parameters
    ----------
    twin : VSAModel
        The model on NumPy at the calibration dimension (``bundle_is_sum``).
    k : int
        Items (or pairs) in the bundle.
    query : str
        ``"member"``, ``"lookup"`` or ``"symmetric"`` (as :func:`measure_chunk`).
    chunk : int
        The chunk's number (names the seeds).

    Returns
    -------
    tuple of numpy.ndarray
        Scores of the first block's items, shifted by the control variate's correction
        (their spread is the block's, their mean the estimate over all ``k``), and the query
        vectors (the bundle, or the reads of the first block's keys).
    """
    block = max(1, CHUNK_ELEMENTS // (QUERY_DRAWS[query] * twin.dim))
    wide = np.complex128 if np.dtype(twin.sum_dtype).kind == "c" else np.float64
    total: Any = 0.0
    targets: Any = 0.0  # the sum of the score operands that reads are scored by
    kept: tuple[Any, Any, Any] | None = None
    for start in range(0, k, block):
        rows = min(block, k - start)
        items = twin.random(rows, seed=fold_in(ITEM_SEED + chunk, start))
        if query == "member":
            keys, target = None, items
            total = total + np.sum(twin.lift(items), axis=0, dtype=wide)
        else:
            keys = twin.random(rows, seed=fold_in(KEY_SEED + chunk, start))
            target = twin.bind(items, keys)
            total = total + np.sum(twin.lift(target), axis=0, dtype=wide)
            if query == "symmetric":
                total = total + np.sum(twin.lift(twin.bind(keys, items)), axis=0, dtype=wide)
        operand = np.asarray(twin.score_operand(target), dtype=np.float64)
        targets = targets + np.sum(operand, axis=0)
        if kept is None:
            kept = (items, keys, operand)
    items, keys, operand = kept
    memory = twin.finish_sum(np.asarray(total))
    queries = memory[None] if keys is None else twin.unbind(memory[None], keys)
    scores = np.asarray(twin.to_numpy(twin.similarity(queries, items)), dtype=np.float64)
    probe = np.asarray(twin.score_operand(memory), dtype=np.float64)
    # the block's dot products with the bundle; their mean over all k from the sums
    dots = kernels.matmul(twin.backend, operand, probe)
    spread = np.var(dots)
    slope = 0.0 if spread == 0 else float(np.mean((dots - dots.mean()) * (scores - scores.mean())) / spread)
    correction = slope * (float(kernels.vecdot(twin.backend, targets, probe)) / k - float(dots.mean()))
    return scores + correction, np.asarray(twin.to_numpy(queries))
