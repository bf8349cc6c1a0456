"""Code written for HoloVec 1.0.2 (the package of that name on PyPI, another project) runs
here: its README's quick start verbatim, and every call of the "Coming from HoloVec 1.x or
torchhd" page, which the page marks as running unchanged or shows our equivalent of.
Plus the compatibility additions themselves: ``Codebook`` from a dict (with or without a
model), ``update``/``extend``, iteration, and ``ItemStore.fit`` of a dict."""

from __future__ import annotations

import contextlib
import doctest
import importlib.util
import io
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from holovec import VSA
from holovec.retrieval import AssocStore, Codebook, ItemStore, cleanup

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "user-guide" / "coming-from-holovec-and-torchhd.rst"

#: the quick start of HoloVec 1.0.2's README, character for character
QUICKSTART = """\
from holovec import VSA
from holovec.encoders import FractionalPowerEncoder
from holovec.retrieval import Codebook, ItemStore

model = VSA.create("FHRR", dim=4096, seed=7)

role_color = model.random(seed=1)
role_temp = model.random(seed=2)
red = model.random(seed=10)
apple = model.random(seed=11)

temp_encoder = FractionalPowerEncoder(
    model,
    min_val=0.0,
    max_val=100.0,
    bandwidth=1.5,
    seed=3,
)

record = model.bundle(
    [
        model.bind(role_color, red),
        model.bind(role_temp, temp_encoder.encode(24.0)),
    ]
)

recovered_color = model.unbind(record, role_color)
store = ItemStore(model).fit(
    Codebook({"red": red, "apple": apple}, backend=model.backend)
)

print(store.query(recovered_color, k=1))
"""


@pytest.fixture(autouse=True)
def _default_backend(monkeypatch):
    monkeypatch.delenv("HOLOVEC_BACKEND", raising=False)


def _run(code: str, name: str) -> tuple[dict, str]:
    namespace: dict = {"__name__": name}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, name, "exec"), namespace)
    return namespace, out.getvalue()


@pytest.mark.parametrize("backend", ["numpy", "torch", "jax"])
def test_holovec_quickstart_runs_verbatim_and_finds_red(backend):
    code = QUICKSTART
    if backend != "numpy":
        pytest.importorskip(backend)
        code = code.replace("dim=4096, seed=7)", f'dim=4096, seed=7, backend="{backend}")')
    ns, printed = _run(code, "holovec_quickstart")
    # [('red', 0.63...)]: the colour, well above the 1/sqrt(4096) noise of the other item
    result = ns["store"].query(ns["recovered_color"], k=2)
    assert printed.strip() == repr(result[:1])
    assert [label for label, _ in result] == ["red", "apple"]
    assert 0.5 < result[0][1] < 0.8 and abs(result[1][1]) < 0.1
    book = ns["store"].codebook
    assert book.model is ns["model"] and book.labels == ["red", "apple"]


def test_page_shows_the_quickstart_that_is_tested():
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(".. code-block:: python\n") + len(".. code-block:: python\n")
    block = []
    for line in text[start:].splitlines()[1:]:
        if line.strip() and not line.startswith("    "):
            break
        block.append(line)
    assert textwrap.dedent("\n".join(block)).strip() + "\n" == QUICKSTART


# -- every call on the page -------------------------------------------------------------------

_LITERAL = re.compile(r"``(.+?)``")


def _table_rows(lines: list[str], start: int) -> tuple[list[tuple[int, list[str]]], int]:
    """The rows ``(line, [cell text, ...])`` of the list-table whose options start at
    ``start``, and the line after the table."""
    rows: list[tuple[int, list[str]]] = []
    i = start
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith("   ")):
        line = lines[i]
        if line.startswith("   * - ") or line.rstrip() == "   * -":
            rows.append((i + 1, [line[7:].strip()]))
        elif line.startswith("     - ") or line.rstrip() == "     -":
            rows[-1][1].append(line[7:].strip())
        elif line.startswith("       ") and rows:
            rows[-1][1][-1] += " " + line.strip()
        i += 1
    return rows, i


