"""Float products in full float32 precision on every backend, whatever the user's global
setting (the design page's invariant 1: a GPU answers what the CPU does).

- No product bypasses the kernels: outside ``holovec/backends`` and ``holovec/kernels`` no
  code multiplies arrays with ``@`` or a namespace's ``matmul``/``vecdot``/``einsum``..., and
  every framework ``linalg`` routine runs in ``kernels.full_precision()`` (read from the
  source).
- JAX: every float dot of every program holovec lowers (jitted, and eager JAX's one-op
  programs) states ``HIGHEST`` precision, with ``jax.default_matmul_precision`` set to
  ``"bfloat16"`` globally, and the answers are NumPy's (``tests/_precision_worker.py``, in
  one subprocess that dumps the programs).
- torch: under each of torch's ways to lower float32 matmul precision (``allow_tf32``,
  ``set_float32_matmul_precision``, the ``fp32_precision`` settings), holovec's products run
  with full precision (recorded at each product), the user's setting is back afterwards
  (inherited settings stay inherited), and the answers are unchanged (on CPUs with
  bfloat16 instructions ``"medium"`` changes torch's own CPU products).
- torch, with threads (the guarantees of ``holovec/kernels/_torch_precision.py``): a
  product raises only its device's setting; a setting the user changes while products
  run stands after them; one lowered while products are open is raised for the next.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from conftest import device_for
from holovec import VSA, kernels

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PACKAGE = ROOT / "holovec"

# -- the source: every product goes through the backend ---------------------------------

#: names of namespace functions that multiply arrays
_PRODUCT_NAMES = {
    "matmul", "vecdot", "tensordot", "dot", "vdot", "einsum", "inner", "outer", "mm", "bmm",
    "mv", "addmm", "baddbmm", "dot_general", "multi_dot", "kron",
}  # fmt: skip
#: receivers of a product call that route it through kernels.matmul / kernels.vecdot
_BACKEND_RECEIVERS = re.compile(r"(^|\.)(_?backend|sums|kernels)$")
#: products of host NumPy integers (exact, and NumPy is always full precision)
_ALLOWED_MATMULS = {("encoders/sequence.py", "_distinct")}


def _calls_and_products(path: Path) -> list[tuple[int, str, str]]:
    """``(line, function, what)`` for each ``@``, namespace product and ``linalg`` call
    outside a ``with ....full_precision()`` block in a source file."""
    found: list[tuple[int, str, str]] = []

    class Visitor(ast.NodeVisitor):
        def __init__(self) -> None:
            self.functions: list[str] = []
            self.full_precision = 0

        def visit_FunctionDef(self, node: ast.AST) -> None:
            self.functions.append(node.name)
            self.generic_visit(node)
            self.functions.pop()

        visit_AsyncFunctionDef = visit_FunctionDef

        def visit_With(self, node: ast.With) -> None:
            scoped = any("full_precision" in ast.unparse(item.context_expr) for item in node.items)
            self.full_precision += scoped
            self.generic_visit(node)
            self.full_precision -= scoped

        def note(self, node: ast.AST, what: str) -> None:
            found.append((node.lineno, ".".join(self.functions), what))

        def visit_BinOp(self, node: ast.BinOp) -> None:
            if isinstance(node.op, ast.MatMult):
                self.note(node, ast.unparse(node))
            self.generic_visit(node)

        def visit_AugAssign(self, node: ast.AugAssign) -> None:
            if isinstance(node.op, ast.MatMult):
                self.note(node, ast.unparse(node))
            self.generic_visit(node)

        def visit_Call(self, node: ast.Call) -> None:
            func = node.func
            if isinstance(func, ast.Attribute):
                receiver = ast.unparse(func.value)
                if func.attr in _PRODUCT_NAMES and not _BACKEND_RECEIVERS.search(receiver):
                    self.note(node, ast.unparse(func))
                host = receiver in ("np.linalg", "numpy.linalg")  # NumPy: full precision
                if receiver.endswith("linalg") and not host and not self.full_precision:
                    self.note(node, ast.unparse(func))
            self.generic_visit(node)

    Visitor().visit(ast.parse(path.read_text(), filename=str(path)))
    return found


def test_every_product_goes_through_the_backend() -> None:
    """Models, encoders, retrieval and learners multiply with ``kernels.matmul`` and
    ``kernels.vecdot`` only, and run framework ``linalg`` routines (which multiply inside)
    in ``kernels.full_precision()``: the kernels implement the products, nothing else does."""
    bypasses = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith(("backends/", "kernels/")):
            continue
        for line, function, what in _calls_and_products(path):
            if (relative, function.split(".")[-1]) not in _ALLOWED_MATMULS:
                bypasses.append(f"holovec/{relative}:{line} in {function or '<module>'}: {what}")
    assert not bypasses, "products that bypass kernels.matmul / vecdot / full_precision:\n" + "\n".join(
        bypasses
    )


# -- JAX: the lowered programs -----------------------------------------------------------

#: a dot in StableHLO text: its operands' precision and its result type
_DOT = re.compile(r"= stablehlo\.(dot_general|dot|convolution)\b(?P<rest>.*)")
_RESULT = re.compile(r"->\s*tensor<(?:[\d?]+x)*(?P<dtype>[a-z]+)")


def _dots_below_highest(dump: Path) -> tuple[int, list[str]]:
    """How many float or complex dots the programs in ``dump`` hold, and those that do not
    state HIGHEST precision for both operands (integer dots are exact in any precision)."""
    count, low = 0, []
    for program in sorted(dump.glob("*.mlir")):
        for line in program.read_text().splitlines():
            dot = _DOT.search(line)
            if dot is None:
                continue
            result = _RESULT.search(dot["rest"])
            if result is None or not result["dtype"].startswith(("f", "bf", "complex")):
                continue
            count += 1
            if "precision = [HIGHEST, HIGHEST]" not in dot["rest"]:
                low.append(f"{program.name}: {line.strip()[:300]}")
    return count, low


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax not installed")
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="scikit-learn not installed")
def test_jax_products_state_highest_precision(tmp_path: Path) -> None:
    """Every float dot JAX lowers for holovec (similarity and similarity matrix of cosine,
    exact, complex and matrix models, search, cleanup and soft cleanup, VTB and GHRR
    binding and unbinding, GHRR's polar normalisation by svd, a resonator with OLS (pinv),
    Centroid/AdaptHD/RidgeHD (solve)/RegHD fit and predict) states HIGHEST precision with
    ``jax.default_matmul_precision("bfloat16")`` set globally, and the answers equal
    NumPy's. (On a CPU XLA multiplies float32 in full
    precision anyway; on a GPU the stated precision is what keeps TF32 out.)"""
    env = dict(os.environ)
    env["JAX_DUMP_IR_TO"] = str(tmp_path)
    # the programs are read before XLA optimises them: compile them quickly (eager JAX
    # compiles a program for each op it dispatches, some 250 here)
    env["XLA_FLAGS"] = "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    done = subprocess.run(
        [sys.executable, str(HERE / "_precision_worker.py"), device_for("jax")],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert report, done.stderr[-3000:]
    assert '"differ": []' in report[-1], f"JAX's answers differ from NumPy's: {report[-1]}"
    count, low = _dots_below_highest(tmp_path)
    assert count >= 20, f"only {count} float dots in the dump: did the workload run on JAX?"
    assert not low, f"{len(low)} of {count} float dots below HIGHEST precision:\n" + "\n".join(low[:20])


# -- torch: the global settings ----------------------------------------------------------

torch = importlib.import_module("torch") if importlib.util.find_spec("torch") else None
needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")
#: torch >= 2.9: the fp32_precision settings (before: one global setting)
NEW_API = torch is not None and hasattr(torch._C, "_get_fp32_precision_getter")
#: every fp32_precision setting a user's call may change
_ALL_SETTINGS = [
    ("generic", "all"), ("cuda", "all"), ("cuda", "matmul"), ("mkldnn", "all"), ("mkldnn", "matmul"),
]  # fmt: skip


def _lower_tf32() -> None:
    torch.backends.cuda.matmul.allow_tf32 = True


def _lower_generic() -> None:
    torch.backends.fp32_precision = "tf32"


def _lower_onednn() -> None:
    torch.backends.mkldnn.matmul.fp32_precision = "bf16"


#: a user's ways to lower torch's float32 matmul precision
LOWERINGS = {
    "allow_tf32": _lower_tf32,
    "high": lambda: torch.set_float32_matmul_precision("high"),
    "medium": lambda: torch.set_float32_matmul_precision("medium"),
    "fp32_precision=tf32": _lower_generic,
    "mkldnn.matmul=bf16": _lower_onednn,
}
_NEW_API_ONLY = {"fp32_precision=tf32", "mkldnn.matmul=bf16"}


def _lowering_params() -> list:
    skip = pytest.mark.skipif(not NEW_API, reason="torch < 2.9 has no fp32_precision settings")
    return [pytest.param(name, marks=skip if name in _NEW_API_ONLY else ()) for name in LOWERINGS]


@pytest.fixture
def torch_defaults():
    """torch with its float32 matmul settings at torch's defaults, and put back there."""
    if torch is None:
        pytest.skip("torch not installed")

    def reset() -> None:
        if NEW_API:
            torch.set_float32_matmul_precision("highest")
            for backend, op in _ALL_SETTINGS:
                torch._C._set_fp32_precision_setter(backend, op, "none")
        else:
            torch.set_float32_matmul_precision("highest")

    reset()
    yield torch
    reset()


