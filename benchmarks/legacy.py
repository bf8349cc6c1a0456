"""Results of format 1 in today's format: ``python -m benchmarks.legacy FILE...`` rewrites
the files in place (no number changes); ``results.load`` converts on reading.

Format 1 kept three lists of differently shaped rows: ``rows`` (ops), ``encoders`` and
``retrieval``. Its retrieval rows lost the name of their bare operation (the baseline's
timing was written over it under ``"baseline"``); the name is what
``names.bare_operation_name`` gives for the row's backend and model, as the run made it.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ._args import output_file, results_file
from .names import bare_operation_name, search_key
from .rows import SIDES

_SEARCH = re.compile(r"top-\d+, ([\d,]+) queries x ([\d,]+) items")


def _times(row: dict[str, Any], sides: Sequence[str]) -> dict[str, Any]:
    return {side: row[side] for side in sides if side in row and (row[side] is None or "best" in row[side])}


def _common(section: str, row: dict[str, Any], key: str, sides: Sequence[str]) -> dict[str, Any]:
    return {
        "section": section,
        "backend": row["backend"],
        "model": row["model"],
        "key": key,
        "label": row["label"],
        "baseline_name": "",
        "latency": row.get("latency", False),
        "ratio": row.get("ratio"),
        "flagged": row.get("flagged", False),
        "times": _times(row, sides),
        "notes": row.get("notes", []),
        "info": row.get("info", []),
        "storage": row.get("storage", {}),
        "extras": row.get("extras", []),
        "peak_bytes": row.get("peak_bytes", {}),
        "items": row.get("items", 0),
        "item": row.get("item", ""),
    }


def _retrieval(row: dict[str, Any]) -> dict[str, Any]:
    search = _SEARCH.fullmatch(row["label"])
    if search is None:  # the resonator row
        out = _common("retrieval", row, "resonator", ("holovec", "baseline"))
        out["baseline_name"] = "NumPy resonator"
        return out
    n_q, n_items = (int(v.replace(",", "")) for v in search.groups())
    out = _common("retrieval", row, search_key(n_q, n_items), ("holovec", "baseline"))
    # the model's label: holovec's model name, "packed" added for BSC stored bit-packed
    out["baseline_name"] = bare_operation_name(row["backend"], row["model"].removesuffix(" packed"))
    return out


def upgrade_format_1(data: dict[str, Any]) -> dict[str, Any]:
    rows = [_common("ops", r, r["operation"], SIDES) for r in data.get("rows", [])]
    rows += [_common("encoders", r, r["key"], ("holovec", "baseline")) for r in data.get("encoders", [])]
    rows += [_retrieval(r) for r in data.get("retrieval", [])]
    from .results import FORMAT

    return {
        "format": FORMAT,
        "settings": data.get("settings", {}),
        "machine": data.get("machine", {}),
        "torchhd_note": data.get("torchhd_note"),
        "elapsed_s": data.get("elapsed_s"),
        "rows": rows,
    }


def main(argv: Sequence[str] | None = None) -> int:
    from .results import upgrade, write

    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.legacy", description="Rewrite saved benchmark results in today's format."
    )
    parser.add_argument("files", nargs="+", type=_rewritable_results, metavar="FILE.json")
    args = parser.parse_args(argv)
    for path in args.files:
        write(path, upgrade(json.loads(path.read_text(encoding="utf-8"))))
        print(f"{path}: format 2")
    return 0


def _rewritable_results(text: str) -> Path:
    """A benchmark run's JSON that can be rewritten in place (an option type: see ``_args``)."""
    return output_file(str(results_file(text)))


if __name__ == "__main__":
    raise SystemExit(main())
