"""The op table (ctxgrad/ops/table.py): each op declared once, its surfaces made from its row.

Every row's surfaces exist under the right names and are the row's frontend (one object per
op), the generated declarations (python -m ctxgrad._gen_methods) are up to date, and a user
running ``mypy --strict`` sees the attached methods with their types.
"""

from __future__ import annotations

import inspect
import re
from inspect import signature
from pathlib import Path
from typing import Any

import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import Tensor
from ctxgrad._gen_methods import BEGIN, END, generated_files
from ctxgrad._surface import METHODS, functions, methods
from ctxgrad.ops.table import OPS, OUT_VARIANTS, Op

ROOT = Path(__file__).resolve().parent.parent


def ids(op: Op) -> str:
    return op.name


def test_names_are_unique() -> None:
    names = [name for op in OPS for name, _ in methods(op)]
    assert len(names) == len(set(names))
    functions_ = [name for op in OPS for name, _ in functions(op)]
    assert len(functions_) == len(set(functions_))


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_the_method_is_the_frontend(op: Op) -> None:
    method = op.method_frontend or op.frontend
    if op.property:
        assert Tensor.__dict__[op.name].fget is method
    elif op.method:
        assert Tensor.__dict__[op.name] is method
        for alias in op.aliases:
            assert Tensor.__dict__[alias] is method
    else:
        assert op.name not in Tensor.__dict__
    for dunder in op.dunders:
        assert Tensor.__dict__[dunder] is method
    if op.inplace is not None:
        assert op.inplace.__name__ == op.name + "_"
        if op.method:
            assert Tensor.__dict__[op.inplace.__name__] is op.inplace
        else:  # (an op of nn.functional only: F.elu_, no Tensor.elu_, as in torch)
            assert op.inplace.__name__ not in Tensor.__dict__
        for dunder in op.inplace_dunders:
            assert dunder.startswith("__i")
            assert Tensor.__dict__[dunder] is op.inplace


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_the_function_is_the_frontend(op: Op) -> None:
    # (or, for the ops of OUT_VARIANTS, the frontend with out= added by the surface)
    if op.function:
        function = getattr(ctxgrad, op.name)
        assert function is op.frontend or function.__wrapped__ is op.frontend
        assert (function is op.frontend) == (op.name not in OUT_VARIANTS or "out" in signature(op.frontend).parameters)
        assert op.name in ctxgrad.__all__
        for alias in op.aliases:
            assert getattr(ctxgrad, alias) is function
    if op.nn_functional:
        assert getattr(F, op.name) is op.nn_frontend
        assert op.name in F.__all__
        if op.inplace_keyword:  # torch's inplace=False, running the in-place variant
            assert list(signature(op.nn_frontend).parameters)[-1] == "inplace"
        if op.nn_inplace:
            assert getattr(F, f"{op.name}_") is op.inplace


# torch's functions whose first parameter is not ``input`` (their rows have a method_frontend,
# which takes ``input`` first).
_FUNCTION_FIRST_PARAMETER = {"split": "tensor", "polygamma": "n"}


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_a_frontend_takes_input_first_and_says_what_it_does(op: Op) -> None:
    for fn in (op.frontend, op.method_frontend):
        if fn is None:
            continue
        assert fn.__doc__, f"{fn.__qualname__} has no docstring"
        if op.method:
            first = "input"
            if fn is op.frontend and op.method_frontend is not None:
                first = _FUNCTION_FIRST_PARAMETER.get(op.name, "input")
            assert inspect.unwrap(fn).__code__.co_varnames[0] == first  # (unwrapped: see ctxgrad._replayed)
        assert fn.__module__.startswith("ctxgrad.ops."), "a frontend lives with its op, in ctxgrad/ops"


def test_the_in_place_variant_writes_into_the_tensor() -> None:
    x = ctxgrad.tensor([0.0, 1.0])
    out = x.exp_()
    assert out is x
    assert x.tolist() == pytest.approx([1.0, 2.718281828])


def test_the_generated_files_are_up_to_date() -> None:
    for path, text in generated_files().items():
        assert path.read_text() == text, f"{path} is stale: run python -m ctxgrad._gen_methods"


