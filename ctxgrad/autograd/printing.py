"""Show a backward graph: as an indented tree (:func:`format_graph`, :func:`print_graph`)
or as Graphviz DOT source (:func:`to_dot`).

The graph of a tensor starts at its ``grad_fn`` and follows ``next_functions``, the way
gradients flow: from each node to the nodes that made its inputs, down to the
``AccumulateGrad`` node of each leaf.

>>> import ctxgrad
>>> from ctxgrad.autograd.printing import print_graph
>>> x = ctxgrad.tensor([1.0, 2.0, 3.0], dtype=ctxgrad.float64, requires_grad=True)
>>> w = ctxgrad.tensor([0.5, 0.5, 0.5], dtype=ctxgrad.float64)   # needs no grad
>>> loss = (x * w + x).sum()
>>> print_graph(loss)
SumBackward0
└─ AddBackward0
   ├─ MulBackward0
   │  ├─ AccumulateGrad [#1] (leaf: shape [3], float64)
   │  └─ (None)
   └─ AccumulateGrad [#1] (see above)

How to read it:

- each line is a node, named by ``node.name()``; its children are its ``next_functions``,
  one per tensor argument of the forward call, in argument order;
- ``AccumulateGrad`` adds the gradient into ``.grad`` of a leaf; the leaf's shape and
  dtype are shown;
- ``(None)`` is an argument that needs no gradient (``w`` above);
- a node reached along more than one path (``x`` above is used twice) is drawn once and
  tagged ``[#k]``; later lines refer back to it with ``(see above)``.  Its gradient is the
  sum of what arrives along every path;
- a node with several outputs says which one an edge comes from: ``(output 1)``.

With ``params`` (a dict of name -> tensor) leaves and outputs are named; ``show_saved``
adds what each node saved for backward, ``show_attrs`` the attributes its ``forward`` set
on the ctx: the facts :func:`ctxgrad.viz.make_dot` draws, as text.

The walk uses an explicit stack, never recursion, so a graph a million nodes deep prints
(its first ``max_nodes`` nodes, with a count of the rest) without a ``RecursionError``;
a tree deeper than 32 levels goes on at the left margin, so the text of a long chain
grows with its length, not with its length squared.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

import numpy as np

from ctxgrad._tensor import Tensor
from ctxgrad.autograd.graph import AccumulateGrad, Node

__all__ = ["format_graph", "print_graph", "to_dot"]

_BRANCH, _LAST_BRANCH = "├─ ", "└─ "
_PIPE, _SPACE = "│  ", "   "
_ASCII = str.maketrans({"├": "+", "└": "`", "─": "-", "│": "|", "…": "...", "↓": "v"})


def _root_of(graph: Tensor | Node) -> tuple[Node | None, int]:
    """The node a walk starts from, and which of its outputs the tensor is."""
    if isinstance(graph, Node):
        return graph, 0
    if not isinstance(graph, Tensor):
        raise TypeError(f"expected a Tensor or a graph Node, got {type(graph).__name__}")
    return graph.grad_fn, graph.output_nr


def _check_max_nodes(max_nodes: int | None) -> None:
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1 (or None for no limit), got {max_nodes}")


def _count_references(root: Node) -> dict[Node, int]:
    """Every node reachable from ``root``, with how many edges point at it."""
    refs: dict[Node, int] = {root: 0}
    stack = [root]
    while stack:
        for child, _ in stack.pop().next_functions:
            if child is None:
                continue
            n = refs.get(child)
            if n is None:
                refs[child] = 1
                stack.append(child)
            else:
                refs[child] = n + 1
    return refs


# --------------------------------------------------------------------------- what a node holds
def _shape_text(shape: tuple[int, ...]) -> str:
    return str(list(shape))


def saved_of(node: Node) -> list[tuple[Tensor | None, tuple[int, ...], np.dtype[Any]] | None] | None:
    """What ``node`` saved for backward, without unpacking it (so no hook runs and no check
    fires): per ``saved_tensors`` entry, ``(tensor, shape, dtype)``, where ``tensor`` is the
    saved tensor object itself when the node keeps it as it is (an input, an intermediate)
    and None when it keeps only its values (its own output, a tensor packed by a hook); None
    for an entry that saved None.  The whole answer is None once a backward freed them."""
    saved = getattr(node, "_saved", ())
    if saved is None:
        return None
    out: list[tuple[Tensor | None, tuple[int, ...], np.dtype[Any]] | None] = []
    for s in saved:
        if s is None:
            out.append(None)
            continue
        t = s._tensor
        data = t._data if t is not None else s._data
        out.append((t, data.shape, data.dtype))
    return out


def attributes_of(node: Node) -> dict[str, Any]:
    """The attributes ``forward``/``setup_context`` set on the ctx (``ctx.k = 3``), by name."""
    found: dict[str, Any] = getattr(node, "__dict__", {})
    return {k: v for k, v in found.items() if not k.startswith("_") and k != "to_save"}


def is_builtin(node: Node) -> bool:
    """True for the node of one of ctxgrad's own ops; False for a user's Function's."""
    cls = getattr(type(node), "_forward_cls", None)
    return cls is not None and cls.__module__.startswith("ctxgrad.")


