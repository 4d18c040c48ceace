"""Complex numbers: ``real``, ``imag``, ``conj``, ``angle``, ``complex``, ``polar``,
``view_as_real``, ``view_as_complex``.

The gradients follow torch's convention: for a real loss ``L`` of a complex ``z = x + iy``,
``z.grad`` is ``dL/dx + i dL/dy`` (the conjugate Wirtinger derivative, doubled), the direction
of steepest ascent.  So ``real``'s gradient is the incoming one, ``imag``'s is ``i`` times it,
``conj``'s is its conjugate.  ``real`` and ``imag`` are views (writing into ``z.real`` changes
``z``), as in torch; ``conj`` makes a copy (torch's lazy conjugate bit is not modelled:
``is_conj()`` is always False and ``resolve_conj`` returns its input).  The rows of the ops
are :data:`ROWS`, at the end.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import elementwise_rule, unary_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.ops._row import Op


def _require_complex(x: Tensor, op: str) -> None:
    if not x.is_complex():
        raise RuntimeError(f"{op} is not implemented for tensors with non-complex dtypes.")


def _complex_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    """The complex dtype whose parts are ``dt`` (float32 -> complex64, float64 -> complex128)."""
    return np.result_type(dt, np.complex64)


class Real(Function[Tensor]):
    """The real parts of a complex tensor (a view); the gradient is the incoming one, as complex."""

    vmap = elementwise_rule

    node_name = "RealBackward0"
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, z: Tensor) -> Tensor:
        return as_tensor(z.array.real)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return ComplexFromParts.apply(grad, grad * 0.0)

    @staticmethod
    def jvp(ctx: Any, tz: Tensor) -> Tensor:
        return Real.apply(tz)


class Imag(Function[Tensor]):
    """The imaginary parts of a complex tensor (a view); the gradient is ``i`` times the incoming one."""

    vmap = elementwise_rule

    node_name = "ImagBackward0"
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, z: Tensor) -> Tensor:
        return as_tensor(z.array.imag)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return ComplexFromParts.apply(grad * 0.0, grad)

    @staticmethod
    def jvp(ctx: Any, tz: Tensor) -> Tensor:
        return Imag.apply(tz)


class Conj(Function[Tensor]):
    """The complex conjugate (a copy); the gradient is the conjugate of the incoming one."""

    vmap = elementwise_rule

    node_name = "ConjBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, z: Tensor) -> Tensor:
        return as_tensor(np.conj(z.array))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return Conj.apply(grad)

    @staticmethod
    def jvp(ctx: Any, tz: Tensor) -> Tensor:
        return Conj.apply(tz)


class ConjPhysicalInPlace(Conj):
    """``conj_physical_``: ``conj`` in place, under torch's node name."""

    node_name = "ConjPhysicalBackward1"


class Angle(Function[Tensor]):
    """The argument of each element in (-pi, pi] (for a real tensor, 0 or pi).

    The gradient of a complex ``z`` is ``i z / |z|^2`` times the incoming one (0 at ``z = 0``),
    of a real one 0."""

    vmap = elementwise_rule

    node_name = "AngleBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, z: Tensor) -> Tensor:
        data = z.array
        ctx.save_for_backward(z)
        if data.dtype.kind == "c":
            return as_tensor(np.angle(data))
        out = np.where(data < 0, np.pi, 0.0).astype(data.dtype if data.dtype.kind == "f" else np.float32)
        return as_tensor(np.where(np.isnan(data), data, out) if data.dtype.kind == "f" else out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (z,) = ctx.saved_tensors
        if not z.is_complex():
            return grad * 0.0
        size = z.abs() ** 2
        safe = size + (size == 0).to(size.dtype)  # 1 where z is 0, where the gradient is 0
        out: Tensor = (grad * z / safe * 1j) * (size != 0).to(size.dtype)
        return out

    @staticmethod
    def jvp(ctx: Any, tz: Tensor) -> Tensor:
        (z,) = ctx.saved_tensors
        if not z.is_complex():
            return tz * 0.0
        size = z.abs() ** 2
        safe = size + (size == 0).to(size.dtype)
        out: Tensor = Imag.apply(Conj.apply(z) * tz) / safe * (size != 0).to(size.dtype)
        return out


class ComplexFromParts(Function[Tensor]):
    """``real + i imag`` from two floating tensors of one dtype (broadcast).

    The gradients are the real and the imaginary parts of the incoming one."""

    vmap = elementwise_rule

    node_name = "ComplexBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, real: Tensor, imag: Tensor) -> Tensor:
        re, im = real.array, imag.array
        if re.dtype != im.dtype:
            raise RuntimeError(
                f"Expected object of scalar type {short_name(re.dtype)} but got scalar type "
                f"{short_name(im.dtype)} for second argument"
            )
        if re.dtype.kind != "f" or re.dtype == np.float16:
            raise RuntimeError(
                f"Expected both inputs to be Half, Float or Double tensors but got {short_name(re.dtype)} and "
                f"{short_name(im.dtype)}"
            )
        out = np.empty(np.broadcast_shapes(re.shape, im.shape), dtype=_complex_dtype(re.dtype))
        out.real = re
        out.imag = im
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, Tensor]:
        return Real.apply(grad), Imag.apply(grad)

    @staticmethod
    def jvp(ctx: Any, tr: Tensor | None, ti: Tensor | None) -> Tensor:
        if tr is None:
            assert ti is not None
            tr = ti * 0.0
        return ComplexFromParts.apply(tr, ti if ti is not None else tr * 0.0)


