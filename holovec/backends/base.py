"""The backend interface: one small class per array framework.

A backend wraps an array namespace that follows the Python array API standard
(through array-api-compat) and adds what the standard lacks: choosing a device
and dtypes, conversion to and from NumPy and other frameworks, the FFT,
complex construction, popcount, a jit hook, and the fast source of random words.
Backends know nothing about VSA models.
"""

from __future__ import annotations

import contextlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import check_int

#: dtype names a model may ask for, mapped to the kind of number they hold.
DTYPE_KINDS = {
    "bool": "bool",
    "uint8": "uint",
    "uint32": "uint",
    "uint64": "uint",
    "int8": "int",
    "int32": "int",
    "int64": "int",
    "float16": "float",
    "bfloat16": "float",
    "float32": "float",
    "float64": "float",
    "complex64": "complex",
    "complex128": "complex",
}


def host_available_memory() -> int | None:
    """Bytes of host memory that this process can still allocate, or ``None`` (unknown).

    The least of: the memory the operating system reports available (on Linux
    ``MemAvailable`` in ``/proc/meminfo``, RAM that can be had without swapping, plus free
    swap; else the free physical pages, ``os.sysconf``); the headroom under the process's
    address-space limit (``RLIMIT_AS``, ``ulimit -v``: the limit less the address space in
    use); and the headroom under the memory limits of its control group and the groups
    above it (cgroup v2 ``memory.max`` less ``memory.current``, v1
    ``memory.limit_in_bytes`` less ``memory.usage_in_bytes``; the kernel reclaims the
    group's inactive file cache before it refuses, so that counts as free). A container
    or job limit is then honoured, not only the machine's free memory."""
    estimates = (_system_available(), _address_space_headroom(), _cgroup_headroom())
    known = [free for free in estimates if free is not None]
    return min(known) if known else None


def _system_available() -> int | None:
    """The memory the operating system reports available to any process (see above)."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        kib = int(fields["MemAvailable"].split()[0]) + int(fields.get("SwapFree", "0 kB").split()[0])
        return kib * 1024
    except (OSError, KeyError, ValueError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):
        return None


def _address_space_headroom() -> int | None:
    """``RLIMIT_AS`` less the address space the process maps now (``/proc/self/statm``);
    ``None`` without a limit (or on systems without ``resource``)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY or limit < 0:
        return None
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            in_use = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        in_use = 0  # unknown: the limit itself bounds what can be had
    return max(0, limit - in_use)


#: where the kernel lists the control groups of this process, and where it mounts them
_PROC_CGROUP = "/proc/self/cgroup"
_CGROUP_MOUNT = "/sys/fs/cgroup"
#: per cgroup version: the file of the memory limit, of the memory in use, and the key of
#: ``memory.stat`` that counts reclaimable file cache
_CGROUP_FILES = {
    2: ("memory.max", "memory.current", "inactive_file"),
    1: ("memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"),
}
#: a v1 limit this large means "no limit" (the kernel reports 2**63 rounded down to a page)
_NO_CGROUP_LIMIT = 2**60


def _cgroup_headroom() -> int | None:
    """The least headroom under the memory limits of this process's control group and its
    ancestors (cgroup v2, or v1's memory controller); ``None`` where no limit is set or
    cgroups cannot be read (not Linux)."""
    heads = [_headroom_in(version, folder) for version, folder in _cgroup_folders()]
    known = [head for head in heads if head is not None]
    return min(known) if known else None


