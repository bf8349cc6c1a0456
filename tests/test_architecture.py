"""The design page's layers as contracts: import-linter checks the contracts declared in
``pyproject.toml`` (layers, frameworks only through the backends, no cycles between
siblings), and the module graph has no circle of imports at all (a package and its own
modules included), type-checking imports counted."""

from __future__ import annotations

import pathlib

import pytest

grimp = pytest.importorskip("grimp")
configuration = pytest.importorskip("importlinter.configuration")
use_cases = pytest.importorskip("importlinter.application.use_cases")

PYPROJECT = pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_import_linter_contracts_are_kept(capsys):
    configuration.configure()  # what the lint-imports command does first
    kept = use_cases.lint_imports(config_filename=str(PYPROJECT), cache_dir=None, no_logo=True)
    report = capsys.readouterr().out
    assert kept, report


def _circles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in sorted(graph.modules):
        if root in order:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        order[root] = low[root] = len(order)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in order:
                    order[child] = low[child] = len(order)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], order[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == order[node]:
                circle = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    circle.append(member)
                    if member == node:
                        break
                if len(circle) > 1:
                    circles.append(sorted(circle))
    return circles


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph("holovec", cache_dir=None, exclude_type_checking_imports=False)
    circles = _circles(graph)
    assert not circles, "circles of imports: " + "; ".join(" <-> ".join(c) for c in circles)


def test_the_circle_finder_finds_a_circle():
    graph = grimp.ImportGraph()
    for name in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(name)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert _circles(graph) == [["pkg.a", "pkg.b"]]
