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
        "FHRR,MAP,BSC,BSC-packed",
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
    assert "BSC packed 32 (uint8" in text  # bytes per vector: 8 * ceil(256 / 64)
    rows = json.loads(path.read_text())["rows"]
    assert {(r["model"], r["operation"]) for r in rows} == {
        (m, op)
        for m in ("FHRR", "MAP", "BSC", "BSC packed")
        for op in ("random", "bind", "bundle", "similarity_matrix", "bind_latency", "similarity_latency")
    }
    for r in rows:
        assert r["holovec"]["best"] > 0 and r["baseline"]["best"] > 0
        assert r["notes"] == []  # each baseline computes what holovec computes
    search = {r["model"]: r for r in rows if r["operation"] == "similarity_matrix"}
    packed = search["BSC packed"]
    assert "float32 matmul" in packed["label"]
    assert packed["storage"] == {
        "holovec": {"bytes_per_vector": 32, "dtype": "uint8"},
        "unpacked": {"bytes_per_vector": 256, "dtype": "uint8"},
        "baseline": {"bytes_per_vector": 1024, "dtype": "float32"},
    }
    assert [e["key"] for e in packed["extras"]] == ["hamming"]  # the packed Hamming baseline too
    assert search["BSC"]["storage"]["holovec"] == {"bytes_per_vector": 256, "dtype": "uint8"}
    # the encoders section: every case, timed against its NumPy baseline, which agrees
    encoders = {r["key"]: r for r in json.loads(path.read_text())["encoders"]}
    assert {"ngram_text", "image_batch"} <= set(encoders)
    for r in encoders.values():
        assert r["holovec"]["best"] > 0 and r["baseline"]["best"] > 0 and r["notes"] == []
    assert "encoders, backend: numpy" in text
    # the retrieval section: search rows per model and size, and the resonator row
    retrieval = json.loads(path.read_text())["retrieval"]
    searched = {(r["model"], r["label"]) for r in retrieval if r["label"].startswith("top-10")}
    assert searched == {
        (m, f"top-10, {q} queries x 1,000 items")
        for m in ("FHRR", "MAP", "BSC", "BSC packed")
        for q in (10, 100)
    }
    for r in retrieval:
        assert r["holovec"]["best"] > 0 and r["baseline"]["best"] > 0
        assert r["notes"] == []  # holovec and the bare scores both find each query's item
        if r["label"].startswith("top-10"):
            assert r["peak_bytes"]["holovec"] > 0  # tracemalloc sees NumPy's arrays
    (resonator,) = [r for r in retrieval if r["label"].startswith("resonator")]
    assert resonator["info"][0].startswith("holovec: 100% factored")
    assert "retrieval, backend: numpy" in text
