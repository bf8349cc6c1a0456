"""The one dispatch of every kernel: a generic version written over the array API, and
each framework's faster version registered next to it, chosen by the backend's name.

A kernel is called as a function of the backend, ``top_k(backend, scores, k)``
(array-api-compat's style: the adapter carries the framework, the function the idea).
Versions are looked up by :attr:`Backend.name <holovec.backends.Backend.name>`, so that
registering a torch or JAX version imports nothing: its body imports the framework (or an
engine module of this package) when a backend of that framework first calls it. A
backend without a version of its own (a user's, say) gets the generic one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..backends.numpy_backend import NumpyBackend

#: the NumPy backend, whose versions other frameworks' versions call on host views or chunks
NUMPY = NumpyBackend()


def kernel(generic: Callable) -> Callable:
    """Make ``generic`` (a function whose first argument is the backend) a kernel.

    The result is called as ``generic`` is; it runs the version registered for the
    backend's name, else ``generic``. Its ``register(*names)`` decorates a framework's
    version (same signature), and ``generic`` stays reachable for versions that fall back
    to it.

    Parameters
    ----------
    generic : callable
        ``generic(backend, *args, **kwargs)``, written over ``backend.xp`` and the adapter.

    Returns
    -------
    callable
        The kernel, with ``register`` and ``generic`` attributes.

    Examples
    --------
    >>> from holovec.backends import get_backend
    >>> @kernel
    ... def double(backend, x):
    ...     return 2 * x
    >>> @double.register("numpy")
    ... def _(backend, x):
    ...     return x + x
    >>> numpy = get_backend("numpy")
    >>> int(double(numpy, numpy.asarray(3)))
    6
    """
    versions: dict[str, Callable] = {}
    version_of = versions.get

    @functools.wraps(generic)
    def dispatch(backend: Any, *args: Any, **kwargs: Any) -> Any:
        return version_of(backend.name, generic)(backend, *args, **kwargs)

    def register(*names: str) -> Callable[[Callable], Callable]:
        """Register the decorated function as the version of the backends ``names``."""

        def add(fn: Callable) -> Callable:
            for name in names:
                versions[name] = fn
            return fn

        return add

    dispatch.register = register  # type: ignore[attr-defined]
    dispatch.generic = generic  # type: ignore[attr-defined]
    return dispatch
