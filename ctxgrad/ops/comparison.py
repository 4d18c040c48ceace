"""Comparisons (``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``), tests (``isnan``, ``isinf``,
``isfinite``), logical ops (``logical_and`` ...) and bitwise ops (``&``, ``|``, ``^``, ``~``).

Their results are bool or integer tensors: never differentiable, so the engine never calls
their ``backward``; it exists for completeness."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import promote_operands, short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import elementwise_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import broadcast_error, operand, raw, refuse_complex
from ctxgrad.ops.arithmetic import reflected_operands
from ctxgrad.ops.pointwise import tensor_arg, tensor_operands


class _Compare(Function[Tensor]):
    """Apply the class's ``ufunc``.  The bool output does not require grad, so the engine
    never calls ``backward``; it exists for completeness."""

    vmap = elementwise_rule

    skips_without_gradient = True

    ufunc: ClassVar[Callable[..., Any]]

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = promote_operands(raw(a), raw(b))
        refuse_complex(ctx, x, y)
        try:
            return as_tensor(ctx.forward_cls.ufunc(x, y))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None]:
        return None, None


class Eq(_Compare):
    """Elementwise ``a == b``."""

    ufunc = np.equal


class Ne(_Compare):
    """Elementwise ``a != b``."""

    ufunc = np.not_equal


class Lt(_Compare):
    """Elementwise ``a < b``."""

    ufunc = np.less


class Le(_Compare):
    """Elementwise ``a <= b``."""

    ufunc = np.less_equal


class Gt(_Compare):
    """Elementwise ``a > b``."""

    ufunc = np.greater


class Ge(_Compare):
    """Elementwise ``a >= b``."""

    ufunc = np.greater_equal


class _Test(Function[Tensor]):
    """Apply the class's ``test`` to a floating tensor; integers and bools are never NaN or
    infinite (every element is finite)."""

    vmap = elementwise_rule

    skips_without_gradient = True

    test: ClassVar[Callable[..., Any]]
    integer_result: ClassVar[bool] = False

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x.array
        if data.dtype.kind in "fc":
            return as_tensor(ctx.forward_cls.test(data))
        return as_tensor(np.full(data.shape, ctx.forward_cls.integer_result))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> None:
        return None


class IsNan(_Test):
    """Elementwise ``x != x``."""

    test = np.isnan


class IsInf(_Test):
    """Elementwise ``x`` is +inf or -inf."""

    test = np.isinf


class IsFinite(_Test):
    """Elementwise ``x`` is neither infinite nor NaN."""

    test = np.isfinite
    integer_result = True


class LogicalAnd(_Compare):
    """Elementwise ``a and b`` on the truth of each element (nonzero is true)."""

    ufunc = np.logical_and


class LogicalOr(_Compare):
    """Elementwise ``a or b`` on the truth of each element."""

    ufunc = np.logical_or


class LogicalXor(_Compare):
    """Elementwise ``a != b`` on the truth of each element."""

    ufunc = np.logical_xor


class LogicalNot(Function[Tensor]):
    """Elementwise ``not x`` (nonzero is true)."""

    vmap = elementwise_rule

    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return as_tensor(np.logical_not(x.array))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> None:
        return None


class _Bitwise(Function[Tensor]):
    """Apply the class's ``ufunc`` to bool or integer operands (tensors or Python ints and
    bools), promoted as torch promotes; floating operands are refused, as in torch."""

    vmap = elementwise_rule

    skips_without_gradient = True

    ufunc: ClassVar[Callable[..., Any]]
    kernel: ClassVar[str]

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = promote_operands(raw(a), raw(b))
        refuse_complex(ctx, x, y)
        dt = np.asarray(x).dtype
        if dt.kind not in "biu":
            raise NotImplementedError(f"\"{ctx.forward_cls.kernel}\" not implemented for '{short_name(dt)}'")
        try:
            return as_tensor(ctx.forward_cls.ufunc(x, y))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None]:
        return None, None


class BitwiseAnd(_Bitwise):
    """Elementwise ``a & b``."""

    ufunc = np.bitwise_and
    kernel = "bitwise_and_cpu"


class BitwiseOr(_Bitwise):
    """Elementwise ``a | b``."""

    ufunc = np.bitwise_or
    kernel = "bitwise_or_cpu"


class BitwiseXor(_Bitwise):
    """Elementwise ``a ^ b``."""

    ufunc = np.bitwise_xor
    kernel = "bitwise_xor_cpu"


class _Integer(_Bitwise):
    """A ``_Bitwise`` op that takes integers only (bools refused too, as torch)."""

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = promote_operands(raw(a), raw(b))
        dt = np.asarray(x).dtype
        if dt.kind not in "iu":
            raise NotImplementedError(f"\"{ctx.forward_cls.kernel}\" not implemented for '{short_name(dt)}'")
        try:
            return as_tensor(np.asarray(ctx.forward_cls.ufunc(x, y), dtype=dt))
        except ValueError:
            raise broadcast_error(x, y) from None


class Gcd(_Integer):
    """Elementwise greatest common divisor (non-negative)."""

    ufunc = np.gcd
    kernel = "gcd_cpu"


class Lcm(_Integer):
    """Elementwise least common multiple (non-negative; 0 if either is 0)."""

    ufunc = np.lcm
    kernel = "lcm_cpu"


def _shift(x: Any, y: Any, left: bool) -> Any:
    """``x << y`` or ``x >> y`` with torch's answer for a shift by a negative number or by the
    width or more (C leaves it undefined): 0, or -1 for a right shift of a negative number."""
    x, y = np.asarray(x), np.asarray(y)
    bits = x.dtype.itemsize * 8
    out_of_range = (y < 0) | (y >= bits)
    count = np.where(out_of_range, 0, y).astype(x.dtype)
    shifted = np.left_shift(x, count) if left else np.right_shift(x, count)
    overflow = 0 if left else np.where(x < 0, -1, 0)
    return np.where(out_of_range, overflow, shifted)


class BitwiseLeftShift(_Integer):
    """Elementwise ``a << b``."""

    ufunc = staticmethod(lambda x, y: _shift(x, y, True))
    kernel = "lshift_cpu"


class BitwiseRightShift(_Integer):
    """Elementwise ``a >> b`` (arithmetic: the sign is kept)."""

    ufunc = staticmethod(lambda x, y: _shift(x, y, False))
    kernel = "rshift_cpu"


class BitwiseNot(Function[Tensor]):
    """Elementwise ``~x``: logical not for bools, two's-complement not for integers."""

    vmap = elementwise_rule

    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x.array
        if data.dtype.kind not in "biu":
            raise NotImplementedError(f"\"bitwise_not_cpu\" not implemented for '{short_name(data.dtype)}'")
        return as_tensor(np.invert(data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> None:
        return None


class _RealTest(Function[Tensor]):
    """A test of each element's value (``signbit``, ``isposinf``, ``isneginf``): a bool tensor,
    with torch's refusal of complex input; integers and bools are tested as they are."""

    vmap = elementwise_rule

    skips_without_gradient = True
    test: ClassVar[Callable[..., Any]]
    complex_error: ClassVar[tuple[type[Exception], str]]

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x.array
        if data.dtype.kind == "c":
            kind, message = ctx.forward_cls.complex_error
            raise kind(message)
        return as_tensor(np.asarray(ctx.forward_cls.test(data), dtype=np.bool_))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> None:
        return None


class Signbit(_RealTest):
    """Elementwise: the sign bit is set (``-0.0`` and NaNs with the bit included)."""

    test = np.signbit
    complex_error = (NotImplementedError, "signbit is not implemented for complex tensors.")


class IsPosInf(_RealTest):
    """Elementwise ``x == +inf``."""

    test = staticmethod(np.isposinf)
    complex_error = (RuntimeError, "isposinf does not support complex inputs.")


class IsNegInf(_RealTest):
    """Elementwise ``x == -inf``."""

    test = staticmethod(np.isneginf)
    complex_error = (RuntimeError, "isneginf does not support complex inputs.")


class IsReal(Function[Tensor]):
    """Elementwise: the imaginary part is 0 (always True for a real tensor)."""

    vmap = elementwise_rule

    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x.array
        if data.dtype.kind == "c":
            return as_tensor(np.asarray(data.imag == 0))
        return as_tensor(np.ones(data.shape, dtype=np.bool_))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> None:
        return None


class IsIn(Function[Tensor]):
    """Whether each of ``elements`` is among ``tests`` (``invert``: is not), as bools.  The
    first ``keep`` dimensions of both (a vmap batch) pair each sample's elements with its own
    tests: each value is replaced by its rank among all values (``np.unique``), the rank
    offset by the sample's number, so that one ``np.isin`` answers for every sample (NaN is
    never found, as in ``np.isin``).  Not differentiable."""

    node_name = "IsinBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, elements: Tensor, tests: Tensor, assume_unique: bool, invert: bool, keep: int = 0) -> Tensor:
        values, against = elements.array, tests.array
        if keep == 0:
            found = np.isin(values, against, assume_unique=assume_unique, invert=invert)
        else:
            rows = int(np.prod(values.shape[:keep], dtype=np.int64))
            flat_v, flat_t = values.reshape(rows, -1), against.reshape(rows, -1)
            both = np.concatenate([flat_v, flat_t], axis=1)
            ranks = np.unique(both, return_inverse=True)[1].reshape(both.shape)
            keys = ranks + np.arange(rows, dtype=np.int64)[:, None] * (int(ranks.max(initial=0)) + 1)
            hit = np.isin(keys[:, : flat_v.shape[1]], keys[:, flat_v.shape[1] :], assume_unique=assume_unique)
            if values.dtype.kind == "f":
                hit &= ~np.isnan(flat_v)
            found = (~hit if invert else hit).reshape(values.shape)
        out = as_tensor(np.asarray(found))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, ...]:
        return (None,) * 5

    @staticmethod
    def vmap(
        info: Any,
        in_dims: tuple[Any, ...],
        elements: Tensor,
        tests: Tensor,
        assume_unique: bool,
        invert: bool,
        keep: int = 0,
    ) -> tuple[Tensor, int]:
        if in_dims[1] is None and keep == 0:  # the same tests for every sample: one isin of the batch
            return IsIn.apply(elements, tests, assume_unique, invert), 0
        size = info.batch_size
        elements, tests = (
            t if d == 0 else t.unsqueeze(0).expand(size, *t.shape) for t, d in zip((elements, tests), in_dims)
        )
        return IsIn.apply(elements, tests, assume_unique, invert, keep + 1), 0


# --------------------------------------------------------------------------- argument handlers and frontends
# The rows (``ROWS``, below) make the frontends of the ops with one Function from it and the
# argument handler they name (``compare_args``, ``bitwise_operands``).  Written here: the methods
# of the logical ops (torch counts a method's argument positions from after ``self``), ``isin``
# (its operands made tensors), the in-place comparisons (torch names their nodes by ``other``'s
# kind) and the operators ``==``, ``!=`` and ``~``.


def compare_args(name: str, input: Tensor, other: Any) -> tuple[Tensor, Any]:
    """A comparison's operands: ``other`` a tensor or a number; the function takes a tensor
    first (torch's TypeError; a method's ``self`` always is one)."""
    if not isinstance(input, Tensor):
        raise _not_a_tensor(name, input, other)
    return input, operand(other)


def _not_a_tensor(name: str, input: Any, other: Any) -> TypeError:
    """torch's error for ``ctxgrad.eq(1, t)``: a comparison function takes a tensor first."""
    got = ", ".join(type(v).__name__ for v in (input, other))
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (Tensor input, Tensor other, *, Tensor out = None)\n"
        " * (Tensor input, Number other, *, Tensor out = None)\n"
    )


