"""The operators ``+ - * /`` compute with NumPy directly when nothing records
(``ctxgrad/_shortcut.py``, ``untracked``): the result must be exactly what the op's
Function gives, for every dtype pair, operand kind and grad mode.

Each example computes ``a op b`` through the operator and through ``Function.apply`` (the
path the operator falls back to), and compares the values bit for bit, the dtype, the shape,
``requires_grad``, ``grad_fn``'s name and, when one raises, the exception type and message.
"""

from __future__ import annotations

import contextlib
import operator
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctxgrad
from ctxgrad.autograd import forward_ad
from ctxgrad.ops.arithmetic import Add, Div, Mul, Sub

DTYPES = [
    np.bool_,
    np.uint8,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
    np.complex64,
    np.complex128,
]
# (operator, the Function it stands for)
OPS: list[tuple[Callable[[Any, Any], Any], type[ctxgrad.autograd.Function]]] = [
    (operator.add, Add),
    (operator.sub, Sub),
    (operator.mul, Mul),
    (operator.truediv, Div),
]
SCALARS = [True, 0, 3, -2, 2**40, 0.0, 2.5, -1e300, float("inf"), float("nan"), 1.5j]


@contextlib.contextmanager
def grad_mode(mode: str) -> Iterator[None]:
    if mode == "grad":
        yield
    elif mode == "no_grad":
        with ctxgrad.no_grad():
            yield
    elif mode == "inference":
        with ctxgrad.inference_mode():
            yield
    elif mode == "forward":
        with forward_ad.dual_level():
            yield
    else:  # grad mode switched back on inside no_grad
        with ctxgrad.no_grad(), ctxgrad.enable_grad():
            yield


def outcome(compute: Callable[[Any, Any], Any], a: Any, b: Any) -> tuple[str, Any]:
    """What ``compute(a, b)`` gives: the result's facts, or the exception's type and message."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = compute(a, b)
    except Exception as exc:  # (the comparison is of the errors themselves)
        return "raised", (type(exc), str(exc))
    grad_fn = None if out.grad_fn is None else out.grad_fn.name()
    data = out.detach().numpy()
    return "result", (data.dtype, data.shape, data.tobytes(), out.requires_grad, grad_fn, out.is_inference())


def tensor_of(data: Any, dtype: Any, requires_grad: bool) -> ctxgrad.Tensor:
    with np.errstate(invalid="ignore"):  # (NaN made an integer: whatever NumPy gives, both paths see it)
        array = np.asarray(data).astype(dtype)
    floating = array.dtype.kind in "fc"
    return ctxgrad.tensor(array, requires_grad=requires_grad and floating)


values = st.lists(st.sampled_from([0.0, 1.0, -1.0, 2.5, -3.0, 7.0, 255.0, float("nan"), 0.5]), min_size=1, max_size=3)
shapes = st.sampled_from([(), (1,), (3,), (2, 1)])


@st.composite
def operand_pair(draw: st.DrawFn) -> tuple[Any, Any]:
    """A tensor with a tensor (0-d, broadcasting or not), or with a Python number on either side."""

    def tensor() -> ctxgrad.Tensor:
        shape = draw(shapes)
        data = np.resize(np.array(draw(values)), shape)
        return tensor_of(data, draw(st.sampled_from(DTYPES)), draw(st.booleans()))

    kind = draw(st.sampled_from(["tensor-tensor", "tensor-number", "number-tensor"]))
    if kind == "tensor-tensor":
        return tensor(), tensor()
    number = draw(st.sampled_from(SCALARS))
    return (tensor(), number) if kind == "tensor-number" else (number, tensor())


@settings(max_examples=60, deadline=None)
@given(
    pair=operand_pair(),
    op=st.sampled_from(OPS),
    mode=st.sampled_from(["grad", "no_grad", "inference", "forward", "enable_grad"]),
)
def test_the_operators_give_what_the_function_gives(pair: tuple[Any, Any], op: Any, mode: str) -> None:
    a, b = pair
    apply_op, function = op
    with grad_mode(mode):
        by_operator = outcome(apply_op, a, b)
        by_function = outcome(function.apply, a, b)
    assert by_operator == by_function


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference", "forward", "enable_grad"])
@pytest.mark.parametrize("apply_op,function", OPS)
@pytest.mark.parametrize("dtype_b", DTYPES)
@pytest.mark.parametrize("dtype_a", DTYPES)
def test_every_dtype_pair_and_mode(dtype_a: Any, dtype_b: Any, apply_op: Any, function: Any, mode: str) -> None:
    """Every pair once, deterministically (the fuzzer above samples the rest of the space)."""
    a = tensor_of([1.0, -2.0, 3.0], dtype_a, requires_grad=True)
    b = tensor_of([2.0, 0.0, -1.0], dtype_b, requires_grad=False)
    with grad_mode(mode):
        for left, right in ((a, b), (b, a), (a, 2), (a, 0.5), (3, a), (-1.5, a), (a, b[0])):
            assert outcome(apply_op, left, right) == outcome(function.apply, left, right)


def test_the_shortcut_keeps_torch_results_and_errors() -> None:
    """The values the shortcut computes, and the errors of the cases it leaves to the Function,
    are torch's (the same code on both)."""
    torch = pytest.importorskip("torch")
    for lib in (ctxgrad, torch):
        x = lib.tensor([1.0, 2.0, 4.0], dtype=lib.float32)
        with lib.no_grad():
            y = 2.0 - x / 4 * 3 + 1
        assert y.dtype == lib.float32
        assert y.tolist() == [2.25, 1.5, 0.0]
        i = lib.tensor([1, 2])
        assert (i / 2).dtype == lib.float32  # int / int: the default float dtype, not NumPy's float64
        assert (i * 2.5).dtype == lib.float32
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\)"):
        ctxgrad.ones(3) + ctxgrad.ones(2)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is not supported"):
        ctxgrad.tensor([True]) - 1.0
    with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\)"):
        torch.ones(3) + torch.ones(2)


