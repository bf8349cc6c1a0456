"""The benchmark command runs end to end (tiny sizes, NumPy only). No time is asserted."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root holds benchmarks/

from benchmarks.cli import main


def test_quick_run_prints_and_saves_every_row(tmp_path):
    out = io.StringIO()
    path = tmp_path / "results.json"
    argv = [
        "--quick",
        "--dim",
        "256",
        "--backend",
        "numpy",
        "--models",
        "FHRR,MAP,BSC",
        "--repeat",
        "1",
        "--budget",
        "0",
        "--no-torchhd",
        "--quiet",
        "--json",
        str(path),
    ]
    assert main(argv, out=out) == 0
    text = out.getvalue()
    assert "backend: numpy" in text and "bind latency" in text
    rows = json.loads(path.read_text())["rows"]
    assert {(r["model"], r["operation"]) for r in rows} == {
        (m, op)
        for m in ("FHRR", "MAP", "BSC")
        for op in ("random", "bind", "bundle", "similarity_matrix", "bind_latency", "similarity_latency")
    }
    for r in rows:
        assert r["holovec"]["best"] > 0 and r["baseline"]["best"] > 0
        assert r["notes"] == []  # each baseline computes what holovec computes
