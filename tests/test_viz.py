"""ctxgrad.viz.make_dot: torchviz's make_dot for ctxgrad, with and without the graphviz package;
and the text rendering of the same facts (format_graph with params, show_saved, show_attrs)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import ctxgrad
from ctxgrad.autograd import Function, _dot
from ctxgrad.autograd.printing import format_graph
from ctxgrad.viz import DotGraph, make_dot

# --------------------------------------------------------------------------- reading DOT


def parse(source: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, str]]]:
    """The nodes (id -> attributes, ``label`` among them; later statements add to earlier
    ones, as in DOT) and the edges (tail id, head id, attribute text) of ``source``."""
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str, str]] = []
    value = r'("(?:[^"\\]|\\.)*"|[^\s\]]+)'
    for m in re.finditer(
        r"^\t(\S+) -> (\S+)(?: \[(.*)\])?$|^\t(\S+) \[((?:[^\]\"]|\"(?:[^\"\\]|\\.)*\")*)\]$", source, re.M
    ):
        if m.group(1) is not None:
            edges.append((m.group(1), m.group(2), m.group(3) or ""))
        elif m.group(4) not in ("graph", "node", "edge"):
            attrs = {k: v.strip('"') for k, v in re.findall(r"(\w+)=" + value, m.group(5))}
            nodes.setdefault(m.group(4), {}).update(attrs)
    return nodes, edges


def structure(source: str) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """What a picture shows, whatever the node ids: the (label, fill colour) of each node, and
    each edge as (tail label, head label, attributes), both sorted."""
    nodes, edges = parse(source)

    def label(ident: str) -> str:
        return nodes[ident].get("label", ident).replace("\n", "|")

    shown = sorted((label(i), a.get("fillcolor", "")) for i, a in nodes.items())
    return shown, sorted((label(t), label(h), a) for t, h, a in edges)


@pytest.fixture(params=["graphviz", "no graphviz"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test twice: with the graphviz package (when installed) and as if it were not."""
    if request.param == "graphviz":
        pytest.importorskip("graphviz")
        monkeypatch.setattr(_dot, "_digraph_class", None)  # look again
    else:
        monkeypatch.setattr(_dot, "_digraph_class", False)  # as if the import failed
    return str(request.param)


def leaf(*shape: int) -> ctxgrad.Tensor:
    return ctxgrad.ones(*shape, dtype=ctxgrad.float64, requires_grad=True)


