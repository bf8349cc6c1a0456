"""The one parameter system: rules of what a parameter may be, and tables of them.

Every check of a plain parameter in holovec is a rule of this module, so that the same
parameter is refused alike everywhere: a function checks an argument with its rule
(``k = POSITIVE_INT.check("k", k)``: the rule returns the value as the Python type it
stands for, an ``int``, ``float`` or ``bool``), and a class states its parameters' rules
once.

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
ValueError: epochs must be a positive int, got 0
>>> check_parameters(Example(2, "wide"))
Traceback (most recent call last):
ValueError: bandwidth must be positive (a finite number > 0) or one of 'scale', got 'wide'
>>> check_parameters(Example(2.0))
Traceback (most recent call last):
TypeError: epochs must be a positive int, got float 2.0
>>> POSITIVE_INT.check("k", np.int64(3))
3
"""

from __future__ import annotations

import functools
import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import numpy as np


def _short(value: Any) -> str:
    """``repr(value)``, cut short (an int of hundreds of digits is not a message)."""
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + "..." + text[-10:]


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

    def convert(self, value: Any) -> Any:
        """``value`` (which keeps the rule) as what the rule stands for; itself by default."""
        return value

    def check(self, name: str, value: Any) -> Any:
        """``value``, converted by :meth:`convert`, if it keeps the rule, else ``TypeError``
        or ``ValueError`` (see the module).

        Parameters
        ----------
        name : str
            The parameter's name, for the message.
        value : object
            The value given.

        Returns
        -------
        object
            ``value`` as the rule's type (an ``int``, ``float`` or ``bool`` for numbers and
            flags; itself for other rules).
        """
        if not self.takes(value):
            raise TypeError(f"{name} must be {self.describe()}, got {type(value).__name__} {value!r}")
        if not self.holds(value):
            raise ValueError(f"{name} must be {self.describe()}, got {_short(value)}")
        return self.convert(value)


@dataclass(frozen=True)
class Interval(Rule):
    """An int (``integral``) or a finite real number within ``low`` and ``high`` (``None``:
    unbounded), which ``closed`` includes (``"both"``, ``"left"``, ``"right"`` or
    ``"neither"``). NumPy scalars pass like the Python numbers they equal (grid searches
    make them from ``np.arange``) and come back as Python ``int`` or ``float``; booleans
    are not numbers here, and a number too large for a float is a bad value. ``words``
    (e.g. "positive") lead its description."""

    low: float | None = None
    high: float | None = None
    closed: str = "both"
    integral: bool = False
    words: str = ""

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

    def convert(self, value: Any) -> int | float:
        return int(value) if self.integral else float(value)

    def describe(self) -> str:
        text = self._bounds()
        return f"{self.words} ({text})" if self.words else text

    def _bounds(self) -> str:
        noun = "an int" if self.integral else "a finite number"
        left, right = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.integral and left and self.low in (0, 1) and (self.high is None or right):
            text = "a positive int" if self.low == 1 else "a non-negative int"
            return text if self.high is None else f"{text} of at most {self.high}"
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

    def convert(self, value: Any) -> bool:
        return bool(value)

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


class KnownShape(Rule):
    """An array whose shape is known (objects without a shape pass): not a Dask array after
    boolean indexing, whose chunk sizes Dask has not computed (an axis of ``nan``); the
    message says how to compute them."""

    def takes(self, value: Any) -> bool:
        return True

    def holds(self, value: Any) -> bool:
        shape = getattr(value, "shape", None)
        return not isinstance(shape, tuple) or not any(
            s is None or (isinstance(s, float) and math.isnan(s)) for s in shape
        )

    def describe(self) -> str:
        return "an array whose shape is known"

    def check(self, name: str, value: Any) -> Any:
        if self.holds(value):
            return value
        fix = (
            f"call {name}.compute_chunk_sizes() first (Dask then computes the sizes of its chunks)"
            if hasattr(value, "compute_chunk_sizes")
            else "give an array whose shape is known"
        )
        raise ValueError(
            f"{name} has a shape that is not known yet, {value.shape} (the sizes of its chunks are "
            f"unknown, as after boolean indexing of a Dask array); {fix}"
        )


#: the shared rules: ints, numbers, flags
POSITIVE_INT = Interval(1, integral=True)
NON_NEGATIVE_INT = Interval(0, integral=True)
#: any int (an index)
INT = Interval(integral=True)
#: a finite number (a value's low or high end, a threshold)
FINITE = Interval()
#: a finite number above 0 (a bandwidth, a period, a learning rate)
POSITIVE = Interval(0, closed="neither", words="positive")
NON_NEGATIVE = Interval(0)
#: True or False (a NumPy bool too)
FLAG = Flag()
#: ``None`` (the default, decided later) as an alternative: ``Either(NONE, POSITIVE_INT)``
NONE = Options(None)
#: None (not given) or a positive int
OPTIONAL_POSITIVE_INT = Either(NONE, POSITIVE_INT)
#: an array of known shape (see :class:`KnownShape`)
KNOWN_SHAPE = KnownShape()


def parameter_rules(cls: type) -> dict[str, Rule]:
    """The merged ``_parameter_rules`` of ``cls`` and its bases (subclasses win; the
    parameters a class names in ``_dropped_parameters`` are not its own)."""
    rules: dict[str, Rule] = {}
    for klass in reversed(cls.__mro__):
        rules.update(vars(klass).get("_parameter_rules", {}))
    for name in getattr(cls, "_dropped_parameters", ()):
        rules.pop(name, None)
    return rules


def check_parameters(obj: Any, **values: Any) -> None:
    """Check ``obj``'s parameters against its class's table: each named in ``values`` as
    given there, the others as ``obj``'s attributes of the same name. ``TypeError`` or
    ``ValueError`` for the first that breaks its rule."""
    for name, rule in parameter_rules(type(obj)).items():
        rule.check(name, values[name] if name in values else getattr(obj, name))


_FITTING: ContextVar[frozenset[int]] = ContextVar("holovec_fitting", default=frozenset())


def fit_context(method: Callable[..., Any]) -> Callable[..., Any]:
    """Decorator of ``fit``-like methods (as scikit-learn's ``_fit_context``): the object's
    parameters checked once on entry (:func:`check_parameters`), not again by the ``fit``
    methods it calls on itself."""

    @functools.wraps(method)
    def checked(self: Any, *args: Any, **kwargs: Any) -> Any:
        fitting = _FITTING.get()
        if id(self) in fitting:
            return method(self, *args, **kwargs)
        check_parameters(self)
        token = _FITTING.set(fitting | {id(self)})
        try:
            return method(self, *args, **kwargs)
        finally:
            _FITTING.reset(token)

    return checked
