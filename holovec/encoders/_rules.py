"""The parameter rules that several encoders share (see :mod:`holovec._params`).

Each encoder states its constructor's rules in ``_parameter_rules``; :class:`Encoder`
checks them all in one place (``Encoder.__init__``), so the same parameter is refused
alike by every encoder: ``TypeError`` for a wrong type, ``ValueError`` for a bad value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .._deprecation import SINCE, shim, warn
from .._params import Interval, Options, Rule


class Word(Rule):
    """A str that is one of ``choices`` in any case (``"Sinc"`` is ``"sinc"``)."""

    def __init__(self, *choices: str) -> None:
        self.choices = choices

    def takes(self, value: Any) -> bool:
        return isinstance(value, str)

    def holds(self, value: Any) -> bool:
        return value.lower() in self.choices

    def describe(self) -> str:
        return "one of " + ", ".join(map(repr, self.choices))


class PerAxis(Rule):
    """A value that keeps ``rule``, or a non-empty sequence of them (one per axis; ``note``
    says what the items are in the description)."""

    def __init__(self, rule: Rule, note: str = " (one per axis)") -> None:
        self.rule, self.note = rule, note

    @staticmethod
    def _items(value: Any) -> list[Any] | None:
        if isinstance(value, (Sequence, np.ndarray)) and not isinstance(value, (str, bytes, bytearray)):
            return list(np.asarray(value, dtype=object).reshape(-1))
        return None

    def takes(self, value: Any) -> bool:
        items = self._items(value)
        return self.rule.takes(value) if items is None else all(self.rule.takes(v) for v in items)

    def holds(self, value: Any) -> bool:
        items = self._items(value)
        return self.rule.holds(value) if items is None else bool(items) and all(map(self.rule.holds, items))

    def describe(self) -> str:
        return f"{self.rule.describe()}, or a non-empty sequence of them{self.note}"


#: the number of levels of a level code: at least two
LEVELS = Interval(2, integral=True)

__all__ = [
    "LEVELS",
    "Items",
    "Options",
    "Pair",
    "PerAxis",
    "Word",
    "range_alias",
]


def range_alias(split: Callable[[Any], tuple[Any, Any]]) -> Callable[[Callable[..., Any]], Any]:
    """Accept the deprecated ``value_range=(low, high)`` of an ``__init__`` as ``min_val=low,
    max_val=high`` (HoloVec's names, see the design page, docs/design.rst), with a
    ``DeprecationWarning``; ``split`` turns the old value into the two new ones (and says
    what is wrong with it in the old name's words)."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        @shim
        def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
            if "value_range" in kwargs:
                owner = type(self).__name__
                if "min_val" in kwargs or "max_val" in kwargs:
                    raise TypeError(f"{owner}: give min_val and max_val only, not also value_range")
                warn(
                    f"{owner}: the argument 'value_range' is deprecated since {SINCE}; "
                    "use 'min_val' and 'max_val'"
                )
                kwargs["min_val"], kwargs["max_val"] = split(kwargs.pop("value_range"))
            return func(self, *args, **kwargs)

        return wrapper

    return decorate


class Pair(Rule):
    """A tuple or list of two values that keep ``rule`` (e.g. ``(height, width)``)."""

    def __init__(self, rule: Rule, names: str) -> None:
        self.rule, self.names = rule, names

    def takes(self, value: Any) -> bool:
        return isinstance(value, (tuple, list)) and len(value) == 2 and all(map(self.rule.takes, value))

    def holds(self, value: Any) -> bool:
        return all(map(self.rule.holds, value))

    def describe(self) -> str:
        return f"a pair {self.names} of {self.rule.describe()}"


class Items(Rule):
    """A non-empty sequence (not a str) of values that keep ``rule``, described as ``what``."""

    def __init__(self, rule: Rule, what: str) -> None:
        self.rule, self.what = rule, what

    def takes(self, value: Any) -> bool:
        return (
            isinstance(value, (Sequence, np.ndarray))
            and not isinstance(value, (str, bytes, bytearray))
            and all(self.rule.takes(v) for v in np.asarray(value, dtype=object).reshape(-1))
        )

    def holds(self, value: Any) -> bool:
        items = np.asarray(value, dtype=object).reshape(-1)
        return items.size > 0 and all(self.rule.holds(v) for v in items)

    def describe(self) -> str:
        return self.what
