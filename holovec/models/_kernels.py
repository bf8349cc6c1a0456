"""Compiled kernels and draws of the models, shared by the models of one configuration.

Where a backend compiles kernels (``Backend.jit_kernels``: JAX), a model's private
operations (``_bind``, ``_similarity``, ...) are compiled once per configuration and shared
by every model of that configuration (models are equal and hashable by configuration), and
a seeded draw is one compiled program of the generator's words and the model's sampler that
takes the address (seed, stream, purpose) as data. Where NumPy on the host is faster than
the backend's own ops (``Backend.draw_path``, ``Backend.host_views``: torch on the CPU, small
draws for a GPU), draws and the kernels named in ``_host_kernels`` are made by the model's
NumPy twin, the NumPy backend's numbers bit for bit. :class:`CompiledKernels` is the mixin
of :class:`~holovec.models.base.VSAModel` that does all this; :class:`ModelType`, the
models' metaclass, installs the kernels once a model is constructed.
"""

from __future__ import annotations

import weakref
from abc import ABCMeta
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..random import Words, address_words

if TYPE_CHECKING:
    from .base import VSAModel

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


class ModelType(ABCMeta):
    """The metaclass of the models: once a model is constructed (every ``__init__`` of its
    class has set what its kernels and its configuration read), it finishes with
    :meth:`CompiledKernels._constructed` (the compiled kernels, what the fast checks compare)."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        model = super().__call__(*args, **kwargs)
        model._constructed()
        return model


class CompiledKernels:
    """Mixin of :class:`~holovec.models.base.VSAModel`: compiled kernels and draws."""

    # provided by VSAModel
    _backend: Any
    _dtype: Any
    _kernel_cache: dict
    vector_length: int

    #: the private methods that run compiled where the backend compiles kernels
    #: (``Backend.jit_kernels``: JAX, which otherwise dispatches and compiles every op of an
    #: eager call on its own): one program per configuration and argument shapes, shared by
    #: all models of equal configuration, called by the public methods after their checks
    #: (inside a user's ``jax.jit`` or ``vmap`` they simply inline). Each must be a pure
    #: function of its array arguments and the model's configuration: no look at the values
    #: (no data-dependent fast paths: a model whose method has one leaves it out) and no
    #: state besides the configuration. ``_random`` runs compiled too (see :meth:`_draw`).
    _compiled_kernels: ClassVar[tuple[str, ...]] = (
        "_bind",
        "_unbind",
        "_similarity",
        "_bundle",
        "_inverse",
        "_normalize",
    )

    #: the private methods that run on this configuration's NumPy model, on NumPy views of
    #: their arrays, where the backend lends such views (``Backend.host_views``: torch on
    #: the CPU, for arrays large enough that its thread pool would split the op): the
    #: results are the NumPy backend's, bit for bit. Each must be a function of its array
    #: arguments and the model's configuration only.
    _host_kernels: ClassVar[tuple[str, ...]] = ("_bundle",)

    #: whether every backend's sampler gives this model's draws bit for bit (integer and
    #: bit operations only); False where the sampler rounds transcendental functions (cos,
    #: log), which NumPy, XLA and CUDA round differently in the last bit: such a model's
    #: draws then take one path for every size on a backend (``Backend.draw_path``), so that
    #: row ``i`` of a draw never depends on how many rows are drawn with it
    _draws_exact: ClassVar[bool] = True

    #: ``vector_length`` for the fast path of ``_check_pair``, set once the model is
    #: constructed (before, -1: every check takes the full path)
    _checked_length: int = -1

    def _constructed(self) -> None:
        """What follows the construction of a model (called by its metaclass once every
        ``__init__`` has run): the values the fast checks compare, the compiled kernels."""
        self._checked_length = self.vector_length
        self._install_kernels()

    def _install_kernels(self) -> None:
        """Replace the methods named in ``_compiled_kernels`` by this configuration's compiled
        ones, where the backend compiles kernels, else those named in ``_host_kernels`` by
        ones that may run on the host (called once the model is constructed).

        Models of equal configuration (``==``) get the same compiled functions, so a model
        made again (a copy, a model rebuilt from a saved codebook, one per request) compiles
        nothing anew; each function compiles once per shape of its arguments."""
        if not self._backend.jit_kernels:
            if self._backend.lends_host_views:
                for name in dict.fromkeys(self._host_kernels):
                    self.__dict__[name] = _HostKernel(self, name)
            return
        key, cls, jit = self._config_key(), type(self), self._backend.jit
        for name in dict.fromkeys(self._compiled_kernels):
            method = getattr(cls, name).__get__(self, cls)
            self.__dict__[name] = shared_kernel((key, name), lambda m=method: jit(m))

    def _draw_key(self) -> tuple:
        """What a compiled draw depends on: the configuration without the seed (draws take
        their seed as an argument), so that models differing only by seed share it."""
        key = self.__dict__.get("_draw_key_cache")
        if key is None:
            key = (type(self), *(v for k, v in self._config().items() if k != "seed"))
            self.__dict__["_draw_key_cache"] = key
        return key

    def _draw(self, n_rows: int, seed: int, stream: Any, purpose: int, one_row: bool = False) -> Any:
        """``_random(n_rows, seed, stream, purpose)`` (its row 0 alone, shape
        ``(vector_length,)``, for ``one_row``), made where the backend says it is fastest
        (``Backend.draw_path``; every way gives NumPy's numbers):

        - on the host: this model's NumPy twin draws, the backend takes the array (zero
          copy for torch on the CPU);
        - compiled: the generator's words and the model's sampler in one program that takes
          the address (seed, stream, purpose) as data (:class:`~holovec.random.Words`),
          compiled once per ``n_rows`` for every seed (and shared by the models that
          differ only by seed);
        - eager: ``_random`` op by op.
        """
        rows = self._backend.generate_rows(
            partial(_rows_of_draw, self.block_model(), seed, stream, purpose),
            n_rows,
            self.vector_length,
            self._dtype,
        )
        if rows is None:  # else a partitioned backend (Dask): each chunk made where it lives
            path = self._backend.draw_path(n_rows * self.vector_length, self._draws_exact)
            host = self._host_model() if path == "host" else None
            if host is not None:
                rows = host._random(n_rows, seed, stream, purpose)
                return self._backend.from_numpy(rows[0] if one_row else rows)
            if path == "compiled" and n_rows and isinstance(stream, (int, np.integer)):
                return self._compiled_draw(n_rows, seed, int(stream), purpose, one_row)
            rows = self._random(n_rows, seed, stream, purpose)
        return rows[0] if one_row else rows

    def _host_model(self) -> VSAModel | None:
        """This model on the NumPy backend (made once), whose draws and host kernels give this
        model's numbers on the host; ``None`` where NumPy cannot hold its dtype (bfloat16)."""
        model = self.__dict__.get("_host_model_cache", False)
        if model is False:
            try:
                model = self.with_backend("numpy")
            except TypeError:  # a dtype NumPy lacks
                model = None
            self.__dict__["_host_model_cache"] = model
        return model

    def _compiled_draw(self, n_rows: int, seed: int, stream: int, purpose: int, one_row: bool) -> Any:
        """The draw as one compiled program of the address (see :meth:`_draw`)."""
        key = ("_random", n_rows, one_row)
        program = self._kernel_cache.get(key)
        if program is None:  # kept by the model: the shared table holds programs weakly
            program = self._kernel_cache[key] = shared_kernel(
                (self._draw_key(), *key),
                lambda: self._backend.jit(_DrawProgram(self, n_rows, one_row)),
            )
        # the address as a host array: the program's call moves it with its other inputs
        return self._backend.finish_before_exit(program(address_words(seed, stream, purpose)))

    def _random_rows(self, start: int, stop: int, seed: int, stream: Any, purpose: int) -> Any:
        """Rows ``start:stop`` of ``_random(n, seed, stream, purpose)`` (any ``n >= stop``: row
        ``i`` never depends on ``n``), drawn without the rows before them. A sequence of
        streams (one per row of the whole draw) is sliced alike."""
        if isinstance(stream, (int, np.integer)):
            return self._random(stop - start, seed, stream, purpose, row_start=start)
        return self._random(stop - start, seed, stream[start:stop], purpose)