class Scale(Function):
    """A user's Function that saves its input and keeps a number on the ctx."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor, k: float) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        ctx.k = k
        return x * k

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, None]:
        return grad * ctx.k, None


# --------------------------------------------------------------------------- make_dot


def test_the_look_of_a_small_graph(backend: str) -> None:
    w = leaf(2, 3)
    b = leaf(3)
    loss = (w * 2.0 + b).sum()
    dot = make_dot(loss, params={"w": w, "b": b})
    nodes, edges = structure(dot.source)
    assert nodes == [
        ("AccumulateGrad", ""),
        ("AccumulateGrad", ""),
        ("AddBackward0", ""),
        ("MulBackward0", ""),
        ("SumBackward0", ""),
        ("b| (3)", "lightblue"),
        ("w| (2, 3)", "lightblue"),
        ("| ()", "darkolivegreen1"),  # the output: no name, a 0-d tensor
    ]
    assert edges == sorted(
        [
            ("AddBackward0", "SumBackward0", ""),
            ("MulBackward0", "AddBackward0", ""),
            ("AccumulateGrad", "MulBackward0", ""),
            ("w| (2, 3)", "AccumulateGrad", ""),
            ("AccumulateGrad", "AddBackward0", ""),
            ("b| (3)", "AccumulateGrad", ""),
            ("SumBackward0", "| ()", ""),
        ]
    )
    assert (
        "node [align=left fontname=monospace fontsize=10 height=0.2 ranksep=0.1 shape=box style=filled]" in dot.source
    )
    assert '\tgraph [size="12,12"]\n' in dot.source


def test_with_graphviz_it_is_a_graphviz_digraph_and_without_it_a_dotgraph_with_the_same_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    graphviz = pytest.importorskip("graphviz")
    x = leaf(2)
    y = Scale.apply(x, 3.0).exp()
    monkeypatch.setattr(_dot, "_digraph_class", None)
    drawn = make_dot(y, params={"x": x}, show_attrs=True, show_saved=True)
    assert isinstance(drawn, graphviz.Digraph)
    monkeypatch.setattr(_dot, "_digraph_class", False)
    text = make_dot(y, params={"x": x}, show_attrs=True, show_saved=True)
    assert isinstance(text, DotGraph)
    assert text.source == drawn.source
    assert str(text) == text.source


def test_a_dotgraph_writes_what_a_graphviz_digraph_writes() -> None:
    graphviz = pytest.importorskip("graphviz")
    ours, theirs = DotGraph(graph_attr={"size": "12,12"}), graphviz.Digraph(graph_attr={"size": "12,12"})
    for g in (ours, theirs):
        g.attr(rankdir="LR")
        g.attr("node", shape="ellipse", style="filled")
        g.node("0", "w\n (2, 3)", fillcolor="lightblue")
        g.node("graph", 'say "hi"')  # a keyword and a quote: both quoted
        g.edge("0", "graph", dir="none")
        g.edge("a b", "c", style="dotted")
    assert ours.source == theirs.source
    with pytest.raises(ValueError, match="attr statement must target graph, node, or edge"):
        ours.attr("cluster", color="red")


def test_without_graphviz_drawing_names_the_extra_and_saving_writes_the_source(tmp_path: Path) -> None:
    dot = DotGraph()
    dot.node("a", "MulBackward0")
    for draw in (dot.render, dot.pipe, dot.view):
        with pytest.raises(ImportError, match=re.escape("pip install 'ctxgrad[viz]'")):
            draw()
    path = tmp_path / "g.dot"
    assert dot.save(path) == str(path)
    assert path.read_text() == "digraph {\n\ta [label=MulBackward0]\n}\n"


def test_jupyter_shows_the_text_tree_without_a_picture(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    x = leaf(2)
    loss = (x * x).sum()
    dot = make_dot(loss, params={"x": x})
    if backend == "graphviz":
        import graphviz

        def no_dot_program(*args: Any, **kwargs: Any) -> Any:
            raise graphviz.ExecutableNotFound(("dot",))

        monkeypatch.setattr(graphviz.Digraph, "pipe", no_dot_program)
    bundle = dot._repr_mimebundle_()
    assert bundle == {"text/plain": format_graph(loss, params={"x": x})}
    assert bundle["text/plain"].splitlines()[-2:] == [
        "   ├─ AccumulateGrad [#1] (leaf x: shape [2], float64)",
        "   └─ AccumulateGrad [#1] (see above)",
    ]


def test_jupyter_shows_graphvizs_picture_when_dot_can_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    graphviz = pytest.importorskip("graphviz")
    monkeypatch.setattr(_dot, "_digraph_class", None)
    dot = make_dot(leaf(2).sum())
    calls: list[str] = []

    def fake_pipe(self: Any, format: str | None = None, **kwargs: Any) -> Any:
        calls.append(str(format))
        return "<svg>the picture</svg>"

    monkeypatch.setattr(graphviz.Digraph, "pipe", fake_pipe)
    assert dot._repr_mimebundle_() == {"image/svg+xml": "<svg>the picture</svg>"}
    assert calls == ["svg"]


def test_params_name_leaves_and_outputs_and_a_tuple_draws_every_output(backend: str) -> None:
    x = leaf(3)
    y = x * 2.0
    z = y.exp()
    nodes, edges = structure(make_dot((y, z), params={"x": x, "y": y, "z": z}).source)
    assert ("x| (3)", "lightblue") in nodes
    assert ("y| (3)", "darkolivegreen1") in nodes
    assert ("z| (3)", "darkolivegreen1") in nodes
    assert ("MulBackward0", "y| (3)", "") in edges
    assert ("ExpBackward0", "z| (3)", "") in edges
    assert ("MulBackward0", "ExpBackward0", "") in edges
    assert [n for n, _ in nodes].count("MulBackward0") == 1  # drawn once, reached from both outputs


def test_a_users_saved_tensors_are_always_shown_and_a_builtins_with_show_saved(backend: str) -> None:
    x = leaf(2, 2)
    y = Scale.apply(x, 3.0).exp()
    nodes, edges = structure(make_dot(y, params={"x": x}).source)
    # Scale saved its input x: the same tensor as the leaf, so the same box, now orange (as
    # torchviz: a later node statement overrides the fill colour).
    assert ("x| (2, 2)", "orange") in nodes
    assert ("x| (2, 2)", "ScaleBackward", "dir=none") in edges
    assert not any("saved_tensors" in n for n, _ in nodes)
    nodes, edges = structure(make_dot(y, params={"x": x}, show_saved=True).source)
    # exp saves its output: a box of its own, joined to ExpBackward0 by a line.
    assert ("saved_tensors[0]| (2, 2)", "orange") in nodes
    assert ("ExpBackward0", "saved_tensors[0]| (2, 2)", "dir=none") in edges


def test_show_attrs_draws_the_ctx_attributes_as_a_table_cut_to_max_attr_chars(backend: str) -> None:
    class Noted(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            ctx.note = "a long note about this node"
            ctx.k = 3.0
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return grad

    y = Noted.apply(leaf(2))
    nodes, _ = parse(make_dot(y, show_attrs=True, max_attr_chars=10).source)
    labels = [a["label"] for a in nodes.values() if "label" in a]
    # torchviz's table: keys padded to the longest, values right-aligned in a column as wide
    # as the longest value or max_attr_chars, cut with "..."; a rule as wide as the table.
    assert "NotedBackward\n----------------\nnote: a long ...\nk   :        3.0" in labels
    assert "NotedBackward" in [a["label"] for a in parse(make_dot(y).source)[0].values() if "label" in a]


def test_an_output_that_is_a_view_draws_its_base_dark_green_with_a_dotted_arrow(backend: str) -> None:
    x = leaf(2, 3)
    base = x * 1.0
    v = base[0]
    nodes, edges = structure(make_dot(v).source)
    assert ("| (3)", "darkolivegreen1") in nodes
    assert ("| (2, 3)", "darkolivegreen3") in nodes
    assert ("| (2, 3)", "| (3)", "style=dotted") in edges
    assert ("MulBackward0", "| (2, 3)", "") in edges


def test_bad_arguments_name_make_dot() -> None:
    with pytest.raises(TypeError, match=r"make_dot: var must be a Tensor or a tuple of Tensors, got list"):
        make_dot([1.0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"make_dot: params\['w'\] must be a Tensor, got int"):
        make_dot(leaf(1) * 2.0, params={"w": 3})  # type: ignore[dict-item]


# --------------------------------------------------------------------------- show_values


def micrograd_example() -> dict[str, ctxgrad.Tensor]:
    """micrograd's first picture: L = (a * b + c) * f, every intermediate keeping its grad."""
    a, b, c, f = (ctxgrad.tensor(v, dtype=ctxgrad.float64, requires_grad=True) for v in (2.0, -3.0, 10.0, -2.0))
    e = a * b
    d = e + c
    loss = d * f
    for t in (e, d, loss):
        t.retain_grad()
    loss.backward()
    return {"a": a, "b": b, "c": c, "f": f, "e": e, "d": d, "L": loss}


