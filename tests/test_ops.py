"""Values and gradients of the built-in ops.

Each op case is one row of a table: a function ``fn(m, *inputs)`` written once and run with
``m`` = ``ctxgrad``, ``torch`` or ``numpy`` (or a separate NumPy reference where the spellings
differ), and the shapes and value domains of its inputs.  Every row is checked

* forward values against NumPy in float64;
* values, dtype, shape, requires_grad and gradients against torch on the same float64 inputs,
  and dtypes and values again in float32;
* gradients against central differences in float64;

and the double-backward table compares second derivatives with torch and with central
differences of the first derivative.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_, assert_same, case_params, make_inputs, numerical_gradient_check

import ctxgrad

_any = any_


ARITHMETIC = [
    Case("add", lambda m, a, b: a + b, _any((3,), (3,))),
    Case("add-broadcast-3x1-4", lambda m, a, b: a + b, _any((3, 1), (4,))),
    Case("add-broadcast-2x3-3", lambda m, a, b: a + b, _any((2, 3), (3,))),
    Case("add-0d", lambda m, a, b: a + b, _any((), (2, 2))),
    Case("add-alpha", lambda m, a, b: a.add(b, alpha=2.5), _any((2, 3), (3,)), ref=lambda m, a, b: a + 2.5 * b),
    Case("sub", lambda m, a, b: a - b, _any((2, 3), (2, 3))),
    Case("sub-broadcast", lambda m, a, b: a - b, _any((4,), (3, 1))),
    Case("sub-alpha", lambda m, a, b: a.sub(b, alpha=3), _any((3,), (3,)), ref=lambda m, a, b: a - 3 * b),
    Case("mul", lambda m, a, b: a * b, _any((2, 3), (2, 3))),
    Case("mul-broadcast-2x3-3", lambda m, a, b: a * b, _any((2, 3), (3,))),
    Case("mul-broadcast-3x1-4", lambda m, a, b: a * b, _any((3, 1), (4,))),
    Case("mul-self", lambda m, a: a * a, _any((3,))),
    Case("mul-0d", lambda m, a, b: a * b, _any((3,), ())),
    Case("div", lambda m, a, b: a / b, [((2, 3), "any"), ((2, 3), "nz")]),
    Case("div-broadcast-2x3-3", lambda m, a, b: a / b, [((2, 3), "any"), ((3,), "nz")]),
    Case("div-broadcast-3x1-1x4", lambda m, a, b: a / b, [((3, 1), "any"), ((1, 4), "nz")]),
    Case("pow", lambda m, a, b: a**b, [((2, 3), "pos"), ((2, 3), "any")]),
    Case("pow-broadcast", lambda m, a, b: a**b, [((3, 1), "pos"), ((4,), "any")]),
    Case("pow-broadcast-2x3-3", lambda m, a, b: a**b, [((2, 3), "pos"), ((3,), "any")]),
    Case("neg", lambda m, a: -a, _any((2, 3))),
    Case("neg-0d", lambda m, a: -a, _any(())),
    # A Python number on either side.
    Case("add-pyfloat", lambda m, a: a + 2.5, _any((2, 3))),
    Case("radd-pyfloat", lambda m, a: 2.5 + a, _any((2, 3))),
    Case("add-pyint", lambda m, a: a + 2, _any((3,))),
    Case("sub-pyint", lambda m, a: a - 1, _any((3,))),
    Case("rsub-pyint", lambda m, a: 3 - a, _any((3,))),
    Case("rsub-pyfloat", lambda m, a: 0.5 - a, _any((2, 2))),
    Case("mul-pyfloat", lambda m, a: a * -2.0, _any((3,))),
    Case("rmul-pyint", lambda m, a: 2 * a, _any((3,))),
    Case("div-pyfloat", lambda m, a: a / 4.0, _any((3,))),
    Case("rdiv-pyfloat", lambda m, a: 3.0 / a, [((2, 3), "nz")]),
    Case("rdiv-pyint", lambda m, a: 3 / a, [((3,), "nz")]),
    Case("pow-pyint-2", lambda m, a: a**2, _any((2, 3))),
    Case("pow-pyint-3", lambda m, a: a**3, _any((3,))),
    Case("pow-pyint-0", lambda m, a: a**0, _any((3,))),
    Case("pow-pyfloat-half", lambda m, a: a**0.5, [((3,), "pos")]),
    Case("pow-pyfloat-negative", lambda m, a: a**-1.5, [((3,), "pos")]),
    Case("rpow-pyfloat", lambda m, a: 2.0**a, _any((2, 3))),
    Case("rpow-pyint", lambda m, a: 3**a, _any((3,))),
    Case("rpow-pyfloat-half", lambda m, a: 0.5**a, _any((3,))),
    Case("pow-method", lambda m, a: a.pow(2.5), [((3,), "pos")], ref=lambda m, a: a**2.5),
    Case(
        "module-functions",
        lambda m, a, b: m.add(m.mul(a, b), m.div(a, b)) - m.sub(m.pow(a, 2), m.neg(b)),
        [((2, 3), "pos"), ((3,), "nz")],
        ref=lambda m, a, b: a * b + a / b - (a**2 + b),
    ),
    # Composites: several ops sharing inputs.
    Case("composite", lambda m, a, b: (a * b + a / b - b**2) * a, [((2, 3), "any"), ((3,), "nz")]),
    Case("composite-reuse", lambda m, a: (a + 1) * (a - 1) / (a * a + 1), _any((4,))),
]

MATMUL = [
    Case("matmul-1d-1d", lambda m, a, b: a @ b, _any((3,), (3,))),
    Case("matmul-2d-2d", lambda m, a, b: a @ b, _any((2, 3), (3, 4))),
    Case("matmul-1d-2d", lambda m, a, b: a @ b, _any((3,), (3, 4))),
    Case("matmul-2d-1d", lambda m, a, b: a @ b, _any((2, 3), (3,))),
    Case("matmul-batched", lambda m, a, b: a @ b, _any((2, 3, 4), (4, 5))),
    Case("matmul-batched-both", lambda m, a, b: a @ b, _any((2, 3, 4), (2, 4, 5))),
    Case("matmul-broadcast-batch", lambda m, a, b: a @ b, _any((2, 1, 3, 4), (5, 4, 2))),
    Case("matmul-1d-batched", lambda m, a, b: a @ b, _any((3,), (2, 3, 4))),
    Case("matmul-batched-1d", lambda m, a, b: a @ b, _any((2, 3, 4), (4,))),
    Case("matmul-function", lambda m, a, b: m.matmul(a, b), _any((2, 3), (3, 2))),
    Case("matmul-method", lambda m, a, b: a.matmul(b), _any((4,), (4, 2)), ref=lambda m, a, b: a @ b),
    Case("matmul-self", lambda m, a: a @ a, _any((3, 3))),
]

REDUCTIONS = [
    Case("sum-all", lambda m, a: a.sum(), _any((2, 3))),
    Case("sum-0d", lambda m, a: a.sum(), _any(())),
    Case("sum-dim0", lambda m, a: a.sum(0), _any((2, 3))),
    Case("sum-dim1", lambda m, a: a.sum(1), _any((2, 3))),
    Case("sum-negative-dim", lambda m, a: a.sum(-1), _any((2, 3, 4))),
    Case("sum-dim-tuple", lambda m, a: a.sum((0, 2)), _any((2, 3, 4))),
    Case("sum-dim-tuple-negative", lambda m, a: a.sum((-1, 0)), _any((2, 3, 4))),
    Case("sum-keepdim", lambda m, a: a.sum(1, keepdim=True), _any((2, 3)), ref=lambda m, a: a.sum(1, keepdims=True)),
    Case(
        "sum-tuple-keepdim",
        lambda m, a: a.sum(dim=(0, -1), keepdim=True),
        _any((2, 3, 4)),
        ref=lambda m, a: a.sum(axis=(0, -1), keepdims=True),
    ),
    Case("sum-function", lambda m, a: m.sum(a, 1), _any((3, 2))),
    Case("sum-0d-dim0", lambda m, a: a.sum(0), _any(()), ref=lambda m, a: a),
    Case("mean-all", lambda m, a: a.mean(), _any((2, 3))),
    Case("mean-dim0", lambda m, a: a.mean(0), _any((2, 3))),
    Case("mean-negative-dim", lambda m, a: a.mean(-2), _any((2, 3, 4))),
    Case("mean-dim-tuple", lambda m, a: a.mean((0, 2)), _any((2, 3, 4))),
    Case(
        "mean-keepdim", lambda m, a: a.mean(-1, keepdim=True), _any((2, 3)), ref=lambda m, a: a.mean(-1, keepdims=True)
    ),
    Case(
        "mean-tuple-keepdim",
        lambda m, a: a.mean(dim=(1, 2), keepdim=True),
        _any((2, 3, 4)),
        ref=lambda m, a: a.mean(axis=(1, 2), keepdims=True),
    ),
    Case("mean-function", lambda m, a: m.mean(a, 0), _any((3, 2))),
    Case("mean-0d-dim-1", lambda m, a: a.mean(-1), _any(()), ref=lambda m, a: a),
]

POINTWISE = [
    Case("exp", lambda m, a: m.exp(a), _any((2, 3))),
    Case("exp-method", lambda m, a: a.exp(), _any((3,)), ref=lambda m, a: np.exp(a)),
    Case("log", lambda m, a: m.log(a), [((2, 3), "pos")]),
    Case("log-method", lambda m, a: a.log(), [((3,), "pos")], ref=lambda m, a: np.log(a)),
    Case("tanh", lambda m, a: m.tanh(a), _any((2, 3))),
    Case("tanh-method", lambda m, a: a.tanh(), _any(()), ref=lambda m, a: np.tanh(a)),
    Case("exp-log-tanh", lambda m, a: m.tanh(m.log(m.exp(a) + 1)), _any((4,))),
]


def _expand_ref(shape: tuple[int, ...]) -> Callable[..., Any]:
    return lambda m, a: np.broadcast_to(a, shape)


SHAPE = [
    Case("reshape-minus1", lambda m, a: a.reshape(-1), _any((2, 3, 2))),
    Case("reshape-infer", lambda m, a: a.reshape(3, -1), _any((2, 3, 2))),
    Case("reshape-tuple", lambda m, a: a.reshape((4, 3)), _any((2, 3, 2))),
    Case("reshape-more-dims", lambda m, a: a.reshape(2, 1, 3, 1), _any((6,))),
    Case("reshape-to-0d", lambda m, a: a.reshape(()), _any((1,))),
    Case("reshape-of-transposed", lambda m, a: a.t().reshape(-1), _any((2, 3)), ref=lambda m, a: a.T.reshape(-1)),
    Case("reshape-function", lambda m, a: m.reshape(a, (3, 2)), _any((2, 3))),
    Case("view", lambda m, a: a.view(12), _any((2, 3, 2)), ref=lambda m, a: a.reshape(12)),
    Case("view-infer", lambda m, a: a.view(-1, 4), _any((2, 3, 2)), ref=lambda m, a: a.reshape(-1, 4)),
    Case("view-tuple", lambda m, a: a.view((2, 2, 3)), _any((3, 4)), ref=lambda m, a: a.reshape(2, 2, 3)),
    Case("t-2d", lambda m, a: a.t(), _any((2, 3)), ref=lambda m, a: a.T),
    Case("t-1d", lambda m, a: a.t(), _any((3,)), ref=lambda m, a: a.T),
    Case("t-0d", lambda m, a: a.t(), _any(()), ref=lambda m, a: a.T),
    Case("t-function", lambda m, a: m.t(a), _any((3, 2)), ref=lambda m, a: a.T),
    Case("T-property", lambda m, a: a.T, _any((2, 3))),
    Case("transpose", lambda m, a: a.transpose(0, 2), _any((2, 3, 4)), ref=lambda m, a: np.swapaxes(a, 0, 2)),
    Case(
        "transpose-negative", lambda m, a: a.transpose(-1, 0), _any((2, 3, 4)), ref=lambda m, a: np.swapaxes(a, -1, 0)
    ),
    Case("transpose-same", lambda m, a: a.transpose(1, 1), _any((2, 3)), ref=lambda m, a: a),
    Case("transpose-function", lambda m, a: m.transpose(a, 0, 1), _any((2, 3)), ref=lambda m, a: a.T),
    Case("permute", lambda m, a: a.permute(2, 0, 1), _any((2, 3, 4)), ref=lambda m, a: np.transpose(a, (2, 0, 1))),
    Case(
        "permute-tuple", lambda m, a: a.permute((1, 0, 2)), _any((2, 3, 4)), ref=lambda m, a: np.transpose(a, (1, 0, 2))
    ),
    Case(
        "permute-negative",
        lambda m, a: a.permute(-1, 0, 1),
        _any((2, 3, 4)),
        ref=lambda m, a: np.transpose(a, (2, 0, 1)),
    ),
    Case("permute-function", lambda m, a: m.permute(a, (1, 0)), _any((2, 3)), ref=lambda m, a: a.T),
    Case("expand", lambda m, a: a.expand(3, 4), _any((3, 1)), ref=_expand_ref((3, 4))),
    Case("expand-new-dims", lambda m, a: a.expand(2, 3, 4), _any((3, 1)), ref=_expand_ref((2, 3, 4))),
    Case("expand-keep", lambda m, a: a.expand(-1, 4), _any((3, 1)), ref=_expand_ref((3, 4))),
    Case("expand-keep-new", lambda m, a: a.expand(2, -1, -1), _any((3, 1)), ref=_expand_ref((2, 3, 1))),
    Case("expand-0d", lambda m, a: a.expand(2, 3), _any(()), ref=_expand_ref((2, 3))),
    Case("expand-tuple", lambda m, a: a.expand((2, 4)), _any((4,)), ref=_expand_ref((2, 4))),
    Case(
        "expand-then-mul",
        lambda m, a, b: a.expand(2, 3) * b,
        _any((3,), (2, 3)),
        ref=lambda m, a, b: np.broadcast_to(a, (2, 3)) * b,
    ),
    Case("clone", lambda m, a: a.clone(), _any((2, 3)), ref=lambda m, a: a.copy()),
    Case("clone-function", lambda m, a: m.clone(a) * 2, _any((3,)), ref=lambda m, a: a * 2),
    Case("contiguous", lambda m, a: a.t().contiguous(), _any((2, 3)), ref=lambda m, a: a.T),
    Case("to-same-dtype", lambda m, a: a.to(a.dtype) * 1, _any((3,)), ref=lambda m, a: a),
]

INDEXING = [
    Case("index-int", lambda m, a: a[0], _any((3, 4, 5))),
    Case("index-negative", lambda m, a: a[-1], _any((3, 4, 5))),
    Case("index-negative-first", lambda m, a: a[-3], _any((3, 4))),
    Case("index-slice", lambda m, a: a[1:3], _any((4, 5))),
    Case("index-step", lambda m, a: a[::2], _any((5, 3))),
    Case("index-negative-slice", lambda m, a: a[-2:], _any((4, 3))),
    Case("index-slice-past-end", lambda m, a: a[2:10], _any((4,))),
    Case("index-empty-slice", lambda m, a: a[3:1], _any((4,))),
    Case("index-mixed", lambda m, a: a[1, :, 2], _any((3, 4, 5))),
    Case("index-mixed-steps", lambda m, a: a[1:, ::2, -1], _any((3, 4, 5))),
    Case("index-ellipsis", lambda m, a: a[..., 1], _any((3, 4, 5))),
    Case("index-ellipsis-middle", lambda m, a: a[0, ..., 1:], _any((3, 4, 5))),
    Case("index-none", lambda m, a: a[None], _any((3, 4))),
    Case("index-none-middle", lambda m, a: a[:, None, 1], _any((3, 4))),
    Case("index-ellipsis-none", lambda m, a: a[..., None], _any((3, 4))),
    Case("index-all-ints", lambda m, a: a[1, 2], _any((3, 4))),
    Case("index-0d-ellipsis", lambda m, a: a[...], _any(())),
    Case("index-0d-none", lambda m, a: a[None], _any(())),
    Case("index-chain", lambda m, a: a[0][1], _any((3, 4, 5))),
    Case("index-overlapping", lambda m, a: a[0] * a[:, 1] + a[1:2, 1:2].sum(), _any((3, 3))),
    Case("index-tensor-int", lambda m, a: a[m.tensor(1)] if m is not np else a[1], _any((3, 4))),
]

OP_CASES = ARITHMETIC + MATMUL + REDUCTIONS + POINTWISE + SHAPE + INDEXING


def test_numerical_checker_catches_a_wrong_gradient() -> None:
    """The helper is not vacuous: a Function with a wrong backward fails it."""

    class WrongSquare(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * x  # should be 2 * x

    with pytest.raises(AssertionError):
        numerical_gradient_check(lambda x: WrongSquare.apply(x), make_inputs(_any((3,)), 0))


# --------------------------------------------------------------------------- gradients with mixed dtypes

MIXED_DTYPE_CASES = [
    pytest.param(lambda m, a, b: a * b, "float32", "float64", (3,), (), id="float32*0d-float64"),
    pytest.param(lambda m, a, b: a + b, "float32", "float64", (3,), (3,), id="float32+float64"),
    pytest.param(lambda m, a, b: a / b, "float64", "float32", (2, 3), (3,), id="float64/float32"),
    pytest.param(lambda m, a, b: a**b, "float32", "float64", (3,), (), id="float32**0d-float64"),
    pytest.param(lambda m, a, b: (a - b).sum(), "float16", "float32", (2,), (2,), id="float16-float32"),
]


@pytest.mark.parametrize(("fn", "dtype_a", "dtype_b", "shape_a", "shape_b"), MIXED_DTYPE_CASES)
def test_gradients_keep_each_input_dtype(
    torch: Any, fn: Callable[..., Any], dtype_a: str, dtype_b: str, shape_a: tuple[int, ...], shape_b: tuple[int, ...]
) -> None:
    a, b = make_inputs([(shape_a, "pos"), (shape_b, "pos")], 3)

    def run(m: Any) -> tuple[Any, Any, Any]:
        x = m.tensor(a, dtype=getattr(m, dtype_a), requires_grad=True)
        y = m.tensor(b, dtype=getattr(m, dtype_b), requires_grad=True)
        out = fn(m, x, y)
        out.sum().backward()
        return out, x.grad, y.grad

    for ct, tt in zip(run(ctxgrad), run(torch)):
        assert_same(ct, tt, rtol=1e-3, atol=1e-3)


# --------------------------------------------------------------------------- comparisons

COMPARISONS = [
    pytest.param(lambda a, b: a == b, id="eq"),
    pytest.param(lambda a, b: a != b, id="ne"),
    pytest.param(lambda a, b: a < b, id="lt"),
    pytest.param(lambda a, b: a <= b, id="le"),
    pytest.param(lambda a, b: a > b, id="gt"),
    pytest.param(lambda a, b: a >= b, id="ge"),
]

COMPARISON_OPERANDS = [
    pytest.param(lambda m: (m.tensor([1.0, 2.0, 3.0]), m.tensor([3.0, 2.0, 1.0])), id="tensor-tensor"),
    pytest.param(lambda m: (m.tensor([[1.0], [2.0], [3.0]]), m.tensor([0.0, 2.0, 3.0, 4.0])), id="broadcast"),
    pytest.param(lambda m: (m.tensor([1.0, 2.0, 3.0], requires_grad=True), 2.0), id="requires-grad-pyfloat"),
    pytest.param(lambda m: (2, m.tensor([1.0, 2.0, 3.0], requires_grad=True)), id="pyint-reflected"),
    pytest.param(lambda m: (m.tensor([1, 2, 3]), m.tensor([1.0, 2.5, 2.0], dtype=m.float64)), id="int-float64"),
    pytest.param(lambda m: (m.tensor([1, 2, 3]), 2.5), id="int-pyfloat"),
    pytest.param(lambda m: (m.tensor([True, False]), m.tensor([True, True])), id="bool-bool"),
    pytest.param(lambda m: (m.tensor(2.0), m.tensor([1.0, 2.0, 3.0])), id="0d-1d"),
    pytest.param(lambda m: (m.tensor([1.0, float("nan")]), m.tensor([1.0, float("nan")])), id="nan"),
]


@pytest.mark.parametrize("operands", COMPARISON_OPERANDS)
@pytest.mark.parametrize("op", COMPARISONS)
def test_comparisons_match_torch(torch: Any, op: Callable[[Any, Any], Any], operands: Callable[[Any], Any]) -> None:
    ct, tt = op(*operands(ctxgrad)), op(*operands(torch))
    assert_same(ct, tt)
    assert ct.dtype == np.bool_
    assert not ct.requires_grad and ct.is_leaf and ct.grad_fn is None


@pytest.mark.parametrize(
    ("method", "operator"),
    [("eq", "__eq__"), ("ne", "__ne__"), ("lt", "__lt__"), ("le", "__le__"), ("gt", "__gt__"), ("ge", "__ge__")],
)
def test_comparison_methods_match_operators_and_numpy(method: str, operator: str) -> None:
    a = np.array([[1.0, 2.0, 3.0]])
    b = np.array([[3.0], [2.0]])
    x, y = ctxgrad.tensor(a), ctxgrad.tensor(b)
    via_method = getattr(x, method)(y)
    via_operator = getattr(x, operator)(y)
    expected = getattr(a, operator)(b)
    np.testing.assert_array_equal(via_method.numpy(), expected)
    np.testing.assert_array_equal(via_operator.numpy(), expected)
    assert via_method.dtype == np.bool_


def test_comparison_result_is_cut_from_the_graph() -> None:
    x = ctxgrad.tensor([1.0, -2.0, 3.0], requires_grad=True)
    mask = x > 0
    y = (x * mask).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 0.0, 1.0])


# --------------------------------------------------------------------------- special values

SPECIAL = [
    Case("pow-2-at-zero", lambda m, a: a**2, []),
    Case("pow-0-at-zero", lambda m, a: a**0, []),
    Case("pow-half-at-zero", lambda m, a: a**0.5, []),
    Case("pow-minus1-at-zero", lambda m, a: a**-1, []),
    Case("pow-tensor-zero-base", lambda m, a, b: a**b, []),
    Case("pow-tensor-zero-base-negative-exponent", lambda m, a, b: a**b, []),
    Case("pow-negative-base", lambda m, a, b: a**b, []),
    Case("rpow-zero-base", lambda m, a: 0.0**a, []),
    Case("div-by-zero", lambda m, a, b: a / b, []),
    Case("log-zero-and-negative", lambda m, a: a.log(), []),
    Case("exp-overflow", lambda m, a: a.exp(), []),
    Case("tanh-saturated", lambda m, a: a.tanh(), []),
    Case("sqrt-via-pow-of-negative", lambda m, a: a**0.5, []),
]
SPECIAL_VALUES = {
    "pow-2-at-zero": [[0.0, -1.0]],
    "pow-0-at-zero": [[0.0, 1.0]],
    "pow-half-at-zero": [[0.0, 4.0]],
    "pow-minus1-at-zero": [[0.0, 2.0]],
    "pow-tensor-zero-base": [[0.0, 0.0, 2.0], [2.0, 0.0, 1.0]],
    "pow-tensor-zero-base-negative-exponent": [[0.0, 0.0], [-1.0, 0.5]],
    "pow-negative-base": [[-2.0, -2.0], [2.0, 0.5]],
    "rpow-zero-base": [[2.0, 0.0, -1.0]],
    "div-by-zero": [[1.0, 0.0, -1.0], [0.0, 0.0, 0.0]],
    "log-zero-and-negative": [[0.0, -1.0, 1.0]],
    "exp-overflow": [[1000.0, -1000.0]],
    "tanh-saturated": [[100.0, -100.0, 0.0]],
    "sqrt-via-pow-of-negative": [[-1.0, 1.0]],
}


def special_grads(m: Any, case: Case) -> tuple[Any, ...]:
    xs = [m.tensor(v, dtype=m.float64, requires_grad=True) for v in SPECIAL_VALUES[case.id]]
    out = case.fn(m, *xs)
    out.sum().backward()
    return (out, *(x.grad for x in xs))


@pytest.mark.parametrize("case", case_params(SPECIAL, "torch"))
def test_special_values_match_torch(torch: Any, case: Case) -> None:
    """nan, inf and zero where torch has them (values and gradients; nan compares equal)."""
    with np.errstate(all="ignore"):
        c = special_grads(ctxgrad, case)
    t = special_grads(torch, case)
    for ct, tt in zip(c, t):
        assert_same(ct, tt)


def test_floating_point_errors_warn_as_numpy_does() -> None:
    """A documented difference (docs/differences.md): torch is silent about inf and nan
    results, ctxgrad lets NumPy's RuntimeWarning through (silencing it on every op would
    cost more than the op); the values are the same (test_special_values_match_torch)."""
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        out = ctxgrad.tensor([1.0, -1.0]) / 0
    assert out.tolist() == [float("inf"), float("-inf")]


# --------------------------------------------------------------------------- errors

OP_ERRORS = [
    pytest.param(
        lambda m: m.zeros(2, 3).t().view(6),
        RuntimeError,
        "view size is not compatible with input tensor's size and stride",
        id="view-of-transposed",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3, requires_grad=True).t().view(-1),
        RuntimeError,
        "view size is not compatible with input tensor's size and stride",
        id="view-of-transposed-grad",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3, 4).t(),
        RuntimeError,
        "t() expects a tensor with <= 2 dimensions, but self is 3D",
        id="t-3d",
    ),
    pytest.param(
        lambda m: m.zeros(3)[5],
        IndexError,
        "index 5 is out of bounds for dimension 0 with size 3",
        id="index-out-of-range",
    ),
    pytest.param(
        lambda m: m.zeros(3)[-4],
        IndexError,
        "index -4 is out of bounds for dimension 0 with size 3",
        id="index-negative-out-of-range",
    ),
    pytest.param(
        lambda m: m.zeros(3, 4)[1, 7],
        IndexError,
        "index 7 is out of bounds for dimension 1 with size 4",
        id="index-out-of-range-dim1",
    ),
    pytest.param(
        lambda m: m.zeros(3)[0, 0], IndexError, "too many indices for tensor of dimension 1", id="too-many-indices"
    ),
    pytest.param(lambda m: m.tensor(1.0)[0], IndexError, "invalid index of a 0-dim tensor.", id="index-0d"),
    pytest.param(lambda m: m.arange(5)[::-1], ValueError, "step must be greater than zero", id="negative-step"),
    pytest.param(
        lambda m: m.zeros(2, 3).reshape(4),
        RuntimeError,
        "shape '[4]' is invalid for input of size 6",
        id="reshape-wrong-size",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).view(-1, 4),
        RuntimeError,
        "shape '[-1, 4]' is invalid for input of size 6",
        id="view-wrong-size",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).reshape(-1, -1),
        RuntimeError,
        "only one dimension can be inferred",
        id="reshape-two-inferred",
    ),
    pytest.param(
        lambda m: m.zeros(0, 3).reshape(2, -1, 0),
        RuntimeError,
        "cannot reshape tensor of 0 elements into shape [2, -1, 0] because the unspecified dimension size -1 "
        "can be any value and is ambiguous",
        id="reshape-empty-ambiguous",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3) @ m.zeros(2, 3),
        RuntimeError,
        "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)",
        id="matmul-2d-mismatch",
    ),
    pytest.param(
        lambda m: m.zeros(3) @ m.zeros(4),
        RuntimeError,
        "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements",
        id="matmul-1d-mismatch",
    ),
    pytest.param(
        lambda m: m.tensor(1.0) @ m.ones(3),
        RuntimeError,
        "both arguments to matmul need to be at least 1D, but they are 0D and 1D",
        id="matmul-0d",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3, 4) @ m.zeros(3, 4, 5),
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
        id="matmul-batch-mismatch",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3) + m.zeros(4),
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
        id="add-broadcast-mismatch",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3, requires_grad=True) * m.zeros(2, 4),
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1",
        id="mul-broadcast-mismatch",
    ),
    pytest.param(
        lambda m: m.tensor([1, 2]) ** -1,
        RuntimeError,
        "Integers to negative integer powers are not allowed.",
        id="int-negative-power",
    ),
    pytest.param(
        lambda m: m.tensor([True]) - m.tensor([False]),
        RuntimeError,
        "Subtraction, the `-` operator, with two bool tensors is not supported.",
        id="bool-minus-bool",
    ),
    pytest.param(
        lambda m: -m.tensor([True]),
        RuntimeError,
        "Negation, the `-` operator, on a bool tensor is not supported.",
        id="neg-bool",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).reshape(-2, 3), RuntimeError, "invalid shape dimension -2", id="reshape-negative-size"
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).sum(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        id="sum-dim-out-of-range",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).mean(-3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
        id="mean-dim-out-of-range",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).sum((0, 0)),
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
        id="sum-duplicate-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).transpose(0, 5),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)",
        id="transpose-out-of-range",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).permute(0, 5),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)",
        id="permute-out-of-range",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).permute(0),
        RuntimeError,
        "permute(sparse_coo): number of dimensions in the tensor input does not match",
        id="permute-too-few",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).permute(0, 0),
        RuntimeError,
        "permute(): duplicate dims are not allowed",
        id="permute-duplicate",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).expand(3, 3),
        RuntimeError,
        "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  "
        "Target sizes: [3, 3].  Tensor sizes: [2, 3]",
        id="expand-mismatch",
    ),
    pytest.param(
        lambda m: m.tensor([1, 2]).mean(),
        RuntimeError,
        "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype",
        id="mean-int",
    ),
]


@pytest.mark.parametrize(("fn", "exc", "message"), OP_ERRORS)
def test_errors_match_torch(torch: Any, fn: Callable[[Any], Any], exc: type[BaseException], message: str) -> None:
    with pytest.raises(exc) as t_info:
        fn(torch)
    assert str(t_info.value).startswith(message), f"torch oracle says: {t_info.value}"
    with pytest.raises(exc) as c_info:
        fn(ctxgrad)
    assert str(c_info.value).startswith(message), f"ctxgrad says: {c_info.value}"


def test_expand_with_too_few_sizes(torch: Any) -> None:
    needle = "the number of sizes provided (1) must be greater or equal to the number of dimensions in the tensor (2)"
    for m in (torch, ctxgrad):
        with pytest.raises(RuntimeError) as info:
            m.zeros(2, 3).expand(3)
        assert needle in str(info.value)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m: m.zeros(0, 3).reshape(-1), id="reshape-minus1"),
        pytest.param(lambda m: m.zeros(0, 3).view(-1), id="view-minus1"),
        pytest.param(lambda m: m.zeros(0, 3).reshape(5, -1), id="reshape-infer-zero"),
        pytest.param(lambda m: m.zeros(0, 3).reshape(-1, 3), id="reshape-infer-leading"),
        pytest.param(lambda m: m.zeros(0, 3).reshape(3, 0), id="reshape-no-infer"),
    ],
)
def test_reshape_empty_tensors(torch: Any, fn: Callable[[Any], Any]) -> None:
    assert_same(fn(ctxgrad), fn(torch))


# --------------------------------------------------------------------------- double backward

DOUBLE_BACKWARD = [
    Case("mul", lambda m, a, b: a * b, _any((2, 3), (3,))),
    Case("mul-self", lambda m, a: a * a * a, _any((3,))),
    Case("mul-pyfloat", lambda m, a: (a * 2.5) * a, _any((3,))),
    Case("div", lambda m, a, b: a / b, [((2, 3), "any"), ((3,), "nz")]),
    Case("rdiv", lambda m, a: 2.0 / a, [((3,), "nz")]),
    Case("pow-tensor-tensor", lambda m, a, b: a**b, [((2, 3), "pos"), ((3,), "any")]),
    Case("pow-pyint", lambda m, a: a**3, _any((3,))),
    Case("pow-pyfloat", lambda m, a: a**2.5, [((3,), "pos")]),
    Case("rpow", lambda m, a: 2.0**a, _any((3,))),
    Case("exp", lambda m, a: a.exp(), _any((2, 3))),
    Case("log", lambda m, a: a.log(), [((2, 3), "pos")]),
    Case("tanh", lambda m, a: a.tanh(), _any((2, 3))),
    Case("sum", lambda m, a: a.sum(0).tanh(), _any((2, 3))),
    Case("sum-all", lambda m, a: a.sum() ** 3, _any((2, 3))),
    Case("sum-keepdim", lambda m, a: a.sum(-1, keepdim=True) * a, _any((2, 3))),
    Case("mean", lambda m, a: a.mean(1).exp(), _any((2, 3))),
    Case("mean-all", lambda m, a: a.mean() * a, _any((2, 3))),
    Case("mean-tuple", lambda m, a: a.mean((0, 2), keepdim=True) ** 2, _any((2, 3, 4))),
    Case("matmul-2d", lambda m, a, b: a @ b, _any((2, 3), (3, 4))),
    Case("matmul-1d-1d", lambda m, a, b: a @ b, _any((3,), (3,))),
    Case("matmul-1d-2d", lambda m, a, b: a @ b, _any((3,), (3, 2))),
    Case("matmul-2d-1d", lambda m, a, b: a @ b, _any((2, 3), (3,))),
    Case("matmul-batched", lambda m, a, b: a @ b, _any((2, 1, 3, 4), (5, 4, 2))),
    Case("matmul-self", lambda m, a: a @ a, _any((3, 3))),
    Case("sub-neg", lambda m, a, b: (a - b) * -(a + b), _any((3,), (2, 3))),
    Case("reshape-transpose", lambda m, a: a.reshape(3, 2).t() * a, _any((2, 3))),
    Case("permute-expand", lambda m, a: a.permute(1, 0).expand(2, 3, 2) ** 2, _any((2, 3))),
    Case("getitem", lambda m, a: a[1:, None, ::2] * a[0, :2], _any((3, 4))),
    Case("clone-view", lambda m, a: a.clone().view(-1).tanh(), _any((2, 3))),
]


def test_double_backward_of_scalar_example() -> None:
    x = ctxgrad.tensor(3.0, dtype=ctxgrad.float64, requires_grad=True)
    (dx,) = ctxgrad.autograd.grad(x**3, x, create_graph=True)
    assert dx.requires_grad and dx.grad_fn is not None
    (ddx,) = ctxgrad.autograd.grad(dx, x, create_graph=True)
    (dddx,) = ctxgrad.autograd.grad(ddx, x)
    assert (dx.item(), ddx.item(), dddx.item()) == pytest.approx((27.0, 18.0, 6.0))


class TestOps(OpFamilyTests):
    """Arithmetic, matmul, sum/mean, exp/log/tanh, shape and basic indexing."""

    cases = OP_CASES
    double_cases = DOUBLE_BACKWARD