def _rows_of_draw(model: VSAModel, seed: int, stream: Any, purpose: int, start: int, stop: int) -> Any:
    """Rows ``start:stop`` of a draw (``Backend.generate_rows`` calls it per chunk, where the
    chunk is made)."""
    return model._random_rows(start, stop, seed, stream, purpose)


class _HostKernel:
    """A model's private method ``name`` (see ``CompiledKernels._host_kernels``): computed by
    the model's NumPy twin where the backend lends NumPy views of the arrays, else by the
    model itself."""

    def __init__(self, model: VSAModel, name: str) -> None:
        self.model, self.name = model, name
        self.own = getattr(type(model), name).__get__(model, type(model))

    def __call__(self, *arrays: Any) -> Any:
        backend = self.model.backend
        views = backend.host_views(*arrays)
        host = None if views is None else self.model._host_model()
        if host is None:
            return self.own(*arrays)
        return backend.from_numpy(getattr(host, self.name)(*views))


class _DrawProgram:
    """``model._random(n_rows, ...)`` of an address given as 8 words (see ``VSAModel._draw``),
    or its row 0 alone for ``one_row``."""

    def __init__(self, model: VSAModel, n_rows: int, one_row: bool = False) -> None:
        self.model, self.n_rows, self.one_row = model, n_rows, one_row

    def __call__(self, words: Any) -> Any:
        seed, stream, purpose = Words(words[0:4]), Words(words[4:6]), Words(words[6:8])
        rows = self.model._random(self.n_rows, seed, stream, purpose)
        return rows[0] if self.one_row else rows