def test_no_grad_leaves_nothing_to_record() -> None:
    """Under ``no_grad`` an input that requires grad gives a result that does not, and with grad
    on, the same operator records (the shortcut steps aside)."""
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    with ctxgrad.no_grad():
        y = x * 2.0 + 1.0
    assert not y.requires_grad and y.grad_fn is None
    z = x * 2.0 + 1.0
    assert z.grad_fn is not None and z.grad_fn.name() == "AddBackward0"
    z.sum().backward()
    assert x.grad is not None and x.grad.tolist() == [2.0, 2.0]


def test_a_special_mode_in_another_thread_changes_nothing_here() -> None:
    """The shortcut reads the thread's flags only when some thread has a special mode on or an
    operand requires grad: with another thread inside ``inference_mode``, this thread's
    operators still record (or not) by its own flags, and that thread's make inference tensors."""
    import threading

    entered, done = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def in_inference() -> None:
        with ctxgrad.inference_mode():
            entered.set()
            done.wait(30)
            v = ctxgrad.tensor([1.0, 2.0])
            results["other"] = v * 2.0

    worker = threading.Thread(target=in_inference)
    worker.start()
    try:
        assert entered.wait(30)
        x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
        plain = ctxgrad.tensor([1.0, 2.0]) * 2.0
        recorded = x * 2.0
        assert not plain.is_inference() and plain.tolist() == [2.0, 4.0] and plain.grad_fn is None
        assert recorded.grad_fn is not None and recorded.grad_fn.name() == "MulBackward0"
        with ctxgrad.no_grad():
            untracked = x * 2.0
        assert untracked.grad_fn is None and not untracked.requires_grad and not untracked.is_inference()
    finally:
        done.set()
        worker.join(30)
    assert results["other"].is_inference() and results["other"].tolist() == [2.0, 4.0]


OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_a_number_on_the_left_of_a_0d_float32_tensor_keeps_float32(op: str) -> None:
    # (NumPy 1.x's value-based casting would widen a 0-d float32 with a Python float to float64)
    for value in (2.0, 3):
        assert OPERATORS[op](value, ctxgrad.tensor(1.5)).dtype == ctxgrad.float32
        with ctxgrad.no_grad():
            assert OPERATORS[op](value, ctxgrad.tensor(1.5, requires_grad=True)).dtype == ctxgrad.float32


# (the in-place method, the Function its general path applies)
IN_PLACE_OPS: list[tuple[str, type[ctxgrad.autograd.Function]]] = [
    ("add_", Add),
    ("sub_", Sub),
    ("mul_", Mul),
    ("div_", Div),
]


