"""Sphinx configuration of statpriv's documentation.

Build (from the repository root, after ``pip install ".[docs]"``)::

    sphinx-build -W -n -b html docs docs/_build/html

The Markdown pages are read by MyST (``$...$`` and ``$$...$$`` math), the API
reference is generated from the numpydoc docstrings (autosummary), and the
papers' figures are drawn by ``statpriv.papers.figures.make_figures`` into
docs/_generated/figures before the pages are read (redrawn when a source file
of statpriv is newer than the figures), so no image is kept in the repository.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))

import statpriv  # noqa: E402  (the installed, compiled package)

project = "statpriv"
author = "statpriv contributors"
copyright = "statpriv contributors"
version = release = statpriv.__version__

extensions = [
    "myst_parser",
    "numpydoc",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
]

source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# MyST: the pages write math as $...$ and $$...$$ and link each other as
# [text](page.md); headings get anchors so that page.md#section links resolve.
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
# MathJax is loaded from its CDN; an offline build may point at a local copy,
# e.g. Debian's libjs-mathjax: STATPRIV_DOCS_MATHJAX=
# "file:///usr/share/javascript/mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML".
if os.environ.get("STATPRIV_DOCS_MATHJAX"):
    mathjax_path = os.environ["STATPRIV_DOCS_MATHJAX"]
    # MathJax 2 reads its own configuration: typeset only MyST's math nodes
    mathjax2_config = {"tex2jax": {"processClass": "math", "ignoreClass": "tex2jax_ignore"}}

# The API reference: one page per public callable, from its docstring.
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"              # the signature and Parameters say it
numpydoc_show_class_members = False     # members are listed by the class template
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "pydata_sphinx_theme"
html_static_path = ["_static"]
html_css_files = ["statpriv.css"]
html_title = f"statpriv {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_theme_options["header_links_before_dropdown"] = 6
# The section navigation only where there is a section (the API reference).
html_sidebars = {page: [] for page in (
    "index", "mathematics", "precision", "composition", "accounting", "partial_knowledge",
    "thresholding", "shuffle", "empirical", "empirical_dask", "figures", "c_api",
    "architecture", "benchmarks")}

# The papers' figures (docs/figures.md and the pages that show one).
FIGURE_DIR = os.path.join(HERE, "_generated", "figures")


def _newest_source_mtime():
    newest = 0.0
    for folder, _dirs, files in os.walk(os.path.dirname(statpriv.__file__)):
        for name in files:
            if name.endswith((".py", ".pyx", ".so")):
                newest = max(newest, os.path.getmtime(os.path.join(folder, name)))
    return newest


def _draw_figures(app):
    """Draw every figure of statpriv.papers.figures.FIGURES unless the drawn
    set is complete and newer than statpriv's sources (about 40 s)."""
    stamp = os.path.join(FIGURE_DIR, "drawn")
    if os.path.exists(stamp) and os.path.getmtime(stamp) >= _newest_source_mtime():
        return
    from statpriv.papers.figures import make_figures
    make_figures(FIGURE_DIR)
    with open(stamp, "w") as f:
        f.write("drawn by docs/conf.py\n")


def setup(app):
    app.connect("builder-inited", _draw_figures)
