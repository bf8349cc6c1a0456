"""The benchmark command runs end to end (tiny sizes, NumPy only), and the docs' tables
render its JSON. No time is asserted."""

from __future__ import annotations

import importlib.util
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


def test_results_of_another_format_are_refused(tmp_path):
    """Only this format (2) is read; anything else says what it found and what it expects."""
    from benchmarks.results import load

    path = tmp_path / "old.json"
    path.write_text('{"format": 1, "rows": []}')
    with pytest.raises(ValueError, match="benchmark results of format 1: expected 2"):
        load(path)


#: the sections that study one idea each, with what their rows must time
STUDIES = {
    "canonical-order": {"holovec", "fast", "baseline"},
    "search-engines": {"holovec", "baseline"},
    "jax-eager": {"holovec", "baseline"},
    "compiled": {"holovec", "baseline"},
    "jax-sharded": {"holovec", "one", "baseline"},
    "dask-scaling": {"holovec", "baseline"},
    "memory": {"holovec", "baseline"},
}


@pytest.fixture(scope="module")
def studies_run(tmp_path_factory):
    """(printed text, JSON) of one tiny run of every study section, of MAP and HRR only;
    torch.compile is replaced by the function itself (compiling takes a minute here; the rows
    stay the same)."""
    for package in ("jax", "torch", "dask", "distributed"):
        pytest.importorskip(package)
    import torch

    path = tmp_path_factory.mktemp("studies") / "results.json"
    argv = ["--quick", "--dim", "256", "--repeat", "1", "--budget", "0", "--quiet", "--no-torchhd"]
    argv += ["--sections", ",".join(STUDIES), "--backend", "numpy,jax,torch,dask", "--json", str(path)]
    argv += ["--models", "MAP,HRR"]  # of the models each section times, these only (a smoke run)
    out, compile_ = io.StringIO(), torch.compile
    torch.compile = lambda fn, **options: fn
    try:
        assert main(argv, out=out) == 0
    finally:
        torch.compile = compile_
    return out.getvalue(), json.loads(path.read_text())


@pytest.mark.parametrize("section", list(STUDIES))
def test_each_study_section_times_holovec_against_its_baseline(studies_run, section):
    """Every study section goes through the same rows and tables: holovec's time next to
    the hand-written one (and its own further sides), each result checked once."""
    text, data = studies_run
    rows = [r for r in data["rows"] if r["section"] == section]
    assert rows, section
    for r in rows:
        timed = {side for side, t in r["times"].items() if t}
        assert STUDIES[section] <= timed, (r["label"], timed)
        assert all(r["times"][side]["best"] > 0 for side in timed)
        assert r["notes"] == [], (r["label"], r["notes"])  # every side finds what holovec finds
        assert r["label"] in text
    assert f"{section}:" in text


def test_study_sections_print_their_peers(studies_run):
    text, data = studies_run
    rows = data["rows"]
    compiled = [r for r in rows if r["section"] == "compiled" and r["backend"] == "torch"]
    assert compiled and all(r["times"]["holovec_compiled"] for r in compiled)
    assert {r["backend"] for r in rows if r["section"] == "compiled"} == {"jax", "torch"}
    engines = [r for r in rows if r["section"] == "search-engines"]
    assert any(r["label"] == "packed BSC ItemStore, before (dense path)" for r in engines)
    assert "popcount limit (estimate)" in text and "fastest other engine" in text
    if importlib.util.find_spec("numba") is not None:
        assert "numba fused kernel, 1 thread(s):" in text
    assert "dask x1" in text and "Dask/NumPy" in text  # the ratio Dask / NumPy
    assert "sharded/one device" in text and "goal" in text


def test_learn_section_scores_every_data_set(tmp_path):
    """The learn section (tiny: one split, D=256, NumPy): every learner's score and fit time
    on each data set, in its table and in the JSON (with the section's settings)."""
    pytest.importorskip("sklearn")
    path, out = tmp_path / "learn.json", io.StringIO()
    argv = ["--sections", "learn", "--quick", "--dim", "256", "--backend", "numpy", "--no-torchhd"]
    assert main([*argv, "--quiet", "--json", str(path)], out=out) == 0
    text, data = out.getvalue(), json.loads(path.read_text())
    learn = [r for r in data["rows"] if r["section"] == "learn"]
    assert {r["dataset"] for r in learn} == {"digits", "wine", "breast cancer", "diabetes"}
    for r in learn:
        assert 0 < r["times"][r["side"]]["best"] and r["scores"][r["side"]]["splits"], r["label"]
        assert r["label"] in text
    assert "learn, backend: numpy" in text and data["settings"]["learn"]["splits_random_state"] == [0]


