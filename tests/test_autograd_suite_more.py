"""More of what torch's own autograd tests expect (issue 18): dtype objects that answer
torch's questions, node attributes by torch's names, and ``out=``.

Each behaviour runs on ctxgrad and, where torch is installed, on torch too, as functions of
the library module ``L``.
"""

from __future__ import annotations

import copy
import math
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import raised

import ctxgrad

DTYPE_NAMES = [
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
    "half",
    "float",
    "double",
    "cfloat",
    "cdouble",
    "short",
    "int",
    "long",
]


def outcome(fn: Any, L: Any) -> Any:
    """``fn()``'s value with the library's name taken off, or its exception as ``raised``
    gives it."""
    try:
        value = fn()
    except Exception:
        return raised(fn, L)
    return str(value).replace(L.__name__ + ".", "")


# --------------------------------------------------------------------------- dtype objects
def _dtype_facts(L: Any, name: str) -> tuple[Any, ...]:
    dt = getattr(L, name)
    return (
        outcome(lambda: repr(dt), L),
        outcome(lambda: str(dt), L),
        dt.is_floating_point,
        dt.is_complex,
        dt.is_signed,
        dt.itemsize,
        outcome(dt.to_real, L),
        outcome(dt.to_complex, L),
        type(dt).__name__,
        L.zeros(1, dtype=dt).dtype is dt,
    )


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_answers_torchs_questions(torch: Any, name: str) -> None:
    ours, theirs = _dtype_facts(ctxgrad, name), _dtype_facts(torch, name)
    if name in ("float16", "half"):  # torch has complex32, NumPy nothing (docs/differences.md §10)
        assert ours[7] == ("RuntimeError", "LIB.float16 has no complex dtype: NumPy has no complex32")
        assert theirs[7] == "complex32"
        ours, theirs = ours[:7] + ours[8:], theirs[:7] + theirs[8:]
    assert ours == theirs


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128", "int64", "bool", "uint8"])
def test_dtype_stands_for_its_numpy_dtype(name: str) -> None:
    np_name = "bool_" if name == "bool" else name
    dt, nd = getattr(ctxgrad, name), np.dtype(getattr(np, np_name))
    assert dt == nd and nd == dt and dt == getattr(np, np_name) and dt == nd.name
    assert not (dt != nd) and dt != np.dtype(np.int32 if name != "int32" else np.int8)
    assert hash(dt) == hash(nd) and {nd: "x"}[dt] == "x" and {dt: "y"}[nd] == "y"
    assert np.dtype(dt) is nd and dt.dtype is nd
    assert np.zeros(2, dtype=dt).dtype == nd and np.ones(2).astype(dt).dtype == nd
    assert np.empty(0, dt).dtype == nd and np.array([1], dtype=dt).dtype == nd
    assert (dt.kind, dt.name, dt.char, dt.type, dt.itemsize, dt.str) == (
        nd.kind,
        nd.name,
        nd.char,
        nd.type,
        nd.itemsize,
        nd.str,
    )
    assert np.result_type(dt, np.int8) == np.result_type(nd, np.int8)
    assert dt != "no such dtype" and dt != None  # noqa: E711 - the comparison itself is under test


def test_tensor_dtype_is_one_object_per_dtype_and_survives_copies() -> None:
    t = ctxgrad.tensor([1.0, 2.0])
    assert t.dtype is ctxgrad.float32 is ctxgrad.float is t.double().float().dtype
    assert ctxgrad.tensor([1, 2]).dtype is ctxgrad.int64 and ctxgrad.tensor([True]).dtype is ctxgrad.bool
    assert ctxgrad.from_numpy(np.zeros(2, np.uint8)).dtype is ctxgrad.uint8
    assert pickle.loads(pickle.dumps(ctxgrad.float64)) is ctxgrad.float64
    assert copy.deepcopy(ctxgrad.complex64) is ctxgrad.complex64 and copy.copy(ctxgrad.int8) is ctxgrad.int8
    assert ctxgrad.get_default_dtype() is ctxgrad.float32
    assert ctxgrad.promote_types(ctxgrad.int64, ctxgrad.float16) is ctxgrad.float16
    assert ctxgrad.result_type(ctxgrad.tensor([1, 2]), 0.5) is ctxgrad.float32


