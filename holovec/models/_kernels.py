"""Compiled and host kernels of the models, shared by the models of one configuration.

Where a backend compiles kernels (``Backend.jit_kernels``: JAX), a model's private
operations named in ``_compiled_kernels`` (``_bind``, ``_similarity``, ...) are compiled
once per configuration and shared by every model of that configuration (models are equal
and hashable by configuration). Where NumPy on the host is faster than the backend's own
ops (``Backend.host_views``: torch on the CPU), those named in ``_host_kernels`` run on the
model's NumPy twin, the NumPy backend's numbers bit for bit. :func:`install_kernels` is the
build step that puts them in place; ``VSAModel.__init__`` calls it last.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any

#: compiled kernels, shared by the models of one configuration: (what the kernel depends on,
#: kernel name) -> the compiled function. Weak: an entry lives as long as a model holds it.
_SHARED_KERNELS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def shared_kernel(key: tuple, build: Callable[[], Callable]) -> Callable:
    """The compiled function for ``key``, built (``build()``) the first time it is asked for
    and shared until no model holds it any more."""
    kernel = _SHARED_KERNELS.get(key)
    if kernel is None:
        kernel = build()
        _SHARED_KERNELS[key] = kernel
    return kernel


def install_kernels(
    model: Any, key: tuple, compiled: Iterable[str], host: Iterable[str], host_model: Callable[[], Any]
) -> None:
    """Replace the model's methods named in ``compiled`` by this configuration's compiled
    ones (``key``: the configuration), where the backend compiles kernels, else those named
    in ``host`` by ones that may run on ``host_model()`` (the model on NumPy).

    Models of equal configuration get the same compiled functions, so a model made again
    (a copy, a model rebuilt from a saved codebook) compiles nothing anew; each function
    compiles at its first call, once per shape of its arguments."""
    backend, cls = model.backend, type(model)
    if not backend.jit_kernels:  # (set as attributes: __dict__ would slow every attribute read)
        if backend.lends_host_views:
            for name in dict.fromkeys(host):
                setattr(model, name, HostKernel(model, name, host_model))
        return
    for name in dict.fromkeys(compiled):
        method = getattr(cls, name).__get__(model, cls)
        setattr(model, name, shared_kernel((key, name), lambda m=method: backend.jit(m)))


class HostKernel:
    """A model's method ``name``, computed by the model's NumPy twin where the backend lends
    NumPy views of the arrays, else by the model itself."""

    def __init__(self, model: Any, name: str, host_model: Callable[[], Any]) -> None:
        self.backend, self.name, self.host_model = model.backend, name, host_model
        self.own = getattr(type(model), name).__get__(model, type(model))

    def __call__(self, *arrays: Any) -> Any:
        views = self.backend.host_views(*arrays)
        host = None if views is None else self.host_model()
        if host is None:
            return self.own(*arrays)
        return self.backend.from_numpy(getattr(host, self.name)(*views))
