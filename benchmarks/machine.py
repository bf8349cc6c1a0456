"""Where the numbers come from: the CPU, cores, memory and library versions."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith(("model name", "Hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _memory_gib() -> float | None:
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) / 2**20
    except (OSError, ValueError, IndexError):
        pass
    return None


def _usable_cores() -> int | None:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git(*args: str) -> str:
    result = subprocess.run(
        ["git", "-C", str(REPO_ROOT), *args], capture_output=True, text=True, timeout=5, check=True
    )
    return result.stdout.strip()


def _git_commit() -> str | None:
    """The checkout's commit, with ``+dirty`` when tracked files have changed."""
    try:
        head = _git("rev-parse", "--short", "HEAD")
        dirty = _git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return head + ("+dirty" if dirty else "")


def _blas() -> str | None:
    import numpy as np

    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas['name']} {blas.get('version', '')}".strip()
    except Exception:
        return None


def _busy_cpu_seconds() -> float | None:
    """CPU seconds all processes have used since boot (Linux), or None elsewhere."""
    try:
        with open("/proc/stat", encoding="utf-8") as f:
            fields = f.readline().split()
    except OSError:
        return None
    if not fields or fields[0] != "cpu":
        return None
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


class CpuMeter:
    """How much CPU other processes (and the hypervisor) took while the benchmarks ran:
    busy time of the whole machine less this process's own."""

    def __init__(self) -> None:
        self._wall = time.perf_counter()
        self._own = time.process_time()
        self._busy = _busy_cpu_seconds()

    def other_cores(self) -> float | None:
        """Cores used by other work, on average over the run so far."""
        busy = _busy_cpu_seconds()
        if busy is None or self._busy is None:
            return None
        wall = time.perf_counter() - self._wall
        own = time.process_time() - self._own
        return max(0.0, (busy - self._busy - own) / wall) if wall > 0 else None


def describe(torchhd_version: str | None = None, meter: CpuMeter | None = None) -> dict[str, Any]:
    """The machine and software, as JSON-ready values. Call it after the run, so that the
    thread counts of frameworks already imported are the ones used."""
    import holovec

    info: dict[str, Any] = {
        "cpu": _cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": _usable_cores(),
        "memory_gib": _memory_gib(),
        "os": platform.platform(),
        "python": platform.python_version(),
        "holovec": holovec.__version__,
        "git_commit": _git_commit(),
        "numpy": _version("numpy"),
        "blas": _blas(),
        "torch": _version("torch"),
        "jax": _version("jax"),
        "torchhd": torchhd_version,
        "other_cores_busy": None if meter is None else meter.other_cores(),
    }
    if "torch" in sys.modules:
        info["torch_threads"] = sys.modules["torch"].get_num_threads()
    if "jax" in sys.modules:
        info["jax_devices"] = [str(d) for d in sys.modules["jax"].devices()]
    return info


def header_lines(info: dict[str, Any]) -> list[str]:
    """The machine and software in two lines, for the top of the table."""
    memory = f", {info['memory_gib']:.0f} GiB RAM" if info.get("memory_gib") else ""
    machine = (
        f"machine:  {info['cpu']}, {info['logical_cores']} logical cores "
        f"({info['usable_cores']} usable){memory}, {info['os']}"
    )
    parts = [f"Python {info['python']}"]
    commit = f", git {info['git_commit']}" if info.get("git_commit") else ""
    parts.append(f"holovec {info['holovec']}{commit}")
    blas = f" ({info['blas']})" if info.get("blas") else ""
    parts.append(f"numpy {info['numpy']}{blas}")
    if info.get("torch"):
        threads = f" ({info['torch_threads']} threads)" if "torch_threads" in info else ""
        parts.append(f"torch {info['torch']}{threads}")
    if info.get("jax"):
        devices = f" ({', '.join(info['jax_devices'])})" if "jax_devices" in info else ""
        parts.append(f"jax {info['jax']}{devices}")
    parts.append(f"torchhd {info['torchhd']}" if info.get("torchhd") else "torchhd not available")
    lines = [machine, "software: " + ", ".join(parts)]
    other = info.get("other_cores_busy")
    if other is not None:
        busy = other > 0.1
        warning = ": times may be inflated, run again on an idle machine" if busy else " (an idle machine)"
        lines.append(f"load:     other processes kept {other:.2f} cores busy during the run{warning}")
    return lines


def gpu_found(framework: str, index: int = 0) -> tuple[str | None, str]:
    """(the name of CUDA GPU ``index`` as ``framework`` ("torch" or "jax") sees it, or None
    where it sees none; what it found, in words, for an error message)."""
    version = _version(framework)
    if version is None:
        return None, f"{framework} is not installed"
    if framework == "torch":
        import torch

        count = torch.cuda.device_count() if torch.cuda.is_available() else 0
        if index < count:
            return torch.cuda.get_device_name(index), f"torch {version}: cuda:{index}"
        build = "" if torch.version.cuda else ", a build without CUDA"
        return None, f"torch {version} finds {count} CUDA GPU(s){build}"
    import jax

    try:
        gpus = jax.devices("gpu")
    except RuntimeError:
        gpus = []
    if index < len(gpus):
        return gpus[index].device_kind, f"jax {version}: {gpus[index]}"
    seen = ", ".join(f"{d.platform}:{d.id} ({d.device_kind})" for d in jax.devices())
    return None, f"jax {version} finds {len(gpus)} GPU(s), only {seen}"


def device_name(framework: str, device: str) -> str:
    """The name of ``device`` ("cpu", "cuda" or "cuda:N") as ``framework`` reports it: the
    GPU's (``torch.cuda.get_device_name``, JAX's device kind) or the CPU's model."""
    if device == "cpu":
        return f"{_cpu_model()} (cpu)"
    index = int(device.partition(":")[2] or 0)
    name, found = gpu_found(framework, index)
    return f"{name} (cuda:{index})" if name else found
