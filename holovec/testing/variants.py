"""Every registered model and each of its variants, as ready-to-use configurations.

A variant is a model name and the options that make it differ from the model's defaults:
each boolean option flipped (``BSC`` packed, ``HRR`` unitary) and each other choice of an
option that takes one of a few values (``BSDC`` binding ``"cdt"``). They are derived from
the models' declarations, never listed by hand, so that a model registered later (or a new
option) is covered by every suite that iterates over :func:`model_variants`.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from typing import Any, NamedTuple

from .._params import Options, parameter_rules
from ..models import model_class
from ..models.base import VSAModel
from ..vsa import VSA

__all__ = ["ModelVariant", "model_variants"]

#: a dimension that every variant accepts: a square (VTB), a multiple of 4 (GHRR) and of
#: 16 segments (BSDC-SEG), whole 64-bit words (packed BSC)
ANY_MODEL_DIM = 256


class ModelVariant(NamedTuple):
    """A model name and its options: ``name, options = variant`` unpacks it.

    Parameters
    ----------
    name : str
        The registered model name.
    options : dict[str, object]
        The options of ``VSA.create``.
    """

    name: str
    options: dict[str, Any]

    @property
    def id(self) -> str:
        """``"BSC-packed=True"``: a test id."""
        return self.name + "".join(f"-{key}={value}" for key, value in self.options.items())

    def create(self, dim: int = ANY_MODEL_DIM, backend: Any = "numpy", **kwargs: Any) -> VSAModel:
        """The model of this variant (``VSA.create(name, dim, backend=..., **options)``).

        Parameters
        ----------
        dim : int, optional
            The dimension (one every variant accepts by default).
        backend : str or Backend, optional
            The backend.
        **kwargs : object
            More arguments of ``VSA.create`` (``seed``, ``device``, ...).
        """
        return VSA.create(self.name, dim=dim, backend=backend, **self.options, **kwargs)


def _init_parameters(cls: type) -> dict[str, inspect.Parameter]:
    """The keyword parameters of ``cls``'s constructor, options declared on a base too."""
    parameters: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        if "__init__" in vars(klass):
            parameters = {**inspect.signature(klass.__init__).parameters, **parameters}
    return parameters


def _declared_choices(cls: type, option: str) -> tuple[Any, ...]:
    """The values ``option`` may take: an ``Options`` rule of the class's
    ``_parameter_rules``, else the model's ``option_choices`` (the protocol's declaration)."""
    rule = parameter_rules(cls).get(option)
    if isinstance(rule, Options):
        return rule.choices
    return tuple(cls.option_choices.get(option, ()))


def _variants_of(name: str, cls: type, choices: bool) -> list[ModelVariant]:
    out = [ModelVariant(name, {})]
    parameters = _init_parameters(cls)
    for option in cls.option_names:
        parameter = parameters.get(option)
        if parameter is None:
            continue
        default = parameter.default
        if isinstance(default, bool):
            out.append(ModelVariant(name, {option: not default}))
            continue
        if not choices:
            continue
        for choice in _declared_choices(cls, option):
            if choice != default and choice is not None:
                out.append(ModelVariant(name, {option: choice}))
    return out


def model_variants(models: Iterable[str | type] | None = None, *, choices: bool = True) -> list[ModelVariant]:
    """Every registered model (or each of ``models``, names or classes) with its default
    options, plus one variant per other value of each option that takes a few values:
    boolean options flipped, and (unless ``choices`` is false) named choices
    (``binding="cdt"``). Numeric options (``m`` of GHRR, ``density`` of BSDC) keep their
    defaults.

    >>> [v.id for v in model_variants(["BSC", "BSDC-SEG"])]
    ['BSC', 'BSC-packed=True', 'BSDC-SEG', 'BSDC-SEG-thinning=vote']
    >>> [v.id for v in model_variants(["BSDC-SEG"], choices=False)]
    ['BSDC-SEG']

    Parameters
    ----------
    models : Iterable[str | type], optional
        Names or classes of registered models; ``None`` for all.
    choices : bool, optional
        Whether options with named choices get a variant per choice.
    """
    out: list[ModelVariant] = []
    for model in VSA.available_models() if models is None else models:
        cls = model if isinstance(model, type) else model_class(model)
        out.extend(_variants_of(cls.name if isinstance(model, type) else model, cls, choices))
    return out