def test_dtype_instances_cannot_be_made_or_changed(torch: Any) -> None:
    assert raised(lambda: ctxgrad.dtype(), ctxgrad) == raised(lambda: torch.dtype(), torch)
    assert raised(lambda: ctxgrad.dtype(), ctxgrad) == ("TypeError", "cannot create 'LIB.dtype' instances")
    with pytest.raises(AttributeError, match="not writable"):
        ctxgrad.float32.itemsize = 3  # type: ignore[misc]


def test_a_dtype_argument_must_be_a_dtype(torch: Any) -> None:
    for L in (ctxgrad, torch):
        assert raised(lambda L=L: L.finfo("float32"), L)[0] == "TypeError"
    assert ctxgrad.finfo(ctxgrad.float64).eps == torch.finfo(torch.float64).eps
    assert str(ctxgrad.iinfo(ctxgrad.int16)) == str(torch.iinfo(torch.int16))


# --------------------------------------------------------------------------- out=
_UNARY = """abs sign sqrt rsqrt square reciprocal exp2 expm1 log log2 log10 log1p sin cos tan asin arcsin acos
arccos atan arctan sinh cosh tanh asinh arcsinh atanh arctanh sigmoid logit floor ceil round trunc frac erf erfc
erfinv lgamma digamma i0 sinc deg2rad rad2deg sgn signbit isposinf isneginf nan_to_num neg angle conj_physical
logical_not var std max min logsumexp-1 norm cumsum-0 cumprod-0 logcumsumexp-0 softmax-1 log_softmax-1
amax amin argmax argmin nansum nanmean all any msort tril triu diag nonzero inverse diff prod-1""".split()
_BINARY = """atan2 arctan2 maximum minimum fmax fmin pow float_power floor_divide remainder fmod hypot logaddexp
logaddexp2 xlogy copysign heaviside nextafter eq ne not_equal lt less le less_equal gt greater ge greater_equal
logical_and logical_or logical_xor mm dot-flat vdot-flat outer-flat ger-flat inner kron cross-3 tensordot-1
complex polar igamma igammac""".split()
_INTS = "gcd lcm bitwise_and bitwise_or bitwise_xor bitwise_left_shift bitwise_right_shift".split()


