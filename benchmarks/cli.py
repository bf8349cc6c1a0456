"""``python -m benchmarks``: parse the options, run the rows, print the table."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from holovec import available_backends

from .cases import ModelEntry, Result, Settings, available_entries, find_entry, run_model
from .encoders import encoders_json, render_encoders, run_encoders
from .machine import CpuMeter, describe, header_lines
from .report import render_markdown, render_text, to_json
from .retrieval import render_retrieval, retrieval_json, run_retrieval
from .sizes import DEFAULT, QUICK
from .torchhd_ops import torchhd_status

BACKENDS = ("numpy", "torch", "jax")
SECTIONS = ("ops", "encoders", "retrieval")


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Time holovec's core operations against hand-written vectorised code "
        "and torchhd, at D=10,000.",
    )
    parser.add_argument(
        "--backend",
        default="numpy",
        choices=[*BACKENDS, "all"],
        help="the backend to time; 'all': every installed one (default: numpy)",
    )
    parser.add_argument(
        "--models",
        default=None,
        help="comma-separated model names, any case; BSC-packed: BSC stored bit-packed "
        "(default: all registered models, and BSC-packed after BSC)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=None,
        help="at most this many timed samples per cell after the warm-up (default: 5; --quick: 2)",
    )
    parser.add_argument(
        "--budget",
        type=float,
        default=None,
        metavar="SECONDS",
        help="stop sampling a cell after this long, once 2 samples are in (default: 1.0; --quick: 0.1)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="a smoke run: a tenth of the vectors (100 per batch, 10 queries x 1,000 items), fewer samples",
    )
    parser.add_argument("--dim", type=int, default=None, help="elements per vector (default: 10000)")
    parser.add_argument("--no-torchhd", action="store_true", help="leave out the torchhd column")
    parser.add_argument(
        "--sections",
        default=",".join(SECTIONS),
        help="comma-separated sections to run: ops (the operations table), encoders "
        "(benchmarks/encoders.py), retrieval (benchmarks/retrieval.py) (default: all three)",
    )
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument(
        "--json", type=Path, default=None, metavar="PATH", help="also save the results as JSON"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if args.repeat is not None and args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.dim is not None and args.dim < 1:
        parser.error("--dim must be at least 1")
    args.sections = [part.strip() for part in args.sections.split(",") if part.strip()]
    unknown = [part for part in args.sections if part not in SECTIONS]
    if unknown or not args.sections:
        given = ", ".join(unknown) or "(none given)"
        parser.error(f"unknown section(s) {given}; available: {', '.join(SECTIONS)}")
    args.models_given = args.models is not None
    args.models = _model_names(parser, args.models)
    args.backends = _backend_names(parser, args.backend)
    return args


def _model_names(parser: argparse.ArgumentParser, text: str | None) -> list[ModelEntry]:
    available = available_entries()
    if text is None:
        return available
    found = [(part.strip(), find_entry(part)) for part in text.split(",") if part.strip()]
    unknown = [name for name, entry in found if entry is None]
    if unknown or not found:
        given = ", ".join(unknown) or "(none given)"
        parser.error(f"unknown model(s) {given}; available: {', '.join(e.key for e in available)}")
    return [entry for _, entry in found if entry is not None]


def _backend_names(parser: argparse.ArgumentParser, choice: str) -> list[str]:
    installed = available_backends()
    if choice == "all":
        return [b for b in BACKENDS if b in installed]
    if choice not in installed:
        parser.error(f"backend {choice!r} is not installed; installed: {', '.join(installed)}")
    return [choice]


def run(
    backends: Sequence[str],
    models: Sequence[ModelEntry | str],
    settings: Settings,
    progress: TextIO | None = None,
) -> list[Result]:
    """Every row for every backend and model (entries, or model names)."""
    results: list[Result] = []
    torchhd_cache: dict = {}  # torchhd runs on torch's CPU whatever the backend: time it once
    for backend in backends:
        for model in models:
            results += run_model(backend, model, settings, torchhd_cache, progress)
    return results


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = parse_args(argv)
    out = sys.stdout if out is None else out
    sizes = (QUICK if args.quick else DEFAULT).with_dim(args.dim)
    torchhd_version, torchhd_note = (None, "left out (--no-torchhd)") if args.no_torchhd else torchhd_status()
    settings = Settings(
        sizes=sizes,
        repeat=args.repeat if args.repeat is not None else (2 if args.quick else 5),
        budget_s=args.budget if args.budget is not None else (0.1 if args.quick else 1.0),
        torchhd=torchhd_version is not None,
    )
    meter = CpuMeter()
    started = time.perf_counter()
    results = []
    if "ops" in args.sections:
        results = run(args.backends, args.models, settings, None if args.quiet else sys.stderr)
    encoder_results = []
    if "encoders" in args.sections:
        encoder_results = run_encoders(
            args.backends,
            dim=sizes.dim,
            quick=args.quick,
            repeat=settings.repeat,
            budget_s=settings.budget_s,
            progress=None if args.quiet else sys.stderr,
        )
    retrieval_results = []
    if "retrieval" in args.sections:
        retrieval_results = run_retrieval(
            args.backends,
            dim=sizes.dim,
            quick=args.quick,
            repeat=settings.repeat,
            budget_s=settings.budget_s,
            models=args.models if args.models_given else None,
            progress=None if args.quiet else sys.stderr,
        )
    elapsed = time.perf_counter() - started
    machine = describe(torchhd_version, meter)
    header = header_lines(machine)
    render = render_markdown if args.markdown else render_text
    print(render(results, settings, header, torchhd_note), file=out)
    if encoder_results:
        print(render_encoders(encoder_results, markdown=args.markdown), file=out)
    if retrieval_results:
        print(render_retrieval(retrieval_results, markdown=args.markdown), file=out)
    print(f"\n(ran in {elapsed:.0f} s)", file=out)
    if args.json is not None:
        report = to_json(results, settings, machine, torchhd_note)
        report["encoders"] = encoders_json(encoder_results)
        report["retrieval"] = retrieval_json(retrieval_results)
        report["elapsed_s"] = elapsed
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0