def test_clustering_and_trained_sections_time_holovec_against_their_references(tmp_path):
    """The clustering (HDKMeans next to scikit-learn's KMeans) and trained (LeHDC, QuantHD
    next to the centroid) sections, tiny, NumPy: every row timed on both sides, its accuracy
    or adjusted Rand index shown."""
    pytest.importorskip("sklearn")
    path, out = tmp_path / "learn2.json", io.StringIO()
    argv = ["--sections", "clustering,trained", "--quick", "--dim", "256", "--backend", "numpy"]
    assert main([*argv, "--quiet", "--repeat", "1", "--budget", "0", "--json", str(path)], out=out) == 0
    text, data = out.getvalue(), json.loads(path.read_text())
    for section in ("clustering", "trained"):
        rows = [r for r in data["rows"] if r["section"] == section]
        assert rows, section
        for r in rows:
            assert r["times"]["holovec"]["best"] > 0 and r["times"]["baseline"]["best"] > 0, r["label"]
            assert r["info"] and r["notes"] == [], (r["label"], r["notes"])
            assert r["label"] in text
        assert f"{section}" in text and "backend: numpy" in text


def test_timeseries_section_puts_minirocket_beside_the_encoder(tmp_path):
    """The timeseries section, tiny, NumPy: each of the three sets has a row per method,
    timed on both sides (MiniROCKET the baseline), with both accuracies and the goal line."""
    pytest.importorskip("sklearn")
    pytest.importorskip("aeon")
    path, out = tmp_path / "ts.json", io.StringIO()
    argv = ["--sections", "timeseries", "--quick", "--dim", "256", "--backend", "numpy"]
    assert main([*argv, "--quiet", "--repeat", "1", "--budget", "0", "--json", str(path)], out=out) == 0
    text, data = out.getvalue(), json.loads(path.read_text())
    rows = [r for r in data["rows"] if r["section"] == "timeseries"]
    assert {r["label"].split(":")[0] for r in rows} == {"GunPoint", "JapaneseVowels", "BasicMotions"}
    for r in rows:
        assert r["times"]["holovec"]["best"] > 0 and r["times"]["baseline"]["best"] > 0, r["label"]
        assert r["info"][0].startswith("accuracy ") and r["label"] in text
    assert text.count("goal ") == 3 and "MiniROCKET" in text


def test_robustness_section_scores_every_level(tmp_path):
    """The robustness section, tiny, NumPy: each learner (MAP and FHRR) and memory has a row
    with an accuracy at every --quick level and the measured similarity next to 1 - 2p;
    every row whose state perturb can flip is timed on both sides, its flips checked."""
    pytest.importorskip("sklearn")
    from benchmarks import robustness

    path, out = tmp_path / "robustness.json", io.StringIO()
    argv = ["--sections", "robustness", "--quick", "--dim", "256", "--backend", "numpy"]
    assert main([*argv, "--quiet", "--repeat", "1", "--budget", "0", "--json", str(path)], out=out) == 0
    text, data = out.getvalue(), json.loads(path.read_text())
    rows = [r for r in data["rows"] if r["section"] == "robustness"]
    learners = {(r["model"], r["key"]) for r in rows if r["key"].endswith("Classifier")}
    assert learners == {(m, n) for m in robustness.MODELS for n in robustness.QUICK_LEARNERS}
    assert {r["key"] for r in rows if r["model"] == "MAP"} >= {"hopfield", "modern", "sdm", "codebook"}
    for r in rows:
        assert r["label"] in text and r["notes"] == [], (r["label"], r["notes"])
        assert r["times"]["holovec"]["best"] > 0 and r["times"]["baseline"]["best"] > 0, r["label"]
        assert (
            r["info"][0].startswith("similarity of the ")
            and "p=0.1 " in r["info"][0]
            and "(predicted " in r["info"][0]
        )
    assert "robustness: accuracy against the flipped fraction p" in text and "p=0.4" in text


@pytest.mark.filterwarnings("ignore:'benchmarks.canonical_order' found in sys.modules:RuntimeWarning")
def test_old_module_spelling_runs_its_section(monkeypatch, capsys):
    """``python -m benchmarks.canonical_order --quick`` is ``--sections canonical-order``."""
    import runpy

    monkeypatch.setattr(
        sys, "argv", ["canonical_order", "--quick", "--repeat", "1", "--budget", "0", "--quiet"]
    )
    with pytest.raises(SystemExit) as done:
        runpy.run_module("benchmarks.canonical_order", run_name="__main__")
    assert done.value.code == 0
    assert "canonical order of a search, backend: numpy" in capsys.readouterr().out


