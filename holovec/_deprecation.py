"""Old spellings of public names, kept for one release with a ``DeprecationWarning``.

Two decorators for functions and ``__init__`` methods:

- :func:`renamed_arguments` accepts an argument under its old keyword and passes it on
  under the new one;
- :func:`keyword_only_after` accepts, for now, arguments given by position past the
  first ``n`` (they become keyword-only) and passes them on by name.

>>> @renamed_arguments(value_range="bounds")
... @keyword_only_after(1)
... def encode(x, *, bounds=(0, 1), seed=None):
...     return x, bounds, seed
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     encode(1, value_range=(0, 2)), encode(1, (0, 3), 7)
((1, (0, 2), None), (1, (0, 3), 7))
>>> for w in caught:
...     print(str(w.message).split(";")[0])
encode: the argument 'value_range' is deprecated since 0.2
encode: passing 'bounds', 'seed' by position is deprecated since 0.2
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable
from typing import Any

#: the release that deprecates this round's old spellings (they go in the release after it)
SINCE = "0.2"


#: code of the wrappers that warn (here and elsewhere in holovec: :func:`shim`)
_SHIMS: set[Any] = set()


def shim(wrapper: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``wrapper`` as a deprecation wrapper, so that a :func:`warn` under it (and under
    any stack of such wrappers) names the user's line, not a wrapper's."""
    _SHIMS.add(wrapper.__code__)
    return wrapper


def warn(message: str) -> None:
    """A ``DeprecationWarning`` attributed to the user's call: the first frame that is not
    this module's nor a :func:`shim`'s (decorators stack, so the depth varies)."""
    frame, level = sys._getframe(0), 1
    while frame is not None and (frame.f_globals.get("__name__") == __name__ or frame.f_code in _SHIMS):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, DeprecationWarning, stacklevel=level)


def _owner(func: Callable[..., Any]) -> str:
    name = func.__qualname__
    return name[: -len(".__init__")] if name.endswith(".__init__") else name


def renamed_arguments(**renames: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Accept ``old=value`` for each ``old="new"`` in ``renames``, warning once per call."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{_owner(func)}: give {new!r} only, not also its old name {old!r}")
                    warn(
                        f"{_owner(func)}: the argument {old!r} is deprecated since {SINCE}; use {new!r}",
                    )
                    kwargs[new] = kwargs.pop(old)
            return func(*args, **kwargs)

        return wrapper

    return decorate


def keyword_only_after(n: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Accept positional arguments past the first ``n`` (``self`` not counted for methods)
    as the keyword-only parameters they used to fill, in signature order, with a warning."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        params = list(inspect.signature(func).parameters.values())
        skip = 1 if params and params[0].name in ("self", "cls") else 0
        keyword_only = [p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY]

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            limit = n + skip
            if len(args) > limit:
                extra = args[limit:]
                if len(extra) > len(keyword_only):
                    raise TypeError(
                        f"{_owner(func)} takes {n} positional argument(s) and "
                        f"{len(keyword_only)} keyword argument(s); got {len(args) - skip} positional"
                    )
                names = keyword_only[: len(extra)]
                for name in names:
                    if name in kwargs:
                        raise TypeError(f"{_owner(func)} got multiple values for argument {name!r}")
                listed = ", ".join(repr(name) for name in names)
                warn(
                    f"{_owner(func)}: passing {listed} by position is deprecated since {SINCE}; "
                    "pass them by keyword",
                )
                kwargs.update(zip(names, extra, strict=True))
                args = args[:limit]
            return func(*args, **kwargs)

        return wrapper

    return decorate
