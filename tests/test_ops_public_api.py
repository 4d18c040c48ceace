"""The built-in ops use only the public op-author API (DESIGN.md: "Built-in ops use only the
public op-author API; a user's Function can be exactly as fast").

The first part reads every module of ``ctxgrad/ops`` with :mod:`ast` and fails on any use of a
private attribute (``x._data``, ``ctx._forward_cls``, ``getattr(t, "_base")``): what an op
needs from a tensor or a ctx must be public, so that a user's Function can do the same.
The second part specifies that public API: ``Tensor.array``, ``ctxgrad.as_tensor`` and
``ctx.forward_cls``, and checks a user's Function written with it against torch.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function

OPS = Path(__file__).resolve().parent.parent / "ctxgrad" / "ops"

# No module of ctxgrad/ops is excused (the in-place machinery that needs the core's private
# attributes lives in the core, ctxgrad/autograd/_views.py).
EXCLUDED: set[str] = set()

# The functions that take an attribute name as a string.
_ATTRIBUTE_FUNCTIONS = {"getattr", "setattr", "hasattr", "delattr"}


def _private(name: str) -> bool:
    """``_name`` is private; ``__name__`` (a dunder) is not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_attribute_uses(source: str, filename: str) -> list[str]:
    """``file:line: expression`` for every use of a private attribute in ``source``: an
    attribute access, read or written, ``expr._name``; any ``ctx._...`` (dunders too: a ctx's
    ``__dict__`` is ctxgrad's business); and ``getattr`` and friends with a constant private
    name."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.Attribute):
            on_ctx = isinstance(node.value, ast.Name) and node.value.id == "ctx"
            if _private(node.attr) or (on_ctx and node.attr.startswith("_")):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _ATTRIBUTE_FUNCTIONS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            found.append((node.lineno, ast.unparse(node)))
    return [f"{filename}:{line}: {expression}" for line, expression in sorted(found)]


def op_modules() -> list[Path]:
    return sorted(p for p in OPS.glob("*.py") if p.name not in EXCLUDED)


# --- the scan --------------------------------------------------------------------------------


def test_the_scan_finds_private_attributes_and_names_file_line_and_expression() -> None:
    source = """\
import numpy as np
def forward(ctx, x, y):
    a = x._data
    ctx._forward_cls.reduce
    t.array = a
    y._data = np.sqrt(a)
    n = type(x).__name__
    d = ctx.__dict__
    b = getattr(x, "_base", None)
    c = getattr(ctx, "scalars", None)
    return x.array, ctx.forward_cls, np.float64
"""
    assert private_attribute_uses(source, "ops/f.py") == [
        "ops/f.py:3: x._data",
        "ops/f.py:4: ctx._forward_cls",
        "ops/f.py:6: y._data",
        "ops/f.py:8: ctx.__dict__",
        "ops/f.py:9: getattr(x, '_base', None)",
    ]


def test_every_ops_module_is_scanned() -> None:
    names = {p.name for p in op_modules()}
    assert {"arithmetic.py", "pointwise.py", "reduction.py", "shape.py", "_util.py", "table.py"} <= names
    assert EXCLUDED.isdisjoint(names)
    for excluded in EXCLUDED:  # an exclusion left behind after its file is gone is stale
        assert (OPS / excluded).exists(), f"{excluded} is gone: remove it from EXCLUDED"


def test_ops_use_no_private_attribute_of_a_tensor_or_a_ctx() -> None:
    found = []
    for path in op_modules():
        found += private_attribute_uses(path.read_text(encoding="utf-8"), f"ctxgrad/ops/{path.name}")
    assert not found, (
        "ctxgrad/ops uses private attributes; use the public API (x.array, ctxgrad.as_tensor, "
        "ctx.forward_cls, x.grad_fn, x.requires_grad, ...) or make what the op needs public:\n" + "\n".join(found)
    )


# --- private imports and private class attributes ---------------------------------------------
# What a built-in op takes from the autograd mechanism is public, so that a user's Function
# can take the same: Function and its class attributes (``node_name``, ``vmap``, ...),
# ``ctxgrad.autograd.batching`` (the generic batching rules and their helpers),
# ``ctxgrad.autograd.inplace`` (an op's in-place twin: ``in_place``, ``write_in_place``),
# the errors and the grad modes.  ``ctxgrad.ops`` may import its own helper modules
# (``ctxgrad.ops._util``), as a user's package imports its own.

#: The private names of the tensor library below autograd that ops still import, each with
#: why (the test fails when an entry is no longer used: remove it then).
TENSOR_LIBRARY_INTERNALS = {
    ("ctxgrad._tensor", "_wrap_dim"): "torch's dimension wrapping and its IndexError, shared with Tensor",
    ("ctxgrad._state", "_state"): "the thread's grad-mode and vmap state, read on the hot path",
    ("ctxgrad", "_dtypes"): "the dtype table (names, promotion), which Tensor uses too",
    (
        "ctxgrad",
        "_memory_format",
    ): "the memory formats and their layouts, which the *_like factories and Tensor use too",
}


def private_imports(source: str, filename: str) -> list[str]:
    """``file:line: import`` for every import of a private module of ``ctxgrad.autograd``
    and every private name imported from outside ``ctxgrad.ops`` (listed internals aside)."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ctxgrad"):
            modules = [node.module]
            names = [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names if alias.name.startswith("ctxgrad")]
            names = []
        else:
            continue
        for module in modules:
            if module.startswith("ctxgrad.autograd.") and any(p.startswith("_") for p in module.split(".")[2:]):
                found.append((node.lineno, ast.unparse(node)))
        for module, name in names:
            if module.startswith("ctxgrad.ops") or (module, name) in TENSOR_LIBRARY_INTERNALS:
                continue
            if name.startswith("_"):
                found.append((node.lineno, f"from {module} import {name}"))
    return [f"{filename}:{line}: {text}" for line, text in sorted(set(found))]


