"""Draw a backward graph: :func:`make_dot`, torchviz's ``make_dot`` for ctxgrad.

Code written for torchviz ports by changing its import, ``from torchviz import make_dot``
to ``from ctxgrad.viz import make_dot``: the same signature, the same boxes and colours.

- grey: a node of the backward graph, named by ``node.name()`` (``MulBackward0``,
  ``MyFnBackward``); with ``show_attrs``, under it a table of the attributes ``forward`` set
  on the ctx (``ctx.k = 3``), each value cut to ``max_attr_chars`` characters;
- light blue: a leaf that requires grad (its ``.grad`` is filled by ``backward()``), named
  from ``params`` and with its shape, above its ``AccumulateGrad`` node;
- orange: a tensor saved for backward, joined to its node by a line without an arrow.  A
  user's Function's saved tensors are always shown; those of ctxgrad's own ops with
  ``show_saved`` (as torchviz shows torch's), named ``saved_tensors[i]``;
- green: each tensor passed in ``var``; dark green: the base of an output that is a view,
  with a dotted arrow to the view.

With ``show_values=True`` (micrograd's picture; not in torchviz) each box also shows the
numbers: ``data`` and ``grad`` of every tensor drawn (outputs, leaves, saved tensors), and
of the output of each grey node when that output is in ``var`` or ``params`` or called
``retain_grad()`` before the backward (``grad None`` where backward has not filled it).

Arrows point the way the forward pass went, from the inputs to the outputs.

With the ``graphviz`` package installed (``pip install 'ctxgrad[viz]'``, plus Graphviz's
``dot`` program to draw), ``make_dot`` returns a ``graphviz.Digraph``: ``render``, ``view``
and the picture in Jupyter work as with torchviz.  Without it, a :class:`DotGraph` holding
the same DOT source: ``str(graph)`` is the text, ``graph.save("g.dot")`` writes it, and
``render``/``pipe``/``view`` raise ``ImportError`` naming the extra.  In Jupyter, either one
shows the graph as text (:func:`ctxgrad.autograd.printing.format_graph`) when no picture
can be made.

>>> import ctxgrad
>>> from ctxgrad.viz import make_dot
>>> w = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
>>> dot = make_dot((w * 3).sum(), params={"w": w})
>>> print(dot.source)  # doctest: +NORMALIZE_WHITESPACE
digraph {
    graph [size="12,12"]
    node [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]
    0 [label="
 ()" fillcolor=darkolivegreen1]
    1 [label=SumBackward0]
    2 -> 1
    2 [label=MulBackward0]
    3 -> 2
    4 [label="w
 (2)" fillcolor=lightblue]
    4 -> 3
    3 [label=AccumulateGrad]
    1 -> 0
}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor
from ctxgrad.autograd._dot import DotGraph
from ctxgrad.autograd._dot import new_digraph as _new_digraph
from ctxgrad.autograd.graph import AccumulateGrad, Node
from ctxgrad.autograd.printing import attribute_text, attributes_of, format_graph, is_builtin, param_names, saved_of

__all__ = ["DotGraph", "make_dot", "resize_graph"]

NODE_ATTR = {
    "style": "filled",
    "shape": "box",
    "align": "left",
    "fontsize": "10",
    "ranksep": "0.1",
    "height": "0.2",
    "fontname": "monospace",
}


def _size_text(shape: tuple[int, ...]) -> str:
    return "(" + ", ".join(str(n) for n in shape) + ")"


def _attribute_table(name: str, attrs: dict[str, Any], max_attr_chars: int) -> str:
    """The node's name over a two-column table of its ctx attributes."""
    if not attrs:
        return name
    values = {k: attribute_text(v) for k, v in attrs.items()}
    width_value = min(max(len(v) for v in values.values()), max(max_attr_chars, 3))
    width_key = max(len(k) for k in values)
    rule = "-" * max(width_key + width_value + 2, len(name))

    def cut(text: str) -> str:
        return text if len(text) <= width_value else text[: width_value - 3] + "..."

    rows = [f"{k.ljust(width_key)}: {cut(v).rjust(width_value)}" for k, v in values.items()]
    return "\n".join([name, rule, *rows])


