"""The documentation builds without warnings, documents every public name, and the
backends guide's snippets run as shown. (The pages' ``>>>`` examples are doctests that
pytest collects from docs/ itself; the tutorials run in tests/test_examples.py.)"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "user-guide" / "backends-and-performance.rst"

#: packages whose ``__all__`` the API reference must cover
PUBLIC_PACKAGES = (
    "holovec.models",
    "holovec.encoders",
    "holovec.retrieval",
    "holovec.backends",
    "holovec.random",
)


def python_snippets(path: Path) -> list[tuple[int, str, int]]:
    """``(line, code, gpus needed)`` of every ``.. code-block:: python`` of an rst page; a
    ``.. gpu-only`` comment (``.. gpu-only: 2`` for two GPUs) before a block marks it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    snippets = []
    for i, line in enumerate(lines):
        if line.strip() != ".. code-block:: python":
            continue
        previous = next((x.strip() for x in reversed(lines[:i]) if x.strip()), "")
        gpus = 0
        if previous.startswith(".. gpu-only"):
            gpus = int(previous.partition(":")[2] or 1)
        body = []
        for text in lines[i + 1 :]:
            if text.strip() and not text.startswith("    "):
                break
            body.append(text[4:])
        snippets.append((i + 1, "\n".join(body).strip("\n") + "\n", gpus))
    return snippets


def _cuda_devices() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def test_backends_guide_snippets_run_in_order(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOLOVEC_BACKEND", raising=False)
    snippets = python_snippets(GUIDE)
    assert len(snippets) > 25
    namespace: dict = {"__name__": "__guide__"}
    gpus = _cuda_devices()
    ran = 0
    for line, code, needed in snippets:
        if needed > gpus:
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{GUIDE.name}:{line}", "exec"), namespace)
        except Exception as err:  # pragma: no cover - the message names the snippet
            raise AssertionError(f"the snippet at {GUIDE.name}:{line} fails: {err!r}\n{code}") from err
        ran += 1
    assert ran >= len(snippets) - 2
    # what the page's comments say these print
    assert namespace["same"] is True  # the reproducibility loop: every backend matches NumPy
    assert namespace["back"].dtype.name == "complex64"


def test_guide_has_no_removed_jax_api():
    text = GUIDE.read_text(encoding="utf-8")
    assert "from jax import clear_backends" not in text  # removed in JAX 0.4.36
    assert "DeviceArray" not in text


def test_docs_build_without_warnings_and_cover_the_api(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("sphinx_gallery")
    out = tmp_path / "html"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("HOLOVEC_BACKEND", None)
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-6000:] + proc.stdout[-2000:]
    from sphinx.util.inventory import InventoryFile

    with open(out / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", os.path.join)
    documented = {name for entries in inventory.values() for name in entries}
    import importlib

    missing = [
        f"{package}.{name}"
        for package in PUBLIC_PACKAGES
        for name in importlib.import_module(package).__all__
        if f"{package}.{name}" not in documented
    ]
    missing += [
        f"holovec.{n}"
        for n in ("VSA", "available_backends", "get_backend")
        if f"holovec.{n}" not in documented
    ]
    assert not missing, f"public names without an API entry: {missing}"
    # the tutorials ran and the guide's tables came from the benchmark files
    assert (out / "examples" / "index.html").exists()
    guide = (out / "user-guide" / "backends-and-performance.html").read_text(encoding="utf-8")
    assert "Measured on:" in guide and re.search(r"\d+(\.\d+)? (ms|µs|s)<", guide)
