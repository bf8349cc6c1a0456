"""The JSON of a run (``python -m benchmarks --json PATH``): every row of every section in
one list, each row written the same way; and reading it back.

Format 2::

    {"format": 2, "settings": {...}, "machine": {...}, "torchhd_note": ..., "elapsed_s": ...,
     "rows": [{"section": "ops", "backend": "numpy", "model": "MAP", "key": "bind",
               "label": "bind, 1,000 pairs", "baseline_name": "", "latency": false,
               "ratio": 0.93, "flagged": false,
               "times": {"holovec": {"best": ..., "median": ..., "samples": 5,
                                     "calls_per_sample": 8}, "baseline": {...}, "torchhd": null},
               "notes": [], "info": [], "storage": {}, "extras": [], "peak_bytes": {},
               "items": 0, "item": ""}, ...]}

Times are seconds per call; ``best`` is the minimum over the samples. Rows of some
sections carry more fields (learn: ``scores``; the device table: ``bound_s``, ...), which
reading ignores.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .rows import Extra, Row
from .timing import Timing

FORMAT = 2


def _timing(data: dict | None) -> Timing | None:
    return None if data is None else Timing(**data)


def row_to_json(row: Row) -> dict[str, Any]:
    return {
        "section": row.section,
        "backend": row.backend,
        "model": row.model,
        "key": row.key,
        "label": row.label,
        "baseline_name": row.baseline_name,
        "latency": row.latency,
        "ratio": row.ratio,
        "flagged": row.flagged,
        "times": {side: None if t is None else asdict(t) for side, t in row.times.items()},
        "notes": list(row.notes),
        "info": list(row.info),
        "storage": {
            side: {"bytes_per_vector": size, "dtype": dtype} for side, (size, dtype) in row.storage.items()
        },
        "extras": [{"key": e.key, "label": e.label, "timing": asdict(e.timing)} for e in row.extras],
        "peak_bytes": dict(row.peak_bytes),
        "items": row.items,
        "item": row.item_name,
    }


def row_from_json(data: dict[str, Any]) -> Row:
    return Row(
        section=data["section"],
        backend=data["backend"],
        model=data["model"],
        key=data["key"],
        label=data["label"],
        times={side: _timing(t) for side, t in data.get("times", {}).items()},
        baseline_name=data.get("baseline_name", ""),
        latency=data.get("latency", False),
        notes=list(data.get("notes", [])),
        info=list(data.get("info", [])),
        storage={side: (s["bytes_per_vector"], s["dtype"]) for side, s in data.get("storage", {}).items()},
        extras=[Extra(e["key"], e["label"], Timing(**e["timing"])) for e in data.get("extras", [])],
        peak_bytes=dict(data.get("peak_bytes", {})),
        items=data.get("items", 0),
        item_name=data.get("item", ""),
    )


def report(
    rows: list[Row],
    *,
    settings: dict[str, Any],
    machine: dict[str, Any],
    torchhd_note: str | None,
    elapsed_s: float | None,
) -> dict[str, Any]:
    """A run as JSON-ready values."""
    return {
        "format": FORMAT,
        "settings": settings,
        "machine": machine,
        "torchhd_note": torchhd_note,
        "elapsed_s": elapsed_s,
        "rows": [row_to_json(r) for r in rows],
    }


def write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def check(data: Any) -> dict[str, Any]:
    """``data`` if it is a run's JSON of this format, else ``ValueError``."""
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got a {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ValueError(f"benchmark results of format {data.get('format')!r}: expected {FORMAT}")
    return data


def load(path: str | Path) -> tuple[dict[str, Any], list[Row]]:
    """(the run's JSON, its rows)."""
    data = check(json.loads(Path(path).read_text(encoding="utf-8")))
    return data, [row_from_json(r) for r in data["rows"]]