def in_place_outcome(write: Callable[[Any, Any], Any], target: Any, other: Any) -> tuple[str, Any]:
    """What writing ``other`` into a copy of ``target`` gives: the copy's facts and how far its
    version moved, or the exception's type and message."""
    with ctxgrad.no_grad():
        x = target.clone()
    x.requires_grad_(target.requires_grad)
    version = (lambda: None) if x.is_inference() else (lambda: x._version)  # (inference tensors have none)
    before = version()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = write(x, other)
    except Exception as exc:  # (the comparison is of the errors themselves)
        return "raised", (type(exc), str(exc))
    data = x.detach().numpy()
    moved = None if before is None else version() - before
    return "result", (out is x, data.dtype, data.tobytes(), moved, x.requires_grad, x.grad_fn is None)


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference", "enable_grad"])
@pytest.mark.parametrize("method,function", IN_PLACE_OPS)
@pytest.mark.parametrize("dtype_b", DTYPES)
@pytest.mark.parametrize("dtype_a", DTYPES)
def test_in_place_operators_write_what_the_function_writes(
    dtype_a: Any, dtype_b: Any, method: str, function: Any, mode: str
) -> None:
    """``x.add_(y)`` and the others write with NumPy directly when nothing records
    (``write_ufunc_in_place``, and ``write_in_place``'s own path without a node): the values,
    dtype, version and errors are the in-place Function's, for every dtype pair, requires-grad state and grad mode."""
    from ctxgrad.autograd._views import check_writable, in_place

    def through_the_function(x: Any, y: Any) -> Any:  # (the in-place Function, as before any shortcut)
        check_writable(x, operands=(y,))
        return in_place(function).apply(x, y)

    b = tensor_of([2.0, 0.0, -1.0], dtype_b, requires_grad=False)
    for requires_grad in (False, True):
        a = tensor_of([1.0, -2.0, 3.0], dtype_a, requires_grad=requires_grad)
        with grad_mode(mode):
            for other in (b, b[0], 2, 0.5, -1e300, float("nan")):
                by_method = in_place_outcome(lambda x, y: getattr(x, method)(y), a, other)
                by_function = in_place_outcome(through_the_function, a, other)
                assert by_method == by_function


@pytest.mark.parametrize("mode", ["grad", "no_grad", "inference"])
@pytest.mark.parametrize("alpha", [2, -0.01, 1e300, 0.5])
@pytest.mark.parametrize("method,function", IN_PLACE_OPS[:2])
@pytest.mark.parametrize("dtype_b", DTYPES)
@pytest.mark.parametrize("dtype_a", DTYPES)
def test_add_and_sub_with_alpha_write_what_the_function_writes(
    dtype_a: Any, dtype_b: Any, method: str, function: Any, alpha: Any, mode: str
) -> None:
    """``p.add_(g, alpha=-lr)`` (an optimizer's step) scales ``g`` by NumPy and writes straight
    into ``p`` when nothing records: the values, dtype, version and errors are those of the
    in-place Function applied to ``alpha * g``, for every dtype pair, and for ``x`` with itself."""
    from ctxgrad.autograd._views import check_writable, in_place
    from ctxgrad.ops.arithmetic import _check_no_bool, _scaled

    def through_the_function(x: Any, y: Any) -> Any:  # (add_ and sub_ as before the shortcut)
        if function is Sub:
            _check_no_bool(x, y)
        scaled = _scaled(y, alpha)
        check_writable(x, operands=(scaled,))
        return in_place(function).apply(x, scaled)

    b = tensor_of([2.0, 0.0, -1.0], dtype_b, requires_grad=False)
    for requires_grad in (False, True):
        a = tensor_of([1.0, -2.0, 3.0], dtype_a, requires_grad=requires_grad)
        with grad_mode(mode):
            for other in (b, b[0], 2, 0.5):
                by_method = in_place_outcome(lambda x, y: getattr(x, method)(y, alpha=alpha), a, other)
                by_function = in_place_outcome(through_the_function, a, other)
                assert by_method == by_function
            itself = in_place_outcome(lambda x, _: getattr(x, method)(x, alpha=alpha), a, None)
            assert itself == in_place_outcome(lambda x, _: through_the_function(x, x), a, None)


def test_in_place_shortcut_steps_aside_for_views_overlap_and_saved_arrays() -> None:
    """A view, an operand sharing the target's memory, and an array a graph saved all take the
    Function's path: a base sees the view's write, ``x[1:] += x[:-1]`` is torch's error, and a
    saved tensor changed under ``no_grad`` makes backward raise torch's version error."""
    base = ctxgrad.zeros(4)
    with ctxgrad.no_grad():
        base[1:3].add_(1.0)
    assert base.tolist() == [0.0, 1.0, 1.0, 0.0]
    x = ctxgrad.arange(4.0)
    with pytest.raises(RuntimeError, match="unsupported operation: some elements of the input tensor"):
        x[1:].add_(x[:-1])
    w = ctxgrad.ones(3, requires_grad=True)
    loss = (w * w).sum()
    with ctxgrad.no_grad():
        w.add_(1.0)
    assert w.tolist() == [2.0, 2.0, 2.0]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()