def _out_call(L: Any, name: str) -> Callable[..., Any]:
    """``name``'s ``L.<name>(*args, out=...)`` as a function of ``out``, on fixed arguments."""
    x = L.tensor([[0.2, 0.7, 0.4], [0.9, 0.3, 0.6], [0.5, 0.8, 0.1]], dtype=L.float64)
    y = L.tensor([[0.6, 0.1, 0.3], [0.4, 0.8, 0.2], [0.7, 0.5, 0.9]], dtype=L.float64)
    i, j = L.tensor([[12, 7, 3], [5, 6, 2]]), L.tensor([[4, 21, 1], [2, 3, 1]])
    base, _, extra = name.partition("-")
    f = getattr(L, base)
    if name in _UNARY:
        if base in ("acosh", "arccosh"):
            x = x + 1
        arg = {"1": (1,), "0": (0,)}.get(extra, ())
        return lambda out: f(x, *arg, out=out)
    if name in _BINARY:
        a, b = (x.reshape(-1), y.reshape(-1)) if extra == "flat" else (x, y)
        more = {"3": (1,), "1": (1,)}.get(extra, ())
        return lambda out: f(a, b, *more, out=out)
    if name in _INTS:
        return lambda out: f(i, j, out=out)
    if base in ("acosh", "arccosh"):
        return lambda out: f(x + 1, out=out)
    calls: dict[str, Callable[[Any], Any]] = {
        "acosh": lambda out: f(x + 1, out=out),
        "arccosh": lambda out: f(x + 1, out=out),
        "clamp": lambda out: f(x, 0.3, 0.6, out=out),
        "clip": lambda out: f(x, 0.3, 0.6, out=out),
        "clamp_min": lambda out: f(x, 0.3, out=out),
        "clamp_max": lambda out: f(x, 0.6, out=out),
        "lerp": lambda out: f(x, y, 0.25, out=out),
        "where": lambda out: f(x > 0.5, x, y, out=out),
        "ldexp": lambda out: f(x, j[:, :1].repeat(1, 3)[:1], out=out),
        "polygamma": lambda out: f(1, x, out=out),
        "addcmul": lambda out: f(x, x, y, value=0.5, out=out),
        "addcdiv": lambda out: f(x, x, y, value=0.5, out=out),
        "bitwise_not": lambda out: f(i, out=out),
        "quantile": lambda out: f(x, 0.3, dim=1, out=out),
        "nanquantile": lambda out: f(x, 0.3, dim=1, out=out),
        "cat": lambda out: f([x, y], 1, out=out),
        "concat": lambda out: f([x, y], out=out),
        "concatenate": lambda out: f([x, y], out=out),
        "stack": lambda out: f([x, y], out=out),
        "hstack": lambda out: f([x, y], out=out),
        "vstack": lambda out: f([x, y], out=out),
        "column_stack": lambda out: f([x, y], out=out),
        "row_stack": lambda out: f([x, y], out=out),
        "dstack": lambda out: f([x, y], out=out),
        "gather": lambda out: f(x, 1, L.tensor([[0, 2], [1, 1], [2, 0]]), out=out),
        "index_select": lambda out: f(x, 0, L.tensor([2, 0]), out=out),
        "masked_select": lambda out: f(x, x > 0.5, out=out),
        "take_along_dim": lambda out: f(x, L.tensor([[0], [2], [1]]), 1, out=out),
        "slice_scatter": lambda out: f(x, y[:1], 0, 0, 1, out=out),
        "bmm": lambda out: f(L.stack([x, y]), L.stack([y, x]), out=out),
        "baddbmm": lambda out: f(L.stack([x, x]), L.stack([x, y]), L.stack([y, x]), beta=0.5, out=out),
        "addmm": lambda out: f(x, x, y, alpha=2, out=out),
        "addmv": lambda out: f(x[0], x, y[1], out=out),
        "addr": lambda out: f(x, x[0], y[1], out=out),
        "matrix_power": lambda out: f(x, 3, out=out),
        "chain_matmul": lambda out: f(x, y, x, out=out),
        "searchsorted": lambda out: f(L.tensor([0.1, 0.4, 0.8]), x, out=out),
        "bucketize": lambda out: f(x, L.tensor([0.1, 0.4, 0.8]), out=out),
        "mv": lambda out: f(x, y[0], out=out),
    }
    return calls[name]


_OUT_CASES = sorted(
    {*_UNARY, *_BINARY, *_INTS}
    | {"clamp", "clip", "clamp_min", "clamp_max", "lerp", "where", "polygamma", "addcmul", "addcdiv", "bitwise_not"}
    | {"quantile", "nanquantile", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "column_stack"}
    | {"row_stack", "dstack", "gather", "index_select", "masked_select", "take_along_dim", "slice_scatter", "bmm"}
    | {"baddbmm", "addmm", "addmv", "addr", "matrix_power", "chain_matmul", "searchsorted", "bucketize"}
    | {"acosh", "arccosh", "ldexp"}
)
# (not compared: addbmm, whose out torch resizes without its warning; histc, whose values differ
# from torch's at a bin edge with or without out=)


