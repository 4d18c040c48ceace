"""Linear algebra: ``matmul`` (``@``), ``mm``, ``bmm``, ``mv``, ``dot``, ``vdot``, ``inv``,
``det``, ``solve`` and torch's functions written with them (``einsum`` has a module of its
own, :mod:`ctxgrad.ops.einsum`; the decompositions :mod:`ctxgrad.ops.decompositions`).

Each op is a :class:`~ctxgrad.autograd.Function` whose backward is written with ctxgrad ops
(most often the op itself on transposed operands), so that gradients of gradients work.
``outer``, ``tensordot`` and the fused products (``addmm``, ...) are compositions of other
ops (as they are in torch), so they need no Function of their own.  ``matmul`` chooses its
Function as torch does (``dot``, ``mv``, ``mm`` or a batched product).  The rows of the ops
are :data:`ROWS`, at the end; ``mm``, ``inverse``, ``det``, ... name their Function there
and their frontends are made from it.

Unlike ``@`` (which promotes), the named products require operands of one dtype, as torch does.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import cpp_name, promote_operands, short_name
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import VmapInfo, matrix_rule, unary_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import is_recording
from ctxgrad.autograd.saved import READ_BY_OTHER, save_for_gradients
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import broadcast_error, tangent_sum
from ctxgrad.ops.joining import Cat


class LinAlgError(RuntimeError):
    """A linear-algebra routine failed on its input (a singular matrix): ``torch.linalg.LinAlgError``."""


# C++ names of the scalar types, as torch prints them in some messages.
_CPP_NAMES = {
    "float64": "double",
    "float32": "float",
    "float16": "c10::Half",
    "int64": "long int",
    "int32": "int",
    "int16": "short int",
    "int8": "signed char",
    "uint8": "unsigned char",
    "bool": "bool",
    "complex64": "c10::complex<float>",
    "complex128": "c10::complex<double>",
}


def _not_for_bool(x: np.ndarray[Any, Any], kernel: str) -> None:
    if x.dtype == np.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


# --------------------------------------------------------------------------- products
# --------------------------------------------------------------------------- vmap of mm, mv, dot, bmm
def batch_matrix_product(
    cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], a: Tensor, b: Tensor
) -> tuple[Tensor, int]:
    """The batching rule of the matrix products (``matmul``, ``mm``, ``bmm``, ``mv``, ``dot``):
    a vector becomes a one-row (one-column) matrix, a batched operand gets the sample
    dimensions of the wider one after its batch dimension, then one ``matmul``."""
    la, lb = a.ndim - (in_dims[0] == 0), b.ndim - (in_dims[1] == 0)
    if la == 1:
        a = a.unsqueeze(-2)
    if lb == 1:
        b = b.unsqueeze(-1)
    n = max(max(la, 2), max(lb, 2))
    if in_dims[0] == 0 and max(la, 2) < n:
        a = a.reshape((a.shape[0],) + (1,) * (n - max(la, 2)) + tuple(a.shape[1:]))
    if in_dims[1] == 0 and max(lb, 2) < n:
        b = b.reshape((b.shape[0],) + (1,) * (n - max(lb, 2)) + tuple(b.shape[1:]))
    out = a @ b
    if la == 1 and lb == 1:
        out = out.squeeze(-1).squeeze(-1)
    elif la == 1:
        out = out.squeeze(-2)
    elif lb == 1:
        out = out.squeeze(-1)
    return out, 0


# The dimensions of one sample that mm, mv, dot and bmm take (a, b).
_PRODUCT_DIMS = {"mm": (2, 2), "mv": (2, 1), "dot": (1, 1), "bmm": (3, 3)}


def product_rule(op: str) -> Any:
    """The rule of ``op`` (``mm``, ``mv``, ``dot`` or ``bmm``): torch's checks of one sample's
    shapes first, since the batched ``matmul`` (:func:`batch_matrix_product`) would take (and
    broadcast) shapes the op refuses, then that ``matmul``."""

    def rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], a: Tensor, b: Tensor) -> tuple[Any, Any]:
        check_product_shapes(op, info.batch_size, in_dims, a, b)
        return batch_matrix_product(cls, info, in_dims, a, b)

    return classmethod(rule)


def check_product_shapes(op: str, size: int, in_dims: tuple[Any, ...], a: Tensor, b: Tensor) -> None:
    """Torch's errors under vmap for samples ``op`` cannot multiply: its messages name the
    shapes of the calls it lowers the batch to (``bmm``, or ``mm``/``mv`` of the folded
    batch), so they are reproduced here from the batch size ``size`` and one sample's shapes."""
    sa = tuple(a.shape[1:]) if in_dims[0] == 0 else tuple(a.shape)
    sb = tuple(b.shape[1:]) if in_dims[1] == 0 else tuple(b.shape)
    dims = _PRODUCT_DIMS[op]
    if (len(sa), len(sb)) != dims:
        if op == "dot":
            raise RuntimeError("Got wrong shapes for dot")
        raise RuntimeError(
            f"Shape mismatch: Got incorrect dims for {op}(a, b). a has dim {len(sa)}and b has dim {len(sb)}but "
            f"expected them to have dim {dims[0]} and dim {dims[1]}"
        )
    if op == "bmm" and sa[0] != sb[0] and 1 not in (sa[0], sb[0]):
        raise RuntimeError(
            f"The size of tensor a ({sa[0]}) must match the size of tensor b ({sb[0]}) at non-singleton dimension 1"
        )
    inner_a, inner_b = sa[-1], sb[-2] if len(sb) >= 2 else sb[0]
    if inner_a == inner_b:
        return
    if op == "bmm" or (in_dims[0] == 0) == (in_dims[1] == 0) or (op == "mm" and in_dims[0] is None):
        n = size * max(sa[0], sb[0]) if op == "bmm" else size
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{n}, {inner_a}] but got: "
            f"[{n}, {inner_b}]."
        )
    if in_dims[0] == 0:  # the batch of a folded into its rows, b shared
        rows = size * sa[0] if op != "dot" else size
        if op == "mm":
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner_a} and {inner_b}x{sb[1]})")
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{inner_a}), vec ({inner_b})")
    rows = sa[0] if op == "mv" else 1  # the batch of b as the columns of one matrix
    raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner_a} and {inner_b}x{size})")


