"""What every encoder shares: a model, a seed, and the test of what the model can do."""

from __future__ import annotations

from typing import Any

from ..models.base import VSAModel
from ..models.registry import model_class, model_names
from ..random import check_seed
from ._jit import compiled
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
    """

    #: what :meth:`supports` asks of a model, in words (empty: nothing)
    requires: str = ""

    @classmethod
    def supports(cls, model: VSAModel | type[VSAModel]) -> bool:
        """Whether the encoder can serve ``model`` (a model, or a model class: only the
        capabilities a class declares are read)."""
        return True

    @classmethod
    def supported_model_names(cls) -> list[str]:
        """The registered models that the encoder supports, in registration order."""
        return [name for name in model_names() if cls.supports(model_class(name))]

    def __init__(self, model: VSAModel, *, seed: int | None = None) -> None:
        if not isinstance(model, VSAModel):
            raise TypeError(f"model must be a holovec model (VSA.create(...)), got {type(model).__name__}")
        if not self.supports(model):
            raise TypeError(
                f"{type(self).__name__} supports the models {', '.join(self.supported_model_names())}; "
                f"got a {model.name} model (it needs {self.requires})"
            )
        self.model = model
        self._programs: dict = {}  # this encoder's compiled methods (JAX)
        model.backend.register_static(type(self))  # encoders may be passed to jax.jit
        # unseeded encoders of a seeded model are reproducible too (DESIGN invariant 1),
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
        partitioned backend then encodes chunks of a bounded size: ``Backend.chunk_rows``)."""
        itemsize = getattr(self.model.dtype, "itemsize", 8)
        return self.backend.chunk_rows(x, self.model.vector_length * itemsize)

    def _program(self, method: str) -> Any:
        """This encoder's pure array method ``method``, compiled once where the backend
        compiles (JAX: one program instead of one kernel per operation and shape)."""
        return compiled(self._programs, method, getattr(self, method), self.backend)

    def __getstate__(self) -> dict:
        # compiled programs do not pickle; a copy compiles its own on first use
        state = dict(self.__dict__)
        state["_programs"] = {}
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, seed={self.seed})"
