"""What every encoder shares: a model, a seed, and the test of what the model can do."""

from __future__ import annotations

import inspect
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._params import Rule, check_parameters, parameter_rules
from ..backends import register_static
from ..models.base import VSAModel
from ..models.registry import model_class, model_names
from ..random import check_seed
from ._values import check_values

__all__ = ["Encoder", "check_values"]


class Encoder:
    """Base class of encoders: data in, hypervectors of ``model`` out.

    Subclasses implement ``encode`` (one value or an array of values -> one vector or a
    batch) and, where the encoding is invertible, ``decode``. Encoders work through the
    model's public API and its declared capabilities (see :mod:`holovec.models.protocol`),
    so they serve every model their maths allows, including models a user registers. An
    encoder that needs a particular algebra overrides :meth:`supports` and states the
    need in ``requires``; other models raise ``TypeError``.

    Parameters
    ----------
    model : VSAModel
        The model whose vectors the encoder makes.
    seed : int, optional
        Seed of the encoder's random vectors; ``None`` draws them from the model's
        generator.
    **parameters : object
        The subclass's parameters, checked against its ``_parameter_rules``.
    """

    #: what :meth:`supports` asks of a model, in words (empty: nothing)
    requires: str = ""
    #: the rules of the constructor's parameters (see :mod:`holovec._params`), merged over
    #: the base classes and checked by :meth:`__init__` before anything is made
    _parameter_rules: ClassVar[dict[str, Rule]] = {}
    #: for the repr: the attribute that holds an ``__init__`` parameter where its name is
    #: another (``{"kernel": "kernel_name"}``); parameters held by no attribute are left out
    _repr_attrs: ClassVar[dict[str, str | None]] = {}

    @classmethod
    def supports(cls, model: VSAModel | type[VSAModel]) -> bool:
        """Whether the encoder can serve ``model`` (a model, or a model class: only the
        capabilities a class declares are read).

        Parameters
        ----------
        model : VSAModel | type[VSAModel]
            A model, or a model class (only the capabilities a class declares are read).
        """
        return True

    @classmethod
    def supported_model_names(cls) -> list[str]:
        """The registered models that the encoder supports, in registration order."""
        return [name for name in model_names() if cls.supports(model_class(name))]

    def __init__(self, model: VSAModel, *, seed: int | None = None, **parameters: Any) -> None:
        """Check ``model`` and the constructor's ``parameters`` (given by name, as the subclass
        received them) against the class's ``_parameter_rules``: ``TypeError`` for a wrong
        type, ``ValueError`` for a bad value, the one place where encoders check them."""
        if not isinstance(model, VSAModel):
            raise TypeError(f"model must be a holovec model (VSA.create(...)), got {type(model).__name__}")
        if not self.supports(model):
            raise TypeError(
                f"{type(self).__name__} supports the models {', '.join(self.supported_model_names())}; "
                f"got a {model.name} model (it needs {self.requires})"
            )
        unknown = sorted(set(parameters) - set(parameter_rules(type(self))))
        if unknown:
            raise TypeError(f"{type(self).__name__} has no parameter {', '.join(map(repr, unknown))}")
        check_parameters(self, **parameters)
        self.model = model
        self._programs: dict = {}  # this encoder's compiled methods (JAX)
        model.backend.register_static(type(self))  # encoders may be passed to jax.jit
        # and so may those of other backends where jax is loaded: then the encoder's own
        # check of its input says that it belongs to another backend (not JAX, cryptically)
        register_static(type(self))
        # unseeded encoders of a seeded model are reproducible too (see the design page, docs/design.rst),
        # and two of them still differ: each takes the model's next spawned seed
        self.seed = model.spawn_seed() if seed is None else check_seed(seed)

    @property
    def xp(self) -> Any:
        return self.model.xp

    @property
    def backend(self) -> Any:
        return self.model.backend

    def _rows_of_vectors(self, x: Any) -> Any:
        """Checked input whose rows become vectors, grouped for the backend's chunks (a
        partitioned backend then encodes chunks of a bounded size: ``kernels.chunk_rows``)."""
        itemsize = getattr(self.model.dtype, "itemsize", 8)
        return kernels.chunk_rows(self.backend, x, self.model.vector_length * itemsize)

    def _program(self, method: str) -> Any:
        """This encoder's pure array method ``method``, compiled once where the backend
        compiles (JAX: one program instead of one kernel per operation and shape)."""
        return self.backend.program(getattr(self, method), method, keep=self._programs, share=False)

    def __getstate__(self) -> dict:
        # compiled programs do not pickle; a copy compiles its own on first use
        state = dict(self.__dict__)
        state["_programs"] = {}
        return state

    def __repr__(self) -> str:
        """The class, the model and the parameters of ``__init__`` as this encoder holds
        them: those without a default, those that differ from their default, and the seed
        (which makes the encoder's vectors), e.g. ``FractionalPowerEncoder(FHRR(dim=10000,
        ...), min_val=0, max_val=10, bandwidth=4, seed=1)``."""
        return f"{type(self).__name__}({', '.join([repr(self.model), *self._repr_fields()])})"

    def repr_without_model(self) -> str:
        """The repr within an encoder of the same model (a symbol table's, say)."""
        return f"{type(self).__name__}({', '.join(self._repr_fields())})"

    def _repr_fields(self) -> list[str]:
        """``name=value`` of each parameter the repr shows (see :meth:`__repr__`), found from
        the signature of ``__init__`` and the attributes of the same names (or
        ``_repr_attrs``), so that every encoder, a user's too, has one without code of its own."""
        fields = []
        parameters = list(inspect.signature(type(self).__init__).parameters.values())[1:]
        for p in parameters:
            if p.name in ("model", "seed") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            attr = self._repr_attrs.get(p.name, p.name)
            value = getattr(self, attr, _MISSING) if attr else _MISSING
            if value is _MISSING or inspect.ismethod(value) or inspect.isfunction(value):
                continue
            if p.default is not p.empty:
                if _is_default_symbols(value, p.default) or _show(value) == _show(p.default):
                    continue
            fields.append(f"{p.name}={_show(value)}")
        return [*fields, f"seed={self.seed}"]


_MISSING = object()
#: the longest value a repr shows in full
_SHOWN_CHARS = 60


def _show(value: Any) -> str:
    """A parameter's value for a repr: numbers as written (``4``, not ``4.0`` or
    ``array([4.])``), arrays as lists, encoders and codebooks of the same model without it."""
    if hasattr(value, "repr_without_model"):
        return value.repr_without_model()
    if isinstance(value, np.ndarray):
        return _show(value.reshape(-1)[0]) if value.size == 1 else _show(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):  # 4.0 as 4, where that is the same number
        return f"{value:g}" if float(f"{value:g}") == value else repr(value)
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_show(v) for v in value)
        text = f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    else:
        text = repr(value)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def _is_default_symbols(value: Any, default: Any) -> bool:
    """Whether ``value`` is what the encoder made for a parameter left at ``None`` (a symbol
    table of the encoder's seed, marked ``made_by_encoder``): the repr leaves it out."""
    return default is None and getattr(value, "made_by_encoder", False) is True
