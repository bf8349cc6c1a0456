"""Write the small offline intersphinx inventories in this folder.

The docs link to Python, NumPy, PyTorch and JAX. Sphinx fetches those projects'
``objects.inv`` when it can reach them; a build without network (CI, air-gapped
machines) falls back on these files, which list only the names our docs mention,
with their pages on the projects' sites. Run this script after adding a name.
"""

from __future__ import annotations

import zlib
from pathlib import Path

HERE = Path(__file__).parent

#: project -> (display name, version, [(name, role, page-relative uri)])
INVENTORIES = {
    "python": (
        "Python",
        "3",
        [
            ("int", "py:class", "library/functions.html#int"),
            ("float", "py:class", "library/functions.html#float"),
            ("str", "py:class", "library/stdtypes.html#str"),
            ("bytes", "py:class", "library/stdtypes.html#bytes"),
            ("bool", "py:class", "library/functions.html#bool"),
            ("list", "py:class", "library/stdtypes.html#list"),
            ("tuple", "py:class", "library/stdtypes.html#tuple"),
            ("dict", "py:class", "library/stdtypes.html#dict"),
            ("ValueError", "py:exception", "library/exceptions.html#ValueError"),
            ("TypeError", "py:exception", "library/exceptions.html#TypeError"),
            ("os.PathLike", "py:class", "library/os.html#os.PathLike"),
            ("pathlib.Path", "py:class", "library/pathlib.html#pathlib.Path"),
            ("typing.Any", "py:data", "library/typing.html#typing.Any"),
            ("collections.abc.Sequence", "py:class", "library/collections.abc.html#collections.abc.Sequence"),
            ("collections.abc.Iterable", "py:class", "library/collections.abc.html#collections.abc.Iterable"),
            ("enum.IntEnum", "py:class", "library/enum.html#enum.IntEnum"),
        ],
    ),
    "numpy": (
        "NumPy",
        "2",
        [
            ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html#numpy.ndarray"),
            ("numpy.dtype", "py:class", "reference/generated/numpy.dtype.html#numpy.dtype"),
            (
                "numpy.random.Philox",
                "py:class",
                "reference/random/bit_generators/philox.html#numpy.random.Philox",
            ),
            (
                "numpy.argpartition",
                "py:function",
                "reference/generated/numpy.argpartition.html#numpy.argpartition",
            ),
            ("numpy.savez", "py:function", "reference/generated/numpy.savez.html#numpy.savez"),
            ("numpy.load", "py:function", "reference/generated/numpy.load.html#numpy.load"),
        ],
    ),
    "torch": (
        "PyTorch",
        "2",
        [
            ("torch.Tensor", "py:class", "tensors.html#torch.Tensor"),
            ("torch.device", "py:class", "tensor_attributes.html#torch.device"),
            ("torch.dtype", "py:class", "tensor_attributes.html#torch.dtype"),
            ("torch.compile", "py:function", "generated/torch.compile.html#torch.compile"),
            ("torch.topk", "py:function", "generated/torch.topk.html#torch.topk"),
        ],
    ),
    "jax": (
        "JAX",
        "0.10",
        [
            ("jax.Array", "py:class", "_autosummary/jax.Array.html#jax.Array"),
            ("jax.jit", "py:function", "_autosummary/jax.jit.html#jax.jit"),
            ("jax.vmap", "py:function", "_autosummary/jax.vmap.html#jax.vmap"),
            ("jax.grad", "py:function", "_autosummary/jax.grad.html#jax.grad"),
        ],
    ),
}


def write(project: str, display: str, version: str, entries: list[tuple[str, str, str]]) -> None:
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {display}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = "".join(f"{name} {role} 1 {uri} -\n" for name, role, uri in entries)
    (HERE / f"{project}.inv").write_bytes(header.encode() + zlib.compress(body.encode()))


if __name__ == "__main__":
    for project, (display, version, entries) in INVENTORIES.items():
        write(project, display, version, entries)
