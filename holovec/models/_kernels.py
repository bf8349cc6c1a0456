"""Compiled and host kernels of the models, shared by the models of one configuration.

A model's private operations named in ``_compiled_kernels`` (``_bind``, ``_similarity``,
...) and ``_host_kernels`` run as programs of the backend (``Backend.program``): compiled
once per configuration where the backend compiles kernels (JAX), and shared by every model
of that configuration (models are equal and hashable by configuration); those named in
``_host_kernels`` run on the model's NumPy twin (``VSAModel.host_model``) where the backend
lends NumPy views (torch on the CPU), the NumPy backend's numbers bit for bit.
:func:`install_kernels` is the build step that puts them in place; ``VSAModel.__init__``
calls it last.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def install_kernels(model: Any, key: tuple, compiled: Iterable[str], host: Iterable[str]) -> None:
    """Replace the model's methods named in ``compiled`` and ``host`` by the programs the
    backend makes of them (``key``: the configuration; those in ``host`` may run on the
    model's NumPy twin). The programs live in the model's ``kernel_cache``.

    Parameters
    ----------
    model : VSAModel
        The model, whose configuration is complete.
    key : tuple
        The model's configuration key: models of equal keys share compiled programs, so a
        model made again (a copy, a model rebuilt from a saved codebook) compiles nothing anew.
    compiled : iterable of str
        Names of pure array methods (no look at the values, no other state).
    host : iterable of str
        Names of those that may run on the model's NumPy twin.
    """
    backend, cls, host = model.backend, type(model), frozenset(host)
    for name in dict.fromkeys((*compiled, *host)):
        method = getattr(cls, name).__get__(model, cls)
        twin = _TwinMethod(model, name) if name in host else None
        program = backend.program(method, (key, name), keep=model.kernel_cache, twin=twin)
        if program is not method:  # (set as attributes only where they differ)
            setattr(model, name, program)


class _TwinMethod:
    """``twin()``: the model's method ``name`` on its NumPy twin, or ``None`` (no twin)."""

    __slots__ = ("model", "name")

    def __init__(self, model: Any, name: str) -> None:
        self.model, self.name = model, name

    def __call__(self) -> Any:
        host = self.model.host_model()
        return None if host is None else getattr(host, self.name)
