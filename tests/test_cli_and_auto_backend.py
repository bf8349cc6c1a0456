"""What a new user meets first: ``backend="auto"``
imports only the framework it picks, ``random.py`` takes native words only through the
backend hook, ``python -m holovec`` runs the demo, the demo is right (or says it is wrong)
for every model, and no page tells users to ``pip install holovec`` from the index."""

from __future__ import annotations

import inspect
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import holovec.backends as backends
import holovec.backends.base as backends_base
import holovec.random as hv_random
from holovec import VSA, kernels
from holovec.backends.numpy_backend import NumpyBackend
from holovec.random import Purpose, random_words

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """``python -c code`` (or ``python -m ...`` with ``args``) from the repository root."""
    command = [sys.executable, *(args or ("-c", code))]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, env=env)


# -- backend="auto" --------------------------------------------------------------------------

AUTO_PROBE = """
import json, sys
import holovec.backends as b
if {no_gpu}:  # a machine whatever this one has: no GPU, no TPU runtime
    b._nvidia_or_amd_gpu = lambda: None
    b._tpu_runtime = lambda: False
found = b._nvidia_or_amd_gpu() is not None or b._tpu_runtime()
name = b.get_backend("auto").name
print(json.dumps({{"name": name, "accelerator": found,
                   "torch": "torch" in sys.modules, "jax": "jax" in sys.modules}}))
"""


@pytest.mark.parametrize("no_gpu", [True, False], ids=["no-gpu", "this-machine"])
def test_auto_backend_imports_only_the_framework_it_picks(no_gpu):
    proc = run_python(AUTO_PROBE.format(no_gpu=no_gpu))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    if not got["accelerator"]:  # then nothing is imported to look for one
        assert got == {"name": "numpy", "accelerator": False, "torch": False, "jax": False}
    if got["name"] == "torch":
        assert not got["jax"]


@pytest.mark.parametrize(
    ("visible", "devices", "found"),
    [
        (None, ["/proc/driver/nvidia/gpus/0000:01:00.0"], True),
        ("0", ["/dev/nvidia0"], True),
        ("", ["/proc/driver/nvidia/gpus/0000:01:00.0"], False),  # hidden from every framework
        ("-1", ["/dev/nvidia0"], False),
        (None, [], False),
    ],
)
def test_gpu_detection_reads_the_system_not_the_frameworks(monkeypatch, visible, devices, found):
    def fake_glob(pattern):
        prefix = pattern.split("*")[0].split("[")[0]
        return [d for d in devices if d.startswith(prefix)]

    monkeypatch.setattr(backends.glob, "glob", fake_glob)
    monkeypatch.setattr(backends.os.path, "exists", lambda path: False)
    if visible is None:
        monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    else:
        monkeypatch.setenv("CUDA_VISIBLE_DEVICES", visible)
    assert (backends._nvidia_or_amd_gpu() is not None) is found


def test_auto_without_accelerator_is_numpy(monkeypatch):
    monkeypatch.setattr(backends, "_nvidia_or_amd_gpu", lambda: None)
    monkeypatch.setattr(backends, "_tpu_runtime", lambda: False)
    assert backends.resolve_backend_name("auto") == "numpy"
    assert "CUDA_VISIBLE_DEVICES" in backends.get_backend.__doc__  # the rules are documented


CPU_TORCH = "python -m pip install torch --index-url https://download.pytorch.org/whl/cpu"


@pytest.mark.parametrize(
    ("name", "command"),
    [
        ("torch", CPU_TORCH),  # never a bare "pip install torch": on Linux the CUDA build, GBs
        ("jax", "python -m pip install jax"),
        ("dask", 'python -m pip install "dask[array]" distributed'),
    ],
)
def test_missing_framework_message_gives_the_install_command(monkeypatch, name, command):
    real = backends.importlib.util.find_spec
    monkeypatch.setattr(backends.importlib.util, "find_spec", lambda n: None if n == name else real(n))
    with pytest.raises(ValueError, match=f"backend '{name}' needs") as info:
        backends.get_backend(name)
    assert command in str(info.value)
    assert "holovec[" not in str(info.value)  # not the index's project of that name
    if name == "torch":
        assert "pip install torch)" not in str(info.value) and "README" in str(info.value)


def test_cli_without_torch_gives_the_cpu_install_command(monkeypatch, capsys):
    from holovec.demo import main

    real = backends.importlib.util.find_spec
    monkeypatch.setattr(backends.importlib.util, "find_spec", lambda n: None if n == "torch" else real(n))
    with pytest.raises(SystemExit) as info:
        main(["--backend", "torch"], prog="python -m holovec")
    assert info.value.code == 2
    assert CPU_TORCH in capsys.readouterr().err


# -- dead code and layering ------------------------------------------------------------------


def test_base_backend_has_no_jax_device_name():
    # JaxBackend.is_cpu asks the device's platform; the base class knows no JAX names
    assert "TFRT" not in inspect.getsource(backends_base)


class CountingBackend(NumpyBackend):
    """The NumPy backend under its own name, recording what random.py asks its Philox kernel
    for (the version registered for that name)."""

    name = "numpy-counting"

    def __init__(self, native: bool = True) -> None:
        super().__init__()
        self.native = native
        self.calls: list = []


@kernels.philox_words.register(CountingBackend.name)
def _counting_philox_words(backend, key, counter_start, n_blocks):
    backend.calls.append(counter_start)
    numpy = kernels.philox_words(NumpyBackend(), key, counter_start, n_blocks)
    return numpy if backend.native else None


