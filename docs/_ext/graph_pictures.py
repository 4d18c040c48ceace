"""Pictures of graphs in the pages, drawn while Sphinx builds them from the real objects.

A page draws a graph its examples made with the directive ``ctxgrad-graph``, whose argument
is an expression evaluated in the page's namespace after the examples above it ran
(``_ext/run_examples.py`` evaluates it there, between the examples)::

    ```{ctxgrad-graph} make_dot(loss, params={"w": w})
    :name: visualising-loss
    :alt: The backward graph of loss: ...
    ```

(``:mask: REGEX`` writes ``…`` for what changes from run to run, such as a trace's times.)

The expression gives what ``ctxgrad.viz.make_dot``, ``Traced.graph.to_dot()`` or
``ctxgrad.autograd.printing.to_dot`` return: a graph with a DOT ``source``, or the DOT text.
Graphviz's ``dot`` program draws it as SVG, which the HTML page holds inline (so the page
is one file and the picture's text, the node names, is searchable).

Each picture is also kept in ``docs/_graphs/<name>.svg``, committed, with the SHA-256 of the
DOT text it was drawn from in its first line:

- with ``dot`` on the PATH, a picture whose DOT text changed is drawn again and its file
  rewritten (commit it; ``graph_pictures_update = False`` leaves the files alone); an
  unchanged one is read from its file, not drawn again;
- without ``dot`` (a machine without Graphviz), the committed file is the picture, and a
  file drawn from other DOT text than the page makes now is a warning (``-W``: an error),
  so that a stale picture is never shown.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # (imported by Sphinx only: pytest collects this file without Sphinx installed)
    from docutils.nodes import Node
    from sphinx.application import Sphinx

STAMP = re.compile(r"^<!-- ctxgrad-graph dot-sha256=([0-9a-f]{64}) -->\n")
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
DIRECTIVE = re.compile(r"^```\{ctxgrad-graph\} (.+)\n((?::\w+:.*\n)*)", re.MULTILINE)
MASK = re.compile(r"^:mask: (.+)$", re.MULTILINE)

# The DOT text (or the error) of each picture of a page, in the page's order, by docname:
# made when run_examples runs the page (source-read), used when the page is parsed, then
# dropped; never pickled with the environment.
PAGE_GRAPHS: dict[str, list[tuple[str | None, str | None]]] = {}


def pictures_in(text: str) -> list[tuple[int, str, str | None]]:
    """(line number from 0, expression, ``:mask:`` or None) of each ``ctxgrad-graph``
    directive of a page."""
    found = []
    for m in DIRECTIVE.finditer(text):
        mask = MASK.search(m.group(2))
        found.append((text.count("\n", 0, m.start()), m.group(1).strip(), mask.group(1).strip() if mask else None))
    return found


def evaluate(expression: str, globs: dict[str, Any], mask: str | None = None) -> tuple[str | None, str | None]:
    """(the DOT text of a picture's expression evaluated in the page's namespace, None), or
    (None, why it failed).  Each match of the regular expression ``mask`` (what changes
    from run to run, such as times) is written ``…``, so the picture is the same each time."""
    try:
        dot = dot_text(eval(expression, globs))  # the page's own code
        return (dot if mask is None else re.sub(mask, "…", dot)), None
    except Exception as exc:  # any failure of the page's code is the page's warning, at the picture
        return None, f"{expression}: {type(exc).__name__}: {exc}"


def graphs_dir(app: Sphinx) -> Path:
    return Path(app.srcdir) / "_graphs"


def dot_text(graph: Any) -> str:
    """The DOT text of what make_dot, to_dot() or printing.to_dot returned."""
    text = graph if isinstance(graph, str) else getattr(graph, "source", None)
    if not isinstance(text, str) or not text.lstrip().startswith(("digraph", "graph", "strict")):
        raise TypeError(f"ctxgrad-graph: expected a graph with a DOT source or DOT text, got {type(graph).__name__}")
    return text


def draw(dot: str, dot_program: str) -> str:
    """SVG of ``dot`` by Graphviz, without the XML prolog (it is inlined in HTML)."""
    svg = subprocess.run(
        [dot_program, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, check=True, timeout=60
    ).stdout.decode("utf-8")
    return svg[svg.index("<svg") :]


def picture(app: Sphinx, name: str, dot: str) -> tuple[str | None, str | None]:
    """(the SVG of ``dot``, a warning or None): drawn when the committed file is older, or
    read from the committed file."""
    digest = hashlib.sha256(dot.encode("utf-8")).hexdigest()
    path = graphs_dir(app) / f"{name}.svg"
    committed = path.read_text(encoding="utf-8") if path.is_file() else None
    stamp = STAMP.match(committed) if committed is not None else None
    if committed is not None and stamp is not None and stamp.group(1) == digest:
        return committed[stamp.end() :], None
    dot_program = shutil.which("dot")
    if dot_program is None:
        if committed is None:
            return None, f"no picture {path.name}: Graphviz's dot program is not installed and none is committed"
        return None, (
            f"the committed picture {path.name} was drawn from another graph than this page makes now: "
            "build once with Graphviz's dot program installed and commit docs/_graphs"
        )
    svg = draw(dot, dot_program)
    if app.config.graph_pictures_update:
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"<!-- ctxgrad-graph dot-sha256={digest} -->\n{svg}", encoding="utf-8")
    return svg, None


def forget_page_graphs(app: Sphinx, doctree: Any) -> None:
    """``doctree-read``: the page is parsed; its pictures' DOT texts are no longer needed."""
    PAGE_GRAPHS.pop(app.env.docname, None)


