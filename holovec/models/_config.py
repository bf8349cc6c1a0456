"""A model's configuration: what equality, hashing, pickling and ``with_backend`` go by.

Two models are interchangeable when their configurations are equal (class, dim, backend,
device, dtype, options, seed): equal seeds then give equal vectors, the same tie-breaks
and the same unseeded draws. The functions here are :class:`VSAModel`'s methods of those
names (assigned in its class body), written with the model's public members only;
equality and hashing, which read the configuration computed once, are the class's own.
"""

from __future__ import annotations

from typing import Any

from .. import kernels
from ..backends import get_backend


def get_config(model: Any) -> dict[str, Any]:
    """What makes two models interchangeable (``model``, ``dim``, ``backend``, ``device``,
    ``dtype``, ``options`` as ``(name, value)`` pairs, ``seed``): equal configurations give
    equal vectors for equal seeds, the same tie-breaks, and the same unseeded draws. Models
    compare, hash and pickle by it.

    Parameters
    ----------
    model : VSAModel
        The model.
    """
    backend = model.backend
    return {
        "model": model.name,
        "dim": model.dim,
        "backend": backend.name,
        "device": backend.device_name,
        "dtype": model.dtype_name,
        "options": tuple((name, getattr(model, name, None)) for name in model.option_names),
        "seed": model.seed,
    }


def rebuilt(cls: type, dim: int, backend: Any, device: Any, dtype: str, seed: Any, options: dict) -> Any:
    """A model created again from its configuration (pickling, ``with_backend``)."""
    return cls(dim, backend, seed=seed, device=device, dtype=dtype, **options)


def reduce(model: Any) -> tuple:
    """Models pickle by configuration and their count of unseeded draws (the state), so a
    copy goes on drawing what the original would; caches are rebuilt."""
    backend = model.backend
    args = (type(model), model.dim, backend.name, backend.device_name, model.dtype_name, model.seed)
    return (rebuilt, (*args, dict(get_config(model)["options"])), model.__getstate__())


def with_backend(model: Any, backend: Any, device: Any = None) -> Any:
    """A model of this configuration (class, dim, dtype, options, seed and the count of
    unseeded draws) on another backend: equal seeds give it the same vectors, bit for bit
    where the model is discrete. The model itself where ``backend`` and ``device`` are its
    own.

    Parameters
    ----------
    model : VSAModel
        The model.
    backend : str or Backend
        The other backend (a name or a :class:`~holovec.backends.Backend`).
    device : object, optional
        The device on that backend; ``None`` for its best.

    Examples
    --------
    >>> from holovec import VSA
    >>> model = VSA.create("MAP", dim=64, seed=3)
    >>> model.with_backend("numpy") is model
    True
    """
    target = get_backend(backend, device)
    if target == model.backend:
        return model
    options = dict(get_config(model)["options"])
    copy = rebuilt(type(model), model.dim, target, None, model.dtype_name, model.seed, options)
    copy.__setstate__(model.__getstate__())
    return copy


def block_model(model: Any) -> Any:
    """This model on the backend of its arrays' chunks (``kernels.block_backend_name(backend)``: on
    Dask, the NumPy model that computes one chunk on a worker, what ``random`` and
    ``search`` send to the workers), else the model itself.

    Parameters
    ----------
    model : VSAModel
        The model.
    """
    name = kernels.block_backend_name(model.backend)
    if name is None:
        return model
    block = model.__dict__.get("_block_model_cache")
    if block is None:
        block = model.__dict__["_block_model_cache"] = with_backend(model, name)
    return block


def host_model(model: Any) -> Any:
    """The model's NumPy twin: this model on the NumPy backend (the model itself on NumPy),
    made once and kept by the model, so that it lives and dies with it (a cache of the
    process would keep models, equal by configuration, alive); ``None`` where NumPy cannot
    hold its dtype (bfloat16). Its draws, checks and host kernels give the model's numbers
    on the host; the one twin of a model (``Backend.program`` runs host-lent programs on it).

    Parameters
    ----------
    model : VSAModel
        The model.

    Returns
    -------
    VSAModel or None
        The model on NumPy, or ``None``.
    """
    if kernels.block_backend_name(model.backend) == "numpy":
        return block_model(model)  # (Dask: the model of its chunks is the twin)
    host = model.__dict__.get("_host_model_cache", False)
    if host is False:
        try:
            host = with_backend(model, "numpy")
        except TypeError:  # a dtype NumPy lacks
            host = None
        if host is model:
            return model  # (kept out of its own dict: no cycle)
        model.__dict__["_host_model_cache"] = host
    return host


def config_differences(model: Any, other: Any) -> list[tuple[str, Any, Any]]:
    """``(field, this model's value, other's value)`` for each field of the configuration
    (class, dim, backend, device, dtype, options, seed) where ``other`` differs; empty when
    the models are equal. For error messages that say why two models differ.

    Parameters
    ----------
    model : VSAModel
        The model.
    other : object
        The model to compare with.
    """
    mine, theirs = get_config(model), get_config(other)
    if type(model) is not type(other) and mine["model"] == theirs["model"]:
        mine["model"], theirs["model"] = type(model).__name__, type(other).__name__
    return [(k, mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]]
