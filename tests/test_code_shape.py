"""The shape of the code (design page, "Layers"): small modules, private names kept inside
their package, framework branches only in the backends, the design page cited instead of a
file outside the repository. These read the source; they fail when a change breaks a rule,
naming the file and line."""

from __future__ import annotations

import ast
import pathlib
import re

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "holovec"
MODULES = sorted(PACKAGE.rglob("*.py"))
#: the most lines of code (docstrings, comments and blank lines aside) a module of holovec
#: may have: past it a module holds more than one idea (documentation never forces a split)
MAX_CODE_LINES = 300


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(path: pathlib.Path) -> str:
    name = _module_name(path)
    return name if path.name == "__init__.py" else name.rsplit(".", 1)[0]


def _private_owner(dotted: str) -> str | None:
    """Where a dotted name may be used: a private module ``a.b._c`` (or a name in it) in
    package ``a.b``; a private name ``a.b.m._f`` in module ``a.b.m`` only."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            owner = parts[:i]
            # a private module: its package owns it; a private name: the module defining it
            return ".".join(owner)
    return None


def _imported_names(path: pathlib.Path) -> list[tuple[int, str]]:
    package = _package(path)
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            found += [(node.lineno, f"{source}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("holovec.")]


def _code_lines(path: pathlib.Path) -> int:
    """The lines of ``path`` that are code: not blank, not a comment, not in a docstring."""
    source = path.read_text(encoding="utf-8")
    documented: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    documented.update(range(first.lineno, first.end_lineno + 1))
    return sum(
        1
        for number, line in enumerate(source.splitlines(), 1)
        if line.strip() and not line.strip().startswith("#") and number not in documented
    )


def test_no_module_is_longer_than_one_idea():
    long = [
        f"{path.relative_to(PACKAGE.parent)}: {n} lines of code"
        for path in MODULES
        if (n := _code_lines(path)) > MAX_CODE_LINES
    ]
    assert not long, f"modules over {MAX_CODE_LINES} lines of code (split them by idea): {long}"


def test_code_lines_leave_docstrings_and_comments_aside(tmp_path):
    module = tmp_path / "m.py"
    module.write_text('"""Doc\n\nmore."""\n\n# a comment\ndef f():\n    """Doc."""\n    return 1\n')
    assert _code_lines(module) == 2


def test_private_names_stay_in_their_package():
    leaks = []
    for path in MODULES:
        here = _module_name(path)
        for line, name in _imported_names(path):
            owner = _private_owner(name)
            if owner is not None and not (here == owner or here.startswith(owner + ".")):
                leaks.append(f"{path.relative_to(PACKAGE.parent)}:{line} uses {name}")
    assert not leaks, "private names used outside their package: " + "; ".join(leaks)


def _foreign_private_attributes(path: pathlib.Path) -> list[str]:
    """``x._name`` where ``x`` is not ``self``/``cls`` and ``_name`` is not defined in the
    same module (so it belongs to another module's objects)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = (
        {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
        | {
            target.attr
            for node in ast.walk(tree)
            if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Attribute)
        }
        | {
            target.id
            for node in ast.walk(tree)
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
    )
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_")):
            continue
        if node.attr.startswith("__") or node.attr in defined:
            continue
        base = node.value
        if isinstance(base, ast.Name) and base.id in ("self", "cls"):
            continue
        root = base
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in ("torch", "jax", "np", "numpy", "sys", "os"):
            continue  # framework internals: the backends' business (framework branches below)
        called = isinstance(base, ast.Call) and isinstance(base.func, ast.Name)
        if called and base.func.id in ("type", "super"):
            continue
        found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {ast.unparse(node)}")
    return found


def test_private_members_of_other_modules_are_not_read():
    leaks = [leak for path in MODULES for leak in _foreign_private_attributes(path)]
    assert not leaks, "private members of other modules' objects: " + "; ".join(leaks)


#: what only the backends may say: framework imports, framework array tests, backend names
_FRAMEWORK_BRANCH = re.compile(
    r"^\s*(import|from)\s+(torch|jax|jaxlib|dask)\b"
    r"|array_api_compat\.is_\w+_array"
    r"|sys\.modules(\.get)?\s*[\[(]\s*[\"'](torch|jax|dask)"
    r"|\.name\s*(==|!=|\bin\b)\s*[\"'(]\s*[\"']?(numpy|torch|jax|dask)[\"']"
)


#: where frameworks may be named: the adapters, and the kernels' framework versions
_FRAMEWORK_PACKAGES = ("backends", "kernels")


@pytest.mark.parametrize("path", [p for p in MODULES if not set(_FRAMEWORK_PACKAGES) & set(p.parts)], ids=str)
def test_framework_branches_live_in_the_backends(path):
    code = [
        f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _FRAMEWORK_BRANCH.search(line.split("#", 1)[0])
    ]
    assert not code, "framework branches outside holovec/backends and holovec/kernels: " + "; ".join(code)


def test_code_cites_the_design_page_not_a_file_outside_the_repository():
    roots = [PACKAGE, PACKAGE.parent / "tests", PACKAGE.parent / "docs", PACKAGE.parent / "examples"]
    cites = [
        f"{path.relative_to(PACKAGE.parent)}:{number}"
        for root in roots
        for path in sorted(root.rglob("*"))
        if path.suffix in (".py", ".rst", ".md") and path.name != "test_code_shape.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "DESIGN.md" in line or re.search(r"\bDESIGN\b", line)
    ]
    assert not cites, "cite the design page (docs/design.rst), not DESIGN.md: " + "; ".join(cites)
