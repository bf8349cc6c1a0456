"""Hand-written vectorised baselines: what a competent user writes without a VSA library.

Each backend module holds one small class per model with the methods ``random(n, seed)``,
``bind(a, b)``, ``bundle(vectors)``, ``similarity_matrix(queries, items)`` and
``similarity(a, b)``, on the same dtypes as holovec's vectors (FHRR complex64, MAP
float32, BSC uint8 0/1). They take the arrays holovec made, so both sides compute
the same operation on the same data.

Optional: ``adopt(x, name)`` converts holovec's input ``name`` once, before timing (the
packed BSC baseline unpacks the similarity row's ``Q`` and ``items`` to +1/-1 float32, to
time the float matrix-product search of the same codebook); ``extras`` maps an operation
key to further hand-written versions ``(key, label, method name)``, timed on holovec's
own inputs and printed under the table (packed BSC's Hamming search).
"""

from __future__ import annotations

import importlib
from typing import Any

_MODULES = {"numpy": "numpy_baselines", "torch": "torch_baselines", "jax": "jax_baselines"}


def get_baseline(backend: str, model: str, dim: int, device: Any = None) -> Any | None:
    """The baseline of ``model`` (e.g. ``"FHRR"``) on ``backend``, or None where there is none."""
    module = importlib.import_module(f"{__name__}.{_MODULES[backend]}")
    cls = module.BASELINES.get(model.upper())
    return None if cls is None else cls(dim, device)
