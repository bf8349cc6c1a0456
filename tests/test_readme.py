"""Every Python block of the README runs as written."""

import importlib.util
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(code):
    if "sklearn" in code and importlib.util.find_spec("sklearn") is None:
        pytest.skip("the learning example needs scikit-learn (the learn extra)")
    exec(compile(code, str(README), "exec"), {})


def test_readme_has_python_blocks():
    assert len(BLOCKS) >= 2


def test_first_block_claims_exact_recovery_only_where_it_is_exact():
    """The first block's comment on ``unbind`` is true: FHRR recovers ``a`` to float
    rounding (it said "exactly", and differs by about 1e-7)."""
    import numpy as np

    namespace: dict = {}
    exec(compile(BLOCKS[0], str(README), "exec"), namespace)
    a, a2 = np.asarray(namespace["a"]), np.asarray(namespace["a2"])
    comment = next(line for line in BLOCKS[0].splitlines() if "model.unbind(" in line).partition("#")[2]
    if "exact" in comment:
        assert np.array_equal(a, a2), f"the README says {comment.strip()!r}, but a2 differs from a"
    assert np.abs(a2 - a).max() <= 1e-6


def test_search_memory_is_what_the_docs_table_measured():
    """The README's peak memory of a search is the docs' table's (docs/_data): it said
    "under 18 MB however many items" where the table has 50 MB for MAP."""
    import json

    from benchmarks.columns import format_bytes

    data = json.loads((README.parent / "docs" / "_data" / "benchmark-retrieval.json").read_text())
    measured = {
        row["model"]: format_bytes(row["peak_bytes"]["holovec"])
        for row in data["rows"]
        if row["label"] == "top-10, 1,000 queries x 100,000 items"
    }
    text = " ".join(README.read_text().split())
    sentence = re.search(
        r"Peak extra memory for 1,000 queries against 100,000 items[^:]*: ([^.]*(?:\.\d[^.]*)*)", text
    )
    assert sentence, "the README no longer states the search's peak memory"
    stated = dict(
        (model, size)
        for size, model in re.findall(r"(\d[\d.]* [kMG]?B) for ((?:packed )?\w+)", sentence.group(1))
    )
    stated = {("BSC packed" if m == "packed BSC" else m): v for m, v in stated.items()}
    assert stated and stated == {m: measured[m] for m in stated}, (stated, measured)
    assert len(stated) == len(measured)