def attribute_text(value: Any) -> str:
    """A ctx attribute's value as shown: a tensor by its shape, anything else by ``str``."""
    if isinstance(value, Tensor):
        return f"[tensor {_shape_text(value.shape)}]"
    if isinstance(value, (tuple, list)) and any(isinstance(v, Tensor) for v in value):
        return f"[{len(value)} tensors]"
    return str(value)


def _truncate(text: str, limit: int) -> str:
    limit = max(limit, 3)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def param_names(params: Mapping[str, Any] | None, who: str) -> dict[int, str]:
    """``id(tensor) -> name`` from ``params`` (a dict of name -> tensor); ``who`` is the
    function whose argument it is, for the error."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise TypeError(f"{who}: params must be a dict of name -> tensor, got {type(params).__name__}")
    names: dict[int, str] = {}
    for name, t in params.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{who}: params[{name!r}] must be a Tensor, got {type(t).__name__}")
        names[id(t)] = str(name)
    return names


class _Facts:
    """What the lines of a tree show besides node names: leaf names, saved tensors, attributes."""

    def __init__(self, names: dict[int, str], show_saved: bool, show_attrs: bool, max_attr_chars: int) -> None:
        self.names = names
        self.show_saved = show_saved
        self.show_attrs = show_attrs
        self.max_attr_chars = max_attr_chars

    def leaf(self, t: Tensor) -> str:
        name = self.names.get(id(t))
        return f"leaf{'' if name is None else ' ' + name}: shape {_shape_text(t.shape)}, {t.dtype.name}"

    def detail(self, node: Node) -> str:
        if isinstance(node, AccumulateGrad):
            return f" ({self.leaf(node.variable)})"
        parts = ""
        if self.show_attrs:
            attrs = attributes_of(node)
            if attrs:
                shown = ", ".join(f"{k}={_truncate(attribute_text(v), self.max_attr_chars)}" for k, v in attrs.items())
                parts += f" (attrs: {shown})"
        if self.show_saved:
            saved = saved_of(node)
            if saved is None:
                parts += " (saved: freed by a backward)"
            elif saved:
                parts += f" (saved: {', '.join(self._saved_entry(e) for e in saved)})"
        return parts

    def _saved_entry(self, entry: tuple[Tensor | None, tuple[int, ...], np.dtype[Any]] | None) -> str:
        if entry is None:
            return "None"
        t, shape, dtype = entry
        name = self.names.get(id(t)) if t is not None else None
        return f"{'' if name is None else name + ' '}{_shape_text(shape)} {dtype.name}"


def _describe_leaf(t: Tensor) -> str:
    return f"leaf: shape {list(t.shape)}, {t.dtype.name}"


def _name(node: Node, output_nr: int) -> str:
    """The node's name, plus which output an edge uses when the node has several."""
    if node._num_outputs() > 1:
        return f"{node.name()} (output {output_nr})"
    return node.name()


def _no_graph(graph: Tensor) -> str:
    if graph.requires_grad:
        return f"(a leaf that requires grad: shape {list(graph.shape)}, {graph.dtype.name}; no grad_fn, so no graph)"
    return "(no graph: the tensor does not require grad)"


# A tree deeper than this many levels starts again at the left margin, so that a chain of
# n nodes prints in O(n) characters rather than O(n^2) of indentation.
_MAX_INDENT = 32


