"""Two runs side by side: ``python -m benchmarks.compare BEFORE.json AFTER.json``.

Rows are matched by section, backend, model and key (either file may be of format 1).
For each: holovec's time before and after, after / before, and holovec / baseline in
each run (the baseline ran in the same process at about the same time, so its ratio is
less moved by the machine's load than the time itself). ``!`` marks a row whose time
grew by more than ``--tolerance`` and whose ratio to the baseline grew too.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from ._args import non_negative_float, results_file
from .columns import format_seconds
from .results import load
from .rows import Row
from .tables import format_table


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _cells(before: Row, after: Row, tolerance: float) -> list[str]:
    b, a = before.best("holovec"), after.best("holovec")
    change = None if a is None or b is None else a / b
    slower = (
        change is not None
        and change > 1 + tolerance
        and (before.ratio is None or after.ratio is None or after.ratio > before.ratio * (1 + tolerance))
    )
    return [
        after.model,
        after.label,
        format_seconds(b),
        format_seconds(a),
        _ratio(change) + (" !" if slower else ""),
        _ratio(before.ratio),
        _ratio(after.ratio),
    ]


def _machine(name: str, data: dict) -> str:
    m = data.get("machine", {})
    busy = m.get("other_cores_busy")
    load = "" if busy is None else f", other processes kept {busy:.2f} cores busy"
    return f"{name}: git {m.get('git_commit')}, {m.get('cpu')}, {m.get('usable_cores')} cores{load}"


def compare(before: Path, after: Path, *, tolerance: float = 0.1, markdown: bool = False) -> str:
    (data_b, rows_b), (data_a, rows_a) = load(before), load(after)
    earlier = {(r.section, r.backend, r.model, r.key): r for r in rows_b}
    lines = [_machine(f"before ({before})", data_b), _machine(f"after ({after})", data_a)]
    header = ["model", "operation", "before", "after", "after/before", "ratio before", "ratio after"]
    groups: dict[tuple[str, str], list[list[str]]] = {}
    only_after = []
    for r in rows_a:
        old = earlier.pop((r.section, r.backend, r.model, r.key), None)
        if old is None:
            only_after.append(f"{r.section} {r.backend} {r.model} {r.key}")
        else:
            groups.setdefault((r.section, r.backend), []).append(_cells(old, r, tolerance))
    style = "markdown" if markdown else "text"
    for (section, backend), body in groups.items():
        title = f"{section}, backend: {backend} (holovec's time; ratio: holovec / baseline)"
        lines += ["", f"**{title}**" if markdown else title, ""]
        lines += format_table(header, body, [True, True] + [False] * 5, style)
    only_before = [" ".join(key) for key in earlier]
    for name, keys in (("only before", only_before), ("only after", only_after)):
        shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5 else "")
        lines += ["", f"{name}: {shown}"] if keys else []
    lines += ["", f"!: more than {tolerance:.0%} slower, and slower against the baseline too"]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__.split("\n")[0])
    parser.add_argument("before", type=results_file, help="the JSON of one run (--json)")
    parser.add_argument("after", type=results_file, help="the JSON of a later run")
    parser.add_argument(
        "--tolerance", type=non_negative_float, default=0.1, help="relative change flagged (default 0.1)"
    )
    parser.add_argument("--markdown", action="store_true", help="print Markdown tables")
    args = parser.parse_args(argv)
    print(compare(args.before, args.after, tolerance=args.tolerance, markdown=args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