def _reduced(device_type: str | None = None) -> list:
    """The settings below full precision now: every one, or those of products on
    ``device_type``."""
    from holovec.kernels._torch_precision import reduced_settings

    return reduced_settings(device_type)


def _products_device() -> str:
    """The kind of device the tests' torch products run on."""
    return torch.device(device_for("torch")).type


#: names (``__name__``) of the torch functions that multiply, as torch function modes see them
_TORCH_PRODUCTS = {
    "matmul", "__matmul__", "__rmatmul__", "linalg_vecdot", "linalg_pinv", "linalg_solve",
    "linalg_svd", "mm", "bmm", "mv", "dot", "vdot", "einsum", "tensordot", "inner",
}  # fmt: skip


def _recording_mode():
    """A torch function mode that records, at each product torch is asked for, the
    settings of the product's device below full precision in force (empty lists: full
    precision)."""
    from torch.overrides import TorchFunctionMode

    class Record(TorchFunctionMode):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[tuple[str, list]] = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            name = getattr(func, "__name__", "")
            if name in _TORCH_PRODUCTS:
                self.seen.append((name, _reduced(_products_device())))
            return func(*args, **(kwargs or {}))

    return Record()


def _torch_workload() -> dict[str, np.ndarray]:
    """holovec's float products on torch (CPU, small): binding, cosines, exact products,
    complex scores, polar normalisation (svd), soft cleanup, resonator with OLS (pinv)."""
    from holovec.retrieval import Resonator
    from holovec.retrieval.cleanup import cleanup

    out = {}
    kw = dict(backend="torch", device=device_for("torch"), seed=1)
    for name, extra in [("VTB", {}), ("HRR", {}), ("FHRR", {}), ("MAP", {}), ("GHRR", {"m": 4})]:
        model = VSA.create(name, dim=256, **kw, **extra)
        a, items = model.random(seed=2), model.random(16, seed=3)
        bound = model.bind(a, items[0])
        out[f"{name} bind"] = bound
        out[f"{name} unbind"] = model.unbind(bound, items[0])
        out[f"{name} bundle"] = model.bundle(items[:3])
        out[f"{name} similarity"] = model.similarity(items[:4], items[4:8])
        out[f"{name} similarity_matrix"] = model.similarity_matrix(items[:5], items)
        out[f"{name} soft cleanup"] = cleanup(model, items[:2], items, soft=True)
    fhrr = VSA.create("FHRR", dim=256, **kw)
    books = [fhrr.random(6, seed=s) for s in (4, 5)]
    resonator = Resonator(fhrr, books, ols=True, max_iter=3)
    out["resonator"] = resonator.factor(fhrr.bind(books[0][1], books[1][2])[None]).indices
    return {key: np.asarray(value.cpu() if hasattr(value, "cpu") else value) for key, value in out.items()}