def format_graph(
    tensor: Tensor | Node | Sequence[Tensor],
    max_nodes: int | None = 50,
    *,
    params: Mapping[str, Tensor] | None = None,
    show_saved: bool = False,
    show_attrs: bool = False,
    max_attr_chars: int = 50,
) -> str:
    """The backward graph of ``tensor`` (or from a node) as an indented tree.

    Shows at most ``max_nodes`` distinct nodes (``None``: all of them); the last line
    then says how many were left out.  See the module docstring for how to read it.

    The same facts as :func:`ctxgrad.viz.make_dot`, as text: ``params`` (a dict of name
    -> tensor, e.g. ``dict(model.named_parameters())``) names the leaves and the outputs;
    ``show_saved`` adds the shape and dtype of what each node saved for backward;
    ``show_attrs`` the attributes ``forward`` set on the ctx, each cut to
    ``max_attr_chars`` characters.  A tuple of tensors gives one tree per tensor.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> loss = (w * w).sum()
    >>> print(format_graph(loss, params={"w": w, "loss": loss}, show_saved=True))
    loss: shape [], float32
    SumBackward0
    └─ MulBackward0 (saved: w [2] float32, w [2] float32)
       ├─ AccumulateGrad [#1] (leaf w: shape [2], float32)
       └─ AccumulateGrad [#1] (see above)
    """
    _check_max_nodes(max_nodes)
    facts = _Facts(param_names(params, "format_graph"), show_saved, show_attrs, max_attr_chars)
    if isinstance(tensor, (tuple, list)):
        if not all(isinstance(t, Tensor) for t in tensor):
            raise TypeError(
                f"expected a Tensor or a graph Node (or a tuple of Tensors), got a {type(tensor).__name__} "
                "holding something else"
            )
        return "\n".join(_format_one(t, max_nodes, facts, header=True) for t in tensor)
    if not isinstance(tensor, (Tensor, Node)):
        raise TypeError(f"expected a Tensor or a graph Node, got {type(tensor).__name__}")
    return _format_one(tensor, max_nodes, facts, header=id(tensor) in facts.names)


def _format_one(tensor: Tensor | Node, max_nodes: int | None, facts: _Facts, header: bool) -> str:
    root, root_nr = _root_of(tensor)
    lines: list[str] = []
    if header and isinstance(tensor, Tensor):
        name = facts.names.get(id(tensor), "output")
        lines.append(f"{name}: shape {_shape_text(tensor.shape)}, {tensor.dtype.name}")
    if root is None:
        assert isinstance(tensor, Tensor)
        lines.append(_no_graph(tensor))
        return "\n".join(lines)
    refs = _count_references(root)
    tags: dict[Node, str] = {}

    def first_line(node: Node, nr: int) -> str:
        tag = ""
        if refs[node] > 1:
            tag = tags[node] = f" [#{len(tags) + 1}]"
        return _name(node, nr) + tag + facts.detail(node)

    lines.append(first_line(root, root_nr))
    shown = 1
    # Each entry: (node or None, output_nr, prefix of its line, is it its parent's last child,
    # depth); a str entry is a line to print as it is.
    stack: list[tuple[Node | None, int, str, bool, int] | str] = []

    def push_children(node: Node, prefix: str, depth: int) -> None:
        children = node.next_functions
        note = None
        if depth % _MAX_INDENT == 0 and children:
            note = f"{prefix}↓ (depth {depth}: the tree goes on at the left margin)"
            prefix = ""
        last = len(children) - 1
        for i in range(last, -1, -1):
            child, nr = children[i]
            stack.append((child, nr, prefix, i == last, depth))
        if note is not None:
            stack.append(note)  # popped first: printed above the children

    push_children(root, "", 1)
    while stack:
        entry = stack.pop()
        if isinstance(entry, str):
            lines.append(entry)
            continue
        node, nr, prefix, is_last, depth = entry
        branch = prefix + (_LAST_BRANCH if is_last else _BRANCH)
        if node is None:
            lines.append(branch + "(None)")
            continue
        tag = tags.get(node)
        if tag is not None:
            lines.append(f"{branch}{_name(node, nr)}{tag} (see above)")
            continue
        if max_nodes is not None and shown >= max_nodes:
            hidden = len(refs) - shown
            lines.append(
                f"{prefix}{_LAST_BRANCH}… {hidden} more node{'s' if hidden != 1 else ''} not shown "
                f"(max_nodes={max_nodes})"
            )
            break
        shown += 1
        lines.append(branch + first_line(node, nr))
        push_children(node, prefix + (_SPACE if is_last else _PIPE), depth + 1)
    return "\n".join(lines)


