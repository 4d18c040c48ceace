"""format_graph / print_graph / to_dot: the backward graph as text."""

from __future__ import annotations

import io
import sys
from types import FrameType
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.autograd.printing import format_graph, print_graph, to_dot


def leaf(*values: float) -> ctxgrad.Tensor:
    return ctxgrad.tensor(list(values), dtype=ctxgrad.float64, requires_grad=True)


class Scale(Function):
    """A custom Function with a non-tensor argument: it gets no entry in next_functions."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor, factor: float) -> ctxgrad.Tensor:
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, None]:
        return grad * ctx.factor, None


class Halves(Function):
    """Two tensor outputs from one node."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        return x * 0.5, x * 0.5

    @staticmethod
    def backward(ctx: Any, ga: ctxgrad.Tensor, gb: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return (ga + gb) * 0.5


def test_small_graph_with_a_custom_function_and_an_input_that_needs_no_grad() -> None:
    x = leaf(1.0, 2.0, 3.0)
    w = ctxgrad.tensor([[1.0, 2.0, 3.0]], dtype=ctxgrad.float64)
    y = Scale.apply(x, 2.0) * w
    assert format_graph(y.sum()) == (
        "SumBackward0\n"
        "└─ MulBackward0\n"
        "   ├─ ScaleBackward\n"
        "   │  └─ AccumulateGrad (leaf: shape [3], float64)\n"
        "   └─ (None)"
    )


def test_a_node_reached_twice_is_drawn_once_and_referred_back_to() -> None:
    x = leaf(1.0, 2.0)
    b = leaf(3.0)
    h = x * b
    loss = (h + h * x).sum()
    assert format_graph(loss) == (
        "SumBackward0\n"
        "└─ AddBackward0\n"
        "   ├─ MulBackward0 [#1]\n"
        "   │  ├─ AccumulateGrad [#2] (leaf: shape [2], float64)\n"
        "   │  └─ AccumulateGrad (leaf: shape [1], float64)\n"
        "   └─ MulBackward0\n"
        "      ├─ MulBackward0 [#1] (see above)\n"
        "      └─ AccumulateGrad [#2] (see above)"
    )


def test_a_node_with_several_outputs_says_which_output_each_edge_uses() -> None:
    x = leaf(4.0)
    a, b = Halves.apply(x)
    assert format_graph(a * b) == (
        "MulBackward0\n"
        "├─ HalvesBackward (output 0) [#1]\n"
        "│  └─ AccumulateGrad (leaf: shape [1], float64)\n"
        "└─ HalvesBackward (output 1) [#1] (see above)"
    )


def test_max_nodes_cuts_the_tree_and_counts_what_was_left_out() -> None:
    x = leaf(1.0)
    y = x
    for _ in range(9):
        y = y * 2.0
    # 9 MulBackward0 nodes and one AccumulateGrad: 10 nodes, 3 shown.
    assert format_graph(y, max_nodes=3) == (
        "MulBackward0\n└─ MulBackward0\n   └─ MulBackward0\n      └─ … 7 more nodes not shown (max_nodes=3)"
    )
    assert "not shown" not in format_graph(y, max_nodes=10)
    assert format_graph(y, max_nodes=None) == format_graph(y, max_nodes=10)


def test_max_nodes_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_nodes"):
        format_graph(leaf(1.0) * 2.0, max_nodes=0)


def test_a_100000_deep_chain_prints_without_recursion() -> None:
    x = leaf(1.0)
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
        text = format_graph(y)
        dot = to_dot(y, max_nodes=10)
    finally:
        sys.setrecursionlimit(limit)
    lines = text.splitlines()
    assert len(lines) == 52  # 50 nodes, one "more nodes" line, and where the indentation restarts
    assert lines[32] == " " * 3 * 31 + "↓ (depth 32: the tree goes on at the left margin)"
    assert lines[33] == "└─ MulBackward0"
    assert lines[-1].endswith("… 99951 more nodes not shown (max_nodes=50)")
    assert dot.count('[label="MulBackward0"]') == 10
    assert '"… 99991 more nodes (max_nodes=10)"' in dot


def test_tensors_without_a_graph() -> None:
    assert format_graph(leaf(1.0, 2.0)) == "(a leaf that requires grad: shape [2], float64; no grad_fn, so no graph)"
    assert format_graph(ctxgrad.ones(2)) == "(no graph: the tensor does not require grad)"


def test_a_node_can_be_given_instead_of_a_tensor() -> None:
    y = leaf(1.0) * 2.0
    assert y.grad_fn is not None
    assert format_graph(y.grad_fn) == format_graph(y)
    with pytest.raises(TypeError, match="expected a Tensor or a graph Node"):
        format_graph([1.0])  # type: ignore[arg-type]


def test_print_graph_prints_format_graph() -> None:
    y = (leaf(1.0) * 2.0).sum()
    out = io.StringIO()
    print_graph(y, file=out)
    assert out.getvalue() == format_graph(y) + "\n"


def test_print_graph_falls_back_to_ascii_when_the_terminal_cannot_show_box_characters() -> None:
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    y = leaf(1.0) * ctxgrad.ones(1, dtype=ctxgrad.float64)
    print_graph(y, file=out)
    out.flush()
    assert raw.getvalue().decode("ascii") == ("MulBackward0\n+- AccumulateGrad (leaf: shape [1], float64)\n`- (None)\n")


def test_to_dot_lists_every_node_and_edge() -> None:
    x = leaf(1.0, 2.0)
    w = ctxgrad.tensor([1.0, 1.0], dtype=ctxgrad.float64)
    loss = (x * w + x).sum()
    dot = to_dot(loss)
    lines = [line.strip() for line in dot.splitlines()]
    assert lines[0] == "digraph backward {"
    assert lines[-1] == "}"
    body = set(lines[1:-1])
    leaf_node = 'n3 [label="AccumulateGrad\\nleaf: shape [2], float64", style="rounded,filled", fillcolor=lightblue];'
    expected = {
        'n0 [label="SumBackward0"];',
        'n1 [label="AddBackward0"];',
        'n2 [label="MulBackward0"];',
        leaf_node,
        'none0 [label="None", shape=plaintext, fontcolor=gray];',
        "n0 -> n1;",
        "n1 -> n2;",
        "n2 -> n3;",
        "n2 -> none0 [style=dashed, color=gray];",
        "n1 -> n3;",
    }
    assert expected <= body
    assert sum(1 for line in body if "->" in line) == 5
    assert sum(1 for line in body if "[label=" in line and "->" not in line) == 5


def test_to_dot_of_a_tensor_without_a_graph_is_still_valid_dot() -> None:
    dot = to_dot(ctxgrad.ones(2))
    assert dot.startswith("digraph backward {") and dot.endswith("}")
    assert "no graph" in dot


def test_to_dot_escapes_quotes_in_names() -> None:
    class Quoted(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return grad

    y = Quoted.apply(leaf(1.0))
    assert y.grad_fn is not None
    type(y.grad_fn).name = lambda self: 'say "hi"'
    assert 'n0 [label="say \\"hi\\""];' in to_dot(y)


COMPLEX_CASES = [
    [1 + 2j, 3 - 4j],
    [1j, 2j],
    [[0.5 + 1j, -1.25 - 0.5j], [3 + 0j, 1e-5j]],
    [1e10 + 1j, 2 + 3j],
    [float("nan") + 1j, float("inf") - 1j],
    [0j],
    [-0.0 - 0.0j, 1 - 1j],
    list(np.arange(40) * (1.5 + 0.25j)),
    list(np.arange(2000) * (1 + 1j)),
    1 + 2j,
]


def test_complex_tensors_print_both_parts() -> None:
    assert repr(ctxgrad.tensor(np.array([1 + 2j, 3 - 4j], dtype=np.complex64))) == "tensor([1.+2.j, 3.-4.j])"
    assert repr(ctxgrad.tensor(np.array([1j, 2j]))) == "tensor([0.+1.j, 0.+2.j], dtype=ctxgrad.complex128)"
    assert repr(ctxgrad.tensor(np.array(1.5 - 0.25j))) == "tensor(1.5000-0.2500j, dtype=ctxgrad.complex128)"


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("values", COMPLEX_CASES, ids=range(len(COMPLEX_CASES)))
def test_complex_repr_matches_torch(torch: Any, values: Any, dtype: str) -> None:
    ours = repr(ctxgrad.tensor(np.array(values, dtype=dtype)))
    theirs = repr(torch.tensor(np.array(values, dtype=dtype)))
    assert ours == theirs.replace("torch.", "ctxgrad.")