class _MatrixProduct(Function[Tensor]):
    """``a @ b`` for matrices (or batches of them), the class's ``forward`` checking the
    shapes its torch op accepts: grad_a = grad @ bᵀ, grad_b = aᵀ @ grad, and the tangent
    ta @ b + a @ tb, each with the same op."""

    skips_without_gradient = True

    holomorphic = True

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        product = ctx.forward_cls.apply
        return (product(grad, b.mT) if need_a else None, product(a.mT, grad) if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, tb: Tensor) -> Tensor:
        a, b = ctx.saved_tensors
        product = ctx.forward_cls.apply
        out: Tensor = product(ta, b) + product(a, tb)
        return out


def _product_gradients(
    grad: Tensor, a: Tensor | None, b: Tensor | None, need_a: bool, need_b: bool, b_column_major: bool = False
) -> tuple[Tensor | None, Tensor | None] | None:
    """The gradients grad @ bᵀ (if ``need_a``) and aᵀ @ grad (if ``need_b``) of the product of
    the matrices ``a`` and ``b`` (each saved only where needed: None otherwise), computed on the
    arrays when nothing records (:func:`~ctxgrad.autograd.grad_mode.is_recording` is False) and all
    have one dtype; else None (the caller then applies ``Mm``).  ``Mm.apply`` would check nothing
    that can fail there and compute ``x @ y`` on the same arrays (a transpose is a view): the
    same values, without the bookkeeping of four calls.

    ``b_column_major`` (``b`` was column-major in forward, as a weight used through ``t()`` in
    ``linear`` is): b's gradient is computed as ``(gradᵀ @ a)ᵀ``, in b's layout, as torch's
    ``mm`` backward does, so that the weight's gradient, transposed back, is row-major like the
    weight and becomes its ``.grad`` by a plain copy."""
    if is_recording():
        return None
    g = grad.array
    if (a is not None and a.array.dtype != g.dtype) or (b is not None and b.array.dtype != g.dtype):
        return None
    grad_a = as_tensor(g @ b.array.T) if need_a and b is not None else None
    grad_b = None
    if need_b and a is not None:
        grad_b = as_tensor((g.T @ a.array).T if b_column_major else a.array.T @ g)
    return grad_a, grad_b


def _column_major(array: np.ndarray[Any, Any]) -> bool:
    """Whether a matrix is laid out by columns only (a transposed row-major one)."""
    flags = array.flags
    return bool(flags.f_contiguous and not flags.c_contiguous)


class Mm(_MatrixProduct):
    """``a @ b`` for two matrices; grad_a = grad @ bᵀ, grad_b = aᵀ @ grad."""

    vmap = product_rule("mm")

    node_name = "MmBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "self": 0,
        "mat2": 1,
        "self_sym_sizes": ("sizes", 0),
        "mat2_sym_sizes": ("sizes", 1),
    }

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = a.array, b.array
        _check_matrices(x, y)
        save_for_gradients(ctx, (a, b), READ_BY_OTHER)
        return as_tensor(x @ y)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        # (b's layout, where b was kept: a node with attributes would cost more than the layout saves)
        on_arrays = _product_gradients(grad, a, b, need_a, need_b, b is not None and _column_major(b.array))
        return _MatrixProduct.backward(ctx, grad) if on_arrays is None else on_arrays


def _check_matrices(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any], names: tuple[str, str] | None = None) -> None:
    """Torch's checks of ``mm``'s operands (``addmm``'s: ``names``, which its messages give
    with the rank that came): two matrices that multiply, of one dtype, not bool."""
    if x.ndim != 2 or y.ndim != 2:
        for array, name in zip((x, y), names or ("self", "mat2")):
            if array.ndim != 2:
                got = f", got {array.ndim}-D tensor" if names else ""
                raise RuntimeError(f"{name} must be a matrix{got}")
    if x.shape[1] != y.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and {y.shape[0]}x{y.shape[1]})"
        )
    if x.dtype != y.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_CPP_NAMES.get(x.dtype.name, x.dtype.name)} != {_CPP_NAMES.get(y.dtype.name, y.dtype.name)}"
        )
    _not_for_bool(x, "addmm_impl_cpu_")


class Addmm(Function[Tensor]):
    """``beta * input + alpha * (mat1 @ mat2)`` as one node, torch's ``AddmmBackward0`` (what
    ``nn.functional.linear`` records for a matrix input and a bias): grad_input = beta *
    grad (summed over the dimensions ``input`` was broadcast along), grad_mat1 = alpha * grad
    @ mat2ᵀ, grad_mat2 = alpha * mat1ᵀ @ grad; the tangent is the sum of those terms' tangents."""

    node_name = "AddmmBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "mat1": 0,
        "mat2": 1,
        "mat1_sym_sizes": ("sizes", 1),
        "mat2_sym_sizes": ("sizes", 2),
        "beta": "beta",
        "alpha": "alpha",
    }
    holomorphic = True  # linear in each operand
    skips_without_gradient = True

    @classmethod
    def vmap(
        cls, info: VmapInfo, in_dims: tuple[Any, ...], input: Tensor, mat1: Tensor, mat2: Tensor, beta: Any, alpha: Any
    ) -> tuple[Any, Any]:
        """``mm``'s rule for the product (its checks and one batched ``matmul``), then the scaled
        sum with ``input``, whose batched samples get leading dimensions of size 1."""
        _same_dtype("self and mat2 must have the same dtype, but got {0} and {1}", input, mat2)
        if in_dims[1] is None and in_dims[2] is None:  # (a batch of inputs to one product)
            product = Mm.apply(mat1, mat2)
            product = product.expand(info.batch_size, *product.shape)
        else:
            product, _ = Mm.vmap(info, in_dims[1:3], mat1, mat2)
        if in_dims[0] == 0 and input.ndim < 3:
            input = input.reshape((input.shape[0],) + (1,) * (3 - input.ndim) + tuple(input.shape[1:]))
        return _scaled_sum(input, product, beta, alpha), 0

    @staticmethod
    def forward(ctx: Any, input: Tensor, mat1: Tensor, mat2: Tensor, beta: Any, alpha: Any) -> Tensor:
        x, y = mat1.array, mat2.array
        _check_matrices(x, y, ("mat1", "mat2"))
        if input.array.dtype != y.dtype:
            _same_dtype("self and mat2 must have the same dtype, but got {0} and {1}", input, mat2)
        ctx.beta, ctx.alpha = beta, alpha
        ctx.mat2_column_major = _column_major(y)
        save_for_gradients(ctx, (mat1, mat2), _READ_BY_THE_OTHER_MATRIX)
        product = x @ y
        result = as_tensor(product)
        if beta == 1 and alpha == 1:  # (as nn.functional.linear calls it: one NumPy addition)
            _broadcast_result(input, result)
            product += input.array
            return result
        return _scaled_sum(input, result, beta, alpha)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None, None]:
        mat1, mat2 = ctx.saved_tensors
        need_input, need_mat1, need_mat2 = ctx.needs_input_grad[:3]
        beta, alpha = ctx.beta, ctx.alpha
        grad_input = (grad if beta == 1 else grad * beta) if need_input else None
        if alpha != 1 and (need_mat1 or need_mat2):
            grad = grad * alpha
        on_arrays = _product_gradients(grad, mat1, mat2, need_mat1, need_mat2, ctx.mat2_column_major)
        if on_arrays is not None:
            return grad_input, on_arrays[0], on_arrays[1], None, None
        grad_mat1 = Mm.apply(grad, mat2.mT) if need_mat1 else None
        grad_mat2 = Mm.apply(mat1.mT, grad) if need_mat2 else None
        return grad_input, grad_mat1, grad_mat2, None, None

    @staticmethod
    def jvp(ctx: Any, t_input: Tensor, t_mat1: Tensor, t_mat2: Tensor, _beta: Any, _alpha: Any) -> Tensor:
        mat1, mat2 = ctx.saved_tensors
        beta, alpha = ctx.beta, ctx.alpha
        tangent: Tensor = Mm.apply(t_mat1, mat2) + Mm.apply(mat1, t_mat2)
        if alpha != 1:
            tangent = tangent * alpha
        return tangent + (t_input if beta == 1 else t_input * beta)


