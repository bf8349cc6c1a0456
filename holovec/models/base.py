"""What every VSA model shares: validation, seeding, batching and chunked search.

A model subclass states its algebra in a few small methods (``_random``,
``_bind``, ``_unbind``, ``_bundle``, ...) that may assume valid input; the public
methods here check input once, cheaply (type, dtype and shape only), and turn
bad input into a ``TypeError`` or ``ValueError`` that says what was expected.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .._validation import check_int
from ..backends import DTYPE_KINDS, Backend, dtype_name, get_backend
from ..random import Purpose, check_seed, fold_in, fresh_seed
from .protocol import ModelProtocol
from .registry import models_using_dtype

#: the largest dim: one vector's elements must be addressable by a 32-bit index
MAX_DIM = 2**31 - 1
#: bytes of temporary memory a similarity_matrix chunk may use
CHUNK_BYTES = 64 * 2**20


def check_dim(dim: Any) -> int:
    """``dim`` as an int in ``[1, 2**31 - 1]``, or a clear error."""
    return check_int(dim, "dim", 1, MAX_DIM)


def _check_count(n: Any, what: str) -> int:
    return check_int(n, what, 0)


class VSAModel(ModelProtocol, ABC):
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
        self._backend.register_static(type(self))
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

        Checks the array type (this model's backend), the dtype and the last axis
        (``vector_length``); leading batch axes may be anything. Cheap: it reads no values,
        so it also works on arrays traced by ``jax.jit``. Raises ``TypeError`` for a wrong
        type or dtype and ``ValueError`` for a wrong shape, naming ``name`` and what was
        expected. Encoders and stores call it on every vector they are given.
        """
        arg = name
        if not isinstance(x, self._backend.array_type):
            raise TypeError(
                f"{arg}: expected a {self._backend.array_type_name} of this {self.name} model's backend "
                f"{self.backend.name!r}, got {type(x).__module__}.{type(x).__name__}; "
                "convert it with model.asarray(x)"
            )
        if x.dtype != self._dtype:
            got = dtype_name(x.dtype) if _known_dtype(x.dtype) else str(x.dtype)
            others = [m for m in models_using_dtype(got) if m != self.name]
            hint = f" (that is the dtype of {', '.join(others)} vectors)" if others else ""
            raise TypeError(
                f"{arg}: {self.name} vectors are {self.dtype_name}, got {got}{hint}; "
                f"use vectors made by this model, or convert with model.asarray(x)"
            )
        if x.ndim == 0 or x.shape[-1] != self.vector_length:
            raise ValueError(
                f"{arg}: expected vectors of shape (..., {self.vector_length}) for this {self.name} "
                f"model of dim {self._dim}, got shape {tuple(x.shape)}"
            )
        return x

    def _check_pair(self, a: Any, b: Any, names: tuple[str, str] = ("a", "b")) -> None:
        array_type, dtype = self._backend.array_type, self._dtype
        if (  # the common case in one expression: single-call latency matters
            isinstance(a, array_type)
            and isinstance(b, array_type)
            and a.dtype == dtype
            and b.dtype == dtype
            and a.shape == b.shape
            and a.ndim
            and a.shape[-1] == self.vector_length
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

    def _stack(self, vectors: Any) -> Any:
        """A list of vectors, or an array with the items on axis 0, as one checked array."""
        if isinstance(vectors, (list, tuple)):
            if len(vectors) == 0:
                raise ValueError("cannot bundle an empty list of vectors; give at least one")
            for i, v in enumerate(vectors):  # before stacking, which would promote dtypes
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
        device and dtype. The values are not changed except by the dtype conversion."""
        xp = self.xp
        out = self._backend.asarray(x)
        if out.dtype == self._dtype:
            return self.check(out, "x")
        lossy = ValueError(
            f"converting {_kind(out.dtype)} values to {self.name}'s {self.dtype_name} would change "
            "them (e.g. drop fractions or imaginary parts); give values the model holds"
        )
        if _kind(out.dtype) == "complex" and _kind(self._dtype) != "complex":
            if not bool(xp.all(xp.imag(out) == 0)):
                raise lossy
            out = xp.real(out)
        converted = xp.astype(out, self._dtype)
        into_integers = _kind(self._dtype) in ("bool", "int", "uint") and _kind(out.dtype) in (
            "float",
            "complex",
        )
        if into_integers and not bool(xp.all(xp.astype(converted, out.dtype) == out)):
            raise lossy
        return self.check(converted, "x")

    def to_numpy(self, x: Any) -> np.ndarray:
        """Any array of this model's backend (vectors, similarities, decoded values) as a
        NumPy array on the host. Arrays of another framework raise ``TypeError``."""
        if isinstance(x, np.generic) and self._backend.array_type is np.ndarray:
            return np.asarray(x)  # NumPy's own scalars (e.g. a reduction's result)
        if not isinstance(x, self._backend.array_type):
            raise TypeError(
                f"to_numpy takes an array of this {self.name} model's backend {self.backend.name!r} "
                f"({self._backend.array_type_name}), got {type(x).__module__}.{type(x).__name__}; "
                "for another framework's array use that framework (or np.asarray), or move it to "
                "this backend first with model.asarray(x)"
            )
        return self._backend.to_numpy(x)

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
        return self._random(n, seed, stream, int(purpose))

    def random(self, n: int | None = None, *, seed: int | None = None) -> Any:
        """Random vectors: shape ``(dim,)`` for ``n=None``, else ``(n, dim)``.

        The same ``seed`` gives the same vectors on every backend and device, and
        row ``i`` does not depend on ``n``. ``seed=None`` draws fresh vectors
        (reproducibly, if the model was created with a seed).
        """
        rows = 1 if n is None else _check_count(n, "n")
        if seed is not None:
            key, stream = check_seed(seed), 0
        elif self._seed is not None:
            self._unseeded_draws += 1
            key, stream = self._seed, self._unseeded_draws
        else:
            key, stream = fresh_seed(), 0
        out = self._random(rows, key, stream, Purpose.VECTORS)
        return out[0] if n is None else out

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

            def chunk(start: int) -> Any:
                return self._similarity_matrix(q, items[start : start + chunk_size])

            starts = range(0, n_items, chunk_size)
            mapper = self._backend.map_chunks if self._parallel_chunks else _map_list
            out = self.xp.concat(mapper(chunk, starts), axis=-1)
        return self.xp.reshape(out, (*batch, n_items))

    def _default_chunk(self, n_items: int, n_queries: int) -> int:
        per_item = self._matrix_temp_bytes_per_item(n_queries)
        return n_items if per_item == 0 else max(1, self._chunk_bytes // per_item)

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

        def chunk(start: int) -> Any:
            return self._search_scores(queries, tuple(a[start : start + chunk_size] for a in items))

        mapper = self._backend.map_chunks if self._parallel_search else _map_list
        return self.xp.concat(mapper(chunk, range(0, n_items, chunk_size)), axis=-1)

    def _search_scores(self, queries: tuple[Any, ...], items: tuple[Any, ...]) -> Any:
        """``similarity_matrix`` of indexed queries against one chunk of indexed items."""
        return self._similarity_matrix(queries[0], items[0])

    def _search_temp_bytes_per_item(self, n_queries: int) -> int:
        """Temporary bytes per indexed item that ``_search_scores`` needs besides its result."""
        return self._matrix_temp_bytes_per_item(n_queries)

    # -- what each model supplies ----------------------------------------------------------
    @abstractmethod
    def _random(self, n_rows: int, seed: int, stream: int, purpose: int) -> Any:
        """``n_rows`` random vectors, shape ``(n_rows, dim)``, from the given stream."""

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

    @staticmethod
    def _items_product(queries: Any, items: Any) -> Any:
        """``queries @ items.T`` with the taller matrix on the left and only the shorter one
        transposed: usually ``(items @ queries.T).T`` (BLAS is much faster with the long item
        matrix on the left, and eager JAX would copy a transposed item matrix); for a short
        codebook searched by more queries (an encoder's table of levels or candidates),
        ``queries @ items.T``. On an idle machine the two orders take the same time; with
        other processes busy on both cores, OpenBLAS took 0.5 s instead of 8 ms for 9 items
        x 100 queries of 20,000 floats with the short matrix on the left."""
        if queries.shape[0] > items.shape[0]:
            return queries @ items.mT
        return (items @ queries.mT).mT

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


def _map_list(fn: Any, chunks: Any) -> list:
    return [fn(c) for c in chunks]


def _kind(dtype: Any) -> str:
    return DTYPE_KINDS.get(dtype_name(dtype), "other") if _known_dtype(dtype) else "other"


def _known_dtype(dtype: Any) -> bool:
    try:
        dtype_name(dtype)
    except TypeError:
        return False
    return True
