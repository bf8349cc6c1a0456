"""The benchmark command runs end to end (tiny sizes, NumPy only), and the docs' tables
render its JSON. No time is asserted."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository root holds benchmarks/

from benchmarks.cli import main  # noqa: E402

OPERATIONS = ("random", "bind", "bundle", "similarity_matrix", "bind_latency", "similarity_latency")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    """(printed text, JSON path) of one tiny run of every section."""
    path = tmp_path_factory.mktemp("benchmarks") / "results.json"
    out = io.StringIO()
    argv = ["--quick", "--dim", "256", "--backend", "numpy", "--models", "FHRR,MAP,BSC,BSC-packed"]
    argv += ["--repeat", "1", "--budget", "0", "--no-torchhd", "--quiet", "--json", str(path)]
    assert main(argv, out=out) == 0
    return out.getvalue(), path


def test_quick_run_prints_and_saves_every_row(quick_run):
    text, path = quick_run
    assert "backend: numpy" in text and "bind latency" in text
    assert "BSC packed 32 (uint8" in text  # bytes per vector: 8 * ceil(256 / 64)
    data = json.loads(path.read_text())
    assert data["format"] == 2
    rows = data["rows"]
    assert {r["section"] for r in rows} == {"ops", "encoders", "retrieval"}
    # every row has the same fields, whatever its section
    assert len({tuple(r) for r in rows}) == 1
    ops = [r for r in rows if r["section"] == "ops"]
    assert {(r["model"], r["key"]) for r in ops} == {
        (m, op) for m in ("FHRR", "MAP", "BSC", "BSC packed") for op in OPERATIONS
    }
    for r in ops:
        assert r["times"]["holovec"]["best"] > 0 and r["times"]["baseline"]["best"] > 0
        assert r["notes"] == []  # each baseline computes what holovec computes
    search = {r["model"]: r for r in ops if r["key"] == "similarity_matrix"}
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
    encoders = {r["key"]: r for r in rows if r["section"] == "encoders"}
    assert {"ngram_text", "image_batch"} <= set(encoders)
    for r in encoders.values():
        assert r["times"]["holovec"]["best"] > 0 and r["times"]["baseline"]["best"] > 0
        assert r["notes"] == [] and r["items"] > 0
    assert "encoders, backend: numpy" in text
    # the retrieval section: search rows per model and size, and the resonator row
    retrieval = [r for r in rows if r["section"] == "retrieval"]
    searched = {(r["model"], r["label"]) for r in retrieval if r["key"].startswith("search")}
    assert searched == {
        (m, f"top-10, {q} queries x 1,000 items")
        for m in ("FHRR", "MAP", "BSC", "BSC packed")
        for q in (10, 100)
    }
    for r in retrieval:
        assert r["times"]["holovec"]["best"] > 0 and r["times"]["baseline"]["best"] > 0
        assert r["notes"] == []  # holovec and the bare scores both find each query's item
        if r["key"].startswith("search"):
            assert r["peak_bytes"]["holovec"] > 0  # tracemalloc sees NumPy's arrays
    (resonator,) = [r for r in retrieval if r["key"] == "resonator"]
    assert resonator["info"][0].startswith("holovec: 100% factored")
    assert "retrieval, backend: numpy" in text
    # the JSON reads back into the same rows
    from benchmarks.results import load

    _, back = load(path)
    assert [r.label for r in back] == [r["label"] for r in rows]


def test_search_table_names_the_bare_operation(quick_run, tmp_path):
    """The docs' search table says which bare operation each time is, not a raw dict."""
    pytest.importorskip("sphinx")
    text, path = quick_run
    (tmp_path / "results.json").write_text(path.read_text())
    (tmp_path / "conf.py").write_text(
        f"import sys\nsys.path[:0] = [{str(ROOT / 'docs' / '_ext')!r}, {str(ROOT)!r}]\n"
        "extensions = ['benchmark_tables']\n"
    )
    (tmp_path / "index.rst").write_text(
        "Search\n======\n\n.. benchmark-table:: results.json\n   :section: retrieval\n"
    )
    out = tmp_path / "_build"
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "-b", "html", str(tmp_path), str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    page = (out / "index.html").read_text(encoding="utf-8")
    table = page[page.index("<table") : page.index("</table>")]
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td>(.*?)</td>", table, re.S)]
    bare = cells[3::6]  # model, operation, holovec, bare operation, holovec / bare, peak memory
    assert "{" not in table
    assert len(bare) == 9 and all(
        re.fullmatch(r"[\d.]+ (s|ms|us|ns) \((real matmul|matmul|XOR/popcount|NumPy resonator)\)", c)
        for c in bare
    ), bare
    # the printed table says the same
    assert "(XOR/popcount)" in text and "(NumPy resonator)" in text and "{" not in text


