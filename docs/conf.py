"""Sphinx configuration for holovec's documentation.

Everything a page shows is produced while it builds: the gallery runs the scripts in
``examples/``, ``.. plot::`` blocks run their code, the timing tables are read from the
JSON the benchmark command wrote (``docs/_data``), and the API pages come from the
docstrings. ``sphinx-build -W -b html docs docs/_build/html`` builds it offline.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))  # the benchmark's formatting, for the timing tables

project = "holovec"
author = "holovec developers"
copyright = "2026, holovec developers"

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    # attribute and property docstrings read as prose, not "type: description"
    # (docs/_ext/napoleon_attributes.py)
    "napoleon_attributes",
    "sphinx.ext.intersphinx",
    "mathml",  # maths as MathML at build time (docs/_ext/mathml.py): no CDN script
    "sphinx.ext.doctest",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
    "benchmark_tables",
]

# sphinx-gallery's "Computation times" pages (sg_execution_times.rst, one per gallery and
# one for all) are not written (``write_computation_times`` below): they list how long each
# tutorial took on the machine that built the pages, which serves no reader, and style
# their table with CSS and scripts from CDNs (unstyled offline). Excluded too, so that
# copies left in the tree by an older build are not built.
exclude_patterns = [
    "_build",
    "_inventories",
    "_ext",
    "examples/*.ipynb",
    "examples/*.py",
    "sg_execution_times.rst",
    "examples/sg_execution_times.rst",
]
html_theme = "furo"
html_title = "holovec"
html_math_renderer = "mathml"
# docs/_static/holovec.css: wide tables (the learners' benchmark) scroll within their box
html_static_path = ["_static"]
html_css_files = ["holovec.css"]

# -- API reference ---------------------------------------------------------------------------
autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autosummary_generate = True
napoleon_numpy_docstring = True
napoleon_google_docstring = False
# sections of the models' docstrings that napoleon does not know: without this it reads their
# text as parameters of a Parameters section placed before them
napoleon_custom_sections = ["Laws"]

#: the modules whose classes the API reference documents: a class is public when one of
#: them exports it (``__all__``; the protocol module: its names without an underscore)
DOCUMENTED_MODULES = (
    "holovec",
    "holovec.models",
    "holovec.encoders",
    "holovec.retrieval",
    "holovec.backends",
    "holovec.random",
    "holovec.learn",
    "holovec.testing",
    "holovec.models.protocol",
)


@functools.cache
def _documented_classes() -> frozenset[type]:
    import importlib
    import inspect

    found = set()
    for name in DOCUMENTED_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:  # holovec.learn without scikit-learn
            continue
        names = getattr(module, "__all__", None)
        if names is None:
            names = [n for n, v in vars(module).items() if inspect.isclass(v) and v.__module__ == name]
        found.update(v for n in names if not n.startswith("_") and inspect.isclass(v := getattr(module, n)))
    return frozenset(found)


def public_bases(bases: list, documented: frozenset[type]) -> list:
    """``bases`` as the API reference shows them: a private base (a name with a leading
    underscore, or a holovec class that no documented module exports, such as the
    learners' ``_Retraining``) is replaced by its own bases, recursively; ``object`` only
    when nothing else is left."""
    shown: list = []

    def add(cls: object) -> None:
        if cls is object:
            return
        name = getattr(cls, "__name__", "")
        private = isinstance(cls, type) and (
            name.startswith("_") or (cls.__module__.split(".")[0] == "holovec" and cls not in documented)
        )
        if private:
            for base in cls.__bases__:
                add(base)
        elif cls not in shown:
            shown.append(cls)

    for base in bases:
        add(base)
    # a base that another shown base derives from says nothing more
    shown = [
        b
        for b in shown
        if not any(
            o is not b and isinstance(o, type) and isinstance(b, type) and issubclass(o, b) for o in shown
        )
    ]
    return shown or [object]


def _show_public_bases(app, name, obj, options, bases) -> None:
    bases[:] = public_bases(bases, _documented_classes())


# -- links to the frameworks: their own inventories when reachable, else the small offline
# ones in _inventories/ (make_inventories.py), so that a build without network passes -W
intersphinx_mapping = {
    "python": ("https://docs.python.org/3", (None, "_inventories/python.inv")),
    "numpy": ("https://numpy.org/doc/stable/", (None, "_inventories/numpy.inv")),
    "torch": ("https://docs.pytorch.org/docs/stable/", (None, "_inventories/torch.inv")),
    "jax": ("https://docs.jax.dev/en/latest/", (None, "_inventories/jax.inv")),
}
intersphinx_timeout = 5

# -- the gallery: every script in examples/ runs at build time -------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["examples"],
    "filename_pattern": r".*\.py$",  # run every example, not only plot_*.py
    "within_subsection_order": "gallery_order.tutorial_order",
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1e9,  # no per-example timing lines (they vary from build to build)
    "show_memory": False,
    "write_computation_times": False,  # no sg_execution_times pages (see exclude_patterns)
}

# -- .. plot:: blocks ------------------------------------------------------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.figsize": (6.0, 3.2), "figure.autolayout": True}


def setup(app):
    app.connect("autodoc-process-bases", _show_public_bases)
