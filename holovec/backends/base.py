"""The backend interface: the adapter of one array framework.

A backend wraps an array namespace that follows the Python array API standard (through
array-api-compat) and adds what an adapter must say and the standard cannot: the device,
dtypes, conversion to and from NumPy and other frameworks, tracing, compilation, and the
framework's capabilities (flags that other layers read to choose a path). This module is the
base class; each framework's subclass is ``<framework>_backend.py``.

Everything computed over a backend, the numerics the standard lacks (complex numbers, the
FFT, products in full precision) and the VSA kernels (Philox words, bit packing and
popcounts, the Hamming search, top-k, blocked products, partitioned arrays), is a free
function of :mod:`holovec.kernels` whose first argument is the backend
(``top_k(backend, scores, k)``), each framework's faster version registered next to it.
Backends know nothing about kernels or VSA models.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np

from .arrays import DTYPE_KINDS, check_has_data, dtype_name
from .host import host_available_memory
from .programs import program

__all__ = ["DTYPE_KINDS", "Backend", "check_has_data", "dtype_name", "host_available_memory"]


def _plain_foreign(backend: Backend, x: Any) -> Any:
    """Another framework's array as one whose values DLPack and NumPy can read: detached from
    autograd, and bfloat16 widened to float32 where ``backend`` has no bfloat16."""
    if getattr(x, "requires_grad", False) is True:  # torch
        x = x.detach()
    dtype = getattr(x, "dtype", None)
    if dtype is not None and str(dtype).endswith("bfloat16"):
        try:
            backend.dtype("bfloat16")
        except (TypeError, ValueError):
            import array_api_compat

            xp = array_api_compat.array_namespace(x)
            x = xp.astype(x, xp.float32)
    return x


class Backend(ABC):
    """An array framework on one device: the adapter (see the module).

    Parameters
    ----------
    device : str or device object, optional
        ``None`` for the framework's best device (a GPU when one is present), or a device
        string such as ``"cpu"`` or ``"cuda:0"``. A device that is not present raises
        ``ValueError`` here, not at first use.

    Attributes
    ----------
    xp : module
        The framework's array-API namespace.
    device : Any
        The framework's device object.
    """

    #: the name users pass to ``VSA.create(backend=...)``; kernels dispatch on it
    name: str = ""
    #: whether multi-op model kernels run faster compiled (JAX compiles every eager op for
    #: each new shape; a compiled kernel is one program)
    jit_kernels: bool = False
    #: whether every new array shape costs a compilation (JAX): iterative algorithms then
    #: keep their batch shape fixed instead of dropping finished rows
    static_shapes: bool = False
    #: whether arrays of this framework can live on another device than the backend's, so
    #: that the models' checks compare devices (False for NumPy: always the host)
    has_devices: bool = True
    #: whether arrays are lazy task graphs (Dask), so that reading a value computes what
    #: led to it: models then take their branch-free paths, as under a trace, instead of
    #: choosing a fast path by the data (value checks of input still read the values)
    lazy: bool = False
    #: whether :meth:`host_views` may lend NumPy views (torch)
    lends_host_views: bool = False
    #: the framework's transforms that trace arrays (for messages: "inside jax.jit, ...")
    trace_transforms: str = "a trace"

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
        """The framework's dtype object for a canonical dtype name.

        Parameters
        ----------
        name : str
            ``"float32"``, ``"uint8"``, ``"bfloat16"``, ...

        Returns
        -------
        dtype
            The framework's dtype; ``TypeError`` where it has none.
        """

    @abstractmethod
    def to_numpy(self, x: Any) -> np.ndarray:
        """Copy (or view) an array of this backend as a NumPy array on the host.

        Parameters
        ----------
        x : array
            An array of this backend.

        Returns
        -------
        numpy.ndarray
            Its values.
        """

    @abstractmethod
    def from_numpy(self, x: np.ndarray) -> Any:
        """A NumPy array as an array of this backend, on this backend's device.

        Parameters
        ----------
        x : numpy.ndarray
            The values.

        Returns
        -------
        array
            The array of this backend.
        """

    # -- the device ----------------------------------------------------------------------
    @property
    def device_name(self) -> str:
        """The device as a string (``"cpu"``, ``"cuda:0"``, ``"gpu:0"``)."""
        return str(self.device)

    @property
    def is_cpu(self) -> bool:
        """Whether the device is the host CPU."""
        return self.device_name.startswith("cpu")

    def device_of(self, x: Any) -> Any:
        """The device an array of this framework is on, as the framework names it (for
        error messages).

        Parameters
        ----------
        x : array
            An array of this framework.

        Returns
        -------
        Any
            Its device, or ``None`` where it cannot be told.
        """
        return getattr(x, "device", None)

    def on_device(self, x: Any) -> bool:
        """Whether the array ``x`` is on this backend's device (True where that cannot be
        told, e.g. for a placeholder of a trace). Cheap: reads no values.

        Parameters
        ----------
        x : array
            An array of this framework.

        Returns
        -------
        bool
            Whether it is on this device.
        """
        return True

    def to_device(self, x: Any) -> Any:
        """An array of this framework moved to this backend's device (``x`` itself if it is
        there), or ``ValueError`` where it cannot be moved.

        Parameters
        ----------
        x : array
            An array of this framework.

        Returns
        -------
        array
            The array on this device.
        """
        return x

    def available_memory(self) -> int | None:
        """Bytes that an allocation on this backend's device can still get, or ``None`` if
        unknown. On the host: :func:`host_available_memory` (the memory the operating system
        reports available, within the process's address-space and cgroup limits)."""
        return host_available_memory()

    def synchronize(self) -> None:
        """Wait for queued device work (for timing). Nothing to wait for by default."""
        return None

    # -- arrays and conversion -------------------------------------------------------------
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
        """Whether ``x`` is an array of this framework.

        Parameters
        ----------
        x : Any
            Any object.

        Returns
        -------
        bool
            ``isinstance(x, array_type)``.
        """
        return isinstance(x, self.array_type)

    def asarray(self, x: Any, dtype: Any = None) -> Any:
        """Any array (NumPy, PyTorch, JAX, nested lists) as an array of this backend.

        Arrays of another framework travel through DLPack where both sides support it, else
        through NumPy: their values are taken, detached from autograd (another framework
        cannot carry a torch gradient), and bfloat16 arrays become float32 (exactly) where
        this backend has no bfloat16. ``ValueError`` for a tensor that holds no values
        (torch's ``meta`` device).

        Parameters
        ----------
        x : array_like
            An array of any framework, a NumPy scalar, or nested lists of numbers.
        dtype : dtype or str, optional
            The dtype of the result (default: that of ``x``).

        Returns
        -------
        array
            The array of this backend, on its device.
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
            out = self._from_foreign(_plain_foreign(self, x))
        else:
            raise TypeError(
                f"expected an array (NumPy, PyTorch, JAX) or a nested list of numbers, got {type(x).__name__}"
            )
        if dtype is not None:
            out = self.xp.astype(out, self.dtype(dtype_name(dtype)))
        return out

    def _from_foreign(self, x: Any) -> Any:
        try:
            return self.xp.from_dlpack(x)
        except Exception:
            return self.from_numpy(np.asarray(x))

    # -- tracing and compilation -----------------------------------------------------------
    def is_traced(self, x: Any) -> bool:
        """Whether ``x`` is a placeholder of a trace (``jax.jit``, ``vmap``, ``torch.func``)
        whose values cannot be read: models then take their branch-free paths instead of
        choosing a fast path by looking at the data. False by default.

        Parameters
        ----------
        x : Any
            An array, or any object.

        Returns
        -------
        bool
            Whether it is traced.
        """
        return False

    def jit(self, fn: Callable) -> Callable:
        """Compile ``fn`` where the framework can (identity by default).

        Parameters
        ----------
        fn : callable
            A function of arrays.

        Returns
        -------
        callable
            The compiled function.
        """
        return fn

    def program(
        self,
        fn: Callable[..., Any],
        key: Hashable,
        *,
        keep: dict | None = None,
        twin: Callable[[], Callable[..., Any] | None] | None = None,
        pad: Sequence[int] = (),
        share: bool = True,
    ) -> Callable[..., Any]:
        """``fn`` as this backend runs it fastest: compiled, host-lent or eager, kept in the
        one program cache (:func:`holovec.backends.programs.program`, which documents every
        parameter).

        Parameters
        ----------
        fn : callable
            A pure function of arrays.
        key : hashable
            What ``fn`` depends on besides its arguments.
        keep : dict or None, default None
            Where the caller keeps the program (a model's ``kernel_cache``).
        twin : callable or None, default None
            ``fn`` on the model's NumPy twin, for a backend that lends NumPy views.
        pad : sequence of int, default ()
            Positions of the arguments whose leading axis is the batch.
        share : bool, default True
            Whether callers of one key share the compiled program.

        Returns
        -------
        callable
            The program, called like ``fn``.
        """
        return program(self, fn, key, keep=keep, twin=twin, pad=pad, share=share)

    def register_static(self, cls: type) -> None:
        """Let instances of ``cls`` pass through the framework's tracing as static values
        (e.g. a model given as an argument to ``jax.jit``). A no-op by default.

        Parameters
        ----------
        cls : type
            The class.
        """
        return None

    def host_views(self, *arrays: Any) -> tuple[np.ndarray, ...] | None:
        """Zero-copy NumPy views of ``arrays`` where an op on them is faster done by NumPy
        on the host than by this framework (torch on the CPU: see ``TorchBackend``), so that
        models run such ops on their NumPy twin (the same numbers as the NumPy backend, bit
        for bit); ``None`` where the framework computes them itself (this default).

        Parameters
        ----------
        *arrays : array
            Arrays of this backend.

        Returns
        -------
        tuple of numpy.ndarray, or None
            The views, or ``None``.
        """
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(device={self.device_name!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Backend) and other.name == self.name and other.device_name == self.device_name
        )

    def __hash__(self) -> int:
        return hash((self.name, self.device_name))
