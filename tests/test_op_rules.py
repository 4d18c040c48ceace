"""Torch's rules for the built-in ops' inputs: dtypes refused, operands that do not broadcast,
result dtypes and integer wrap-around.  Each case runs on ctxgrad (and, where installed, on
torch) and must raise the same exception type with the same message, or give the same
result; the expected message or result is also written down, so the torch-free run checks it."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

SUB_BOOL = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
    "use the `~` or `logical_not()` operator instead."
)
WHERE_BOOL_SIGNATURES = (
    "where() received an invalid combination of arguments - got (bool, Tensor, Tensor), but expected one of:\n"
    " * (Tensor condition)\n"
    " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
    " * (Tensor condition, Number self, Tensor other)\n"
    "      didn't match because some of the arguments have invalid types: (!bool!, !Tensor!, Tensor)\n"
    " * (Tensor condition, Tensor input, Number other)\n"
    "      didn't match because some of the arguments have invalid types: (!bool!, Tensor, !Tensor!)\n"
    " * (Tensor condition, Number self, Number other)\n"
    "      didn't match because some of the arguments have invalid types: (!bool!, !Tensor!, !Tensor!)\n"
)


def bools(m: Any) -> Any:
    return m.tensor([True, False])


def result(t: Any) -> tuple[str, Any]:
    """A tensor as (dtype name, values), floats rounded so that the torch-free expectation
    can be written down."""
    name = str(t.dtype).split(".")[-1]
    values = t.tolist()
    if name.startswith("float"):
        values = [round(v, 6) for v in values]
    return name, values


#: name -> (program, the exception type and message it raises)
RAISES: dict[str, tuple[Callable[[Any], Any], type[Exception], str]] = {
    # where
    "where shapes (2) (2) (3)": (
        lambda m: m.where(m.tensor([True, False]), m.ones(2), m.ones(3)),
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0",
    ),
    "where shapes (3) (2) (2)": (
        lambda m: m.where(m.tensor([True, False, True]), m.ones(2), m.ones(2)),
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0",
    ),
    "where shapes (2) (3,1) (4,2)": (
        lambda m: m.where(m.tensor([True, False]), m.ones(3, 1), m.ones(4, 2)),
        RuntimeError,
        "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 0",
    ),
    "where shapes (2) (2) (4,3)": (
        lambda m: m.where(m.tensor([True, False]), m.ones(2), m.ones(4, 3)),
        RuntimeError,
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1",
    ),
    "where python bool condition": (
        lambda m: m.where(True, m.ones(2), m.ones(2)),
        TypeError,
        WHERE_BOOL_SIGNATURES,
    ),
    "where float condition": (
        lambda m: m.where(m.ones(2), m.ones(2), m.ones(2)),
        RuntimeError,
        "where expected condition to be a boolean tensor, but got a tensor with dtype Float",
    ),
    "where long condition": (
        lambda m: m.where(m.tensor([1, 0]), 1.0, 2.0),
        RuntimeError,
        "where expected condition to be a boolean tensor, but got a tensor with dtype Long",
    ),
    # integer and bool inputs refused by the kernel
    "frac long": (lambda m: m.frac(m.tensor([1, 2])), NotImplementedError, "\"frac_cpu\" not implemented for 'Long'"),
    "frac bool": (lambda m: m.frac(bools(m)), NotImplementedError, "\"frac_cpu\" not implemented for 'Bool'"),
    "median bool": (lambda m: m.median(bools(m)), NotImplementedError, "\"median_cpu\" not implemented for 'Bool'"),
    "median(dim) bool": (
        lambda m: m.median(bools(m), 0),
        NotImplementedError,
        "\"median_out\" not implemented for 'Bool'",
    ),
    "kthvalue bool": (
        lambda m: m.kthvalue(bools(m), 1),
        NotImplementedError,
        "\"kthvalue_cpu\" not implemented for 'Bool'",
    ),
    "relu bool": (lambda m: m.relu(bools(m)), RuntimeError, "Boolean inputs not supported for relu"),
    "F.relu bool": (lambda m: m.nn.functional.relu(bools(m)), RuntimeError, "Boolean inputs not supported for relu"),
    "relu_ bool": (lambda m: bools(m).relu_(), RuntimeError, "Boolean inputs not supported for relu"),
    "abs bool": (lambda m: m.abs(bools(m)), NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'"),
    "floor bool": (lambda m: m.floor(bools(m)), NotImplementedError, "\"floor_vml_cpu\" not implemented for 'Bool'"),
    "ceil bool": (lambda m: m.ceil(bools(m)), NotImplementedError, "\"ceil_vml_cpu\" not implemented for 'Bool'"),
    "round bool": (lambda m: m.round(bools(m)), NotImplementedError, "\"round_vml_cpu\" not implemented for 'Bool'"),
    "trunc bool": (lambda m: m.trunc(bools(m)), NotImplementedError, "\"trunc_vml_cpu\" not implemented for 'Bool'"),
    # lerp: end (and weight) of start's dtype, checked before the kernel refuses an integer start
    "lerp long start, float end": (
        lambda m: m.lerp(m.tensor([1, 2]), m.tensor([1.0, 2.0]), 0.5),
        RuntimeError,
        "expected dtype long int for `end` but got dtype float",
    ),
    "lerp float start, long end": (
        lambda m: m.lerp(m.tensor([1.0, 2.0]), m.tensor([3, 4]), 0.5),
        RuntimeError,
        "expected dtype float for `end` but got dtype long int",
    ),
    "lerp float start, uint8 end": (
        lambda m: m.lerp(m.tensor([1.0, 2.0]), m.tensor([3, 4], dtype=m.uint8), 0.5),
        RuntimeError,
        "expected dtype float for `end` but got dtype unsigned char",
    ),
    "lerp float weight double": (
        lambda m: m.lerp(m.ones(2), m.ones(2), m.ones(2, dtype=m.float64)),
        RuntimeError,
        "expected dtype float for `weight` but got dtype double",
    ),
    "lerp long start, long end": (
        lambda m: m.lerp(m.tensor([1, 2]), m.tensor([3, 4]), 0.5),
        NotImplementedError,
        "\"lerp_kernel_scalar\" not implemented for 'Long'",
    ),
    # subtraction with a bool operand
    "float - bool": (lambda m: m.ones(2) - bools(m), RuntimeError, SUB_BOOL),
    "bool - float": (lambda m: bools(m) - m.ones(2), RuntimeError, SUB_BOOL),
    "bool - 1": (lambda m: bools(m) - 1, RuntimeError, SUB_BOOL),
    "1.0 - bool": (lambda m: 1.0 - bools(m), RuntimeError, SUB_BOOL),
    "float - True": (lambda m: m.ones(2) - True, RuntimeError, SUB_BOOL),
    "sub(float, bool)": (lambda m: m.sub(m.ones(2), bools(m)), RuntimeError, SUB_BOOL),
    "sub(float, bool, alpha=2)": (lambda m: m.sub(m.ones(2), bools(m), alpha=2), RuntimeError, SUB_BOOL),
    "float.sub_(bool)": (lambda m: m.ones(2).sub_(bools(m)), RuntimeError, SUB_BOOL),
    "float -= bool": (lambda m: m.ones(2).__isub__(bools(m)), RuntimeError, SUB_BOOL),
    "bool - bool": (
        lambda m: bools(m) - bools(m),
        RuntimeError,
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
        "operator instead.",
    ),
    # pow on integers and bools
    "long ** -1": (
        lambda m: m.tensor([2, 3]) ** -1,
        RuntimeError,
        "Integers to negative integer powers are not allowed.",
    ),
    "uint8 ** 300": (
        lambda m: m.tensor([2], dtype=m.uint8) ** 300,
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    "bool ** bool tensor": (
        lambda m: bools(m) ** m.tensor([True, True]),
        NotImplementedError,
        "\"pow\" not implemented for 'Bool'",
    ),
    # ops that fill with a Python int check that it fits (an unsigned dtype takes -max..max)
    "full uint8 300": (
        lambda m: m.full((1,), 300, dtype=m.uint8),
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    "full uint8 -256": (
        lambda m: m.full((1,), -256, dtype=m.uint8),
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    "full int8 128": (
        lambda m: m.full((1,), 128, dtype=m.int8),
        RuntimeError,
        "value cannot be converted to type int8_t without overflow",
    ),
    "full_like uint8 300": (
        lambda m: m.full_like(m.tensor([1], dtype=m.uint8), 300),
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    "int32 fill_ 2**40": (
        lambda m: m.tensor([1], dtype=m.int32).fill_(2**40),
        RuntimeError,
        "value cannot be converted to type int without overflow",
    ),
    "uint8 masked_fill 300": (
        lambda m: m.tensor([1], dtype=m.uint8).masked_fill(m.tensor([True]), 300),
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    "where uint8 or 300": (
        lambda m: m.where(m.tensor([True]), m.tensor([1], dtype=m.uint8), 300),
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    "uint8 clamp max 300": (
        lambda m: m.tensor([1], dtype=m.uint8).clamp(max=300),
        RuntimeError,
        "value cannot be converted to type uint8_t without overflow",
    ),
    "int8 clamp_min -200": (
        lambda m: m.tensor([1], dtype=m.int8).clamp_min(-200),
        RuntimeError,
        "value cannot be converted to type int8_t without overflow",
    ),
    "uint8 ** -1": (
        lambda m: m.tensor([2], dtype=m.uint8) ** -1,
        RuntimeError,
        "Integers to negative integer powers are not allowed.",
    ),
    # a Python int that fits neither int64 nor uint64
    "long + 2**64": (lambda m: m.tensor([1]) + 2**64, OverflowError, "int too big to convert"),
}

#: name -> (program, its result)
RESULTS: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "where uint8 condition": (
        lambda m: result(m.where(m.tensor([1, 0], dtype=m.uint8), m.ones(2), m.zeros(2))),
        ("float32", [1.0, 0.0]),
    ),
    # a Python int outside a narrow integer dtype wraps around, as in torch
    "uint8 + 300": (lambda m: result(m.tensor([1], dtype=m.uint8) + 300), ("uint8", [45])),
    "uint8 + -1": (lambda m: result(m.tensor([1], dtype=m.uint8) + (-1)), ("uint8", [0])),
    "int8 * 1000": (lambda m: result(m.tensor([1], dtype=m.int8) * 1000), ("int8", [-24])),
    "int8 - 1000": (lambda m: result(m.tensor([1], dtype=m.int8) - 1000), ("int8", [25])),
    "int16 + 10**6": (lambda m: result(m.tensor([1], dtype=m.int16) + 10**6), ("int16", [16961])),
    "int32 + 2**40": (lambda m: result(m.tensor([1], dtype=m.int32) + 2**40), ("int32", [1])),
    "long + 2**63": (lambda m: result(m.tensor([1]) + 2**63), ("int64", [-(2**63) + 1])),
    "uint8.add_(300)": (lambda m: result(m.tensor([1], dtype=m.uint8).add_(300)), ("uint8", [45])),
    "uint8 == 300": (lambda m: result(m.tensor([44, 1], dtype=m.uint8) == 300), ("bool", [True, False])),
    "uint8 < 300": (lambda m: result(m.tensor([44, 1], dtype=m.uint8) < 300), ("bool", [False, True])),
    "uint8 // 300": (lambda m: result(m.tensor([44, 1], dtype=m.uint8) // 300), ("uint8", [1, 0])),
    "uint8 % 300": (lambda m: result(m.tensor([44, 1], dtype=m.uint8) % 300), ("uint8", [0, 1])),
    "uint8 / 300 (not wrapped)": (lambda m: result(m.tensor([44], dtype=m.uint8) / 300), ("float32", [0.146667])),
    "full uint8 -1": (lambda m: result(m.full((1,), -1, dtype=m.uint8)), ("uint8", [255])),
    "uint8 fill_ -1": (lambda m: result(m.tensor([1], dtype=m.uint8).fill_(-1)), ("uint8", [255])),
    "uint8 masked_fill -1": (
        lambda m: result(m.tensor([1], dtype=m.uint8).masked_fill(m.tensor([True]), -1)),
        ("uint8", [255]),
    ),
    "where uint8 or -1": (
        lambda m: result(m.where(m.tensor([True, False]), m.tensor([1, 1], dtype=m.uint8), -1)),
        ("uint8", [1, 255]),
    ),
    "where 1 or 2": (lambda m: result(m.where(m.tensor([True, False]), 1, 2)), ("int64", [1, 2])),
    "uint8 clamp(-1, 5)": (lambda m: result(m.tensor([1], dtype=m.uint8).clamp(-1, 5)), ("uint8", [5])),
    # integer powers
    "long ** long with negatives": (
        lambda m: result(m.tensor([2, 3, 1, -1, -1, 0]) ** m.tensor([-1, 2, -5, -1, -2, -1])),
        ("int64", [0, 9, 1, -1, 1, 0]),
    ),
    "long ** 0-d -1": (lambda m: result(m.tensor([2, 3]) ** m.tensor(-1)), ("int64", [0, 0])),
    "2 ** long": (lambda m: result(2 ** m.tensor([-1, 2])), ("int64", [0, 4])),
    "int8 ** int8": (
        lambda m: result(m.tensor([5, -1, 2], dtype=m.int8) ** m.tensor([-1, -3, 3], dtype=m.int8)),
        ("int8", [0, -1, 8]),
    ),
    "long ** float tensor": (lambda m: result(m.tensor([2, 3]) ** m.tensor([-1.0, 2.0])), ("float32", [0.5, 9.0])),
    # result dtypes
    "square bool": (lambda m: result(m.square(bools(m))), ("int64", [1, 0])),
    "pow(bool, True)": (lambda m: result(m.pow(bools(m), True)), ("bool", [True, False])),
    "pow(bool, False)": (lambda m: result(m.pow(bools(m), False)), ("bool", [True, True])),
    "pow(bool, 2)": (lambda m: result(m.pow(bools(m), 2)), ("int64", [1, 0])),
    "complex64 * float64": (
        lambda m: str((m.tensor([1 + 1j]) * m.tensor([2.0], dtype=m.float64)).dtype).split(".")[-1],
        "complex128",
    ),
    "float64 + complex64": (
        lambda m: str((m.tensor([2.0], dtype=m.float64) + m.tensor([1 + 1j])).dtype).split(".")[-1],
        "complex128",
    ),
    "complex64 * 0-d float64": (
        lambda m: str((m.tensor([1 + 1j]) * m.tensor(2.0, dtype=m.float64)).dtype).split(".")[-1],
        "complex64",
    ),
    "0-d complex64 * float64": (
        lambda m: str((m.tensor(1 + 1j) * m.tensor([2.0], dtype=m.float64)).dtype).split(".")[-1],
        "complex128",
    ),
    # median along a dimension of integers
    "median(dim) long": (
        lambda m: [result(v) for v in m.median(m.tensor([[3, 1, 2], [5, 4, 6]]), 1)],
        [("int64", [2, 5]), ("int64", [2, 0])],
    ),
    "median(dim) uint8 even": (
        lambda m: [result(v) for v in m.median(m.tensor([[3, 1, 2, 0]], dtype=m.uint8), 1)],
        [("uint8", [1]), ("int64", [1])],
    ),
    "lerp complex": (lambda m: m.lerp(m.tensor([0j]), m.tensor([2j]), 0.5).tolist(), [1j]),
}


def raised(m: Any, program: Callable[[Any], Any]) -> tuple[type[Exception], str]:
    try:
        program(m)
    except Exception as exc:
        return type(exc), str(exc)
    raise AssertionError("no exception")


@pytest.mark.filterwarnings("ignore:where received a uint8 condition tensor")
@pytest.mark.parametrize("name", RAISES)
def test_raises_as_torch_documents(name: str) -> None:
    program, kind, message = RAISES[name]
    with pytest.raises(kind, match=f"^{re.escape(message)}$"):
        program(ctxgrad)


@pytest.mark.parametrize("name", RAISES)
def test_raises_as_torch(torch: Any, name: str) -> None:
    program = RAISES[name][0]
    assert raised(ctxgrad, program) == raised(torch, program)


@pytest.mark.filterwarnings("ignore:where received a uint8 condition tensor")
@pytest.mark.parametrize("name", RESULTS)
def test_result(name: str) -> None:
    program, expected = RESULTS[name]
    assert program(ctxgrad) == expected


@pytest.mark.filterwarnings("ignore:where received a uint8 condition tensor")
@pytest.mark.parametrize("name", RESULTS)
def test_result_as_torch(torch: Any, name: str) -> None:
    program = RESULTS[name][0]
    assert program(ctxgrad) == program(torch)


def test_where_warns_of_a_uint8_condition_as_torch() -> None:
    with pytest.warns(UserWarning, match="^where received a uint8 condition tensor. This behavior is deprecated"):
        ctxgrad.where(ctxgrad.tensor([1, 0], dtype=ctxgrad.uint8), 1.0, 2.0)