def page_steps(text: str) -> list[tuple[str, str, int]]:
    """The page's code in reading order: ``("doctest", source, line)`` for each ``>>>``
    example and ``("cell", code, line)`` for each call in a table's *holovec* column (a
    cell that says *same* runs the calls of the first column: they run unchanged here)."""
    lines = text.splitlines()
    parser = doctest.DocTestParser()
    steps: list[tuple[str, str, int]] = []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith(">>> "):
            j = i
            while j < len(lines) and lines[j].strip():
                j += 1
            for ex in parser.get_examples("\n".join(lines[i:j])):
                steps.append(("doctest", ex.source, i + 1 + ex.lineno))
            i = j
        elif lines[i].strip() == ".. list-table::":
            rows, i = _table_rows(lines, i + 1)
            header = rows[0][1]
            ours = header.index("holovec")
            for line, cells in rows[1:]:
                cell = cells[ours]
                codes = _LITERAL.findall(cell)
                if cell.startswith("same"):
                    codes = _LITERAL.findall(cells[0]) + codes
                assert codes or cell == "none", f"{PAGE.name}:{line}: no holovec call in {cell!r}"
                steps += [("cell", code, line) for code in codes]
        else:
            i += 1
    return steps


def _close(x, y) -> bool:
    return bool(np.allclose(np.asarray(x), np.asarray(y), atol=1e-5))


#: what some calls of the page must answer (each must appear on the page)
CHECKS = {
    "model.unbind(model.bind(a, b), b)": lambda r, ns: _close(r, ns["a"]),
    "functools.reduce(model.bind, [a, b, c])": lambda r, ns: _close(
        r, ns["model"].bind(ns["model"].bind(ns["a"], ns["b"]), ns["c"])
    ),
    "model.permute(a, shift=-1)": lambda r, ns: _close(ns["model"].permute(r, 1), ns["a"]),
    "float(model.similarity(a, b))": lambda r, ns: isinstance(r, float) and abs(r) < 0.1,
    "model.dim": lambda r, ns: r == 2048,
    "encoder.decode(encoder.encode(24.0))": lambda r, ns: abs(float(r) - 24.0) < 0.1,
    'words.decode(words.encode(["alice", "likes", "tea"]), max_positions=3, threshold=0.2)': lambda r, ns: (
        list(r) == ["alice", "likes", "tea"]
    ),
    'VSA.create("GHRR", dim=96 * 9, m=3)': lambda r, ns: r.random().shape == (864,),
    'codebook["apple"]': lambda r, ns: _close(r, ns["items"]["apple"]),
    "list(codebook)": lambda r, ns: r == ["apple", "pear", "plum"],
    "(codebook.labels, codebook.vectors)": lambda r, ns: (
        r[0] == ["apple", "pear", "plum", "fig", "kiwi", "lime"] and r[1].shape == (6, 2048)
    ),
    "store.query(q, k=2)": lambda r, ns: r[0][0] == "apple" and r[0][1] > 0.5,
    "[label for label, _ in store.query(q, k=1)]": lambda r, ns: r == ["apple"],
    "store.query(q, k=len(codebook), threshold=0.5)": lambda r, ns: [x for x, _ in r] == ["apple"],
    'store.query(model.xp.stack([q, items["pear"]]), k=1)': lambda r, ns: (
        [row[0][0] for row in r] == ["apple", "pear"]
    ),
    'Codebook.load("fruit.npz", backend=model.backend)': lambda r, ns: (
        r.labels == ns["codebook"].labels and r.model == ns["model"]
    ),
    "cleanup(model, q, codebook)": lambda r, ns: _close(r, ns["items"]["apple"]),
    'AssocStore(model).fit(Codebook(model, items), colours).query("apple")': lambda r, ns: r[0][0] == "red",
    "Resonator(model, [codebook.vectors, codebook.vectors])"
    '.factor(model.bind(codebook["apple"], codebook["pear"]))': (
        lambda r, ns: sorted(np.asarray(r.indices).ravel().tolist()) == [0, 1]
    ),
    # torchhd
    "model.bundle(model.bind(keys, values))": lambda r, ns: (
        float(ns["model"].similarity(ns["model"].unbind(r, ns["keys"][1]), ns["values"][1])) > 0.3
    ),
    "cleanup(model, x, X)": lambda r, ns: _close(r, ns["X"][0]),
    "Resonator(model, [keys, values]).factor(model.bind(keys[1], values[2]))": lambda r, ns: (
        np.asarray(r.indices).ravel().tolist() == [1, 2]
    ),
    "AssocStore(model).fit(Codebook(model, None, keys), Codebook(model, None, values))"
    ".query(1)": lambda r, ns: r[0][0] == 1,
    'ItemStore(model).fit({"first": model.bundle(X[:2]), "second": X[2]}).query(x)': lambda r, ns: (
        r[0][0] == "first"
    ),
}