def test_show_values_puts_data_and_grad_in_every_box_as_micrograd_draws(backend: str) -> None:
    t = micrograd_example()
    leaves = {k: t[k] for k in "abcf"}
    nodes, edges = structure(make_dot(t["L"], params=leaves, show_values=True).source)
    # dL/da = b f = 6, dL/db = a f = -4, dL/dc = f = -2, dL/df = d = 4, dL/de = dL/dd = f = -2
    assert nodes == [
        ("AccumulateGrad", ""),
        ("AccumulateGrad", ""),
        ("AccumulateGrad", ""),
        ("AccumulateGrad", ""),
        ("AddBackward0|data 4.|grad -2.", ""),  # d, retained
        ("MulBackward0", ""),  # L's node: L is drawn in its own green box
        ("MulBackward0|data -6.|grad -2.", ""),  # e, retained
        ("a| ()|data 2.|grad 6.", "lightblue"),
        ("b| ()|data -3.|grad -4.", "lightblue"),
        ("c| ()|data 10.|grad -2.", "lightblue"),
        ("f| ()|data -2.|grad 4.", "lightblue"),
        ("| ()|data -8.|grad 1.", "darkolivegreen1"),
    ]
    assert ("AddBackward0|data 4.|grad -2.", "MulBackward0", "") in edges
    # Without show_values the same graph has the plain labels.
    plain, plain_edges = structure(make_dot(t["L"], params=leaves).source)
    assert ("a| ()", "lightblue") in plain and ("AddBackward0", "") in plain
    assert len(plain_edges) == len(edges)


