"""torch's float32 products in full precision, whatever the user's global setting.

torch multiplies float32 matrices in TF32 on NVIDIA GPUs (and ROCm ones) once a user sets
``torch.backends.cuda.matmul.allow_tf32 = True`` or
``torch.set_float32_matmul_precision("high")``, and in bfloat16 on CPUs with bfloat16
instructions after ``set_float32_matmul_precision("medium")``: a float32 product then
carries errors of 1e-4 to 1e-3 where float32 has 1e-7, and scores, top-k and learned
models would change with a setting made for another purpose. holovec's products switch
the settings to full precision while they run (:data:`FULL_FLOAT32_PRODUCTS`), and back:
the user's own products keep the user's setting. Where every setting is full precision
already (torch's default), a product only reads them.

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


def reduced_settings() -> list[tuple[str, str]]:
    """``(setting, value)`` of each float32 matmul setting below full precision now."""
    if not _PER_BACKEND:
        value = torch.get_float32_matmul_precision()
        return [] if value == "highest" else [(_LEGACY, value)]
    settings = [(name, _read(name)) for name in _MATMUL_SETTINGS]
    return [(name, value) for name, value in settings if value not in _FULL_VALUES]


#: the per-backend settings that ``set_float32_matmul_precision(value)`` makes
_LEGACY_FIELDS = {"highest": ("ieee", "ieee"), "high": ("tf32", "tf32"), "medium": ("tf32", "bf16")}


def _legacy_value() -> str | None:
    """The value of ``set_float32_matmul_precision`` where it made the per-backend settings
    in force now; ``None`` where they were made otherwise (or torch refuses to answer:
    settings made with both APIs)."""
    try:
        value = torch.get_float32_matmul_precision()
    except RuntimeError:
        return None
    fields = tuple(_read(name) for name in _MATMUL_SETTINGS)
    return value if _LEGACY_FIELDS.get(value) == fields else None


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


class FullFloat32Products:
    """A scope in which torch multiplies float32 in full precision: the settings below
    full precision are switched to it when the first scope opens (in any thread: the
    settings are global) and restored when the last one closes. Reentrant and thread-safe.

    Use ``if scope.needed(): with scope: ...``: :meth:`needed` is the cheap test (two
    reads) that keeps the common case, every setting full already, free of the rest."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._open = 0
        self._saved: list[tuple[str, str]] = []
        self._legacy: str | None = None
        self._fields: list[tuple[str, str]] = []

    def needed(self) -> bool:
        """Whether a product must open the scope: a setting is below full precision, or
        another thread holds the scope open (and will lower it again when it closes). Not
        inside ``torch.compile``: a compiled region can neither read nor set the settings
        (the compiled program follows those in force where it runs)."""
        if torch.compiler.is_compiling():
            return False
        with self._lock:  # a consistent view of the settings and the open scopes
            return self._open > 0 or bool(reduced_settings())

    def __enter__(self) -> None:
        with self._lock:
            if self._open == 0:
                self._saved = reduced_settings()
                # a precision set with set_float32_matmul_precision is raised the same way,
                # so that torch's legacy and per-backend settings stay consistent (torch
                # refuses to read allow_tf32 where they disagree)
                self._legacy = _legacy_value() if _PER_BACKEND else None
                self._fields = [(name, _read(name)) for name in _MATMUL_SETTINGS] if _PER_BACKEND else []
                if self._legacy not in (None, "highest"):
                    torch.set_float32_matmul_precision("highest")
                for name, _ in reduced_settings():  # those set with the per-backend API
                    _set(name, "highest" if name == _LEGACY else "ieee")
            self._open += 1

    def __exit__(self, *exc: Any) -> None:
        with self._lock:
            self._open -= 1
            if self._open == 0:
                if self._legacy not in (None, "highest"):
                    torch.set_float32_matmul_precision(self._legacy)
                    # which sets every per-backend setting by it: those the user set apart
                    for name, value in self._fields:
                        if _read(name) != value:
                            _restore(name, value)
                else:
                    for name, value in self._saved:
                        _restore(name, value)
                self._saved, self._legacy, self._fields = [], None, []


#: the scope of holovec's products (one for the process: the settings are global)
FULL_FLOAT32_PRODUCTS = FullFloat32Products()
