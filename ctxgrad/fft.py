"""``ctxgrad.fft``: torch.fft's discrete Fourier transforms, with gradients.

Every transform is one of three Functions, as in torch: ``FftC2C`` (complex to complex:
``fft``, ``ifft``, ``fft2``, ``ifft2``, ``fftn``, ``ifftn``; a real input is transformed as
complex), ``FftR2C`` (real to the one-sided complex half: ``rfft``, ``rfft2``, ``rfftn``,
``ihfft``) and ``FftC2R`` (a one-sided half back to real: ``irfft``, ``irfft2``, ``irfftn``,
``hfft``).  Each is a linear map, and each backward is its adjoint written with the others
(so it differentiates again):

* ``FftC2C``'s adjoint is the transform in the other direction with the same scaling;
* ``FftR2C``'s is that, applied to the gradient padded with zeros to the full length (the
  dropped half had no gradient), real part;
* ``FftC2R``'s is ``FftR2C`` of the gradient with the entries of the last dimension that stand
  for two (each of them and its mirror image) doubled.

``n``/``s`` crop or zero-pad the input (a differentiable ``narrow`` or ``cat`` before the
transform); ``norm`` is ``"backward"`` (the default: the inverse transforms divide by ``n``),
``"ortho"`` (both by ``sqrt(n)``) or ``"forward"`` (the forward ones divide by ``n``).  A
float32 input gives complex64, float64 gives complex128, and integers the default dtype's.

>>> import ctxgrad
>>> x = ctxgrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
>>> X = ctxgrad.fft.rfft(x)
>>> X
tensor([10.+0.j, -2.+2.j, -2.+0.j], grad_fn=<FftR2CBackward0>)
>>> ctxgrad.fft.irfft(X)
tensor([1., 2., 3., 4.], grad_fn=<FftC2RBackward0>)
>>> X.abs().sum().backward()
>>> x.grad
tensor([-0.7071,  1.2929,  0.7071,  2.7071])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ctxgrad import _factories
from ctxgrad._dtypes import get_default_dtype, short_name
from ctxgrad._made_functions import cat
from ctxgrad._memory_format import check_layout
from ctxgrad._surface import add_out as _add_out
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import dims_rule
from ctxgrad.autograd.function import Function

__all__ = [
    "fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "hfft2", "hfftn", "ifft", "ifft2", "ifftn", "ifftshift",
    "ihfft", "ihfft2", "ihfftn", "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn",
]  # fmt: skip

#: numpy's ``norm`` for a routine of each direction that scales by ``scaling`` ("none": 1,
#: "sqrt": 1 / sqrt(n), "n": 1 / n).
_NUMPY_NORM: dict[bool, dict[str, Literal["backward", "ortho", "forward"]]] = {
    True: {"none": "backward", "sqrt": "ortho", "n": "forward"},
    False: {"none": "forward", "sqrt": "ortho", "n": "backward"},
}


def _scaling(norm: str | None, forward: bool) -> str:
    """torch's ``norm`` as the factor a transform of direction ``forward`` scales by."""
    if norm is None or norm == "backward":
        return "none" if forward else "n"
    if norm == "forward":
        return "n" if forward else "none"
    if norm == "ortho":
        return "sqrt"
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _complex_of(dt: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(np.complex64) if dt in (np.float32, np.complex64, np.float16) else np.dtype(np.complex128)


def _real_of(dt: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(np.float32) if dt in (np.float32, np.complex64, np.float16) else np.dtype(np.float64)


class FftC2C(Function[Tensor]):
    """The complex-to-complex transform over ``dims``, forward (``e^{-2 pi i k n / N}``) or
    inverse, scaled by ``scaling``.  Its adjoint, the backward, is the transform in the other
    direction with the same scaling."""

    node_name = "FftC2CBackward0"
    skips_without_gradient = True
    vmap = dims_rule(1)  # under vmap: the same transform of the batch, the dims moved past it

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...], scaling: str, forward: bool) -> Tensor:
        ctx.args = (dims, scaling, forward)
        data = x.array
        routine = np.fft.fftn if forward else np.fft.ifftn
        out = routine(data, axes=dims, norm=_NUMPY_NORM[forward][scaling])
        return as_tensor(np.asarray(out, dtype=_complex_of(data.dtype)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        dims, scaling, forward = ctx.args
        return FftC2C.apply(grad, dims, scaling, not forward), None, None, None

    @staticmethod
    def jvp(ctx: Any, tangent: Tensor, *_: None) -> Tensor:
        dims, scaling, forward = ctx.args
        return FftC2C.apply(tangent, dims, scaling, forward)


class FftR2C(Function[Tensor]):
    """The forward transform of a real input over ``dims``, scaled by ``scaling``; with
    ``onesided`` only the first ``n // 2 + 1`` entries of the last dimension (the others are
    their complex conjugates)."""

    node_name = "FftR2CBackward0"
    skips_without_gradient = True
    vmap = dims_rule(1)  # under vmap: the same transform of the batch, the dims moved past it

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...], scaling: str, onesided: bool) -> Tensor:
        data = x.array
        ctx.args = (dims, scaling, onesided, data.shape[dims[-1]])
        routine = np.fft.rfftn if onesided else np.fft.fftn
        out = routine(data, axes=dims, norm=_NUMPY_NORM[True][scaling])
        return as_tensor(np.asarray(out, dtype=_complex_of(data.dtype)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        dims, scaling, onesided, full = ctx.args
        if onesided:
            grad = _resize(grad, dims[-1], full)
        return FftC2C.apply(grad, dims, scaling, False).real, None, None, None

    @staticmethod
    def jvp(ctx: Any, tangent: Tensor, *_: None) -> Tensor:
        dims, scaling, onesided, _full = ctx.args
        return FftR2C.apply(tangent, dims, scaling, onesided)


class FftC2R(Function[Tensor]):
    """The inverse transform over ``dims`` of a one-sided half (the last dimension's first
    ``n // 2 + 1`` entries) to a real output whose last dimension has ``last_dim_size``
    entries, scaled by ``scaling``.  The imaginary parts that a real output cannot have (of the
    first entry, and of the last when ``n`` is even) are ignored."""

    node_name = "FftC2RBackward0"
    skips_without_gradient = True
    vmap = dims_rule(1)  # under vmap: the same transform of the batch, the dims moved past it

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...], scaling: str, last_dim_size: int) -> Tensor:
        data = x.array
        ctx.args = (dims, scaling, last_dim_size)
        sizes = [data.shape[d] for d in dims[:-1]] + [last_dim_size]
        out = np.fft.irfftn(data, s=sizes, axes=dims, norm=_NUMPY_NORM[False][scaling])
        return as_tensor(np.asarray(out, dtype=_real_of(data.dtype)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        dims, scaling, last_dim_size = ctx.args
        half = FftR2C.apply(grad, dims, scaling, True)
        # The entries 1 .. n - (n // 2 + 1) stand for themselves and their mirror images.
        twice = last_dim_size - half.shape[dims[-1]]
        if twice > 0:
            weights = np.ones(half.shape[dims[-1]], dtype=_real_of(grad.array.dtype))
            weights[1 : 1 + twice] = 2
            shape = [1] * half.dim()
            shape[dims[-1]] = len(weights)
            half = half * as_tensor(weights.reshape(shape))
        return half, None, None, None

    @staticmethod
    def jvp(ctx: Any, tangent: Tensor, *_: None) -> Tensor:
        dims, scaling, last_dim_size = ctx.args
        return FftC2R.apply(tangent, dims, scaling, last_dim_size)


# --------------------------------------------------------------------------- arguments


def _resize(x: Tensor, dim: int, size: int) -> Tensor:
    """``x`` cropped or zero-padded at the end of ``dim`` to ``size`` entries."""
    have = x.shape[dim]
    if have == size:
        return x
    if have > size:
        return x.narrow(dim, 0, size)
    pad_shape = list(x.shape)
    pad_shape[dim] = size - have
    return cat([x, _factories.zeros(pad_shape, dtype=x.dtype)], dim)


def _floating(x: Tensor) -> Tensor:
    """Integer and boolean inputs are transformed in the default dtype (as torch)."""
    if x.array.dtype.kind in "biu":
        return x.to(get_default_dtype())
    return x


def _check_size(n: int) -> int:
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return n


def _dims_and_sizes(
    x: Tensor, s: Sequence[int] | None, dim: int | Sequence[int] | None
) -> tuple[tuple[int, ...], list[int | None]]:
    """The (wrapped, unique) dims and the requested size of each (``None``: keep), as torch's
    ``fftn`` reads ``s`` and ``dim``."""
    ndim = x.dim()
    if dim is not None:
        dims_in = [dim] if isinstance(dim, int) else list(dim)
        if ndim == 0 and dims_in:
            raise IndexError(f"Dimension specified as {dims_in[0]} but tensor has no dimensions")
        dims = [_wrap_dim(d, ndim) for d in dims_in]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    elif s is not None:
        if len(s) > ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {ndim} dimensions.")
        dims = list(range(ndim - len(s), ndim))
    else:
        dims = list(range(ndim))
    sizes: list[int | None] = [None] * len(dims)
    if s is not None:
        sizes = [None if int(n) == -1 else _check_size(int(n)) for n in s]
    _check_lengths(x, dims, sizes)
    return tuple(dims), sizes


def _check_lengths(x: Tensor, dims: Sequence[int], sizes: Sequence[int | None]) -> None:
    """Torch's refusal of an empty dimension transformed at its own length (NumPy's is a
    ValueError)."""
    for d, n in zip(dims, sizes):
        if n is None:
            _check_size(x.shape[d])


def _one_dim(x: Tensor, n: int | None, dim: int) -> tuple[tuple[int, ...], list[int | None]]:
    if x.dim() == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return (_wrap_dim(dim, x.dim()),), [None if n is None else _check_size(int(n))]


def _c2c(x: Tensor, dims: tuple[int, ...], sizes: list[int | None], norm: str | None, forward: bool) -> Tensor:
    _check_lengths(x, dims, sizes)
    x = _floating(x)
    scaling = _scaling(norm, forward)
    for d, n in zip(dims, sizes):
        if n is not None:
            x = _resize(x, d, n)
    if not dims:
        return x.to(_complex_of(x.array.dtype)) if not x.is_complex() else x.clone()
    if x.is_complex():
        return FftC2C.apply(x, dims, scaling, forward)
    # A real signal: the two-sided forward transform, whose conjugate is the inverse one.
    out = FftR2C.apply(x, dims, scaling, False)
    return out if forward else out.conj()


def _r2c(
    x: Tensor, dims: tuple[int, ...], sizes: list[int | None], norm: str | None, forward: bool, name: str
) -> Tensor:
    if x.is_complex():
        if name in ("rfft", "ihfft"):
            raise RuntimeError(f"{name} expects a real input tensor, but got {short_name(x.array.dtype)}")
        if name == "rfftn":
            raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {short_name(x.array.dtype)}")
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {short_name(x.array.dtype)}")
    _check_lengths(x, dims, sizes)
    x = _floating(x)
    for d, n in zip(dims, sizes):
        if n is not None:
            x = _resize(x, d, n)
    scaling = _scaling(norm, forward)
    if forward:
        return FftR2C.apply(x, dims, scaling, True)
    # ihfftn: the one-sided inverse transform of the last dim, then the others' inverse.
    out = FftR2C.apply(x, dims[-1:], scaling, True).conj()
    return FftC2C.apply(out, dims[:-1], scaling, False) if len(dims) > 1 else out


def _c2r(x: Tensor, dims: tuple[int, ...], sizes: list[int | None], norm: str | None, forward: bool) -> Tensor:
    x = _floating(x)
    if not x.is_complex():
        x = x.to(_complex_of(x.array.dtype))
    last = sizes[-1]
    last_dim_size = _check_size(2 * (x.shape[dims[-1]] - 1) if last is None else last)
    for d, n in zip(dims[:-1], sizes[:-1]):
        if n is not None:
            x = _resize(x, d, n)
    x = _resize(x, dims[-1], last_dim_size // 2 + 1)
    scaling = _scaling(norm, forward)
    if not forward:
        return FftC2R.apply(x, dims, scaling, last_dim_size)
    # hfftn: the forward transform of the other dims, then the Hermitian signal of the last
    # one given by its first half (the inverse transform of its conjugate).
    if len(dims) > 1:
        x = FftC2C.apply(x, dims[:-1], scaling, True)
    return FftC2R.apply(x.conj(), dims[-1:], scaling, last_dim_size)


# --------------------------------------------------------------------------- the transforms


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The one-dimensional discrete Fourier transform along ``dim`` (``n``: crop or zero-pad
    to ``n`` points first)."""
    return _c2c(input, *_one_dim(input, n, dim), norm, True)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The one-dimensional inverse discrete Fourier transform along ``dim``."""
    return _c2c(input, *_one_dim(input, n, dim), norm, False)


def fft2(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None
) -> Tensor:
    """The two-dimensional discrete Fourier transform (over the last two dimensions)."""
    return _c2c(input, *_dims_and_sizes(input, s, dim), norm, True)


def ifft2(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None
) -> Tensor:
    """The two-dimensional inverse discrete Fourier transform."""
    return _c2c(input, *_dims_and_sizes(input, s, dim), norm, False)


def fftn(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None
) -> Tensor:
    """The N-dimensional discrete Fourier transform over ``dim`` (default: all dimensions, or
    the last ``len(s)``)."""
    return _c2c(input, *_dims_and_sizes(input, s, dim), norm, True)


def ifftn(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None
) -> Tensor:
    """The N-dimensional inverse discrete Fourier transform."""
    return _c2c(input, *_dims_and_sizes(input, s, dim), norm, False)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The Fourier transform of a real signal: its ``n // 2 + 1`` non-negative frequencies."""
    return _r2c(input, *_one_dim(input, n, dim), norm, True, "rfft")


def rfft2(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None
) -> Tensor:
    """The two-dimensional Fourier transform of a real input (one-sided in the last dim)."""
    return _r2c(input, *_dims_and_sizes(input, s, dim), norm, True, "rfftn")


def rfftn(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None
) -> Tensor:
    """The N-dimensional Fourier transform of a real input (one-sided in the last dim)."""
    return _r2c(input, *_dims_and_sizes(input, s, dim), norm, True, "rfftn")


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of :func:`rfft`: a real signal of ``n`` points (default ``2 (m - 1)`` for
    ``m`` input frequencies)."""
    return _c2r(input, *_one_dim(input, n, dim), norm, False)


def irfft2(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None
) -> Tensor:
    """The inverse of :func:`rfft2`."""
    return _c2r(input, *_dims_and_sizes(input, s, dim), norm, False)


def irfftn(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None
) -> Tensor:
    """The inverse of :func:`rfftn`."""
    return _c2r(input, *_dims_and_sizes(input, s, dim), norm, False)


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The Fourier transform of a Hermitian-symmetric signal given by its first half: a real
    result of ``n`` points (default ``2 (m - 1)``)."""
    return _c2r(input, *_one_dim(input, n, dim), norm, True)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of :func:`hfft`: the one-sided inverse transform of a real signal."""
    return _r2c(input, *_one_dim(input, n, dim), norm, False, "ihfft")


def hfft2(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None
) -> Tensor:
    """The two-dimensional :func:`hfftn`."""
    return _c2r(input, *_dims_and_sizes(input, s, dim), norm, True)


def ihfft2(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1), norm: str | None = None
) -> Tensor:
    """The two-dimensional :func:`ihfftn`."""
    return _r2c(input, *_dims_and_sizes(input, s, dim), norm, False, "ihfftn")


def hfftn(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None
) -> Tensor:
    """The N-dimensional transform of a signal Hermitian-symmetric in the last dimension, given
    by its first half there: a real result."""
    return _c2r(input, *_dims_and_sizes(input, s, dim), norm, True)


def ihfftn(
    input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None, norm: str | None = None
) -> Tensor:
    """The inverse of :func:`hfftn`: the N-dimensional inverse transform of a real signal,
    one-sided in the last dimension."""
    return _r2c(input, *_dims_and_sizes(input, s, dim), norm, False, "ihfftn")


# --------------------------------------------------------------------------- helpers


def fftfreq(
    n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """The sample frequencies of an ``n``-point transform with sample spacing ``d``:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d n)``."""
    check_layout(layout, "fftfreq")
    freqs = np.fft.fftfreq(int(n), d)
    return _factories.tensor(freqs, dtype=dtype or get_default_dtype(), device=device, requires_grad=requires_grad)


def rfftfreq(
    n: int, d: float = 1.0, *, dtype: Any = None, layout: Any = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """The non-negative sample frequencies of an ``n``-point :func:`rfft`: ``[0, ..., n // 2] / (d n)``."""
    check_layout(layout, "rfftfreq")
    freqs = np.fft.rfftfreq(int(n), d)
    return _factories.tensor(freqs, dtype=dtype or get_default_dtype(), device=device, requires_grad=requires_grad)


def _shift_dims(input: Tensor, dim: int | Sequence[int] | None) -> list[int]:
    if dim is None:
        return list(range(input.dim()))
    return [_wrap_dim(d, input.dim()) for d in ([dim] if isinstance(dim, int) else dim)]


def fftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """The zero frequency moved to the middle: a roll by ``n // 2`` along each of ``dim``."""
    dims = _shift_dims(input, dim)
    return input.roll([input.shape[d] // 2 for d in dims], dims)


def ifftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """The inverse of :func:`fftshift`: a roll by ``-(n // 2)``."""
    dims = _shift_dims(input, dim)
    return input.roll([-(input.shape[d] // 2) for d in dims], dims)


# torch's ``out=`` on every function here but the two shifts, as torch.fft has it.
_add_out(globals(), (name for name in __all__ if name not in ("fftshift", "ifftshift")))