def _cgroup_folders() -> list[tuple[int, str]]:
    """``(version, folder)`` of this process's memory cgroup and each ancestor up to the
    mount's root, from ``/proc/self/cgroup`` (a folder missing under the mount, as in a
    container without its own cgroup namespace, falls back to the mount's root)."""
    try:
        with open(_PROC_CGROUP, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    folders = []
    for line in lines:
        hierarchy, _, rest = line.partition(":")
        controllers, _, path = rest.partition(":")
        if hierarchy == "0" and controllers == "":  # the v2 (unified) hierarchy
            mounts = [(2, _CGROUP_MOUNT), (2, os.path.join(_CGROUP_MOUNT, "unified"))]
        elif "memory" in controllers.split(","):
            mounts = [(1, os.path.join(_CGROUP_MOUNT, "memory"))]
        else:
            continue
        for version, mount in mounts:
            if os.path.isfile(os.path.join(mount, "cgroup.procs")):  # a cgroup file system is mounted
                folders += _ancestors(version, mount, path)
    return folders


def _ancestors(version: int, mount: str, path: str) -> list[tuple[int, str]]:
    """The folder of cgroup ``path`` under ``mount`` and its parents up to ``mount``."""
    folder = os.path.normpath(os.path.join(mount, path.lstrip("/")))
    if not os.path.isdir(folder) or not folder.startswith(mount):
        folder = mount
    chain = [(version, folder)]
    while folder != mount:
        folder = os.path.dirname(folder)
        chain.append((version, folder))
    return chain


def _headroom_in(version: int, folder: str) -> int | None:
    """The limit less the memory in use (less its reclaimable file cache) of one cgroup
    folder; ``None`` where it sets no limit or has no memory files."""
    limit_file, usage_file, cache_key = _CGROUP_FILES[version]
    try:
        with open(os.path.join(folder, limit_file), encoding="ascii") as f:
            text = f.read().strip()
        if text == "max":
            return None
        limit = int(text)
        with open(os.path.join(folder, usage_file), encoding="ascii") as f:
            usage = int(f.read().strip())
    except (OSError, ValueError):
        return None
    if limit >= _NO_CGROUP_LIMIT:
        return None
    return max(0, limit - usage + _reclaimable_cache(folder, cache_key))


def _reclaimable_cache(folder: str, key: str) -> int:
    """The group's inactive file cache (``memory.stat``), which the kernel reclaims before
    it refuses memory; 0 where it cannot be read."""
    try:
        with open(os.path.join(folder, "memory.stat"), encoding="ascii") as f:
            for line in f:
                name, _, value = line.partition(" ")
                if name == key:
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0


def check_has_data(x: Any, name: str = "the array") -> None:
    """``ValueError`` for an array that holds no values, only a shape and a dtype: a torch
    tensor on the ``meta`` device (reading it would fail deep inside torch)."""
    if getattr(x, "is_meta", False) is True:
        raise ValueError(
            f"{name} is a torch tensor on the 'meta' device, which holds no data (only a shape "
            f"{tuple(x.shape)} and a dtype); give a tensor with values (on 'cpu' or a GPU)"
        )


def dtype_name(dtype: Any) -> str:
    """The canonical name (``"float32"``, ``"complex64"``, ...) of any framework's dtype."""
    name = dtype if isinstance(dtype, str) else str(dtype).removeprefix("torch.")
    if name not in DTYPE_KINDS and not isinstance(dtype, str):
        try:  # NumPy and JAX dtypes and scalar types
            name = np.dtype(dtype).name
        except TypeError:
            pass
    if name not in DTYPE_KINDS:
        raise TypeError(f"unknown dtype {dtype!r}; expected one of {', '.join(sorted(DTYPE_KINDS))}")
    return name


class Backend(ABC):
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
    #: whether a gather over a codebook beats a dense matrix product (measured: NumPy on
    #: the CPU yes; torch and JAX no, and a GPU prefers the product)
    gather_beats_matmul: bool = False
    #: whether :meth:`hamming_matrix` on bit-packed vectors beats a float matrix product
    #: of the unpacked +-1 vectors (measured at D=10,000: NumPy's popcount 3x, torch's
    #: int8 product 1.7x faster; JAX's eager popcount is slower)
    fast_packed_hamming: bool = False
    #: whether :meth:`hamming_top_k` on packed bits beats the dense search of binary and
    #: bipolar codes (the fused host kernels: NumPy, and torch and JAX arrays on the CPU)
    fast_hamming_search: bool = False
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

    @abstractmethod
    def complex(self, real: Any, imag: Any) -> Any:
        """The complex array ``real + 1j * imag`` (the array API has no constructor)."""

    def unit_phasor(self, phases: Any) -> Any:
        """``exp(1j * phases)`` for real phases."""
        return self.complex(self.xp.cos(phases), self.xp.sin(phases))

    def vecdot(self, x1: Any, x2: Any) -> Any:
        """``sum(conj(x1) * x2)`` over the last axis, broadcasting over the others, in the
        full precision of the dtype (as :meth:`matmul`)."""
        return self.xp.vecdot(x1, x2, axis=-1)

    def matmul(self, x1: Any, x2: Any) -> Any:
        """``x1 @ x2`` in the full precision of the dtype, whatever the framework's global
        setting (JAX and torch may multiply float32 in TF32 or bfloat16 on a GPU, torch in
        bfloat16 on CPUs that have it): every product holovec makes goes through here (or
        :meth:`vecdot`), so that answers are the same on every device.

        JAX states ``precision=HIGHEST`` in each product (``jax.default_matmul_precision``
        does not apply); torch switches its float32 matmul settings
        (``torch.backends.{cuda,mkldnn}.matmul.fp32_precision``, which
        ``torch.set_float32_matmul_precision`` and ``allow_tf32`` set) to full precision
        for the product where they are lower, and back (see :meth:`full_precision`),
        except inside ``torch.compile``, where the settings cannot change (the compiled
        program follows those in force where it runs). The user's own products keep the
        user's setting."""
        return x1 @ x2

    def full_precision(self) -> contextlib.AbstractContextManager:
        """A scope in which the framework's own routines (``linalg.solve``, ``pinv``,
        ``svd``, which multiply matrices inside) multiply in the full precision of the
        dtype, whatever the global setting: wrap such calls in it (products of arrays go
        through :meth:`matmul` instead). NumPy and Dask always multiply in full precision."""
        return contextlib.nullcontext()

    def divide(self, x: Any, d: float) -> Any:
        """``x / d`` for a number ``d``, correctly rounded elementwise (as IEEE division is):
        compilers may turn a division by a constant into a multiplication by its rounded
        reciprocal, a float step off for some values and not for others, by shape."""
        return x / d

    def clip(self, x: Any, low: float, high: float) -> Any:
        """``x`` clipped elementwise to ``[low, high]`` (NaN stays NaN)."""
        return self.xp.clip(x, low, high)

    def count_nonzero(self, x: Any) -> Any:
        """Number of nonzero elements along the last axis."""
        return self.xp.count_nonzero(x, axis=-1)

    def real_view(self, x: Any) -> Any:
        """A complex array ``(..., n)`` as a real one ``(..., 2n)`` (re and im of each element),
        without a copy where the framework allows."""
        xp = self.xp
        return xp.concat([xp.real(x), xp.imag(x)], axis=-1)

    def complex_view(self, x: Any) -> Any:
        """The inverse of :meth:`real_view`: a real ``(..., 2n)`` array in its layout (for
        example a matrix product of real views) as the complex ``(..., n)`` array."""
        n = x.shape[-1] // 2
        return self.complex(x[..., :n], x[..., n:])

    @abstractmethod
    def fft(self, x: Any) -> Any:
        """Discrete Fourier transform over the last axis."""

    @abstractmethod
    def ifft(self, x: Any) -> Any:
        """Inverse discrete Fourier transform over the last axis."""

    def rfft(self, x: Any) -> Any:
        """Fourier transform of a real array over the last axis (length ``n``): the
        ``n // 2 + 1`` non-negative frequency terms. Backends override this with their
        native real FFT; this default slices the full complex one."""
        n = x.shape[-1]
        return self.fft(self.complex(x, self.xp.zeros_like(x)))[..., : n // 2 + 1]

    def irfft(self, x: Any, n: int) -> Any:
        """Inverse of :meth:`rfft`: the real array of last axis ``n`` whose spectrum's
        non-negative half is ``x`` (the imaginary parts of the zero and, for even ``n``,
        the Nyquist term are ignored). This default rebuilds the full spectrum."""
        xp = self.xp
        tail = xp.conj(xp.flip(x[..., 1 : n - n // 2], axis=-1))
        return xp.real(self.ifft(xp.concat([x[..., : n // 2 + 1], tail], axis=-1)))

    # -- shared behaviour ---------------------------------------------------------------
    @property
    def device_name(self) -> str:
        return str(self.device)

    @property
    def is_cpu(self) -> bool:
        return self.device_name.startswith("cpu")

    @property
    def plain_array_type(self) -> type:
        """The exact class of the framework's ordinary concrete arrays. The models' fast
        checks compare ``type(x) is plain_array_type``; anything else (subclasses, tracers)
        takes the full check."""
        return self.array_type

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

    def mul_lohi_32(self, x: Any, m: int) -> tuple[Any, Any]:
        """``x * m`` as (low, high) 32-bit words, for 32-bit words ``x`` and a constant ``m``.

        Written with 16-bit halves so that no intermediate exceeds 32 bits: it
        runs on any integer dtype of at least 32 bits, with or without wrap-around.
        """
        m_lo, m_hi = m & 0xFFFF, m >> 16
        x_lo, x_hi = x & 0xFFFF, x >> 16
        ll, lh = x_lo * m_lo, x_lo * m_hi
        hl, hh = x_hi * m_lo, x_hi * m_hi
        mid = (ll >> 16) + (lh & 0xFFFF) + (hl & 0xFFFF)
        hi = hh + (lh >> 16) + (hl >> 16) + (mid >> 16)
        lo = (ll & 0xFFFF) | self.mask32(mid << 16)
        return lo, hi

    def mask32(self, x: Any) -> Any:
        """Keep the low 32 bits (a no-op where words are uint32 and wrap by themselves)."""
        if self.word_dtype_name == "uint32":
            return x
        return x & 0xFFFFFFFF

    def philox_words(self, key: int, counter_start: tuple[int, Any, int], n_blocks: int) -> Any | None:
        """Philox-4x64-10 words from a fast native generator, or ``None`` for the generic path.

        The hook through which :mod:`holovec.random` takes words from a native generator
        (it never imports a backend's module). ``counter_start = (c0, c1, c2)``: block
        ``g`` is Philox of the counter ``(c0 + g + 1, c1, c2, 0)`` under the 128-bit
        ``key``, and the result is its ``8 * n_blocks`` 32-bit words (4 uint64 words per
        block, little-endian), in :attr:`word_dtype` on this backend's device. The stream
        ``c1`` may also be a 1-D NumPy uint64 array: then the result has one row per
        stream, shape ``(len(c1), 8 * n_blocks)``.

        Backends whose device is the host CPU return NumPy's C implementation
        (bit-identical to the generic path; the tests check it).
        """
        return None

    def unpack_bits(self, words: Any, n_bits: int) -> Any:
        """Bits of 32-bit words, least significant first, as uint8 0/1 of last axis ``n_bits``."""
        # through bytes: 8-way uint8 temporaries instead of 32-way word-sized ones
        return self.unpack_bytes(self.words_to_bytes(words), n_bits)

    def finish_before_exit(self, result: Any) -> Any:
        """``result`` of a dispatched compiled draw. Where such a program calls back into
        Python and may still be queued when the script ends (JAX on the CPU), the process
        waits for it at exit (a callback starting during finalisation aborts the
        interpreter); elsewhere ``result`` as it is."""
        return result

    def philox_words_of(
        self, seed: Any, stream: Any, purpose: Any, block_start: int, n_blocks: int
    ) -> Any | None:
        """Philox words of an address given as word arrays (:class:`holovec.random.Words`,
        traced inside a compiled draw) from a native generator, or ``None`` where the
        backend has none for such addresses (the default): the words are then computed
        with the backend's arrays."""
        return None

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

    #: whether :meth:`host_views` may lend NumPy views (torch)
    lends_host_views: bool = False

    def host_views(self, *arrays: Any) -> tuple[np.ndarray, ...] | None:
        """Zero-copy NumPy views of ``arrays`` where an op on them is faster done by NumPy
        on the host than by this framework (torch on the CPU: see ``TorchBackend``), so that
        models run such ops on their NumPy twin (the same numbers as the NumPy backend, bit
        for bit); ``None`` where the framework computes them itself (this default)."""
        return None

    def float64_scope(self) -> contextlib.AbstractContextManager:
        """A context in which this backend computes in float64 (JAX: 64-bit mode for the
        arrays made inside; nothing to do elsewhere). The canonical scores of
        :mod:`holovec._fixed_order` are computed in it."""
        return contextlib.nullcontext()

    def small_products(self, flops: float) -> contextlib.AbstractContextManager:
        """A context for a loop of matrix products of about ``flops`` operations each (a
        resonator's iterations, a learner's minibatches): where such products are too small
        to gain from several BLAS threads, the backend runs them on one, so that threads do
        not spin against each other, and against other processes, between products. A no-op
        by default (frameworks that schedule their own threads)."""
        return contextlib.nullcontext()

    def fence(self, x: Any) -> Any:
        """``x`` itself, computed before whatever uses it: a compiler may not fuse its
        producer into its consumers (a product and a sum into one fused multiply-add, which
        rounds once instead of twice). Identity where ops run one by one (this default)."""
        return x

    def take_rows(self, x: Any, rows: Any) -> Any:
        """Rows ``rows`` (a 1-d NumPy int array) of ``x``, concrete and in one place: the
        rows of a partitioned array (Dask, sharded JAX) are gathered here."""
        return self.xp.take(x, self.asarray(rows), axis=0)

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

    def register_static(self, cls: type) -> None:  # noqa: B027 - a no-op unless overridden
        """Let instances of ``cls`` pass through the framework's tracing as static values
        (e.g. a model given as an argument to ``jax.jit``). A no-op by default."""

    def hamming_matrix(self, queries: Any, items: Any, n_bits: int) -> Any:
        """Hamming distances ``(n_q, n_i)`` (int32) between bit-packed uint8 vectors
        ``(n_q, n_bytes)`` and ``(n_i, n_bytes)`` whose first ``n_bits`` bits count."""
        n_bytes = queries.shape[-1]
        if 8 * n_bytes == n_bits:
            return self.count_bits(queries[:, None, :] ^ items[None, :, :])
        # bits past n_bits do not count: with the queries' padding cleared, the padding bits
        # of the XOR are the items' own, counted once per item and taken off
        mask = self.padding_mask(n_bytes, n_bits)
        padding = self.count_bits(items[:, n_bits // 8 :] & ~mask[n_bits // 8 :])
        return self.count_bits((queries & mask)[:, None, :] ^ items[None, :, :]) - padding[None, :]

    def hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        """The ``min(k, n_i)`` nearest items of each query by Hamming distance: ``(distances,
        indices)``, int32 arrays and the index arrays of :meth:`top_k` (int64; JAX: int32
        unless 64-bit mode is on), ``(n_q, min(k, n_i))``, nearest first, equal
        distances lowest index first (as a stable sort of the whole distance matrix).

        ``queries`` ``(n_q, n_bytes)`` and ``items`` ``(n_i, n_bytes)`` are bit-packed uint8
        arrays of this backend (:meth:`pack_bits`) whose bits past ``n_bits`` are zero on both
        sides, ``n_bytes`` at most the whole 64-bit words that ``n_bits`` bits take. ``k`` is
        a positive int (more than ``n_i``: all items), as the top-k of
        :mod:`holovec.retrieval` takes it. The search hook of :mod:`holovec.retrieval` for
        binary and bipolar codes.

        The arguments are checked here (shapes, dtypes and ``k``: no values read), once for
        every backend; the search itself is the backend's kernel, :meth:`_hamming_top_k`.

        Raises
        ------
        TypeError
            ``queries`` or ``items`` not uint8 arrays of this backend; ``n_bits`` or ``k``
            not an int (a bool, a float or a string is refused, not truncated).
        ValueError
            Arrays not 2-d, of different widths, or no items; ``n_bits`` that the width
            cannot hold or that leaves a whole 64-bit word of padding; ``k < 1``.
        """
        k = self._checked_hamming_arguments(queries, items, n_bits, k)
        return self._hamming_top_k(queries, items, int(n_bits), k)

    def _checked_hamming_arguments(self, queries: Any, items: Any, n_bits: Any, k: Any) -> int:
        """``min(k, n_i)`` for valid arguments of :meth:`hamming_top_k`, else a clear error."""
        uint8 = self.dtype("uint8")
        for name, x in (("queries", queries), ("items", items)):
            if not self.is_array(x):
                raise TypeError(
                    f"hamming_top_k: {name} must be a {self.array_type_name} of backend {self.name!r}, "
                    f"got {type(x).__module__}.{type(x).__name__}"
                )
            if x.dtype != uint8:
                raise TypeError(f"hamming_top_k: {name} must be bit-packed uint8, got dtype {x.dtype}")
            if x.ndim != 2:
                raise ValueError(
                    f"hamming_top_k: {name} must be 2-d (rows of packed bytes), got shape {tuple(x.shape)}"
                )
        n_bytes = int(queries.shape[1])
        if int(items.shape[1]) != n_bytes:
            raise ValueError(
                f"hamming_top_k: queries and items must have the same width, got {n_bytes} bytes per "
                f"query and {int(items.shape[1])} per item"
            )
        n_bits = check_int(n_bits, "hamming_top_k: n_bits", 1)
        words = -(-n_bits // 64)
        if not -(-n_bits // 8) <= n_bytes <= 8 * words:
            raise ValueError(
                f"hamming_top_k: {n_bits} bits are packed in {-(-n_bits // 8)} to {8 * words} bytes "
                f"(whole 64-bit words at most), got rows of {n_bytes} bytes"
            )
        k = check_int(k, "hamming_top_k: k", 1)
        n = int(items.shape[0])
        if n == 0:
            raise ValueError("hamming_top_k: cannot search an empty set of items")
        return min(k, n)

    def _hamming_top_k(self, queries: Any, items: Any, n_bits: int, k: int) -> tuple[Any, Any]:
        """The kernel of :meth:`hamming_top_k` for checked arguments (``1 <= k <= n_i``). This
        default scores chunks of items with :meth:`hamming_matrix` and merges a running
        :meth:`top_k`; backends on the host override it with a fused XOR/popcount kernel
        (no score matrix)."""
        xp = self.xp
        n = items.shape[0]
        per_item = max(
            1, 4 * queries.shape[0] + self.hamming_temp_bytes(queries.shape[0], items.shape[1], n_bits)
        )
        chunk = max(k, (32 * 2**20) // per_item)
        best_d = best_i = None
        for start in range(0, n, chunk):
            dist = self.hamming_matrix(queries, items[start : start + chunk], n_bits)
            s, i = self.top_k(-xp.astype(dist, self.dtype("int32")), k)
            i = i + start
            if best_d is not None:
                # earlier chunks first: equal distances keep the lowest index first
                s_all = xp.concat([best_d, s], axis=-1)
                i_all = xp.concat([best_i, i], axis=-1)
                s, pos = self.top_k(s_all, k)
                i = xp.take_along_axis(i_all, pos, axis=-1)
            best_d, best_i = s, i
        return -best_d, best_i

    def padding_mask(self, n_bytes: int, n_bits: int) -> Any:
        """uint8 bytes ``(n_bytes,)`` with the first ``n_bits`` bits set (least significant
        bit first) and the others clear."""
        valid = np.clip(n_bits - 8 * np.arange(n_bytes), 0, 8)
        return self.from_numpy(((1 << valid) - 1).astype(np.uint8))

    def hamming_temp_bytes(self, n_queries: int, n_bytes: int, n_bits: int) -> int:
        """Temporary bytes :meth:`hamming_matrix` needs per item (for chunking)."""
        return n_queries * n_bytes

    def row_blocked_matmul(self, left: Any, right: Any, block: int) -> Any:
        """``left @ right`` (``(n, k) @ (k, m) -> (n, m)``) as products of exactly ``block``
        rows of ``left`` each: the rows ``[0, block)``, ``[block, 2 block)``, ..., the last
        block overlapping the one before it, or zero-padded where ``n < block``.

        Matrix libraries choose kernels, threads and summation orders by the shapes of a
        product, so a row's rounded result can change with the number of rows it comes
        with (or its position among them). With every product of one shape, a row's result
        depends on the row alone: equal rows give equal results, and splitting the rows
        into chunks (of any size) changes nothing."""
        xp = self.xp
        n = left.shape[0]
        if n <= block:
            if n < block:
                pad = xp.zeros((block - n, left.shape[1]), dtype=left.dtype, device=self.device)
                left = xp.concat([left, pad], axis=0)
            return self.matmul(left, right)[:n]
        starts = list(range(0, n - block + 1, block))
        tail = n - (starts[-1] + block)
        parts = [self.matmul(left[s : s + block], right) for s in starts]
        if tail:
            parts.append(self.matmul(left[n - block :], right)[block - tail :])
        return xp.concat(parts, axis=0)

    def row_squared_norms(self, x: Any, block: int) -> Any:
        """Squared Euclidean norms ``sum(|x|**2)`` of the rows of a 2-d array (real results),
        each independent of the other rows (see :meth:`row_blocked_matmul`; compiled
        backends reduce in blocks of ``block`` rows)."""
        return self.xp.real(self.vecdot(x, x))

    def map_item_chunks(
        self, fn: Callable, queries: tuple, items: tuple, chunk: int, parallel: bool, cache: dict
    ) -> Any:
        """``fn(queries, items)`` (scores ``(n_q, n)`` of queries against items, both tuples of
        arrays whose first axis counts them) computed for chunks of ``chunk`` items at a time,
        joined on the last axis: memory bounded by the chunk, time linear in the items.
        ``parallel``: chunks may run in threads (kernels that use one core). ``cache``: where
        compiled backends keep the compiled loop (the model's kernel cache)."""
        starts = range(0, items[0].shape[0], chunk)

        def one(start: int) -> Any:
            return fn(queries, tuple(a[start : start + chunk] for a in items))

        parts = self.map_chunks(one, starts) if parallel else [one(s) for s in starts]
        return self.xp.concat(parts, axis=-1)

    def map_chunks(self, fn: Callable, chunks: Any) -> list:
        """``[fn(c) for c in chunks]``; backends may run single-threaded kernels in parallel."""
        return [fn(c) for c in chunks]

    def map_row_blocks(self, fn: Callable, x: Any, rows: int, width: int, dtype: Any) -> Any:
        """``fn(x)`` for a row-wise function ``fn`` whose result has shape ``(len(x), width)``
        and ``dtype``. Backends whose kernels run on one core (NumPy) apply it to blocks of
        ``rows`` rows, whose temporaries stay in cache, on every core, written into one
        output; the others call it once (their compilers fuse the temporaries)."""
        return fn(x)

    def words_to_bytes(self, words: Any) -> Any:
        """32-bit words as uint8 bytes, little-endian: last axis ``n`` -> ``4 * n``."""
        xp = self.xp
        shifts = xp.asarray([0, 8, 16, 24], dtype=words.dtype, device=self.device)
        as_bytes = xp.astype((words[..., None] >> shifts) & 0xFF, self.dtype("uint8"))
        return xp.reshape(as_bytes, (*words.shape[:-1], 4 * words.shape[-1]))

    def pack_bits(self, bits: Any, n_bytes: int) -> Any:
        """uint8 0/1 bits (last axis; any nonzero value counts as 1) as bytes, least significant
        bit first, zero-padded to ``n_bytes``."""
        xp = self.xp
        pad = 8 * n_bytes - bits.shape[-1]
        if pad:
            zeros = xp.zeros((*bits.shape[:-1], pad), dtype=bits.dtype, device=self.device)
            bits = xp.concat([bits, zeros], axis=-1)
        grouped = xp.reshape(bits, (*bits.shape[:-1], n_bytes, 8))
        weights = xp.asarray([1, 2, 4, 8, 16, 32, 64, 128], dtype=bits.dtype, device=self.device)
        # nonzero counts as 1 (as NumPy's packbits has it), so that every backend packs alike
        return xp.sum(xp.where(grouped != 0, weights, 0), axis=-1, dtype=self.dtype("uint8"))

    def unpack_bytes(self, x: Any, n_bits: int) -> Any:
        """Bytes as uint8 0/1 bits, least significant first; the last axis keeps ``n_bits``."""
        xp = self.xp
        shifts = xp.arange(8, dtype=x.dtype, device=self.device)
        bits = (x[..., None] >> shifts) & 1
        return xp.reshape(bits, (*x.shape[:-1], 8 * x.shape[-1]))[..., :n_bits]

    def is_traced(self, x: Any) -> bool:
        """Whether ``x`` is a placeholder of a trace (``jax.jit``, ``vmap``, ``torch.func``)
        whose values cannot be read: models then take their branch-free paths instead of
        choosing a fast path by looking at the data. False by default."""
        return False

    def jit(self, fn: Callable) -> Callable:
        """Compile ``fn`` where the framework can (identity by default)."""
        return fn

    def popcount(self, x: Any) -> Any:
        """Number of set bits in each element of an unsigned integer array."""
        raise TypeError(f"backend {self.name!r} has no popcount")

    def count_bits(self, x: Any) -> Any:
        """Total set bits along the last axis of a uint8 array, as int32.

        Backends read the bytes as the widest words they can (8 bytes where the
        last axis allows) so that one popcount covers 64 bits.
        """
        return self.xp.sum(self.popcount(x), axis=-1, dtype=self.dtype("int32"))

    def top_k(self, scores: Any, k: int) -> tuple[Any, Any]:
        """The ``k`` largest scores along the last axis and their indices, best first;
        equal scores in order of index (lowest first), so results are deterministic.

        This default sorts (a stable ``argsort``); backends override it with a partial
        selection (``argpartition``, ``topk``) that keeps the same order.
        """
        xp = self.xp
        k = min(int(k), scores.shape[-1])
        idx = xp.argsort(scores, axis=-1, descending=True, stable=True)[..., :k]
        return xp.take_along_axis(scores, idx, axis=-1), idx

    def merge_top_k(self, low: tuple[Any, Any], high: tuple[Any, Any], k: int) -> tuple[Any, Any]:
        """The ``k`` best of two candidate lists ``(scores, indices)`` (each best first, along
        the last axis), where every index in ``low`` is below every index in ``high`` (two
        consecutive ranges of items): scores descending, equal scores lowest index first,
        as one :meth:`top_k` over both ranges would give them."""
        xp = self.xp
        scores = xp.concat([low[0], high[0]], axis=-1)
        indices = xp.concat([low[1], xp.astype(high[1], low[1].dtype)], axis=-1)
        best, pos = self.top_k(scores, k)  # stable: low's candidates first among equals
        return best, xp.take_along_axis(indices, pos, axis=-1)

    def generate_rows(self, fn: Callable, n_rows: int, width: int, dtype: Any) -> Any | None:
        """Rows ``0 .. n_rows - 1`` of a draw, ``(n_rows, width)`` of ``dtype``, made chunk by
        chunk where the chunks live, with ``fn(start, stop)`` giving rows ``start:stop`` as an
        array of :attr:`block_backend_name` (a picklable callable of the caller); or ``None``
        where the backend makes its arrays in one place (this default: the caller draws
        them itself). The hook of :meth:`holovec.models.base.VSAModel.random` for lazily
        partitioned arrays (Dask): nothing is made where the call is made."""
        return None

    def chunk_rows(self, x: Any, row_bytes: int) -> Any:
        """``x`` with its rows (axis 0) grouped so that a result of ``row_bytes`` bytes per
        row stays within one chunk's budget, on backends that partition arrays into chunks
        (Dask: an encoder's inputs, a few bytes per row, would otherwise come in chunks of
        millions of rows, each encoded at once); ``x`` itself on the others (this default)."""
        return x

    def cond(self, pred: Any, shortcut: Callable[[], Any], general: Callable[[], Any]) -> Any:
        """``shortcut()`` where the 0-d boolean ``pred`` holds, else ``general()``: for a
        ``general`` that is always right and a ``shortcut`` that gives the same where ``pred``
        holds, only faster. ``pred`` is read where it can be; where it cannot (a trace, a lazy
        graph) this default takes ``general``, and JAX branches inside its compiled program
        (``jax.lax.cond``: one branch runs)."""
        if self.lazy or self.is_traced(pred):
            return general()
        return shortcut() if bool(pred) else general()

    def in_one_place(self, x: Any) -> Any:
        """``x`` as one array on this backend's device, where the framework can hold an array
        on several devices (JAX): an array replicated over several devices becomes its copy
        on this one (no transfer), one split over several is gathered here. ``x`` itself
        where it is in one place (this default). Retrieval takes replicated codebooks and
        queries this way, and brings results computed over several devices here."""
        return x

    def replicated_like(self, x: Any, like: Any) -> Any:
        """``x`` replicated over the devices that ``like`` is split over (JAX: queries made
        to meet a codebook sharded by rows, so that one computation spans both), or ``x``
        itself where ``like`` is in one place (this default)."""
        return x

    def is_partitioned(self, x: Any) -> bool:
        """Whether ``x`` is split by rows over workers or devices, so that a search of it is
        the backend's :meth:`partitioned_search` (Dask arrays, JAX arrays sharded by rows);
        False for an array in one place (this default)."""
        return False

    def partitioned_search(
        self, search_part: Callable, queries: Any, items: Any, k: int
    ) -> tuple[Any, Any] | None:
        """The search hook of :func:`holovec.retrieval.search` for items spread over
        workers or devices (:meth:`is_partitioned`): ``(scores, indices)`` of the ``k``
        best items of each query, or ``None`` where ``items`` is one array in one place
        (this default; the caller then searches it itself).

        A backend whose arrays can be partitioned by rows searches each part where it
        lives with ``search_part(queries, part, k, first_row) -> (scores, indices)`` (the
        caller's search of one array, with the model of the part's arrays; indices counted
        within the part; ``first_row`` numbers the rows an error names), shifts the
        indices by the part's first row, and keeps the ``k`` best candidates with equal
        scores ordered by lowest index (Dask: :meth:`merge_top_k` of neighbouring chunks
        in a tree, ``search_part`` pickled to the workers; JAX: ``search_part`` traced once
        and run on every device in ``shard_map``, then one stable top-k over the devices'
        candidates in device order). The result equals one search of the whole array,
        ties included, however the rows are split."""
        return None

    def _top_k_from_kth(self, scores: Any, k: int, kth: Any) -> tuple[Any, Any]:
        """Top-k given the k-th largest score of each row (``kth``, shape ``(..., 1)``):
        every score above it, then the lowest-index scores equal to it, sorted stably."""
        xp = self.xp
        above = scores > kth
        equal = scores == kth
        need = k - xp.sum(xp.astype(above, self.dtype("int32")), axis=-1, keepdims=True)
        take = above | (equal & (xp.cumulative_sum(xp.astype(equal, self.dtype("int32")), axis=-1) <= need))
        rows = scores.shape[:-1]
        cols = xp.nonzero(xp.reshape(take, (-1, scores.shape[-1])))[1]
        idx = xp.reshape(cols, (*rows, k))
        values = xp.take_along_axis(scores, idx, axis=-1)
        order = xp.argsort(values, axis=-1, descending=True, stable=True)
        return xp.take_along_axis(values, order, axis=-1), xp.take_along_axis(idx, order, axis=-1)

    def synchronize(self) -> None:  # noqa: B027 - a no-op unless overridden
        """Wait for queued device work (for timing)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(device={self.device_name!r})"

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Backend) and other.name == self.name and other.device_name == self.device_name
        )

    def __hash__(self) -> int:
        return hash((self.name, self.device_name))