@needs_torch
@pytest.mark.parametrize("lowering", _lowering_params())
def test_torch_products_run_in_full_precision(torch_defaults, lowering: str) -> None:
    """Under each way a user lowers float32 matmul precision, every product holovec asks
    torch for runs with full precision, and the user's setting is back afterwards."""
    LOWERINGS[lowering]()
    users = _reduced()
    assert users, f"{lowering} lowered no setting that holovec's check reads"
    with _recording_mode() as record:
        _torch_workload()
    names = {name for name, _ in record.seen}
    assert {"matmul", "linalg_vecdot", "linalg_pinv", "linalg_svd"} <= names, names
    lowered = [(name, settings) for name, settings in record.seen if settings]
    assert not lowered, f"{len(lowered)} of {len(record.seen)} products below full precision: {lowered[:5]}"
    assert _reduced() == users


@needs_torch
def test_torch_answers_unchanged_by_medium_precision(torch_defaults) -> None:
    """``set_float32_matmul_precision("medium")`` changes none of holovec's answers on
    torch, to the bit: holovec's products run the same kernels on the same inputs as with
    torch's default (so equal bits are what the arithmetic guarantees). On CPUs with
    bfloat16 instructions (AVX512-BF16, AMX), as this one, "medium" sends torch's float32
    products to oneDNN, whose results differ in the last bits (and, on a GPU, TF32 in the
    fourth digit), enough to reorder near ties of a top-k."""
    default = _torch_workload()
    torch.set_float32_matmul_precision("medium")
    medium = _torch_workload()
    changed = [key for key, value in default.items() if not np.array_equal(medium[key], value)]
    assert not changed, f"answers changed by set_float32_matmul_precision('medium'): {changed}"


