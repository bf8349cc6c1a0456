"""``random_state``, the estimators' seed, and ``seed``, its deprecated alias (private).

``random_state`` is the parameter, as in every scikit-learn estimator: scikit-learn's tools
(``check_estimator``, ``BaggingClassifier``, grid searches) set it. ``seed`` is still
accepted and means the same, with a ``FutureWarning`` at ``fit``; where both are given,
``random_state`` decides (what scikit-learn's tools set never conflicts with an alias).
Both take ``None`` or a non-negative int. A NumPy ``RandomState`` or ``Generator`` is
refused with a ``TypeError``: holovec draws every vector from its own counter-based
generator, which an int seeds (drawing an int from the caller's generator would change it
at every fit, and fits would not reproduce from their parameters).
"""

from __future__ import annotations

import warnings
from typing import Any

from .._params import NONE, Either, Interval
from ..random import check_seed

#: the rule of ``random_state`` and ``seed`` (their range is checked by check_seed)
RANDOM_STATE = Either(NONE, Interval(integral=True))


def chosen_seed(obj: Any) -> int | None:
    """The seed that ``obj``'s ``random_state`` and ``seed`` choose (checked by
    :func:`holovec.random.check_seed`; ``None``: neither given): ``random_state`` where
    given, else ``seed``, which warns (a ``FutureWarning``: it is deprecated)."""
    seed, state = getattr(obj, "seed", None), obj.random_state
    if seed is not None:
        warnings.warn(
            f"{type(obj).__name__}: the parameter seed is deprecated and will be removed; use "
            f"random_state={seed!r} (scikit-learn's name, which its tools set)"
            + ("" if state is None else f"; random_state={state!r} is used, not seed"),
            FutureWarning,
            stacklevel=4,
        )
    if state is None:
        return None if seed is None else check_seed(seed)
    try:
        return check_seed(state)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("seed", "random_state", 1)) from None
