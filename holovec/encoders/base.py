"""What every encoder shares: a model, a seed, and one check of the values it is given."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..models.base import VSAModel
from ..random import check_seed


class Encoder:
    """Base class of encoders: data in, hypervectors of ``model`` out.

    Subclasses implement ``encode`` (one value or an array of values -> one vector or a
    batch) and, where the encoding is invertible, ``decode``. Encoders work through the
    model's public API and backend, so they serve every model their maths allows; an
    encoder that needs a particular algebra lists it in ``supported_models`` and raises
    ``TypeError`` for others.
    """

    #: model names the encoder supports (empty: every model)
    supported_models: tuple[str, ...] = ()

    def __init__(self, model: VSAModel, *, seed: int | None = None) -> None:
        if not isinstance(model, VSAModel):
            raise TypeError(f"model must be a holovec model (VSA.create(...)), got {type(model).__name__}")
        if self.supported_models and model.name not in self.supported_models:
            raise TypeError(
                f"{type(self).__name__} supports the models {', '.join(self.supported_models)}; "
                f"got a {model.name} model"
            )
        self.model = model
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

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, seed={self.seed})"


def check_values(
    backend: Any,
    values: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    clip: bool = False,
    name: str = "values",
) -> Any:
    """Scalars, lists or arrays of numbers as a float array of ``backend``, checked.

    NaN and infinity raise ``ValueError``; values outside ``[low, high]`` raise
    ``ValueError`` unless ``clip=True`` (then they are clipped, as asked). Inside a
    ``jax.jit`` or ``torch.compile`` trace the values cannot be read, so only their
    type is checked there.
    """
    xp = backend.xp
    real = backend.dtype("float64" if backend.supports_dtype("float64") else "float32")
    if backend.is_array(values):
        array = values if values.dtype == real else xp.astype(values, real)
    else:
        try:
            host = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(
                f"{name} must be numbers or an array of numbers, got {type(values).__name__}"
            ) from None
        array = backend.asarray(host, dtype=real)
    if backend.is_traced(array):
        return array
    if not bool(xp.all(xp.isfinite(array))):
        raise ValueError(f"{name} must be finite numbers; got NaN or infinity")
    if low is not None and high is not None:
        if bool(xp.any((array < low) | (array > high))):
            if not clip:
                raise ValueError(
                    f"{name} must lie in [{low}, {high}]; got values outside it (pass clip=True to clip them)"
                )
            array = xp.clip(array, low, high)
    return array