@needs_torch
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="scikit-learn not installed")
def test_torch_learners_run_in_full_precision(torch_defaults) -> None:
    """Learners' products and linear solves (RidgeHD, RegHD) run with full precision
    under ``set_float32_matmul_precision("high")``."""
    from holovec.learn import AdaptHDClassifier, RegHDRegressor, RidgeHDClassifier

    X = np.random.default_rng(0).normal(size=(16, 4))
    y = (X[:, 0] > 0).astype(int)
    kw = dict(model="MAP-C", dim=64, backend="torch", device=device_for("torch"), seed=1)
    torch.set_float32_matmul_precision("high")
    with _recording_mode() as record:
        RidgeHDClassifier(**kw).fit(X, y).predict(X)
        AdaptHDClassifier(**kw, epochs=1).fit(X, y).predict(X)
        RegHDRegressor(**kw, epochs=1).fit(X, X[:, 1]).predict(X)
    assert {"matmul", "linalg_solve"} <= {name for name, _ in record.seen}
    assert not [entry for entry in record.seen if entry[1]]
    assert _reduced()  # the user's setting is back


@needs_torch
@pytest.mark.skipif(not NEW_API, reason="torch < 2.9 has no inherited fp32_precision settings")
def test_torch_inherited_setting_stays_inherited(torch_defaults) -> None:
    """A matmul setting the user left unset (inheriting ``torch.backends.fp32_precision``)
    is unset again after holovec's product: it follows the user's next change."""
    model = VSA.create("HRR", dim=64, backend="torch", device=device_for("torch"), seed=1)
    torch.backends.fp32_precision = "tf32"
    model.similarity_matrix(model.random(3, seed=1), model.random(3, seed=2))
    torch.backends.fp32_precision = "ieee"
    assert torch.backends.cuda.matmul.fp32_precision == "ieee"
    assert torch.backends.mkldnn.matmul.fp32_precision == "ieee"


