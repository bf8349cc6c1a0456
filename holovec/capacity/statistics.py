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
"""

from __future__ import annotations

import functools
import math
from typing import Any, NamedTuple

import numpy as np

from ..models.registry import build_model, model_class
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
#: significant digits kept: the statistics are the same on every machine unless a
#: BLAS rounds a score across a boundary of the 6th digit
DIGITS = 6


class BundleStatistics(NamedTuple):
    """The scores of a query, per unit of ``1 / sqrt(dim)`` for the spreads.

    At dimension ``dim`` the item found scores ``item_mean`` with standard deviation
    ``item_spread / sqrt(dim)``; a distractor scores ``other_mean`` with standard deviation
    ``other_spread / sqrt(dim)``.
    """

    item_mean: float
    item_spread: float
    other_mean: float
    other_spread: float


def supported_models() -> list[str]:
    """The registered models whose statistics the planner can scale (dense codes)."""
    return [name for name in VSA.available_models() if model_class(name).element_kind != "sparse"]


def check_supported(cls: type) -> None:
    if cls.element_kind == "sparse":
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
    """The statistics of ``query`` (``"member"`` or ``"lookup"``) for bundles of ``k``."""
    check_supported(cls)
    twin = calibration_model(cls, options)
    dim, width = twin.dim, twin.vector_length
    per_bundle = k * (2 if query == "lookup" else 1) * dim
    n_bundles = max(2, SAMPLE_ELEMENTS // per_bundle)
    per_chunk = max(1, min(n_bundles, CHUNK_ELEMENTS // per_bundle))
    chunks = -(-n_bundles // per_chunk)
    items, others = [], []
    for chunk in range(chunks):  # a loop over chunks of bundles, each batched
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
    """Item scores ``(k, n)`` of ``n`` bundles of ``k``, and the query vectors."""
    width = twin.vector_length

    def draw(seed: int) -> Any:  # (k, n, width): the items on axis 0, the bundles a batch axis
        return np.swapaxes(twin.random(n * k, seed=seed + chunk).reshape(n, k, width), 0, 1)

    items = draw(ITEM_SEED)
    if query == "member":
        queries = twin.bundle(items)
        scores = twin.similarity(queries[None], items)
    else:
        keys = draw(KEY_SEED)
        memory = twin.bundle(twin.bind(items, keys))
        queries = twin.unbind(memory[None], keys)
        scores = twin.similarity(queries, items)
    return np.asarray(twin.to_numpy(scores)), np.asarray(twin.to_numpy(queries))
