"""The base class of the VSA models: the public operations, in one place.

A model subclass states its algebra in a few small methods (``_random``, ``_bind``, ...)
that may assume valid input; the public methods here check input once, cheaply (type, dtype
and shape), and turn bad input into a ``TypeError`` or ``ValueError`` that says what was
expected. Each other idea is a module, composed here by plain functions and small helper
objects: checks (``_checks``), values (``_values``), configuration (``_config``), memory
(``_memory``), seeds and draws (``_seeding``), kernels (``_kernels``), search (``_search``).

The build step: a model's ``__init__`` sets its options, then calls this ``__init__``, whose
end builds what reads the whole configuration (fast checks, draws, compiled kernels).
"""

from __future__ import annotations

import math
import numbers
import warnings
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from .. import kernels
from .._deprecation import SINCE
from ..backends import Backend, get_backend
from ..random import Purpose
from . import _config as configuration
from . import _search, _values
from ._checks import FastCheck, check_count, check_dim, check_dtype, check_vectors
from ._kernels import install_kernels
from ._memory import CHECKED_ALLOCATION_BYTES, CHUNK_BYTES, AllocationError, check_memory, draw_bytes
from ._seeding import Draws, Seeds, check_draw
from .protocol import ModelProtocol, real_dtype_name

# with the names other packages import from here (defined in _memory)
__all__ = ["CHECKED_ALLOCATION_BYTES", "CHUNK_BYTES", "COMPILED_KERNELS", "AllocationError", "VSAModel"]

#: the operations every model compiles where the backend compiles kernels (a model that
#: adds its own lists them after these in its ``_compiled_kernels``)
COMPILED_KERNELS = ("_bind", "_unbind", "_similarity", "_bundle", "_inverse", "_normalize")


