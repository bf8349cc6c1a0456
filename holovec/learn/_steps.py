"""The step a batch's summed update takes (the retraining learners' rule against overshoot).

The papers' retraining rules update one sample at a time; a batch scores all its samples
against the prototypes before it, so the sum of their updates overshoots where many
mistakes push the same way. The sum takes the step (a fraction 1, 1/2, ... of it, or none)
that misclassifies the fewest of the batch's samples (:func:`best_step`): a batch of one
sample steps as the per-sample rule, and no batch loses samples of its own to its step.
Pure functions of arrays over a :class:`~holovec.learn._space.Space`, compiled where the
backend compiles, as the rules that call them.
"""

from __future__ import annotations

import math
from typing import Any

from .._fixed_order import rounding_margin
from ._space import Space

__all__ = [
    "best_step",
    "chunks",
    "counted",
    "counts_along",
    "counts_of",
    "mistakes",
    "predicted",
    "step_fractions",
    "taking",
    "unsure",
]


def mistakes(space: Space, P: Any, H: Any, t: Any, weights: Any) -> tuple[Any, Any, Any, Any]:
    """The scores of a batch, its one-hot true and predicted classes, and its mistakes as a
    0/1 column (0 for padding)."""
    S = space.cosines(H, P)
    true = space.one_hot(t, P.shape[0])
    pred, wrong = predicted(space, S, true, weights)
    return S, true, pred, wrong


def predicted(space: Space, S: Any, true: Any, weights: Any) -> tuple[Any, Any]:
    """The predicted classes of a batch and its mistakes.

    A mistake is a sample that another class scores above its own; a sample whose class
    ties with the best is none, so where every prototype is still 0 (OnlineHD's first
    batch) no class is predicted and none is taken from.

    Parameters
    ----------
    space : Space
        The learning space.
    S : array, shape ``(rows, classes)``
        The batch's scores.
    true : array, shape ``(rows, classes)``
        The one-hot true classes.
    weights : array of shape ``(rows,)`` or None
        1 per sample and 0 per row of padding (None: no padding; see ``Batch``).

    Returns
    -------
    pred : array, shape ``(rows, classes)``
        The one-hot predicted classes (the first of the best).
    wrong : array, shape ``(rows, 1)``
        1 for a mistake, else 0 (0 for padding).
    """
    xp = space.xp
    pred = xp.argmax(S, axis=1)
    classes = xp.arange(S.shape[1], dtype=pred.dtype, device=space.backend.device)
    one_hot = xp.astype(pred[:, None] == classes[None, :], space.dtype)
    wrong = xp.astype(xp.max(S, axis=1) > xp.sum(S * true, axis=1), space.dtype)
    return one_hot, space.masked(wrong[:, None], weights)


#: the fractions of a batch's summed update a step may take, largest first: 1, 1/2, ...,
#: 2**-(HALVINGS - 1), then 0 (see best_step)
HALVINGS = 16


def step_fractions(space: Space, every: int = 1) -> Any:
    """The fractions a step may take, largest first, on the space's device.

    Parameters
    ----------
    space : Space
        The learning space.
    every : int, default 1
        Every ``every``-th halving of ``HALVINGS`` (then 0).

    Returns
    -------
    array, shape ``(fractions,)``
        ``1, 2**-every, ...`` and 0 last.
    """
    values = [2.0**-k for k in range(0, HALVINGS, every)] + [0.0]
    return space.xp.asarray(values, dtype=space.dtype, device=space.backend.device)