def private_class_attributes(source: str, filename: str) -> list[str]:
    """``file:line: Class.name`` for every private name a class body defines (``_name = ...``,
    ``def _name``): a Function declares itself only through documented attributes."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        if not isinstance(node, ast.ClassDef):
            continue
        for statement in node.body:
            targets: list[str] = []
            if isinstance(statement, ast.Assign):
                targets = [t.id for t in statement.targets if isinstance(t, ast.Name)]
            elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
                targets = [statement.target.id]
            elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                targets = [statement.name]
            found += [(statement.lineno, f"{node.name}.{t}") for t in targets if _private(t)]
    return [f"{filename}:{line}: {text}" for line, text in sorted(found)]


def test_the_import_scan_finds_private_modules_and_names() -> None:
    source = """\
from ctxgrad.autograd._views import write_in_place
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.autograd.batching import elementwise_rule
import ctxgrad.autograd._batched
from ctxgrad._dtypes import _BY_NUMPY, short_name
from ctxgrad._tensor import Tensor, _wrap_dim
from ctxgrad.ops._util import _private_helper
"""
    assert private_imports(source, "ops/f.py") == [
        "ops/f.py:1: from ctxgrad.autograd._views import write_in_place",
        "ops/f.py:4: import ctxgrad.autograd._batched",
        "ops/f.py:5: from ctxgrad._dtypes import _BY_NUMPY",
    ]


def test_the_class_scan_finds_private_class_attributes() -> None:
    source = """\
class Op(Function):
    node_name = "OpBackward0"
    _secret = True
    __doc__ = "fine"
    _typed: int = 1

    def _helper(self): ...
    def forward(ctx, x): ...
