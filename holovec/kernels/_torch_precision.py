"""torch's float32 products in full precision, whatever the user's global setting.

torch multiplies float32 matrices in TF32 on NVIDIA GPUs (and ROCm ones) once a user sets
``torch.backends.cuda.matmul.allow_tf32 = True`` or
``torch.set_float32_matmul_precision("high")``, and in bfloat16 on CPUs with bfloat16
instructions after ``set_float32_matmul_precision("medium")``: a float32 product then
carries errors of 1e-4 to 1e-3 where float32 has 1e-7, and scores, top-k and learned
models would change with a setting made for another purpose. holovec's products switch
the setting of their device to full precision while they run (:func:`products_on`), and
back: the user's own products keep the user's setting.

torch has no per-thread or per-product float32 setting (its settings are process-wide,
and a CPU product under a lowered oneDNN setting has no other full-precision route), so
this is what holds, with any number of threads:

1. Every holovec product starts with its device's setting at full precision, also while
   other threads run holovec products: the scopes share one count, and the settings go
   back when the last open product closes. (A lowering that another thread writes while
   a product already runs reaches that product: torch reads its settings at each op.)
2. Only the setting of the product's device is changed, only where it is below full
   precision: oneDNN's (``mkldnn``) for CPU tensors, cuBLAS's (``cuda``) for CUDA ones.
   torch's default, or a setting lowered for the other device only (TF32 for a GPU while
   holovec works on the CPU), is only read. Two exceptions: where torch's legacy setting
   (``set_float32_matmul_precision``, which ``allow_tf32`` sets too) is below
   ``"highest"``, a cuBLAS raise goes through it, which raises oneDNN's setting as well
   (torch refuses to read its TF32 state where the two kinds disagree); and before torch
   2.9 one setting serves every device.
3. While a holovec product runs, other threads read that setting at full precision, and
   their own products on that device run in full precision (more precise, never less).
4. When the last product closes, a setting goes back to the user's value only if it still
   reads what holovec wrote: a change another thread made meanwhile stands. holovec
   writes ``"none"`` (inherit) where that reads full precision, so a user's own switch to
   full precision (``"ieee"``: ``allow_tf32 = False``, ``"highest"``) is told apart from
   holovec's. What no reading can tell apart: a write of exactly holovec's value, and a
   write that lands between holovec's check and its restore (torch has no atomic
   exchange of a setting); such a write is put back to the user's earlier value.
5. A setting lowered while products are open is raised again by the next product that
   opens, and the lowered value is the one put back at the end.

Inside ``torch.compile`` nothing is read or set (the compiled program follows the
settings in force where it runs).

Since torch 2.9 the settings are ``torch.backends.cuda.matmul.fp32_precision`` (cuBLAS)
and ``torch.backends.mkldnn.matmul.fp32_precision`` (oneDNN, CPUs), which
``allow_tf32`` and ``set_float32_matmul_precision`` set; each reads as its own value or,
where it is ``"none"``, its parent's (``torch.backends.fp32_precision``); ``"ieee"`` and
``"none"`` (all unset) are full precision. Before torch 2.9 there is one setting,
``torch.get_float32_matmul_precision()``, full at ``"highest"``.
"""

from __future__ import annotations

import threading
from typing import Any

import torch

#: the operation-level float32 settings that decide how a product of two tensors rounds
_MATMUL_SETTINGS = ("cuda", "mkldnn")

#: values of those settings that mean full float32 precision
_FULL_VALUES = ("ieee", "none")

#: the name of the single setting before torch 2.9
_LEGACY = ""

#: whether torch has the settings of torch 2.9 and later (public attributes)
_PER_BACKEND = hasattr(torch.backends.cuda.matmul, "fp32_precision")


def _read(name: str) -> str:
    return getattr(torch.backends, name).matmul.fp32_precision


#: the settings that decide the precision of a product on each kind of device (others:
#: every setting, as torch may route them either way)
_DEVICE_SETTINGS = {"cpu": ("mkldnn",), "cuda": ("cuda",)}