def best_step(
    space: Space, P: Any, S: Any, H: Any, coef: Any, true: Any, wrong: Any, weights: Any
) -> tuple[Any, Any, Any]:
    """Prototypes moved by the step along a batch's summed update that misclassifies the
    fewest of the batch's samples (the largest such of the fractions ``step_fractions``).

    Every sample of a batch is scored against the prototypes before it, so the sum of its
    per-sample updates overshoots where many mistakes push the same way (the per-sample
    rule would have stopped once they were corrected): the step keeps the sum's direction
    and takes the length that serves the batch best, never more than the sum, nor less
    than nothing (a step that only loses samples of the batch is not taken). One sample's
    update never loses it (AdaptHD's and OnlineHD's raise its class's score and lower the
    predicted one's), so batches of one sample step as the per-sample rule does.

    Parameters
    ----------
    space : Space
        The learning space.
    P : array, shape ``(classes, width)``
        The prototypes before the batch.
    S : array, shape ``(rows, classes)``
        The batch's scores against ``P``.
    H : array or Rows, shape ``(rows, width)``
        The batch's unit rows.
    coef : array, shape ``(rows, classes)``
        Each sample's per-sample update of each prototype (0 for padding).
    true : array, shape ``(rows, classes)``
        The one-hot true classes.
    wrong : array, shape ``(rows, 1)``
        The mistakes against ``P`` (see :func:`predicted`).
    weights : array of shape ``(rows,)`` or None
        1 per sample and 0 per row of padding (None: no padding).

    Returns
    -------
    updated : array, shape ``(classes, width)``
        The prototypes after the step.
    D : array, shape ``(classes, width)``
        The summed update ``coef.T @ H``.
    counts : array, shape ``(fractions,)``
        The batch's mistakes at each fraction (see :func:`counts_along`).
    """
    xp = space.xp
    D = space.add(xp.zeros_like(P), coef, H)
    counts = counts_along(space, P, S, D, space.product(H, xp.permute_dims(D, (1, 0))), true, wrong, weights)
    return taking(space, P, D, counts), D, counts


