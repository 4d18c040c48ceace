"""Run every example of the documentation while Sphinx builds it.

Two kinds of examples are run, with the option flags the test suite gives pytest's
doctest (``NORMALIZE_WHITESPACE``, ``ELLIPSIS``):

- each page (a Markdown file of ``docs/``) as one doctest, in one namespace from top to
  bottom, exactly as ``python -m pytest docs`` runs it;
- each docstring the API reference shows, in the namespace of its module, as
  ``python -m pytest --doctest-modules ctxgrad`` runs it.

A failing example is a Sphinx warning at the page or the object, so a build with ``-W``
fails and names the example, what it expected and what it got.
"""

from __future__ import annotations

import doctest
import io
import re
import sys
from typing import TYPE_CHECKING, Any

import graph_pictures

if TYPE_CHECKING:  # (imported by Sphinx only: pytest collects this file without Sphinx installed)
    from sphinx.application import Sphinx


def _warn(message: str, *args: Any, **kwargs: Any) -> None:
    from sphinx.util import logging

    logging.getLogger(__name__).warning(message, *args, **kwargs)


FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _run(test: doctest.DocTest, clear_globs: bool = True) -> tuple[int, int, str]:
    """Run one doctest; return (failed, attempted, the report of the failures)."""
    out = io.StringIO()  # the report of each failure (what was expected, what came)
    result = doctest.DocTestRunner(optionflags=FLAGS).run(test, out=out.write, clear_globs=clear_globs)
    return result.failed, result.attempted, out.getvalue()


OUTSIDE = re.compile(r"\]\(\.\./")
ANCHOR = re.compile(r'^<a id="([^"]+)"></a>$', re.MULTILINE)


def run_page(app: Sphinx, docname: str, source: list[str]) -> None:
    """``source-read``: run the page's examples (``source[0]`` is its text).

    Also points a link to a file of the repository outside ``docs/`` (``](../examples/x.py)``)
    at the repository (``repository_url``), and turns an HTML anchor line
    ``<a id="name"></a>`` (what GitHub shows as a link target) into MyST's target
    ``(name)=``, so ``[text](#name)`` resolves in the site too.
    """
    source[0] = ANCHOR.sub(r"(\1)=", source[0])
    source[0] = OUTSIDE.sub(r"](" + app.config.repository_url, source[0])
    path = str(app.env.doc2path(docname))
    failed, attempted, report, graphs = run_page_examples(source[0], docname, path)
    graph_pictures.PAGE_GRAPHS[docname] = graphs
    app.env.ctxgrad_examples = getattr(app.env, "ctxgrad_examples", 0) + attempted  # type: ignore[attr-defined]
    if failed:
        _warn("%d of %d examples failed:\n%s", failed, attempted, report, location=docname)


def run_page_examples(
    text: str, name: str, path: str | None
) -> tuple[int, int, str, list[tuple[str | None, str | None]]]:
    """Run a page's examples as one doctest; return (failed, attempted, the report of the
    failures, the DOT text or the error of each of its pictures).

    The page's pictures (``ctxgrad-graph``) draw what its examples made up to where each
    one stands: the examples run in pieces, and each picture's expression is evaluated
    between them, in the page's namespace.
    """
    test = doctest.DocTestParser().get_doctest(text, {"__name__": name}, name, path, 0)
    failed = attempted = 0
    reports: list[str] = []
    graphs: list[tuple[str | None, str | None]] = []
    done = 0
    for line, expression, mask in [*graph_pictures.pictures_in(text), (None, None, None)]:
        upto = len(test.examples) if line is None else sum(1 for e in test.examples if e.lineno < line)
        piece = doctest.DocTest(test.examples[done:upto], {}, test.name, test.filename, 0, None)
        piece.globs = test.globs  # one namespace for the page (DocTest copies the dict it is given)
        done = upto
        piece_failed, piece_attempted, report = _run(piece, clear_globs=False)
        failed, attempted = failed + piece_failed, attempted + piece_attempted
        reports.append(report)
        if expression is not None:
            graphs.append(graph_pictures.evaluate(expression, test.globs, mask))
    test.globs.clear()
    return failed, attempted, "".join(reports), graphs


# The docstrings whose examples ran in this build, by (object name, text): autosummary reads a
# docstring for its table and autodoc again for the page, and each run is one example run.
RAN_DOCSTRINGS: set[tuple[str, str]] = set()


def run_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """``autodoc-process-docstring``: run the examples of a docstring the reference shows,
    once per build."""
    text = "\n".join(lines)
    if ">>>" not in text or (name, text) in RAN_DOCSTRINGS:
        return
    RAN_DOCSTRINGS.add((name, text))
    module = sys.modules.get(getattr(obj, "__module__", None) or name) if what != "module" else obj
    globs = dict(vars(module)) if module is not None else {}
    test = doctest.DocTestParser().get_doctest(text, globs, name, None, 0)
    failed, attempted, report = _run(test)
    app.env.ctxgrad_examples = getattr(app.env, "ctxgrad_examples", 0) + attempted  # type: ignore[attr-defined]
    if failed:
        _warn("%d of %d docstring examples of %s failed:\n%s", failed, attempted, name, report)


def report(app: Sphinx, exception: Exception | None) -> None:
    """``build-finished``: say how many examples ran."""
    if exception is None:
        from sphinx.util import logging

        logging.getLogger(__name__).info("run_examples: %d examples ran", getattr(app.env, "ctxgrad_examples", 0))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("repository_url", "", "env")
    app.connect("source-read", run_page)
    app.connect("autodoc-process-docstring", run_docstring)
    app.connect("build-finished", report)
    return {"version": "1", "parallel_read_safe": False}
