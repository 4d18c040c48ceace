"""The op table (ctxgrad/ops/table.py): each op declared once, its surfaces made from its row.

Every row's surfaces exist under the right names and are the row's frontend (one object per
op), the generated declarations (python -m ctxgrad._gen_methods) are up to date, and a user
running ``mypy --strict`` sees the attached methods with their types.
"""

from __future__ import annotations

import re
from inspect import signature
from pathlib import Path

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
        assert Tensor.__dict__[op.inplace.__name__] is op.inplace
        for dunder in op.inplace_dunders:
            assert dunder.startswith("__i")
            assert Tensor.__dict__[dunder] is op.inplace


@pytest.mark.parametrize("op", OPS, ids=ids)
def test_the_function_is_the_frontend(op: Op) -> None:
    # (or, for the ops of OUT_VARIANTS, the frontend with out= added by the surface)
    if op.function:
        function = getattr(ctxgrad, op.name)
        assert getattr(function, "__wrapped__", function) is op.frontend
        assert (function is op.frontend) == (op.name not in OUT_VARIANTS or "out" in signature(op.frontend).parameters)
        assert op.name in ctxgrad.__all__
        for alias in op.aliases:
            assert getattr(ctxgrad, alias) is function
    if op.nn_functional:
        assert getattr(F, op.name) is op.frontend
        assert op.name in F.__all__


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
            assert fn.__code__.co_varnames[0] == first
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
    body = source[source.index("\nclass Tensor:") + 1 :]
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


# The arguments after the tensor for rows whose frontend does not take (tensor, number).
_NODE_NAME_ARGS: dict[str, tuple[int, ...]] = {
    "t": (),
    "transpose": (0, -1),
    "swapaxes": (0, -1),
    "swapdims": (0, -1),
    "squeeze": (0,),
    "split": (1,),
    "chunk": (2,),
    "median": (0,),
    "sgn": (),
}


@pytest.mark.parametrize("op", [op for op in OPS if op.node_name], ids=ids)
def test_a_row_s_node_name_is_what_the_scalar_overload_records(op: Op) -> None:
    out = op.frontend(ctxgrad.tensor([5.0, 7.0], requires_grad=True), *_NODE_NAME_ARGS.get(op.name, (3,)))
    if isinstance(out, tuple):  # split, chunk: every piece is an output of the one node
        out = out[0]
    assert out.grad_fn.name() == type(out.grad_fn).__name__ == op.node_name