def _is_operand(other: Any) -> bool:
    """True for what ``==`` can compare a tensor with (anything else compares unequal)."""
    return isinstance(other, (Tensor, int, float, complex, np.ndarray, np.generic, list, tuple))


def eq_operator(input: Tensor, other: Any) -> Tensor:
    """``input == other`` (``__eq__``); NotImplemented for what is not an operand (``t == None`` is False)."""
    if not _is_operand(other):
        return NotImplemented  # type: ignore[no-any-return]
    return Eq.apply(input, operand(other))


def ne_operator(input: Tensor, other: Any) -> Tensor:
    """``input != other`` (``__ne__``)."""
    if not _is_operand(other):
        return NotImplemented  # type: ignore[no-any-return]
    return Ne.apply(input, operand(other))


def logical_and_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise logical AND of the elements' truth (nonzero is true), as a bool tensor."""
    return LogicalAnd.apply(input, tensor_arg("logical_and", "other", 1, other))


def logical_or_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise logical OR, as a bool tensor."""
    return LogicalOr.apply(input, tensor_arg("logical_or", "other", 1, other))


def logical_xor_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise logical XOR, as a bool tensor."""
    return LogicalXor.apply(input, tensor_arg("logical_xor", "other", 1, other))


def bitwise_operands(name: str, input: Any, other: Any) -> tuple[Any, Any]:
    """The operands of a bitwise op or shift: bool or integer tensors, or Python ints and bools
    on either side (``ctxgrad.bitwise_and(3, t)``)."""
    if isinstance(input, Tensor):
        return input, operand(other)
    return operand(input), other