def test_every_call_on_the_page_runs_and_answers(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # codebook.save writes here
    has_torch = importlib.util.find_spec("torch") is not None
    steps = page_steps(PAGE.read_text(encoding="utf-8"))
    cells = [code for kind, code, _ in steps if kind == "cell"]
    assert len(cells) > 60
    missing = sorted(set(CHECKS) - set(cells))
    assert not missing, f"checked calls no longer on the page: {missing}"
    ns: dict = {"__name__": "coming_from_holovec"}
    checked = 0
    for kind, code, line in steps:
        if 'backend="torch"' in code and not has_torch:
            continue
        where = f"{PAGE.name}:{line}"
        try:
            if kind == "doctest":
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(code, where, "exec"), ns)
                continue
            result = eval(compile(code, where, "eval"), ns)
        except Exception as err:
            raise AssertionError(f"{where}: {code!r} fails: {err!r}") from err
        if code in CHECKS:
            assert CHECKS[code](result, ns), f"{where}: {code!r} gives {result!r}"
            checked += 1
    assert checked == len(CHECKS)


def test_page_is_in_the_user_guide():
    index = (ROOT / "docs" / "index.rst").read_text(encoding="utf-8")
    assert "user-guide/coming-from-holovec-and-torchhd" in index


# -- the compatibility additions ------------------------------------------------------------


def test_codebook_from_a_dict_takes_the_model_of_its_first_store():
    model = VSA.create("FHRR", dim=256, seed=1)
    items = {"a": model.random(seed=1), "b": model.random(seed=2)}
    book = Codebook(items, backend=model.backend)
    assert book.model is None and book.labels == ["a", "b"] and list(book) == ["a", "b"]
    assert "a" in book and len(book) == 2 and _close(book["b"], items["b"])
    book.add("c", model.random(seed=3))
    with pytest.raises(ValueError, match="needs the codebook's model"):
        book.save("never.npz")
    other = VSA.create("MAP", dim=256)
    with pytest.raises(TypeError, match="MAP vectors are float32, got complex64"):
        ItemStore(other).fit(book)
    assert book.model is None  # a refused store does not bind it
    store = ItemStore(model).fit(book)
    assert book.model is model and store.query(items["b"])[0][0] == "b"
    with pytest.raises(ValueError, match="belongs to another model"):
        ItemStore(VSA.create("FHRR", dim=256, seed=2)).fit(book)
    # numpy is the default backend, as in HoloVec
    assert Codebook({"x": items["a"]}).labels == ["x"]


def test_codebook_from_a_dict_with_a_model():
    model = VSA.create("MAP", dim=128, seed=1)
    v = model.random(3, seed=4)
    book = Codebook(model, {"x": v[0], ("t", 1): v[1], 7: v[2]})
    assert book.model is model and book.labels == ["x", ("t", 1), 7]
    assert _close(book.vectors, v)
    with pytest.raises(TypeError, match="not both"):
        Codebook(model, {"x": v[0]}, v[:1])
    with pytest.raises(ValueError, match="1-d"):
        Codebook(model, {"x": v})
    with pytest.raises(TypeError, match="float32"):
        Codebook(model, {"x": np.ones(128)})  # float64 is not converted silently
    store = ItemStore(model).fit({"p": v[0], "q": v[1]})
    assert store.query(v[1])[0][0] == "q"
    with pytest.raises(ValueError, match="a dict has its own labels"):
        ItemStore(model).fit({"p": v[0]}, labels=["z"])


