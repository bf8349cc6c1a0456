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
