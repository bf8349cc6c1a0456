"""Programs: the one way code outside the backends runs a pure array function.

A *program* is a function of arrays (and of what its ``key`` names) that a model, encoder,
memory, structure or learner runs many times. :func:`program` (``Backend.program``) returns
it in the form this backend runs fastest, and keeps it:

- **compiled** where the backend compiles kernels (``Backend.jit_kernels``: JAX): one
  program instead of an eagerly compiled op per operation and shape;
- **host-lent** where the backend lends NumPy views of its arrays (``Backend.host_views``:
  torch on the CPU) and the caller names a ``twin``, the same function on the model's NumPy
  twin (``VSAModel.host_model``): it runs on the views, the NumPy backend's numbers bit for
  bit, and its results are lent back as the backend's arrays;
- **eager** elsewhere: the function itself (no wrapper, no cost).

On a backend that compiles per array shape (``Backend.static_shapes``), the arguments named
by ``pad`` have their leading axis padded to its shape class
(:func:`holovec.backends.shapes.pad_rows`) and the results are cut back to the rows asked for,
so that a few programs serve every batch size.

The cache: compiled programs of one ``key`` (what the function depends on besides its
arguments: a model's configuration key and a name) are shared by every caller of that key,
in a table that holds them weakly; each caller keeps its programs strongly in ``keep`` (a
model's ``kernel_cache``), so that a program lives as long as a model of its key and dies
with the last one, never kept by the process (host-lent ones are each caller's own).
``keep=None`` is for programs that depend on the backend alone (no model): the backend
keeps those.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .shapes import pad_rows

__all__ = ["HostLent", "Padded", "program"]

#: programs shared by the callers of one (backend, key): held weakly, kept by their callers
_SHARED: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
#: programs of the backend alone (``keep=None``): they hold no model, so the process keeps them
_OF_BACKEND: dict = {}


def program(
    backend: Any,
    fn: Callable[..., Any],
    key: Hashable,
    *,
    keep: dict | None = None,
    twin: Callable[[], Callable[..., Any] | None] | None = None,
    pad: Sequence[int] = (),
    share: bool = True,
) -> Callable[..., Any]:
    """``fn`` as ``backend`` runs it fastest: compiled, host-lent or eager (see the module).

    Parameters
    ----------
    backend : Backend
        The backend the arrays are on.
    fn : callable
        A pure function of its arguments (arrays, tuples of arrays, static values the
        backend's compiler accepts) and of what ``key`` names: no look at the values where it
        is compiled.
    key : hashable
        What ``fn`` depends on besides its arguments (e.g. ``(model_key, "name")``): callers
        of one key share one program. Equal keys must mean equal functions.
    keep : dict or None, default None
        Where the caller keeps the program strongly (a model's ``kernel_cache``: the program
        lives and dies with the model); ``None`` for a ``fn`` that holds no model (the
        backend keeps it).
    twin : callable or None, default None
        ``twin()`` gives ``fn`` on the model's NumPy twin (or ``None`` where there is none),
        for a backend that lends NumPy views; ``None``: ``fn`` runs as it is there.
    pad : sequence of int, default ()
        Positions of the arguments whose leading axis is the batch: padded to its shape
        class where the backend compiles per shape, every array result then cut to the
        batch's rows (each result of ``fn`` must have the batch on axis 0).
    share : bool, default True
        Whether callers of one key share the compiled program; ``False`` for a ``fn`` that
        is its keeper's own (an encoder's method): then ``key`` names it in ``keep`` alone.

    Returns
    -------
    callable
        The program: called like ``fn``.

    Examples
    --------
    >>> from holovec.backends import get_backend
    >>> backend = get_backend("numpy")
    >>> double = backend.program(lambda x: 2 * x, ("doctest", "double"))
    >>> int(double(backend.asarray([3]))[0])
    6
    """
    if (
        not backend.jit_kernels
        and not (twin is not None and backend.lends_host_views)
        and not (pad and backend.static_shapes)
    ):
        return fn  # eager: nothing to build or keep
    store = _OF_BACKEND if keep is None else keep
    local = (backend, key)
    found = store.get(local)
    if found is None:
        # compiled programs are shared by the callers of a key (compiling is what costs);
        # a host-lent or padded one is the caller's own (it holds the caller's twin)
        shared = share and backend.jit_kernels
        found = _SHARED.get(local) if shared else None
        if found is None:
            found = _build(backend, fn, twin, tuple(pad))
            if shared:
                _SHARED[local] = found
        store[local] = found
    return found


def _build(backend: Any, fn: Callable[..., Any], twin: Any, pad: tuple[int, ...]) -> Callable[..., Any]:
    if backend.jit_kernels:
        run = backend.jit(_fresh(fn))
    elif twin is not None and backend.lends_host_views:
        run = HostLent(backend, fn, twin)
    else:
        run = _Eager(fn)
    return Padded(backend, run, pad) if pad and backend.static_shapes else run


def _fresh(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function object that calls ``fn``: the compiler's caches, keyed weakly by the
    function they compile, then die with the program (a module-level ``fn`` never dies, and
    would keep the static arguments of its traces, models among them, alive)."""

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)

    inner = getattr(fn, "func", fn)  # (a partial: named by its function, in compile logs)
    call.__name__ = getattr(inner, "__name__", type(inner).__name__)
    return call


