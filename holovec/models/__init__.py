"""The VSA models, one module per algebra; each registers itself by name."""

from .base import VSAModel
from .bsc import BSC
from .bsc_packed import PackedBSC
from .fhrr import FHRR
from .map import MAP
from .registry import model_class, model_names, register_model

__all__ = ["BSC", "PackedBSC", "FHRR", "MAP", "VSAModel", "model_class", "model_names", "register_model"]
