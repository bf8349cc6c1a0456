"""Parameters declared once, ``__init__`` generated (private).

scikit-learn reads an estimator's parameters from the signature of its ``__init__``
(``get_params``, ``clone``, ``set_params``), and wants ``__init__`` to store each argument
unchanged under its own name and do nothing else. A class here states its parameters as a
table of defaults, ``_defaults`` (merged along its bases: a subclass adds parameters or
restates one to change its default; ``_dropped_parameters`` removes inherited ones), and which of
them are positional, ``_positional``; :func:`generated_init` writes the ``__init__`` from
the table as :mod:`dataclasses` does: real Python code, so ``inspect.signature``, help
and error messages show the real parameters, and an instance stores exactly what it is
given.
"""

from __future__ import annotations

from typing import Any, ClassVar


def declared_parameters(cls: type) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The positional parameters' names and the merged table ``{name: default}`` of
    ``cls`` (its bases' ``_defaults`` first, subclasses win, ``_dropped_parameters`` left out)."""
    defaults: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        defaults.update(vars(klass).get("_defaults", {}))
    for name in getattr(cls, "_dropped_parameters", ()):
        defaults.pop(name, None)
    positional = tuple(getattr(cls, "_positional", ()))
    missing = [name for name in positional if name not in defaults]
    if missing:
        raise TypeError(f"{cls.__name__}: positional parameters {missing} have no default in _defaults")
    return positional, defaults


def generated_init(cls: type) -> Any:
    """An ``__init__`` for ``cls`` that takes its declared parameters (the positional ones
    first, then keyword-only) and stores each under its name."""
    positional, defaults = declared_parameters(cls)
    keywords = [name for name in defaults if name not in positional]
    for name in defaults:
        if not name.isidentifier() or name.startswith("_"):
            raise TypeError(f"{cls.__name__}: {name!r} cannot be a parameter")
    head = [f"{name}=_defaults[{name!r}]" for name in positional]
    tail = [f"{name}=_defaults[{name!r}]" for name in keywords]
    args = ", ".join(["self", *head, *(["*", *tail] if tail else [])])
    body = "".join(f"    self.{name} = {name}\n" for name in defaults) or "    pass\n"
    namespace: dict[str, Any] = {}
    exec(f"def __init__({args}) -> None:\n{body}", {"_defaults": dict(defaults)}, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = f"Store the parameters (see :class:`{cls.__name__}`)."
    return init


class DeclaredParameters:
    """Mixin: a class that defines no ``__init__`` of its own gets :func:`generated_init`'s."""

    _defaults: ClassVar[dict[str, Any]] = {}
    _positional: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__init__" not in vars(cls):
            cls.__init__ = generated_init(cls)  # type: ignore[method-assign]