@needs_torch
def test_torch_scope_is_reentrant_and_shared_by_threads(torch_defaults, monkeypatch) -> None:
    """Nested scopes keep full precision until the outermost ends; threads multiplying at
    once all see their device's setting at full precision (the settings are global: the
    last scope restores them)."""
    from holovec.kernels._torch_precision import FULL_FLOAT32_PRODUCTS as scope

    torch.set_float32_matmul_precision("high")
    users = _reduced()
    with scope:
        with scope:
            assert _reduced() == []
        assert _reduced() == []
    assert _reduced() == users

    model = VSA.create("VTB", dim=64, backend="torch", device=device_for("torch"), seed=1)
    items = model.random(8, seed=1)
    seen: list[list] = []
    product = torch.Tensor.__matmul__

    def recorded(a, b):
        seen.append(_reduced(_products_device()))
        return product(a, b)

    def work() -> None:
        for _ in range(30):
            model.bind(items, items)

    monkeypatch.setattr(torch.Tensor, "__matmul__", recorded)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    monkeypatch.undo()
    assert len(seen) == 4 * 30
    assert all(settings == [] for settings in seen)
    assert _reduced() == users


def _all_settings() -> dict:
    """What a user's thread reads of torch's float32 matmul settings."""
    legacy = None
    try:
        legacy = torch.get_float32_matmul_precision()
    except RuntimeError:
        pass
    return {
        "legacy": legacy,
        "cuda": torch.backends.cuda.matmul.fp32_precision,
        "mkldnn": torch.backends.mkldnn.matmul.fp32_precision,
    }


@needs_torch
@pytest.mark.skipif(not NEW_API, reason="torch < 2.9 has one setting for every device")
@pytest.mark.parametrize("lowering", ["allow_tf32", "high"])
def test_torch_cpu_products_leave_the_gpu_setting_alone(torch_defaults, lowering: str) -> None:
    """A CPU product raises only oneDNN's setting, where it is lowered: a user's TF32 for
    the GPU (``allow_tf32``) is not touched at all, and under ``"high"`` the user's threads
    read ``"high"`` and cuBLAS's TF32 throughout (holovec used to raise every setting, so
    that a user's thread read ``"highest"`` while holovec worked)."""
    if _products_device() != "cpu":
        pytest.skip("the tests' torch products run on a GPU")
    from torch.overrides import TorchFunctionMode

    LOWERINGS[lowering]()
    users = _all_settings()
    seen: list[dict] = []

    class Snapshots(TorchFunctionMode):  # what a user's thread would read at each product
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if getattr(func, "__name__", "") in _TORCH_PRODUCTS:
                seen.append(_all_settings())
            return func(*args, **(kwargs or {}))

    model = VSA.create("VTB", dim=64, backend="torch", device="cpu", seed=1)
    items = model.random(8, seed=1)
    with Snapshots():
        model.bind(items, items)
        model.similarity_matrix(items, items)
    assert seen and all(s["mkldnn"] in ("none", "ieee") for s in seen), seen  # full for holovec
    untouched = {key: value for key, value in users.items() if key != "mkldnn"}
    assert all({key: s[key] for key in untouched} == untouched for s in seen), (users, seen)
    if lowering == "allow_tf32":  # oneDNN's setting was full already: nothing changed
        assert all(s == users for s in seen), (users, seen)
    assert _all_settings() == users


@needs_torch
@pytest.mark.parametrize("change", ["medium", "highest"])
def test_torch_setting_changed_while_a_product_runs_stands(torch_defaults, change: str) -> None:
    """A setting the user changes (in another thread) while holovec's product runs is the
    setting after it: holovec puts its device's setting back only where it still reads
    what holovec wrote. Lowered further (``"medium"``) or switched to full precision
    (``"highest"``, which writes ``"ieee"``, told apart from holovec's ``"none"``): the
    user's change stands (holovec used to put back the value it saw on entry)."""
    from holovec.kernels._torch_precision import products_on

    torch.set_float32_matmul_precision("high")
    inside, done = threading.Event(), threading.Event()

    def product() -> None:
        with products_on(_products_device()):
            inside.set()
            done.wait(30)

    worker = threading.Thread(target=product)
    worker.start()
    assert inside.wait(30)
    torch.set_float32_matmul_precision(change)  # the user's thread, while the product runs
    users = _all_settings()
    done.set()
    worker.join()
    assert _all_settings() == users
    assert torch.get_float32_matmul_precision() == change


