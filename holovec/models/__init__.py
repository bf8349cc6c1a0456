"""The VSA models, one module per algebra; each registers itself by name."""

from .base import AllocationError, VSAModel
from .bsc import BSC
from .bsc_packed import PackedBSC
from .bsdc import BSDC
from .bsdc_seg import BSDCSEG
from .cgr import CGR
from .fhrr import FHRR
from .ghrr import GHRR
from .gsbc import GSBC
from .hrr import HRR
from .map import MAP
from .map_variants import MAPC, MAPI
from .mcr import MCR
from .registry import (
    build_model,
    model_class,
    model_names,
    register_model,
    register_variant,
    unregister_model,
)
from .vtb import VTB

__all__ = [
    "BSC",
    "BSDC",
    "BSDCSEG",
    "CGR",
    "FHRR",
    "GHRR",
    "GSBC",
    "HRR",
    "MAP",
    "MAPC",
    "MAPI",
    "MCR",
    "VTB",
    "AllocationError",
    "PackedBSC",
    "VSAModel",
    "build_model",
    "model_class",
    "model_names",
    "register_model",
    "register_variant",
    "unregister_model",
]