"""
    assert private_class_attributes(source, "ops/f.py") == [
        "ops/f.py:3: Op._secret",
        "ops/f.py:5: Op._typed",
        "ops/f.py:7: Op._helper",
    ]


def test_ops_import_only_the_public_op_author_api() -> None:
    found = []
    for path in op_modules():
        found += private_imports(path.read_text(encoding="utf-8"), f"ctxgrad/ops/{path.name}")
    assert found == []


def test_every_listed_tensor_library_internal_is_still_imported() -> None:
    sources = "\n".join(path.read_text(encoding="utf-8") for path in op_modules())
    for module, name in TENSOR_LIBRARY_INTERNALS:
        assert re.search(rf"from {re.escape(module)} import[^\n]*\b{name}\b|^    {name},$", sources, re.M), name


def test_ops_functions_declare_no_private_class_attribute() -> None:
    found = []
    for path in op_modules():
        found += private_class_attributes(path.read_text(encoding="utf-8"), f"ctxgrad/ops/{path.name}")
    assert found == []


# --- Tensor.array ----------------------------------------------------------------------------


def test_array_is_the_tensors_own_array() -> None:
    a = np.arange(3.0)
    t = ctxgrad.from_numpy(a)
    assert t.array is a
    t.array[0] = 5.0
    assert t.tolist() == [5.0, 1.0, 2.0]
    view = t[1:]
    assert np.shares_memory(view.array, a) and view.array.tolist() == [1.0, 2.0]
    assert t.detach().array is a


def test_array_does_not_refuse_a_tensor_that_requires_grad() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    assert x.array.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        x.numpy()


def test_array_is_read_only_as_an_attribute() -> None:
    t = ctxgrad.tensor([1.0, 2.0])
    a = t.array
    with pytest.raises(AttributeError):
        t.array = np.zeros(2, dtype=np.float32)
    with pytest.raises(AttributeError):
        del t.array
    assert t.array is a
    assert "as_tensor" in (ctxgrad.Tensor.array.__doc__ or "")


def test_a_numpy_write_into_a_saved_array_is_refused() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 1).exp()  # exp saves its output for backward
    with pytest.raises(ValueError, match="read-only"):
        y.array[0] = 3.0


# --- as_tensor -------------------------------------------------------------------------------


def test_as_tensor_is_one_function_from_the_core_to_the_facade() -> None:
    from ctxgrad import _factories, _tensor
    from ctxgrad.ops import _util

    assert ctxgrad.as_tensor is _factories.as_tensor is _tensor.as_tensor is _util.as_tensor


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, np.int64, np.int32, np.uint8, np.bool_])
def test_as_tensor_shares_an_ndarrays_memory(dtype: Any) -> None:
    a = np.zeros((2, 3), dtype=dtype)
    t = ctxgrad.as_tensor(a)
    assert t.array is a and t.dtype == a.dtype and t.is_leaf and not t.requires_grad
    a[0, 0] = 1
    assert t.tolist()[0][0] == 1


@pytest.mark.parametrize("scalar", [np.float64(1.5), np.float32(1.5), np.int32(3), np.bool_(True), np.complex128(1j)])
def test_as_tensor_of_a_numpy_scalar_is_a_0d_tensor_of_its_dtype(scalar: Any) -> None:
    t = ctxgrad.as_tensor(scalar)
    assert t.shape == () and t.dtype == scalar.dtype and t.item() == scalar.item()


def test_as_tensor_of_a_ufuncs_0d_result() -> None:
    x = ctxgrad.tensor(2.0, dtype=ctxgrad.float64)
    y = np.exp(x.array)  # a NumPy scalar, not an array
    assert type(y) is np.float64
    t = ctxgrad.as_tensor(y)
    assert t.dtype == ctxgrad.float64 and t.shape == () and t.item() == np.exp(2.0)


def test_as_tensor_in_inference_mode_makes_an_inference_tensor() -> None:
    with ctxgrad.inference_mode():
        assert ctxgrad.as_tensor(np.ones(2)).is_inference()
        assert ctxgrad.as_tensor(np.float64(1.0)).is_inference()
    assert not ctxgrad.as_tensor(np.ones(2)).is_inference()


UNSUPPORTED = [
    pytest.param(lambda: np.array(["a", "b"]), id="str"),
    pytest.param(lambda: np.array([object()]), id="object"),
    pytest.param(lambda: np.array([1.0], dtype=np.longdouble), id="longdouble"),
    pytest.param(lambda: np.array(["2020-01-01"], dtype="datetime64[D]"), id="datetime64"),
    pytest.param(lambda: np.array([1.0], dtype=np.dtype(np.float64).newbyteorder()), id="other-byte-order"),
]


@pytest.mark.parametrize("make", UNSUPPORTED)
@pytest.mark.parametrize("factory", ["as_tensor", "from_numpy"])
def test_an_unsupported_dtype_is_refused_as_torch_refuses_it(torch: Any, factory: str, make: Any) -> None:
    if make().dtype == np.longdouble and np.dtype(np.longdouble) == np.dtype(np.float64):
        pytest.skip("longdouble is float64 on this platform")
    errors = []
    for m in (ctxgrad, torch):
        with pytest.raises((TypeError, ValueError)) as info:
            getattr(m, factory)(make())
        errors.append((type(info.value), str(info.value)))
    (ours, our_message), (theirs, their_message) = errors
    assert ours is theirs
    # torch's words, then (for text and objects) where text goes in ctxgrad
    hint = " (a tensor holds numbers; for text, use ctxgrad.compat.afnio.Variable)"
    assert our_message in (their_message, their_message + hint)
    assert (our_message == their_message + hint) == (make().dtype.kind in "OUS")


def test_an_unsupported_dtype_names_the_type() -> None:
    with pytest.raises(TypeError, match=r"can't convert np.ndarray of type numpy.str_\. The only supported types"):
        ctxgrad.as_tensor(np.array(["a"]))


def test_as_tensor_keeps_its_general_path() -> None:
    t = ctxgrad.tensor([1.0, 2.0])
    assert ctxgrad.as_tensor(t) is t
    assert ctxgrad.as_tensor(t, dtype=ctxgrad.float64).dtype == ctxgrad.float64
    a = np.array([1.0, 2.0])
    converted = ctxgrad.as_tensor(a, dtype=ctxgrad.float32)
    assert converted.dtype == ctxgrad.float32 and not np.shares_memory(converted.array, a)
    assert ctxgrad.as_tensor(a, device="cpu").array is a
    assert ctxgrad.as_tensor([1, 2]).dtype == ctxgrad.int64
    assert ctxgrad.as_tensor(1.5).dtype == ctxgrad.float32
    with pytest.raises(AssertionError, match="CPU only"):
        ctxgrad.as_tensor(a, device="cuda")


# --- ctx.forward_cls -------------------------------------------------------------------------


def test_forward_cls_is_the_function_in_forward_and_backward() -> None:
    seen: list[Any] = []

    class F(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            seen.append(ctx.forward_cls)
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            seen.append(ctx.forward_cls)
            return grad * 2

    class G(F):
        pass

    x = ctxgrad.tensor([1.0], requires_grad=True)
    F.apply(x).sum().backward()
    G.apply(x).sum().backward()
    assert seen == [F, F, G, G]
    assert type(F.apply(x).grad_fn).forward_cls is F


def test_forward_cls_in_setup_context_style() -> None:
    seen: list[Any] = []

    class F(Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return x * 2

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            seen.append(ctx.forward_cls)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            seen.append(ctx.forward_cls)
            return grad * 2

    F.apply(ctxgrad.tensor([1.0], requires_grad=True)).sum().backward()
    assert seen == [F, F]


def test_a_ctx_attribute_named_forward_cls_only_hides_it() -> None:
    class F(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.forward_cls = "mine"
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            assert ctx.forward_cls == "mine"
            return grad * 2

    x = ctxgrad.tensor([1.0], requires_grad=True)
    y = F.apply(x)
    y.sum().backward()
    assert x.grad is not None and x.grad.tolist() == [2.0]
    assert type(y.grad_fn).forward_cls is F


# --- a user's Function written like a built-in op, against torch ----------------------------


def softplus_function(m: Any, array_of: Any, from_array: Any) -> Any:
    """``log(1 + e^x)`` with NumPy doing the work in forward and backward, written once for
    both libraries: ``array_of`` and ``from_array`` are the library's way between tensors and
    arrays (ctxgrad: ``x.array`` and ``as_tensor``; torch: ``x.detach().numpy()`` and
    ``from_numpy``)."""

    class Softplus(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, beta: float) -> Any:
            ctx.save_for_backward(x)
            ctx.beta = beta
            return from_array(np.logaddexp(0.0, beta * array_of(x)) / beta)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            sigmoid = from_array(1.0 / (1.0 + np.exp(-ctx.beta * array_of(x))))
            return grad * sigmoid, None

    return Softplus


def _ctxgrad_from_array(a: Any) -> Any:
    return ctxgrad.as_tensor(a)


def _torch_from_array(torch: Any) -> Any:
    return lambda a: torch.from_numpy(np.asarray(a))


@pytest.mark.parametrize("shape", [(), (5,), (2, 3)])
def test_a_function_on_array_and_as_tensor_matches_torch(torch: Any, shape: tuple[int, ...]) -> None:
    values = np.random.default_rng(0).standard_normal(shape) * 3
    ours = softplus_function(ctxgrad, lambda t: t.array, _ctxgrad_from_array)
    theirs = softplus_function(torch, lambda t: t.detach().numpy(), _torch_from_array(torch))
    results = []
    for m, fn in ((ctxgrad, ours), (torch, theirs)):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        y = fn.apply(x, 2.0)
        (y * y).sum().backward()
        results.append((np.asarray(y.detach().numpy()), np.asarray(x.grad.numpy()), str(y.dtype)))
    (y_ours, g_ours, dt_ours), (y_theirs, g_theirs, dt_theirs) = results
    np.testing.assert_allclose(y_ours, y_theirs, rtol=1e-14, atol=0)
    np.testing.assert_allclose(g_ours, g_theirs, rtol=1e-14, atol=0)
    assert dt_ours.removeprefix("ctxgrad.") == dt_theirs.removeprefix("torch.") == "float64"
    assert y_ours.shape == y_theirs.shape == shape


def test_a_function_on_array_and_as_tensor_passes_gradcheck() -> None:
    fn = softplus_function(ctxgrad, lambda t: t.array, _ctxgrad_from_array)
    x = ctxgrad.tensor([-2.0, 0.5, 3.0], dtype=ctxgrad.float64, requires_grad=True)
    assert ctxgrad.autograd.gradcheck(lambda t: fn.apply(t, 1.5), (x,))
