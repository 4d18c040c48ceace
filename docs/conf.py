"""Sphinx configuration of the ctxgrad documentation.

Build it with ``sphinx-build -W --keep-going -b html docs <out>`` (``pip install -e .[docs]``).
Every ``>>>`` example of every page, and of every docstring the API reference shows, runs
during the build (``_ext/run_examples.py``); a wrong output fails the build.  The graph
pictures (``_ext/graph_pictures.py``) are drawn by Graphviz's ``dot`` program when it is
installed, else the committed ones of ``_graphs/`` are shown.  A second build reuses the
doctrees of the first (``<out>/.doctrees``) and reads only what changed.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE / "_ext") not in sys.path:
    sys.path.insert(0, str(HERE / "_ext"))  # the local extensions

import api_homes  # noqa: E402

import ctxgrad  # noqa: E402  (installed: pip install -e .[docs])

project = "ctxgrad"
author = "The ctxgrad developers"
copyright = "The ctxgrad developers"
release = ctxgrad.__version__
version = release

extensions = [
    "compat_names",
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "run_examples",
    "graph_pictures",
    "api_reference",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_graphs"]
templates_path = ["_templates"]

myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

html_theme = "furo"
html_static_path = ["_static"]
# The sidebar and contents list pages, not each of the API's ~2,000 objects: furo copies the
# whole table of contents into every page, which with the objects in it took most of the
# build's time.  Each API page lists its own objects.
toc_object_entries = False
html_title = f"ctxgrad {release}"

autosummary_generate = True
autodoc_default_options = {"members": True, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
# The docstrings of ctxgrad are written as text for ``help()`` with double-backquoted code;
# a reference they name that Sphinx cannot resolve is not an error of the page.
nitpicky = False

# Links from the guides to files of the repository outside docs/ (examples, benchmarks,
# README) point at the repository.
repository_url = "https://github.com/ctxgrad/ctxgrad/blob/main/"

# One home per object (_ext/api_homes.py): each module page leaves out, and links to, the
# names it exports that another page describes; the built-in ops' pages link their source.
_documented = api_homes.listed_modules(HERE / "api.rst")
_source_only = api_homes.listed_modules(HERE / "api.rst", source_only=True)
autosummary_context = {
    "elsewhere": api_homes.documented_elsewhere(_documented),
    "source_paths": {name: api_homes.source_path(name, HERE.parent) for name in _source_only},
    "repository_url": repository_url,
}