class _Eager:
    """``fn`` itself, in an object the shared table can hold weakly."""

    __slots__ = ("__weakref__", "fn")

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)


class HostLent:
    """``fn`` run by its NumPy ``twin`` on NumPy views of its array arguments, where the
    backend lends them (``Backend.host_views``: large CPU tensors outside autograd), its
    results lent back as the backend's arrays; ``fn`` itself elsewhere.

    Arguments are arrays, tuples of them, objects that lend their own arrays (a
    ``lent_arrays`` tuple and a ``lent(views)`` method giving their host form), or other
    values, passed as they are.

    Parameters
    ----------
    backend : Backend
        The backend whose arrays are lent.
    fn : callable
        The function on the backend's arrays.
    twin : callable
        ``twin()`` gives ``fn`` on the NumPy twin, or ``None`` where there is none.
    """

    __slots__ = ("__weakref__", "backend", "fn", "twin")

    def __init__(self, backend: Any, fn: Callable[..., Any], twin: Callable[[], Any]) -> None:
        self.backend, self.fn, self.twin = backend, fn, twin

    def __call__(self, *args: Any) -> Any:
        backend = self.backend
        arrays: list[Any] = []
        _collect(args, backend.array_type, arrays)
        views = backend.host_views(*arrays) if arrays else None
        host = None if views is None else self.twin()
        if host is None:
            return self.fn(*args)
        lent = {id(a): v for a, v in zip(arrays, views, strict=True)}
        return _lend(backend, host(*_on_host(args, lent)))


def _collect(value: Any, array_type: type, out: list[Any]) -> None:
    if isinstance(value, array_type):
        out.append(value)
    elif isinstance(value, tuple):
        for item in value:
            _collect(item, array_type, out)
    elif hasattr(value, "lent_arrays"):
        out.extend(value.lent_arrays)


def _on_host(value: Any, lent: dict[int, Any]) -> Any:
    if isinstance(value, tuple):
        return tuple(_on_host(item, lent) for item in value)
    if hasattr(value, "lent_arrays"):
        return value.lent([lent[id(a)] for a in value.lent_arrays])
    return lent.get(id(value), value)


def _lend(backend: Any, value: Any) -> Any:
    """NumPy results (in tuples too) as arrays of ``backend``."""
    if isinstance(value, (np.ndarray, np.generic)):
        return backend.from_numpy(np.asarray(value))
    if isinstance(value, tuple):
        return tuple(_lend(backend, item) for item in value)
    return value


class Padded:
    """``run`` with the batch arguments at positions ``pad`` padded to their shape class
    (:func:`holovec.backends.shapes.pad_rows`), and its array results cut back to the rows.

    Parameters
    ----------
    backend : Backend
        The backend, which compiles per shape.
    run : callable
        The program of padded batches.
    pad : tuple of int
        Positions of the batch arguments (all of one number of rows).
    """

    __slots__ = ("__weakref__", "backend", "pad", "run")

    def __init__(self, backend: Any, run: Callable[..., Any], pad: tuple[int, ...]) -> None:
        self.backend, self.run, self.pad = backend, run, pad

    def __call__(self, *args: Any) -> Any:
        args, n, size = list(args), None, None
        for i in self.pad:
            args[i], n = pad_rows(self.backend, args[i])
            size = int(args[i].shape[0])
        out = self.run(*args)
        return out if n == size else _cut(out, n, size)


def _cut(value: Any, n: int, size: int) -> Any:
    if isinstance(value, tuple):
        return tuple(_cut(item, n, size) for item in value)
    shape = getattr(value, "shape", None)
    return value[:n] if shape and shape[0] == size else value