def counts_along(space: Space, P: Any, S: Any, D: Any, G: Any, true: Any, wrong: Any, weights: Any) -> Any:
    """How many samples of a batch prototypes ``P + a D`` misclassify, for each fraction
    ``a`` of ``step_fractions``.

    The scores at every ``a`` come from ``S`` (cosines of unit rows ``H``) and one
    product ``G = H @ D.T``: ``(S |p| + a G) / |p + a d|``, with ``|p + a d|^2 = |p|^2 +
    2 a p.d + a^2 |d|^2``.

    Parameters
    ----------
    space : Space
        The learning space.
    P, D : array, shape ``(classes, width)``
        The prototypes and the batch's summed update.
    S : array, shape ``(rows, classes)``
        The batch's scores against ``P``.
    G : array, shape ``(rows, classes)``
        The products of the batch's unit rows with ``D``.
    true : array, shape ``(rows, classes)``
        The one-hot true classes.
    wrong : array, shape ``(rows, 1)``
        The mistakes against ``P`` (the count at ``a = 0``).
    weights : array of shape ``(rows,)`` or None
        1 per sample and 0 per row of padding (None: no padding).

    Returns
    -------
    array, shape ``(fractions,)``
        The mistakes at each fraction, in the order of ``step_fractions``.
    """
    xp = space.xp
    fractions = step_fractions(space)[:-1]  # (those above 0)
    squares = xp.sum(P * P, axis=1)
    cross, step = xp.sum(P * D, axis=1), xp.sum(D * D, axis=1)
    base = S * xp.sqrt(squares)
    counts = []
    for start, stop in chunks(fractions.shape[0], space.width // P.shape[0]):
        a = fractions[start:stop, None]
        lengths = xp.sqrt(xp.clip(squares + 2.0 * a * cross + a * a * step, 0.0, None))  # (fractions, C)
        dots = base[None, :, :] + a[:, :, None] * G[None, :, :]
        scores = dots / xp.where(lengths > 0, lengths, xp.ones_like(lengths))[:, None, :]
        counts.append(counted(space, scores, true, weights))
    return xp.concat([*counts, xp.sum(wrong, axis=0)], axis=0)


def chunks(count: int, per: int) -> list[tuple[int, int]]:
    """Runs of at most ``max(1, per)`` of ``count`` fractions, so that the scores of a run
    of fractions take no more memory than the batch's rows (``per``: the rows' width over
    the classes).

    Parameters
    ----------
    count : int
        The number of fractions.
    per : int
        How many fractions' scores a run may hold.

    Returns
    -------
    list of (int, int)
        The runs' starts and stops.
    """
    per = max(1, per)
    return [(start, min(start + per, count)) for start in range(0, count, per)]


def counted(space: Space, scores: Any, true: Any, weights: Any) -> Any:
    """The mistakes of a batch after steps of some fractions.

    Parameters
    ----------
    space : Space
        The learning space.
    scores : array, shape ``(fractions, rows, classes)``
        The batch's scores after each step.
    true : array, shape ``(rows, classes)``
        The one-hot true classes.
    weights : array of shape ``(rows,)`` or None
        1 per sample and 0 per row of padding (None: no padding).

    Returns
    -------
    array, shape ``(fractions,)``
        The number of samples that another class scores above their own, after each step.
    """
    xp = space.xp
    after = xp.astype(xp.max(scores, axis=2) > xp.sum(scores * true[None, :, :], axis=2), space.dtype)
    if weights is not None:
        after = after * weights[None, :]
    return xp.sum(after, axis=1)


def taking(space: Space, P: Any, D: Any, counts: Any, every: int = 1) -> Any:
    """Prototypes moved by the largest fraction with the fewest mistakes.

    Parameters
    ----------
    space : Space
        The learning space.
    P, D : array, shape ``(classes, width)``
        The prototypes and the batch's summed update.
    counts : array, shape ``(fractions,)``
        The mistakes at each of ``step_fractions(space, every)``.
    every : int, default 1
        Which fractions ``counts`` are of.

    Returns
    -------
    array, shape ``(classes, width)``
        ``P + a D`` (``argmin`` takes the first of the fewest, and the fractions fall).
    """
    return P + step_fractions(space, every)[space.xp.argmin(counts)] * D


def counts_of(space: Space, P: Any, D: Any, H: Any, t: Any, weights: Any) -> tuple[Any, Any]:
    """:func:`counts_along` for more samples of a batch, scored here.

    Parameters
    ----------
    space : Space
        The learning space.
    P, D : array, shape ``(classes, width)``
        The prototypes and the batch's summed update.
    H : array or Rows, shape ``(rows, width)``
        The samples' unit rows.
    t : array, shape ``(rows,)``
        Their class indices.
    weights : array of shape ``(rows,)`` or None
        1 per sample to count, 0 per row not to.

    Returns
    -------
    counts : array, shape ``(fractions,)``
        Their mistakes at each fraction.
    S : array, shape ``(rows, classes)``
        Their scores against ``P``.
    """
    xp = space.xp
    C = P.shape[0]
    # (the scores and the products with D in one product: the rows are read once)
    both = space.product(H, xp.permute_dims(xp.concat([space.unit_rows(P), D], axis=0), (1, 0)))
    S, G = both[:, :C], both[:, C:]
    true = space.one_hot(t, C)
    _, wrong = predicted(space, S, true, weights)
    return counts_along(space, P, S, D, G, true, wrong, weights), S


def unsure(space: Space, S: Any, true: Any, weights: Any) -> Any:
    """How many samples of a batch (scores ``S``, one-hot classes ``true``) any matrix
    library might misclassify: those whose class does not lead every other by more than
    twice the distance two computations of a score may lie apart (``4 * margin``: each
    within ``margin`` of the exact cosine, see :func:`holovec._fixed_order.rounding_margin`),
    padding left out."""
    xp = space.xp
    margin = rounding_margin(space.width, space.dtype_name == "float64")
    own = xp.sum(S * true, axis=1)
    lead = own - xp.max(xp.where(true > 0, xp.full_like(S, -math.inf), S), axis=1)
    unsure = xp.astype(lead <= 4.0 * margin, space.dtype)
    return xp.sum(space.masked(unsure[:, None], weights))
