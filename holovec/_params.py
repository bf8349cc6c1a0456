"""Declarative parameter checks: one table of rules per class, checked by one function.

In the style of scikit-learn's ``_parameter_constraints``: a class states its parameters'
rules in a class attribute ``_parameter_rules`` (a ``{name: rule}`` dict; subclasses add
to and override their bases' tables), and :func:`check_parameters` checks an object's
attributes against the merged table. Every learner and encoder uses the same rules, so
the same parameter is checked the same way everywhere and the messages agree:

- a value of a type that no rule of the parameter takes is a ``TypeError``;
- a value of the right type outside every rule is a ``ValueError``;
- both name the parameter, what it must be, and what it got.

>>> class Example:
...     _parameter_rules = {"epochs": POSITIVE_INT, "bandwidth": Either(POSITIVE, Options("scale"))}
...     def __init__(self, epochs=1, bandwidth="scale"):
...         self.epochs, self.bandwidth = epochs, bandwidth
>>> check_parameters(Example(3, 0.5))
>>> check_parameters(Example(0))
Traceback (most recent call last):
ValueError: epochs must be an int >= 1, got 0
>>> check_parameters(Example(2, "wide"))
Traceback (most recent call last):
ValueError: bandwidth must be a finite number > 0 or one of 'scale', got 'wide'
>>> check_parameters(Example(2.0))
Traceback (most recent call last):
TypeError: epochs must be an int >= 1, got float 2.0
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np


def _finite_float(value: Any) -> bool:
    """Whether ``value`` is a finite float (an int too large for a float is not)."""
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


class Rule(ABC):
    """What a parameter may be: a type test (``takes``), a value test (``holds``, by
    default none beyond the type) and the words that say it (``describe``)."""

    @abstractmethod
    def takes(self, value: Any) -> bool: ...

    def holds(self, value: Any) -> bool:
        return True

    @abstractmethod
    def describe(self) -> str: ...

    def check(self, name: str, value: Any) -> None:
        """``TypeError`` or ``ValueError`` (see the module) unless ``value`` keeps the rule."""
        if not self.takes(value):
            raise TypeError(f"{name} must be {self.describe()}, got {type(value).__name__} {value!r}")
        if not self.holds(value):
            raise ValueError(f"{name} must be {self.describe()}, got {value!r}")


@dataclass(frozen=True)
class Interval(Rule):
    """An int (``integral``) or a finite real number within ``low`` and ``high`` (``None``:
    unbounded), which ``closed`` includes (``"both"``, ``"left"``, ``"right"`` or
    ``"neither"``). NumPy scalars pass like the Python numbers they equal (grid searches
    make them from ``np.arange``); booleans are not numbers here."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    integral: bool = False

    def takes(self, value: Any) -> bool:
        kind = numbers.Integral if self.integral else numbers.Real
        return isinstance(value, kind) and not isinstance(value, (bool, np.bool_))

    def holds(self, value: Any) -> bool:
        if not self.integral and not _finite_float(value):
            return False
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        above = self.low is None or (value >= self.low if left else value > self.low)
        below = self.high is None or (value <= self.high if right else value < self.high)
        return above and below

    def describe(self) -> str:
        noun = "an int" if self.integral else "a finite number"
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            return f"{noun} in {'[' if left else '('}{self.low}, {self.high}{']' if right else ')'}"
        if self.low is not None:
            return f"{noun} {'>=' if left else '>'} {self.low}"
        if self.high is not None:
            return f"{noun} {'<=' if right else '<'} {self.high}"
        return noun


@dataclass(frozen=True)
class Flag(Rule):
    """True or False (a NumPy bool too)."""

    def takes(self, value: Any) -> bool:
        return isinstance(value, (bool, np.bool_))

    def describe(self) -> str:
        return "True or False"


class Options(Rule):
    """One of a fixed set of values (strategy names, ``None``): a value of a type that some
    option has is a ``ValueError`` when it is none of them, anything else a ``TypeError``."""

    def __init__(self, *choices: Any) -> None:
        self.choices = tuple(choices)

    def takes(self, value: Any) -> bool:
        return any(self._same_kind(value, choice) for choice in self.choices)

    def holds(self, value: Any) -> bool:
        return any(self._same_kind(value, c) and value == c for c in self.choices)

    @staticmethod
    def _same_kind(value: Any, choice: Any) -> bool:
        # np.str_ is a str (grid searches over NumPy arrays give them); a bool is no int
        if choice is None or isinstance(value, (bool, np.bool_)) != isinstance(choice, bool):
            return value is choice
        return isinstance(value, type(choice))

    def describe(self) -> str:
        return "one of " + ", ".join(repr(c) for c in self.choices)

    def __repr__(self) -> str:
        return f"Options{self.choices!r}"


class InstanceOf(Rule):
    """An instance of one of ``types``, described as ``what`` (e.g. "a holovec encoder")."""

    def __init__(self, *types: type, what: str) -> None:
        self.types, self.what = types, what

    def takes(self, value: Any) -> bool:
        return isinstance(value, self.types)

    def describe(self) -> str:
        return self.what


class Either(Rule):
    """Any one of ``rules``: a ``TypeError`` when no rule takes the value's type, else a
    ``ValueError`` when no rule that takes it holds."""

    def __init__(self, *rules: Rule) -> None:
        self.rules = rules

    def takes(self, value: Any) -> bool:
        return any(rule.takes(value) for rule in self.rules)

    def holds(self, value: Any) -> bool:
        return any(rule.takes(value) and rule.holds(value) for rule in self.rules)

    def describe(self) -> str:
        return " or ".join(rule.describe() for rule in self.rules)


#: shared rules: a positive int, a non-negative int, a positive number, a non-negative number
POSITIVE_INT = Interval(1, integral=True)
NON_NEGATIVE_INT = Interval(0, integral=True)
POSITIVE = Interval(0, closed="neither")
NON_NEGATIVE = Interval(0)
#: ``None`` (the default, decided later) as an alternative: ``Either(NONE, POSITIVE_INT)``
NONE = Options(None)


def parameter_rules(cls: type) -> dict[str, Rule]:
    """The merged ``_parameter_rules`` of ``cls`` and its bases (subclasses win)."""
    rules: dict[str, Rule] = {}
    for klass in reversed(cls.__mro__):
        rules.update(vars(klass).get("_parameter_rules", {}))
    return rules


def check_parameters(obj: Any, **values: Any) -> None:
    """Check ``obj``'s parameters against its class's table: each named in ``values`` as
    given there, the others as ``obj``'s attributes of the same name. ``TypeError`` or
    ``ValueError`` for the first that breaks its rule."""
    for name, rule in parameter_rules(type(obj)).items():
        rule.check(name, values[name] if name in values else getattr(obj, name))
