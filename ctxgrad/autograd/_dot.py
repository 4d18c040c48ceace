"""Graphviz DOT source, written with or without the ``graphviz`` package.

:func:`new_digraph` gives a ``graphviz.Digraph`` when the ``graphviz`` Python package is
installed (``pip install 'ctxgrad[viz]'``), so that ``render``, ``view`` and the picture in
Jupyter work as they do for any Digraph; otherwise a :class:`DotGraph`, which writes the same
DOT text with the same ``node``/``edge`` calls, and says which extra to install when asked to
draw.  Either way the object shows the text rendering of the graph in Jupyter when no
picture can be made (no ``graphviz`` package, or no ``dot`` program on the machine).

The quoting follows the ``graphviz`` package's, so both give the same source, line for line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

__all__ = ["DotGraph", "new_digraph", "quote"]

_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$")
_KEYWORDS = frozenset({"node", "edge", "graph", "digraph", "subgraph", "strict"})
# A quote, with any backslashes before it: keep the escaped pairs, escape the quote once.
_QUOTE = re.compile(r'(?P<pairs>(?:\\\\)*)\\?"')

_MISSING = (
    "drawing a graph needs the graphviz Python package (and Graphviz's dot program): "
    "pip install 'ctxgrad[viz]'.  Without it, str(graph) or graph.source is the DOT text, "
    "and graph.save(filename) writes it to a file"
)


def quote(text: str) -> str:
    """``text`` as a DOT identifier: bare when it is a name or a number, else double-quoted.

    >>> print(quote("MulBackward0"), quote("12"), quote("(3, 4)"), quote('say "hi"'))
    MulBackward0 12 "(3, 4)" "say \\"hi\\""
    """
    if _ID.match(text) and text.lower() not in _KEYWORDS:
        return text
    return '"' + _QUOTE.sub(lambda m: m.group("pairs") + '\\"', text) + '"'


def _attr_list(label: str | None, attrs: Mapping[str, str]) -> str:
    parts = [] if label is None else [f"label={quote(label)}"]
    parts += [f"{quote(k)}={quote(v)}" for k, v in sorted(attrs.items()) if v is not None]
    return f" [{' '.join(parts)}]" if parts else ""


class DotGraph:
    """A directed graph held as DOT source: what ``make_dot`` returns without ``graphviz``.

    It has the part of ``graphviz.Digraph`` that writes DOT: :meth:`node`, :meth:`edge`,
    :meth:`attr`, ``body`` (one line per statement), ``graph_attr``/``node_attr``/``edge_attr``,
    ``source`` and :meth:`save`.  :meth:`render`, :meth:`pipe` and :meth:`view` need
    Graphviz and raise ``ImportError`` naming the extra to install, ``ctxgrad[viz]``.

    >>> g = DotGraph(node_attr={"shape": "box"})
    >>> g.node("a", "MulBackward0")
    >>> g.node("b", "w (3)", fillcolor="lightblue")
    >>> g.edge("b", "a")
    >>> print(g)
    digraph {
        node [shape=box]
        a [label=MulBackward0]
        b [label="w (3)" fillcolor=lightblue]
        b -> a
    }
    """

    def __init__(
        self,
        graph_attr: Mapping[str, str] | None = None,
        node_attr: Mapping[str, str] | None = None,
        edge_attr: Mapping[str, str] | None = None,
        text: str | None = None,
    ) -> None:
        self.graph_attr: dict[str, str] = dict(graph_attr or {})
        self.node_attr: dict[str, str] = dict(node_attr or {})
        self.edge_attr: dict[str, str] = dict(edge_attr or {})
        self.body: list[str] = []
        self._text = text

    def node(self, name: str, label: str | None = None, **attrs: str) -> None:
        """Add a node statement (later statements for the same name add to its attributes)."""
        self.body.append(f"\t{quote(name)}{_attr_list(label, attrs)}\n")

    def edge(self, tail_name: str, head_name: str, label: str | None = None, **attrs: str) -> None:
        """Add an edge ``tail -> head``."""
        self.body.append(f"\t{quote(tail_name)} -> {quote(head_name)}{_attr_list(label, attrs)}\n")

    def attr(self, kw: str | None = None, **attrs: str) -> None:
        """Add an attribute statement: ``attr(rankdir="LR")`` for the graph, or
        ``attr("node", shape="ellipse")`` for the nodes (or edges) that follow."""
        if kw is not None and kw.lower() not in ("graph", "node", "edge"):
            raise ValueError(f"attr statement must target graph, node, or edge: {kw!r}")
        if not attrs:
            return
        if kw is None:
            self.body.append("\t" + " ".join(f"{quote(k)}={quote(v)}" for k, v in sorted(attrs.items())) + "\n")
        else:
            self.body.append(f"\t{kw}{_attr_list(None, attrs)}\n")

    def __iter__(self) -> Iterator[str]:
        yield "digraph {\n"
        for kind in ("graph", "node", "edge"):
            attrs = getattr(self, f"{kind}_attr")
            if attrs:
                yield f"\t{kind}{_attr_list(None, attrs)}\n"
        yield from self.body
        yield "}\n"

    @property
    def source(self) -> str:
        """The DOT source text."""
        return "".join(self.__iter__())

    def __str__(self) -> str:
        return self.source

    def __repr__(self) -> str:
        return f"<DotGraph: {len(self.body)} statements; str() gives the DOT source>"

    def save(self, filename: str | Path) -> str:
        """Write the DOT source to ``filename`` (no Graphviz needed) and return the name."""
        Path(filename).write_text(self.source, encoding="utf-8")
        return str(filename)

    def render(self, *args: Any, **kwargs: Any) -> str:
        """Needs Graphviz: raises ``ImportError`` naming the ``ctxgrad[viz]`` extra."""
        raise ImportError(_MISSING)

    def pipe(self, *args: Any, **kwargs: Any) -> bytes:
        """Needs Graphviz: raises ``ImportError`` naming the ``ctxgrad[viz]`` extra."""
        raise ImportError(_MISSING)

    def view(self, *args: Any, **kwargs: Any) -> str:
        """Needs Graphviz: raises ``ImportError`` naming the ``ctxgrad[viz]`` extra."""
        raise ImportError(_MISSING)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, str]:
        """Jupyter's display: the text rendering of the graph (no picture without Graphviz)."""
        return {"text/plain": self._text if self._text is not None else self.source}


