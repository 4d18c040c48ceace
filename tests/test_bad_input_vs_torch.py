"""Bad input refused as torch 2.13 refuses it: each case runs the same code on ctxgrad and on
torch, and both must raise the same exception type with a message holding the same key
words (the function, the argument, what was expected and what came)."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import raised

import ctxgrad

torch = pytest.importorskip("torch")

Call = Callable[[Any], Any]


def assert_refused_as_torch(call: Call, *words: str) -> None:
    """``call(lib)`` raises the same exception type for torch and ctxgrad, and both messages
    hold every one of ``words``."""
    theirs = raised(lambda: call(torch), torch)
    ours = raised(lambda: call(ctxgrad), ctxgrad)
    assert ours[0] == theirs[0].lstrip("_"), (ours, theirs)  # (torch's LinAlgError is _LinAlgError)
    for word in words:
        assert word in theirs[1], (word, theirs)
        assert word in ours[1], (word, ours)


# --------------------------------------------------------------------------- the constructor
CONSTRUCTOR: list[tuple[str, Call, tuple[str, ...]]] = [
    ("int past uint64", lambda m: m.tensor(2**64), ("Overflow when unpacking long long",)),
    ("int past int64", lambda m: m.tensor(2**63), ("Overflow when unpacking long long",)),
    ("int below int64", lambda m: m.tensor([-(2**63) - 1]), ("Overflow when unpacking long long",)),
    ("list with 2**63", lambda m: m.tensor([1, 2**63]), ("Overflow when unpacking long long",)),
    ("nested big int", lambda m: m.tensor([[1], [2**64]]), ("Overflow when unpacking long long",)),
    ("big int as int64", lambda m: m.tensor([2**64], dtype=m.int64), ("Overflow when unpacking long long",)),
    ("nan as int64", lambda m: m.tensor(float("nan"), dtype=m.int64), ("value cannot be converted", "int64")),
    ("inf as int64", lambda m: m.tensor([1.0, float("inf")], dtype=m.int64), ("cannot be converted", "int64")),
    ("nan as uint8", lambda m: m.tensor([float("nan")], dtype=m.uint8), ("cannot be converted to type uint8",)),
    ("300 as uint8", lambda m: m.tensor([300], dtype=m.uint8), ("cannot be converted to type uint8",)),
    ("-300 as uint8", lambda m: m.tensor([-300], dtype=m.uint8), ("cannot be converted to type uint8",)),
    ("256.0 as uint8", lambda m: m.tensor([256.0], dtype=m.uint8), ("cannot be converted to type uint8",)),
    ("nan as_tensor", lambda m: m.as_tensor([float("nan")], dtype=m.int32), ("cannot be converted", "int32")),
    ("as_tensor big", lambda m: m.as_tensor([2**64]), ("Overflow when unpacking long long",)),
    ("datetime64", lambda m: m.tensor(np.array(["2020-01-01"], dtype="datetime64[D]")), ("numpy.datetime64",)),
    ("datetime64 scalar", lambda m: m.tensor(np.datetime64("2020-01-01")), ("numpy.datetime64", "supported")),
    ("timedelta64", lambda m: m.tensor(np.array([1], dtype="timedelta64[s]")), ("numpy.timedelta64",)),
    ("longdouble", lambda m: m.tensor(np.array([1.0], dtype=np.longdouble)), ("numpy.longdouble", "supported")),
    ("longdouble scalar", lambda m: m.tensor(np.longdouble(1)), ("numpy.longdouble",)),
    ("longdouble in list", lambda m: m.tensor([np.longdouble(1)]), ("numpy.longdouble",)),
    ("clongdouble", lambda m: m.tensor(np.array([1j], dtype=np.clongdouble)), ("numpy.clongdouble",)),
    ("byte order", lambda m: m.tensor(np.array([1], dtype=">i4")), ("byte order",)),
    ("numpy nan as int64", lambda m: m.tensor(np.float64("nan"), dtype=m.int64), ("cannot be converted", "int64")),
    ("numpy 300 as uint8", lambda m: m.tensor(np.int64(300), dtype=m.uint8), ("cannot be converted", "uint8")),
    ("numpy 2**63 as int64", lambda m: m.tensor(np.uint64(2**63), dtype=m.int64), ("Overflow when unpacking",)),
]


@pytest.mark.parametrize(("call", "words"), [c[1:] for c in CONSTRUCTOR], ids=[c[0] for c in CONSTRUCTOR])
def test_constructor_refuses_as_torch(call: Call, words: tuple[str, ...]) -> None:
    assert_refused_as_torch(call, *words)


CONVERTED: list[tuple[str, Call]] = [
    ("big int with a float", lambda m: m.tensor([1.0, 2**70])),
    ("float then big int", lambda m: m.tensor([2**70, 1.5])),
    ("big int as float32", lambda m: m.tensor([2**64], dtype=m.float32)),
    ("-1 as uint8 wraps", lambda m: m.tensor([-1, -255], dtype=m.uint8)),
    ("1.7 as int64 truncates", lambda m: m.tensor([1.7, -1.7], dtype=m.int64)),
    ("int64 bounds", lambda m: m.tensor([2**63 - 1, -(2**63)])),
    ("nan as bool", lambda m: m.tensor([float("nan"), 0.0], dtype=m.bool)),
    ("numpy -1 as uint8", lambda m: m.tensor(np.int64(-1), dtype=m.uint8)),
    ("numpy 2.7 as int32", lambda m: m.tensor(np.float64(2.7), dtype=m.int32)),
    ("numpy array nan as int64", lambda m: m.tensor(np.array([1.0, np.nan]), dtype=m.int64)),
]


@pytest.mark.parametrize("call", [c[1] for c in CONVERTED], ids=[c[0] for c in CONVERTED])
def test_constructor_converts_as_torch(call: Call) -> None:
    ours, theirs = call(ctxgrad), call(torch)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert ours.tolist() == theirs.tolist()


# --------------------------------------------------------------------------- the factories
FACTORIES: list[tuple[str, Call, tuple[str, ...]]] = [
    ("zeros float", lambda m: m.zeros(2.5), ("zeros()", "'size'", "tuple of ints", "float")),
    ("ones bool", lambda m: m.ones(True), ("ones()", "'size'", "tuple of ints", "bool")),
    ("empty None", lambda m: m.empty(None), ("empty()", "'size'", "tuple of ints", "NoneType")),
    ("zeros str element", lambda m: m.zeros(("a",)), ("zeros()", "'size'", "tuple of ints", "str")),
    ("zeros float element", lambda m: m.zeros((2, 2.0)), ("zeros()", "'size'", "tuple of ints", "float")),
    ("rand float element", lambda m: m.rand(2, 3.0), ("rand()", "'size'", "tuple of ints", "float")),
    ("full str", lambda m: m.full((2,), "a"), ("full()", "'fill_value'", "must be Number", "str")),
    ("full None", lambda m: m.full((2,), None), ("full()", "'fill_value'", "must be Number", "NoneType")),
    ("full 1-d tensor", lambda m: m.full((2,), m.tensor([4])), ("full()", "'fill_value'", "Number, not Tensor")),
    ("full_like str", lambda m: m.full_like(m.zeros(1), "a"), ("full_like()", "'fill_value'", "Number, not str")),
    ("new_full str", lambda m: m.zeros(1).new_full((1,), "a"), ("new_full()", "'fill_value'", "Number, not str")),
    ("full nan int", lambda m: m.full((1,), float("nan"), dtype=m.int64), ("cannot be converted", "int64_t")),
    ("full -1.0 uint8", lambda m: m.full((1,), -1.0, dtype=m.uint8), ("cannot be converted", "uint8_t")),
    ("fill_ inf int32", lambda m: m.zeros(2, dtype=m.int32).fill_(float("inf")), ("cannot be converted", "int")),
    ("masked_fill 1e10", lambda m: m.zeros(2, dtype=m.int32).masked_fill(m.tensor([True, False]), 1e10), ("int",)),
    ("index_fill nan", lambda m: m.zeros(2, dtype=m.int32).index_fill(0, m.tensor([0]), float("nan")), ("int",)),
    ("rand int64", lambda m: m.rand(2, dtype=m.int64), ('"check_uniform_bounds" not implemented for', "'Long'")),
    ("rand bool", lambda m: m.rand(2, dtype=m.bool), ('"check_uniform_bounds" not implemented for', "'Bool'")),
    ("randn int64", lambda m: m.randn(2, dtype=m.int64), ('"normal_kernel_cpu" not implemented for', "'Long'")),
    ("arange to nan", lambda m: m.arange(0, float("nan")), ("unsupported range: 0 -> nan",)),
    ("arange from -inf", lambda m: m.arange(float("-inf"), 0), ("unsupported range: -inf -> 0",)),
    ("arange to inf", lambda m: m.arange(0.5, float("inf")), ("unsupported range: 0.5 -> inf",)),
    ("sum str", lambda m: m.sum("a"), ("sum()", "argument 'input'", "must be Tensor, not str")),
    ("sum list", lambda m: m.sum([1, 2]), ("sum()", "argument 'input'", "must be Tensor, not list")),
    ("mean str", lambda m: m.mean("a"), ("mean()", "argument 'input'", "must be Tensor, not str")),
]


@pytest.mark.parametrize(("call", "words"), [c[1:] for c in FACTORIES], ids=[c[0] for c in FACTORIES])
def test_factories_refuse_as_torch(call: Call, words: tuple[str, ...]) -> None:
    assert_refused_as_torch(call, *words)


SHAPES: list[tuple[str, Call]] = [
    ("numpy int", lambda m: m.zeros(np.int64(2))),
    ("0-d int tensor", lambda m: m.ones(m.tensor(2))),
    ("bool in a tuple", lambda m: m.zeros((2, True))),
    ("empty tuple", lambda m: m.zeros(())),
    ("full 0-d int tensor", lambda m: m.full((2,), m.tensor(3))),
    ("full 0-d float tensor", lambda m: m.full((2,), m.tensor(2.5))),
]


@pytest.mark.parametrize("call", [c[1] for c in SHAPES], ids=[c[0] for c in SHAPES])
def test_factories_take_the_sizes_and_values_torch_takes(call: Call) -> None:
    ours, theirs = call(ctxgrad), call(torch)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    assert ours.tolist() == theirs.tolist()


# --------------------------------------------------------------------------- torch's types
def _leaf(m: Any) -> Any:
    return m.ones(2, requires_grad=True)


TYPES: list[tuple[str, Call, tuple[str, ...]]] = [
    (
        "grad of a float",
        lambda m: m.autograd.grad((_leaf(m) * 2).sum(), [1.0]),
        ("all inputs have to be Tensors or GradientEdges, but got float",),
    ),
    (
        "backward inputs int",
        lambda m: (_leaf(m) * 2).sum().backward(inputs=[2]),
        ("all inputs have to be Tensors or GradientEdges, but got int",),
    ),
    (
        "complex scalar backward",
        lambda m: (_leaf(m) * 1j).sum().backward(),
        ("grad can be implicitly created only for real scalar outputs but got", ".complex64"),
    ),
    (
        "complex scalar grad",
        lambda m: m.autograd.grad((_leaf(m) * 1j).sum(), _leaf(m)),
        ("grad can be implicitly created only for real scalar outputs",),
    ),
    ("index_select 1-d", lambda m: m.index_select(m.ones(3), 0, m.tensor([5])), ("index out of range in self",)),
    ("index_select negative", lambda m: m.ones(3).index_select(0, m.tensor([-1])), ("index out of range in self",)),
    ("index_select dim 0", lambda m: m.ones(3, 2).index_select(0, m.tensor([3])), ("index out of range in self",)),
    ("index_select dim 1", lambda m: m.ones(3, 2).index_select(1, m.tensor([2])), ("id=2 axis_dim=2",)),
    ("index_add 1-d", lambda m: m.ones(3).index_add(0, m.tensor([5]), m.ones(1)), ("index out of range in self",)),
    ("index_add negative", lambda m: m.ones(3).index_add(0, m.tensor([-1]), m.ones(1)), ("index out of range",)),
    (
        "index_add 2-d",
        lambda m: m.ones(3, 2).index_add(0, m.tensor([-1]), m.ones(1, 2)),
        ("index -1 is out of bounds for dimension 0 with size 3",),
    ),
    (
        "index_copy negative",
        lambda m: m.ones(3).index_copy(0, m.tensor([-1]), m.ones(1)),
        ("index_copy_(): index -1 is out of bounds for dimension 0 with size 3",),
    ),
    (
        "avg_pool2d kernel 0",
        lambda m: m.nn.functional.avg_pool2d(m.ones(1, 1, 4, 4), 0),
        ("stride should not be zero",),
    ),
    (
        "avg_pool2d kernel 0 stride 1",
        lambda m: m.nn.functional.avg_pool2d(m.ones(1, 1, 4, 4), 0, 1),
        ("kernel size should be greater than zero, but got kH: 0 kW: 0",),
    ),
    (
        "max_pool2d stride -1",
        lambda m: m.nn.functional.max_pool2d(m.ones(1, 1, 4, 4), 2, -1),
        ("stride should be greater than zero, but got dH: -1 dW: -1",),
    ),
    ("avg_pool1d kernel 0", lambda m: m.nn.functional.avg_pool1d(m.ones(1, 1, 4), 0), ("stride should not be zero",)),
    (
        "max_pool1d kernel 0",
        lambda m: m.nn.functional.max_pool1d(m.ones(1, 1, 4), 0),
        ("max_pool1d() kernel_size must be greater than zero, but got 0",),
    ),
    ("avg_pool3d kernel 0", lambda m: m.nn.functional.avg_pool3d(m.ones(1, 1, 2, 2, 2), 0), ("stride should not",)),
    ("fft of empty", lambda m: m.fft.fft(m.zeros(0)), ("Invalid number of data points (0) specified",)),
    ("rfft of empty", lambda m: m.fft.rfft(m.zeros(2, 0)), ("Invalid number of data points (0) specified",)),
    ("fftn of empty", lambda m: m.fft.fftn(m.zeros(2, 0)), ("Invalid number of data points (0) specified",)),
    ("ihfft of empty", lambda m: m.fft.ihfft(m.zeros(0)), ("Invalid number of data points (0) specified",)),
    ("irfft of empty", lambda m: m.fft.irfft(m.zeros(0)), ("Invalid number of data points (-2) specified",)),
    (
        "conv2d padding full",
        lambda m: m.nn.functional.conv2d(m.ones(1, 1, 3, 3), m.ones(1, 1, 2, 2), padding="full"),
        ("Invalid padding string", "'full'"),
    ),
    (
        "conv3d padding full",
        lambda m: m.nn.functional.conv3d(m.ones(1, 1, 3, 3, 3), m.ones(1, 1, 2, 2, 2), padding="full"),
        ("Invalid padding string", "'full'"),
    ),
    (
        "Conv2d padding full",
        lambda m: m.nn.Conv2d(1, 1, 2, padding="full"),
        ("Invalid padding string 'full', should be one of", "'valid'", "'same'"),
    ),
]


@pytest.mark.parametrize(("call", "words"), [c[1:] for c in TYPES], ids=[c[0] for c in TYPES])
def test_torch_exception_types(call: Call, words: tuple[str, ...]) -> None:
    assert_refused_as_torch(call, *words)


def test_fft_of_empty_with_a_length_works_as_torch() -> None:
    ours, theirs = ctxgrad.fft.fft(ctxgrad.zeros(0), n=3), torch.fft.fft(torch.zeros(0), n=3)
    assert ours.tolist() == theirs.tolist()


# --------------------------------------------------------------------------- refused as torch
def _functional(m: Any) -> Any:
    return m.nn.functional


NAN = float("nan")

REFUSED: list[tuple[str, Call, tuple[str, ...]]] = [
    (
        "BCE target above 1",
        lambda m: _functional(m).binary_cross_entropy(m.tensor([0.5]), m.tensor([2.0])),
        ("all elements of target should be between 0 and 1",),
    ),
    (
        "BCE target below 0",
        lambda m: _functional(m).binary_cross_entropy(m.tensor([0.5]), m.tensor([-0.5])),
        ("all elements of target should be between 0 and 1",),
    ),
    (
        "BCE target NaN",
        lambda m: _functional(m).binary_cross_entropy(m.tensor([0.5]), m.tensor([NAN])),
        ("all elements of target should be between 0 and 1",),
    ),
    (
        "BCE input NaN",
        lambda m: _functional(m).binary_cross_entropy(m.tensor([NAN]), m.tensor([0.5])),
        ("all elements of input should be between 0 and 1",),
    ),
    (
        "BCELoss input first",
        lambda m: m.nn.BCELoss()(m.tensor([1.5]), m.tensor([2.0])),
        ("all elements of input should be between 0 and 1",),
    ),
    (
        "embedding_bag offsets past the input",
        lambda m: _functional(m).embedding_bag(m.tensor([0, 1]), m.ones(3, 2), m.tensor([0, 5])),
        ("offsets[-1] can not be greater than input's length 2 but got offsets[-1] of 5",),
    ),
    (
        "embedding_bag last offset past the input",
        lambda m: _functional(m).embedding_bag(
            m.tensor([0, 1]), m.ones(3, 2), m.tensor([0, 3]), include_last_offset=True
        ),
        ("offsets[-1] can not be greater than input's length 2 but got offsets[-1] of 3",),
    ),
    (
        "embedding_bag negative offset",
        lambda m: _functional(m).embedding_bag(m.tensor([0, 1]), m.ones(3, 2), m.tensor([0, -1])),
        ("index out of range in self",),
    ),
    (
        "embedding_bag decreasing offsets",
        lambda m: _functional(m).embedding_bag(m.tensor([0, 1]), m.ones(3, 2), m.tensor([0, 1, 0])),
        (),
    ),
    (
        "interpolate negative scale",
        lambda m: _functional(m).interpolate(m.ones(1, 1, 5, 5), scale_factor=-1.5),
        ("Input and output sizes should be greater than 0, but got input (H: 5, W: 5) output (H: -7, W: -7)",),
    ),
    (
        "interpolate negative scale 1-d",
        lambda m: _functional(m).interpolate(m.ones(1, 1, 5), scale_factor=-1.5, mode="linear"),
        ("Input and output sizes should be greater than 0, but got input (W: 5) and output (W: -7)",),
    ),
    (
        "interpolate zero size",
        lambda m: _functional(m).interpolate(m.ones(1, 1, 5, 5), size=(0, 2)),
        ("Input and output sizes should be greater than 0", "output (H: 0, W: 2)"),
    ),
    (
        "interpolate scale to nothing",
        lambda m: _functional(m).interpolate(m.ones(1, 1, 5, 5), scale_factor=0.1, mode="bilinear"),
        ("output (H: 0, W: 0)",),
    ),
    ("histc with NaN", lambda m: m.histc(m.tensor([1.0, NAN]), bins=3), (".histc: range of [", "] is not finite")),
    ("histc with inf", lambda m: m.histc(m.tensor([1.0, float("inf")]), bins=3), ("range of [1, inf] is not finite",)),
    ("histc max NaN", lambda m: m.histc(m.tensor([1.0]), bins=3, min=0, max=NAN), ("range of [0, nan] is not finite",)),
    (
        "cholesky with NaN",
        lambda m: m.linalg.cholesky(m.tensor([[NAN, 0.0], [0.0, 1.0]])),
        ("linalg.cholesky: The factorization could not be completed", "leading minor of order 1"),
    ),
    (
        "cholesky with NaN off the diagonal",
        lambda m: m.linalg.cholesky(m.tensor([[1.0, NAN], [NAN, 1.0]])),
        ("leading minor of order 2 is not positive-definite",),
    ),
    (
        "cholesky_ex check_errors",
        lambda m: m.linalg.cholesky_ex(m.tensor([[1.0, 0.0], [0.0, NAN]]), check_errors=True),
        ("leading minor of order 2 is not positive-definite",),
    ),
]


@pytest.mark.parametrize(("call", "words"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED])
def test_refused_as_torch(call: Call, words: tuple[str, ...]) -> None:
    assert_refused_as_torch(call, *words)


def test_histc_with_a_range_ignores_nan_as_torch() -> None:
    ours = ctxgrad.histc(ctxgrad.tensor([1.0, NAN]), bins=3, min=0, max=2)
    theirs = torch.histc(torch.tensor([1.0, NAN]), bins=3, min=0, max=2)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize(
    "matrix",
    [[[NAN, 0.0], [0.0, 1.0]], [[1.0, NAN], [NAN, 1.0]], [[1.0, 0.0], [0.0, NAN]], [[1.0, 0.0], [NAN, 1.0]]],
)
def test_cholesky_ex_reports_a_nan_pivot_as_torch(matrix: list[list[float]]) -> None:
    ours = ctxgrad.linalg.cholesky_ex(ctxgrad.tensor(matrix))
    theirs = torch.linalg.cholesky_ex(torch.tensor(matrix))
    assert int(ours.info) == int(theirs.info) > 0
    np.testing.assert_array_equal(ours.L.numpy(), theirs.L.numpy())  # (NaN where torch has NaN)


# --------------------------------------------------------------------------- crafted files
def _crafted_archive(array: np.ndarray, kind: str = "tensor") -> io.BytesIO:
    """A file in ctxgrad.save's format whose one object is ``array`` stored as a ``kind``."""
    buffer = io.BytesIO()
    structure = {"format": "ctxgrad.save", "version": 1, "object": {kind: 0}}
    np.savez(buffer, __ctxgrad__=np.frombuffer(json.dumps(structure).encode(), dtype=np.uint8), tensor_0=array)
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize(
    "array",
    [
        np.array(["a", "b"]),
        np.array([b"x"]),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        np.array([1], dtype="timedelta64[s]"),
        np.zeros(2, dtype=[("a", "i4")]),
        np.zeros(2, dtype="V4"),
        np.array([1.0], dtype=np.longdouble),
    ],
    ids=["str", "bytes", "datetime64", "timedelta64", "record", "void", "longdouble"],
)
def test_load_refuses_a_crafted_tensor_of_a_dtype_no_tensor_holds(array: np.ndarray) -> None:
    with pytest.raises(RuntimeError, match=r"ctxgrad\.load: .* is damaged: the tensor 'tensor_0' has dtype") as info:
        ctxgrad.load(_crafted_archive(array))
    assert array.dtype.name in str(info.value)
    assert "which a tensor cannot hold" in str(info.value)


def test_load_reads_a_tensor_stored_in_the_other_byte_order() -> None:
    loaded = ctxgrad.load(_crafted_archive(np.array([1.5, -2.0], dtype=">f4")))
    assert loaded.dtype == ctxgrad.float32
    assert loaded.tolist() == [1.5, -2.0]


def test_load_keeps_a_numpy_array_of_strings() -> None:  # (save writes arrays as they are)
    assert ctxgrad.load(_crafted_archive(np.array(["a"]), "ndarray")).tolist() == ["a"]


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.normal(m.zeros(2, dtype=m.int64), m.ones(2)),
        lambda m: m.normal(m.zeros(2, dtype=m.int64), 1.0),
        lambda m: m.normal(0.0, m.ones(2, dtype=m.int64)),
    ],
    ids=["int mean and std", "int mean", "int std"],
)
def test_normal_refuses_integer_samples_as_torch(call: Call) -> None:
    assert_refused_as_torch(call, '"normal_kernel_cpu" not implemented for', "'Long'")