class VSAModel(ModelProtocol, ABC):
    """Base class of the VSA models. Create models with :meth:`holovec.VSA.create`.

    Vectors are the backend's own arrays of shape ``(..., dim)``; every operation
    broadcasts over the leading batch axes.

    Parameters
    ----------
    dim : int
        Number of elements per vector.
    backend : str | Backend, optional
        The backend: a name (``"numpy"``, ``"torch"``, ``"jax"``, ``"dask"``, ``"auto"``), a
        :class:`~holovec.backends.Backend`, or ``None`` for the default (see
        :meth:`holovec.VSA.create`).
    seed : int, optional
        Makes every later unseeded draw of the model reproducible; ``None`` for fresh
        randomness.
    device : object, optional
        The device; ``None`` for the framework's best (see :meth:`holovec.VSA.create`).
    dtype : str or dtype, optional
        The vectors' dtype, where the model allows a choice; ``None`` for the model's
        default.
    **options : object
        Options of the model (see each model's class).
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
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {}

    # -- tuning, per model class --------------------------------------------------------
    #: temporary memory of one similarity_matrix chunk; whether chunks may run in parallel
    #: threads (kernels that use one core; search chunks: see the protocol)
    _chunk_bytes: ClassVar[int] = CHUNK_BYTES
    _parallel_chunks: ClassVar[bool] = False
    #: peak bytes per element of a draw and of a model's creation (``_memory``)
    _draw_bytes_per_element: ClassVar[float] = 16.0
    _creation_bytes_per_element: ClassVar[float] = 0.0
    #: the private methods compiled where the backend compiles kernels, and those that may
    #: run on the model's NumPy twin (``_kernels``): each a pure function of its arrays and
    #: the configuration (no look at the values, no other state)
    _compiled_kernels: ClassVar[tuple[str, ...]] = COMPILED_KERNELS
    _host_kernels: ClassVar[tuple[str, ...]] = ("_bundle",)
    #: whether every backend's sampler gives the draws bit for bit; False where it rounds
    #: cos or log: then a backend draws by one path for every size (``kernels.draw_path``)
    _draws_exact: ClassVar[bool] = True

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
        self.dtype_name = check_dtype(self, dtype)
        self.real_dtype_name = real_dtype_name(self.dtype_name)
        self._dtype = self._backend.dtype(self.dtype_name)
        self._seeds = Seeds(seed)
        self._kernel_cache: dict = {}
        self._backend.register_static(type(self))
        needed = draw_bytes(self, 1, self._draw_bytes_per_element) + math.ceil(
            self._dim * self._creation_bytes_per_element
        )
        check_memory(self._backend, needed, f"creating a {self.name} model of dim {self._dim}")
        # the build step (see the module): the configuration is complete here. An option
        # that a subclass sets after calling this __init__ would be missing from the key
        # (models would compare equal, share compiled kernels): refused, not guessed
        unset = [name for name in self.option_names if not hasattr(self, name)]
        if unset:
            raise TypeError(
                f"{type(self).__name__} must set its option(s) {', '.join(map(repr, unset))} before "
                "calling VSAModel.__init__, which builds the model from its configuration"
            )
        # the class and the configuration's values, once (``jax.jit`` hashes a static model
        # on every call); a plain attribute: ``__dict__`` would slow every attribute read
        key = self._key = (type(self), *self.get_config().values())
        self._draw = Draws(self, self._random, self._draws_exact, key[:-1], self._draw_bytes_per_element)
        # made now, outside any jit trace, so that traced calls can close over it
        self._tiebreak = self._draw.first_row(self.seed_for_ties, Purpose.TIEBREAK)
        self._checks = FastCheck(self)  # the fast path of the checks; .stack for bundles
        install_kernels(self, key, self._compiled_kernels, self._host_kernels)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # holovec 0.1's name of the hook: a model that overrides it keeps its validation
        if "_valid_elements" in vars(cls) and "valid_elements" not in vars(cls):
            warnings.warn(
                f"{cls.__name__}._valid_elements is deprecated since {SINCE}; name the hook valid_elements",
                DeprecationWarning,
                stacklevel=2,
            )
            cls.valid_elements = vars(cls)["_valid_elements"]

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
    def config_key(self) -> tuple:
        """The class and the configuration's values (hashable, holding no model): models of
        one key are equal, and share their compiled programs (``Backend.program``)."""
        return self._key

    @property
    def kernel_cache(self) -> dict:
        """A cache of compiled kernels that live and die with the model (encoders' too)."""
        return self._kernel_cache

    @property
    def seed(self) -> int | None:
        """The seed given to ``VSA.create`` (makes unseeded draws reproducible), or None."""
        return self._seeds.seed

    @property
    def seed_for_ties(self) -> int:
        """Seed of the vector that breaks bundle ties: the model's seed, else 0."""
        return self._seeds.for_ties

    def __repr__(self) -> str:
        return (
            f"{self.name}(dim={self.dim}, backend={self.backend.name!r}, "
            f"device={self.backend.device_name!r}, dtype={self.dtype_name!r})"
        )

    # -- configuration: equality, pickling, other backends (see ``_config``) --------------
    get_config = configuration.get_config
    _config = configuration.get_config  # the name other packages used before get_config
    __reduce__ = configuration.reduce
    with_backend = configuration.with_backend
    block_model = configuration.block_model
    host_model = configuration.host_model
    config_differences = configuration.config_differences

    def _config_key(self) -> tuple:  # (of another model: type(other)._config_key(other))
        return self._key

    def __eq__(self, other: object) -> bool:
        """Models are equal when they have the same class, dim, backend and device, dtype,
        options and seed (so a model rebuilt from a saved codebook equals the original)."""
        if not isinstance(other, VSAModel):
            return NotImplemented
        return self is other or self._key == type(other)._config_key(other)

    def __hash__(self) -> int:
        return hash(self._key)

    def __getstate__(self) -> dict[str, Any]:
        return {"unseeded_draws": self._seeds.draws}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._seeds.draws = state["unseeded_draws"]

    # -- input (see ``_checks`` and ``_values``) --------------------------------------------
    check = check_vectors
    asarray = _values.asarray
    to_numpy = _values.to_numpy

    def check_values(self, x: Any, name: str = "x") -> Any:
        """``x`` (checked) if its elements are values of this model's vectors, else a ``ValueError``
        naming the wrong ones and ``allowed_values``; reads every value (not under a trace).

        Parameters
        ----------
        x : array
            The vectors to check.
        name : str, optional
            The parameter's name, for the error message.
        """
        _values.check_values(self, x, name)
        return x

    def _draw_bytes(self, n_rows: int) -> int:
        """About the peak memory a draw of ``n_rows`` vectors takes (``_memory``)."""
        return draw_bytes(self, n_rows, self._draw_bytes_per_element)

    # -- draws ------------------------------------------------------------------------------
    def spawn_seed(self) -> int:
        """A seed for a new unseeded component (an encoder, a table): fresh, or the next of the
        model's seeded sequence (shared with unseeded ``random`` draws, like one generator)."""
        return self._seeds.spawn()

    def draw(self, n: int, seed: int, purpose: int, stream: Any = 0, *, row_start: int = 0) -> Any:
        """``n`` vectors ``(n, vector_length)`` from the generator's address (seed, stream,
        purpose): the same on every backend, row ``i`` independent of ``n``.

        For components that need vectors of their own (an encoder's positions, levels or
        symbols): a :class:`~holovec.random.Purpose` keeps their numbers apart from
        ``random``'s (purpose ``VECTORS``), ``stream`` (an int below 2**64) numbers draws of
        one purpose, a sequence of ``n`` streams gives row ``i`` from ``stream[i]``. ``seed``:
        an int below 2**128 (see :func:`holovec.random.fold_in`). ``row_start`` (an int
        stream): rows ``row_start .. row_start + n - 1`` of the draw, without those before.

        Parameters
        ----------
        n : int
            Number of vectors.
        seed : int
            The generator's seed.
        purpose : int
            The purpose of the draw (a :class:`~holovec.random.Purpose`).
        stream : object, optional
            The stream within the purpose (an int or a label's digest).
        row_start : int, optional
            Index of the first row (rows of one address are independent of ``n``).
        """
        n, seed = check_draw(n, seed, stream)
        start = check_count(row_start, "row_start")
        check_memory(self._backend, self._draw_bytes(n), f"draw({n})")
        if start:
            return self._random(n, seed, stream, int(purpose), row_start=start)
        return self._draw(n, seed, stream, int(purpose))

    def random(self, n: int | None = None, *, seed: int | None = None) -> Any:
        """Random vectors: shape ``(dim,)`` for ``n=None``, else ``(n, dim)``.

        The same ``seed`` gives the same vectors on every backend and device, and row ``i``
        does not depend on ``n``. ``seed=None`` draws fresh vectors (reproducibly, if the
        model was created with a seed).

        Parameters
        ----------
        n : int, optional
            Number of vectors; ``None`` for one vector ``(dim,)``.
        seed : int, optional
            The seed; ``None`` for the model's next unseeded draw.
        """
        rows = 1 if n is None else check_count(n, "n")
        check_memory(self._backend, self._draw_bytes(rows), f"random({rows})")
        key, stream = self._seeds.address(seed)
        return self._draw(rows, key, stream, Purpose.VECTORS, one_row=n is None)

    # -- the operations -------------------------------------------------------------------
    def bind(self, a: Any, b: Any) -> Any:
        """Bind (associate) ``a`` with ``b``; the result is dissimilar to both.

        Parameters
        ----------
        a : array
            Vectors of the model, ``(..., vector_length)``.
        b : array
            Vectors of the model, broadcast against ``a``.
        """
        self._checks.pair(a, b)
        return self._bind(a, b)

    def unbind(self, c: Any, b: Any) -> Any:
        """Recover ``a`` from ``c = bind(a, b)`` (exactly where the model allows).

        Parameters
        ----------
        c : array
            Bound vectors of the model.
        b : array
            The vectors ``c`` was bound with.
        """
        self._checks.pair(c, b, ("c", "b"))
        return self._unbind(c, b)

    def bundle(self, vectors: Sequence[Any] | Any) -> Any:
        """Superpose vectors: the result is similar to each of them.

        ``vectors`` is a list of vectors (or batches), or an array with the items on axis 0.
        Ties are broken by a fixed vector drawn from the model's seed.

        Parameters
        ----------
        vectors : list of array, or array
            A list of vectors, or an array with the items on axis 0.
        """
        return self._bundle(self._checks.stack(vectors))

    def permute(self, x: Any, shift: int = 1) -> Any:
        """Cyclically shift the elements by ``shift`` (negative shifts undo positive ones).

        Parameters
        ----------
        x : array
            Vectors of the model, ``(..., vector_length)``.
        shift : int, optional
            Number of places to shift.
        """
        self.check(x)
        if isinstance(shift, (bool, np.bool_)) or not isinstance(shift, numbers.Integral):
            raise TypeError(f"shift must be an int, got {type(shift).__name__} {shift!r}")
        # modulo dim: equal shifts are one program for jit compilers
        return self._permute(x, int(shift) % self._dim)

    def inverse(self, x: Any) -> Any:
        """The vector that undoes binding with ``x``: ``bind(bind(a, x), inverse(x)) ~ a``.

        Parameters
        ----------
        x : array
            Vectors of the model, ``(..., vector_length)``.
        """
        return self._inverse(self.check(x))

    def identity(self) -> Any:
        """The vector ``e`` with ``bind(a, e) == a``."""
        return self._identity()

    def normalize(self, x: Any) -> Any:
        """Project vectors back onto the model's space (e.g. after arithmetic of your own).

        Parameters
        ----------
        x : array
            Vectors of the model, ``(..., vector_length)``.
        """
        return self._normalize(self.check(x))

    def similarity(self, a: Any, b: Any) -> Any:
        """Similarity in [-1, 1]: 1 for identical vectors, about 0 for unrelated ones.

        Broadcasts over batch axes like NumPy; two vectors give a 0-d array.

        Parameters
        ----------
        a : array
            Vectors of the model, ``(..., vector_length)``.
        b : array
            Vectors of the model, broadcast against ``a``.
        """
        self._checks.pair(a, b)
        if isinstance(a, np.ndarray):  # NumPy warns of NaN arithmetic: it is refused below instead
            with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
                out = self._similarity(a, b)
        else:
            out = self._similarity(a, b)
        # NumPy reductions give scalars; the contract is a 0-d array of the backend
        out = np.asarray(out) if isinstance(out, np.generic) else out
        # valid vectors always give a finite similarity, so checking the (small) result
        # finds NaN or infinity in either operand without reading every element again
        backend = self._backend
        if not (backend.lazy or backend.is_traced(out)) and not _finite(backend, out):
            raise ValueError(
                "similarity: a or b holds NaN or infinity (the similarity is not finite); "
                f"{self.name} vectors must be finite"
            )
        return out

    def similarity_matrix(self, queries: Any, items: Any, *, chunk_size: int | None = None) -> Any:
        """Similarity of every query (shape ``(..., dim)``) with every item (``(n, dim)``):
        shape ``(..., n)``, computed as one matrix product per chunk of items.

        Parameters
        ----------
        queries : array
            Query vectors ``(..., vector_length)``.
        items : object
            Item vectors ``(n, vector_length)``.
        chunk_size : int, optional
            Items per chunk; ``None`` for a chunk that bounds the memory.
        """
        self.check(queries, "queries")
        self.check(items, "items")
        if items.ndim != 2:
            raise ValueError(
                f"items must be a 2-d array (n, {self.vector_length}), got shape {tuple(items.shape)}"
            )
        q = self.xp.reshape(queries, (-1, self.vector_length))
        n_items = items.shape[0]
        if chunk_size is None:
            per_item = self._matrix_temp_bytes_per_item(q.shape[0])
            chunk_size = _search.default_chunk(n_items, per_item, self._chunk_bytes)
        elif check_count(chunk_size, "chunk_size") == 0:
            raise ValueError("chunk_size must be a positive int (items per chunk), got 0")
        if chunk_size >= n_items:
            out = self._similarity_matrix(q, items)
        else:
            out = kernels.map_item_chunks(
                self._backend,
                self._matrix_chunk,
                (q,),
                (items,),
                chunk_size,
                self._parallel_chunks,
                self._kernel_cache,
            )
        return self.xp.reshape(out, (*queries.shape[:-1], n_items))

    def _matrix_chunk(self, queries: tuple[Any], items: tuple[Any]) -> Any:
        return self._similarity_matrix(queries[0], items[0])

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

    def _permute(self, x: Any, shift: int) -> Any:
        """Cyclic shift of the ``dim`` elements (override where storage is not one element per slot)."""
        return self.xp.roll(x, shift, axis=-1)


def _rebuilt_model(
    cls: type, dim: int, backend: str, device: str, dtype: str, seed: Any, options: dict, draws: int
) -> VSAModel:
    """A model pickled by holovec 0.1 (whose pickles name this function), created again."""
    model = configuration.rebuilt(cls, dim, backend, device, dtype, seed, options)
    model.__setstate__({"unseeded_draws": draws})
    return model


def _finite(backend: Any, out: Any) -> bool:
    """Whether every similarity in ``out`` is finite, read on the host (one small copy;
    a reduction on the device costs several dispatches per call)."""
    return bool(np.isfinite(backend.to_numpy(out)).all())
