"""Sphinx configuration: the Markdown pages of doc/ (MyST) and the API reference generated from
the docstrings (autodoc + numpydoc). Build with

    pip install '.[doc]'
    sphinx-build -W -b html doc build/html
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from orangecontrib.relief import __version__  # noqa: E402  pylint: disable=wrong-import-position

project = "Orange3-Relief"
version = release = __version__
author = "Orange3-Relief contributors"
copyright = "Orange3-Relief contributors, GPL-3.0-or-later"   # pylint: disable=redefined-builtin

extensions = ["myst_parser", "sphinx.ext.autodoc", "numpydoc"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 3

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
numpydoc_show_class_members = False      # autodoc lists the members
numpydoc_class_members_toctree = False


def _skip_metadata_requests(app, what, name, obj, skip, options):
    """scikit-learn adds ``set_fit_request`` (and its kin) to an estimator whose ``fit`` takes
    metadata such as ``covariates``; their docstrings point into scikit-learn's own docs, so
    they are left to scikit-learn's reference."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return skip


def setup(app):
    app.connect("autodoc-skip-member", _skip_metadata_requests)

html_theme = "alabaster"
html_title = "Orange3-Relief"
