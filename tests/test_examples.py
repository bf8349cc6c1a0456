"""The examples stay runnable and keep answering correctly."""

import runpy
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.mark.parametrize("model", ["FHRR", "MAP", "BSC"])
def test_quickstart_answers(model, backend, capsys, monkeypatch):
    monkeypatch.setattr(
        sys, "argv", ["quickstart.py", "--model", model, "--backend", backend, "--dim", "4000"]
    )
    runpy.run_path(str(EXAMPLES / "quickstart.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "capital  -> Washington" in out
    assert "currency -> Dollar" in out
    assert "What is the dollar of Mexico?  -> Peso" in out