def invert_operator(input: Tensor) -> Tensor:
    """``~input`` (``__invert__``): integer and bool tensors only."""
    if input.array.dtype.kind not in "biu":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return BitwiseNot.apply(input)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    """Elementwise: whether each of ``elements`` is among ``test_elements`` (either may be a
    number), or with ``invert`` whether it is not.  Not differentiable (a bool result)."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError(
            f"isin() received an invalid combination of arguments - got ({type(elements).__name__}, "
            f"{type(test_elements).__name__}), but expected one of:\n"
            " * (Tensor elements, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None)\n"
            " * (Number element, Tensor test_elements, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None)\n"
            " * (Tensor elements, Number test_element, *, bool assume_unique = False, bool invert = False, "
            "Tensor out = None)\n"
        )
    given = [t if isinstance(t, Tensor) else as_tensor(np.asarray(t)) for t in (elements, test_elements)]
    for t in given:
        if t.dtype.kind == "c":
            raise RuntimeError(f"Unsupported input type encountered for isin(): {short_name(t.dtype)}")
    out: Tensor = IsIn.apply(given[0], given[1], bool(assume_unique), bool(invert))
    return out


class CompareInPlace(Function[Tensor]):
    """The 1 or 0 an in-place comparison (``x.lt_(y)``) writes, in ``x``'s dtype; as in torch,
    the values it overwrites (and a tensor ``other``) get a zero gradient.  ``compare`` is the
    comparison's Function (made per comparison and node name by :func:`_compare`)."""

    vmap = elementwise_rule
    writes_first_input = True

    node_name = "EqBackward0"
    skips_without_gradient = True
    compare: ClassVar[type[Function[Tensor]]]

    @staticmethod
    def forward(ctx: Any, x: Tensor, other: Any) -> Tensor:
        ctx.other = other.array.shape if isinstance(other, Tensor) else None
        result: Tensor = ctx.forward_cls.compare.forward(ctx, x, other)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_x, need_other = ctx.needs_input_grad
        zeros = as_tensor(np.zeros_like(grad.array)) if need_x else None
        other = as_tensor(np.zeros(ctx.other, grad.array.dtype)) if need_other and ctx.other is not None else None
        return zeros, other

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: Any) -> Tensor:
        return as_tensor(np.zeros_like(tx.array))