def _value_text(data: Any, max_chars: int) -> str:
    """An array's numbers on one line, 4 significant digits, cut to ``max_chars``."""
    try:
        text = np.array2string(np.asarray(data), precision=4, separator=", ", threshold=64)
    except (TypeError, ValueError):  # a dtype NumPy cannot print as numbers
        text = str(data)
    text = " ".join(text.split())
    limit = max(max_chars, 3)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _values_text(t: Tensor, max_chars: int, prefix: str = "") -> str:
    """``data ...`` and ``grad ...`` lines of ``t`` (its ``.grad`` read without the
    non-leaf warning: None is shown as None)."""
    grad = t._grad
    grad_text = "None" if grad is None else _value_text(grad._data, max_chars)
    return f"data{prefix} {_value_text(t._data, max_chars)}\ngrad{prefix} {grad_text}"


def _named_outputs(params: Mapping[str, Tensor] | None) -> dict[int, dict[int, Tensor]]:
    """``id(node) -> {output_nr: tensor}`` for the non-leaf tensors of ``params`` (those
    that called ``retain_grad()`` are found on their node)."""
    found: dict[int, dict[int, Tensor]] = {}
    for t in (params or {}).values():
        if t.grad_fn is not None:
            found.setdefault(id(t.grad_fn), {})[t._output_nr] = t
    return found


def _retained_outputs(node: Node) -> dict[int, Tensor]:
    """The outputs of ``node`` that called ``retain_grad()`` and are still alive."""
    hooks = node._hooks
    if hooks is None:
        return {}
    alive = {nr: ref() for nr, ref in hooks.retain.items()}
    return {nr: t for nr, t in alive.items() if t is not None}


def _outputs(var: Any) -> tuple[Tensor, ...]:
    if isinstance(var, Tensor):
        return (var,)
    if isinstance(var, (tuple, list)) and all(isinstance(v, Tensor) for v in var):
        return tuple(var)
    raise TypeError(f"make_dot: var must be a Tensor or a tuple of Tensors, got {type(var).__name__}")


