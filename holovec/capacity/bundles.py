"""Bundle capacity: the accuracy of finding bundled items again, the dimension it needs and
the number of items it allows (see :mod:`holovec.capacity`)."""

from __future__ import annotations

import functools
import math
from typing import Any

from .._params import POSITIVE_INT, Interval
from ..models.base import VSAModel
from ..models.registry import build_model, model_class
from .gaussian import found_probability
from .statistics import BundleStatistics, check_supported
from .statistics import bundle_statistics as measured

QUERIES = ("member", "lookup", "symmetric")
#: the largest dimension ``dimension`` searches (2^40: far beyond any memory)
MAX_DIM = 1 << 40


def resolve(model: Any, options: dict[str, Any]) -> tuple[type, tuple]:
    """The model class and its options (a sorted tuple of pairs) of a model or a name."""
    if isinstance(model, VSAModel):
        if options:
            raise TypeError(
                f"options ({', '.join(sorted(options))}) go with a model name; the model "
                f"{model!r} carries its own"
            )
        cls, pairs = type(model), tuple(model.get_config()["options"])
    elif isinstance(model, str):
        cls, pairs = model_class(model), tuple(options.items())
    elif isinstance(model, type) and issubclass(model, VSAModel):
        cls, pairs = model, tuple(options.items())
    else:
        raise TypeError(f"model must be a model or a model name such as 'MAP', got {type(model).__name__}")
    check_supported(cls)
    try:  # the statistics are cached by options: they must be plain values
        hash(pairs)
    except TypeError:
        raise TypeError(
            f"model options must be plain values (numbers, strings, tuples), got {dict(pairs)!r}"
        ) from None
    return cls, tuple(sorted(pairs))


def check_query(query: Any) -> str:
    if query not in QUERIES:
        raise ValueError(f"query must be one of {', '.join(map(repr, QUERIES))}, got {query!r}")
    return query


def check_accuracy(value: Any) -> float:
    value = Interval(0, 1, closed="neither", words="a probability").check("accuracy", value)
    return value


def check_sizes(n_items: Any, k: Any, query: str) -> tuple[int, int]:
    n_items = POSITIVE_INT.check("n_items", n_items)
    k = POSITIVE_INT.check("k", k)
    if query == "member" and k > n_items:
        raise ValueError(
            f"k must be at most n_items ({n_items}): k items are drawn from the codebook, got k={k}"
        )
    return n_items, k


def distractors(n_items: int, k: int, query: str) -> int:
    """Candidates that the item must beat: the codebook less the bundle's members (member),
    every other value (lookup, symmetric)."""
    return n_items - k if query == "member" else n_items - 1


def probability(stats: BundleStatistics, dim: int, n_others: int) -> float:
    """Frady et al.'s integral for the statistics scaled to ``dim``."""
    gap = stats.item_mean - stats.other_mean
    if stats.other_spread == 0.0:  # distractors all score other_mean
        return 1.0 if gap > 0 or n_others == 0 else 0.0
    snr = gap * math.sqrt(dim) / stats.other_spread
    return found_probability(snr, stats.item_spread / stats.other_spread, n_others)


def accuracy(model: Any, dim: int, n_items: int, k: int, *, query: str = "member", **options: Any) -> float:
    """The probability of finding a bundled item again (or a stored value, ``"lookup"``).

    Parameters
    ----------
    model : VSAModel, str or type
        A model (its class and options count; its dim, backend, dtype and seed do not), or a
        model name such as ``"MAP"`` with its options as keyword arguments.
    dim : int
        The dimension at which to plan.
    n_items : int
        The size of the codebook the answer is cleaned up in.
    k : int
        Items bundled (``"member"``: at most ``n_items``) or key-value pairs stored
        (``"lookup"``, ``"symmetric"``: any number; values may repeat).
    query : str
        ``"member"``: ``bundle`` ``k`` distinct items of the codebook; the probability that
        one of them is more similar to the bundle than each of the ``n_items - k`` others.
        ``"lookup"``: ``bundle(bind(value_i, key_i))`` of ``k`` pairs read by
        ``unbind(memory, key_j)``; the probability that ``value_j`` scores above each of the
        other ``n_items - 1`` candidate values. ``"symmetric"``: a lookup in a memory that
        holds each pair both ways, ``bind(value_i, key_i)`` and ``bind(key_i, value_i)``
        (an undirected edge of a non-commutative model, :class:`holovec.structures.Graph`):
        ``2 k`` bundled vectors, of which the reverse one adds to the read where ``bind``
        nearly commutes (GHRR with small blocks) and is noise elsewhere.
    **options
        The model's options, with a model name.

    Returns
    -------
    float
        The probability, from Gaussian scores with the model's measured statistics
        (:func:`holovec.capacity.bundle_statistics`).

    Examples
    --------
    >>> from holovec import capacity
    >>> round(capacity.accuracy("MAP", 800, 1000, 15), 3)  # Schlegel et al. (2022): 0.99
    0.995
    """
    query = check_query(query)
    cls, pairs = resolve(model, options)
    dim = POSITIVE_INT.check("dim", dim)
    n_items, k = check_sizes(n_items, k, query)
    return probability(measured(cls, pairs, k, query), dim, distractors(n_items, k, query))