class ViewAsReal(Function[Tensor]):
    """A complex tensor seen as a real one with a last dimension of 2 (real, imaginary): a view."""

    vmap = unary_rule

    node_name = "ViewAsRealBackward0"
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, z: Tensor) -> Tensor:
        _require_view_as_real(z)
        data = z.array
        return as_tensor(data[..., None].view(np.result_type(data.real.dtype)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return ComplexFromParts.apply(grad[..., 0], grad[..., 1])

    @staticmethod
    def jvp(ctx: Any, tz: Tensor) -> Tensor:
        return ViewAsReal.apply(tz)


class ViewAsComplex(Function[Tensor]):
    """A real tensor whose last dimension is 2 seen as a complex one: a view."""

    vmap = unary_rule

    node_name = "ViewAsComplexBackward0"
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x.array
        if data.dtype.kind != "f" or data.dtype == np.float16:
            raise RuntimeError(
                f"view_as_complex is only supported for float and double tensors, but got a tensor of scalar type: "
                f"{short_name(data.dtype)}"
            )
        if data.ndim == 0 or data.shape[-1] != 2:
            raise RuntimeError("Tensor must have a last dimension of size 2")
        if data.strides[-1] != data.itemsize:
            raise RuntimeError("Tensor must have a last dimension with stride 1")
        if any(s % (2 * data.itemsize) for s in data.strides[:-1]):
            raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
        return as_tensor(data.view(_complex_dtype(data.dtype))[..., 0])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return ViewAsReal.apply(grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return ViewAsComplex.apply(tx.contiguous())


def _require_view_as_real(z: Tensor) -> None:
    if not z.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")


# --------------------------------------------------------------------------- frontends
def real(input: Tensor) -> Tensor:
    """The real parts (a view); a real tensor itself."""
    return Real.apply(input) if input.is_complex() else input


def imag_args(name: str, input: Tensor) -> tuple[Tensor]:
    """torch's refusal of a real tensor (it has no imaginary parts to view)."""
    _require_complex(input, name)
    return (input,)


def conj(input: Tensor) -> Tensor:
    """The complex conjugate; a real tensor itself."""
    return Conj.apply(input) if input.is_complex() else input


def conj_physical(input: Tensor) -> Tensor:
    """The complex conjugate, always computed (a real tensor: a copy)."""
    return Conj.apply(input) if input.is_complex() else input.clone()


def conj_physical_(input: Tensor) -> Tensor:
    """In place: the complex conjugate (a real tensor is left as it is)."""
    if not input.is_complex():
        return input
    return write_in_place(ConjPhysicalInPlace, input)


def resolve_conj(input: Tensor) -> Tensor:
    """``input`` itself: ctxgrad computes every conjugate at once (there is no lazy conjugate bit)."""
    return input


def is_conj(input: Tensor) -> bool:
    """False: ctxgrad has no lazy conjugate bit."""
    return False


def resolve_neg(input: Tensor) -> Tensor:
    """``input`` itself: ctxgrad computes every negation at once (there is no lazy negative bit)."""
    return input


def is_neg(input: Tensor) -> bool:
    """False: ctxgrad has no lazy negative bit."""
    return False


def polar(abs: Tensor, angle: Tensor) -> Tensor:
    """``abs * (cos(angle) + i sin(angle))``."""
    return ComplexFromParts.apply(abs * angle.cos(), abs * angle.sin())


ROWS: list[Op] = [
    Op("real", real, property=True),
    Op("imag", Imag, args=imag_args, property=True),
    Op("conj", conj),
    Op("conj_physical", conj_physical, inplace=conj_physical_, out=True),
    Op("resolve_conj", resolve_conj),
    Op("is_conj", is_conj),
    Op("resolve_neg", resolve_neg),
    Op("is_neg", is_neg),
    Op("angle", Angle, out=True),
    Op("complex", ComplexFromParts, params="real: Tensor, imag: Tensor", method=False, out=True),
    Op("polar", polar, method=False, out=True),
    Op("view_as_real", ViewAsReal, method=False),
    Op("view_as_complex", ViewAsComplex, method=False),
]