# -- bad options: a one-line usage error and exit status 2, before anything is measured ------


def _must_not_run(*args, **kwargs):
    raise AssertionError("the benchmark started despite a bad option")


def _usage_error(capsys, main, argv) -> str:
    """The error line of ``main(argv)``, which must exit with status 2 and no traceback."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("usage: ")
    return err.strip().splitlines()[-1]


def _unwritable_file(folder: Path) -> Path:
    """A file name that cannot be written here: in a read-only folder, or (for root, whom
    permission bits do not stop) in /sys or /proc."""
    folder.mkdir()
    folder.chmod(0o500)
    for path in (folder / "results.json", Path("/sys/holovec-results.json"), Path("/proc/version")):
        try:
            with path.open("ab"):
                pass
        except OSError:
            return path
        if path.parent == folder:
            path.unlink()
    pytest.skip("every candidate file is writable here")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--repeat", "0"], "argument --repeat: expected a whole number of at least 1, got 0"),
        (["--repeat", "-3"], "at least 1, got -3"),
        (["--repeat", "1.5"], "at least 1, got '1.5'"),
        (["--repeat"], "argument --repeat: expected one argument"),
        (["--budget", "nan"], "argument --budget: expected a finite number of at least 0, got 'nan'"),
        (["--budget", "inf"], "finite number of at least 0, got 'inf'"),
        (["--budget", "-1"], "finite number of at least 0, got '-1'"),
        (["--budget", "soon"], "expected a number of at least 0, got 'soon'"),
        (["--dim", "0"], "argument --dim: expected a whole number of at least 1, got 0"),
        (["--dim", "7", "--models", "VTB"], "VTB needs dim to be a perfect square"),
        (["--dim", "10", "--models", "GHRR", "--sections", "ops"], "(or leave GHRR out of --models)"),
        (["--dim", "4", "--models", "MAP"], "100 levels need at least 99 elements"),
        (["--backend", "cupy"], "argument --backend: unknown backend 'cupy': numpy, torch, jax, dask or all"),
        (["--backend", ","], "argument --backend: expected a comma-separated list, got ','"),
        (["--models", "FHRR,XYZ"], "argument --models: unknown model 'XYZ'; available: BSC, BSC-packed"),
        (["--sections", "ops,foo"], "argument --sections: unknown section 'foo'"),
        (
            ["--sections", "canonical-order", "--repeat", "0"],
            "--repeat: expected a whole number of at least 1",
        ),
        (["--sections", "dask-scaling", "--repeat", "nan"], "at least 1, got 'nan'"),
        (
            ["--sections", "search-engines", "--dim", "-1"],
            "--dim: expected a whole number of at least 1, got -1",
        ),
        (["--sections", "search-engines", "--budget", "inf"], "--budget: expected a finite number"),
        (
            ["--sections", "compiled", "--backend", "cupy"],
            "unknown backend 'cupy': numpy, torch, jax, dask or all",
        ),
        (["--json"], "argument --json: expected one argument"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["--device", "tpu"], "argument --device: expected cpu, cuda or cuda:N (a GPU's index), got 'tpu'"),
        (["--device", "cpu", "--models", "MAP"], "argument --device: the device table has no --models"),
        (["--device", "cpu", "--sections", "ops"], "the device table has no --sections (leave it out)"),
        (["--device", "cpu", "--backend", "numpy"], "times torch and jax; leave numpy out of --backend"),
    ],
)
def test_bad_options_are_usage_errors(capsys, argv, message):
    from benchmarks.cli import parse_args

    assert message in _usage_error(capsys, parse_args, argv)


def test_json_path_is_checked_before_the_run(capsys, tmp_path, monkeypatch):
    """A folder, a missing folder or an unwritable file is refused before anything runs; the
    check leaves no new file behind and an existing one as it was."""
    from benchmarks import cli

    monkeypatch.setattr(cli, "run", _must_not_run)
    folder = _usage_error(capsys, cli.main, ["--json", str(tmp_path)])
    assert folder.endswith(f"argument --json: {str(tmp_path)!r} is a folder; expected a file name in it")
    missing = tmp_path / "nope" / "results.json"
    assert f"no folder {str(missing.parent)!r}" in _usage_error(capsys, cli.main, ["--json", str(missing)])
    unwritable = _unwritable_file(tmp_path / "read-only")
    assert f"cannot write {str(unwritable)!r}" in _usage_error(capsys, cli.main, ["--json", str(unwritable)])
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    old.write_text("kept")
    assert cli.parse_args(["--json", str(new)]).json == new and not new.exists()
    assert cli.parse_args(["--json", str(old)]).json == old and old.read_text() == "kept"


def test_uninstalled_backend_or_package_is_a_usage_error(capsys, monkeypatch):
    import importlib.util

    from benchmarks import cli

    monkeypatch.setattr(cli, "available_backends", lambda: ["numpy"])
    message = _usage_error(capsys, cli.parse_args, ["--backend", "numpy,jax"])
    assert message.endswith("argument --backend: backend 'jax' is not installed; installed: numpy")
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "jax" else find_spec(name, *a)
    )
    assert _usage_error(capsys, cli.parse_args, ["--sections", "jax-eager"]).endswith(
        "--sections jax-eager needs jax, which is not installed"
    )


def test_bad_options_of_compare(capsys, tmp_path, monkeypatch):
    from benchmarks import compare

    monkeypatch.setattr(compare, "compare", _must_not_run)
    # the files of compare: there, regular, readable, a run's JSON
    (tmp_path / "text.json").write_text("not json")
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "no-rows.json").write_text('{"format": 2}')
    old = tmp_path / "format-1.json"
    old.write_text('{"format": 1, "rows": []}')
    missing = str(tmp_path / "nope.json")
    assert f"{missing!r} does not exist" in _usage_error(capsys, compare.main, [missing, missing])
    assert "is a folder; expected a file" in _usage_error(capsys, compare.main, [str(tmp_path)] * 2)
    assert "'/dev/null' is not a regular file" in _usage_error(capsys, compare.main, ["/dev/null"] * 2)
    for name, reason in [
        ("text", "Expecting value"),
        ("list", "expected a JSON object, got a list"),
        ("no-rows", "no 'rows'"),
    ]:
        path = str(tmp_path / f"{name}.json")
        message = _usage_error(capsys, compare.main, [path, path])
        assert f"argument before: {path!r} is not the JSON of a benchmark run: {reason}" in message
    empty = tmp_path / "empty-run.json"
    empty.write_text('{"format": 2, "rows": []}')
    for tolerance in ("-0.1", "nan"):
        argv = [str(empty), str(empty), "--tolerance", tolerance]
        assert "--tolerance: expected a finite number of at least 0" in _usage_error(
            capsys, compare.main, argv
        )
    assert "expected 2" in _usage_error(capsys, compare.main, [str(old), str(old)])


def test_bad_option_fails_fast_without_a_framework(tmp_path):
    """From the command line: the usage error comes before jax or torch is imported."""
    script = (
        "import sys\n"
        "from benchmarks.cli import main\n"
        "for argv in (['--budget', 'nan'], ['--repeat', '0'], ['--json', sys.argv[1]], ['--dim', '4']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit as e:\n"
        "        assert e.code == 2, e.code\n"
        "print(sorted(m for m in ('jax', 'torch', 'sklearn') if m in sys.modules))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]" and "Traceback" not in proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--json", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1].endswith("is a folder; expected a file name in it")


# -- the device table: python -m benchmarks --device cpu|cuda ---------------------

DEVICE_ROWS = {
    "device-ops": ["random-1", "random-n", "bundle", "fpe", "similarity-pairs", "similarity-matrix"],
    "device-search": ["search-MAP", "search-BSC-packed", "search-FHRR"],
    "device-fits": ["adapthd", "ridgehd", "resonator"],
}


@pytest.mark.parametrize("framework", ["torch", "jax"])
def test_device_table_quick_run_prints_every_row(framework, tmp_path):
    """``--device cpu --quick`` times every row of the device table on each framework: holovec,
    the hand-written versions (which agree with it), the device's rates, the H200 figures."""
    pytest.importorskip(framework)
    pytest.importorskip("sklearn")
    path, out = tmp_path / "device.json", io.StringIO()
    argv = ["--device", "cpu", "--quick", "--dim", "256", "--repeat", "1", "--budget", "0"]
    argv += ["--backend", framework, "--no-torchhd", "--quiet", "--json", str(path)]
    assert main(argv, out=out) == 0
    text = out.getvalue()
    for title in ("operations (FHRR)", "exact top-10 of 10 queries x 1,000 items", "fits and factorization"):
        assert f"{framework}: {title}" in text
    assert "H200 before: holovec" in text and f"device, measured with {framework}: copy" in text
    data = json.loads(path.read_text())
    rows = data["rows"]
    assert [(r["section"], r["key"]) for r in rows] == [
        (section, key) for section in DEVICE_ROWS for key in DEVICE_ROWS[section]
    ]
    assert {r["backend"] for r in rows} == {framework}
    for r in rows:
        assert r["notes"] == [], (r["key"], r["notes"])  # nothing failed, every side agrees
        assert r["times"]["holovec"]["median"] > 0
        assert r["label"] in text
    timed = {r["key"]: {side for side, t in r["times"].items() if t} for r in rows}
    assert all(timed[key] == {"holovec", "baseline"} for key in DEVICE_ROWS["device-ops"])
    assert timed["search-MAP"] == timed["search-BSC-packed"] == {"holovec", "int8", "float32"}
    assert timed["search-FHRR"] == {"holovec", "float32"}  # a float model: no int8 product
    assert all("first" in timed[key] for key in DEVICE_ROWS["device-fits"])
    searches = [r for r in rows if r["section"] == "device-search"]
    assert all(r["bound_s"] > 0 for r in searches)
    assert [r["bound"] for r in searches] == ["int8", "int8", "float32"]
    fits = [r for r in rows if r["section"] == "device-fits"]
    if framework == "jax":  # the programs each first call compiled, and the later calls
        assert all(set(r["compiles"]) == {"first", "holovec"} for r in fits)
    issue = {r["key"]: r["h200_before"]["holovec"] for r in rows}
    assert issue["search-MAP"] == ("128 ms" if framework == "torch" else "204 ms")
    assert set(data["device"]["rates"][framework]) == {"copy", "int8", "float32"}
    assert all(rate > 0 for rate in data["device"]["rates"][framework].values())


