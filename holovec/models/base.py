"""What every VSA model shares: validation, seeding, batching and chunked search.

A model subclass states its algebra in a few small methods (``_random``,
``_bind``, ``_unbind``, ``_bundle``, ...) that may assume valid input; the public
methods here check input once, cheaply (type, dtype and shape only), and turn
bad input into a ``TypeError`` or ``ValueError`` that says what was expected.

Compiled kernels and draws live in :mod:`holovec.models._kernels` (a mixin). Size: about
880 lines, over the project's 600, because the value, device and allocation checks of the
hardening (issue 11) landed here next to the checks they extend. They are one idea, "what
a model accepts", and are the next thing to move into a module of their own; kept here for
now so that the fast path of ``_check_pair`` stays beside the full checks it must agree with.
"""

from __future__ import annotations

import math
import numbers
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .._validation import check_int
from ..backends import DTYPE_KINDS, Backend, dtype_name, get_backend
from ..random import Purpose, check_seed, fold_in, fresh_seed
from ._kernels import CompiledKernels, ModelType
from .protocol import ModelProtocol
from .registry import models_using_dtype

#: the largest dim: one vector's elements must be addressable by a 32-bit index
MAX_DIM = 2**31 - 1
#: bytes of temporary memory a similarity_matrix chunk may use
CHUNK_BYTES = 64 * 2**20
#: requests for more memory than this are compared with the memory available first
CHECKED_ALLOCATION_BYTES = 256 * 2**20
#: array classes that pass for arrays but change what the operations mean: ``np.matrix``
#: makes ``*`` a matrix product, and masked arrays' masks would be ignored
REFUSED_ARRAY_TYPES = (np.matrix, np.ma.MaskedArray)


class AllocationError(MemoryError, ValueError):
    """A request for more memory than the device has available, refused before allocating.

    Both a ``MemoryError`` and a ``ValueError`` (a size that cannot be served is a bad
    argument), so that either ``except`` clause catches it."""


def _refuse_array_type(x: Any, name: str) -> None:
    if isinstance(x, REFUSED_ARRAY_TYPES):
        what = (
            "np.matrix (whose * is a matrix product)"
            if isinstance(x, np.matrix)
            else "a masked array (its mask would be ignored)"
        )
        raise TypeError(
            f"{name}: got {what}; give a plain numpy.ndarray (np.asarray(x) for a matrix, "
            "x.filled(value) or x.compressed() for a masked array)"
        )


def _itemsize(name: str) -> int:
    return 2 if name == "bfloat16" else np.dtype(name).itemsize


def _format_bytes(n: int) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def check_dim(dim: Any) -> int:
    """``dim`` as an int in ``[1, 2**31 - 1]``, or a clear error."""
    return check_int(dim, "dim", 1, MAX_DIM)


def _check_count(n: Any, what: str) -> int:
    return check_int(n, what, 0)


