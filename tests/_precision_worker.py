"""holovec's JAX workload, run in a subprocess that dumps every program JAX lowers.

``python tests/_precision_worker.py DEVICE`` sets ``jax.default_matmul_precision`` to
``"bfloat16"`` globally (as a user might, for speed), runs :func:`workload` on JAX
(DEVICE: ``cpu`` or a GPU) and on NumPy, and prints one JSON line: ``{"results": n,
"differ": [...]}``, the results in which JAX's answer is not NumPy's. The caller sets
``JAX_DUMP_IR_TO=DIR``: JAX then writes every program it lowers to DIR, eager JAX's
one-op programs too (it compiles every op it dispatches), so the dump holds every product
holovec made, jitted or not.

Importing this module imports neither jax nor holovec.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

import numpy as np

#: seconds each part of the workload took (to stderr: which part to trim when it grows)
TIMINGS: dict[str, float] = {}


def _timed(name: str, part: Any, *args: Any) -> Any:
    start = time.perf_counter()
    out = part(*args)
    TIMINGS[name] = time.perf_counter() - start
    return out


def _models(backend: str, device: str) -> dict[str, Any]:
    """Every kind of product: cosines and matrix binding (VTB), block matrix binding and
    its polar normalisation, an svd (GHRR with 4x4 blocks), exact products (MAP), complex
    ones (FHRR)."""
    from holovec import VSA

    kw = dict(backend=backend, device=device, seed=1, dim=64)
    return {
        "VTB": VSA.create("VTB", **kw),
        "GHRR": VSA.create("GHRR", m=4, **kw),
        "MAP": VSA.create("MAP", **kw),
        "FHRR": VSA.create("FHRR", **kw),
    }


def _algebra(models: dict[str, Any]) -> dict[str, Any]:
    from holovec.retrieval import ItemStore
    from holovec.retrieval.cleanup import cleanup

    out: dict[str, Any] = {}
    for name, model in models.items():
        a, items = model.random(seed=2), model.random(8, seed=3)
        out[f"{name} similarity"] = model.similarity(a, items[1])
        out[f"{name} similarity_matrix"] = model.similarity_matrix(items[:3], items)
        if name in ("VTB", "GHRR"):
            bound = model.bind(a, items[0])
            out[f"{name} bind"] = bound
            out[f"{name} unbind"] = model.unbind(bound, items[0])
            out[f"{name} bundle"] = model.bundle(items[:3])
        if name == "VTB":
            top = ItemStore(model).fit(items).query(items[:2], k=2)
            out[f"{name} search"] = np.array([[score for _, score in row] for row in top])
            out[f"{name} cleanup"] = cleanup(model, items[:2], items)
            out[f"{name} soft cleanup"] = cleanup(model, items[:2], items, soft=True)
    return out


def _resonator(models: dict[str, Any]) -> dict[str, Any]:
    from holovec.retrieval import Resonator

    fhrr = models["FHRR"]
    books = [fhrr.random(6, seed=s) for s in (4, 5)]
    product = fhrr.bind(books[0][1], books[1][2])
    return {"resonator": Resonator(fhrr, books, ols=True, max_iter=3).factor(product[None]).indices}


def _learners(backend: str, device: str) -> dict[str, Any]:
    from holovec.learn import AdaptHDClassifier, CentroidClassifier, RegHDRegressor, RidgeHDClassifier

    X = np.random.default_rng(0).normal(size=(16, 4))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    kw = dict(model="MAP-C", dim=64, backend=backend, device=device, seed=1)
    out = {}
    for learner in (CentroidClassifier, AdaptHDClassifier, RidgeHDClassifier):
        extra = {"epochs": 1} if learner is AdaptHDClassifier else {}
        out[f"{learner.__name__}"] = learner(**kw, **extra).fit(X, y).decision_function(X)
    out["RegHDRegressor"] = RegHDRegressor(**kw, epochs=1).fit(X, X[:, 2]).predict(X)
    return out


def workload(backend: str, device: str) -> dict[str, np.ndarray]:
    """Every kind of product holovec makes, on small inputs: the results on the host."""
    models = _timed(f"{backend} models", _models, backend, device)
    out = _timed(f"{backend} algebra", _algebra, models)
    out.update(_timed(f"{backend} resonator", _resonator, models))
    out.update(_timed(f"{backend} learners", _learners, backend, device))
    return {key: np.asarray(value) for key, value in out.items()}


def _differ(first: dict[str, np.ndarray], second: dict[str, np.ndarray]) -> list[str]:
    """Results that differ beyond float32 rounding (a bfloat16 product would change the
    third digit)."""
    return [
        key
        for key, a in first.items()
        if a.shape != second[key].shape or not np.allclose(a, second[key], rtol=1e-4, atol=1e-5)
    ]


def main(device: str) -> None:
    import jax

    jax.config.update("jax_default_matmul_precision", "bfloat16")
    on_jax = workload("jax", device)
    on_numpy = workload("numpy", "cpu")
    print(json.dumps({"results": len(on_jax), "differ": _differ(on_jax, on_numpy)}))
    print(json.dumps(TIMINGS), file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
