"""Option types shared by the benchmark commands.

Each ``type=`` function below reads one option's text and raises
``argparse.ArgumentTypeError`` when it is wrong, which argparse turns into a one-line usage
error and exit status 2 (no traceback). They run while the options are parsed: before any
framework is imported or anything is measured, so a bad option costs no time, and an
output file that cannot be written is found before the run rather than after it.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def positive_int(text: str) -> int:
    """A whole number of at least 1 (a count: repeats, vectors, devices)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {value}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number of at least 0 (seconds of a time budget, a relative tolerance)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of at least 0, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"expected a finite number of at least 0, got {text!r}")
    return value


def comma_separated(item: Callable[[str], T]) -> Callable[[str], list[T]]:
    """A type for a comma-separated list whose parts ``item`` reads; an empty list is refused."""

    def parse(text: str) -> list[T]:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {text!r}")
        return [item(part) for part in parts]

    return parse


def output_file(text: str) -> Path:
    """A file that can be written now: its folder exists and it is not a folder itself.

    Checked by opening it (for appending, so an existing file keeps its contents; a new one
    is removed again), which also catches what permission bits do not show: a read-only
    file system, a file a privileged user still cannot write.
    """
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; expected a file name in it")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: no folder {str(path.parent)!r}")
    existed = path.exists()
    try:
        with path.open("ab"):
            pass
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: {error.strerror}") from None
    if not existed:
        path.unlink()
    return path


def input_file(text: str) -> Path:
    """A regular file that can be read."""
    path = Path(text)
    if not path.is_file():
        what = (
            "is a folder" if path.is_dir() else "is not a regular file" if path.exists() else "does not exist"
        )
        raise argparse.ArgumentTypeError(f"{text!r} {what}; expected a file")
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot read {text!r}: {error.strerror}") from None
    return path


def results_file(text: str) -> Path:
    """A readable file that holds the JSON of a benchmark run (``--json``), of any format
    ``results.load`` reads."""
    from .results import load

    path = input_file(text)
    try:
        load(path)
    except (ValueError, KeyError, TypeError) as error:  # not JSON, or not a run's JSON
        reason = f"no {error}" if isinstance(error, KeyError) else str(error)
        raise argparse.ArgumentTypeError(f"{text!r} is not the JSON of a benchmark run: {reason}") from None
    return path


def require(parser: argparse.ArgumentParser, package: str, needed_for: str) -> None:
    """Exit with a usage error unless ``package`` is installed (found without importing it)."""
    if importlib.util.find_spec(package) is None:
        parser.error(f"{needed_for} needs {package}, which is not installed")