# Addmm keeps mat1 for mat2's gradient and mat2 for mat1's (its arguments 1 and 2).
_READ_BY_THE_OTHER_MATRIX = ((2,), (1,))


class Bmm(_MatrixProduct):
    """A batch of matrix products: ``a[i] @ b[i]`` for 3-D ``a`` and ``b`` (no broadcasting)."""

    vmap = product_rule("bmm")

    node_name = "BmmBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "mat2": 1}

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = a.array, b.array
        if x.ndim != 3:
            raise RuntimeError("batch1 must be a 3D tensor")
        if y.ndim != 3:
            raise RuntimeError("batch2 must be a 3D tensor")
        if y.shape[0] != x.shape[0] or y.shape[1] != x.shape[2]:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: [{x.shape[0]}, {x.shape[2]}] "
                f"but got: [{y.shape[0]}, {y.shape[1]}]."
            )
        if x.dtype != y.dtype:
            raise RuntimeError(f"expected scalar type {short_name(x.dtype)} but found {short_name(y.dtype)}")
        _not_for_bool(x, "bmm")
        save_for_gradients(ctx, (a, b), READ_BY_OTHER)
        return as_tensor(np.matmul(x, y))


class Mv(Function[Tensor]):
    """Matrix times vector; grad_mat = outer(grad, vec), grad_vec = matᵀ @ grad."""

    vmap = product_rule("mv")

    node_name = "MvBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "vec": 1}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, v: Tensor) -> Tensor:
        x, y = a.array, v.array
        if x.ndim != 2 or y.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {x.ndim}, {y.ndim}")
        if x.shape[1] != y.shape[0]:
            raise RuntimeError(
                f"size mismatch, got input ({x.shape[0]}), mat ({x.shape[0]}x{x.shape[1]}), vec ({y.shape[0]})"
            )
        if x.dtype != y.dtype:
            vec, mat = short_name(y.dtype), short_name(x.dtype)
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {vec}, {mat}, and {vec}")
        _not_for_bool(x, "addmv_impl_cpu")
        save_for_gradients(ctx, (a, v), READ_BY_OTHER)
        return as_tensor(x @ y)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, v = ctx.saved_tensors
        need_a, need_v = ctx.needs_input_grad
        return (
            grad.reshape(-1, 1) * v if need_a else None,
            Mv.apply(a.mT, grad) if need_v else None,
        )

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, tv: Tensor) -> Tensor:
        a, v = ctx.saved_tensors
        return Mv.apply(ta, v) + Mv.apply(a, tv)


def _check_vectors(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> None:
    if x.ndim != 1 or y.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {x.ndim}D and {y.ndim}D tensors")
    if x.dtype != y.dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {short_name(x.dtype)} and {short_name(y.dtype)}"
        )
    if x.shape[0] != y.shape[0]:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] to have the same "
            f"number of elements, but got {x.shape[0]} and {y.shape[0]} elements respectively"
        )


class Dot(Function[Tensor]):
    """The inner product of two vectors (a 0-d tensor)."""

    vmap = product_rule("dot")

    node_name = "DotBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "tensor": 1}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = a.array, b.array
        _check_vectors(x, y)
        _not_for_bool(x, "dot")
        save_for_gradients(ctx, (a, b), READ_BY_OTHER)
        return as_tensor(np.dot(x, y))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad * b if need_a else None, grad * a if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, tb: Tensor) -> Tensor:
        a, b = ctx.saved_tensors
        return Dot.apply(ta, b) + Dot.apply(a, tb)


class Vdot(Dot):
    """``dot`` with the first vector conjugated; for real vectors it is ``dot``."""

    node_name = "VdotBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    holomorphic = False  # conj(a) . b: torch's formulas, conj(grad) * b and grad * a

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = a.array, b.array
        _check_vectors(x, y)
        _not_for_bool(x, "dot")
        save_for_gradients(ctx, (a, b), READ_BY_OTHER)
        return as_tensor(np.asarray(np.vdot(x, y)) if x.dtype.kind == "c" else np.dot(x, y))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        return (grad.conj() * b if need_a else None, grad * a if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, tb: Tensor) -> Tensor:
        a, b = ctx.saved_tensors
        return Vdot.apply(ta, b) + Vdot.apply(a, tb)


# --------------------------------------------------------------------------- inv, det, solve
def _check_square(x: np.ndarray[Any, Any], name: str) -> None:
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError(
            f"{name}: A must be batches of square matrices, but they are {x.shape[-2]} by {x.shape[-1]} matrices"
        )


def _check_floating(x: np.ndarray[Any, Any], name: str) -> None:
    if x.dtype.kind not in "fc":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {short_name(x.dtype)}")


def _zero_pivot(a: np.ndarray[Any, Any]) -> int:
    """The 1-based index of the first zero pivot of LU with partial pivoting (LAPACK's
    ``getrf`` info), or 0 when there is none."""
    u = np.array(a, dtype=np.float64 if a.dtype.kind == "f" else np.complex128)
    n = u.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        if u[p, k] == 0:
            return k + 1
        if p != k:
            u[[k, p]] = u[[p, k]]
        u[k + 1 :, k:] -= np.outer(u[k + 1 :, k] / u[k, k], u[k, k:])
    return 0


