"""``seed`` and scikit-learn's ``random_state``: two names for one setting (private).

scikit-learn's users, and its tools (``check_estimator``, grid searches), set
``random_state``; holovec's own name is ``seed``. Both take ``None`` or a non-negative
int and mean the same: an estimator uses whichever is given, and refuses two that
differ. A NumPy ``RandomState`` or ``Generator`` is refused with a ``TypeError``: holovec
draws every vector from its own counter-based generator, which an int seeds (drawing an
int from the caller's generator would change it at every fit, and fits would not
reproduce from their parameters).
"""

from __future__ import annotations

from typing import Any

from .._params import NONE, Either, Interval
from ..random import check_seed

#: the rule of ``random_state`` (its range is checked like ``seed``'s, by check_seed)
RANDOM_STATE = Either(NONE, Interval(integral=True))


def seed_of(seed: Any, random_state: Any, who: str) -> Any:
    """The seed that ``seed`` and ``random_state`` choose: ``seed`` where ``random_state``
    is ``None`` (checked where it is used, as before), else ``random_state`` (checked
    here); ``ValueError`` where both are given and differ."""
    if random_state is None:
        return seed
    try:
        state = check_seed(random_state)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e).replace("seed", "random_state", 1)) from None
    if seed is not None and check_seed(seed) != state:
        raise ValueError(
            f"{who}: seed={seed!r} and random_state={random_state!r} disagree; they are one setting "
            "(random_state is scikit-learn's name for seed): give one of them, or both equal"
        )
    return state