def make_dot(
    var: Tensor | tuple[Tensor, ...],
    params: Mapping[str, Tensor] | None = None,
    show_attrs: bool = False,
    show_saved: bool = False,
    max_attr_chars: int = 50,
    *,
    show_values: bool = False,
) -> Any:
    """The backward graph of ``var`` (a tensor or a tuple of tensors) as a Graphviz graph.

    ``params`` (a dict of name -> tensor, e.g. ``dict(model.named_parameters())``) names the
    leaves, outputs and saved tensors it holds; ``show_attrs`` shows the attributes each
    ``forward`` set on its ctx, cut to ``max_attr_chars`` characters; ``show_saved`` shows
    what ctxgrad's own ops saved for backward (a user's Function's saved tensors are always
    shown); ``show_values`` shows the ``data`` and ``grad`` of each tensor drawn and of the
    nodes' outputs it can see (micrograd's picture: see the module docstring).  Returns a
    ``graphviz.Digraph`` when the ``graphviz`` package is installed, else a
    :class:`DotGraph` with the same DOT source.  See the module docstring for the colours.

    The walk uses an explicit stack, so a graph of any depth is drawn.
    """
    outputs = _outputs(var)
    names = param_names(params, "make_dot")
    if not isinstance(show_values, bool):
        raise TypeError(f"make_dot: show_values must be a bool, got {type(show_values).__name__}")
    node_outputs = _named_outputs(params) if show_values else {}
    drawn_outputs = {id(t) for t in outputs}  # shown in their own green box
    text = format_graph(
        var if isinstance(var, Tensor) else outputs,
        max_nodes=50,
        params=params,
        show_saved=show_saved,
        show_attrs=show_attrs,
        max_attr_chars=max_attr_chars,
    )
    dot = _new_digraph(graph_attr={"size": "12,12"}, node_attr=NODE_ATTR, text=text)
    idents: dict[int, str] = {}
    seen: set[int] = set()

    def ident(obj: object) -> str:
        key = id(obj)
        name = idents.get(key)
        if name is None:
            name = idents[key] = str(len(idents))
        return name

    def tensor_label(shape: tuple[int, ...], name: str | None, value: object = None) -> str:
        """``value``: the tensor drawn, or a saved entry that keeps only its values."""
        label = f"{name or ''}\n {_size_text(shape)}"
        if not show_values or value is None:
            return label
        if isinstance(value, Tensor):
            return label + "\n" + _values_text(value, max_attr_chars)
        data = getattr(value, "_data", None)  # a saved output: its values, and no grad of its own
        return label if data is None else f"{label}\ndata {_value_text(data, max_attr_chars)}"

    def node_label(fn: Node) -> str:
        label = _attribute_table(fn.name(), attributes_of(fn), max_attr_chars) if show_attrs else fn.name()
        if not show_values or isinstance(fn, AccumulateGrad):
            return label
        known = {**_retained_outputs(fn), **node_outputs.get(id(fn), {})}
        several = len(getattr(fn, "_out_meta", ())) > 1
        lines = [
            _values_text(t, max_attr_chars, f"[{nr}]" if several else "")
            for nr, t in sorted(known.items())
            if id(t) not in drawn_outputs
        ]
        return "\n".join([label, *lines])

    def tensor_name(t: Tensor) -> str | None:
        return names.get(id(t))

    def add_nodes(root: Node) -> None:
        # ("enter", node): draw it, then its inputs, then ("exit", node): its saved tensors,
        # in the order a depth-first recursion would.
        stack: list[tuple[str, Node, Node | None]] = [("enter", root, None)]
        while stack:
            step, fn, child = stack.pop()
            if step == "edge":
                assert child is not None
                dot.edge(ident(child), ident(fn))
                stack.append(("enter", child, None))
                continue
            if step == "exit":
                for i, entry in enumerate(saved_of(fn) or ()):
                    if entry is not None:
                        t, shape, _ = entry
                        key: object = t if t is not None else fn._saved[i]  # type: ignore[attr-defined]
                        seen.add(id(key))
                        dot.edge(ident(key), ident(fn), dir="none")
                        dot.node(
                            ident(key),
                            tensor_label(shape, None if t is None else tensor_name(t), key),
                            fillcolor="orange",
                        )
                continue
            if id(fn) in seen:
                continue
            seen.add(id(fn))
            builtin = is_builtin(fn)
            if show_saved and builtin:
                for i, entry in enumerate(saved_of(fn) or ()):
                    if entry is not None:
                        key = entry[0] if entry[0] is not None else fn._saved[i]  # type: ignore[attr-defined]
                        seen.add(id(key))
                        dot.edge(ident(fn), ident(key), dir="none")
                        dot.node(ident(key), tensor_label(entry[1], f"saved_tensors[{i}]", key), fillcolor="orange")
            if isinstance(fn, AccumulateGrad):
                leaf = fn.variable
                seen.add(id(leaf))
                dot.node(ident(leaf), tensor_label(tuple(leaf.shape), tensor_name(leaf), leaf), fillcolor="lightblue")
                dot.edge(ident(leaf), ident(fn))
            dot.node(ident(fn), node_label(fn))
            if not builtin and not isinstance(fn, AccumulateGrad):
                stack.append(("exit", fn, None))
            children = [c for c, _ in fn.next_functions if c is not None]
            stack.extend(("edge", fn, c) for c in reversed(children))

    for out in outputs:
        color = "darkolivegreen1"
        views: list[tuple[Tensor, Tensor]] = []  # (base, view): dotted edges, drawn after the bases
        t = out
        while id(t) not in seen:
            seen.add(id(t))
            dot.node(ident(t), tensor_label(tuple(t.shape), tensor_name(t), t), fillcolor=color)
            fn = t.grad_fn
            if fn is not None:
                add_nodes(fn)
                dot.edge(ident(fn), ident(t))
            base = t._base
            if base is None:
                break
            views.append((base, t))
            t, color = base, "darkolivegreen3"
        for base, view in reversed(views):
            dot.edge(ident(base), ident(view), style="dotted")
    resize_graph(dot)
    return dot


def resize_graph(dot: Any, size_per_element: float = 0.15, min_size: float = 12) -> None:
    """Set the drawing's size from how many statements the graph has (as torchviz does)."""
    size = max(min_size, len(dot.body) * size_per_element)
    dot.graph_attr.update(size=f"{size},{size}")