def _singular_error(a: np.ndarray[Any, Any], name: str, message: str) -> LinAlgError:
    """The error for the first singular matrix of a batch, worded as torch words it."""
    mats = a.reshape(-1, *a.shape[-2:])
    for i, m in enumerate(mats):
        info = _zero_pivot(m)
        if info or not np.all(np.isfinite(m)):
            batch = f"(Batch element {i}): " if a.ndim > 2 else ""
            return LinAlgError(f"{name}: {batch}" + message.format(info=info or 1))
    batch = "(Batch element 0): " if a.ndim > 2 else ""
    return LinAlgError(f"{name}: {batch}" + message.format(info=1))


_INV_SINGULAR = (
    "The diagonal element {info} is zero, the inversion could not be completed because the input matrix is singular."
)


def _spread_nan(
    solution: np.ndarray[Any, Any], a: np.ndarray[Any, Any], b: np.ndarray[Any, Any] | None = None
) -> np.ndarray[Any, Any]:
    """``solution`` of ``A X = B`` (``B`` the identity for an inverse) with NaN where torch's has
    it: its LAPACK substitutes without skipping zero terms, so a NaN in ``A`` makes the whole
    solution NaN, and one in a column of ``B`` that column of it (NumPy's skips the zeros and
    keeps some numbers: the inverse of [[nan, 0], [0, 1]] ends in 0, 1)."""
    bad = np.isnan(a).any(axis=(-2, -1))[..., None, None]
    if b is not None:
        bad = bad | np.isnan(b).any(axis=-2, keepdims=True)
    if not bad.any():
        return solution
    nan = complex(np.nan, np.nan) if solution.dtype.kind == "c" else np.nan
    spread: np.ndarray[Any, Any] = np.where(bad, nan, solution).astype(solution.dtype, copy=False)
    return spread


class LinalgInv(Function[Tensor]):
    """The inverse of a (batch of) square matrices; grad = -A⁻ᵀ @ grad @ A⁻ᵀ."""

    vmap = unary_rule

    node_name = "LinalgInvExBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"inverse": 0}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        x = a.array
        _check_square(x, "linalg.inv")
        _check_floating(x, "linalg.inv")
        try:
            out = _spread_nan(np.linalg.inv(x), x)
        except np.linalg.LinAlgError:
            raise _singular_error(x, "linalg.inv", _INV_SINGULAR) from None
        result = as_tensor(out)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        inv: Tensor = ctx.saved_tensors[0]
        inv_t = inv.mT
        return -(inv_t @ grad @ inv_t)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor) -> Tensor:
        inv: Tensor = ctx.saved_tensors[0]
        return -(inv @ ta @ inv)


class LinalgDet(Function[Tensor]):
    """The determinant of a (batch of) square matrices.

    Its gradient is the cofactor matrix times the output's gradient: ``det(A) * A⁻ᵀ`` for an
    invertible ``A``.  When some matrix of the batch is singular, the cofactors are computed as
    signed determinants of the minors instead (still exact, and differentiable again)."""

    vmap = matrix_rule("linalg.det: The input tensor A must have at least 2 dimensions.")

    node_name = "LinalgDetBackward0"
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        x = a.array
        _check_square(x, "linalg.det")
        _check_floating(x, "linalg.det")
        result = as_tensor(np.asarray(np.linalg.det(x), dtype=x.dtype))
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        a, det = ctx.saved_tensors
        g = grad.reshape(*grad.shape, 1, 1)
        return g * _cofactors(a, det)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor) -> Tensor:
        a, det = ctx.saved_tensors
        return (_cofactors(a, det) * ta).sum((-2, -1))


def _cofactors(a: Tensor, det: Tensor) -> Tensor:
    """The matrix of cofactors of ``a`` (``d det / d a``), differentiable."""
    n = a.array.shape[-1]
    if n == 0:
        return as_tensor(np.zeros_like(a.array))
    if np.all(np.isfinite(det.array)) and not np.any(det.array == 0):
        return det.reshape(*det.shape, 1, 1) * LinalgInv.apply(a).mT
    if n == 1:
        return as_tensor(np.ones_like(a.array))
    signs = np.where(np.add.outer(np.arange(n), np.arange(n)) % 2 == 0, 1.0, -1.0).astype(a.array.dtype)
    return as_tensor(signs) * LinalgDet.apply(Minors.apply(a))


def _minor_index(n: int) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    keep = np.array([[r for r in range(n) if r != i] for i in range(n)], dtype=np.intp)  # (n, n-1)
    return keep[:, None, :, None], keep[None, :, None, :]


class Minors(Function[Tensor]):
    """``(..., n, n) -> (..., n, n, n-1, n-1)``: entry ``[i, j]`` is ``a`` without row ``i``
    and column ``j``.  Linear; its adjoint is :class:`MinorsAdjoint`."""

    vmap = unary_rule

    node_name = "MinorsBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        data = a.array
        rows, cols = _minor_index(data.shape[-1])
        ctx.shape = data.shape
        return as_tensor(data[..., rows, cols])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return MinorsAdjoint.apply(grad, ctx.shape)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor) -> Tensor:
        return Minors.apply(ta)


class MinorsAdjoint(Function[Tensor]):
    """The adjoint of :class:`Minors`: each minor's entries summed back into ``shape``."""

    node_name = "MinorsAdjointBackward0"
    skips_without_gradient = True
    vmap = unary_rule  # (it works on the last four dimensions; ``shape``'s last is all it reads)

    @staticmethod
    def forward(ctx: Any, g: Tensor, shape: tuple[int, ...]) -> Tensor:
        n = shape[-1]
        rows, cols = _minor_index(n)
        values = g.array
        out = np.zeros(values.shape[:-4] + (n, n), dtype=values.dtype)
        index: Any = (Ellipsis, rows, cols)
        np.add.at(out, index, values)
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Minors.apply(grad), None

    @staticmethod
    def jvp(ctx: Any, tg: Tensor, _: None) -> Tensor:
        n = tg.array.shape[-3] + 1
        return MinorsAdjoint.apply(tg, tg.array.shape[:-4] + (n, n))


_SOLVE_SINGULAR = "The solver failed because the input matrix is singular."


