"""Model names -> model classes. Each model module registers itself with :func:`register_model`.

:func:`build_model` is the build step of ``VSA.create``: it constructs the registered class,
or the variant of it that an option selects (:func:`register_variant`: BSC with
``packed=True`` is the class :class:`~holovec.models.PackedBSC`), so that a model class
never has to choose another class while it is being constructed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

# The registry sits below the model classes (their modules register into it, and the
# models' checks ask it for names), so it holds them as plain classes: importing
# ``VSAModel`` here, even for types, would close a circle of imports.
ModelClass = type
_MODELS: dict[str, ModelClass] = {}
#: (registered class, option) -> the subclass that the option set to True builds
_VARIANTS: dict[tuple[type, str], type] = {}
M = TypeVar("M", bound=ModelClass)


def register_model(cls: M) -> M:
    """Class decorator: make ``cls`` creatable by ``VSA.create(cls.name, ...)`` (any case)."""
    key = cls.name.upper()
    if key in _MODELS and _MODELS[key] is not cls:
        raise ValueError(f"a model named {cls.name!r} is already registered")
    _MODELS[key] = cls
    return cls


def unregister_model(name: str) -> None:
    """Remove the model registered under ``name`` (for tests and plugins that replace one).

    Parameters
    ----------
    name : str
        A registered model name (any case).
    """
    if not isinstance(name, str) or name.upper() not in _MODELS:
        raise ValueError(f"no model named {name!r} is registered")
    del _MODELS[name.upper()]


def model_class(name: str) -> ModelClass:
    """The model class registered under ``name`` (any case; e.g. ``"FHRR"``, ``"MAP-C"``).

    Parameters
    ----------
    name : str
        A registered model name (any case).
    """
    if not isinstance(name, str):
        raise TypeError(f"model must be a name such as 'FHRR', got {type(name).__name__}")
    try:
        return _MODELS[name.upper()]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; available models: {', '.join(model_names())}") from None


def model_names() -> list[str]:
    """The names of the registered models, in alphabetical order (not the order in which
    modules happened to be imported)."""
    return sorted(cls.name for cls in _MODELS.values())


def models_using_dtype(dtype_name: str) -> list[str]:
    """Names of models whose default vectors have this dtype (for error hints)."""
    return sorted(cls.name for cls in _MODELS.values() if cls.default_dtype == dtype_name)


def register_variant(option: str) -> Callable[[M], M]:
    """Class decorator: make ``cls`` (a subclass of a registered model) what
    ``VSA.create(parent.name, ..., **{option: True})`` builds, e.g. ``PackedBSC`` for BSC's
    ``packed=True``. The subclass accepts the option (set to True) itself.

    Parameters
    ----------
    option : str
        The option whose value True selects the decorated class.
    """

    def decorate(cls: M) -> M:
        _VARIANTS[(cls.__bases__[0], option)] = cls
        return cls

    return decorate


def variant_of(cls: ModelClass, option: str) -> ModelClass:
    """The class that ``option=True`` selects for ``cls`` (:func:`register_variant`), or
    ``cls`` itself where it has no such variant."""
    return _VARIANTS.get((cls, option), cls)


def build_model(cls: ModelClass, *args: Any, **kwargs: Any) -> Any:
    """``cls(*args, **kwargs)``, or the variant of ``cls`` that an option set to True selects
    (:func:`register_variant`): the build step of ``VSA.create``.

    ``cls`` is the registered model class (numpydoc's validator takes a first parameter
    named ``cls`` for a class method's, so it is described here, not listed).

    Parameters
    ----------
    *args : object
        Positional arguments of the model.
    **kwargs : object
        Keyword arguments of the model; an option set to True may select a variant.
    """
    for (parent, option), variant in _VARIANTS.items():
        # (a NumPy True selects it too: a flag is True or False of either kind)
        if parent is cls and isinstance(kwargs.get(option), (bool, np.bool_)) and kwargs[option]:
            return variant(*args, **{**kwargs, option: True})
    return cls(*args, **kwargs)


def models_where(test: Callable[[ModelClass], bool]) -> list[str]:
    """Names of the registered models whose class passes ``test`` (for messages that name
    the models a feature supports, computed from their declared capabilities)."""
    return sorted(cls.name for cls in _MODELS.values() if test(cls))


def require_capability(model: Any, who: str, test: Callable[[Any], bool], needs: str) -> None:
    """``TypeError`` unless ``model`` (a model instance) passes ``test``: ``who`` needs
    ``needs`` (in words), and the message names the registered models that have it.
    ``test`` reads class-level capabilities, so it applies to classes and instances."""
    if test(model):
        return
    supported = ", ".join(models_where(test)) or "none of the registered models"
    raise TypeError(f"{who} needs {needs} ({supported}); {model.name} has not")