def settings_for(device_type: str | None) -> tuple[str, ...]:
    """The float32 matmul settings that decide how a product on ``device_type`` rounds.

    Parameters
    ----------
    device_type : str or None
        ``torch.device.type`` of the product's tensors (``"cpu"``, ``"cuda"``, ...); None:
        every setting.

    Returns
    -------
    tuple of str
        The settings' names (``"cuda"``, ``"mkldnn"``; ``""`` for the one setting before
        torch 2.9).
    """
    if not _PER_BACKEND:
        return (_LEGACY,)
    return _DEVICE_SETTINGS.get(device_type or "", _MATMUL_SETTINGS)


def reduced_settings(device_type: str | None = None) -> list[tuple[str, str]]:
    """``(setting, value)`` of each float32 matmul setting below full precision now.

    Parameters
    ----------
    device_type : str or None
        Only the settings of products on this kind of device (see :func:`settings_for`);
        None: every setting.

    Returns
    -------
    list of tuple of str
        The settings below full precision and their values.
    """
    return _lowered(settings_for(device_type))


def _lowered(names: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(setting, value)`` of the settings ``names`` below full precision now (before
    torch 2.9: the one setting)."""
    if not _PER_BACKEND:
        value = torch.get_float32_matmul_precision()
        return [] if value == "highest" else [(_LEGACY, value)]
    values = [(name, _read(name)) for name in names]
    return [(name, value) for name, value in values if value not in _FULL_VALUES]


def _set(name: str, value: str) -> None:
    if name == _LEGACY:
        torch.set_float32_matmul_precision(value)
    else:
        getattr(torch.backends, name).matmul.fp32_precision = value


def _restore(name: str, value: str) -> None:
    """Setting ``name`` back to what read as ``value``: inherited ("none") where that reads
    as ``value`` (the value came from ``torch.backends.fp32_precision``, and should follow
    it again), else ``value`` itself."""
    if name != _LEGACY:
        _set(name, "none")
        if _read(name) == value:
            return
    _set(name, value)


def _raise_to_full(name: str) -> str:
    """Setting ``name`` to full precision, as ``"none"`` (inherit) where that reads full
    precision (a value no user's full-precision setting reads: theirs read ``"ieee"``),
    else ``"ieee"``; returns what it reads now."""
    if name == _LEGACY:
        torch.set_float32_matmul_precision("highest")
        return "highest"
    _set(name, "none")
    if _read(name) not in _FULL_VALUES:
        _set(name, "ieee")
    return _read(name)


def _legacy_reads() -> str | None:
    try:
        return torch.get_float32_matmul_precision()
    except RuntimeError:  # settings made with both APIs
        return None


class _SharedSettings:
    """The process's float32 matmul settings as holovec's open products see them: how many
    products are open, and for each setting holovec raised, the user's value and what
    holovec wrote (see the module's guarantees). Every method runs under one lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open = 0
        #: per-backend raises: setting -> (the user's value, what holovec wrote)
        self.raised: dict[str, tuple[str, str]] = {}
        #: a raise made the legacy way: (the user's legacy value, every setting's user
        #: value, what every setting read after holovec's writes)
        self.legacy: tuple[str, dict[str, str], dict[str, str]] | None = None

    def raise_lowered(self, names: tuple[str, ...]) -> None:
        """Raise the settings ``names`` that are below full precision now (also those the
        user lowered since an earlier product raised them: the user's latest value is the
        one kept to put back)."""
        lowered = [name for name, _ in _lowered(names)]
        if not lowered:
            return
        legacy = _legacy_reads() if _PER_BACKEND else None
        if "cuda" in lowered and legacy not in (None, "highest"):
            # a legacy value below "highest" (set_float32_matmul_precision, allow_tf32):
            # raised the same way, for torch refuses to read allow_tf32 where the legacy
            # and the cuBLAS setting disagree
            users = {name: self.user_value(name) for name in _MATMUL_SETTINGS}
            torch.set_float32_matmul_precision("highest")
            written = {name: _raise_to_full(name) for name in _MATMUL_SETTINGS}
            self.raised = {}
            self.legacy = (legacy, users, written)
            return
        for name in lowered:
            user = torch.get_float32_matmul_precision() if name == _LEGACY else _read(name)
            written = _raise_to_full(name)
            if self.legacy is not None and name in self.legacy[1]:
                self.legacy[1][name], self.legacy[2][name] = user, written
            else:
                self.raised[name] = (user, written)

    def user_value(self, name: str) -> str:
        """The user's value of the per-backend setting ``name``: the one kept to put back
        where holovec raised it and it still reads holovec's value, else what it reads."""
        entry = self.raised.get(name)
        if entry is not None and _read(name) == entry[1]:
            return entry[0]
        return _read(name)

    def restore(self) -> None:
        """After the last product: each raised setting back to the user's value where it
        still reads what holovec wrote (a setting changed meanwhile stays as changed)."""
        if self.legacy is not None:
            value, users, written = self.legacy
            untouched = _legacy_reads() == "highest" and all(_read(n) == w for n, w in written.items())
            if untouched:
                torch.set_float32_matmul_precision(value)
                # which sets every per-backend setting by it: those the user set apart
                for name, user in users.items():
                    if _read(name) != user:
                        _restore(name, user)
        for name, (user, written) in self.raised.items():
            reads = torch.get_float32_matmul_precision() if name == _LEGACY else _read(name)
            if reads == written:
                _restore(name, user)
        self.raised, self.legacy = {}, None


class FullFloat32Products:
    """A scope in which torch multiplies float32 in full precision on a kind of device:
    the settings of that device below full precision are raised when a scope opens, and
    put back when the last open scope (of any device, in any thread) closes, unless
    changed meanwhile (see the module's guarantees). Reentrant and thread-safe.

    Use ``if scope.needed(): with scope: ...``: :meth:`needed` is the cheap test (a read
    or two) that keeps the common case, every setting full already, free of the rest.

    Parameters
    ----------
    names : tuple of str
        The settings this scope raises (:func:`settings_for`).
    shared : _SharedSettings
        The process's state, shared by every scope.
    """

    def __init__(self, names: tuple[str, ...], shared: _SharedSettings) -> None:
        self._names = names
        self._shared = shared

    def needed(self) -> bool:
        """Whether a product must open the scope: a setting of its device is below full
        precision, or another product holds a scope open (whose close may put a lowered
        setting back). Not inside ``torch.compile``: a compiled region can neither read
        nor set the settings (the compiled program follows those in force where it runs)."""
        if torch.compiler.is_compiling():
            return False
        shared = self._shared
        with shared.lock:  # a consistent view of the settings and the open scopes
            return shared.open > 0 or bool(_lowered(self._names))

    def __enter__(self) -> None:
        shared = self._shared
        with shared.lock:
            shared.open += 1
            try:
                shared.raise_lowered(self._names)
            except BaseException:
                self._close(shared)
                raise

    def __exit__(self, *exc: Any) -> None:
        shared = self._shared
        with shared.lock:
            self._close(shared)

    @staticmethod
    def _close(shared: _SharedSettings) -> None:
        shared.open -= 1
        if shared.open == 0:
            shared.restore()


#: the state of the process's settings (one: the settings are global)
_SHARED = _SharedSettings()
#: the scope of products on any device: every setting raised where lowered
FULL_FLOAT32_PRODUCTS = FullFloat32Products(_MATMUL_SETTINGS if _PER_BACKEND else (_LEGACY,), _SHARED)
_SCOPES: dict[str, FullFloat32Products] = {}


def products_on(device_type: str) -> FullFloat32Products:
    """The scope of holovec's products on ``device_type`` (``torch.device.type``): only the
    settings of that device are raised (see :func:`settings_for`).

    Parameters
    ----------
    device_type : str
        ``"cpu"``, ``"cuda"``, ...

    Returns
    -------
    FullFloat32Products
        The scope (one per kind of device, sharing the process's state).
    """
    scope = _SCOPES.get(device_type)
    if scope is None:
        scope = _SCOPES.setdefault(device_type, FullFloat32Products(settings_for(device_type), _SHARED))
    return scope