_COMPARES: dict[tuple[type[Function[Tensor]], str], type[CompareInPlace]] = {}


def _compare(fn: type[Function[Tensor]], name: str, what: str) -> Callable[[Tensor, Any], Tensor]:
    """``name``: the comparison ``fn`` made in place; torch names its node ``<Op>Backward0``
    for a number ``other`` and ``<Op>Backward1`` for a tensor."""

    def made(node: str) -> type[CompareInPlace]:
        cls = _COMPARES.get((fn, node))
        if cls is None:
            meta: Any = type(CompareInPlace)
            namespace = {
                "compare": fn,
                "ufunc": fn.__dict__["ufunc"],  # what the comparison's forward reads from its class
                "node_name": node,
                "__module__": __name__,
                "__doc__": CompareInPlace.__doc__,
            }
            cls = _COMPARES[(fn, node)] = meta(f"{fn.__name__}InPlace", (CompareInPlace,), namespace)
        return cls

    op = fn.__name__

    def frontend(input: Tensor, other: Any) -> Tensor:
        node = f"{op}Backward1" if isinstance(other, Tensor) else f"{op}Backward0"
        return write_in_place(made(node), input, operand(other))

    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = f"In place: elementwise ``self {what} other``, as 1 or 0 in this tensor's dtype."
    return frontend


eq_ = _compare(Eq, "eq_", "==")
ne_ = _compare(Ne, "ne_", "!=")
lt_ = _compare(Lt, "lt_", "<")
le_ = _compare(Le, "le_", "<=")
gt_ = _compare(Gt, "gt_", ">")
ge_ = _compare(Ge, "ge_", ">=")


