"""Search of a JAX codebook sharded by rows over several devices.

JAX in this process has one CPU device, and its device count is fixed once it starts, so
the checks run in subprocesses (``tests/_jax_sharded_worker.py``) with
``--xla_force_host_platform_device_count``: one process of 4 devices runs every check of
``CHECKS`` (results against the NumPy search, with many exact ties; query shapes; meshes;
the compiled program gathers only ``k`` candidates per device; one compilation; errors),
and two processes of 2 devices each emulate two hosts joined by ``jax.distributed``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax not installed")

HERE = Path(__file__).resolve().parent
WORKER = HERE / "_jax_sharded_worker.py"
ROOT = HERE.parent


def _worker_checks() -> list[str]:
    spec = importlib.util.spec_from_file_location("_jax_sharded_worker", WORKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # imports neither jax nor holovec
    return list(module.CHECKS)


CHECKS = _worker_checks()


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "JAX_PLATFORMS")}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def test_sharded_search() -> None:
    """Every check of the worker, run in one subprocess with 4 CPU devices (one test, so
    that the subprocess runs once whatever xdist does with the module), each reported."""
    done = subprocess.run(
        [sys.executable, str(WORKER)], capture_output=True, text=True, timeout=300, env=_env(), cwd=ROOT
    )
    found = {}
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            found[row["check"]] = row
    missing = [check for check in CHECKS if check not in found]
    failed = [
        f"{check}: {found[check]['detail']}" for check in CHECKS if check in found and not found[check]["ok"]
    ]
    assert not missing, (
        f"the worker stopped before {missing} (exit {done.returncode}):\n{done.stderr[-3000:]}"
    )
    assert not failed, "\n".join(failed)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


def test_multihost_jax_distributed() -> None:
    """Two processes (2 CPU devices each) joined by jax.distributed on localhost: a codebook
    over the 4 devices of both, searched by both, equals the NumPy search."""
    port = _free_port()
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "multihost", str(port), str(i)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=_env(),
            cwd=ROOT,
        )
        for i in range(2)
    ]
    outs = []
    try:
        for p in procs:
            outs.append(p.communicate(timeout=120))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()
    errors = "\n".join(err[-2000:] for _, err in outs)
    if any(p.returncode for p in procs) and ("gloo" in errors.lower() or "collectives" in errors.lower()):
        pytest.skip(f"this jax has no multi-process CPU collectives: {errors[-500:]}")
    for i, (p, (out, err)) in enumerate(zip(procs, outs, strict=True)):
        assert p.returncode == 0, f"process {i} failed:\n{err[-3000:]}"
        row = json.loads(out.strip().splitlines()[-1])
        assert row == {"multihost": i, "results": {"MAP": "equal", "FHRR": "equal"}}, row


def test_benchmark_quick_run() -> None:
    """``python -m benchmarks --sections jax-sharded --quick`` runs and prints a row per case."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--sections", "jax-sharded", "--quick", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
        env=_env(),
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    rows = [line.split() for line in done.stdout.splitlines() if line.startswith(("FHRR", "MAP"))]
    assert [r[0] for r in rows] == ["FHRR", "MAP"], done.stdout
    assert all(re.fullmatch(r"[\d.]+x", r[-1]) for r in rows), done.stdout