def _out_facts(L: Any, name: str) -> tuple[Any, ...]:
    call = _out_call(L, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (chain_matmul's deprecation, nonzero's and others' notes)
        plain = call(None)
    same = L.empty(tuple(plain.shape), dtype=plain.dtype)
    returned = call(same)
    empty = L.empty(0, dtype=plain.dtype)
    with warnings.catch_warnings(record=True) as quiet:
        warnings.simplefilter("always")
        call(empty)
    wrong = L.zeros(7, 1, dtype=plain.dtype)
    with warnings.catch_warnings(record=True) as resized:
        warnings.simplefilter("always")
        call(wrong)
    # (ctxgrad's note says "in a future release" where torch's says "in a future PyTorch release",
    # and torch adds where in its C++ it was raised)
    notes = [str(w.message).replace(" PyTorch", "").split(" (Triggered")[0] for w in resized]
    resize_notes = [note for note in notes if "resized" in note]
    return (
        returned is same,
        same.dtype is plain.dtype,
        np.asarray(same.numpy()).tolist(),
        np.asarray(plain.numpy()).tolist(),
        np.asarray(empty.numpy()).tolist(),
        tuple(wrong.shape),
        [str(w.message) for w in quiet if "resized" in str(w.message)],
        resize_notes,
        str(plain.dtype).split(".")[-1],
    )


@pytest.mark.parametrize("name", _OUT_CASES)
def test_out_writes_the_result_as_torch_does(torch: Any, name: str) -> None:
    ours, theirs = _out_facts(ctxgrad, name), _out_facts(torch, name)
    assert ours[:2] == theirs[:2] == (True, True)
    for k in (2, 3, 4):  # the values written, the values without out=, the values into an empty out
        np.testing.assert_allclose(np.asarray(ours[k], dtype=complex), np.asarray(theirs[k], dtype=complex), rtol=1e-6)
    assert ours[5:] == theirs[5:]


@pytest.mark.parametrize("name", ["sin", "cat", "mm", "where", "clamp", "cumsum-0", "atan2", "addcmul", "gather"])
def test_out_is_refused_while_an_argument_requires_grad_as_torch_does(torch: Any, name: str) -> None:
    def refusal(L: Any) -> tuple[str, str]:
        return raised(lambda: _out_call(_RequiringGrad(L), name)(L.empty(0, dtype=L.float64)), L)

    assert refusal(ctxgrad) == refusal(torch)
    assert "functions with out=... arguments don't support automatic differentiation" in refusal(ctxgrad)[1]
    with ctxgrad.no_grad():  # (no graph is built: allowed)
        assert _out_call(_RequiringGrad(ctxgrad), name)(ctxgrad.empty(0, dtype=ctxgrad.float64)) is not None


class _RequiringGrad:
    """The library ``L`` whose ``tensor`` makes leaves that require grad (floating ones)."""

    def __init__(self, L: Any) -> None:
        self._L = L

    def __getattr__(self, name: str) -> Any:
        return getattr(self._L, name)

    def tensor(self, data: Any, **kwargs: Any) -> Any:
        t = self._L.tensor(data, **kwargs)
        return t.requires_grad_() if t.is_floating_point() else t


def test_out_checks_the_cast_and_the_type_as_torch_does(torch: Any) -> None:
    def facts(L: Any) -> list[tuple[str, str]]:
        x = L.tensor([0.5, 1.5])
        return [
            raised(lambda: L.sin(x, out=L.empty(2, dtype=L.int64)), L),
            raised(lambda: L.add(x, x, out=L.empty(2, dtype=L.int32)), L),
            raised(lambda: L.sin(x, out=[1]), L),
        ]

    assert facts(ctxgrad) == facts(torch)
    out = ctxgrad.empty(2, dtype=ctxgrad.float64)  # a safe cast is written
    ctxgrad.sin(ctxgrad.tensor([0.5, 1.5]), out=out)
    assert out.dtype is ctxgrad.float64 and np.allclose(out.numpy(), np.sin([0.5, 1.5]), rtol=1e-6)


def test_out_is_on_the_functions_not_the_methods_as_in_torch(torch: Any) -> None:
    import inspect

    assert "out" in inspect.signature(ctxgrad.sin).parameters
    assert ctxgrad.sin.__wrapped__ is ctxgrad.Tensor.sin  # type: ignore[attr-defined]
    x = ctxgrad.ones(2, 3)
    with pytest.raises(TypeError, match=r"max\(\): argument 'out' must be tuple of Tensors, not Tensor"):
        ctxgrad.max(x, 1, out=ctxgrad.empty(0))
    with pytest.raises(TypeError):
        torch.max(torch.ones(2, 3), 1, out=torch.empty(0))


# --------------------------------------------------------------------------- grad_fn._saved_<name>
_SHAPE_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "prod-all": lambda L, x: x.prod(),
    "amax-1": lambda L, x: L.amax(x, 1),
    "amin-keep": lambda L, x: x.amin((0, 1), keepdim=True),
    "max-dim-keep": lambda L, x: x.max(0, keepdim=True)[0],
    "max-all": lambda L, x: x.max(),
    "sort-1": lambda L, x: x.sort(1)[0],
    "diag-1": lambda L, x: L.diag(x, 1),
    "clamp-min-only": lambda L, x: L.clamp(x, min=0.2),
    "clamp-max-only": lambda L, x: L.clamp(x, max=0.6),
    "where-scalar": lambda L, x: L.where(x > 0.5, x, 0.0),
    "softmax-0": lambda L, x: L.softmax(x, 0),
    "logsumexp-01": lambda L, x: L.logsumexp(x, (0, 1), keepdim=True),
    "tril-1": lambda L, x: L.tril(x, -1),
    "cumprod-1": lambda L, x: L.cumprod(x, 1),
    "index_select-1": lambda L, x: L.index_select(x, 1, L.tensor([2, 0, 0])),
    "view": lambda L, x: x.view(9),
    "reshape": lambda L, x: x.reshape(1, 9),
    "unsqueeze": lambda L, x: x.unsqueeze(2),
    "sum-dim": lambda L, x: x.sum(1),
    "mean": lambda L, x: x.mean(),
    "matmul": lambda L, x: x @ x,
    "mul": lambda L, x: x * x.exp(),
    "pow-number": lambda L, x: x**2.5,
    # shape, indexing, reductions along a dim, nn functions
    "transpose": lambda L, x: x.transpose(0, 1),
    "permute": lambda L, x: x.permute(1, 0),
    "squeeze": lambda L, x: x[None].squeeze(0),
    "squeeze-all": lambda L, x: x[None].squeeze(),
    "expand": lambda L, x: x[None].expand(2, 3, 3),
    "flip": lambda L, x: x.flip(0),
    "roll": lambda L, x: x.roll(1, 0),
    "narrow": lambda L, x: x.narrow(0, 1, 2),
    "select": lambda L, x: x[1],
    "slice": lambda L, x: x[1:],
    "index": lambda L, x: x[L.tensor([0, 2])],
    "repeat": lambda L, x: x.repeat(2, 1),
    "split": lambda L, x: x.split(2)[0],
    "unbind": lambda L, x: x.unbind(0)[1],
    "masked_fill": lambda L, x: x.masked_fill(x > 0.5, 0.0),
    "scatter": lambda L, x: x.scatter(1, L.tensor([[0], [1], [2]]), 0.0),
    "index_add": lambda L, x: x.index_add(0, L.tensor([0, 2]), x[:2]),
    "expand_as": lambda L, x: x[:1].expand_as(x),
    "gelu": lambda L, x: L.nn.functional.gelu(x),
    "silu": lambda L, x: L.nn.functional.silu(x),
    "leaky_relu": lambda L, x: L.nn.functional.leaky_relu(x - 0.5, 0.1),
    "elu": lambda L, x: L.nn.functional.elu(x - 0.5),
    "softplus": lambda L, x: L.nn.functional.softplus(x),
    "hardtanh": lambda L, x: L.nn.functional.hardtanh(x, 0.2, 0.6),
    "mse_loss": lambda L, x: L.nn.functional.mse_loss(x, x.detach() * 2),
    "smooth_l1": lambda L, x: L.nn.functional.smooth_l1_loss(x, x.detach() * 2),
    "bce": lambda L, x: L.nn.functional.binary_cross_entropy(x, x.detach() * 0.5),
    "nll_loss": lambda L, x: L.nn.functional.nll_loss(x, L.tensor([0, 2, 1])),
    "cross_entropy": lambda L, x: L.nn.functional.cross_entropy(x, L.tensor([0, 2, 1])),
    "layer_norm": lambda L, x: L.nn.functional.layer_norm(x, (3,)),
    "embedding": lambda L, x: L.nn.functional.embedding(L.tensor([0, 2]), x),
    "conv1d": lambda L, x: L.nn.functional.conv1d(x[None], x[:, :, None]),
    "mean-dim": lambda L, x: x.mean(1),
    "sum-keep": lambda L, x: x.sum(1, keepdim=True),
    "max-dim": lambda L, x: x.max(1)[0],
    "min-dim": lambda L, x: x.min(1)[0],
    "median": lambda L, x: x.median(),
    "topk": lambda L, x: x.topk(2)[0],
    "kthvalue": lambda L, x: x.kthvalue(2, 1)[0],
    "rsub": lambda L, x: 1 - x,
    "trace": lambda L, x: x.trace(),
    "det": lambda L, x: x.det(),
    "mv": lambda L, x: L.mv(x, x[0]),
    "einsum": lambda L, x: L.einsum("ij,jk->ik", x, x),
    "diagonal": lambda L, x: x.diagonal(),
}

#: Ops whose node keeps other values than torch's (or keeps them under other names): each is
#: checked to still differ, so that the entry is removed when it is fixed.
_SAVED_DIFFER = {
    **dict.fromkeys(["cross-3", "chain_matmul", "ldexp", "quantile", "nanquantile"], "composed of other ops"),
    **dict.fromkeys(
        ["var", "std", "norm", "nansum"], "keeps the dims it reduced and the correction it used, not the arguments"
    ),
    **dict.fromkeys(["pow", "float_power"], "one node for pow(tensor, tensor) (torch's PowBackward1 keeps result)"),
    **dict.fromkeys(["fmod", "remainder"], "one Function for the tensor and the number divisor"),
    "complex": "keeps nothing (its backward needs no operand)",
    "polar": "composed of complex and other ops",
    "copysign": "keeps both operands, not the result",
    "hypot": "keeps the operands, not the result",
    "erfinv": "keeps the result, not the input",
    "sgn": "keeps nothing for a real input",
    "gather": "keeps only the index (and the shape)",
    "take_along_dim": "keeps only the index (and the shape)",
    "masked_select": "keeps only the mask",
    "slice_scatter": "one scatter Function for every *_scatter",
    "matrix_power": "multiplies in another order, so its last mm keeps other operands",
    "tril-1": "torch shows a negative int it kept as its unsigned 64-bit value (18446744073709551615)",
    # other node names (docs/differences.md, section 13)
    "conj_physical": "a copy of a real tensor is a CloneBackward0 node (torch: no node)",
    "heaviside": "differentiable (torch's node refuses backward)",
    "kron": "ends in a ViewBackward0 (torch: UnsafeViewBackward0)",
    "sum-dim": "sum over dims is SumBackward0 (torch: SumBackward1)",
    "sum-keep": "sum over dims is SumBackward0 (torch: SumBackward1)",
    "mean-dim": "mean over dims is MeanBackward0 (torch: MeanBackward1)",
    "rsub": "a number minus a tensor is SubBackward0 (torch: RsubBackward1)",
    "trace": "composed of diagonal and sum",
    "einsum": "one EinsumBackward0 node (torch: composed of views and bmm)",
    "conv1d": "composed of other ops (torch: one ConvolutionBackward0)",
    **dict.fromkeys(["hardtanh", "mse_loss", "smooth_l1", "bce", "nll_loss", "layer_norm"], "composed of other ops"),
    # values kept in another form than torch's
    "transpose": "transpose is a permute: it keeps the permutation, not dim0 and dim1",
    **dict.fromkeys(["select", "slice", "index"], "indexing keeps its NumPy index, not torch's arguments"),
    "index_add": "one scatter Function for index_add, index_copy, ...",
    "elu": "keeps the input and the output, not torch's scales",
    "cross_entropy": "one Function for log_softmax and nll_loss",
    "embedding": "torch shows padding_idx=-1 as its unsigned 64-bit value",
    "median": "keeps how the gradient is shared among ties, not the operands",
    "topk": "keeps the dim wrapped (torch shows dim=-1 as its unsigned 64-bit value)",
    "det": "keeps the input and the result, not the LU factors",
}


def _saved_facts(L: Any, name: str) -> tuple[str, dict[str, Any]]:
    """The name of the node of op ``name`` and its ``_saved_*`` values (tensors as lists)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name in _SHAPE_CALLS:
            x = L.tensor([[0.2, 0.7, 0.4], [0.9, 0.3, 0.6], [0.5, 0.8, 0.1]], dtype=L.float64, requires_grad=True)
            y = _SHAPE_CALLS[name](L, x)
        else:
            y = _out_call(_RequiringGrad(L), name)(None)
    fn = y.grad_fn
    if fn is None:  # (an integer or bool result: no node in either library)
        return "no node", {}
    values: dict[str, Any] = {}
    for n in dir(fn):
        if n.startswith("_saved_") and not n.endswith("_strides"):
            v = getattr(fn, n)
            values[n] = ("tensor", np.asarray(v.detach().numpy()).tolist()) if hasattr(v, "grad_fn") else v
    return fn.name(), values


@pytest.mark.parametrize("name", sorted({*_OUT_CASES, *_SHAPE_CALLS}))
def test_saved_names_and_values_match_torch(torch: Any, name: str) -> None:
    (our_node, ours), (their_node, theirs) = _saved_facts(ctxgrad, name), _saved_facts(torch, name)
    if name in _SAVED_DIFFER:
        assert (our_node, ours) != (their_node, theirs), f"{name} now matches: drop it from _SAVED_DIFFER"
        return
    assert our_node == their_node
    assert sorted(ours) == sorted(theirs)
    for key, value in theirs.items():
        if isinstance(value, tuple) and value[:1] == ("tensor",):
            assert ours[key][0] == "tensor", key
            np.testing.assert_allclose(np.asarray(ours[key][1], dtype=complex), np.asarray(value[1], dtype=complex))
        else:
            assert ours[key] == value, key


def test_a_saved_tensor_is_also_there_raw(torch: Any) -> None:
    for L in (ctxgrad, torch):
        x = L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = L.bmm(x[None], x[None])
        assert y.grad_fn._raw_saved_mat2.data.shape == (1, 2, 2)
        z = L.tril(x, 1)
        with pytest.raises(AttributeError, match="_raw_saved_diagonal"):
            z.grad_fn._raw_saved_diagonal  # (a number has no raw form)


# --------------------------------------------------------------------------- the version error
def _version_error(L: Any) -> str:
    class ReLU_(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = x.clamp(min=0)
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (y,) = ctx.saved_tensors
            return g * (y > 0)

    x = L.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = ReLU_.apply(x)
    y.mul_(2)
    message = raised(lambda: y.sum().backward(), L)[1]
    return message.split(", is at version")[0]


def test_the_version_error_names_the_op_as_torch_does(torch: Any) -> None:
    ours = _version_error(ctxgrad)
    assert ours == _version_error(torch)
    assert ours.endswith("[LIB.FloatTensor [3]], which is output 0 of ReLU_")


# --------------------------------------------------------------------------- post-accumulate-grad hooks
def _post_accumulate_returning(L: Any, value: Callable[[Any], Any]) -> Any:
    a = L.ones(2, requires_grad=True)
    a.register_post_accumulate_grad_hook(value)
    (a * 2).sum().backward()
    return a.grad.tolist()


@pytest.mark.parametrize("kind", ["itself", "a number", "another tensor", "None"])
def test_what_a_post_accumulate_grad_hook_may_return_is_torchs(torch: Any, kind: str) -> None:
    value = {"itself": lambda t: t, "a number": lambda t: 1, "another tensor": lambda t: t * 2, "None": lambda t: None}
    ours = outcome(lambda: _post_accumulate_returning(ctxgrad, value[kind]), ctxgrad)
    assert ours == outcome(lambda: _post_accumulate_returning(torch, value[kind]), torch)
    if kind == "a number":
        assert ours == ("TypeError", "expected Variable, but hook returned 'int'")


# --------------------------------------------------------------------------- igamma, igammac
_A = [0.0, 0.0, -1.0, 1.0, 2.0, 1.0, float("inf"), 3.0, 0.5, 2.5, 7.0, 0.3, 40.0, 1e-3, 12.0]
_X = [1.0, 0.0, 1.0, 0.0, -1.0, float("inf"), 1.0, float("nan"), 100.0, 1.7, 3.0, 20.0, 38.0, 2.0, 11.5]


@pytest.mark.parametrize("name", ["igamma", "igammac"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_incomplete_gamma_values_match_torch(torch: Any, name: str, dtype: str) -> None:
    ours = getattr(ctxgrad, name)(ctxgrad.tensor(_A, dtype=getattr(ctxgrad, dtype)), ctxgrad.tensor(_X))
    theirs = getattr(torch, name)(torch.tensor(_A, dtype=getattr(torch, dtype)), torch.tensor(_X))
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "ctxgrad.")
    # (torch's P(40, 38) is off by 7e-10, relative; see the exact value below)
    rtol = 1e-8 if dtype == "float64" else 1e-5
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=1e-40)  # (float32 subnormals)
    method = getattr(ctxgrad.tensor(_A, dtype=ctxgrad.float64), name)(ctxgrad.tensor(_X, dtype=ctxgrad.float64))
    np.testing.assert_allclose(method.numpy(), theirs.double().numpy(), rtol=1e-5, atol=1e-40)


def test_incomplete_gamma_against_exact_values() -> None:
    # P(40, 38) = e^-38 38^40 / 39! * sum_n 38^n / (40 (41) ... (40 + n)), summed in exact
    # fractions and rounded to 17 digits; P(1, x) = 1 - e^-x; Q(0.5, x) = erfc(sqrt(x))
    p = ctxgrad.igamma(ctxgrad.tensor([40.0, 1.0, 1.0]), ctxgrad.tensor([38.0, 0.25, 30.0])).double()
    p64 = ctxgrad.igamma(
        ctxgrad.tensor([40.0, 1.0], dtype=ctxgrad.float64), ctxgrad.tensor([38.0, 0.25], dtype=ctxgrad.float64)
    )
    np.testing.assert_allclose(p64.numpy(), [0.39408063211889345, 1 - math.exp(-0.25)], rtol=1e-14)
    np.testing.assert_allclose(p.numpy(), [0.39408063211889345, 1 - math.exp(-0.25), 1.0], rtol=1e-6)
    q = ctxgrad.igammac(
        ctxgrad.tensor([0.5, 0.5], dtype=ctxgrad.float64), ctxgrad.tensor([0.01, 50.0], dtype=ctxgrad.float64)
    )
    np.testing.assert_allclose(q.numpy(), [math.erfc(0.1), math.erfc(math.sqrt(50.0))], rtol=1e-13)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_gradient_in_x_matches_torch_and_differences(torch: Any, name: str) -> None:
    a, x = [0.5, 2.5, 7.0, 3.0], [0.3, 1.7, 9.0, 3.5]
    ours_x = ctxgrad.tensor(x, dtype=ctxgrad.float64, requires_grad=True)
    y = getattr(ctxgrad, name)(ctxgrad.tensor(a, dtype=ctxgrad.float64), ours_x)
    y.sum().backward()
    their_x = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    getattr(torch, name)(torch.tensor(a, dtype=torch.float64), their_x).sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), their_x.grad.numpy(), rtol=1e-10)
    assert y.grad_fn.name() == {"igamma": "IgammaBackward0", "igammac": "IgammacBackward0"}[name]
    f = getattr(ctxgrad, name)
    eps = 1e-6
    for i in range(len(x)):  # central differences in x
        up, down = list(x), list(x)
        up[i] += eps
        down[i] -= eps
        aa = ctxgrad.tensor(a, dtype=ctxgrad.float64)
        diff = (f(aa, ctxgrad.tensor(up, dtype=ctxgrad.float64)) - f(aa, ctxgrad.tensor(down, dtype=ctxgrad.float64)))[
            i
        ]
        assert abs(float(diff) / (2 * eps) - float(ours_x.grad[i])) < 1e-7


def _incomplete_gamma_refusals(L: Any, name: str) -> list[tuple[str, str]]:
    f = getattr(L, name)

    def input_grad() -> None:
        f(L.tensor([1.0, 2.0], requires_grad=True), L.tensor([0.5, 1.0])).sum().backward()

    return [
        raised(input_grad, L),
        raised(lambda: f(L.tensor([1, 2]), L.tensor([1, 2])), L),
        raised(lambda: f(L.tensor([1.0]), 2.0), L),
    ]


def test_special_gammainc_and_gammaincc_are_igamma_and_igammac(torch: Any) -> None:
    a, x = [0.5, 2.5, 7.0], [0.3, 1.7, 9.0]
    for ours, theirs in (("gammainc", "igamma"), ("gammaincc", "igammac")):
        got = getattr(ctxgrad.special, ours)(ctxgrad.tensor(a), ctxgrad.tensor(x, requires_grad=True))
        want = getattr(torch.special, ours)(torch.tensor(a), torch.tensor(x, requires_grad=True))
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6)
        assert got.grad_fn.name() == want.grad_fn.name() == f"{theirs.capitalize()}Backward0"


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_refuses_as_torch_does(torch: Any, name: str) -> None:
    assert _incomplete_gamma_refusals(ctxgrad, name) == _incomplete_gamma_refusals(torch, name)
