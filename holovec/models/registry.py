"""Model names -> model classes. Each model module registers itself with :func:`register_model`."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from .base import VSAModel

_MODELS: dict[str, type[VSAModel]] = {}
M = TypeVar("M", bound="type[VSAModel]")


def register_model(cls: M) -> M:
    """Class decorator: make ``cls`` creatable by ``VSA.create(cls.name, ...)`` (any case)."""
    key = cls.name.upper()
    if key in _MODELS and _MODELS[key] is not cls:
        raise ValueError(f"a model named {cls.name!r} is already registered")
    _MODELS[key] = cls
    return cls


def unregister_model(name: str) -> None:
    """Remove the model registered under ``name`` (for tests and plugins that replace one)."""
    if not isinstance(name, str) or name.upper() not in _MODELS:
        raise ValueError(f"no model named {name!r} is registered")
    del _MODELS[name.upper()]


def model_class(name: str) -> type[VSAModel]:
    """The model class registered under ``name`` (any case; e.g. ``"FHRR"``, ``"MAP-C"``)."""
    if not isinstance(name, str):
        raise TypeError(f"model must be a name such as 'FHRR', got {type(name).__name__}")
    try:
        return _MODELS[name.upper()]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; available models: {', '.join(model_names())}") from None


def model_names() -> list[str]:
    """The names of the registered models, in registration order."""
    return [cls.name for cls in _MODELS.values()]


def models_using_dtype(dtype_name: str) -> list[str]:
    """Names of models whose default vectors have this dtype (for error hints)."""
    return [cls.name for cls in _MODELS.values() if cls.default_dtype == dtype_name]
