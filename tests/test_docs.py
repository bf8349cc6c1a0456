"""The documentation builds without warnings, its pages show no error or warning (not
even one only the theme draws) and their maths as MathML, it documents every public name,
and the backends guide's snippets run as shown. (The pages' ``>>>`` examples are doctests that
pytest collects from docs/ itself; the tutorials run in tests/test_examples.py.)"""

from __future__ import annotations

import contextlib
import html
import importlib.util
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GUIDE = DOCS / "user-guide" / "backends-and-performance.rst"

#: packages whose ``__all__`` the API reference must cover
PUBLIC_PACKAGES = (
    "holovec.models",
    "holovec.encoders",
    "holovec.retrieval",
    "holovec.backends",
    "holovec.random",
    "holovec.testing",
    "holovec.memory",
    "holovec.structures",
    "holovec.capacity",
    "holovec.noise",
    "holovec.plot",
    *(("holovec.learn",) if importlib.util.find_spec("sklearn") else ()),
)


#: class tokens of what docutils and Sphinx put into a page when something went wrong
_MARKER_CLASSES = {
    "system-message": "docutils/Sphinx system message",
    "problematic": "problematic markup (a role, reference or formula that did not convert)",
}
#: Furo covers a ``.. contents::`` box with a red "ERROR: Adding a table of contents ..." banner
#: (a CSS ``::before``) unless the box carries this escape-hatch class
FURO_TOC_ESCAPE = "this-will-duplicate-information-and-it-is-still-useful-here"
_CLASS_ATTR = re.compile(r'<(\w+)\b[^>]*?\sclass="([^"]*)"')
#: a cell of a table of the text (class "docutils": not the general index's layout table of
#: lists) whose content starts with a list: a cell "-" or "+ more" in a list-table became a
#: bullet list (an empty bullet, or a stray one before the text)
_CELL_OPENS_LIST = re.compile(r"<t[dh]\b[^>]*>\s*<(?:ul|ol)\b.*?</t[dh]>", re.S)
_DOCUTILS_TABLE = re.compile(r'<table\b[^>]*\sclass="[^"]*\bdocutils\b[^"]*".*?</table>', re.S)
_MESSAGE_LEVEL = re.compile(r"\b(?:WARNING|ERROR|SEVERE|CRITICAL)/[1-4]\b")  # "System Message: ERROR/3"
_TAG = re.compile(r"<[^>]*>")