def test_compare_matches_rows_of_two_runs(quick_run):
    from benchmarks.compare import compare

    _, path = quick_run
    text = compare(path, path)
    assert "ops, backend: numpy" in text and "retrieval, backend: numpy" in text
    assert "1.00x" in text and " !" not in text and "only before" not in text


def test_results_of_format_1_are_read_with_their_numbers():
    """Runs saved before one row type (format 1) are converted, numbers kept; their search
    rows get back the bare operation's name that the timing had been written over."""
    from benchmarks.results import upgrade

    timing = {"best": 0.5, "median": 0.6, "samples": 2, "calls_per_sample": 1}
    old = {
        "format": 1,
        "settings": {"repeat": 5},
        "machine": {"cpu": "x"},
        "torchhd_note": None,
        "rows": [
            {"backend": "numpy", "model": "MAP", "operation": "bind", "label": "bind, 1,000 pairs"}
            | {"latency": False, "ratio": 1.0, "flagged": False, "notes": [], "storage": {}, "extras": []}
            | {"holovec": timing, "baseline": timing, "torchhd": None}
        ],
        "encoders": [
            {"backend": "torch", "key": "fpe_decode", "model": "FHRR", "label": "FPE decode, 100 vectors"}
            | {
                "items": 100,
                "item": "vector",
                "ratio": None,
                "notes": [],
                "holovec": timing,
                "baseline": None,
            }
        ],
        "retrieval": [
            {"backend": b, "model": m, "label": "top-10, 1,000 queries x 100,000 items", "baseline": timing}
            | {
                "ratio": 1.0,
                "peak_bytes": {"holovec": 7, "baseline": 9},
                "notes": [],
                "info": [],
                "holovec": timing,
            }
            for b, m in (("numpy", "BSC packed"), ("jax", "BSC"), ("numpy", "FHRR"))
        ],
        "elapsed_s": 3.0,
    }
    new = upgrade(old)
    assert new["format"] == 2 and new["machine"] == {"cpu": "x"} and new["elapsed_s"] == 3.0
    ops, encoder, *search = new["rows"]
    assert (ops["section"], ops["key"], ops["times"]) == (
        "ops",
        "bind",
        {"holovec": timing, "baseline": timing, "torchhd": None},
    )
    assert (encoder["key"], encoder["items"], encoder["item"]) == ("fpe_decode", 100, "vector")
    assert encoder["times"] == {"holovec": timing, "baseline": None}
    assert [r["baseline_name"] for r in search] == ["XOR/popcount", "+-1 float32 matmul", "real matmul"]
    assert {r["key"] for r in search} == {"search-1000x100000"}
    assert all(r["times"] == {"holovec": timing, "baseline": timing} for r in search)
    assert search[0]["peak_bytes"] == {"holovec": 7, "baseline": 9}


def test_canonical_order_benchmark_quick_run(capsys):
    """The cost of the canonical order is printed for every case, next to its baselines."""
    from benchmarks import canonical_order

    canonical_order.main(["--quick", "--repeats", "1"])
    lines = capsys.readouterr().out.strip().splitlines()
    assert "fast only" in lines[0] and "hand-written" in lines[0]
    assert len(lines) == 1 + len(canonical_order.QUICK)
    assert all(line.rstrip().endswith("x") for line in lines[1:])
