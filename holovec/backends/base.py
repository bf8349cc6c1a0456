"""The backend interface: an adapter of one array framework, with the VSA kernels mixed in.

A backend wraps an array namespace that follows the Python array API standard (through
array-api-compat) and adds what the standard lacks. Its class is read in three parts:

- **the adapter** (this module, and a subclass per framework: ``<framework>_backend.py``):
  the device, dtypes, conversion to and from NumPy and other frameworks, tracing,
  compilation and loops, where a random draw is made (``draw_path``, ``fuse``);
- **the framework's numerics** (:class:`~holovec.backends.ops.ArrayOps`, ``ops.py``):
  complex numbers, the FFT, products in full precision;
- **the VSA kernels** (:class:`~holovec.backends.kernels.Kernels`, the ``kernels``
  package): Philox words, bit packing and popcounts, the Hamming search, top-k, blocked
  products, partitioned arrays. They are mixins, so models keep calling
  ``backend.hamming_top_k(...)``, ``backend.top_k(...)``; each framework's faster kernels
  are a class of ``kernels/<framework>_kernels.py``, listed first among the bases of its
  backend (``class TorchBackend(TorchKernels, Backend)``).

Mixins, not forwarding methods: one name per operation and one place to read it (the
adapter's module or the kernel's). Backends know nothing about VSA models.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from .arrays import DTYPE_KINDS, check_has_data, dtype_name
from .host import host_available_memory
from .kernels import Kernels
from .ops import ArrayOps

__all__ = ["DTYPE_KINDS", "Backend", "check_has_data", "dtype_name", "host_available_memory"]


class Backend(ArrayOps, Kernels):
    """An array framework on one device.

    Parameters
    ----------
    device:
        ``None`` for the framework's best device (a GPU when one is present),
        or a device string such as ``"cpu"`` or ``"cuda:0"``. A device that is
        not present raises ``ValueError`` here, not at first use.
    """

    #: the name users pass to ``VSA.create(backend=...)``
    name: str = ""
    #: the dtype that holds 32-bit random words (uint32, or int64 where the
    #: framework lacks uint32 arithmetic)
    word_dtype_name: str = "uint32"
    #: whether multi-op model kernels run faster wrapped in :meth:`jit` (JAX compiles
    #: every eager op for each new shape; a compiled kernel is one program)
    jit_kernels: bool = False
    #: whether every new array shape costs a compilation (JAX): iterative algorithms then
    #: keep their batch shape fixed instead of dropping finished rows
    static_shapes: bool = False
    #: whether arrays of this framework can live on another device than the backend's, so
    #: that the models' checks compare devices (False for NumPy: always the host)
    has_devices: bool = True
    #: the backend whose arrays the chunks of this backend's arrays are, where its arrays
    #: are partitioned into chunks of another framework computed elsewhere (Dask: NumPy
    #: chunks on workers); ``None``: this backend's arrays are its own blocks
    block_backend_name: str | None = None
    #: whether arrays are lazy task graphs (Dask), so that reading a value computes what
    #: led to it: models then take their branch-free paths, as under a trace, instead of
    #: choosing a fast path by the data (value checks of input still read the values)
    lazy: bool = False
    #: whether :meth:`host_views` may lend NumPy views (torch)
    lends_host_views: bool = False

    def __init__(self, device: Any = None) -> None:
        self.device = self._resolve_device(device)
        self.xp = self._namespace()

    # -- what every framework must say -------------------------------------------------
    @abstractmethod
    def _namespace(self) -> Any:
        """The array-API namespace of this framework."""

    @abstractmethod
    def _resolve_device(self, device: Any) -> Any:
        """The framework's device object for ``device``, or ``ValueError``."""

    @property
    @abstractmethod
    def array_type(self) -> type:
        """The framework's array class (``numpy.ndarray``, ``torch.Tensor``, ...)."""

    @abstractmethod
    def dtype(self, name: str) -> Any:
        """The framework's dtype object for a canonical dtype name."""

    @abstractmethod
    def to_numpy(self, x: Any) -> np.ndarray:
        """Copy (or view) an array of this backend as a NumPy array on the host."""

    @abstractmethod
    def from_numpy(self, x: np.ndarray) -> Any:
        """A NumPy array as an array of this backend, on this backend's device."""

    # -- the device ----------------------------------------------------------------------
    @property
    def device_name(self) -> str:
        return str(self.device)

    @property
    def is_cpu(self) -> bool:
        return self.device_name.startswith("cpu")

    def device_of(self, x: Any) -> Any:
        """The device an array of this framework is on, as the framework names it (for
        error messages)."""
        return getattr(x, "device", None)

    def on_device(self, x: Any) -> bool:
        """Whether the array ``x`` is on this backend's device (True where that cannot be
        told, e.g. for a placeholder of a trace). Cheap: reads no values."""
        return True

    def to_device(self, x: Any) -> Any:
        """An array of this framework moved to this backend's device (``x`` itself if it is
        there), or ``ValueError`` where it cannot be moved."""
        return x

    def available_memory(self) -> int | None:
        """Bytes that an allocation on this backend's device can still get, or ``None`` if
        unknown. On the host: :func:`host_available_memory` (the memory the operating system
        reports available, within the process's address-space and cgroup limits)."""
        return host_available_memory()

    def synchronize(self) -> None:
        """Wait for queued device work (for timing)."""

    # -- arrays and dtypes ---------------------------------------------------------------
    @property
    def plain_array_type(self) -> type:
        """The exact class of the framework's ordinary concrete arrays. The models' fast
        checks compare ``type(x) is plain_array_type``; anything else (subclasses, tracers)
        takes the full check."""
        return self.array_type

    @property
    def array_type_name(self) -> str:
        """The array class as users write it (``numpy.ndarray``, ``torch.Tensor``, ``jax.Array``)."""
        return f"{self.array_type.__module__.split('.')[0]}.{self.array_type.__name__}"

    def is_array(self, x: Any) -> bool:
        return isinstance(x, self.array_type)

    def supports_dtype(self, name: str) -> bool:
        try:
            self.dtype(name)
        except (TypeError, ValueError):
            return False
        return True

    @property
    def word_dtype(self) -> Any:
        return self.dtype(self.word_dtype_name)

    def default_float_dtype(self, wide: bool = True) -> Any:
        """With ``wide``, the widest float dtype of the backend: float64, or float32 where it
        has none (JAX without 64-bit mode); else float32 (encoder parameters, exact scores).

        >>> from holovec.backends import get_backend
        >>> get_backend("numpy").default_float_dtype()
        dtype('float64')
        """
        return self.dtype("float64" if wide and self.supports_dtype("float64") else "float32")

    def asarray(self, x: Any, dtype: Any = None) -> Any:
        """Any array (NumPy, PyTorch, JAX, nested lists) as an array of this backend.

        Arrays of another framework travel through DLPack where both sides
        support it, else through NumPy: their values are taken, detached from autograd
        (another framework cannot carry a torch gradient), and bfloat16 arrays become
        float32 (exactly) where this backend has no bfloat16. ``ValueError`` for a tensor
        that holds no values (torch's ``meta`` device).
        """
        check_has_data(x)
        if self.is_array(x):
            out = self.to_device(x)
        elif isinstance(x, (np.ndarray, np.generic, list, tuple, int, float, complex)):
            host = np.asarray(x)
            if host.dtype.kind not in "biufc" and host.dtype.name not in DTYPE_KINDS:  # bfloat16 is 'V'
                raise TypeError(f"expected an array of numbers, got {type(x).__name__} of {host.dtype}")
            out = self.from_numpy(host)
        elif hasattr(x, "__dlpack__") or hasattr(x, "__array__"):
            out = self._from_foreign(self._plain_foreign(x))
        else:
            raise TypeError(
                f"expected an array (NumPy, PyTorch, JAX) or a nested list of numbers, got {type(x).__name__}"
            )
        if dtype is not None:
            out = self.xp.astype(out, self.dtype(dtype_name(dtype)))
        return out

    def _plain_foreign(self, x: Any) -> Any:
        """Another framework's array as one whose values DLPack and NumPy can read: detached
        from autograd, and bfloat16 widened to float32 where this backend has no bfloat16."""
        if getattr(x, "requires_grad", False) is True:  # torch
            x = x.detach()
        dtype = getattr(x, "dtype", None)
        if dtype is not None and str(dtype).endswith("bfloat16") and not self.supports_dtype("bfloat16"):
            import array_api_compat

            xp = array_api_compat.array_namespace(x)
            x = xp.astype(x, xp.float32)
        return x

    def _from_foreign(self, x: Any) -> Any:
        try:
            return self.xp.from_dlpack(x)
        except Exception:
            return self.from_numpy(np.asarray(x))

    # -- rows that grow (holovec.backends.growth.RowBuffer) --------------------------------
    #: whether :meth:`write_rows` writes into the spare rows of a buffer; False where arrays
    #: are lazy task graphs (Dask), whose growing rows are kept as blocks (:meth:`join_rows`)
    writes_rows: bool = True

    def write_rows(self, buffer: Any, start: int, rows: Any) -> Any:
        """``rows`` ``(n, ...)`` written over ``buffer[start:start + n]`` in place (slice
        assignment, NumPy and torch), ``start + n`` at most ``buffer.shape[0]``; returns the
        buffer that holds them: ``buffer`` itself here. A framework whose arrays are
        immutable returns a new array and may invalidate ``buffer`` (JAX donates it), so a
        caller keeps only the array returned.

        Parameters
        ----------
        buffer : array
            The rows written into, ``(capacity, ...)``.
        start : int
            The first row written.
        rows : array
            The rows, ``(n, ...)`` of the buffer's row shape and dtype.
        """
        buffer[start : start + rows.shape[0]] = rows
        return buffer

    def join_rows(self, blocks: list[Any]) -> Any:
        """The blocks of rows ``[(n_i, ...), ...]`` one after the other: one array
        ``(sum n_i, ...)`` (a concatenation; Dask also merges their chunks).

        Parameters
        ----------
        blocks : list of arrays
            At least one block; all of one row shape and dtype.
        """
        return blocks[0] if len(blocks) == 1 else self.xp.concat(blocks, axis=0)

    # -- tracing, compilation and loops --------------------------------------------------
    #: the framework's transforms that trace arrays (for messages: "inside jax.jit, ...")
    trace_transforms = "a trace"
    #: what ``xp.linalg.solve`` raises for a singular system (JAX raises nothing: it
    #: returns non-finite values); a lazy backend solves with NumPy
    singular_system_errors: tuple[type[BaseException], ...] = (np.linalg.LinAlgError,)

    def is_traced(self, x: Any) -> bool:
        """Whether ``x`` is a placeholder of a trace (``jax.jit``, ``vmap``, ``torch.func``)
        whose values cannot be read: models then take their branch-free paths instead of
        choosing a fast path by looking at the data. False by default."""
        return False

    def jit(self, fn: Callable) -> Callable:
        """Compile ``fn`` where the framework can (identity by default)."""
        return fn

    def cond(self, pred: Any, shortcut: Callable[[], Any], general: Callable[[], Any]) -> Any:
        """``shortcut()`` where the 0-d boolean ``pred`` holds, else ``general()``: for a
        ``general`` that is always right and a ``shortcut`` that gives the same where ``pred``
        holds, only faster. ``pred`` is read where it can be; where it cannot (a trace, a lazy
        graph) this default takes ``general``, and JAX branches inside its compiled program
        (``jax.lax.cond``: one branch runs)."""
        if self.lazy or self.is_traced(pred):
            return general()
        return shortcut() if bool(pred) else general()

    def repeat(self, fn: Callable, state: Any, times: int) -> Any:
        """``fn`` applied ``times`` times to ``state`` (a Python loop; JAX compiles one)."""
        for _ in range(times):
            state = fn(state)
        return state

    def while_loop(self, cond: Callable[[Any], Any], body: Callable[[Any], Any], state: Any) -> Any:
        """``body`` applied to ``state`` while ``cond(state)`` (a 0-d boolean) holds: a Python
        loop that reads ``cond`` each time; JAX compiles one loop (``jax.lax.while_loop``:
        ``state`` is a pytree of arrays whose shapes and dtypes ``body`` keeps), so that an
        iteration until convergence is one program, with no read back per iteration."""
        while bool(cond(state)):
            state = body(state)
        return state

    def register_static(self, cls: type) -> None:
        """Let instances of ``cls`` pass through the framework's tracing as static values
        (e.g. a model given as an argument to ``jax.jit``). A no-op by default."""

    def draw_path(self, n_elements: int, exact: bool = True) -> str:
        """Where a model's seeded draw of ``n_elements`` vector elements (all rows together) is
        made, the fastest way that gives NumPy's numbers. ``exact``: whether every path gives
        the same bits for the model's sampler; where it does not (transcendental functions),
        the path must not depend on ``n_elements``, so that row ``i`` of a draw is the same
        whatever the number of rows drawn with it.

        - ``"host"``: by the NumPy backend on the host, then moved here (:meth:`from_numpy`):
          bit for bit NumPy's draw, and no framework dispatch (torch's intra-op threads, JAX's
          per-call overhead), which is what small draws cost;
        - ``"compiled"``: one compiled program of the generator and the model's sampler that
          takes the address as data (backends that compile kernels: JAX);
        - ``"eager"``: the model's sampler op by op on this backend's arrays (this default,
          or ``"compiled"`` where :attr:`jit_kernels`).
        """
        return "compiled" if self.jit_kernels else "eager"

    def fuse(self, fn: Callable) -> Callable:
        """``fn`` (a module-level function of this backend and arrays, elementwise integer
        code: the generic random generator) as this backend runs it fastest for arrays of
        any length: compiled into one kernel where eager ops would each be a kernel launch
        (torch on a GPU); ``fn`` itself by default."""
        return fn

    def host_views(self, *arrays: Any) -> tuple[np.ndarray, ...] | None:
        """Zero-copy NumPy views of ``arrays`` where an op on them is faster done by NumPy
        on the host than by this framework (torch on the CPU: see ``TorchBackend``), so that
        models run such ops on their NumPy twin (the same numbers as the NumPy backend, bit
        for bit); ``None`` where the framework computes them itself (this default)."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(device={self.device_name!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Backend) and other.name == self.name and other.device_name == self.device_name
        )

    def __hash__(self) -> int:
        return hash((self.name, self.device_name))
