"""Compiled kernels and draws of the models, shared by the models of one configuration.

Where a backend compiles kernels (``Backend.jit_kernels``: JAX), a model's private
operations (``_bind``, ``_similarity``, ...) are compiled once per configuration and shared
by every model of that configuration (models are equal and hashable by configuration), and
a seeded draw is one compiled program of the generator's words and the model's sampler that
takes the address (seed, stream, purpose) as data. :class:`CompiledKernels` is the mixin of
:class:`~holovec.models.base.VSAModel` that does both; :class:`ModelType`, the models'
metaclass, installs the kernels once a model is constructed.
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
        ones, where the backend compiles kernels (called once the model is constructed).

        Models of equal configuration (``==``) get the same compiled functions, so a model
        made again (a copy, a model rebuilt from a saved codebook, one per request) compiles
        nothing anew; each function compiles once per shape of its arguments."""
        if not self._backend.jit_kernels:
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

    def _draw(self, n_rows: int, seed: int, stream: Any, purpose: int) -> Any:
        """``_random(n_rows, seed, stream, purpose)``, as one compiled program where the backend
        compiles kernels: the generator's words and the model's sampler in one program that
        takes the address (seed, stream, purpose) as data (:class:`~holovec.random.Words`),
        compiled once per ``n_rows`` for every seed (and shared by the models that differ
        only by seed)."""
        rows = self._backend.generate_rows(
            partial(_rows_of_draw, self.block_model(), seed, stream, purpose),
            n_rows,
            self.vector_length,
            self._dtype,
        )
        if rows is not None:  # a partitioned backend (Dask): each chunk made where it lives
            return rows
        if not self._backend.jit_kernels or n_rows == 0 or not isinstance(stream, (int, np.integer)):
            return self._random(n_rows, seed, stream, purpose)
        program = self._kernel_cache.get(("_random", n_rows))
        if program is None:  # kept by the model: the shared table holds programs weakly
            program = self._kernel_cache["_random", n_rows] = shared_kernel(
                (self._draw_key(), "_random", n_rows),
                lambda: self._backend.jit(_DrawProgram(self, n_rows)),
            )
        address = self._backend.from_numpy(address_words(seed, int(stream), int(purpose)))
        return self._backend.finish_before_exit(program(address))

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


class _DrawProgram:
    """``model._random(n_rows, ...)`` of an address given as 8 words (see ``VSAModel._draw``)."""

    def __init__(self, model: VSAModel, n_rows: int) -> None:
        self.model, self.n_rows = model, n_rows

    def __call__(self, words: Any) -> Any:
        seed, stream, purpose = Words(words[0:4]), Words(words[4:6]), Words(words[6:8])
        return self.model._random(self.n_rows, seed, stream, purpose)
