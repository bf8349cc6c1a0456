"""``python -m benchmarks``: parse the options, run each section's rows, print their tables
and save the JSON."""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, TextIO

from holovec import available_backends

from . import results as results_json
from ._args import comma_separated, non_negative_float, output_file, positive_int, require
from .cases import ModelEntry, available_entries, find_entry
from .device_table import DEFAULT as DEVICE_DEFAULT
from .device_table import FRAMEWORKS as DEVICE_FRAMEWORKS
from .device_table import QUICK as DEVICE_QUICK
from .device_table import render as render_device_table
from .device_table import run_table as run_device_table
from .device_table import to_json as device_json
from .encoders import check_dim as check_encoder_dim
from .machine import CpuMeter, describe, gpu_found, header_lines
from .rows import Row
from .sections import DEFAULT_SECTIONS
from .sections import SECTIONS as SECTION_TABLES
from .sizes import DEFAULT, QUICK, Settings
from .tables import render_report
from .torchhd_ops import torchhd_status

BACKENDS = ("numpy", "torch", "jax", "dask")
#: what --backend all names (the dask-scaling section runs on dask without being asked)
ALL_BACKENDS = ("numpy", "torch", "jax")
SECTIONS = tuple(SECTION_TABLES)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Time holovec's core operations against hand-written vectorised code "
        "and torchhd, at D=10,000.",
    )
    parser.add_argument(
        "--backend",
        dest="backends",
        metavar="BACKEND",
        type=_backend_names,
        default=None,
        help="the backend to time, or several comma-separated (numpy,torch); 'all': numpy, torch and "
        "jax, those installed (default: each section's own, numpy for ops, encoders, retrieval and learn; "
        "with --device: torch,jax, those installed)",
    )
    parser.add_argument(
        "--models",
        type=comma_separated(_model_entry),
        default=None,
        help="comma-separated model names, any case; BSC-packed: BSC stored bit-packed "
        "(default: all registered models, and BSC-packed after BSC)",
    )
    parser.add_argument(
        "--repeat",
        type=positive_int,
        default=None,
        help="at most this many timed samples per cell after the warm-up (default: 5; --quick: 2)",
    )
    parser.add_argument(
        "--budget",
        type=non_negative_float,
        default=None,
        metavar="SECONDS",
        help="stop sampling a cell after this long, once 2 samples are in (default: 1.0; --quick: 0.1)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: a tenth of the vectors (100 per batch, 10 queries x 1,000 items), fewer samples",
    )
    parser.add_argument("--dim", type=positive_int, default=None, help="elements per vector (default: 10000)")
    parser.add_argument("--no-torchhd", action="store_true", help="leave out the torchhd column")
    parser.add_argument(
        "--sections",
        type=comma_separated(_section),
        default=None,
        help="comma-separated sections to run: ops (the operations table), encoders "
        "(benchmarks/encoders.py), retrieval (benchmarks/retrieval.py), learn (holovec.learn on "
        "scikit-learn's data sets, benchmarks/learn.py: minutes), and one study each of "
        "canonical-order, search-engines, jax-eager, compiled, jax-sharded, dask-scaling "
        "(benchmarks/<name>.py) (default: ops,encoders,retrieval)",
    )
    parser.add_argument(
        "--device",
        type=_device,
        default=None,
        help="instead of the sections, the device table (benchmarks/device_table.py): torch "
        "and JAX on this device, cpu, cuda or cuda:N, against hand-written code, torchhd and the "
        "H200 figures before it (default: the sections, on each framework's default device)",
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--json",
        type=output_file,
        default=None,
        metavar="PATH",
        help="also save the results as JSON (a file in a folder that exists; checked before the run)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if args.device is not None:
        _check_device_run(parser, args)
        return args
    args.sections = args.sections or list(DEFAULT_SECTIONS)
    _check_dim(parser, args)
    for name in args.sections:
        for package in SECTION_TABLES[name].needs:
            require(parser, package, f"--sections {name}")
    return args


def _section(name: str) -> str:
    name = name.replace("_", "-")
    if name not in SECTIONS:
        raise argparse.ArgumentTypeError(f"unknown section {name!r}; available: {', '.join(SECTIONS)}")
    return name


def _model_entry(name: str) -> ModelEntry:
    entry = find_entry(name)
    if entry is None:
        available = ", ".join(e.key for e in available_entries())
        raise argparse.ArgumentTypeError(f"unknown model {name!r}; available: {available}")
    return entry


def _backend_names(text: str) -> list[str]:
    installed = available_backends()
    if text.strip() == "all":
        return [b for b in ALL_BACKENDS if b in installed]
    names = comma_separated(str)(text)
    for name in names:
        if name not in BACKENDS:
            raise argparse.ArgumentTypeError(f"unknown backend {name!r}: {', '.join(BACKENDS)} or all")
        if name not in installed:
            raise argparse.ArgumentTypeError(
                f"backend {name!r} is not installed; installed: {', '.join(installed)}"
            )
    return names


def _device(text: str) -> str:
    if not re.fullmatch(r"cpu|cuda(:[0-9]+)?", text):
        raise argparse.ArgumentTypeError(f"expected cpu, cuda or cuda:N (a GPU's index), got {text!r}")
    return text


def _check_device_run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a usage error unless the device table can run as asked: torch or JAX (not
    NumPy), no option of the sections, and for ``cuda`` a GPU that a framework sees (the
    frameworks are imported here to look). A framework left to the default that sees no
    GPU is left out, and the table says so."""
    for option, value in (("--models", args.models), ("--sections", args.sections)):
        if value is not None:
            parser.error(f"argument --device: the device table has no {option} (leave it out)")
    given = args.backends is not None
    installed = available_backends()
    frameworks = args.backends if given else [f for f in DEVICE_FRAMEWORKS if f in installed]
    if not set(frameworks) <= set(DEVICE_FRAMEWORKS):
        parser.error("argument --device: the device table times torch and jax; leave numpy out of --backend")
    if not frameworks:
        parser.error("argument --device: the device table needs torch or jax, and neither is installed")
    require(parser, "sklearn", "--device (its fits run on scikit-learn's digits)")
    args.device_notes = []
    if args.device.startswith("cuda"):
        # JAX takes 75% of the GPU's memory at its first use unless told otherwise, which
        # would leave torch's rows (run first) and JAX's large searches short
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        index = int(args.device.partition(":")[2] or 0)
        found = {f: gpu_found(f, index) for f in frameworks}
        with_gpu = [f for f in frameworks if found[f][0] is not None]
        missing = "; ".join(found[f][1] for f in frameworks if found[f][0] is None)
        if not with_gpu or (given and len(with_gpu) < len(frameworks)):
            parser.error(f"argument --device: no CUDA GPU {args.device} found: {missing}")
        if len(with_gpu) < len(frameworks):
            args.device_notes.append(f"left out, no GPU: {missing}")
        frameworks = with_gpu
    args.backends = frameworks


def _check_dim(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a usage error if a model of the ops table (VTB takes squares, GHRR multiples
    of 4, ...) or an encoder of the encoders section refuses ``--dim``: their own checks, on
    NumPy, where making them is cheap."""
    if args.dim is None:
        return
    if "ops" in args.sections:
        for entry in args.models or available_entries():
            try:
                entry.create(args.dim, "numpy")
            except (ValueError, TypeError) as error:
                parser.error(f"argument --dim: {error} (or leave {entry.key} out of --models)")
    if "encoders" in args.sections:
        try:
            check_encoder_dim(args.dim)
        except (ValueError, TypeError) as error:
            parser.error(f"argument --dim: {error} (in the encoders section)")


def section_backends(section: Any, asked: Sequence[str] | None) -> list[str]:
    """The backends ``section`` runs on: those of ``--backend`` it supports, else its own
    (those installed)."""
    if asked is None:
        return [b for b in section.backends if b in available_backends()]
    return [b for b in asked if b in section.supports]


def run(settings: Settings, sections: Sequence[str]) -> tuple[list[Row], list[str]]:
    """Every row of every section asked for, and a line for each section that had no
    backend to run on."""
    rows: list[Row] = []
    skipped = []
    for name in sections:
        section = SECTION_TABLES[name]
        backends = section_backends(section, settings.backends)
        if backends:
            rows += section.run(settings, backends)
        else:
            skipped.append(f"{name}: not run, it runs on {', '.join(section.supports)} only")
    return rows, skipped


def settings_line(settings: Settings, backends: Sequence[str]) -> str:
    return (
        f"holovec benchmarks: D={settings.sizes.dim:,}, backend {', '.join(backends)}; time per call, "
        f"the minimum over up to {settings.repeat} samples after one warm-up call"
    )


def settings_json(settings: Settings, device: bool = False) -> dict[str, Any]:
    if device:
        statistic = "median over samples, seconds per call (min also given)"
        return {"repeat": settings.repeat, "budget_s": settings.budget_s, "statistic": statistic}
    return {
        "sizes": asdict(settings.sizes),
        "repeat": settings.repeat,
        "budget_s": settings.budget_s,
        "statistic": "min over samples, seconds per call (median also given)",
    }


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = parse_args(argv)
    out = sys.stdout if out is None else out
    torchhd_version, torchhd_note = (None, "left out (--no-torchhd)") if args.no_torchhd else torchhd_status()
    settings = Settings(
        sizes=(QUICK if args.quick else DEFAULT).with_dim(args.dim),
        repeat=args.repeat if args.repeat is not None else (2 if args.quick else 5),
        budget_s=args.budget if args.budget is not None else (0.1 if args.quick else 1.0),
        torchhd=torchhd_version is not None,
        quick=args.quick,
        dim_given=args.dim is not None,
        backends=args.backends,
        models=args.models,
        progress=None if args.quiet else sys.stderr,
    )
    meter = CpuMeter()
    started = time.perf_counter()
    if args.device is not None:  # the device table (benchmarks/device_table.py) instead of the sections
        report = run_device_table(
            args.backends,
            args.device,
            sizes=(DEVICE_QUICK if args.quick else DEVICE_DEFAULT).with_dim(args.dim),
            repeat=settings.repeat,
            budget_s=settings.budget_s,
            torchhd=settings.torchhd,
            progress=settings.progress,
        )
        report.notes += args.device_notes + ([f"torchhd: {torchhd_note}"] if torchhd_note else [])
        rows, skipped = list(report.rows), []
    else:
        rows, skipped = run(settings, args.sections)
    elapsed = time.perf_counter() - started
    machine = describe(torchhd_version, meter)
    if args.device is not None:
        text = render_device_table(report, header_lines(machine), markdown=args.markdown)
    else:
        text = render_report(
            rows,
            [SECTION_TABLES[name] for name in SECTIONS],
            title=settings_line(settings, list(dict.fromkeys(r.backend for r in rows)) or ["none"]),
            header=header_lines(machine),
            legends={name: [f"torchhd: {torchhd_note}"] if torchhd_note else [] for name in ("ops", "learn")},
            markdown=args.markdown,
        )
    print(text, file=out)
    print("".join(f"\n{line}" for line in skipped) + f"\n(ran in {elapsed:.0f} s)", file=out)
    if args.json is not None:
        data = results_json.report(
            rows,
            settings=settings_json(settings, device=args.device is not None),
            machine=machine,
            torchhd_note=torchhd_note,
            elapsed_s=elapsed,
        )
        if args.device is not None:
            device_json(report, data)
        for name in [] if args.device is not None else args.sections:
            if SECTION_TABLES[name].add_json is not None:
                SECTION_TABLES[name].add_json(data, rows, settings)
        results_json.write(args.json, data)
    return 0


def section_main(name: str) -> int:
    """``python -m benchmarks.<module> [options]``: ``python -m benchmarks --sections <name>``."""
    return main(["--sections", name, *sys.argv[1:]])
