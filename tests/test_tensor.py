"""Tensor attributes and methods, factories, repr and dtype promotion.

Every claim of torch parity runs the same expression on ctxgrad and on torch (the ``torch``
fixture skips when torch is missing) and compares values, dtype, shape and requires_grad.
Expressions are written as ``lambda m: ...`` where ``m`` is the module, ``ctxgrad`` or ``torch``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import dtype_name, to_numpy

import ctxgrad

# --------------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def torch() -> Any:
    return pytest.importorskip("torch")


def assert_same(ct: Any, tt: Any, rtol: float = 1e-6, atol: float = 0.0) -> None:
    """A ctxgrad result matches a torch result: type, shape, dtype, requires_grad, values."""
    assert isinstance(ct, ctxgrad.Tensor), type(ct)
    assert tuple(ct.shape) == tuple(tt.shape)
    assert dtype_name(ct.dtype) == dtype_name(tt.dtype)
    assert ct.requires_grad == tt.requires_grad
    assert ct.is_leaf == tt.is_leaf
    a, b = to_numpy(ct), to_numpy(tt)
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(a, b)


def run_both(torch: Any, fn: Callable[[Any], Any]) -> tuple[Any, Any]:
    return fn(ctxgrad), fn(torch)


def assert_same_error(torch: Any, fn: Callable[[Any], Any], exc: type[BaseException], message: str) -> None:
    """``fn`` raises ``exc`` with a message starting with ``message`` on torch and on ctxgrad."""
    with pytest.raises(exc) as t_info:
        fn(torch)
    assert str(t_info.value).startswith(message), f"torch oracle says: {t_info.value}"
    with pytest.raises(exc) as c_info:
        fn(ctxgrad)
    assert str(c_info.value).startswith(message), f"ctxgrad says: {c_info.value}"


def set_grad(t: Any, value: Any) -> None:
    t.grad = value


def bump(m: Any, t: Any) -> None:
    m.autograd.graph.increment_version(t)


# --------------------------------------------------------------------------- requires_grad


def test_requires_grad_defaults_and_setter(torch: Any) -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.0, 2.0])
        flags = [x.requires_grad]
        x.requires_grad = True
        flags.append(x.requires_grad)
        x.requires_grad_(False)
        flags.append(x.requires_grad)
        flags.append(x.requires_grad_() is x)
        flags.append(x.requires_grad)
        flags.append(m.tensor([1.0], requires_grad=True).requires_grad)
        flags.append(m.zeros(2, dtype=m.float64, requires_grad=True).requires_grad)
        return flags

    assert fn(ctxgrad) == fn(torch) == [False, True, False, True, True, True, True]


REQUIRES_GRAD_ERRORS = [
    pytest.param(
        lambda m: m.tensor([1, 2]).requires_grad_(),
        "only Tensors of floating point dtype can require gradients",
        id="requires_grad_-int",
    ),
    pytest.param(
        lambda m: setattr(m.tensor([1, 2]), "requires_grad", True),
        "only Tensors of floating point and complex dtype can require gradients",
        id="setter-int",
    ),
    pytest.param(
        lambda m: m.tensor([1, 2], requires_grad=True),
        "Only Tensors of floating point and complex dtype can require gradients",
        id="tensor-factory-int",
    ),
    pytest.param(
        lambda m: m.zeros(2, dtype=m.int64, requires_grad=True),
        "Only Tensors of floating point and complex dtype can require gradients",
        id="zeros-factory-int",
    ),
    pytest.param(
        lambda m: m.ones(2, dtype=m.bool, requires_grad=True),
        "Only Tensors of floating point and complex dtype can require gradients",
        id="ones-factory-bool",
    ),
]


@pytest.mark.parametrize(("fn", "message"), REQUIRES_GRAD_ERRORS)
def test_requires_grad_only_floating(torch: Any, fn: Callable[[Any], Any], message: str) -> None:
    assert_same_error(torch, fn, RuntimeError, message)


NOT_LEAF = "you can only change requires_grad flags of leaf variables."


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m: (m.ones(2, requires_grad=True) * 2).requires_grad_(False), id="requires_grad_"),
        pytest.param(lambda m: setattr(m.ones(2, requires_grad=True) * 2, "requires_grad", False), id="setter"),
    ],
)
def test_requires_grad_false_on_non_leaf_errors(torch: Any, fn: Callable[[Any], Any]) -> None:
    assert_same_error(torch, fn, RuntimeError, NOT_LEAF)


def test_requires_grad_true_on_non_leaf_is_a_no_op(torch: Any) -> None:
    def fn(m: Any) -> Any:
        y = m.ones(2, requires_grad=True) * 2
        return y.requires_grad_(True)

    assert_same(*run_both(torch, fn))


# --------------------------------------------------------------------------- grad


def test_grad_is_settable_and_clearable(torch: Any) -> None:
    def fn(m: Any) -> Any:
        x = m.zeros(2, 3, requires_grad=True)
        first = x.grad
        g = m.ones(2, 3)
        x.grad = g
        same = x.grad is g
        x.grad = None
        return first, same, x.grad

    assert fn(ctxgrad) == fn(torch) == (None, True, None)


def test_grad_accumulates_after_assignment(torch: Any) -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.0, 2.0], requires_grad=True)
        x.grad = m.tensor([10.0, 20.0])
        (x * x).sum().backward()
        return x.grad

    assert_same(*run_both(torch, fn))


GRAD_SETTER_ERRORS = [
    pytest.param(
        lambda m: set_grad(m.zeros(2, 3, requires_grad=True), m.zeros(3)),
        RuntimeError,
        "attempting to assign a gradient of size '[3]' to a tensor of size '[2, 3]'. Please ensure that the "
        "gradient and the tensor are the same size",
        id="wrong-size",
    ),
    pytest.param(
        lambda m: set_grad(m.zeros(2, 3, requires_grad=True), m.zeros(2, 3, dtype=m.float64)),
        RuntimeError,
        "attempting to assign a gradient with dtype '",
        id="wrong-dtype",
    ),
    pytest.param(
        lambda m: set_grad(m.zeros(2, 3, requires_grad=True), m.zeros(2, 3, dtype=m.float64)),
        RuntimeError,
        "attempting to assign a gradient with dtype 'double' to a tensor with grad_dtype 'Float'. The gradient "
        "must match the tensor's grad_dtype (defaults to the tensor's dtype).",
        id="wrong-dtype-exact-words",
    ),
    pytest.param(
        lambda m: set_grad(m.zeros(2, requires_grad=True), 3),
        TypeError,
        "assigned grad expected to be a Tensor or None but got grad of type int",
        id="int",
    ),
    pytest.param(
        lambda m: set_grad(m.zeros(2, requires_grad=True), [1.0, 2.0]),
        TypeError,
        "assigned grad expected to be a Tensor or None but got grad of type list",
        id="list",
    ),
]


@pytest.mark.parametrize(("fn", "exc", "message"), GRAD_SETTER_ERRORS)
def test_grad_setter_errors(torch: Any, fn: Callable[[Any], Any], exc: type[BaseException], message: str) -> None:
    assert_same_error(torch, fn, exc, message)


def test_grad_of_non_leaf_warns(torch: Any) -> None:
    for m in (torch, ctxgrad):
        y = m.ones(2, requires_grad=True) * 2
        with pytest.warns(UserWarning, match="The .grad attribute of a Tensor that is not a leaf Tensor is being"):
            assert y.grad is None


def test_grad_of_non_leaf_after_retain_grad(torch: Any) -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.retain_grad()
        (y * y).sum().backward()
        return y.grad, x.grad

    for ct, tt in zip(*run_both(torch, fn)):
        assert_same(ct, tt)


# --------------------------------------------------------------------------- grad_fn, is_leaf


@pytest.mark.parametrize(
    ("fn", "grad_fn_name"),
    [
        pytest.param(lambda m: m.ones(2), None, id="plain-leaf"),
        pytest.param(lambda m: m.ones(2, requires_grad=True), None, id="grad-leaf"),
        pytest.param(lambda m: m.ones(2) * 2, None, id="result-of-no-grad-inputs"),
        pytest.param(lambda m: m.ones(2, requires_grad=True) * 2, "MulBackward0", id="mul"),
        pytest.param(lambda m: m.ones(2, requires_grad=True) + 2, "AddBackward0", id="add"),
        pytest.param(lambda m: m.ones(2, requires_grad=True).sum(), "SumBackward0", id="sum"),
        pytest.param(lambda m: m.ones(2, requires_grad=True).exp(), "ExpBackward0", id="exp"),
        pytest.param(lambda m: m.ones(2, requires_grad=True).clone(), "CloneBackward0", id="clone"),
        pytest.param(lambda m: m.ones(2, requires_grad=True).detach(), None, id="detach"),
        pytest.param(lambda m: m.ones(2, 2, requires_grad=True).t(), "TBackward0", id="t"),
        pytest.param(lambda m: m.ones(2, requires_grad=True).double(), "ToCopyBackward0", id="double"),
        pytest.param(lambda m: m.ones(2, requires_grad=True) > 0, None, id="comparison"),
    ],
)
def test_grad_fn_and_is_leaf(torch: Any, fn: Callable[[Any], Any], grad_fn_name: str | None) -> None:
    ct, tt = run_both(torch, fn)
    assert_same(ct, tt)
    for t in (ct, tt):
        assert t.is_leaf == (grad_fn_name is None)
        assert (t.grad_fn is None) == (grad_fn_name is None)
        if grad_fn_name is not None:
            assert t.grad_fn.name() == grad_fn_name


# --------------------------------------------------------------------------- data


def test_data_shares_storage_but_not_version(torch: Any) -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        d = x.data
        facts = [d.requires_grad, d.is_leaf, d.grad_fn is None]
        with m.no_grad():
            d.numpy()[0] = 10.0
        facts.append(x.detach().numpy()[0] == 10.0)
        bump(m, d)
        facts += [d._version, x._version]
        bump(m, x)
        facts += [d._version, x._version]
        return facts

    assert fn(ctxgrad) == fn(torch) == [False, True, True, True, 1, 0, 1, 1]


# --------------------------------------------------------------------------- basic facts


def test_shape_is_a_size() -> None:
    x = ctxgrad.zeros(2, 3)
    assert isinstance(x.shape, ctxgrad.Size)
    assert isinstance(x.shape, tuple)
    assert x.shape == (2, 3)
    assert repr(x.shape) == "ctxgrad.Size([2, 3])"
    assert repr(ctxgrad.tensor(1.0).shape) == "ctxgrad.Size([])"
    assert x.shape.numel() == 6


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda m: m.tensor(3.0), id="0d"),
        pytest.param(lambda m: m.zeros(4), id="1d"),
        pytest.param(lambda m: m.zeros(2, 3, dtype=m.int32), id="2d-int32"),
        pytest.param(lambda m: m.zeros(2, 0, 5), id="empty-3d"),
        pytest.param(lambda m: m.ones(2, 3, 4, dtype=m.float64), id="3d-float64"),
    ],
)
def test_basic_facts_match_torch(torch: Any, make: Callable[[Any], Any]) -> None:
    ct, tt = run_both(torch, make)
    assert repr(ct.shape) == repr(tt.shape).replace("torch.", "ctxgrad.")
    assert tuple(ct.size()) == tuple(tt.size())
    assert isinstance(ct.size(), ctxgrad.Size)
    for d in range(-ct.ndim, ct.ndim):
        assert ct.size(d) == tt.size(d)
        assert ct.size(dim=d) == tt.size(dim=d)
    assert dtype_name(ct.dtype) == dtype_name(tt.dtype)
    assert ct.ndim == tt.ndim == ct.dim() == tt.dim()
    assert ct.numel() == tt.numel()
    assert ct.device == ctxgrad.device("cpu") and ct.device.type == tt.device.type == "cpu"
    assert (ct.device == "cpu") == (tt.device == "cpu")  # a device never equals a string, in both
    assert str(ct.device) == str(tt.device) == "cpu"
    assert ct.is_floating_point() == tt.is_floating_point()


def test_size_dim_out_of_range(torch: Any) -> None:
    assert_same_error(
        torch,
        lambda m: m.zeros(2, 3).size(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
    )


# --------------------------------------------------------------------------- version counter

# (id, make, is_view): a view, detach() and .data share storage; only views and detach() share the version.
VIEW_MAKERS: list[tuple[str, Callable[[Any], Any], bool]] = [
    ("index", lambda x: x[0], True),
    ("slice", lambda x: x[:, 1:], True),
    ("reshape", lambda x: x.reshape(6), True),
    ("reshape-minus1", lambda x: x.reshape(-1, 2), True),
    ("view", lambda x: x.view(3, 2), True),
    ("t", lambda x: x.t(), True),
    ("transpose", lambda x: x.transpose(0, 1), True),
    ("permute", lambda x: x.permute(1, 0), True),
    ("expand", lambda x: x.expand(4, 2, 3), True),
    ("view-of-view", lambda x: x.t()[1], True),
    ("detach", lambda x: x.detach(), False),
    ("reshape-copy", lambda x: x.t().reshape(6), False),
    ("clone", lambda x: x.clone(), False),
    ("data", lambda x: x.data, False),
]
VERSION_CASES = [
    pytest.param(make, requires_grad, id=f"{name}-{'requires_grad' if requires_grad else 'no_grad'}")
    for name, make, is_view in VIEW_MAKERS
    for requires_grad in (True, False)
]


@pytest.mark.parametrize(("make_view", "requires_grad"), VERSION_CASES)
def test_version_counter_shared_with_views(torch: Any, make_view: Callable[[Any], Any], requires_grad: bool) -> None:
    def fn(m: Any) -> list[int]:
        x = m.zeros(2, 3, requires_grad=requires_grad)
        v = make_view(x)
        versions = [v._version]
        bump(m, x)
        versions += [x._version, v._version]
        bump(m, v)
        versions += [x._version, v._version]
        return versions

    assert fn(ctxgrad) == fn(torch)


# --------------------------------------------------------------------------- numpy and Python conversions


def test_numpy_refuses_tensor_that_requires_grad(torch: Any) -> None:
    assert_same_error(
        torch,
        lambda m: m.ones(2, requires_grad=True).numpy(),
        RuntimeError,
        "Can't call numpy() on Tensor that requires grad",
    )


def test_numpy_works_under_no_grad_and_shares_memory(torch: Any) -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.0, 2.0], requires_grad=True)
        with m.no_grad():
            arr = x.numpy()
        arr[1] = 7.0
        plain = m.tensor([1, 2])
        plain.numpy()[0] = 5
        return x.detach().numpy().tolist(), plain.tolist(), x.detach().numpy().dtype

    assert fn(ctxgrad) == fn(torch) == ([1.0, 7.0], [5, 2], np.dtype("float32"))


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda m: m.tensor(2.5), id="0d-float"),
        pytest.param(lambda m: m.tensor([3]), id="1-elem-int"),
        pytest.param(lambda m: m.tensor([[True]]), id="1x1-bool"),
        pytest.param(lambda m: m.tensor(1.5, dtype=m.float64, requires_grad=True), id="requires-grad"),
        pytest.param(lambda m: m.tensor([7], dtype=m.int32), id="int32"),
    ],
)
def test_item(torch: Any, make: Callable[[Any], Any]) -> None:
    c, t = make(ctxgrad).item(), make(torch).item()
    assert c == t
    assert type(c) is type(t)


def test_item_more_than_one_element(torch: Any) -> None:
    assert_same_error(
        torch,
        lambda m: m.tensor([1.0, 2.0]).item(),
        RuntimeError,
        "a Tensor with 2 elements cannot be converted to Scalar",
    )


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda m: m.tensor(2.5), id="0d"),
        pytest.param(lambda m: m.tensor([[1.5, 2.0], [3.0, 4.0]]), id="2d-float"),
        pytest.param(lambda m: m.tensor([[1, 2, 3]]), id="2d-int"),
        pytest.param(lambda m: m.tensor([True, False]), id="bool"),
        pytest.param(lambda m: m.zeros(2, 0), id="empty"),
        pytest.param(lambda m: m.tensor([1.0], requires_grad=True), id="requires-grad"),
    ],
)
def test_tolist(torch: Any, make: Callable[[Any], Any]) -> None:
    c, t = make(ctxgrad).tolist(), make(torch).tolist()
    assert c == t
    assert repr(c) == repr(t)  # same Python types inside


def test_array_protocol() -> None:
    x = ctxgrad.tensor([1.0, 2.0])
    arr = np.asarray(x)
    assert arr.dtype == np.float32
    arr[0] = 5.0
    assert x.tolist() == [5.0, 2.0]
    as64 = np.asarray(x, dtype=np.float64)
    assert as64.dtype == np.float64
    np.testing.assert_array_equal(as64, [5.0, 2.0])
    np.testing.assert_array_equal(np.array(ctxgrad.tensor([[1, 2]])), [[1, 2]])


def test_array_protocol_matches_torch(torch: Any) -> None:
    c = np.asarray(ctxgrad.tensor([[1.0, 2.0]]))
    t = np.asarray(torch.tensor([[1.0, 2.0]]))
    assert c.dtype == t.dtype
    np.testing.assert_array_equal(c, t)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        pytest.param(lambda m: m.zeros(4), 4, id="1d"),
        pytest.param(lambda m: m.zeros(2, 5), 2, id="2d"),
        pytest.param(lambda m: m.zeros(0, 5), 0, id="empty"),
    ],
)
def test_len(torch: Any, make: Callable[[Any], Any], expected: int) -> None:
    assert len(make(ctxgrad)) == len(make(torch)) == expected


def test_len_of_0d(torch: Any) -> None:
    assert_same_error(torch, lambda m: len(m.tensor(1.0)), TypeError, "len() of a 0-d tensor")


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        pytest.param(lambda m: m.tensor(1.0), True, id="0d-true"),
        pytest.param(lambda m: m.tensor(0.0), False, id="0d-false"),
        pytest.param(lambda m: m.tensor([[3]]), True, id="1x1-int"),
        pytest.param(lambda m: m.tensor([False]), False, id="1-bool"),
        pytest.param(lambda m: m.tensor(float("nan")), True, id="nan"),
    ],
)
def test_bool(torch: Any, make: Callable[[Any], Any], expected: bool) -> None:
    assert bool(make(ctxgrad)) is bool(make(torch)) is expected


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(
            lambda m: m.tensor([1.0, 2.0]), "Boolean value of Tensor with more than one value is ambiguous", id="two"
        ),
        pytest.param(lambda m: m.zeros(0), "Boolean value of Tensor with no values is ambiguous", id="empty"),
    ],
)
def test_bool_ambiguous(torch: Any, make: Callable[[Any], Any], message: str) -> None:
    assert_same_error(torch, lambda m: bool(make(m)), RuntimeError, message)


@pytest.mark.parametrize(
    ("convert", "make"),
    [
        pytest.param(float, lambda m: m.tensor([2.5]), id="float"),
        pytest.param(int, lambda m: m.tensor(7.9), id="int"),
    ],
)
def test_python_number_conversion(torch: Any, convert: Callable[[Any], Any], make: Callable[[Any], Any]) -> None:
    c, t = convert(make(ctxgrad)), convert(make(torch))
    assert c == t and type(c) is type(t)


# --------------------------------------------------------------------------- detach, clone, to


def test_detach(torch: Any) -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        d = y.detach()
        with m.no_grad():
            d.numpy()[0] = 100.0
        return d, y.detach()

    (cd, cy), (td, ty) = run_both(torch, fn)
    assert_same(cd, td)
    assert_same(cy, ty)  # the detached tensor shares y's storage


def test_detach_in_place(torch: Any) -> None:
    def fn(m: Any) -> Any:
        y = m.tensor([1.0, 2.0], requires_grad=True) * 2
        out = y.detach_()
        return out is y, y.requires_grad, y.is_leaf, y.grad_fn

    assert fn(ctxgrad) == fn(torch) == (True, False, True, None)


def test_detach_in_place_of_a_view_errors(torch: Any) -> None:
    assert_same_error(
        torch,
        lambda m: m.zeros(2, 2, requires_grad=True)[0].detach_(),
        RuntimeError,
        "Can't detach views in-place. Use detach() instead.",
    )


def test_clone_is_differentiable_and_owns_its_storage(torch: Any) -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        c = x.clone()
        (c * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        with m.no_grad():
            c.numpy()[0] = 50.0
        return c, x.grad, x.detach()

    for ct, tt in zip(*run_both(torch, fn)):
        assert_same(ct, tt)


@pytest.mark.parametrize(
    "convert",
    [
        pytest.param(lambda t, m: t.to(m.float64), id="to-float64"),
        pytest.param(lambda t, m: t.to(dtype=m.float64), id="to-dtype-kw"),
        pytest.param(lambda t, m: t.double(), id="double"),
        pytest.param(lambda t, m: t.to(m.float16), id="to-float16"),
        pytest.param(lambda t, m: t.to(m.float64).float(), id="double-then-float"),
        pytest.param(lambda t, m: t.to(m.ones(1, dtype=m.float64)), id="to-other-tensor"),
        pytest.param(lambda t, m: t.to("cpu"), id="to-cpu"),
        pytest.param(lambda t, m: t.float(), id="float-same-dtype"),
        pytest.param(lambda t, m: t.to(m.int64), id="to-int64"),
        pytest.param(lambda t, m: t.to(m.bool), id="to-bool"),
    ],
)
def test_to_dtype(torch: Any, convert: Callable[[Any, Any], Any]) -> None:
    def fn(m: Any) -> Any:
        x = m.tensor([1.5, -2.0, 0.0], requires_grad=True)
        y = convert(x, m)
        if y.requires_grad:
            (y * m.tensor([1.0, 2.0, 3.0], dtype=y.dtype)).sum().backward()
        return y, x.grad, y is x

    (cy, cg, c_same), (ty, tg, t_same) = run_both(torch, fn)
    assert_same(cy, ty, rtol=1e-3)
    assert c_same == t_same
    assert (cg is None) == (tg is None)
    if tg is not None:
        assert_same(cg, tg)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda m: m.tensor([1.0, 2.0]).view(m.int32), id="float32-as-int32"),
        pytest.param(lambda m: m.tensor([1.0, 2.0]).view(m.float32), id="same-dtype"),
    ],
)
def test_view_as_dtype(torch: Any, make: Callable[[Any], Any]) -> None:
    assert_same(*run_both(torch, make))


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m: m.ones(2) == None, id="eq"),  # noqa: E711 - the comparison is the test
        pytest.param(lambda m: m.ones(2) != None, id="ne"),  # noqa: E711
    ],
)
def test_compare_with_none(torch: Any, fn: Callable[[Any], Any]) -> None:
    c, t = fn(ctxgrad), fn(torch)
    assert c is t


# --------------------------------------------------------------------------- repr


REPR_CASES = [
    pytest.param(lambda m: m.tensor([1.5, 2.25, -3.0]), id="floats"),
    pytest.param(lambda m: m.tensor([1.0, 2.0, -3.0]), id="whole-floats"),
    pytest.param(lambda m: m.tensor([0.1, 0.0001, 0.5]), id="small-floats"),
    pytest.param(lambda m: m.tensor([1, -20, 300]), id="ints"),
    pytest.param(lambda m: m.tensor([True, False, True]), id="bools"),
    pytest.param(lambda m: m.tensor(3.5), id="0d-float"),
    pytest.param(lambda m: m.tensor(3.0), id="0d-whole-float"),
    pytest.param(lambda m: m.tensor(7), id="0d-int"),
    pytest.param(lambda m: m.tensor(False), id="0d-bool"),
    pytest.param(lambda m: m.tensor(0.0), id="0d-zero"),
    pytest.param(lambda m: m.tensor([]), id="empty"),
    pytest.param(lambda m: m.zeros(0, 3), id="empty-2d"),
    pytest.param(lambda m: m.zeros(2, 0, dtype=m.int32), id="empty-2d-int32"),
    pytest.param(lambda m: m.zeros(0, dtype=m.float64), id="empty-float64"),
    pytest.param(lambda m: m.tensor([[1.5, 2.0], [3.25, -4.0]]), id="2d"),
    pytest.param(lambda m: m.tensor([[1, 2], [30, -4]]), id="2d-int"),
    pytest.param(lambda m: m.arange(24.0).reshape(2, 3, 4) / 7, id="3d"),
    pytest.param(lambda m: m.arange(24).reshape(2, 3, 2, 2), id="4d-int"),
    pytest.param(lambda m: m.tensor([1e-5, 1.0, 1e5]), id="sci-mixed"),
    pytest.param(lambda m: m.tensor([0.001, 1000.0]), id="sci-ratio"),
    pytest.param(lambda m: m.tensor([1.0, 1000.0]), id="whole-ratio-1000"),
    pytest.param(lambda m: m.tensor([1.0, 1001.0]), id="whole-ratio-over-1000"),
    pytest.param(lambda m: m.tensor([1e10, 1.0]), id="sci-big"),
    pytest.param(lambda m: m.tensor([1e-5, 2e-5]), id="sci-small"),
    pytest.param(lambda m: m.tensor([-1e-5, 1e5]), id="sci-negative"),
    pytest.param(lambda m: m.tensor([123456.789, 1.5]), id="wide-fixed"),
    pytest.param(lambda m: m.tensor([float("nan"), float("inf"), -float("inf"), 1.5]), id="nan-inf"),
    pytest.param(lambda m: m.tensor([float("nan"), 1.0, 2.0]), id="nan-whole"),
    pytest.param(lambda m: m.tensor([float("inf"), -float("inf")]), id="inf-only"),
    pytest.param(lambda m: m.tensor([float("nan"), 1e-5, 1e5]), id="nan-sci"),
    pytest.param(lambda m: m.tensor([-0.0, 1.5]), id="negative-zero"),
    pytest.param(lambda m: m.tensor([-0.0, 0.0]), id="zeros-signed"),
    pytest.param(lambda m: m.tensor([0.0, 100.5]), id="zero-and-fixed"),
    pytest.param(lambda m: m.tensor([float("nan"), 0.0]), id="nan-zero"),
    pytest.param(lambda m: m.tensor([1e-5, 0.0]), id="sci-with-zero"),
    pytest.param(lambda m: m.tensor([1.0, 2.0], requires_grad=True), id="requires-grad"),
    pytest.param(lambda m: m.tensor([1.0, 2.0], requires_grad=True) * 2, id="grad-fn-mul"),
    pytest.param(lambda m: (m.tensor([1.0, 2.0], requires_grad=True) * 2).sum(), id="grad-fn-0d"),
    pytest.param(lambda m: m.tensor([1.5, 2.0], dtype=m.float64), id="float64"),
    pytest.param(lambda m: m.tensor([1.5, 2.0], dtype=m.float64, requires_grad=True), id="float64-requires-grad"),
    pytest.param(lambda m: m.tensor([1.5, 2.0], dtype=m.float64, requires_grad=True) * 3, id="float64-grad-fn"),
    pytest.param(lambda m: m.tensor(2.5, dtype=m.float64), id="0d-float64"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.int32), id="int32"),
    pytest.param(lambda m: m.tensor([1.5, 2.0], dtype=m.float16), id="float16"),
    pytest.param(lambda m: m.tensor([1, 0], dtype=m.uint8), id="uint8"),
    pytest.param(
        lambda m: m.arange(12.0, dtype=m.float64) / 7 * m.ones(12, dtype=m.float64, requires_grad=True),
        id="wrapped-rows-then-two-suffixes",
    ),
    pytest.param(
        lambda m: m.tensor([0.6334, -2.2035, 0.052, 0.6837, 1.004, -0.6179, 1.0, 2.0], requires_grad=True),
        id="suffix-on-new-line",
    ),
    pytest.param(
        lambda m: m.tensor(
            [[-7037.35, -12654.21, -6232.74, 413.26], [-23250.31, -2187.92, -12459.11, 1.5]], dtype=m.float64
        ),
        id="dtype-suffix-on-new-line",
    ),
    pytest.param(lambda m: m.arange(30.0) / 3, id="wrapping-floats"),
    pytest.param(lambda m: m.arange(100), id="wrapping-ints"),
    pytest.param(lambda m: m.arange(40.0).reshape(2, 20) / 3, id="wrapping-2d"),
    pytest.param(lambda m: m.arange(1000.0), id="arange-1000"),
    pytest.param(lambda m: m.arange(1001.0), id="summarised-1d"),
    pytest.param(lambda m: m.arange(2000.0).reshape(40, 50) / 7, id="summarised-2d"),
    pytest.param(lambda m: m.arange(3000).reshape(10, 10, 30), id="summarised-3d-int"),
    pytest.param(lambda m: m.arange(1200.0).reshape(2, 600), id="summarised-short-dim"),
    pytest.param(lambda m: m.arange(1001.0, dtype=m.float64), id="summarised-float64"),
    pytest.param(lambda m: m.arange(1001.0, requires_grad=True), id="summarised-requires-grad"),
]


@pytest.mark.parametrize("make", REPR_CASES)
def test_repr_matches_torch(torch: Any, make: Callable[[Any], Any]) -> None:
    c, t = repr(make(ctxgrad)), repr(make(torch)).replace("torch.", "ctxgrad.")
    assert c == t


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda m: m.tensor([1.5, 2.0]), id="default-float64"),
        pytest.param(lambda m: m.tensor([1.5, 2.0], dtype=m.float32), id="float32-not-default"),
        pytest.param(lambda m: m.tensor([1.5, 2.0], requires_grad=True) * 2, id="grad-fn"),
    ],
)
def test_repr_follows_default_dtype(torch: Any, make: Callable[[Any], Any]) -> None:
    try:
        ctxgrad.set_default_dtype(ctxgrad.float64)
        torch.set_default_dtype(torch.float64)
        c, t = repr(make(ctxgrad)), repr(make(torch)).replace("torch.", "ctxgrad.")
    finally:
        ctxgrad.set_default_dtype(ctxgrad.float32)
        torch.set_default_dtype(torch.float32)
    assert c == t


def test_str_and_format(torch: Any) -> None:
    assert str(ctxgrad.tensor([1.5, 2.0])) == str(torch.tensor([1.5, 2.0]))
    assert f"{ctxgrad.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}" == "2.50"


# --------------------------------------------------------------------------- factories: tensor


@pytest.mark.parametrize(
    "data",
    [
        pytest.param([1.0, 2.0], id="floats"),
        pytest.param([1, 2], id="ints"),
        pytest.param([True, False], id="bools"),
        pytest.param(3.0, id="scalar-float"),
        pytest.param(3, id="scalar-int"),
        pytest.param(True, id="scalar-bool"),
        pytest.param([[1, 2.5], [3, 4]], id="mixed-int-float"),
        pytest.param([True, 2], id="mixed-bool-int"),
        pytest.param([[1.0, 2.0], [3.0, 4.0]], id="nested"),
        pytest.param([], id="empty-list"),
        pytest.param([[], []], id="empty-nested"),
        pytest.param(np.array([1.0, 2.0]), id="np-float64"),
        pytest.param(np.array([1, 2], dtype=np.int32), id="np-int32"),
        pytest.param(np.array([1.0], dtype=np.float16), id="np-float16"),
        pytest.param(np.array(2.5), id="np-0d"),
    ],
)
def test_tensor_default_dtypes(torch: Any, data: Any) -> None:
    assert_same(ctxgrad.tensor(data), torch.tensor(data))


@pytest.mark.parametrize(
    ("data", "dtype"),
    [
        pytest.param([1, 2], "float32", id="int-to-float32"),
        pytest.param([1.7, -2.7], "int64", id="float-to-int64"),
        pytest.param([1.5, 2.0], "float64", id="float-to-float64"),
        pytest.param([0, 1, 2], "bool", id="int-to-bool"),
        pytest.param([1.5], "float16", id="float16"),
        pytest.param(3, "int32", id="scalar-int32"),
        pytest.param(np.array([1.0, 2.0]), "float32", id="np-float64-to-float32"),
    ],
)
def test_tensor_with_dtype(torch: Any, data: Any, dtype: str) -> None:
    assert_same(ctxgrad.tensor(data, dtype=getattr(ctxgrad, dtype)), torch.tensor(data, dtype=getattr(torch, dtype)))


def test_tensor_copies_its_data() -> None:
    arr = np.array([1.0, 2.0])
    t = ctxgrad.tensor(arr)
    arr[0] = 100.0
    assert t.tolist() == [1.0, 2.0]
    t2 = ctxgrad.tensor(t)
    t.numpy()[1] = 50.0
    assert t2.tolist() == [1.0, 2.0]


def test_tensor_from_list_of_tensors(torch: Any) -> None:
    assert_same(*run_both(torch, lambda m: m.tensor([m.tensor(1.0), m.tensor(2.5)])))


@pytest.mark.parametrize(
    "dtype", [np.float64, np.float32, np.int32, np.int64, np.bool_, np.uint8], ids=lambda d: np.dtype(d).name
)
@pytest.mark.parametrize("factory", ["from_numpy", "as_tensor"])
def test_from_numpy_and_as_tensor_share_memory(torch: Any, factory: str, dtype: Any) -> None:
    def fn(m: Any) -> Any:
        arr = np.array([[0, 1], [1, 0]], dtype=dtype)
        t = getattr(m, factory)(arr)
        arr[0, 0] = 1
        return t

    assert_same(*run_both(torch, fn))


def test_as_tensor_copies_when_converting(torch: Any) -> None:
    def fn(m: Any) -> Any:
        arr = np.array([1.0, 2.0])
        t = m.as_tensor(arr, dtype=m.float32)
        arr[0] = 100.0
        from_list = m.as_tensor([1, 2])
        same = m.as_tensor(t) is t
        return t, from_list, same

    (ct, cl, c_same), (tt, tl, t_same) = run_both(torch, fn)
    assert_same(ct, tt)
    assert_same(cl, tl)
    assert c_same is t_same is True


def test_from_numpy_rejects_non_arrays(torch: Any) -> None:
    for m in (ctxgrad, torch):
        with pytest.raises(TypeError):
            m.from_numpy([1.0, 2.0])


# --------------------------------------------------------------------------- factories: zeros, ones, full, like

FILL_FACTORIES = [
    pytest.param(lambda m: m.zeros(2, 3), id="zeros"),
    pytest.param(lambda m: m.zeros((2, 3)), id="zeros-tuple"),
    pytest.param(lambda m: m.zeros([2, 3]), id="zeros-list"),
    pytest.param(lambda m: m.zeros(()), id="zeros-0d"),
    pytest.param(lambda m: m.zeros(0), id="zeros-empty"),
    pytest.param(lambda m: m.zeros(2, dtype=m.int32), id="zeros-int32"),
    pytest.param(lambda m: m.zeros(2, 2, requires_grad=True), id="zeros-requires-grad"),
    pytest.param(lambda m: m.ones(3), id="ones"),
    pytest.param(lambda m: m.ones(2, 1, dtype=m.float64), id="ones-float64"),
    pytest.param(lambda m: m.ones(2, dtype=m.bool), id="ones-bool"),
    pytest.param(lambda m: m.ones((1, 2), dtype=m.int64), id="ones-int64"),
    pytest.param(lambda m: m.full((2, 3), 1.5), id="full-float"),
    pytest.param(lambda m: m.full((2,), 7), id="full-int"),
    pytest.param(lambda m: m.full((2,), True), id="full-bool"),
    pytest.param(lambda m: m.full((2,), 2, dtype=m.float64), id="full-dtype"),
    pytest.param(lambda m: m.full([3], -0.5, requires_grad=True), id="full-requires-grad"),
    pytest.param(lambda m: m.full((), 4.0), id="full-0d"),
    pytest.param(lambda m: m.zeros_like(m.tensor([[1, 2]])), id="zeros_like-int"),
    pytest.param(lambda m: m.zeros_like(m.tensor([1.0], dtype=m.float64)), id="zeros_like-float64"),
    pytest.param(lambda m: m.zeros_like(m.tensor([1, 2]), dtype=m.float32), id="zeros_like-dtype"),
    pytest.param(lambda m: m.zeros_like(m.tensor([1.0, 2.0]), requires_grad=True), id="zeros_like-requires-grad"),
    pytest.param(lambda m: m.ones_like(m.ones(2, 3, requires_grad=True)), id="ones_like-does-not-inherit-grad"),
    pytest.param(lambda m: m.ones_like(m.tensor([True])), id="ones_like-bool"),
    pytest.param(lambda m: m.full_like(m.zeros(2), 3.5), id="full_like"),
    pytest.param(lambda m: m.full_like(m.zeros(2, dtype=m.int64), 3.7), id="full_like-int-truncates"),
]


@pytest.mark.parametrize("make", FILL_FACTORIES)
def test_fill_factories(torch: Any, make: Callable[[Any], Any]) -> None:
    assert_same(*run_both(torch, make))


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda m: m.empty(2, 3), id="empty"),
        pytest.param(lambda m: m.empty((4,), dtype=m.int32), id="empty-int32"),
        pytest.param(lambda m: m.empty(2, requires_grad=True), id="empty-requires-grad"),
        pytest.param(lambda m: m.empty_like(m.zeros(3, 1, dtype=m.float64)), id="empty_like"),
    ],
)
def test_empty_factories(torch: Any, make: Callable[[Any], Any]) -> None:
    ct, tt = run_both(torch, make)
    assert tuple(ct.shape) == tuple(tt.shape)
    assert dtype_name(ct.dtype) == dtype_name(tt.dtype)
    assert ct.requires_grad == tt.requires_grad


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda m: m.arange(5), id="int-end"),
        pytest.param(lambda m: m.arange(1, 5), id="int-start-end"),
        pytest.param(lambda m: m.arange(10, 0, -3), id="int-negative-step"),
        pytest.param(lambda m: m.arange(5.0), id="float-end"),
        pytest.param(lambda m: m.arange(0, 1, 0.25), id="float-step"),
        pytest.param(lambda m: m.arange(1, 2.5, 0.5), id="float-bounds"),
        pytest.param(lambda m: m.arange(0, 5, dtype=m.float64), id="int-bounds-float64"),
        pytest.param(lambda m: m.arange(5, dtype=m.int32), id="int32"),
        pytest.param(lambda m: m.arange(3.0, requires_grad=True), id="requires-grad"),
        pytest.param(lambda m: m.arange(0), id="empty"),
        pytest.param(lambda m: m.arange(m.tensor(4)), id="tensor-bound"),
    ],
)
def test_arange(torch: Any, make: Callable[[Any], Any]) -> None:
    assert_same(*run_both(torch, make))


@pytest.mark.parametrize("factory", ["rand", "randn"])
@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        pytest.param((2, 3), {}, id="varargs"),
        pytest.param(((4,),), {}, id="tuple"),
        pytest.param(([2, 1, 3],), {}, id="list"),
        pytest.param(((),), {}, id="0d"),
        pytest.param((3,), {"dtype": "float64"}, id="float64"),
        pytest.param((3,), {"requires_grad": True}, id="requires-grad"),
    ],
)
def test_random_factories_shape_dtype(torch: Any, factory: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    def fn(m: Any) -> Any:
        kw = {k: getattr(m, v) if k == "dtype" else v for k, v in kwargs.items()}
        return getattr(m, factory)(*args, **kw)

    ct, tt = run_both(torch, fn)
    assert tuple(ct.shape) == tuple(tt.shape)
    assert dtype_name(ct.dtype) == dtype_name(tt.dtype)
    assert ct.requires_grad == tt.requires_grad
    assert ct.is_leaf


def test_rand_range_and_randn_moments() -> None:
    ctxgrad.manual_seed(1)
    u = ctxgrad.rand(10000).numpy()
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.02
    n = ctxgrad.randn(10000).numpy()
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1.0) < 0.05


@pytest.mark.parametrize("factory", ["rand", "randn"])
def test_manual_seed_reproducibility(factory: str) -> None:
    draw = getattr(ctxgrad, factory)
    ctxgrad.manual_seed(123)
    a = draw(3, 4)
    b = draw(3, 4)
    ctxgrad.manual_seed(123)
    a2 = draw(3, 4)
    b2 = draw(3, 4)
    ctxgrad.manual_seed(124)
    c = draw(3, 4)
    np.testing.assert_array_equal(a.numpy(), a2.numpy())
    np.testing.assert_array_equal(b.numpy(), b2.numpy())
    assert not np.array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(a.numpy(), c.numpy())


# --------------------------------------------------------------------------- default dtype

DEFAULT_DTYPE_CASES = [
    pytest.param(lambda m: m.tensor([1.5]), id="tensor"),
    pytest.param(lambda m: m.tensor(2.0), id="tensor-0d"),
    pytest.param(lambda m: m.tensor([1, 2]), id="tensor-int-unaffected"),
    pytest.param(lambda m: m.zeros(2), id="zeros"),
    pytest.param(lambda m: m.ones(2), id="ones"),
    pytest.param(lambda m: m.empty(2), id="empty"),
    pytest.param(lambda m: m.full((2,), 1.5), id="full"),
    pytest.param(lambda m: m.rand(2), id="rand"),
    pytest.param(lambda m: m.randn(2), id="randn"),
    pytest.param(lambda m: m.arange(3.0), id="arange-float"),
    pytest.param(lambda m: m.arange(3), id="arange-int-unaffected"),
    pytest.param(lambda m: m.tensor([1, 2]) * 2.5, id="int-times-python-float"),
    pytest.param(lambda m: m.tensor([1, 2]) / m.tensor([2, 2]), id="int-div-int"),
    pytest.param(lambda m: m.tensor([1, 2]).exp(), id="exp-of-int"),
    pytest.param(lambda m: m.tensor([1.0], dtype=m.float32) + 1.5, id="float32-stays"),
]


@pytest.mark.parametrize("default", ["float64", "float32"])
@pytest.mark.parametrize("make", DEFAULT_DTYPE_CASES)
def test_set_default_dtype(torch: Any, make: Callable[[Any], Any], default: str) -> None:
    try:
        ctxgrad.set_default_dtype(getattr(ctxgrad, default))
        torch.set_default_dtype(getattr(torch, default))
        assert str(ctxgrad.get_default_dtype()) == dtype_name(torch.get_default_dtype()) == default
        ct, tt = run_both(torch, make)
    finally:
        ctxgrad.set_default_dtype(ctxgrad.float32)
        torch.set_default_dtype(torch.float32)
    assert ctxgrad.get_default_dtype() == np.float32
    assert tuple(ct.shape) == tuple(tt.shape)
    assert dtype_name(ct.dtype) == dtype_name(tt.dtype)


def test_set_default_dtype_rejects_integers(torch: Any) -> None:
    for m in (ctxgrad, torch):
        with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
            m.set_default_dtype(m.int64)
    assert ctxgrad.get_default_dtype() == np.float32


def test_default_dtype_is_float32() -> None:
    assert ctxgrad.get_default_dtype() == np.dtype("float32")
    assert ctxgrad.tensor([1.0]).dtype == np.float32


# --------------------------------------------------------------------------- dtype names


@pytest.mark.parametrize(
    ("name", "numpy_name"),
    [
        ("float16", "float16"),
        ("half", "float16"),
        ("float32", "float32"),
        ("float", "float32"),
        ("float64", "float64"),
        ("double", "float64"),
        ("int32", "int32"),
        ("int", "int32"),
        ("int64", "int64"),
        ("long", "int64"),
        ("int16", "int16"),
        ("short", "int16"),
        ("int8", "int8"),
        ("uint8", "uint8"),
        ("bool", "bool"),
        ("complex64", "complex64"),
        ("complex128", "complex128"),
    ],
)
def test_dtype_names_stand_for_numpy_dtypes(torch: Any, name: str, numpy_name: str) -> None:
    dt = getattr(ctxgrad, name)
    assert isinstance(dt, ctxgrad.dtype) and np.dtype(dt) is np.dtype(numpy_name)
    assert dt == np.dtype(numpy_name) and hash(dt) == hash(np.dtype(numpy_name))
    assert repr(dt) == str(dt) == repr(getattr(torch, name)).replace("torch.", "ctxgrad.")
    assert ctxgrad.zeros(1, dtype=dt).dtype == dt


# --------------------------------------------------------------------------- type promotion

PROMOTION_CASES = [
    pytest.param(lambda m: m.tensor([1.0, 2.0]) + 2.5, id="float32+pyfloat"),
    pytest.param(lambda m: 2.5 * m.tensor([1.0, 2.0]), id="pyfloat*float32"),
    pytest.param(lambda m: m.tensor([1.0, 2.0]) + 2, id="float32+pyint"),
    pytest.param(lambda m: m.tensor([1.0, 2.0]) + m.tensor([1.0, 2.0], dtype=m.float64), id="float32+float64"),
    pytest.param(lambda m: m.tensor([1.0, 2.0]) * m.tensor(3.0, dtype=m.float64), id="float32*0d-float64"),
    pytest.param(lambda m: m.tensor(3.0, dtype=m.float64) - m.tensor([1.0, 2.0]), id="0d-float64-float32"),
    pytest.param(lambda m: m.tensor(1.0) + m.tensor(3.0, dtype=m.float64), id="0d-float32+0d-float64"),
    pytest.param(lambda m: m.tensor([1.0], dtype=m.float16) + 1.0, id="float16+pyfloat"),
    pytest.param(lambda m: m.tensor([1.0], dtype=m.float16) + m.tensor(1.0), id="float16+0d-float32"),
    pytest.param(lambda m: m.tensor([1.0], dtype=m.float16) * m.tensor([2.0]), id="float16*float32"),
    pytest.param(lambda m: m.tensor([1, 2]) * 2.5, id="int64*pyfloat"),
    pytest.param(lambda m: 2.5 - m.tensor([1, 2]), id="pyfloat-int64"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.int32) + 0.5, id="int32+pyfloat"),
    pytest.param(lambda m: m.tensor([1, 2]) / m.tensor([2, 4]), id="int/int"),
    pytest.param(lambda m: m.tensor([1, 2]) / 2, id="int/pyint"),
    pytest.param(lambda m: 3 / m.tensor([1, 2]), id="pyint/int"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.int32) * 3, id="int32*pyint"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.int32) + m.tensor([1, 2]), id="int32+int64"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.int32) + m.tensor(5), id="int32+0d-int64"),
    pytest.param(lambda m: m.tensor([1, 2]) + m.tensor(1.5, dtype=m.float64), id="int64+0d-float64"),
    pytest.param(lambda m: m.tensor([1, 2]) + m.tensor(1.5), id="int64+0d-float32"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.uint8) + m.tensor([1, 2], dtype=m.int8), id="uint8+int8"),
    pytest.param(lambda m: m.tensor([1, 2]) ** 2, id="int**pyint"),
    pytest.param(lambda m: m.tensor([1, 2]) ** 0.5, id="int**pyfloat"),
    pytest.param(lambda m: 2 ** m.tensor([1, 2]), id="pyint**int"),
    pytest.param(lambda m: 2.0 ** m.tensor([1, 2]), id="pyfloat**int"),
    pytest.param(lambda m: m.tensor([True, False]) + m.tensor([True, True]), id="bool+bool"),
    pytest.param(lambda m: m.tensor([True, False]) * m.tensor([True, True]), id="bool*bool"),
    pytest.param(lambda m: m.tensor([True, False]) + 1, id="bool+pyint"),
    pytest.param(lambda m: m.tensor([True, False]) * 1.5, id="bool*pyfloat"),
    pytest.param(lambda m: m.tensor([True, False]) + m.tensor([1, 2], dtype=m.int32), id="bool+int32"),
    pytest.param(lambda m: m.tensor([True, False]) / m.tensor([True, True]), id="bool/bool"),
    pytest.param(lambda m: m.tensor([True, False]) + True, id="bool+pybool"),
    pytest.param(lambda m: m.tensor([1, 2]) + True, id="int+pybool"),
    pytest.param(lambda m: -m.tensor([1, 2], dtype=m.int32), id="neg-int32"),
    pytest.param(lambda m: m.tensor([1.0, 2.0]) * np.float64(2.0), id="float32*np.float64"),
    pytest.param(lambda m: np.float64(2.0) + m.tensor([1.0, 2.0]), id="np.float64+float32"),
    pytest.param(lambda m: m.tensor([1.0, 2.0], dtype=m.float16) - np.float32(0.5), id="float16-np.float32"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.int32) * np.int64(3), id="int32*np.int64"),
    pytest.param(lambda m: m.tensor([1.0, 2.0], requires_grad=True) * m.tensor([1, 2]), id="grad-float32*int64"),
    pytest.param(
        lambda m: m.tensor([1, 2]) * m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True), id="grad-int64*float64"
    ),
    pytest.param(lambda m: m.tensor([1.0, 2.0], requires_grad=True) < m.tensor([1.5, 1.5]), id="lt-requires-grad"),
    pytest.param(lambda m: m.tensor([1.0, 2.0]) == m.tensor([1.0, 2.0], dtype=m.float64), id="eq-mixed-floats"),
    pytest.param(lambda m: m.tensor([1, 2]) >= 1.5, id="ge-int-pyfloat"),
    pytest.param(lambda m: m.tensor([True, False]) != 0, id="ne-bool-pyint"),
    pytest.param(lambda m: m.tensor([1.0, 2.0], requires_grad=True).to(m.int64), id="to-int-drops-grad"),
    pytest.param(lambda m: m.tensor([1.0, 2.0], requires_grad=True).long() * 2, id="int-op-drops-grad"),
    pytest.param(lambda m: m.tensor([1, 2]) @ m.tensor([3, 4]), id="int-matmul"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.int32).sum(), id="sum-int32-to-int64"),
    pytest.param(lambda m: m.tensor([True, True]).sum(), id="sum-bool-to-int64"),
    pytest.param(lambda m: m.tensor([1.0, 2.0], dtype=m.float16).sum(), id="sum-float16"),
    pytest.param(lambda m: m.tensor([1, 2]).sum(dtype=m.float64), id="sum-dtype"),
    pytest.param(lambda m: m.tensor([1, 2]).mean(dtype=m.float64), id="mean-dtype"),
    pytest.param(lambda m: m.tensor([1, 2], dtype=m.int32).exp(), id="exp-int32"),
    pytest.param(lambda m: m.tensor([1, 2]).log(), id="log-int"),
    pytest.param(lambda m: m.tensor([True, False]).tanh(), id="tanh-bool"),
    pytest.param(lambda m: m.tensor([1.0, 2.0], dtype=m.float64).exp(), id="exp-float64"),
]


@pytest.mark.parametrize("fn", PROMOTION_CASES)
def test_type_promotion_matches_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    assert_same(*run_both(torch, fn), rtol=1e-3)


def test_mean_of_integers_errors(torch: Any) -> None:
    assert_same_error(
        torch,
        lambda m: m.tensor([1, 2]).mean(),
        RuntimeError,
        "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long",
    )


def test_integer_results_never_require_grad() -> None:
    x = ctxgrad.tensor([1.5, -2.0], requires_grad=True)
    for y in (x > 0, x == x, x != 1.0, x.to(ctxgrad.int64), x.long() + 1, x.to(ctxgrad.bool)):
        assert not y.requires_grad
        assert y.is_leaf
        assert y.grad_fn is None


# --------------------------------------------------------------------------- misc


def test_is_tensor_and_numel() -> None:
    x = ctxgrad.zeros(2, 3)
    assert ctxgrad.is_tensor(x)
    assert not ctxgrad.is_tensor(np.zeros(3))
    assert ctxgrad.numel(x) == 6