def dimension(
    model: Any, n_items: int, k: int, accuracy: float = 0.99, *, query: str = "member", **options: Any
) -> int:
    """The smallest dimension (that the model accepts) at which :func:`accuracy` reaches
    ``accuracy``.

    Parameters are those of :func:`accuracy`; ``accuracy`` is the target probability, in
    (0, 1). A model with a shape (VTB's squares, GHRR's blocks, packed BSC's words) gets
    the smallest dimension of that shape at or above the unconstrained answer.

    Parameters
    ----------
    model : VSAModel, str or type
        A dense model, a model name or a model class (as for :func:`accuracy`).
    n_items : int
        Number of candidate items the answer is chosen among.
    k : int
        Number of items bundled (pairs stored for a lookup).
    accuracy : float, optional
        Probability with which each item must be found.
    query : str, optional
        ``"member"``, ``"lookup"`` or ``"symmetric"`` (as for :func:`accuracy`).
    **options : object
        The model's options, where ``model`` is a name.

    Examples
    --------
    >>> from holovec import capacity
    >>> capacity.dimension("MAP", 1000, 15)  # Schlegel et al. (2022): about 800
    730
    >>> capacity.dimension("FHRR", 1000, 15)  # about 350
    302
    >>> capacity.dimension("VTB", 1000, 15)  # a square: 22 x 22
    484
    """
    query = check_query(query)
    cls, pairs = resolve(model, options)
    target = check_accuracy(accuracy)
    n_items, k = check_sizes(n_items, k, query)
    stats, n_others = measured(cls, pairs, k, query), distractors(n_items, k, query)
    if stats.item_mean <= stats.other_mean and n_others > 0:
        raise ValueError(
            f"{cls.name} items score no higher than distractors for k={k}: no dimension finds them"
        )
    good = 1
    while probability(stats, good, n_others) < target:
        good *= 2
        if good > MAX_DIM:
            raise ValueError(f"no dimension up to 2^40 reaches accuracy {target} for {cls.name}")
    bad = good // 2  # 0, or a dim that misses: bisect between them
    while good - bad > 1:
        middle = (good + bad) // 2
        good, bad = (middle, bad) if probability(stats, middle, n_others) >= target else (good, middle)
    return accepted_dim(cls, pairs, good)


@functools.lru_cache(maxsize=1024)
def accepted_dim(cls: type, options: tuple, dim: int) -> int:
    """The smallest dimension at or above ``dim`` at which ``cls`` with ``options`` builds."""
    limit = dim + 4 * math.isqrt(dim) + 4096
    for candidate in range(dim, limit + 1):
        try:
            build_model(cls, candidate, "numpy", **dict(options))
        except ValueError:
            continue
        return candidate
    raise ValueError(f"{cls.name} accepts no dimension in [{dim}, {limit}]")


def max_items(
    model: Any, dim: int, n_items: int, accuracy: float = 0.99, *, query: str = "member", **options: Any
) -> int:
    """The largest ``k`` for which :func:`accuracy` reaches ``accuracy``: the end of the
    run of ``k = 1, 2, ...`` that reach it (0 if even one item misses). Parameters are those
    of :func:`accuracy`. A member query bundles at most ``n_items``; a lookup stores any
    number of pairs (values may repeat). The first call measures the statistics at a few
    ``k`` (a second or so where the answer is in the thousands).

    Parameters
    ----------
    model : VSAModel, str or type
        A dense model, a model name or a model class (as for :func:`accuracy`).
    dim : int
        The dimension of the vectors.
    n_items : int
        Number of candidate items the answer is chosen among.
    accuracy : float, optional
        Probability with which each item must be found.
    query : str, optional
        ``"member"``, ``"lookup"`` or ``"symmetric"`` (as for :func:`accuracy`).
    **options : object
        The model's options, where ``model`` is a name.

    Examples
    --------
    >>> from holovec import capacity
    >>> capacity.max_items("MAP", 800, 1000)
    15
    """
    query = check_query(query)
    cls, pairs = resolve(model, options)
    dim = POSITIVE_INT.check("dim", dim)
    n_items = POSITIVE_INT.check("n_items", n_items)
    target = check_accuracy(accuracy)

    def reaches(k: int) -> bool:
        stats = measured(cls, pairs, k, query)
        return probability(stats, dim, distractors(n_items, k, query)) >= target

    if not reaches(1):
        return 0
    # lookups: values may repeat, so k has no bound but the accuracy, which falls with k
    top = n_items if query == "member" else MAX_DIM
    good = 1
    while 2 * good < top and reaches(2 * good):
        good *= 2
    # near n_items a member query has few distractors left and succeeds again: step
    # through the rest in eighths to find where the run from k = 1 ends
    bad = 2 * good
    if bad >= top:  # (member queries only) near n_items few distractors are left and the
        # accuracy rises again: step through the rest in eighths to find where the run ends
        steps = sorted({good + (top - good) * j // 8 for j in range(1, 9)})
        bad = next((k for k in steps if not reaches(k)), 0)
        if not bad:
            return n_items
    while bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (middle, bad) if reaches(middle) else (good, middle)
    return good


def bundle_statistics(model: Any, k: int, *, query: str = "member", **options: Any) -> BundleStatistics:
    """The measured score statistics behind :func:`accuracy` (see :class:`BundleStatistics`
    and :mod:`holovec.capacity.statistics`); parameters as there.

    >>> from holovec import capacity
    >>> stats = capacity.bundle_statistics("MAP", 3)
    >>> round(stats.item_mean, 2)  # a sign bundle of 3: the central binomial coefficient 1/2
    0.5

    Parameters
    ----------
    model : VSAModel, str or type
        A dense model, a model name or a model class (as for :func:`accuracy`).
    k : int
        Number of items bundled (pairs stored for a lookup).
    query : str, optional
        ``"member"``, ``"lookup"`` or ``"symmetric"`` (as for :func:`accuracy`).
    **options : object
        The model's options, where ``model`` is a name.
    """
    query = check_query(query)
    cls, pairs = resolve(model, options)
    return measured(cls, pairs, POSITIVE_INT.check("k", k), query)