def setup(app: Sphinx) -> dict[str, Any]:
    from docutils import nodes
    from docutils.parsers.rst import directives
    from sphinx.util import logging
    from sphinx.util.docutils import SphinxDirective

    logger = logging.getLogger(__name__)

    class GraphDirective(SphinxDirective):
        required_arguments = 1
        final_argument_whitespace = True
        option_spec: ClassVar[dict[str, Any]] = {
            "name": directives.unchanged_required,
            "alt": directives.unchanged_required,
            "mask": directives.unchanged_required,  # (applied by run_examples, see pictures_in)
        }

        def run(self) -> list[Node]:
            name = self.options.get("name", "")
            alt = self.options.get("alt", "")
            location = self.get_location()
            if not NAME.match(name) or not alt:
                logger.warning("ctxgrad-graph needs a :name: (a-z, 0-9, -) and an :alt: text", location=location)
                return []
            number = self.env.temp_data.get("ctxgrad-graph-count", 0)
            self.env.temp_data["ctxgrad-graph-count"] = number + 1
            graphs = PAGE_GRAPHS.get(self.env.docname, [])
            if number >= len(graphs):
                logger.warning("ctxgrad-graph %s: the page's examples did not run", name, location=location)
                return []
            dot, problem = graphs[number]
            svg = None
            if dot is not None:
                try:
                    svg, problem = picture(self.env.app, name, dot)
                except (OSError, subprocess.SubprocessError) as exc:
                    svg, problem = None, f"Graphviz's dot failed: {exc}"
            if problem is not None or svg is None:
                logger.warning("ctxgrad-graph %s: %s", name, problem, location=location)
                return []
            svg = re.sub(r'\bid="', f'id="{name}-', svg)  # unique ids when a page holds several pictures
            # role and label make the picture readable to a screen reader; alt text is escaped.
            label = alt.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
            svg = svg.replace("<svg", f'<svg role="img" aria-label="{label}"', 1)
            html = f'<figure class="ctxgrad-graph" id="graph-{name}">\n{svg}</figure>\n'
            return [nodes.raw("", html, format="html")]

    # False: draw into the pages only, never rewrite docs/_graphs (a test's build).
    app.add_config_value("graph_pictures_update", True, "env", bool)
    app.add_directive("ctxgrad-graph", GraphDirective)
    app.connect("doctree-read", forget_page_graphs)
    app.add_css_file("ctxgrad-graphs.css")
    return {"version": "1", "parallel_read_safe": False}
