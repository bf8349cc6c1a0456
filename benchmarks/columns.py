"""The columns a table can show, each a header and how to write a row's cell; and the
benchmark's formatting of times and sizes. The printed tables (``sections``) and the
docs' tables (``docs/_ext/benchmark_tables.py``) pick their columns from here."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

from .rows import Row


def format_seconds(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds):
        return "-"
    units = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9))
    unit, scale = next(((u, f) for u, f in units if seconds >= f), units[-1])
    value = seconds / scale
    return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"


def format_bytes(n: int | None) -> str:
    if n is None:
        return "-"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


@dataclass(frozen=True)
class Column:
    header: str
    cell: Callable[[Row], str]
    text: bool = False  #: a text column (aligned left); numbers align right

    def named(self, header: str) -> Column:
        """The same column under another header."""
        return replace(self, header=header)


def _time(side: str) -> Callable[[Row], str]:
    return lambda row: format_seconds(row.best(side))


def time_column(side: str, header: str) -> Column:
    """The best time of ``side`` (any key of ``Row.times``)."""
    return Column(header, _time(side))


def ratio_column(numerator: str, denominator: str, header: str) -> Column:
    """The best time of one side over another's."""

    def cell(row: Row) -> str:
        a, b = row.best(numerator), row.best(denominator)
        return "-" if a is None or b is None else f"{a / b:.2f}x"

    return Column(header, cell)


def _baseline(row: Row) -> str:
    time = format_seconds(row.best("baseline"))
    return f"{time} ({row.baseline_name})" if row.baseline_name and time != "-" else time


def _ratio(row: Row) -> str:
    return "-" if row.ratio is None else f"{row.ratio:.2f}x"


def _flagged_ratio(row: Row) -> str:
    return _ratio(row) + (" !" if row.flagged else "")


def _per_item(row: Row) -> str:
    best = row.best("holovec")
    if best is None or not row.items:
        return "-"
    if row.item_name == "kB":
        return f"{format_seconds(best / (row.items / 1000))} per kB"
    return f"{format_seconds(best / row.items)} per {row.item_name}"


def _peak_memory(row: Row) -> str:
    peak = row.peak_bytes
    if all(v is None for v in peak.values()):
        return "-"
    return f"{format_bytes(peak.get('holovec'))} / {format_bytes(peak.get('baseline'))}"


BACKEND = Column("backend", lambda row: row.backend, text=True)
MODEL = Column("model", lambda row: row.model, text=True)
LABEL = Column("operation", lambda row: row.label, text=True)
HOLOVEC = Column("holovec", _time("holovec"))
#: the baseline's time, and what it is where the row says (retrieval: "12 ms (matmul)")
BASELINE = Column("baseline", _baseline)
RATIO = Column("holovec/baseline", _ratio)
#: the ratio, marked " !" where the row is flagged (ops)
FLAGGED_RATIO = Column("holovec/baseline", _flagged_ratio)
TORCHHD = Column("torchhd", _time("torchhd"))
PER_ITEM = Column("holovec per item", _per_item)
PEAK_MEMORY = Column("peak memory holovec / bare", _peak_memory)
