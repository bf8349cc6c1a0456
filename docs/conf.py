"""Sphinx configuration for holovec's documentation."""

project = "holovec"
author = "holovec developers"
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
]
autodoc_typehints = "description"
napoleon_numpy_docstring = True
html_theme = "furo"
exclude_patterns = ["_build"]