_digraph_class: Any = None


def _graphviz_digraph() -> Any:
    """A ``graphviz.Digraph`` subclass that falls back to text in Jupyter, or None without graphviz."""
    global _digraph_class
    if _digraph_class is None:
        try:
            import graphviz  # type: ignore[import-untyped, import-not-found, unused-ignore]
        except ImportError:
            _digraph_class = False
            return None

        class Digraph(graphviz.Digraph):  # type: ignore[misc, unused-ignore]
            """A ``graphviz.Digraph`` that shows the text rendering in Jupyter when the ``dot``
            program is missing (where a plain Digraph raises)."""

            _text: str | None = None

            def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> Any:
                try:
                    return super()._repr_mimebundle_(include, exclude, **kwargs)
                except (graphviz.ExecutableNotFound, graphviz.CalledProcessError):
                    return {"text/plain": self._text if self._text is not None else self.source}

        Digraph.__module__, Digraph.__qualname__ = "ctxgrad.viz", "Digraph"
        _digraph_class = Digraph
    return _digraph_class or None


def new_digraph(
    graph_attr: Mapping[str, str] | None = None,
    node_attr: Mapping[str, str] | None = None,
    text: str | None = None,
) -> Any:
    """A ``graphviz.Digraph`` when ``graphviz`` is installed, else a :class:`DotGraph`.

    ``text`` is what Jupyter shows when no picture can be made.
    """
    cls = _graphviz_digraph()
    if cls is None:
        return DotGraph(graph_attr=graph_attr, node_attr=node_attr, text=text)
    graph = cls(graph_attr=dict(graph_attr or {}), node_attr=dict(node_attr or {}))
    graph._text = text
    return graph