# --------------------------------------------------------------------------- rows
#: The rows of this module's ops (``ctxgrad.ops._row``), gathered by ``ctxgrad.ops.table``.
ROWS: list[Op] = [
    Op("eq", Eq, args=compare_args, inplace=eq_, out=True, numpy=("equal",)),
    Op("ne", Ne, args=compare_args, aliases=("not_equal",), inplace=ne_, out=True, numpy=("not_equal",)),
    Op("lt", Lt, args=compare_args, aliases=("less",), dunders=("__lt__",), inplace=lt_, out=True, numpy=("less",)),
    Op(
        "le",
        Le,
        args=compare_args,
        aliases=("less_equal",),
        dunders=("__le__",),
        inplace=le_,
        out=True,
        numpy=("less_equal",),
    ),
    Op(
        "gt",
        Gt,
        args=compare_args,
        aliases=("greater",),
        dunders=("__gt__",),
        inplace=gt_,
        out=True,
        numpy=("greater",),
    ),
    Op(
        "ge",
        Ge,
        args=compare_args,
        aliases=("greater_equal",),
        dunders=("__ge__",),
        inplace=ge_,
        out=True,
        numpy=("greater_equal",),
    ),
    Op("__eq__", eq_operator, function=False),
    Op("__ne__", ne_operator, function=False),
    Op("isnan", IsNan, numpy=("isnan",)),
    Op("isinf", IsInf, numpy=("isinf",)),
    Op("isfinite", IsFinite, numpy=("isfinite",)),
    Op(
        "logical_and",
        LogicalAnd,
        args=tensor_operands,
        method_frontend=logical_and_method,
        inplace=True,
        out=True,
        numpy=("logical_and",),
    ),
    Op(
        "logical_or",
        LogicalOr,
        args=tensor_operands,
        method_frontend=logical_or_method,
        inplace=True,
        out=True,
        numpy=("logical_or",),
    ),
    Op(
        "logical_xor",
        LogicalXor,
        args=tensor_operands,
        method_frontend=logical_xor_method,
        inplace=True,
        out=True,
        numpy=("logical_xor",),
    ),
    Op("logical_not", LogicalNot, inplace=True, out=True, numpy=("logical_not",)),
    Op(
        "bitwise_and",
        BitwiseAnd,
        args=bitwise_operands,
        dunders=("__and__",),
        inplace=True,
        out=True,
        numpy=("bitwise_and",),
    ),
    Op(
        "bitwise_or",
        BitwiseOr,
        args=bitwise_operands,
        dunders=("__or__",),
        inplace=True,
        out=True,
        numpy=("bitwise_or",),
    ),
    Op(
        "bitwise_xor",
        BitwiseXor,
        args=bitwise_operands,
        dunders=("__xor__",),
        inplace=True,
        out=True,
        numpy=("bitwise_xor",),
    ),
    Op("bitwise_not", BitwiseNot, inplace=True, out=True, numpy=("invert",)),
    Op("__rand__", BitwiseAnd, args=reflected_operands, function=False),
    Op("__ror__", BitwiseOr, args=reflected_operands, function=False),
    Op("__rxor__", BitwiseXor, args=reflected_operands, function=False),
    Op("__invert__", invert_operator, function=False),
    Op("gcd", Gcd, args=tensor_operands, inplace=True, out=True, numpy=("gcd",)),
    Op("lcm", Lcm, args=tensor_operands, inplace=True, out=True, numpy=("lcm",)),
    Op(
        "bitwise_left_shift",
        BitwiseLeftShift,
        args=bitwise_operands,
        dunders=("__lshift__",),
        inplace=True,
        inplace_dunders=("__ilshift__",),
        out=True,
    ),
    Op(
        "bitwise_right_shift",
        BitwiseRightShift,
        args=bitwise_operands,
        dunders=("__rshift__",),
        inplace=True,
        inplace_dunders=("__irshift__",),
        out=True,
    ),
    Op("__rlshift__", BitwiseLeftShift, args=reflected_operands, function=False),
    Op("__rrshift__", BitwiseRightShift, args=reflected_operands, function=False),
    Op("signbit", Signbit, out=True, numpy=("signbit",)),
    Op("isposinf", IsPosInf, out=True),
    Op("isneginf", IsNegInf, out=True),
    Op("isreal", IsReal),
    Op("isin", isin, method=False, out=True),
]