def test_device_cuda_without_a_gpu_is_a_usage_error(capsys):
    """``--device cuda`` where no framework sees a GPU: exit status 2, naming what each found."""
    from benchmarks.cli import parse_args
    from benchmarks.machine import gpu_found

    frameworks = [f for f in ("torch", "jax") if importlib.util.find_spec(f) is not None]
    if not frameworks:
        pytest.skip("neither torch nor jax is installed")
    if any(gpu_found(f)[0] for f in frameworks):
        pytest.skip("a GPU is visible here")
    message = _usage_error(capsys, parse_args, ["--device", "cuda"])
    assert "argument --device: no CUDA GPU cuda found: " in message
    if "torch" in frameworks:
        assert re.search(r"torch \S+ finds 0 CUDA GPU\(s\)", message)
    if "jax" in frameworks:
        assert re.search(r"jax \S+ finds 0 GPU\(s\), only cpu:0", message)


def test_suite_section_scores_every_classifier_on_the_quick_sets(tmp_path):
    """The suite section, tiny, NumPy: every classifier of holovec.learn has a row on iris
    and on GunPoint (scored, or saying why it cannot run there), beside the references, the
    published figures and the hand-written NumPy centroid, with the goal lines."""
    pytest.importorskip("sklearn")
    from benchmarks import suite

    path, out = tmp_path / "suite.json", io.StringIO()
    argv = ["--sections", "suite", "--quick", "--dim", "256", "--backend", "numpy", "--no-torchhd"]
    assert main([*argv, "--quiet", "--repeat", "1", "--budget", "0", "--json", str(path)], out=out) == 0
    text, data = out.getvalue(), json.loads(path.read_text())
    rows = [r for r in data["rows"] if r["section"] == "suite"]
    classifiers = suite._classifiers()
    assert {"CentroidClassifier", "RidgeHDClassifier", "DistHDClassifier", "LeHDCClassifier"} <= set(
        classifiers
    )
    for dataset in ("iris", "GunPoint"):
        mine = {r["key"].split("/")[1]: r for r in rows if r["dataset"] == dataset}
        for name in classifiers:
            row = mine[name]
            scored = "holovec" in row["scores"]
            assert scored or "does not run here" in row["info"][0], (dataset, name)
            if scored:
                assert 0 <= row["scores"]["holovec"]["mean"] <= 1
                assert row["times"]["holovec"]["best"] > 0
    iris = {r["key"].split("/")[1] for r in rows if r["dataset"] == "iris"}
    assert {"logistic", "knn", "centroid-numpy"} <= iris
    assert "goal iris: CentroidClassifier encode + fit + predict" in text
    if importlib.util.find_spec("aeon") is not None:
        assert "goal GunPoint: RidgeHDClassifier (defaults)" in text
        gunpoint = {r["key"].split("/")[1] for r in rows if r["dataset"] == "GunPoint"}
        assert {"minirocket", "published-MiniROCKET"} <= gunpoint
