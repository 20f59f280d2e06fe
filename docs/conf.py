"""Sphinx configuration for the skfair documentation (builds offline)."""

import os
import re
import sys
import warnings

# Document the skfair of this checkout, even if another one is installed.
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

import skfair

project = "skfair"
author = "skfair developers"
copyright = "2026, skfair developers"
release = skfair.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
    "sphinx-mathjax-offline",  # ships MathJax inside the site: no CDN
    "sphinx_design",  # the dropdowns of the datasets' descriptions
    "sphinx_copybutton",  # a copy button on code blocks, without prompts
]

# Copy what a reader would type: only the lines after ">>> " and "... "
# prompts, without the prompts and without the output lines; a block with no
# prompt (bash, a plain Python listing) is copied whole.
copybutton_prompt_text = r">>> |\.\.\. "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True
copybutton_remove_prompts = True
# Keep the prompts (.gp) and output (.go) in the text the prompt pattern reads:
# excluding them first (sphinx-copybutton's default excludes .gp) would hide
# the prompts from it and copy output lines as blank ones.
copybutton_exclude = ".linenos"

# No intersphinx: the build must work without network access.
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False

templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "sg_execution_times.rst",
    "auto_examples/sg_execution_times.rst",
]
source_suffix = {".rst": "restructuredtext"}

html_theme = "pydata_sphinx_theme"
html_title = f"skfair {release}"
# docs/_static/skfair.css: code blocks use the article's width and scroll
# sideways instead of clipping long lines (see the file).
html_static_path = ["_static"]
html_css_files = ["skfair.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": False,
    "icon_links": [],
    # "On this page" on every page: the sections of a guide or an example,
    # the methods of a class.
    "secondary_sidebar_items": ["page-toc"],
    "show_toc_level": 2,
}
html_sidebars = {"index": []}

plot_include_source = False
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # execute every example
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "plot_gallery": "True",
    "matplotlib_animations": False,
    "reset_modules": ("matplotlib",),
    "within_subsection_order": "FileNameSortKey",
    # A report (plot_audit_report.py) shows itself as HTML, as in a notebook.
    "capture_repr": ("_repr_html_", "__repr__"),
}

# Examples read a fast mode from the environment so the docs build stays short.
os.environ.setdefault("SKFAIR_EXAMPLES_FAST", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")


# scikit-learn's metadata-routing methods (``set_fit_request``, ...) are
# generated on every estimator; their docstrings point into scikit-learn's own
# glossary, which an offline build cannot reach. They are documented there.
_ROUTING_METHOD = re.compile(r"^set_\w+_request$")

# numpydoc prints a parameter's type as reStructuredText, where a fitted
# attribute's name such as ``n_features_in_`` in "ndarray of shape
# (n_features_in_,)" would read as a hyperlink target. Types are not prose:
# show such names literally.
_TYPE_LINE = re.compile(r"^(\s*[\w*, ]+ : )(.*)$")
_TRAILING_UNDERSCORE = re.compile(r"(?<![`\w])([A-Za-z]\w*_)(?![\w`])")


def _skip_routing_methods(app, what, name, obj, skip, options):
    if _ROUTING_METHOD.match(name):
        return True
    return None


def _literal_attribute_names_in_types(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        match = _TYPE_LINE.match(line)
        if match:
            head, spec = match.groups()
            lines[i] = head + _TRAILING_UNDERSCORE.sub(r"``\1``", spec)


def _sklearn_glossary_terms_as_text(app, env, node, contnode):
    # Docstrings in scikit-learn's style write :term:`fit`, a reference into
    # scikit-learn's glossary; offline (no intersphinx) it is shown as text.
    if node.get("reftype") == "term":
        return contnode
    return None


def setup(app):
    """Connect the docstring hooks above."""
    app.connect("missing-reference", _sklearn_glossary_terms_as_text)
    app.connect("autodoc-skip-member", _skip_routing_methods)
    # Before numpydoc (priority 500) turns the sections into reST.
    app.connect(
        "autodoc-process-docstring", _literal_attribute_names_in_types, priority=400
    )