def test_random_takes_host_words_only_through_the_backend_hook():
    assert "numpy_backend" not in inspect.getsource(hv_random)
    streams = [0, 5, 2**64 - 1, 123456789012345]
    address = {"stream": streams, "purpose": Purpose.SYMBOLS, "row_start": 3}
    counting = CountingBackend()
    words = random_words(counting, 9, 4, 30, **address)
    assert len(counting.calls) == 1  # one call for every stream
    assert [int(s) for s in counting.calls[0][1]] == streams
    no_native = CountingBackend(native=False)  # a backend without a native generator
    generic = random_words(no_native, 9, 4, 30, **address)
    assert len(no_native.calls) == 1
    np.testing.assert_array_equal(words, generic)
    np.testing.assert_array_equal(words, random_words(NumpyBackend(), 9, 4, 30, generic=True, **address))
    for i, s in enumerate(streams):  # row i: the same words as a draw of stream i alone
        alone = random_words(counting, 9, 1, 30, stream=s, purpose=Purpose.SYMBOLS, row_start=3)
        np.testing.assert_array_equal(words[i], alone[0])


# -- the demo: python -m holovec, examples/quickstart.py ---------------------------------------


def test_python_m_holovec_help():
    proc = run_python("", "-m", "holovec", "--help")
    assert proc.returncode == 0, proc.stderr
    for option in ("--model", "--backend", "--dim", "--seed"):
        assert option in proc.stdout
    for name in [*backends._BACKENDS, "auto"]:  # every backend the option takes, dask too
        assert re.search(rf"\b{name}\b", proc.stdout), name
    assert proc.stdout.startswith("usage: python -m holovec")


def test_python_m_holovec_runs_the_demo():
    proc = run_python("", "-m", "holovec", "--model", "VTB", "--dim", "1024")
    assert proc.returncode == 0, proc.stderr
    assert "capital  -> Washington" in proc.stdout
    assert "What is the dollar of Mexico?  -> Peso" in proc.stdout


def test_python_m_holovec_bad_option_is_a_usage_error():
    proc = run_python("", "-m", "holovec", "--model", "VTB", "--dim", "1000")
    assert proc.returncode == 2
    assert "perfect square" in proc.stderr


def test_import_holovec_does_not_import_the_demo():
    proc = run_python("import sys, holovec; print('holovec.demo' in sys.modules)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


@pytest.mark.parametrize("name", VSA.available_models())
def test_demo_answers_right_for_every_model(name):
    from holovec.demo import run

    model = VSA.create(name, dim=1024, backend="numpy", seed=2026)  # a square, a multiple of 4
    result = run(model, quiet=True)
    assert result.correct, [(a.label, a.expected) for a in result.answers]
    assert result.analogy.label == "Peso"
    # the route follows the declared algebra, never the name
    assert (result.role is None) == bool(model.is_commutative)


def test_demo_says_when_an_answer_is_wrong(capsys):
    from holovec.demo import main

    status = main(["--model", "MAP", "--dim", "16"])  # far too small for three pairs
    captured = capsys.readouterr()
    assert status == 1
    assert "WRONG: expected" in captured.out
    assert "answers are wrong" in captured.err


def test_quickstart_is_the_demo():
    source = (ROOT / "examples" / "quickstart.py").read_text()
    assert "from holovec import demo" in source
    assert "model.bind(" not in source  # one implementation: holovec/demo.py


# -- install instructions ------------------------------------------------------------------


def install_pages() -> list[Path]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.rst"))]
    pages += sorted((ROOT / "examples").glob("*.rst"))
    skip = ("_build", "docs/examples/", "docs/api/generated")
    return [p for p in pages if not any(s in p.as_posix() for s in skip)]


def index_installs(line: str) -> list[str]:
    """Requirements of a ``pip install`` line that name holovec on the package index
    (``holovec``, ``holovec[torch]``), not a direct reference (``holovec @ git+...``)."""
    found = []
    for match in re.finditer(r"pip3? install (.*)", line):
        command = re.split(r"&&|\|\||[;|]", match.group(1).replace("`", " "))[0]  # up to the next command
        try:
            words = shlex.split(command, comments=True)
        except ValueError:
            words = command.split()
        for i, word in enumerate(words):
            is_name = re.fullmatch(r"holovec(\[[\w,\s-]*\])?", word)
            if is_name and (i + 1 == len(words) or words[i + 1] != "@"):
                found.append(word)
    return found


def test_install_checker_finds_index_installs():
    assert index_installs("   pip install holovec              # NumPy backend only") == ["holovec"]
    assert index_installs('pip install "holovec[torch]"') == ["holovec[torch]"]
    assert index_installs("pip install holovec torch --index-url x") == ["holovec"]
    assert index_installs('python -m pip install "holovec @ git+https://example.org/h"') == []
    assert index_installs("python -m pip install holovec @ git+https://example.org/h") == []
    assert index_installs('python -m pip install -e ".[torch]"') == []
    assert index_installs("python -m pip install -e . && python -m holovec") == []
    assert index_installs("``pip install holovec`` installs a different project") == ["holovec"]


def test_no_page_installs_holovec_from_the_package_index():
    bad = []
    for page in install_pages():
        lines = page.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            # a warning that the command installs another project may quote it
            warned = "different project" in " ".join(lines[max(0, i - 1) : i + 2])
            if index_installs(line) and not warned:
                bad.append(f"{page.relative_to(ROOT)}:{i + 1}: {line.strip()}")
    assert not bad, "pages that install holovec from the index:\n" + "\n".join(bad)


def test_cpu_only_torch_install_uses_the_cpu_index():
    for page in (ROOT / "docs" / "getting-started" / "install.rst", ROOT / "README.md"):
        text = page.read_text(encoding="utf-8")
        assert "pip install torch --index-url https://download.pytorch.org/whl/cpu" in text, page