def test_show_values_shows_an_intermediate_named_in_params_and_grad_none_before_backward(backend: str) -> None:
    x = ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True)
    h = x * 3.0
    y = h.sum()
    nodes, _ = structure(make_dot(y, params={"x": x, "h": h}, show_values=True).source)
    assert ("MulBackward0|data [3., 6.]|grad None", "") in nodes
    assert ("x| (2)|data [1., 2.]|grad None", "lightblue") in nodes
    assert ("| ()|data 9.|grad None", "darkolivegreen1") in nodes


def test_show_values_numbers_each_output_of_a_node_with_several(backend: str) -> None:
    x = ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True)
    first, second = (x * 1.0).unbind(0)
    first.retain_grad()
    second.retain_grad()
    (first * 5.0 + second).backward()
    nodes, _ = structure(make_dot(first * 5.0 + second, show_values=True).source)
    assert ("UnbindBackward0|data[0] 1.|grad[0] 5.|data[1] 2.|grad[1] 1.", "") in nodes


def test_show_values_cuts_long_values_to_max_attr_chars(backend: str) -> None:
    x = ctxgrad.arange(100, dtype=ctxgrad.float64).requires_grad_()
    nodes, _ = structure(make_dot(x * 2.0, params={"x": x}, show_values=True, max_attr_chars=12).source)
    assert ("x| (100)|data [ 0., 1.,...|grad None", "lightblue") in nodes