@needs_torch
def test_torch_setting_lowered_while_products_are_open_is_raised_for_the_next(torch_defaults) -> None:
    """A product that opens while another is open raises its device's setting where the
    user lowered it meanwhile (the first product found it full), and the user's lowered
    value is the one that stands after the last product (holovec used to raise settings
    only when the first product opened)."""
    from holovec.kernels._torch_precision import products_on, settings_for

    device = _products_device()
    name = settings_for(device)[0]
    inside, done = threading.Event(), threading.Event()

    def first() -> None:
        with products_on(device):  # nothing to raise: torch's defaults
            inside.set()
            done.wait(30)

    worker = threading.Thread(target=first)
    worker.start()
    assert inside.wait(30)
    getattr(torch.backends, name).matmul.fp32_precision = "bf16" if name == "mkldnn" else "tf32"
    lowered = _reduced(device)
    assert lowered
    model = VSA.create("VTB", dim=64, backend="torch", device=device_for("torch"), seed=1)
    with _recording_mode() as record:
        model.bind(model.random(4, seed=1), model.random(4, seed=2))
    done.set()
    worker.join()
    assert record.seen and not [entry for entry in record.seen if entry[1]]
    assert _reduced(device) == lowered


@needs_torch
def test_torch_legacy_setting(torch_defaults, monkeypatch) -> None:
    """Before torch 2.9 (no fp32_precision settings) the one global setting is raised to
    ``"highest"`` for the product and put back."""
    from holovec.kernels import _torch_precision

    torch.set_float32_matmul_precision("high")
    monkeypatch.setattr(_torch_precision, "_PER_BACKEND", False)
    seen = []
    product = torch.Tensor.__matmul__

    def recorded(a, b):
        seen.append(torch.get_float32_matmul_precision())
        return product(a, b)

    monkeypatch.setattr(torch.Tensor, "__matmul__", recorded)
    assert _torch_precision.reduced_settings() == [("", "high")]
    model = VSA.create("VTB", dim=64, backend="torch", device=device_for("torch"), seed=1)
    model.bind(model.random(seed=1), model.random(seed=2))
    assert seen and set(seen) == {"highest"}
    assert torch.get_float32_matmul_precision() == "high"


@needs_torch
def test_torch_compile_traces_products_without_graph_breaks(torch_defaults) -> None:
    """Inside ``torch.compile`` the settings are neither read nor set (a compiled region
    cannot): holovec's products trace into one graph, and the compiled program follows the
    settings in force where it runs (the backends guide says so)."""
    import torch._dynamo

    model = VSA.create("VTB", dim=64, backend="torch", device=device_for("torch"), seed=1)
    a, b = model.random(seed=1), model.random(seed=2)
    torch.set_float32_matmul_precision("high")
    backend = model.backend
    explained = torch._dynamo.explain(
        lambda x, y: kernels.matmul(backend, x, y) + kernels.vecdot(backend, x, y)
    )(a, b)
    assert explained.graph_break_count == 0, explained.break_reasons


@needs_torch
def test_torch_legacy_and_per_backend_settings_stay_consistent(torch_defaults) -> None:
    """A precision lowered with ``set_float32_matmul_precision`` is raised the same way for
    holovec's products: inside them torch can still report ``allow_tf32`` (it refuses
    where its two kinds of settings disagree), and the user's setting comes back after."""
    from holovec.kernels._torch_precision import FULL_FLOAT32_PRODUCTS

    torch.set_float32_matmul_precision("high")
    with FULL_FLOAT32_PRODUCTS:
        assert torch.backends.cuda.matmul.allow_tf32 is False
        assert torch.get_float32_matmul_precision() == "highest"
    assert torch.get_float32_matmul_precision() == "high"
    assert torch.backends.cuda.matmul.allow_tf32 is True