class VSAModel(CompiledKernels, ModelProtocol, ABC, metaclass=ModelType):
    """Base class of the VSA models. Create models with :meth:`holovec.VSA.create`.

    Vectors are the backend's own arrays of shape ``(..., dim)``; every operation
    broadcasts over the leading batch axes.
    """

    #: the name under which ``VSA.create`` finds the model (any case)
    name: ClassVar[str]
    is_self_inverse: ClassVar[bool]
    is_commutative: ClassVar[bool]
    is_exact_inverse: ClassVar[bool]
    #: dtype of the vectors unless ``dtype=`` says otherwise, and the dtypes allowed
    default_dtype: ClassVar[str]
    allowed_dtypes: ClassVar[tuple[str, ...]]
    #: keyword options of ``VSA.create`` that this model understands
    option_names: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self,
        dim: int,
        backend: str | Backend | None = None,
        *,
        seed: int | None = None,
        device: Any = None,
        dtype: Any = None,
        **options: Any,
    ) -> None:
        if options:
            raise TypeError(
                f"{self.name} has no option(s) {', '.join(sorted(options))}; "
                f"its options are: {', '.join(self.option_names) or 'none'}"
            )
        self._dim = check_dim(dim)
        self._backend = get_backend(backend, device)
        self.xp = self._backend.xp
        self.dtype_name = self._check_dtype(dtype)
        self._dtype = self._backend.dtype(self.dtype_name)
        self._seed = None if seed is None else check_seed(seed)
        self._unseeded_draws = 0
        self._kernel_cache: dict = {}
        # what the fast path of _check_pair compares (single-call latency matters): the
        # array class, and the attribute that names an array's place (``device``; JAX's
        # ``sharding``, whose comparison costs half) with its value for this model's device
        self._plain_type = self._backend.plain_array_type
        self._any_device = not self._backend.has_devices
        self._place_attr, self._place = getattr(self._backend, "placement", ("device", self._backend.device))
        self._place_device = self._backend.device  # what _place was made for
        self._backend.register_static(type(self))
        self._check_memory(self._creation_bytes(), f"creating a {self.name} model of dim {self._dim}")
        # made now, outside any jit trace, so that traced calls can close over it
        self._tiebreak = self._random(1, self.seed_for_ties, 0, Purpose.TIEBREAK)[0]

    # -- properties ---------------------------------------------------------------------
    @property
    def dim(self) -> int:
        """Number of elements of a vector."""
        return self._dim

    @property
    def vector_length(self) -> int:
        """Length of a vector's last axis: ``dim``, unless the model stores vectors compactly
        (e.g. bit-packed words)."""
        return self._dim

    @property
    def dtype(self) -> Any:
        """The backend's dtype of this model's vectors."""
        return self._dtype

    @property
    def backend(self) -> Backend:
        return self._backend

    @property
    def device(self) -> Any:
        return self._backend.device

    @property
    def kernel_cache(self) -> dict:
        """A cache for compiled kernels that components of this model share (encoders keep
        their JAX programs here, keyed by what the program depends on besides the model),
        so that they live and die with the model."""
        return self._kernel_cache

    @property
    def seed(self) -> int | None:
        """The seed given to ``VSA.create`` (makes unseeded draws reproducible), or None."""
        return self._seed

    @property
    def seed_for_ties(self) -> int:
        """Seed of the vector that breaks bundle ties: the model's seed, else 0."""
        return 0 if self._seed is None else self._seed

    def _check_dtype(self, dtype: Any) -> str:
        name = self.default_dtype if dtype is None else dtype_name(dtype)
        if name not in self.allowed_dtypes:
            raise TypeError(
                f"{self.name} vectors can be {', '.join(self.allowed_dtypes)}; got dtype {name!r}"
            )
        if not self._backend.supports_dtype(name):
            self._backend.dtype(name)  # raises the backend's own explanation
        return name

    def __repr__(self) -> str:
        return (
            f"{self.name}(dim={self.dim}, backend={self.backend.name!r}, "
            f"device={self.backend.device_name!r}, dtype={self.dtype_name!r})"
        )

    # -- the same configuration on another backend ------------------------------------------
    def with_backend(self, backend: str | Backend, device: Any = None) -> VSAModel:
        """A model of this configuration (class, dim, dtype, options, seed and the count of
        unseeded draws) on another backend: equal seeds give it the same vectors, bit for
        bit where the model is discrete. ``self`` where ``backend`` and ``device`` are this
        model's own.

        Examples
        --------
        >>> from holovec import VSA
        >>> model = VSA.create("MAP", dim=64, seed=3)
        >>> model.with_backend("numpy") is model
        True
        """
        target = get_backend(backend, device)
        if target == self._backend:
            return self
        options = dict(self._config()["options"])
        return _rebuilt_model(
            type(self), self._dim, target, None, self.dtype_name, self._seed, options, self._unseeded_draws
        )

    def block_model(self) -> VSAModel:
        """This model on the backend of its arrays' chunks (:meth:`with_backend` of
        ``backend.block_backend_name``), or ``self`` where the backend's arrays are not
        partitioned into another framework's chunks. On the Dask backend, the NumPy model
        that computes one chunk on a worker: what ``random`` and ``search`` send to the
        workers (models pickle by configuration)."""
        name = self._backend.block_backend_name
        if name is None:
            return self
        model = self.__dict__.get("_block_model_cache")
        if model is None:
            model = self.__dict__["_block_model_cache"] = self.with_backend(name)
        return model

    # -- equality: by configuration ---------------------------------------------------------
    def _config(self) -> dict[str, Any]:
        """What makes two models interchangeable: equal configurations give equal vectors
        for equal seeds, the same tie-breaks, and the same unseeded draws."""
        return {
            "model": self.name,
            "dim": self._dim,
            "backend": self._backend.name,
            "device": self._backend.device_name,
            "dtype": self.dtype_name,
            "options": tuple((name, getattr(self, name, None)) for name in self.option_names),
            "seed": self._seed,
        }

    def _config_key(self) -> tuple:
        key = self.__dict__.get("_config_key_cache")
        if key is None:  # computed once: jax.jit hashes a static model on every call
            key = (type(self), *self._config().values())
            self.__dict__["_config_key_cache"] = key
        return key

    def __eq__(self, other: object) -> bool:
        """Models are equal when they have the same class, dim, backend and device, dtype,
        options and seed (so a model rebuilt from a saved codebook equals the original)."""
        if self is other:
            return True
        if not isinstance(other, VSAModel):
            return NotImplemented
        return self._config_key() == other._config_key()

    def __hash__(self) -> int:
        return hash(self._config_key())

    def __reduce__(self) -> tuple:
        """Models pickle by configuration (what ``==`` compares) and their count of unseeded
        draws, so a copy goes on drawing what the original would; caches are rebuilt."""
        options = dict(self._config()["options"])
        args = (type(self), self._dim, self._backend.name, self._backend.device_name, self.dtype_name)
        return (_rebuilt_model, (*args, self._seed, options, self._unseeded_draws))

    def config_differences(self, other: VSAModel) -> list[tuple[str, Any, Any]]:
        """``(field, this model's value, other's value)`` for each field of the configuration
        (class, dim, backend, device, dtype, options, seed) where ``other`` differs; empty
        when the models are equal. For error messages that say why two models differ."""
        mine, theirs = self._config(), other._config()
        if type(self) is not type(other) and mine["model"] == theirs["model"]:
            mine["model"], theirs["model"] = type(self).__name__, type(other).__name__
        return [(k, mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]]

    # -- input checks -------------------------------------------------------------------
    def check(self, x: Any, name: str = "x") -> Any:
        """``x`` itself if it is an array of this model's vectors, else a clear error.

        Checks the array type (this model's backend; not ``np.matrix`` or a masked array),
        the dtype, the last axis (``vector_length``) and the device; leading batch axes may
        be anything. Cheap: it reads no values (see :meth:`check_values` for that), so it
        also works on arrays traced by ``jax.jit``. Raises ``TypeError`` for a wrong type or
        dtype and ``ValueError`` for a wrong shape or device, naming ``name`` and what was
        expected. Encoders and stores call it on every vector they are given.
        """
        arg = name
        if not isinstance(x, self._backend.array_type):
            raise TypeError(
                f"{arg}: expected a {self._backend.array_type_name} of this {self.name} model's backend "
                f"{self.backend.name!r}, got {type(x).__module__}.{type(x).__name__}; "
                "convert it with model.asarray(x)"
            )
        _refuse_array_type(x, arg)
        if x.dtype != self._dtype:
            got = dtype_name(x.dtype) if _known_dtype(x.dtype) else str(x.dtype)
            others = [m for m in models_using_dtype(got) if m != self.name]
            hint = f" (that is the dtype of {', '.join(others)} vectors)" if others else ""
            raise TypeError(
                f"{arg}: {self.name} vectors are {self.dtype_name}, got {got}{hint}; "
                f"use vectors made by this model, or convert with model.asarray(x)"
            )
        self._check_shape(x, arg)
        if not (self._any_device or self._backend.on_device(x)):
            raise ValueError(
                f"{arg}: is on device {self._backend.device_of(x)}, but this {self.name} model's "
                f"vectors are on device {self._backend.device_name}; move it there first "
                f"(e.g. model.asarray({arg}))"
            )
        return x

    def _check_shape(self, x: Any, arg: str) -> None:
        if x.ndim == 0 or x.shape[-1] != self.vector_length:
            raise ValueError(
                f"{arg}: expected vectors of shape (..., {self.vector_length}) for this {self.name} "
                f"model of dim {self._dim}, got shape {tuple(x.shape)}"
            )

    def _check_pair(self, a: Any, b: Any, names: tuple[str, str] = ("a", "b")) -> None:
        plain, dtype = self._plain_type, self._dtype
        if type(a) is plain and type(b) is plain and a.dtype == dtype and b.dtype == dtype:
            # the common case in a few comparisons (1 us on JAX): single-call latency matters
            shape = a.shape
            if (
                shape == b.shape
                and shape
                and shape[-1] == self._checked_length
                and (
                    self._any_device
                    or (
                        getattr(a, self._place_attr) == self._place
                        and getattr(b, self._place_attr) == self._place
                        and self._backend.device is self._place_device
                    )
                )
            ):
                return
        self.check(a, names[0])
        self.check(b, names[1])
        if a.shape != b.shape:
            try:
                np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
            except ValueError:
                raise ValueError(
                    f"batch shapes do not broadcast: {names[0]} has shape {tuple(a.shape)}, "
                    f"{names[1]} has shape {tuple(b.shape)}; leading axes must be equal or 1"
                ) from None

    # -- values ---------------------------------------------------------------------------
    def check_values(self, x: Any, name: str = "x") -> Any:
        """``x`` itself if every element is a value this model's vectors hold, else a
        ``ValueError`` that names how many are not, a few of them with their positions, and
        what is allowed (``allowed_values``). ``x`` must have passed :meth:`check`.

        Reads every value, so it is not called on each operation: :meth:`asarray` calls it
        on what it converts, and stores may call it on what they are given. Skipped for
        placeholders of a trace (``jax.jit``), whose values cannot be read.
        """
        self._check_values(x, name)
        return x

    def _check_values(self, x: Any, name: str) -> bool:
        """Raise unless the values of ``x`` (of this model's layout, any numeric dtype) are
        allowed; False where :meth:`_valid_elements` has no test for ``x``'s dtype (then
        :meth:`asarray` checks again after the conversion)."""
        if self._backend.is_traced(x):
            return True
        valid = self._valid_elements(x)
        if valid is None:
            return False
        if not bool(self.xp.all(valid)):
            raise self._value_error(
                name, x, ~valid, f"are not {self.name} elements (allowed: {self.allowed_values})"
            )
        return True

    @property
    def allowed_values(self) -> str:
        """The values one element of this model's vectors holds, in words (for messages);
        :meth:`_valid_elements` is the test. By ``element_kind`` unless a model overrides."""
        return {
            "bipolar": "+1 or -1",
            "bounded": "real numbers in [-1, 1]",
            "binary": "0 or 1",
            "sparse": "0 or 1",
        }.get(self.element_kind, "finite numbers")

    def _valid_elements(self, x: Any) -> Any | None:
        """A boolean array of ``x``'s shape, True where an element is a value of this model's
        vectors (``x`` of any numeric dtype, in this model's layout); None where there is
        nothing to test in ``x``'s dtype: every value of the model's own dtype is allowed, or
        (for another dtype) the test comes after the conversion. By ``element_kind``:
        discrete alphabets exactly (``bipolar`` +-1; ``binary`` and ``sparse`` 0/1),
        ``bounded`` within [-1, 1], the continuous kinds finite."""
        xp, kind = self.xp, self.element_kind
        if kind == "bipolar":
            return (x == 1) | (x == -1)
        if kind in ("binary", "sparse"):
            return (x == 0) | (x == 1)
        if kind == "bounded":
            if _kind(x.dtype) == "bool":  # 0 and 1, in range (torch has no abs of bools)
                return xp.ones_like(x)
            return xp.abs(x) <= 1  # NaN compares False
        if _kind(x.dtype) in ("float", "complex"):
            return xp.isfinite(x)
        return None

    def _value_error(self, name: str, x: Any, bad: Any, problem: str) -> ValueError:
        """A ``ValueError`` naming how many elements of ``x`` are ``bad`` (a boolean array of
        its shape), and the first few with their positions."""
        bad_host = np.asarray(self._backend.to_numpy(bad), dtype=bool)
        where = np.argwhere(bad_host)
        values = self._backend.to_numpy(x)
        shown = ", ".join(
            f"{_plain(values[tuple(i)])} at {list(map(int, i))}" if values.ndim else _plain(values[()])
            for i in where[:4]
        )
        more = ", ..." if len(where) > 4 else ""
        return ValueError(
            f"{name}: {len(where)} of {bad_host.size} values {problem}: {shown}{more}; give values "
            "that this model's vectors hold"
        )

    def _plain_vectors(self, vectors: Sequence[Any]) -> bool:
        """Whether every item of a list is a plain array of this model's vectors, all of one
        shape, on its device: the common case of :meth:`_stack`, in a few comparisons per
        item (as :meth:`_check_pair`); ``False`` sends the items through :meth:`check`."""
        plain, dtype, shape = self._plain_type, self._dtype, getattr(vectors[0], "shape", None)
        if not shape or shape[-1] != self._checked_length:
            return False
        if not all(type(v) is plain and v.dtype == dtype and v.shape == shape for v in vectors):
            return False
        if self._any_device:
            return True
        attr, place = self._place_attr, self._place
        return self._backend.device is self._place_device and all(getattr(v, attr) == place for v in vectors)

    def _stack(self, vectors: Any) -> Any:
        """A list of vectors, or an array with the items on axis 0, as one checked array."""
        if isinstance(vectors, (list, tuple)):
            if len(vectors) == 0:
                raise ValueError("cannot bundle an empty list of vectors; give at least one")
            if not self._plain_vectors(vectors):  # before stacking, which would promote dtypes
                for i, v in enumerate(vectors):
                    self.check(v, f"vectors[{i}]")
            shapes = {tuple(v.shape) for v in vectors}
            if len(shapes) > 1:  # items broadcast over batch axes like every other op
                try:
                    shape = np.broadcast_shapes(*shapes)
                except ValueError:
                    raise ValueError(
                        f"vectors to bundle must have broadcastable shapes, got shapes {sorted(shapes)}"
                    ) from None
                vectors = [self.xp.broadcast_to(v, shape) for v in vectors]
            vectors = self.xp.stack(list(vectors), axis=0)
        self.check(vectors, "vectors")
        if vectors.ndim < 2:
            raise ValueError(
                "bundle takes a list of vectors or an array of shape "
                f"(k, ..., {self.vector_length}) with the items on axis 0; "
                f"got one vector of shape {tuple(vectors.shape)}"
            )
        if vectors.shape[0] == 0:
            raise ValueError("cannot bundle zero vectors; give at least one")
        return vectors

    def asarray(self, x: Any) -> Any:
        """Any array (NumPy, PyTorch, JAX, lists) as vectors of this model's backend,
        device and dtype.

        Values are never changed silently: ``ValueError`` if an element is not a value of
        this model's vectors (:attr:`allowed_values`: e.g. 0 or 1 for BSC, +-1 for MAP,
        finite numbers for the continuous models), or if the conversion would change it
        beyond rounding to the model's precision (an integer out of the dtype's range, a
        fraction or an imaginary part dropped, an overflow to infinity). The error names
        the values and their positions. ``np.matrix`` and masked arrays are refused
        (``TypeError``).
        """
        _refuse_array_type(x, "x")
        out = self._backend.asarray(x)  # the backend refuses its own narrowing conversions
        self._check_shape(out, "x")
        checked = self._check_values(out, "x")  # in the values' own dtype, before conversion
        if out.dtype != self._dtype:
            out = self._converted(out, "x")
            if not checked:
                self._check_values(out, "x")
        return self.check(out, "x")

    def _converted(self, x: Any, name: str) -> Any:
        """``x`` in this model's dtype, or a ``ValueError`` if a value would change beyond
        rounding to the model's precision."""
        xp = self.xp
        src, dst = _kind(x.dtype), _kind(self._dtype)
        source = dtype_name(x.dtype) if src != "other" else str(x.dtype)
        where = f"converting {source} values to {self.name}'s {self.dtype_name}"
        traced = self._backend.is_traced(x)
        if src == "complex" and dst != "complex":
            imag = xp.imag(x)
            if not traced and not bool(xp.all(imag == 0)):
                raise self._value_error(name, x, imag != 0, f"have imaginary parts, which {where} would drop")
            x, src = xp.real(x), "float"
        if dst in ("int", "uint", "bool"):
            low, high = (int(v) for v in _int_range(self.dtype_name))
            if not traced and not _fits(x.dtype, low, high):
                bad = (x < low) | (x > high)
                if src == "float":
                    bad = bad | ~xp.isfinite(x) | (x != xp.trunc(x))
                if bool(xp.any(bad)):
                    problem = f"are not integers in [{low}, {high}], which {where} would change"
                    raise self._value_error(name, x, bad, problem)
            return xp.astype(x, self._dtype)
        with np.errstate(over="ignore", invalid="ignore"):  # overflows are reported below
            converted = xp.astype(x, self._dtype)
        if traced:
            return converted
        if src in ("float", "complex"):  # narrower floats may overflow to infinity
            bad = xp.isfinite(x) & ~xp.isfinite(converted)
            if bool(xp.any(bad)):
                raise self._value_error(name, x, bad, f"overflow to infinity in {where}")
        elif src in ("int", "uint"):  # integers beyond the float's mantissa are rounded
            exact = 2 ** (_MANTISSA_BITS[self.dtype_name] + 1)
            if not _fits(x.dtype, -exact, exact):
                bad = (x > exact) | (x < -exact)
                if bool(xp.any(bad)):
                    problem = f"are integers beyond +-{exact}, which {where} may round"
                    raise self._value_error(name, x, bad, problem)
        return converted

    def to_numpy(self, x: Any) -> np.ndarray:
        """Any array of this model's backend (vectors, similarities, decoded values) as a
        NumPy array on the host; a NumPy array (or NumPy scalar) is returned as it is, whatever
        the backend, since it is on the host already. Arrays of another framework, lists and
        other objects raise ``TypeError``."""
        if isinstance(x, (np.ndarray, np.generic)):
            return np.asarray(x)  # on the host already (e.g. a decoder's or a reduction's result)
        if not isinstance(x, self._backend.array_type):
            raise TypeError(
                f"to_numpy takes an array of this {self.name} model's backend {self.backend.name!r} "
                f"({self._backend.array_type_name}) or a NumPy array, got "
                f"{type(x).__module__}.{type(x).__name__}; "
                "for another framework's array use that framework (or np.asarray), or move it to "
                "this backend first with model.asarray(x)"
            )
        return self._backend.to_numpy(x)

    # -- memory -------------------------------------------------------------------------
    #: peak bytes per element of a draw, measured with NumPy for the default dtype (scaled by
    #: the dtype's size for others): the estimate by which draws beyond memory are refused
    _draw_bytes_per_element: ClassVar[float] = 16.0
    #: bytes per element that a model keeps or makes at creation besides its tie-break vector
    _creation_bytes_per_element: ClassVar[float] = 0.0

    def _draw_bytes(self, n_rows: int) -> int:
        """About the peak memory a draw of ``n_rows`` vectors takes."""
        scale = _itemsize(self.dtype_name) / _itemsize(self.default_dtype)
        return math.ceil(n_rows * self._dim * self._draw_bytes_per_element * scale)

    def _creation_bytes(self) -> int:
        """About the peak memory creating the model takes (its tie-break vector and what a
        model keeps besides)."""
        return self._draw_bytes(1) + math.ceil(self._dim * self._creation_bytes_per_element)

    def _check_memory(self, needed: int, what: str) -> None:
        """``AllocationError`` if about ``needed`` bytes exceed the memory available on the
        device (checked only for requests above ``CHECKED_ALLOCATION_BYTES``: reading the
        free memory costs microseconds)."""
        if needed <= CHECKED_ALLOCATION_BYTES:
            return
        available = self._backend.available_memory()
        if available is not None and needed > available:
            raise AllocationError(
                f"{what} needs about {needed} bytes ({_format_bytes(needed)} at its peak, as "
                f"measured with NumPy), more than the {_format_bytes(available)} available on device "
                f"{self._backend.device_name}; use a smaller dim, or draw fewer rows at a time "
                "(row i of random(n, seed=s) does not depend on n)"
            )

    # -- the public operations -----------------------------------------------------------
    def spawn_seed(self) -> int:
        """A seed for a new unseeded component (an encoder, a table): fresh randomness, or,
        if the model was created with a seed, the next seed of a reproducible sequence
        (shared with unseeded ``random`` draws, like one generator)."""
        if self._seed is None:
            return fresh_seed()
        self._unseeded_draws += 1
        return fold_in(self._seed, "spawn", self._unseeded_draws)

    def draw(self, n: int, seed: int, purpose: int, stream: int = 0) -> Any:
        """``n`` vectors ``(n, vector_length)`` from the generator's address (seed, stream,
        purpose): the same on every backend, row ``i`` independent of ``n``.

        For components that need vectors of their own (an encoder's positions, levels or
        symbols): a :class:`~holovec.random.Purpose` keeps their numbers apart from
        ``random``'s (which is purpose ``VECTORS``, stream 0 for a given seed), and
        ``stream`` (a non-negative int below 2**64) numbers independent draws of one
        purpose; a sequence of ``n`` streams gives row ``i`` from ``stream[i]`` (symbols
        named by digests). ``seed`` is a non-negative int below 2**128 (derive child
        seeds with :func:`holovec.random.fold_in`).
        """
        n = _check_count(n, "n")
        seed = check_seed(seed)
        if isinstance(stream, (bool, np.bool_)):
            raise TypeError("stream must be a non-negative int or a sequence of them, got a bool")
        if isinstance(stream, (int, np.integer)) and not 0 <= stream < 2**64:
            raise ValueError(f"stream must be in [0, 2**64), got {stream}")
        self._check_memory(self._draw_bytes(n), f"draw({n})")
        return self._draw(n, seed, stream, int(purpose))

    def random(self, n: int | None = None, *, seed: int | None = None) -> Any:
        """Random vectors: shape ``(dim,)`` for ``n=None``, else ``(n, dim)``.

        The same ``seed`` gives the same vectors on every backend and device, and
        row ``i`` does not depend on ``n``. ``seed=None`` draws fresh vectors
        (reproducibly, if the model was created with a seed).
        """
        rows = 1 if n is None else _check_count(n, "n")
        self._check_memory(self._draw_bytes(rows), f"random({rows})")
        if seed is not None:
            key, stream = check_seed(seed), 0
        elif self._seed is not None:
            self._unseeded_draws += 1
            key, stream = self._seed, self._unseeded_draws
        else:
            key, stream = fresh_seed(), 0
        return self._draw(rows, key, stream, Purpose.VECTORS, one_row=n is None)

    def bind(self, a: Any, b: Any) -> Any:
        """Bind (associate) ``a`` with ``b``; the result is dissimilar to both."""
        self._check_pair(a, b)
        return self._bind(a, b)

    def unbind(self, c: Any, b: Any) -> Any:
        """Recover ``a`` from ``c = bind(a, b)`` (exactly where the model allows)."""
        self._check_pair(c, b, ("c", "b"))
        return self._unbind(c, b)

    def bundle(self, vectors: Sequence[Any] | Any) -> Any:
        """Superpose vectors: the result is similar to each of them.

        ``vectors`` is a list of vectors (or batches), or an array with the items
        on axis 0. Ties are broken by a fixed vector drawn from the model's seed.
        """
        return self._bundle(self._stack(vectors))

    def permute(self, x: Any, shift: int = 1) -> Any:
        """Cyclically shift the elements by ``shift`` (negative shifts undo positive ones)."""
        self.check(x)
        if isinstance(shift, (bool, np.bool_)) or not isinstance(shift, numbers.Integral):
            raise TypeError(f"shift must be an int, got {type(shift).__name__} {shift!r}")
        # modulo dim: equal shifts are one program for jit compilers
        return self._permute(x, int(shift) % self._dim)

    def inverse(self, x: Any) -> Any:
        """The vector that undoes binding with ``x``: ``bind(bind(a, x), inverse(x)) ~ a``."""
        return self._inverse(self.check(x))

    def identity(self) -> Any:
        """The vector ``e`` with ``bind(a, e) == a``."""
        return self._identity()

    def normalize(self, x: Any) -> Any:
        """Project vectors back onto the model's space (e.g. after arithmetic of your own)."""
        return self._normalize(self.check(x))

    def similarity(self, a: Any, b: Any) -> Any:
        """Similarity in [-1, 1]: 1 for identical vectors, about 0 for unrelated ones.

        Broadcasts over batch axes like NumPy; two vectors give a 0-d array.
        """
        self._check_pair(a, b)
        out = self._similarity(a, b)
        # NumPy reductions give scalars; the contract is a 0-d array of the backend
        return np.asarray(out) if isinstance(out, np.generic) else out

    def similarity_matrix(self, queries: Any, items: Any, *, chunk_size: int | None = None) -> Any:
        """Similarity of every query (shape ``(..., dim)``) with every item (``(n, dim)``):
        shape ``(..., n)``, computed as one matrix product per chunk of items."""
        self.check(queries, "queries")
        self.check(items, "items")
        if items.ndim != 2:
            raise ValueError(
                f"items must be a 2-d array (n, {self.vector_length}), got shape {tuple(items.shape)}"
            )
        batch = tuple(queries.shape[:-1])
        q = self.xp.reshape(queries, (-1, self.vector_length))
        n_items = items.shape[0]
        if chunk_size is None:
            chunk_size = self._default_chunk(n_items, q.shape[0])
        else:
            if _check_count(chunk_size, "chunk_size") == 0:
                raise ValueError("chunk_size must be a positive int (items per chunk), got 0")
        if chunk_size >= n_items:
            out = self._similarity_matrix(q, items)
        else:
            out = self._backend.map_item_chunks(
                self._matrix_chunk, (q,), (items,), chunk_size, self._parallel_chunks, self._kernel_cache
            )
        return self.xp.reshape(out, (*batch, n_items))

    def _matrix_chunk(self, queries: tuple[Any], items: tuple[Any]) -> Any:
        return self._similarity_matrix(queries[0], items[0])

    def _default_chunk(self, n_items: int, n_queries: int) -> int:
        per_item = self._matrix_temp_bytes_per_item(n_queries)
        if per_item == 0:
            return n_items
        chunk = max(1, self._chunk_bytes // per_item)
        if chunk >= n_items:
            return n_items
        # chunks of about equal size: the last chunk overlaps the one before it, and a
        # chunk of the largest size would recompute up to a whole chunk (1,000 items in
        # chunks of 768 computed 1,536)
        count = -(-n_items // chunk)
        chunk = -(-n_items // count)
        # whole blocks of _items_product where a chunk holds some: a chunk that ends inside
        # a block would compute that block twice (its last block overlaps the one before);
        # rounded up, so the memory may exceed the budget by less than a block of items
        block = self._product_block_rows
        return min(n_items, -(-chunk // block) * block) if chunk >= block else chunk

    # -- search over a prepared index (the protocol of holovec.retrieval) -------------------
    def search_index(self, vectors: Any) -> tuple[Any, ...]:
        """Vectors ``(n, vector_length)`` in the form a search compares them in.

        Returns a tuple of arrays whose first axis is the ``n`` vectors (slice every member
        alike to take a chunk of items). By default the vectors themselves; a model whose
        similarity needs per-vector work (norms, bit packing) does it here, so that a store
        pays it once when it is fitted, not per query, and a search once per batch of
        queries, not per chunk. ``vectors`` must have passed :meth:`check` and be 2-d.
        """
        return (vectors,)

    def search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        """Similarities ``(n_q, n)`` of indexed queries against indexed items (both made by
        :meth:`search_index`): the values of :meth:`similarity_matrix`, computed in chunks
        of items that bound the temporary memory (on all cores where the kernel itself
        uses one). Pass a slice of every member of ``items`` to score a chunk of them."""
        n_queries, n_items = queries[0].shape[0], items[0].shape[0]
        per_item = self._search_temp_bytes_per_item(n_queries)
        chunk_size = n_items if per_item == 0 else max(1, self._search_chunk_bytes // per_item)
        if chunk_size >= n_items:
            return self._search_scores(queries, items)
        return self._backend.map_item_chunks(
            self._search_scores, queries, items, chunk_size, self._parallel_search, self._kernel_cache
        )

    # -- canonical scores (holovec.retrieval orders top-k by them where scores round) -------
    #: whether the search scores are exact (sums of integers, or of bits), so that any
    #: summation order gives the same value and equal vectors score equally everywhere.
    #: Models whose products round (float vectors) set it False and describe their score by
    #: :meth:`score_operand` and :meth:`score_from_dots`: a search then recomputes its
    #: candidates' scores in a fixed order (``holovec._fixed_order``), so that the top-k and
    #: its order depend only on the query and the items.
    exact_scores: ClassVar[bool] = True

    def score_operand(self, vectors: Any) -> Any:
        """Real rows ``(..., score_operand_width)`` whose plain dot products are the
        numerators of the similarity (complex vectors: the real and imaginary part of each
        element side by side; 16-bit floats: widened to float32)."""
        xp = self.xp
        if DTYPE_KINDS[self.dtype_name] == "complex":
            # one layout on every backend (the order of a canonical sum): re, im of each element
            pairs = xp.stack([xp.real(vectors), xp.imag(vectors)], axis=-1)
            return xp.reshape(pairs, (*vectors.shape[:-1], 2 * vectors.shape[-1]))
        if self.dtype_name in ("float16", "bfloat16"):
            return xp.astype(vectors, self._backend.dtype("float32"))
        return vectors

    @property
    def score_operand_width(self) -> int:
        """The last axis of :meth:`score_operand`: the number of products in one score."""
        return self.vector_length * (2 if DTYPE_KINDS[self.dtype_name] == "complex" else 1)

    def score_from_dots(self, dots: Any, squares_q: Any, squares_b: Any) -> Any:
        """The search score from dot products of :meth:`score_operand` rows and the squared
        norms of both sides (broadcasting; float64 where called canonically): by default
        ``<a, b> / max(dim, |a| |b|)`` clipped to [-1, 1] (:meth:`_dot_similarity`)."""
        return self._dot_similarity(dots, squares_q, squares_b)

    def _search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        """``similarity_matrix`` of indexed queries against one chunk of indexed items."""
        return self._similarity_matrix(queries[0], items[0])

    def _search_temp_bytes_per_item(self, n_queries: int) -> int:
        """Temporary bytes per indexed item that ``_search_scores`` needs besides its result."""
        return self._matrix_temp_bytes_per_item(n_queries)

    # -- what each model supplies ----------------------------------------------------------
    @abstractmethod
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int, row_start: int = 0) -> Any:
        """``n_rows`` random vectors, shape ``(n_rows, dim)``, from the given stream: rows
        ``row_start .. row_start + n_rows - 1`` of the draw (pass ``row_start`` on to the
        samplers of :mod:`holovec.random`, which address rows by it)."""

    @abstractmethod
    def _bind(self, a: Any, b: Any) -> Any: ...

    @abstractmethod
    def _unbind(self, c: Any, b: Any) -> Any: ...

    @abstractmethod
    def _bundle(self, stacked: Any) -> Any:
        """Bundle of ``stacked[0], stacked[1], ...`` (items on axis 0, already checked)."""

    @abstractmethod
    def _inverse(self, x: Any) -> Any: ...

    @abstractmethod
    def _identity(self) -> Any: ...

    @abstractmethod
    def _normalize(self, x: Any) -> Any: ...

    @abstractmethod
    def _similarity(self, a: Any, b: Any) -> Any: ...

    @abstractmethod
    def _similarity_matrix(self, queries: Any, items: Any) -> Any:
        """``(n_q, dim) x (n_b, dim) -> (n_q, n_b)`` for one chunk of items."""

    def _dot_similarity(
        self, dots: Any, squares_a: Any, squares_b: Any, divisors: tuple[Any, Any] | None = None
    ) -> Any:
        """``<a, b> / max(dim, |a| |b|)`` clipped to [-1, 1], from the dot products and the
        squared norms of both sides (broadcasting): the search score of the models whose
        similarity is ``<a, b> / dim``. ``divisors``: where the rows were divided by
        factors ``(d_a, d_b)`` (broadcasting like the squares) so that their squares stay
        finite (:mod:`holovec.models._magnitude`), the dot products and squares of the
        divided rows give the same score as ``dots / max(dim / (d_a d_b), |a| |b|)``.

        For their vectors (squared norm ``dim``: MAP's +-1, FHRR's unit phasors) it is that
        similarity (for +-1 vectors exactly: ``dim * dim`` rounds back to ``dim`` under the
        square root); vectors of larger norm (sums, arithmetic of your own) get their
        cosine, so that the scale stays [-1, 1] and a search with such a query still ranks
        the items as the dot product does. The clip takes off what rounding adds."""
        xp = self.xp
        limit: Any = float(self._dim)
        if divisors is not None:
            limit = (limit / divisors[0]) / divisors[1]  # by factors of 1: dim exactly
        denominator = xp.maximum(xp.sqrt(squares_a * squares_b), limit)
        return self._backend.clip(dots / denominator, -1.0, 1.0)

    #: rows of items per matrix product where products round (continuous models): every
    #: such product has exactly this many item rows (Backend.row_blocked_matmul), so that an
    #: item's score depends neither on the chunk it comes in nor on its place there
    _product_block_rows: ClassVar[int] = 128

    def _items_product(self, queries: Any, items: Any, *, exact: bool = False) -> Any:
        """``queries @ items.T``, ``(n_q, w) x (n_i, w) -> (n_q, n_i)``.

        Where the products round (``exact=False``), the items are on the left in products of
        exactly ``_product_block_rows`` rows (:meth:`Backend.row_blocked_matmul`): matrix
        libraries pick kernels and summation orders by shape, and would otherwise score one
        item a float step apart depending on how the items were chunked and where a row
        sits (equal rows, unequal scores, top-k ties that depend on ``chunk_size``).

        ``exact=True`` (integer-valued products: MAP, BSC, sparse codes) takes the faster
        orientation for the shapes, since any order gives the same sums: usually
        ``(items @ queries.T).T`` (BLAS is much faster with the long item matrix on the
        left, and eager JAX would copy a transposed item matrix); for a short codebook
        searched by more queries, ``queries @ items.T``. On an idle machine the two orders
        take the same time; with other processes busy on both cores, OpenBLAS took 0.5 s
        instead of 8 ms for 9 items x 100 queries of 20,000 floats with the short matrix
        on the left."""
        t = self.xp.matrix_transpose  # not .mT: Dask's arrays have no such attribute
        if not exact:
            return t(self._backend.row_blocked_matmul(items, t(queries), self._product_block_rows))
        if queries.shape[0] > items.shape[0]:
            return self._backend.matmul(queries, t(items))
        return t(self._backend.matmul(items, t(queries)))

    def _permute(self, x: Any, shift: int) -> Any:
        """Cyclic shift of the ``dim`` elements (override where storage is not one element per slot)."""
        return self.xp.roll(x, shift, axis=-1)

    #: temporary memory one similarity_matrix chunk may use
    _chunk_bytes: ClassVar[int] = CHUNK_BYTES
    #: whether similarity_matrix chunks may run in parallel threads (kernels that use one
    #: core; matrix products already use them all)
    _parallel_chunks: ClassVar[bool] = False
    #: the same for the chunks of ``_search_scores``, and the temporary memory of one
    _parallel_search: ClassVar[bool] = False
    _search_chunk_bytes: ClassVar[int] = CHUNK_BYTES

    def _matrix_temp_bytes_per_item(self, n_queries: int) -> int:
        """Temporary bytes per item that ``_similarity_matrix`` needs (0: none, no chunking)."""
        return 0


def _rebuilt_model(
    cls: type, dim: int, backend: str, device: str, dtype: str, seed: Any, options: dict, draws: int
) -> VSAModel:
    """A pickled model, created again from its configuration (see ``VSAModel.__reduce__``)."""
    model = cls(dim, backend, seed=seed, device=device, dtype=dtype, **options)
    model._unseeded_draws = draws
    return model


def _kind(dtype: Any) -> str:
    return DTYPE_KINDS.get(dtype_name(dtype), "other") if _known_dtype(dtype) else "other"


def _plain(value: Any) -> str:
    """A NumPy scalar as Python writes the number (``2``, ``-1.5``, ``(1+2j)``)."""
    return repr(value.item()) if isinstance(value, np.generic) else repr(value)


#: mantissa bits of the float dtypes: integers up to 2**(bits + 1) in magnitude are exact
_MANTISSA_BITS = {"float16": 10, "bfloat16": 7, "float32": 23, "float64": 52}
_MANTISSA_BITS.update(complex64=23, complex128=52)


def _int_range(name: str) -> tuple[int, int]:
    """The smallest and largest value of an integer (or bool) dtype name."""
    if name == "bool":
        return 0, 1
    info = np.iinfo(np.dtype(name))
    return int(info.min), int(info.max)


def _fits(dtype: Any, low: int, high: int) -> bool:
    """Whether every value of an integer (or bool) dtype lies in ``[low, high]``."""
    if _kind(dtype) not in ("int", "uint", "bool"):
        return False
    smallest, largest = _int_range(dtype_name(dtype))
    return low <= smallest and largest <= high


def _known_dtype(dtype: Any) -> bool:
    try:
        dtype_name(dtype)
    except TypeError:
        return False
    return True