def test_codebook_from_a_dict_validates_its_input():
    model = VSA.create("FHRR", dim=64)
    good = model.random(seed=1)
    with pytest.raises(ValueError, match="empty dict"):
        Codebook({}, backend=model.backend)
    with pytest.raises(ValueError, match=r"the vector of 'b' has shape \(64,\) and dtype float32"):
        Codebook({"a": good, "b": VSA.create("MAP", dim=64).random()})
    with pytest.raises(ValueError, match="shape"):
        Codebook({"a": good, "b": model.random(seed=2)[:32]})
    with pytest.raises(TypeError, match=r"got builtins\.list"):
        Codebook({"a": [1.0, 2.0]})
    with pytest.raises(ValueError, match="1-d"):
        Codebook({"a": model.random(2)})
    with pytest.raises(TypeError, match="takes a dict label -> vector and nothing else"):
        Codebook({"a": good}, ["a"])
    with pytest.raises(TypeError, match="backend= goes with a dict"):
        Codebook(model, ["a"], good[None], backend="numpy")
    with pytest.raises(TypeError, match="a VSA model"):
        Codebook([good])
    with pytest.raises(ValueError, match="duplicate label"):
        Codebook(model, ["a", "a"], model.random(2))
    book = Codebook({"a": good})
    with pytest.raises(TypeError, match="complex64"):
        book.add("b", VSA.create("MAP", dim=64).random())
    with pytest.raises(ValueError, match=r"shape \(64,\)"):
        book.add("b", model.random(2))
    with pytest.raises(ValueError, match="already"):
        book.add("a", good)


def test_update_adds_all_or_nothing():
    model = VSA.create("MAP", dim=64, seed=1)
    book = Codebook(model, {"a": model.random(seed=1)})
    book.update({"b": model.random(seed=2), "c": model.random(seed=3)})
    assert book.labels == ["a", "b", "c"]
    with pytest.raises(TypeError):
        book.extend({"d": model.random(seed=4), "e": np.ones(64)})  # "e" is float64
    assert book.labels == ["a", "b", "c"] and book.vectors.shape == (3, 64) and "d" not in book
    book.extend({"d": model.random(seed=4)})
    assert book.index("d") == 3
    with pytest.raises(TypeError, match="dict"):
        book.update([("e", model.random(seed=5))])


def test_codebook_from_a_dict_on_torch():
    torch = pytest.importorskip("torch")
    model = VSA.create("FHRR", dim=128, backend="torch", seed=1)
    items = {"a": model.random(seed=1), "b": model.random(seed=2)}
    book = Codebook(items, backend=model.backend)
    assert isinstance(book.vectors, torch.Tensor)
    # a NumPy vector goes to the backend unchanged
    book.add("c", model.backend.to_numpy(model.random(seed=3)))
    assert ItemStore(model).fit(book).query(items["b"])[0][0] == "b"
    with pytest.raises(TypeError, match=r"torch\.Tensor"):
        Codebook({"a": [1.0]}, backend="torch")


def test_assoc_store_and_cleanup_give_a_dict_codebook_its_model():
    model = VSA.create("FHRR", dim=512, seed=1)
    keys = Codebook({"fr": model.random(seed=1), "de": model.random(seed=2)}, backend=model.backend)
    values = Codebook({"paris": model.random(seed=3), "berlin": model.random(seed=4)})
    assert AssocStore(model).fit(keys, values).query("de")[0][0] == "berlin"
    assert keys.model is model and values.model is model
    book = Codebook({"x": model.random(seed=5), "y": model.random(seed=6)})
    assert _close(cleanup(model, book["y"], book), book["y"])