class SavesItsOutput(Function):
    """exp, saving its output: a node that keeps the values, not the tensor."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (y,) = ctx.saved_tensors
        return grad * y


def test_show_values_shows_the_values_a_node_saved(backend: str) -> None:
    x = ctxgrad.tensor([0.0, 1.0], dtype=ctxgrad.float64, requires_grad=True)
    y = SavesItsOutput.apply(x)
    nodes, edges = structure(make_dot(y.sum(), params={"x": x}, show_values=True).source)
    assert ("| (2)|data [1. , 2.7183]", "orange") in nodes
    assert ("| (2)|data [1. , 2.7183]", "SavesItsOutputBackward", "dir=none") in edges
    # without show_values, the same box without the numbers
    assert ("| (2)", "orange") in structure(make_dot(y.sum(), params={"x": x}).source)[0]


def test_show_values_must_be_a_bool() -> None:
    with pytest.raises(TypeError, match=r"make_dot: show_values must be a bool, got str"):
        make_dot(leaf(1) * 2.0, show_values="yes")  # type: ignore[arg-type]


def test_a_graph_100000_nodes_deep_is_drawn_without_recursion(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_dot, "_digraph_class", False)  # (the walk is the same with graphviz)
    x = leaf(1)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    depth = 0
    frame: FrameType | None = sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 100)  # any recursion over the graph would fail at once
    try:
        source = make_dot(y).source
    finally:
        sys.setrecursionlimit(limit)
    assert source.count("[label=MulBackward0]") == 100_000
    assert source.count(" -> ") == 100_000 + 2  # the chain, leaf -> AccumulateGrad, node -> output


# --------------------------------------------------------------------------- torch's tutorial


def tutorial_graphs(lib: Any, make_dot: Any) -> list[Any]:
    """The graphs of torch's tutorial "Double Backward with Custom Functions", its code as
    written there; ``lib`` is torch or ctxgrad, ``make_dot`` torchviz's or ours."""
    torch = lib

    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**2

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return grad_out * 2 * x

    class Exp(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = torch.exp(x)
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad_out):
            (result,) = ctx.saved_tensors
            return result * grad_out

    class Sinh(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.save_for_backward(expx, expnegx)
            return (expx - expnegx) / 2, expx, expnegx

        @staticmethod
        def backward(ctx, grad_out, _grad_out_exp, _grad_out_negexp):
            expx, expnegx = ctx.saved_tensors
            grad_input = grad_out * (expx + expnegx) / 2
            grad_input += _grad_out_exp * expx
            grad_input -= _grad_out_negexp * expnegx
            return grad_input

    def sinh(x):
        return Sinh.apply(x)[0]

    class SinhBad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            expx = torch.exp(x)
            expnegx = torch.exp(-x)
            ctx.expx = expx
            ctx.expnegx = expnegx
            return (expx - expnegx) / 2

        @staticmethod
        def backward(ctx, grad_out):
            expx = ctx.expx
            expnegx = ctx.expnegx
            grad_input = grad_out * (expx + expnegx) / 2
            return grad_input

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx, grad_out):
            (x,) = ctx.saved_tensors
            return CubeBackward.apply(grad_out, x)

    class CubeBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, grad_out, x):
            ctx.save_for_backward(x, grad_out)
            return grad_out * 3 * x**2

        @staticmethod
        def backward(ctx, grad_out):
            x, sav_grad_out = ctx.saved_tensors
            dx = grad_out * sav_grad_out * 6 * x
            dgrad_out = grad_out * 3 * x**2
            return dgrad_out, dx

    graphs = []
    x = torch.tensor(1.0, requires_grad=True).clone()
    out = Square.apply(x)
    (grad_x,) = torch.autograd.grad(out, x, create_graph=True)
    graphs.append(make_dot((grad_x, x, out), {"grad_x": grad_x, "x": x, "out": out}))

    x = torch.tensor(1.0, requires_grad=True, dtype=torch.double).clone()
    out = Exp.apply(x)
    (grad_x,) = torch.autograd.grad(out, x, create_graph=True)
    graphs.append(make_dot((grad_x, x, out), {"grad_x": grad_x, "x": x, "out": out}))

    x = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
    out = sinh(x)
    (grad_x,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    graphs.append(make_dot((grad_x, x, out), params={"grad_x": grad_x, "x": x, "out": out}))

    with pytest.warns(UserWarning, match="stores a Tensor as ctx.expx") if lib is ctxgrad else _no_warning():
        out = SinhBad.apply(x)
    (grad_x,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    graphs.append(make_dot((grad_x, x, out), params={"grad_x": grad_x, "x": x, "out": out}))

    x = torch.tensor(2.0, requires_grad=True, dtype=torch.double)
    out = Cube.apply(x)
    (grad_x,) = torch.autograd.grad(out, x, create_graph=True)
    graphs.append(make_dot((grad_x, x, out), params={"grad_x": grad_x, "x": x, "out": out}))
    return graphs


class _no_warning:
    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: Any) -> None:
        pass


# What torchviz 0.0.3 draws for the tutorial on torch 2.13 (measured), in the form of structure().
TUTORIAL_PICTURES = [
    (
        [
            ("AccumulateGrad", ""),
            ("CloneBackward0", ""),
            ("MulBackward0", ""),
            ("SquareBackward", ""),
            ("grad_x| ()", "darkolivegreen1"),
            ("out| ()", "darkolivegreen1"),
            ("x| ()", "orange"),
            ("| ()", "lightblue"),
        ],
        [
            ("AccumulateGrad", "CloneBackward0", ""),
            ("CloneBackward0", "MulBackward0", ""),
            ("CloneBackward0", "SquareBackward", ""),
            ("CloneBackward0", "x| ()", ""),
            ("MulBackward0", "grad_x| ()", ""),
            ("SquareBackward", "out| ()", ""),
            ("x| ()", "SquareBackward", "dir=none"),
            ("| ()", "AccumulateGrad", ""),
        ],
    ),
    (
        [
            ("AccumulateGrad", ""),
            ("CloneBackward0", ""),
            ("ExpBackward", ""),
            ("MulBackward0", ""),
            ("grad_x| ()", "darkolivegreen1"),
            ("out| ()", "darkolivegreen1"),
            ("x| ()", "darkolivegreen1"),
            ("| ()", "lightblue"),
            ("| ()", "orange"),
        ],
        [
            ("AccumulateGrad", "CloneBackward0", ""),
            ("CloneBackward0", "ExpBackward", ""),
            ("CloneBackward0", "x| ()", ""),
            ("ExpBackward", "MulBackward0", ""),
            ("ExpBackward", "out| ()", ""),
            ("MulBackward0", "grad_x| ()", ""),
            ("| ()", "AccumulateGrad", ""),
            ("| ()", "ExpBackward", "dir=none"),
        ],
    ),
    (
        [
            ("AccumulateGrad", ""),
            ("AddBackward0", ""),
            ("AddBackward0", ""),
            ("DivBackward0", ""),
            ("MulBackward0", ""),
            ("MulBackward0", ""),
            ("MulBackward0", ""),
            ("SinhBackward", ""),
            ("SubBackward0", ""),
            ("grad_x| (3, 3)", "darkolivegreen1"),
            ("out| (3, 3)", "darkolivegreen1"),
            ("x| (3, 3)", "lightblue"),
            ("| (3, 3)", "orange"),
            ("| (3, 3)", "orange"),
        ],
        [
            ("AccumulateGrad", "SinhBackward", ""),
            ("AddBackward0", "MulBackward0", ""),
            ("AddBackward0", "SubBackward0", ""),
            ("DivBackward0", "AddBackward0", ""),
            ("MulBackward0", "AddBackward0", ""),
            ("MulBackward0", "DivBackward0", ""),
            ("MulBackward0", "SubBackward0", ""),
            ("SinhBackward", "AddBackward0", ""),
            ("SinhBackward", "AddBackward0", ""),
            ("SinhBackward", "MulBackward0", ""),
            ("SinhBackward", "MulBackward0", ""),
            ("SinhBackward", "out| (3, 3)", ""),
            ("SubBackward0", "grad_x| (3, 3)", ""),
            ("x| (3, 3)", "AccumulateGrad", ""),
            ("| (3, 3)", "SinhBackward", "dir=none"),
            ("| (3, 3)", "SinhBackward", "dir=none"),
        ],
    ),
    (
        # SinhBad: grad_x has no graph (the tutorial's point), a green box on its own; x, an
        # output here too, is drawn again as the leaf it is.
        [
            ("AccumulateGrad", ""),
            ("SinhBadBackward", ""),
            ("grad_x| (3, 3)", "darkolivegreen1"),
            ("out| (3, 3)", "darkolivegreen1"),
            ("x| (3, 3)", "lightblue"),
        ],
        [
            ("AccumulateGrad", "SinhBadBackward", ""),
            ("SinhBadBackward", "out| (3, 3)", ""),
            ("x| (3, 3)", "AccumulateGrad", ""),
        ],
    ),
    (
        [
            ("AccumulateGrad", ""),
            ("CubeBackward", ""),
            ("CubeBackwardBackward", ""),
            ("grad_x| ()", "darkolivegreen1"),
            ("out| ()", "darkolivegreen1"),
            ("x| ()", "orange"),
            ("| ()", "orange"),
        ],
        [
            ("AccumulateGrad", "CubeBackward", ""),
            ("AccumulateGrad", "CubeBackwardBackward", ""),
            ("CubeBackward", "out| ()", ""),
            ("CubeBackwardBackward", "grad_x| ()", ""),
            ("x| ()", "AccumulateGrad", ""),
            ("x| ()", "CubeBackward", "dir=none"),
            ("x| ()", "CubeBackwardBackward", "dir=none"),
            ("| ()", "CubeBackwardBackward", "dir=none"),
        ],
    ),
]


def test_torchs_double_backward_tutorial_ports_by_changing_the_import(backend: str) -> None:
    pictures = [structure(g.source) for g in tutorial_graphs(ctxgrad, make_dot)]
    assert pictures == TUTORIAL_PICTURES


def test_the_tutorials_pictures_match_torchvizs_on_torch(backend: str) -> None:
    torch = pytest.importorskip("torch")
    torchviz = pytest.importorskip("torchviz")
    ours = [structure(g.source) for g in tutorial_graphs(ctxgrad, make_dot)]
    theirs = [structure(g.source) for g in tutorial_graphs(torch, torchviz.make_dot)]
    assert ours == theirs


def backward_structure(outputs: tuple[Any, ...]) -> list[tuple[str, str]]:
    """Every edge (node name, input node name) of the backward graph of ``outputs``, read
    through ``grad_fn.next_functions`` alone, so the same code reads torch's and ours."""
    edges = []
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    seen = set()
    while stack:
        fn = stack.pop()
        if fn in seen:
            continue
        seen.add(fn)
        for child, _ in fn.next_functions:
            if child is not None:
                edges.append((fn.name(), child.name().replace("torch::autograd::", "")))
                stack.append(child)
    return sorted(edges)


def test_the_tutorials_graphs_have_torchs_nodes_and_edges(torch: Any) -> None:
    captured: dict[str, list[Any]] = {"torch": [], "ctxgrad": []}

    def keep(into: list[Any]) -> Any:
        def fake_make_dot(var: Any, params: Any = None, **kwargs: Any) -> Any:
            into.append(backward_structure(var))
            return DotGraph()

        return fake_make_dot

    tutorial_graphs(torch, keep(captured["torch"]))
    tutorial_graphs(ctxgrad, keep(captured["ctxgrad"]))
    assert captured["ctxgrad"] == captured["torch"]
    assert len(captured["torch"]) == 5 and all(captured["torch"][i] for i in (0, 1, 2, 4))


# --------------------------------------------------------------------------- the text rendering


def test_the_text_names_leaves_and_shows_saved_tensors_and_attributes() -> None:
    w = leaf(2)
    y = Scale.apply(w, 3.0)
    loss = y.sum()
    assert format_graph(loss, params={"w": w}, show_saved=True, show_attrs=True) == (
        "SumBackward0 (attrs: shape=(2,), axes=(0,), keepdim=False)\n"
        "└─ ScaleBackward (attrs: k=3.0) (saved: w [2] float64)\n"
        "   └─ AccumulateGrad (leaf w: shape [2], float64)"
    )
    loss.backward()
    assert "(saved: freed by a backward)" in format_graph(loss, show_saved=True)


def test_the_text_cuts_attributes_to_max_attr_chars_and_shows_tensors_by_shape() -> None:
    class Keeps(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            ctx.note = "a long note about this node"
            ctx.pair = (x, x)
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return grad

    with pytest.warns(UserWarning, match="stores a Tensor"):
        y = Keeps.apply(leaf(2))
    text = format_graph(y, show_attrs=True, max_attr_chars=11)
    assert text.splitlines()[0] == "KeepsBackward (attrs: note=a long n..., pair=[2 tensors])"


def test_the_text_of_a_tuple_is_one_tree_per_output_under_its_name() -> None:
    x = leaf(2)
    y = x * 2.0
    z = y.exp()
    assert format_graph((y, z), params={"y": y, "x": x}) == (
        "y: shape [2], float64\n"
        "MulBackward0\n"
        "└─ AccumulateGrad (leaf x: shape [2], float64)\n"
        "output: shape [2], float64\n"
        "ExpBackward0\n"
        "└─ MulBackward0\n"
        "   └─ AccumulateGrad (leaf x: shape [2], float64)"
    )


def test_the_text_of_a_100000_node_graph_is_linear_in_size() -> None:
    x = leaf(1)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    text = format_graph(y, max_nodes=None, show_saved=True, show_attrs=True)
    lines = text.splitlines()
    notes = [line for line in lines if "the tree goes on at the left margin" in line]
    assert len(lines) == 100_001 + len(notes)  # 100,000 MulBackward0 and the AccumulateGrad
    assert len(notes) == 100_001 // 32
    assert max(len(line) for line in lines) < 200  # no quadratic indentation