class LinalgSolve(Function[Tensor]):
    """The solution ``X`` of ``A X = B`` (``X A = B`` when ``left`` is false), batched.

    ``B`` is a vector (or a batch of vectors) when it is 1-D or has ``A``'s shape without its
    last dimension, as in torch.  grad_B = solve(Aᵀ, grad); grad_A = -grad_B Xᵀ (``-Xᵀ grad_B``
    when ``left`` is false)."""

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], a: Tensor, b: Tensor, left: bool) -> tuple[Any, Any]:
        # one sample's B as a matrix (a vector gets a column), both sides given the sample
        # dimensions of the wider one after the batch, then one solve
        la, lb = a.ndim - (in_dims[0] == 0), b.ndim - (in_dims[1] == 0)
        a_shape = a.shape[1:] if in_dims[0] == 0 else a.shape
        b_shape = b.shape[1:] if in_dims[1] == 0 else b.shape
        vector = lb == 1 or (lb == la - 1 and tuple(b_shape) == tuple(a_shape[:-1]))
        if vector:
            b, lb = b.unsqueeze(-1), lb + 1
        n = max(la, lb)
        if in_dims[0] == 0 and la < n:
            a = a.reshape(a.shape[0], *([1] * (n - la)), *a.shape[1:])
        if in_dims[1] == 0 and lb < n:
            b = b.reshape(b.shape[0], *([1] * (n - lb)), *b.shape[1:])
        out = cls.apply(a, b, left)
        return (out.squeeze(-1) if vector else out), 0

    node_name = "LinalgSolveExBackward0"
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, left: bool) -> Tensor:
        x, y = a.array, b.array
        if y.dtype != x.dtype:
            raise RuntimeError(
                "linalg.solve: Expected A and B to have the same dtype, but found A of type "
                f"{short_name(x.dtype)} and B of type {short_name(y.dtype)} instead"
            )
        _check_floating(x, "linalg.solve")
        if x.ndim < 2:
            raise RuntimeError("linalg.solve: The input tensor A must have at least 2 dimensions.")
        vector = y.ndim == 1 or (y.ndim == x.ndim - 1 and y.shape == x.shape[:-1])
        y2 = y[..., None] if vector else y
        _check_square(x, "linalg.solve")
        if y2.ndim < 2:
            raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
        if (x.shape[-2] != y2.shape[-2]) if left else (x.shape[-1] != y2.shape[-1]):
            raise RuntimeError(
                f"linalg.solve: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                f"({x.shape[-2]}x{x.shape[-1]} and {y2.shape[-2]}x{y2.shape[-1]})"
            )
        try:
            batch = np.broadcast_shapes(y2.shape[:-2], x.shape[:-2])
        except ValueError:
            raise broadcast_error(np.empty(y2.shape[:-2]), np.empty(x.shape[:-2])) from None
        xa = np.broadcast_to(x, batch + x.shape[-2:])
        ya = np.broadcast_to(y2, batch + y2.shape[-2:])
        lhs, rhs = (xa, ya) if left else (np.swapaxes(xa, -1, -2), np.swapaxes(ya, -1, -2))
        try:
            out = _spread_nan(np.linalg.solve(lhs, rhs), lhs, rhs)
            out = out if left else np.swapaxes(out, -1, -2)
        except np.linalg.LinAlgError:
            raise _singular_error(xa, "ctxgrad.linalg.solve", _SOLVE_SINGULAR) from None
        if vector:
            out = out[..., 0]
        result = as_tensor(np.ascontiguousarray(out))
        ctx.vector, ctx.left = vector, left
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        a, out = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad[:2]
        left = ctx.left
        grad_b = LinalgSolve.apply(a.mT, grad, left)
        grad_a = None
        if need_a:
            gb, x = grad_b, out
            if ctx.vector:
                gb, x = gb.reshape(*gb.shape, 1), x.reshape(*x.shape, 1)
            grad_a = -(gb @ x.mT) if left else -(x.mT @ gb)
        return grad_a, grad_b if need_b else None, None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, tb: Tensor, _: None) -> Tensor:
        a, out = ctx.saved_tensors
        x = out.reshape(*out.shape, 1) if ctx.vector else out
        if ctx.left:
            d = ta @ x
        else:
            d = x @ ta
        if ctx.vector:
            d = d.reshape(*d.shape[:-1])
        return LinalgSolve.apply(a, tb - d, ctx.left)


# --------------------------------------------------------------------------- compositions
def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """Outer product of two vectors: ``input.reshape(-1, 1) * vec2``, as torch computes it."""
    if input.array.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.array.ndim}-D")
    if vec2.array.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.array.ndim}-D")
    return input.reshape(-1, 1) * vec2