def print_graph(
    tensor: Tensor | Node | Sequence[Tensor],
    max_nodes: int | None = 50,
    file: TextIO | None = None,
    *,
    params: Mapping[str, Tensor] | None = None,
    show_saved: bool = False,
    show_attrs: bool = False,
    max_attr_chars: int = 50,
) -> None:
    """Print :func:`format_graph` of ``tensor`` (to ``file``, standard output by default).

    On a terminal that cannot show the box-drawing characters, ASCII ones are used.
    """
    out = sys.stdout if file is None else file
    text = format_graph(
        tensor, max_nodes, params=params, show_saved=show_saved, show_attrs=show_attrs, max_attr_chars=max_attr_chars
    )
    encoding = getattr(out, "encoding", None)
    if encoding:
        try:
            text.encode(encoding)
        except UnicodeEncodeError:
            text = text.translate(_ASCII)
    print(text, file=out)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(tensor: Tensor | Node, max_nodes: int | None = None) -> str:
    """The backward graph of ``tensor`` as Graphviz DOT source (render it with ``dot -Tsvg``).

    Nodes are ``n0``, ``n1``, ... in the order :func:`format_graph` lists them; an edge
    ``n0 -> n1`` points the way the gradient flows.  Leaves are filled boxes that show the
    leaf's shape and dtype; an argument that needs no gradient is a grey ``None``.  With
    ``max_nodes``, the nodes past the limit are replaced by one "more nodes" box.  For
    torchviz's picture (named leaves, saved tensors, ctx attributes, the outputs), see
    :func:`ctxgrad.viz.make_dot`.

    >>> import ctxgrad
    >>> x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> print(to_dot((x * 2).sum()))
    digraph backward {
        node [shape=box, style=rounded, fontname="Helvetica"];
        n0 [label="SumBackward0"];
        n1 [label="MulBackward0"];
        n0 -> n1;
        n2 [label="AccumulateGrad\\nleaf: shape [2], float32", style="rounded,filled", fillcolor=lightblue];
        n1 -> n2;
    }
    """
    _check_max_nodes(max_nodes)
    root, _ = _root_of(tensor)
    lines = ["digraph backward {", '    node [shape=box, style=rounded, fontname="Helvetica"];']
    if root is None:
        assert isinstance(tensor, Tensor)
        lines.append(f"    n0 [label={_quote(_no_graph(tensor))}, shape=plaintext];")
        lines.append("}")
        return "\n".join(lines)

    ids: dict[Node, str] = {}

    def declare(node: Node) -> str:
        ident = ids[node] = f"n{len(ids)}"
        if isinstance(node, AccumulateGrad):
            label = f"{node.name()}\n{_describe_leaf(node.variable)}"
            lines.append(f'    {ident} [label={_quote(label)}, style="rounded,filled", fillcolor=lightblue];')
        else:
            lines.append(f"    {ident} [label={_quote(node.name())}];")
        return ident

    # The same walk as format_graph, so nodes are numbered in the order it lists them.
    declare(root)
    stack: list[tuple[str, Node | None, int]] = [(ids[root], c, nr) for c, nr in reversed(root.next_functions)]
    n_none = 0
    cut = False
    while stack:
        parent, child, nr = stack.pop()
        attrs = ""
        if child is None:
            ident = f"none{n_none}"
            n_none += 1
            lines.append(f'    {ident} [label="None", shape=plaintext, fontcolor=gray];')
            attrs = " [style=dashed, color=gray]"
        elif child in ids:
            ident = ids[child]
        elif max_nodes is not None and len(ids) >= max_nodes:
            cut = True
            ident = "more"
            attrs = " [style=dotted]"
        else:
            ident = declare(child)
            stack.extend((ident, c, n) for c, n in reversed(child.next_functions))
        if child is not None and child._num_outputs() > 1:
            attrs = f' [label="output {nr}"]'
        lines.append(f"    {parent} -> {ident}{attrs};")
    if cut:
        left_out = len(_count_references(root)) - len(ids)
        label = f"… {left_out} more node{'s' if left_out != 1 else ''} (max_nodes={max_nodes})"
        lines.append(f"    more [label={_quote(label)}, shape=plaintext];")
    lines.append("}")
    return "\n".join(lines)