def _text(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


def html_problems(page: str) -> list[str]:
    """The Sphinx, docutils and theme errors and warnings a built HTML page shows its
    readers, each with the text that follows it (empty for a clean page)."""
    found = []
    for m in _CLASS_ATTR.finditer(page):
        classes = m.group(2).split()
        if "contents" in classes and FURO_TOC_ESCAPE not in classes:
            what = "a '.. contents::' box, shown under Furo's red ERROR banner (Furo has its own page TOC)"
        else:
            what = next((_MARKER_CLASSES[c] for c in classes if c in _MARKER_CLASSES), None)
        if what:
            start = page.find(">", m.end()) + 1
            found.append(f"{what}: {_text(page[start : start + 800])[:160]}")
    found += [
        f"a table cell that starts with a bullet or number list: {_text(m.group(0))[:160]!r}"
        for table in _DOCUTILS_TABLE.finditer(page)
        for m in _CELL_OPENS_LIST.finditer(table.group(0))
    ]
    text = _text(re.sub(r"(?is)<(script|style)\b.*?</\1>", " ", page))
    found += [f"docutils message {text[m.start() : m.start() + 160]}" for m in _MESSAGE_LEVEL.finditer(text)]
    return found


def built_page_problems(out: Path) -> list[str]:
    """``page: problem`` for every problem :func:`html_problems` finds in a built site."""
    return [
        f"{page.relative_to(out)}: {problem}"
        for page in sorted(out.rglob("*.html"))
        for problem in html_problems(page.read_text(encoding="utf-8"))
    ]


def check_maths_is_mathml(out: Path) -> None:
    """The theory pages' maths is MathML made at build time (docs/_ext/mathml.py), with no
    TeX left for a script to typeset, and no page with maths loads a script from the network
    (MathJax came from a CDN, so maths showed as raw TeX offline)."""
    pages = {page: page.read_text(encoding="utf-8") for page in sorted(out.rglob("*.html"))}
    external = [
        f"{page.relative_to(out)}: {src}"
        for page, text in pages.items()
        if 'class="math"' in text or "mathjax" in text.lower()
        for src in re.findall(r'<script\b[^>]*\bsrc="((?:https?:)?//[^"]*)"', text)
    ]
    assert not external, f"pages with maths load scripts from the network: {external}"
    for name in ("index", "models", "encoders", "retrieval"):
        page = pages[out / "theory" / f"{name}.html"]
        assert "mathjax" not in page.lower(), f"theory/{name}.html still refers to MathJax"
        # what each maths box holds first (after an equation number): MathML, not TeX
        first = re.findall(
            r'class="math"[^>]*>(?:<span class="eqno">.*?</span>)?\s*(<\w+|[^<\s]{1,20})', page
        )
        assert first, f"theory/{name}.html has no maths"
        assert set(first) == {"<math"}, f"theory/{name}.html: maths boxes not MathML: {sorted(set(first))}"
        assert page.count("<math ") >= len(first)


def test_no_page_puts_a_contents_box_under_furo():
    """Furo draws a red ERROR banner over ``.. contents::`` (it has its own page TOC)."""
    pages = [p for p in DOCS.rglob("*.rst") if "_build" not in p.parts]
    offending = [
        f"{page.relative_to(DOCS)}:{i}"
        for page in pages
        for i, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        if line.strip().startswith(".. contents::")
    ]
    assert not offending, f"remove '.. contents::' (Furo shows an ERROR banner over it): {offending}"


def test_page_checks_catch_what_sphinx_and_furo_show(tmp_path):
    """:func:`html_problems` finds, in real Sphinx + Furo output, a ``.. contents::`` box
    (the red banner of the six pages that had one), a docutils system message and maths
    that did not convert, and nothing on a clean page."""
    pytest.importorskip("sphinx")
    pytest.importorskip("furo")
    pytest.importorskip("latex2mathml")
    # a short path: the page's messages quote it, and pytest-xdist's longer one moved the
    # messages past the length at which html_problems cuts a finding's text
    tmp_path = Path(tempfile.mkdtemp(prefix="hvdoc"))
    src, out = tmp_path / "src", tmp_path / "html"
    src.mkdir()
    (src / "conf.py").write_text(
        f"import sys\nsys.path.insert(0, {str(DOCS / '_ext')!r})\n"
        "extensions = ['mathml']\nhtml_theme = 'furo'\n"
        "keep_warnings = True\n",  # Sphinx drops system messages from pages unless told
        encoding="utf-8",
    )
    (src / "index.rst").write_text(
        textwrap.dedent(
            r"""
            Broken
            ======

            .. toctree::

               clean

            .. contents:: On this page
               :local:
               :depth: 1

            Section
            -------

            Maths :math:`a \otimes b` and :math:`\nosuchcommand x`.

            .. list-table::

               * - -
                 - + more

            .. nosuchdirective::
            """
        ),
        encoding="utf-8",
    )
    (src / "clean.rst").write_text(
        textwrap.dedent(
            rf"""
            Clean
            =====

            .. contents:: Kept on purpose
               :local:
               :class: {FURO_TOC_ESCAPE}

            Part
            ----

            .. math::

               u &= a \otimes b \\
               v &= u \oslash b

            and :math:`\sqrt{{2}}`.
            """
        ),
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(src), str(out)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "cannot render this maths as MathML" in proc.stderr and "nosuchcommand" in proc.stderr
    found = html_problems((out / "index.html").read_text(encoding="utf-8"))
    assert any("'.. contents::' box" in p for p in found), found
    assert any(p.startswith("docutils/Sphinx system message") and "nosuchdirective" in p for p in found), (
        found
    )
    assert any(p.startswith("problematic") and "nosuchcommand" in p for p in found), found
    assert any(p.startswith("docutils message ERROR/3") for p in found), found
    assert sum(p.startswith("a table cell that starts with a bullet") for p in found) == 2, found
    clean = (out / "clean.html").read_text(encoding="utf-8")
    assert html_problems(clean) == []
    assert clean.count("<math ") == 2 and "<mtable" in clean and "\\oslash" not in clean


def python_snippets(path: Path) -> list[tuple[int, str, int]]:
    """``(line, code, gpus needed)`` of every ``.. code-block:: python`` of an rst page; a
    ``.. gpu-only`` comment (``.. gpu-only: 2`` for two GPUs) before a block marks it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    snippets = []
    for i, line in enumerate(lines):
        if line.strip() != ".. code-block:: python":
            continue
        previous = next((x.strip() for x in reversed(lines[:i]) if x.strip()), "")
        gpus = 0
        if previous.startswith(".. gpu-only"):
            gpus = int(previous.partition(":")[2] or 1)
        body = []
        for text in lines[i + 1 :]:
            if text.strip() and not text.startswith("    "):
                break
            body.append(text[4:])
        snippets.append((i + 1, "\n".join(body).strip("\n") + "\n", gpus))
    return snippets


def _cuda_devices() -> int:
    try:
        import torch
    except ImportError:
        return 0
    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def test_backends_guide_snippets_run_in_order(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HOLOVEC_BACKEND", raising=False)
    snippets = python_snippets(GUIDE)
    assert len(snippets) > 25
    namespace: dict = {"__name__": "__guide__"}
    gpus = _cuda_devices()
    ran = 0
    for line, code, needed in snippets:
        if needed > gpus:
            continue
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"{GUIDE.name}:{line}", "exec"), namespace)
        except Exception as err:  # pragma: no cover - the message names the snippet
            raise AssertionError(f"the snippet at {GUIDE.name}:{line} fails: {err!r}\n{code}") from err
        ran += 1
    assert ran >= len(snippets) - 2
    # what the page's comments say these print
    assert namespace["same"] is True  # the reproducibility loop: every backend matches NumPy
    assert namespace["back"].dtype.name == "complex64"


def test_guide_has_no_removed_jax_api():
    text = GUIDE.read_text(encoding="utf-8")
    assert "from jax import clear_backends" not in text  # removed in JAX 0.4.36
    assert "DeviceArray" not in text


def test_docs_build_without_warnings_and_cover_the_api(tmp_path):
    pytest.importorskip("sphinx")
    pytest.importorskip("sphinx_gallery")
    out = tmp_path / "html"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("HOLOVEC_BACKEND", None)
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-6000:] + proc.stdout[-2000:]
    # -W fails on warnings in the build's log; what the pages themselves show is checked too
    # (a theme's CSS banner, or a message below the log's threshold, never reaches the log)
    problems = built_page_problems(out)
    assert not problems, "errors or warnings on the built pages:\n" + "\n".join(problems)
    check_maths_is_mathml(out)
    from sphinx.util.inventory import InventoryFile

    with open(out / "objects.inv", "rb") as f:
        inventory = InventoryFile.load(f, "", os.path.join)
    documented = {name for entries in inventory.values() for name in entries}
    import importlib

    missing = [
        f"{package}.{name}"
        for package in PUBLIC_PACKAGES
        for name in importlib.import_module(package).__all__
        if f"{package}.{name}" not in documented
    ]
    missing += [
        f"holovec.{n}"
        for n in ("VSA", "available_backends", "get_backend")
        if f"holovec.{n}" not in documented
    ]
    assert not missing, f"public names without an API entry: {missing}"
    # the tutorials ran and the guide's tables came from the benchmark files
    assert (out / "examples" / "index.html").exists()
    guide = (out / "user-guide" / "backends-and-performance.html").read_text(encoding="utf-8")
    assert "Measured on:" in guide and re.search(r"\d+(\.\d+)? (ms|µs|s)<", guide)
    check_measurement_lines(out)
    check_no_network_assets(out)
    check_api_bases_are_public(out, documented)
    # the learners' table, wider than the text column, scrolls in its own box (holovec.css)
    learning = (out / "user-guide" / "learning-from-data.html").read_text(encoding="utf-8")
    assert re.search(r'<div class="table-wrapper[^"]*\bwide-table\b', learning), "no wide-table wrapper"
    css = (out / "_static" / "holovec.css").read_text(encoding="utf-8")
    assert re.search(r"\.table-wrapper\.wide-table\s*\{[^}]*overflow-x:\s*auto", css)
    assert "holovec.css" in learning


def check_measurement_lines(out: Path) -> None:
    """The "Measured on:" lines say plainly what was measured: no ``+dirty`` suffix of a
    commit, no empty ``(devices: )``."""
    for page in sorted(out.rglob("*.html")):
        text = _text(page.read_text(encoding="utf-8"))
        for wrong in ("+dirty", "(devices: )"):
            assert wrong not in text, f"{page.relative_to(out)} shows {wrong!r}"


def check_no_network_assets(out: Path) -> None:
    """No page loads a stylesheet or script from the network: offline, such a page is
    unstyled (sphinx-gallery's "Computation times" pages took theirs from CDNs)."""
    external = [
        f"{page.relative_to(out)}: {url}"
        for page in sorted(out.rglob("*.html"))
        for url in re.findall(
            r'<(?:script|link)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]*)"', page.read_text(encoding="utf-8")
        )
    ]
    assert not external, f"pages load CSS or scripts from the network: {external}"
    assert not list(out.rglob("sg_execution_times.html"))


def check_api_bases_are_public(out: Path, documented: set[str]) -> None:
    """The API pages' "Bases:" lines name public classes only: a holovec base that has no
    API entry (such as the learners' ``_Retraining``) is not shown."""
    import inspect

    holovec_classes = {
        name
        for module_name, module in list(sys.modules.items())
        if module_name.split(".")[0] == "holovec" and module is not None
        for name, value in vars(module).items()
        if inspect.isclass(value) and value.__module__.split(".")[0] == "holovec"
    }
    documented_names = {name.rsplit(".", 1)[-1] for name in documented}
    shown = []
    for page in sorted((out / "api").rglob("*.html")):
        for bases in re.findall(r"Bases: (.*?)</p>", page.read_text(encoding="utf-8"), re.S):
            for name in re.findall(r'<span class="pre">([^<]+)</span>', bases):
                name = name.rsplit(".", 1)[-1]
                if name.startswith("_") or (name in holovec_classes and name not in documented_names):
                    shown.append(f"{page.relative_to(out)}: {name}")
    assert not shown, f"API pages show private bases: {shown}"


def _ext_module(name: str):
    sys.path[:0] = [str(DOCS / "_ext"), str(ROOT)]
    try:
        return importlib.import_module(name)
    finally:
        del sys.path[:2]


def test_rst_table_cells_show_their_text():
    """The docs' benchmark tables are list-tables of the benchmark's cells: a cell "-"
    (nothing measured) was an empty bullet, "+ more" a bullet, "a_b_" a reference; every
    cell must read as its text and open no list."""
    docutils_core = pytest.importorskip("docutils.core")
    from docutils import nodes

    from benchmarks.tables import format_table

    cells = [
        "-",
        "",
        "+ more",
        "1. first",
        "a) b",
        "* star",
        "> quote",
        ".. comment",
        "a_b_",
        "`x`",
        "|s|",
        "x::",
    ]
    rst = "\n".join(format_table(["h"] * len(cells), [cells], [True] * len(cells), "rst"))
    doctree = docutils_core.publish_doctree(rst, settings_overrides={"report_level": 5})
    assert not list(doctree.findall(nodes.system_message)), rst
    for kind in (nodes.bullet_list, nodes.enumerated_list, nodes.comment, nodes.block_quote):
        assert not list(doctree.findall(kind)), rst
    rows = list(doctree.findall(nodes.row))
    assert [entry.astext() for entry in rows[1].findall(nodes.entry)] == cells


def test_measured_on_line_says_plainly_what_was_measured():
    pytest.importorskip("sphinx")
    machine_line = _ext_module("benchmark_tables").machine_line
    base = {"cpu": "AMD EPYC", "usable_cores": 2, "memory_gib": 24, "os": "Linux", "python": "3.11",
            "holovec": "0.1.0", "numpy": "2.4", "blas": "openblas", "jax": "0.10.2"}  # fmt: skip
    dirty = machine_line({**base, "git_commit": "b334171+dirty"})
    assert "+dirty" not in dirty and "uncommitted changes on top of git b334171" in dirty
    assert dirty.endswith("JAX 0.10.2.")  # no devices recorded: no "(devices: )"
    clean = machine_line({**base, "git_commit": "87dc7d5", "jax_devices": ["cpu:0"]})
    assert "holovec 0.1.0 (git 87dc7d5)" in clean and "JAX 0.10.2 (devices: cpu:0)" in clean
    assert "commit not recorded" in machine_line(base)


def test_benchmark_tables_of_the_docs_open_no_list():
    """Every table the docs draw from docs/_data: no cell opens a list (the retrieval
    table's empty "peak memory" cell did)."""
    pytest.importorskip("sphinx")
    docutils_core = pytest.importorskip("docutils.core")
    from docutils import nodes

    ext = _ext_module("benchmark_tables")
    from benchmarks.results import load

    tables = []
    for name in ("ops", "retrieval"):
        _, rows = load(DOCS / "_data" / f"benchmark-{name}.json")
        for section in dict.fromkeys(r.section for r in rows):
            tables.append(ext.table_rst(ext.select(rows, section), section))
    learn = json.loads((DOCS / "_data" / "benchmark-learn.json").read_text(encoding="utf-8"))
    tables.append(ext.learn_rst([r for r in learn["rows"] if r.get("section") == "learn"]))
    for rst in tables:
        doctree = docutils_core.publish_doctree("\n".join(rst), settings_overrides={"report_level": 5})
        assert not list(doctree.findall(nodes.system_message))
        for entry in doctree.findall(nodes.entry):
            assert not list(entry.findall(nodes.bullet_list)), entry.astext()
            assert not list(entry.findall(nodes.enumerated_list)), entry.astext()


def _numpydoc_parameters(doc: str) -> dict[str, str]:
    """``name: description`` of a NumPy-style docstring's Parameters section (names given
    together, ``a, b : type``, share their description)."""
    import inspect

    lines = inspect.cleandoc(doc).splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == "Parameters"), None)
    if start is None or not lines[start + 1].strip().startswith("---"):
        return {}
    found: dict[str, str] = {}
    names: list[str] = []
    for line in lines[start + 2 :]:
        if line.strip() and not line.startswith(" "):
            if re.fullmatch(r"-+", line.strip()) or (" : " not in line and not line.rstrip().endswith(" :")):
                break  # the next section's underline, or its title
            names = [n.strip() for n in line.split(" :")[0].split(",")]
            found.update(dict.fromkeys(names, ""))
        elif line.strip():
            for name in names:
                found[name] = (found[name] + " " + line.strip()).strip()
    return found


def test_public_estimators_document_every_parameter():
    """Every public estimator of holovec.learn has a Parameters section describing each of
    its ``__init__`` parameters (AdaptHDClassifier's said only "those of
    CentroidClassifier, plus ...", so the API page listed them without descriptions)."""
    pytest.importorskip("sklearn")
    import inspect

    import holovec.learn as learn

    missing = []
    for name in learn.__all__:
        cls = getattr(learn, name)
        if not inspect.isclass(cls) or issubclass(cls, Exception):
            continue
        documented = _numpydoc_parameters(cls.__doc__ or "")
        for param in list(inspect.signature(cls.__init__).parameters)[1:]:
            if not documented.get(param):
                missing.append(f"{name}.{param}")
    assert not missing, f"parameters without a description in the class docstring: {missing}"


def test_public_bases_hide_private_classes():
    pytest.importorskip("sklearn")
    spec = importlib.util.spec_from_file_location("holovec_docs_conf", DOCS / "conf.py")
    conf = importlib.util.module_from_spec(spec)
    saved = list(sys.path)
    try:
        spec.loader.exec_module(conf)
    finally:
        sys.path[:] = saved
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

    import holovec.learn as learn

    documented = conf._documented_classes()
    shown = conf.public_bases(list(learn.AdaptHDClassifier.__bases__), documented)
    assert shown == [ClassifierMixin, BaseEstimator], shown
    assert conf.public_bases(list(learn.NeuralHDClassifier.__bases__), documented) == [
        learn.AdaptHDClassifier
    ]
    assert conf.public_bases(list(learn.RidgeHDRegressor.__bases__), documented) == [
        RegressorMixin,
        BaseEstimator,
    ]


def test_theory_pages_print_no_raw_dicts():
    """The theory pages' examples print readable lines, not Python dicts (``HRR
    {'unitary': True} 1.0``)."""
    import doctest

    parser = doctest.DocTestParser()
    printed = [
        f"{page.name}: {line}"
        for page in sorted((DOCS / "theory").glob("*.rst"))
        for example in parser.get_examples(page.read_text(encoding="utf-8"))
        for line in example.want.splitlines()
        if re.search(r"\{\}|\{'[^']*':", line)
    ]
    assert not printed, f"theory pages print raw dicts: {printed}"


def test_guide_names_the_commit_of_its_benchmark_file():
    """The backends guide says which commit its ops tables were measured at, and why
    their JAX latency rows differ from the eager-JAX table: that commit must be the one
    the file records (rerunning the benchmark makes the note stale)."""
    machine = json.loads((DOCS / "_data" / "benchmark-ops.json").read_text(encoding="utf-8"))["machine"]
    text = " ".join(GUIDE.read_text(encoding="utf-8").split())
    named = re.search(r"The run in ``docs/_data/benchmark-ops.json`` is of commit (\w+)\.", text)
    assert named, "the guide no longer says which commit the ops file was measured at"
    assert machine["git_commit"] == named.group(1), (
        f"the guide says the ops file is of commit {named.group(1)}, the file records "
        f"{machine['git_commit']}: update the note under the FHRR table"
    )
    assert "same machine and commit" not in text