def _dim_list(value: Any) -> list[int]:
    if isinstance(value, (int, np.integer)):
        return [int(value)]
    if isinstance(value, Tensor):
        return [int(v) for v in np.atleast_1d(value.array)]
    return [int(v) for v in value]


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Contract ``dims`` of ``a`` with ``dims`` of ``b``, as torch does: permute, reshape, ``mm``, reshape."""
    if isinstance(dims, Tensor) and dims.array.ndim == 0:
        dims = int(dims.array)
    if isinstance(dims, (int, np.integer)):
        n = int(dims)
        if n < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={n}")
        if n > min(a.array.ndim, b.array.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={n}")
        dims_a, dims_b = list(range(-n, 0)), list(range(n))
    else:
        if isinstance(dims, Tensor):
            dims = dims.array.tolist()
        first, second = dims
        if isinstance(first, (int, np.integer)) or isinstance(second, (int, np.integer)):
            raise TypeError("tensordot(): argument 'dims_self' (position 3) must be tuple of ints, not int")
        dims_a, dims_b = _dim_list(first), _dim_list(second)
    if a.array.dtype != b.array.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    axes_a = [_wrap_dim(d, a.array.ndim) for d in dims_a]
    axes_b = [_wrap_dim(d, b.array.ndim) for d in dims_b]
    for axes in (axes_a, axes_b):
        for i, d in enumerate(axes):
            if d in axes[:i]:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    t1, t2 = a, b
    csize = 1
    for da, db, ga, gb in zip(axes_a, axes_b, dims_a, dims_b):
        s1, s2 = a.array.shape[da], b.array.shape[db]
        if s2 == 1:
            t1 = t1.sum(da, keepdim=True)
        elif s1 == 1:
            t2 = t2.sum(db, keepdim=True)
        elif s1 != s2:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {s1} in dim {ga} and second has size "
                f"{s2} in dim {gb}"
            )
        else:
            csize *= s1
    free_a = [d for d in range(a.array.ndim) if d not in axes_a]
    free_b = [d for d in range(b.array.ndim) if d not in axes_b]
    sizes_a = [a.array.shape[d] for d in free_a]
    sizes_b = [b.array.shape[d] for d in free_b]
    m1 = t1.permute(*free_a, *axes_a).reshape(math.prod(sizes_a), csize)
    m2 = t2.permute(*axes_b, *free_b).reshape(csize, math.prod(sizes_b))
    return Mm.apply(m1, m2).reshape(*sizes_a, *sizes_b)


# --------------------------------------------------------------------------- matmul
class MatMul(Function[Tensor]):
    """``a @ b`` with NumPy's ``matmul`` rules: 1-D, 2-D and broadcast batches.

    For matrices, grad_a = grad @ bᵀ and grad_b = aᵀ @ grad; a 1-D side is treated as a
    row (left) or column (right) and squeezed back.  Batch dimensions that were broadcast
    are summed away by the engine.
    """

    vmap = classmethod(batch_matrix_product)

    node_name = "MmBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "self": 0,
        "mat2": 1,
        "self_sym_sizes": ("sizes", 0),
        "mat2_sym_sizes": ("sizes", 1),
    }
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = a.array, b.array
        if x.ndim == 0 or y.ndim == 0:
            raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {x.ndim}D and {y.ndim}D")
        x, y = promote_operands(x, y)
        if x.shape[-1] != y.shape[-2 if y.ndim > 1 else 0]:
            if x.ndim == 1 and y.ndim == 1:
                raise RuntimeError(
                    f"inconsistent tensor size, expected tensor [{x.shape[0]}] and src [{y.shape[0]}] to have "
                    f"the same number of elements, but got {x.shape[0]} and {y.shape[0]} elements respectively"
                )
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, x.shape))} and "
                f"{'x'.join(map(str, y.shape))})"
            )
        save_for_gradients(ctx, (a, b), READ_BY_OTHER)
        ctx.vectors = (x.ndim == 1, y.ndim == 1)  # (backward lifts a vector to a matrix)
        try:
            return as_tensor(np.matmul(x, y))
        except ValueError:
            raise broadcast_error(np.empty(x.shape[:-2]), np.empty(y.shape[:-2])) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors  # (each saved only where the other's gradient is needed)
        need_a, need_b = ctx.needs_input_grad
        a_vec, b_vec = ctx.vectors
        if a_vec and b_vec:
            return (grad * b if need_a else None, grad * a if need_b else None)
        # Lift vectors to matrices so that one rule covers every case.
        g2 = grad
        if a_vec:
            g2 = g2.reshape(*g2.shape[:-1], 1, g2.shape[-1])
        if b_vec:
            g2 = g2.reshape(*g2.shape, 1)
        grad_a = grad_b = None
        if need_a:
            grad_a = g2 @ (b.reshape(-1, 1) if b_vec else b).mT
            if a_vec:
                grad_a = grad_a.reshape(*grad_a.shape[:-2], grad_a.shape[-1])
        if need_b:
            grad_b = (a.reshape(1, -1) if a_vec else a).mT @ g2
            if b_vec:
                grad_b = grad_b.reshape(*grad_b.shape[:-1])
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        a, b = ctx.saved_tensors
        return tangent_sum(None if ta is None else ta @ b, None if tb is None else a @ tb)


class MatMulUnsqueezed(MatMul):
    """``vector @ matrix``: torch computes it as ``(v[None] @ m)[0]``, hence its node name."""

    node_name = "SqueezeBackward4"


class BatchedMatMul(MatMul):
    """``@`` with a batch dimension on either side (broadcast as NumPy's ``matmul``)."""

    node_name = "UnsafeViewBackward0"


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with NumPy's ``matmul`` rules (1-D, 2-D, batched).

    Dispatched as torch dispatches it: ``dot`` for two vectors, ``mv`` for a matrix and a
    vector, ``mm`` for two matrices, a batched product otherwise; so the node names, the
    refusal of mixed dtypes and the error messages are torch's.  ``other`` may be anything
    ``ctxgrad.tensor`` takes (``x @ [[1.0], [2.0]]``).
    """
    a, b = input, other if isinstance(other, Tensor) else as_tensor(other)
    x, y = a.array, b.array
    na, nb = x.ndim, y.ndim
    if na == 1 and nb == 1:
        return Dot.apply(a, b)
    if na == 2 and nb == 1:
        return Mv.apply(a, b)
    if na == 2 and nb == 2:
        return Mm.apply(a, b)
    if na == 0 or nb == 0:
        return MatMul.apply(a, b)  # its error names both dimensions
    if na == 1 and nb == 2:
        if x.shape[0] != y.shape[0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied (1x{x.shape[0]} and {y.shape[0]}x{y.shape[1]})"
            )
        _same_dtype_for_mm(x, y)
        _not_for_bool(x, "addmm_impl_cpu_")
        return MatMulUnsqueezed.apply(a, b)
    # A batch on one side at least.  torch folds a batched left side into one matrix when
    # the right side has no batch, so its errors are those of mv and mm there.
    if nb == 1:
        rows = int(np.prod(x.shape[:-1]))
        if x.shape[-1] != y.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{x.shape[-1]}), vec ({y.shape[0]})")
        if x.dtype != y.dtype:
            vec, mat = short_name(y.dtype), short_name(x.dtype)
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got {vec}, {mat}, and {vec}")
    elif nb == 2 and na > 2:
        _same_dtype_for_mm(x, y)
    elif na == 1:
        batch = int(np.prod(y.shape[:-2]))
        if y.shape[-2] != x.shape[0]:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {x.shape[0]}] but got: "
                f"[{batch}, {y.shape[-2]}]."
            )
    if x.dtype != y.dtype:
        raise RuntimeError(f"expected scalar type {short_name(x.dtype)} but found {short_name(y.dtype)}")
    _not_for_bool(x, "bmm")
    return BatchedMatMul.apply(a, b)


def rmatmul_operator(input: Tensor, other: Any) -> Tensor:
    """``other @ input`` (``__rmatmul__``)."""
    return matmul(other if isinstance(other, Tensor) else as_tensor(other), input)


def _same_dtype_for_mm(x: np.ndarray[Any, Any], y: np.ndarray[Any, Any]) -> None:
    if x.dtype != y.dtype:
        raise RuntimeError(
            "expected m1 and m2 to have the same dtype, but got: "
            f"{_CPP_NAMES.get(x.dtype.name, x.dtype.name)} != {_CPP_NAMES.get(y.dtype.name, y.dtype.name)}"
        )


# --------------------------------------------------------------------------- fused products and
# other functions of torch's linear algebra, written with the ops above (as torch writes
# several of them), so each inherits its gradient, double backward and forward mode.
def _scaled_sum(input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """``beta * input + alpha * product`` (torch's fused ``add*`` ops; a factor of 1 is skipped,
    and ``beta == 0`` ignores ``input``, NaN and inf included, as torch)."""
    _broadcast_result(input, product)
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    scaled = input if beta == 1 else input * beta
    result: Tensor = scaled + product
    return result


def _broadcast_result(input: Tensor, product: Tensor) -> Tensor:
    """``product`` after torch's check that ``input`` expands to its shape (the error is
    ``expand``'s)."""
    given, wanted = input.array.shape, product.array.shape
    if given == wanted[-1:] or given == wanted:  # (a bias, or a full matrix: the common cases)
        return product
    expands = len(given) <= len(wanted) and all(
        n == m or n == 1 for n, m in zip(reversed(given), reversed(wanted))
    )  # (NumPy's broadcast_shapes, written out: it costs more than the product of small matrices)
    if not expands:
        input.expand(*wanted)  # raises torch's message
    return product


def _same_dtype(message: str, *operands: Tensor) -> None:
    """torch's refusal of fused operands of different dtypes (``message`` is formatted with
    their dtypes' torch names ``{0}``, ``{1}``, ... and C++ names ``{c0}``, ...)."""
    dtypes = [t.array.dtype for t in operands]
    if any(dt != dtypes[0] for dt in dtypes):
        names = {f"c{i}": cpp_name(dt) for i, dt in enumerate(dtypes)}
        raise RuntimeError(message.format(*(short_name(dt) for dt in dtypes), **names))


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` for 2-D ``mat1`` and ``mat2``."""
    return Addmm.apply(input, mat1, mat2, beta, alpha)


class _ScaledProduct(Function[Tensor]):
    """``beta * input + alpha * product(a, b)`` as one node, as torch records its fused ``add*``
    ops (``Addmm`` is the one of two matrices): ``forward`` computes the product with the op's
    own Function (its checks and errors), the gradients are ctxgrad ops (differentiable again
    under ``create_graph``), and ``input``'s is ``beta * grad``, summed down to its shape.  Under
    ``vmap`` the same ``forward`` and ``backward`` run on batched tensors, whose ops batch."""

    holomorphic = True  # linear in each operand
    skips_without_gradient = True
    generate_vmap_rule = True

    @staticmethod
    def product(a: Tensor, b: Tensor) -> Tensor:
        raise NotImplementedError

    @staticmethod
    def gradients(grad: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        """The gradients of ``product(a, b)`` given the product's, ``grad``."""
        raise NotImplementedError

    @staticmethod
    def check(input: Tensor, a: Tensor, b: Tensor, product: Tensor) -> None:
        """The op's own check of ``input`` against the product, before the sum's."""

    @classmethod
    def forward(cls, ctx: Any, input: Tensor, a: Tensor, b: Tensor, beta: Any, alpha: Any) -> Tensor:
        ctx.beta, ctx.alpha = beta, alpha
        ctx.save_for_backward(a, b)
        product = cls.product(a, b)
        cls.check(input, a, b, product)
        return _scaled_sum(input, product, beta, alpha)

    @classmethod
    def backward(cls, ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        a, b = ctx.saved_tensors
        need_input, need_a, need_b = ctx.needs_input_grad[:3]
        grad_input = (grad if ctx.beta == 1 else grad * ctx.beta) if need_input else None
        if not (need_a or need_b):
            return grad_input, None, None, None, None
        grad_a, grad_b = cls.gradients(grad if ctx.alpha == 1 else grad * ctx.alpha, a, b)
        return grad_input, grad_a if need_a else None, grad_b if need_b else None, None, None

    @classmethod
    def jvp(cls, ctx: Any, t_input: Tensor, t_a: Tensor, t_b: Tensor, _beta: Any, _alpha: Any) -> Tensor:
        a, b = ctx.saved_tensors
        tangent: Tensor = cls.product(t_a, b) + cls.product(a, t_b)
        if ctx.alpha != 1:
            tangent = tangent * ctx.alpha
        return tangent + (t_input if ctx.beta == 1 else t_input * ctx.beta)


_SCALARS = {"beta": "beta", "alpha": "alpha"}


class Addmv(_ScaledProduct):
    """``beta * input + alpha * (mat @ vec)``: grad_mat = outer(grad, vec), grad_vec = matᵀ @ grad."""

    node_name = "AddmvBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"mat": 0, "vec": 1, **_SCALARS}

    @staticmethod
    def product(a: Tensor, b: Tensor) -> Tensor:
        return Mv.apply(a, b)

    @staticmethod
    def gradients(grad: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return grad.reshape(-1, 1) * b, Mv.apply(a.mT, grad)

    @staticmethod
    def check(input: Tensor, a: Tensor, b: Tensor, product: Tensor) -> None:
        if input.dim() > 1 or (input.dim() == 1 and input.shape[0] not in (1, product.shape[0])):
            raise RuntimeError(
                f"size mismatch, got input ({'x'.join(map(str, input.shape))}), "
                f"mat ({'x'.join(map(str, a.shape))}), vec ({'x'.join(map(str, b.shape))})"
            )


class Addr(_ScaledProduct):
    """``beta * input + alpha * outer(vec1, vec2)``: grad_vec1 = grad @ vec2, grad_vec2 = gradᵀ @ vec1."""

    node_name = "AddrBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"vec1": 0, "vec2": 1, **_SCALARS}

    @staticmethod
    def product(a: Tensor, b: Tensor) -> Tensor:
        return outer(a, b)

    @staticmethod
    def gradients(grad: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return Mv.apply(grad, b), Mv.apply(grad.mT, a)


class Baddbmm(_ScaledProduct):
    """``beta * input + alpha * bmm(batch1, batch2)``: the gradients of ``bmm``."""

    node_name = "BaddbmmBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"batch1": 0, "batch2": 1, **_SCALARS}

    @staticmethod
    def product(a: Tensor, b: Tensor) -> Tensor:
        return Bmm.apply(a, b)

    @staticmethod
    def gradients(grad: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return Bmm.apply(grad, b.mT), Bmm.apply(a.mT, grad)


class Addbmm(_ScaledProduct):
    """``beta * input + alpha * sum_b (batch1[b] @ batch2[b])``: the gradients of ``bmm`` of the
    gradient repeated along the batch."""

    node_name = "AddbmmBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "batch1": 0,
        "batch2": 1,
        "batch1_sym_argsize_0": lambda ctx: ctx.saved_tensors[0].shape[0],
        "batch1_sym_argsize_1": lambda ctx: ctx.saved_tensors[0].shape[1],
        "batch2_sym_argsize_2": lambda ctx: ctx.saved_tensors[1].shape[2],
        **_SCALARS,
    }

    @staticmethod
    def product(a: Tensor, b: Tensor) -> Tensor:
        return Bmm.apply(a, b).sum(0)

    @staticmethod
    def check(input: Tensor, a: Tensor, b: Tensor, product: Tensor) -> None:
        _same_dtype("self and mat2 must have the same dtype, but got {0} and {1}", input, b)

    @staticmethod
    def gradients(grad: Tensor, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        repeated = grad.expand(a.shape[0], *grad.shape)
        return Bmm.apply(repeated, b.mT), Bmm.apply(a.mT, repeated)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` for a 2-D ``mat`` and a 1-D ``vec``."""
    _same_dtype("addmv input tensors must have the same dtype, but got {0}, {1}, and {2}", input, mat, vec)
    return Addmv.apply(input, mat, vec, beta, alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    return Addr.apply(input, vec1, vec2, beta, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)``."""
    _same_dtype("Input dtypes must be the same, got: input {c0}, batch1: {c1}, batch2: {c2}", input, batch1, batch2)
    return Baddbmm.apply(input, batch1, batch2, beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * sum_b (batch1[b] @ batch2[b])``."""
    return Addbmm.apply(input, batch1, batch2, beta, alpha)


def _expm(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``exp`` of each square matrix of ``a``: scaling and squaring with an 18-term Taylor
    series (each matrix is scaled by ``2**-s`` to a 1-norm at most 1/2, where the series' error
    is below 1e-21, then squared ``s`` times)."""
    n = a.shape[-1]
    norm = np.abs(a).sum(-2).max(-1) if n else np.zeros(a.shape[:-2])
    s = np.maximum(0, np.ceil(np.log2(np.maximum(norm, 1e-300) / 0.5))).astype(int)
    top = int(s.max()) if s.size else 0
    scaled = a / (2.0**s)[..., None, None]
    eye = np.broadcast_to(np.eye(n, dtype=a.dtype), a.shape)
    term, total = eye.copy(), eye.copy()
    for k in range(1, 19):
        term = term @ scaled / k
        total = total + term
    for i in range(top):  # square each matrix as many times as it was halved
        squared = total @ total
        total = np.where((s > i)[..., None, None], squared, total)
    out: np.ndarray[Any, Any] = total.astype(a.dtype, copy=False)
    return out


class LinalgMatrixExp(Function[Tensor]):
    """The matrix exponential of a square matrix (or of each matrix of a batch).

    ``sum_k A^k / k!``.  Its derivative in direction ``E`` is the upper-right block of
    ``exp([[A, E], [0, A]])``; the gradient is the same with ``A^H`` and the incoming gradient
    (both written with this Function, so they can be differentiated again)."""

    vmap = unary_rule

    node_name = "LinalgMatrixExpBackward0"
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        x = a.array
        ctx.save_for_backward(a)
        if x.dtype == np.float16:  # (half precision would lose the series: computed in float32)
            return as_tensor(_expm(x.astype(np.float32)).astype(np.float16))
        return as_tensor(_expm(x))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return _exp_block(a.mT, grad)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return _exp_block(a, ta)


def _exp_block(a: Tensor, e: Tensor) -> Tensor:
    """The upper-right block of ``exp([[a, e], [0, a]])``: the derivative of exp at ``a`` along ``e``."""
    n = a.shape[-1]
    zeros = as_tensor(np.zeros(a.shape, dtype=np.result_type(a.array, e.array)))
    block = Cat.apply(-2, Cat.apply(-1, a, e), Cat.apply(-1, zeros, a))
    out: Tensor = LinalgMatrixExp.apply(block)[..., :n, n:]
    return out


def matrix_exp_args(name: str, input: Tensor) -> tuple[Tensor]:
    """torch's checks of ``matrix_exp``'s input: a (batch of) square floating or complex matrices."""
    _check_square(input.array, "linalg.matrix_exp")
    if input.array.dtype.kind not in "fc":
        raise RuntimeError(
            "linalg.matrix_exp: Expected a floating point or complex tensor as input. "
            f"Got {short_name(input.array.dtype)}"
        )
    return (input,)


def _scaled_sum_(input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """In place: ``input = beta * input + alpha * product``, written with in-place ops (so the
    version counter, views and leaf checks are theirs)."""
    if tuple(product.shape) != tuple(input.shape):
        raise RuntimeError(
            f"Bad in-place call: input tensor size {list(input.shape)} and output tensor size "
            f"{list(product.shape)} should match"
        )
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        input.zero_()
    elif beta != 1:
        input.mul_(beta)
    out: Tensor = input.add_(product)
    return out


def addmm_(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In place: ``beta * self + alpha * (mat1 @ mat2)``."""
    return _scaled_sum_(input, Mm.apply(mat1, mat2), beta, alpha)


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In place: ``beta * self + alpha * (mat @ vec)``."""
    return _scaled_sum_(input, Mv.apply(mat, vec), beta, alpha)


def addr_(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In place: ``beta * self + alpha * outer(vec1, vec2)``."""
    return _scaled_sum_(input, outer(vec1, vec2), beta, alpha)


def baddbmm_(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In place: ``beta * self + alpha * bmm(batch1, batch2)``."""
    return _scaled_sum_(input, Bmm.apply(batch1, batch2), beta, alpha)


def addbmm_(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """In place: ``beta * self + alpha * sum_b (batch1[b] @ batch2[b])``."""
    return _scaled_sum_(input, Bmm.apply(batch1, batch2).sum(0), beta, alpha)


# --------------------------------------------------------------------------- rows
ROWS: list[Op] = [
    # ``@`` chooses its Function (dot, mv, mm, a batched product) as torch does
    Op("matmul", matmul, dunders=("__matmul__",), out=True, numpy=("matmul",)),
    Op("__rmatmul__", rmatmul_operator, function=False),
    Op("mm", Mm, params="input: Tensor, mat2: Tensor", out=True),
    Op("bmm", Bmm, params="input: Tensor, mat2: Tensor", out=True),
    Op("mv", Mv, params="input: Tensor, vec: Tensor", out=True),
    Op("dot", Dot, params="input: Tensor, tensor: Tensor", out=True),
    Op("vdot", Vdot, params="input: Tensor, other: Tensor", out=True),
    Op("outer", outer, aliases=("ger",), out=True),
    Op("inverse", LinalgInv, out=True),
    Op("det", LinalgDet),
    Op("tensordot", tensordot, method=False, out=True),
    Op("addmm", addmm, inplace=addmm_, out=True),
    Op("addmv", addmv, inplace=addmv_, out=True),
    Op("addr", addr, inplace=addr_, out=True),
    Op("baddbmm", baddbmm, inplace=baddbmm_, out=True),
    Op("addbmm", addbmm, inplace=addbmm_, out=True),
    Op("matrix_exp", LinalgMatrixExp, args=matrix_exp_args),
]
