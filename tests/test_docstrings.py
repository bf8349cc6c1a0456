"""Every class, function and method that the API pages show documents each of its
parameters, in numpydoc's form (``name : type``): numpydoc's own validator reports no PR01
(a parameter not documented) and no PR02 (a documented parameter the signature lacks).

The objects checked are the ones the pages show: Sphinx's autodoc reads docs/api/*.rst
with the autodoc settings of docs/conf.py and reports every object it documents (and the
docstring it shows: a method without its own takes its base's), and the objects the pages
list are those its Python domain holds, so that the test and the pages cannot drift apart.
Only autodoc runs, on emptied docstrings: seconds, not the minutes of a docs build."""

from __future__ import annotations

import ast
import enum
import inspect
import io
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
API_PAGES = ROOT / "docs" / "api"
#: what autodoc documents that has a signature numpydoc checks
CHECKED_KINDS = ("class", "exception", "function", "method")
#: numpydoc's codes of a parameter list that disagrees with the signature
PARAMETER_CODES = ("PR01", "PR02")


def _autodoc_settings() -> dict:
    """docs/conf.py's ``autodoc_*`` and ``autoclass_*`` settings (read, not run: the
    configuration also loads the gallery and the benchmark tables)."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text(encoding="utf-8"))
    settings = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if name.startswith(("autodoc_", "autoclass_")):
                settings[name] = ast.literal_eval(node.value)
    return settings


def documented_objects(workdir: Path) -> tuple[list[tuple[str, str, object, str]], str]:
    """``(kind, name, object, docstring)`` of everything autodoc documents on the API pages,
    and autodoc's warnings."""
    from sphinx.application import Sphinx

    source = workdir / "api"
    source.mkdir()
    for page in API_PAGES.glob("*.rst"):
        shutil.copy(page, source / page.name)
    found = []

    def record(app, what, name, obj, options, lines):
        found.append((what, name, obj, "\n".join(lines)))
        lines[:] = []  # nothing for docutils to parse: only the list of objects is needed

    overrides = {
        **_autodoc_settings(),
        "extensions": ["sphinx.ext.autodoc"],
        "autodoc_typehints": "none",  # signatures are not rendered
    }
    warnings = io.StringIO()
    app = Sphinx(
        str(source),
        None,
        str(workdir / "out"),
        str(workdir / "doctrees"),
        "dummy",
        confoverrides=overrides,
        status=None,
        warning=warnings,
        freshenv=True,
    )
    app.connect("autodoc-process-docstring", record)
    app.build()
    # autodoc reads a docstring before it drops a member imported from elsewhere (a
    # module's ``typing.Any``): the objects are those the pages list, the Python domain's
    shown = app.env.get_domain("py").objects
    return [entry for entry in found if entry[1] in shown], warnings.getvalue()


@pytest.fixture(scope="module")
def api_pages(tmp_path_factory):
    pytest.importorskip("sphinx")
    pytest.importorskip("sklearn")  # holovec.learn's page
    return documented_objects(tmp_path_factory.mktemp("api"))


def parameter_errors(obj: object, docstring: str) -> list[str]:
    """numpydoc's PR01 and PR02 messages for ``obj`` with the docstring its page shows."""
    import warnings

    from numpydoc.validate import Validator, get_doc_object, validate

    class PageValidator(Validator):
        """numpydoc's validator on the docstring autodoc shows (an inherited one too)."""

        def __init__(self, obj_name: object, doc: str) -> None:
            super().__init__(get_doc_object(obj_name, doc=doc))
            self.raw_doc = self.clean_doc = doc

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpydoc warns of sections it does not know (Laws)
        result = validate(obj, validator_cls=PageValidator, doc=docstring)
    return [f"{code} {message}" for code, message in result["errors"] if code in PARAMETER_CODES]


def test_the_pages_document_the_public_api(api_pages):
    """The collection sees what the pages show: every package's classes, and their methods;
    and every module a page names imports (else its objects would silently go unchecked)."""
    api_objects, warnings = api_pages
    assert "failed to import" not in warnings, warnings[-4000:]
    names = {name for _, name, _, _ in api_objects}
    for name in (
        "holovec.VSA.create",
        "holovec.models.FHRR",
        "holovec.encoders.FractionalPowerEncoder.encode",
        "holovec.retrieval.ItemStore.query",
        "holovec.learn.CentroidClassifier.fit",
        "holovec.backends.Backend",
        "holovec.structures.Sequence.append",
        "holovec.testing.model_checks",
    ):
        assert name in names, name
    assert sum(kind in CHECKED_KINDS for kind, *_ in api_objects) > 400


def test_every_parameter_is_documented(api_pages):
    pytest.importorskip("numpydoc")
    failures = []
    for kind, name, obj, docstring in api_pages[0]:
        # an enum's signature is Enum's functional API (value, names, module, ...), not its own
        if kind in CHECKED_KINDS and not (inspect.isclass(obj) and issubclass(obj, enum.Enum)):
            failures += [f"{name}: {error}" for error in parameter_errors(obj, docstring)]
    assert not failures, f"{len(failures)} parameter lists disagree with their signatures:\n" + "\n".join(
        failures
    )