def test_every_generated_method_has_a_row() -> None:
    source = (ROOT / "ctxgrad" / "_tensor.py").read_text()
    block = source[source.index(BEGIN) : source.index(END)]
    declared = re.findall(r"(?<!@overload)\n        def (\w+)\(", block)  # (an overloaded one once)
    assert declared == list(METHODS) + [name for op in OPS for name, _ in methods(op)]
    properties = re.findall(r"^        @property\n        def (\w+)\(", block, re.M)
    assert properties == [op.name for op in OPS if op.property]


def test_no_hand_written_method_shadows_a_row() -> None:
    source = (ROOT / "ctxgrad" / "_tensor.py").read_text()
    body = source[source.index("\nclass Tensor(TensorBase):") + 1 :]
    end = re.compile(r"^\S", re.M).search(body, 1)
    body = body[: end.start() if end else None]
    outside = body[: body.index(BEGIN)] + body[body.index(END) :]
    hand_written = set(re.findall(r"^    def (\w+)\(", outside, re.M))
    assert not hand_written & {name for op in OPS for name, _ in methods(op)}


def test_a_user_running_mypy_strict_sees_the_methods_typed() -> None:
    api = pytest.importorskip("mypy.api")
    usage = Path(__file__).with_name("typing_usage.py")
    stdout, _, status = api.run(["--strict", "--no-incremental", "--cache-dir=/dev/null", str(usage)])
    errors = [line for line in stdout.splitlines() if ": error:" in line]
    assert status == 1
    assert len(errors) == 1, stdout
    assert 'Incompatible types in assignment (expression has type "Tensor", variable has type "int")' in errors[0]
    assert f"typing_usage.py:{len(usage.read_text().splitlines())}: error:" in errors[0]


def test_the_contributing_example_runs() -> None:
    text = (ROOT / "CONTRIBUTING.md").read_text()
    [code] = re.findall(r"```python\n(.*?)```", text, re.S)
    exec(compile(code, "CONTRIBUTING.md", "exec"), {"__name__": "contributing_example"})
    assert not hasattr(Tensor, "cube")


# The overloads torch names apart: each is a subclass of the op's Function that declares its
# own ``node_name`` (the one way to name a node): (op, the arguments after the tensor, its node).
_OVERLOAD_NODES: list[tuple[str, tuple[Any, ...], str]] = [
    ("remainder", (3,), "RemainderBackward0"),
    ("fmod", (3,), "FmodBackward0"),
    ("t", (), "TBackward0"),
    ("transpose", (0, -1), "TransposeBackward0"),
    ("swapaxes", (0, -1), "TransposeBackward0"),
    ("swapdims", (0, -1), "TransposeBackward0"),
    ("squeeze", (0,), "SqueezeBackward1"),
    ("split", (1,), "SplitBackward0"),
    ("chunk", (2,), "SplitBackward0"),
    ("median", (0,), "MedianBackward1"),
    ("sgn", (), "SgnBackward0"),
]


@pytest.mark.parametrize(("name", "args", "node"), _OVERLOAD_NODES, ids=[c[0] for c in _OVERLOAD_NODES])
def test_an_overload_torch_names_apart_records_torchs_node(
    torch: Any, name: str, args: tuple[Any, ...], node: str
) -> None:
    values = [[5.0, 7.0], [1.0, 2.0]]
    out = getattr(ctxgrad, name)(ctxgrad.tensor(values, requires_grad=True), *args)
    theirs = getattr(torch, name)(torch.tensor(values, requires_grad=True), *args)
    if isinstance(out, tuple):  # split, chunk, median: every piece is an output of the one node
        out, theirs = out[0], theirs[0]
    assert out.grad_fn.name() == type(out.grad_fn).__name__ == theirs.grad_fn.name() == node
    assert type(out.grad_fn).forward_cls.node_name == node


def test_node_name_is_a_declared_class_attribute_not_inherited() -> None:
    class Base(ctxgrad.autograd.Function):
        node_name = "MyOpBackward0"

        @staticmethod
        def forward(ctx: Any, x: Tensor) -> Tensor:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Tensor) -> Tensor:
            return grad * 2

    class Plain(Base):
        pass

    x = ctxgrad.ones(2, requires_grad=True)
    assert type(Base.apply(x).grad_fn).__name__ == Base.node_name == "MyOpBackward0"
    assert Base.apply(x).grad_fn.name() == "MyOpBackward0"
    assert type(Plain.apply(x).grad_fn).__name__ == Plain.node_name == "PlainBackward"
