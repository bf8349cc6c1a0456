"""Sphinx configuration for holovec's documentation.

Everything a page shows is produced while it builds: the gallery runs the scripts in
``examples/``, ``.. plot::`` blocks run their code, the timing tables are read from the
JSON the benchmark command wrote (``docs/_data``), and the API pages come from the
docstrings. ``sphinx-build -W -b html docs docs/_build/html`` builds it offline.
"""

from __future__ import annotations

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
    "sphinx.ext.intersphinx",
    "mathml",  # maths as MathML at build time (docs/_ext/mathml.py): no CDN script
    "sphinx.ext.doctest",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
    "benchmark_tables",
]

exclude_patterns = ["_build", "_inventories", "_ext", "examples/*.ipynb", "examples/*.py"]
html_theme = "furo"
html_title = "holovec"
html_math_renderer = "mathml"

# -- API reference ---------------------------------------------------------------------------
autodoc_typehints = "description"
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autosummary_generate = True
napoleon_numpy_docstring = True
napoleon_google_docstring = False

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
}

# -- .. plot:: blocks ------------------------------------------------------------------------
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.figsize": (6.0, 3.2), "figure.autolayout": True}
