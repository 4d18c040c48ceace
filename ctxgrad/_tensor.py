"""The Tensor: a NumPy array plus the autograd bookkeeping that links it into a graph.

A tensor holds

* ``_data``: the ``numpy.ndarray`` with its values (shared, never copied, by views,
  ``detach()`` and ``from_numpy``);
* ``requires_grad`` and, for a result of a recorded op, ``grad_fn``: the backward node
  (the ctx of the ``Function`` that made it) and ``_output_nr``, which output of that node
  it is.  A tensor without ``grad_fn`` is a *leaf*; a leaf that requires grad collects its
  gradient in ``.grad`` through an ``AccumulateGrad`` node;
* a version counter, shared with its views and with ``detach()``, which every in-place
  change bumps.  Saving a tensor for backward records the version; reading it back checks
  it, so a saved value that was changed in place is an error, never a stale gradient.

Every operator and method that computes (``+``, ``@``, ``sum``, ``reshape``, ...) is an
ordinary :class:`~ctxgrad.autograd.Function` in :mod:`ctxgrad.ops`, applied exactly as a
user applies their own.

Rarely set attributes (hooks, the grad accumulator, ``_base`` of a view) live as class
defaults, so that making a tensor writes only what differs from them: making tensors is
the hottest path in the library.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._format import add_suffixes, format_array
from ctxgrad._state import _state

if TYPE_CHECKING:
    from ctxgrad.autograd.graph import AccumulateGrad, Node, RemovableHandle


class _VersionCounter:
    """How many in-place changes the shared storage of a tensor and its views has seen."""

    __slots__ = ("value",)

    def __init__(self) -> None:
        self.value = 0


class Size(tuple[int, ...]):
    """A tensor's shape: a tuple of ints that prints as ``ctxgrad.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"ctxgrad.Size({list(self)})"

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        n = 1
        for d in self:
            n *= d
        return n


class device:
    """The device a tensor lives on; ctxgrad has one, the CPU."""

    __slots__ = ("index", "type")
    index: int | None
    type: str

    def __init__(self, type: str | device = "cpu", index: int | None = None) -> None:
        name: str = type.type if isinstance(type, device) else str(type).split(":")[0]
        if name != "cpu":
            raise RuntimeError(f"ctxgrad runs on the CPU only; got device '{type}'")
        self.type = "cpu"
        self.index = index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, device):
            return other.type == self.type
        if isinstance(other, str):
            return other.split(":")[0] == self.type
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.type)

    def __repr__(self) -> str:
        return f"device(type='{self.type}')"

    def __str__(self) -> str:
        return self.type


_CPU = device("cpu")

_NOT_LEAF_MSG = (
    "you can only change requires_grad flags of leaf variables. If you want to use a "
    "computed variable in a subgraph that doesn't require differentiation use "
    "var_no_grad = var.detach()."
)


def _check_requires_grad_dtype(dt: np.dtype[Any], factory: bool) -> None:
    """Torch's error for an integer or bool tensor asked to require grad (worded as each
    entry point words it: factories, the setter, ``requires_grad_``)."""
    if dt.kind not in "fc":
        if factory:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        raise RuntimeError("only Tensors of floating point dtype can require gradients")


def _check_requires_grad_setter(dt: np.dtype[Any]) -> None:
    if dt.kind not in "fc":
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")


class Tensor:
    """An n-dimensional array that can record the operations applied to it.

    >>> import ctxgrad
    >>> x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([2., 4.])
    """

    # Class defaults: an instance stores only the attributes that differ from them.
    _requires_grad: bool = False
    _grad: Tensor | None = None
    _grad_fn: Node | None = None
    _output_nr: int = 0
    _vc: _VersionCounter | None = None
    _base: Tensor | None = None
    _hooks: list[Callable[[Tensor], Tensor | None]] | None = None
    _post_acc_hooks: list[Callable[[Tensor], None]] | None = None
    _accumulator: weakref.ref[AccumulateGrad] | None = None
    _retains_grad: bool = False
    _inference: bool = False
    _view_made_in_function: bool = False
    _fw: dict[int, Tensor] | None = None  # forward-mode tangents by dual level

    # NumPy must hand ``ndarray * tensor`` back to Tensor.__rmul__.
    __array_ufunc__ = None
    __hash__ = object.__hash__

    _data: np.ndarray[Any, Any]

    def __init__(self, data: Any = (), *, dtype: Any = None, requires_grad: bool = False) -> None:
        arr = _array_from(data, dtype)
        self._data = arr
        if requires_grad:
            _check_requires_grad_dtype(arr.dtype, True)
            self._requires_grad = True

    # ------------------------------------------------------------------ basic facts
    @property
    def data(self) -> Tensor:
        """The values as a new leaf tensor that shares storage but not the version counter.

        Changes made through ``.data`` are invisible to autograd, as in torch.
        """
        return _wrap(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data = value._data

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are computed for this tensor."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value and self._grad_fn is None:
            _check_requires_grad_setter(self._data.dtype)
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` of a leaf in place and return it."""
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(_NOT_LEAF_MSG)
            return self
        if requires_grad:
            _check_requires_grad_dtype(self._data.dtype, False)
            if self._inference and not _state.inference:
                raise RuntimeError(
                    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
                )
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor (None for leaves)."""
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        """True for tensors that no recorded op made (``grad_fn is None``)."""
        return self._grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of ``grad_fn`` this tensor is."""
        return self._output_nr

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, and non-leaves after ``retain_grad()``)."""
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its "
                ".grad attribute won't be populated during autograd.backward(). If you indeed want "
                "the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the "
                "non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
                "the leaf Tensor instead.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is None:
            self._grad = None
            return
        if not isinstance(value, Tensor):
            raise TypeError(
                f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}"
            )
        if value._data.shape != self._data.shape:
            raise RuntimeError(
                f"attempting to assign a gradient of size '{list(value._data.shape)}' to a tensor of "
                f"size '{list(self._data.shape)}'. Please ensure that the gradient and the tensor are "
                "the same size"
            )
        if value._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_dtypes.short_name(value._data.dtype).lower()}' "
                "to a tensor "
                f"with grad_dtype '{_dtypes.short_name(self._data.dtype)}'. The gradient must match "
                "the tensor's grad_dtype (defaults to the tensor's dtype)."
            )
        self._grad = value

    @property
    def shape(self) -> Size:
        """The shape as a :class:`Size`."""
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the length of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self) -> np.dtype[Any]:
        """The element type, a NumPy dtype (``ctxgrad.float32`` and friends)."""
        dt: np.dtype[Any] = self._data.dtype
        return dt

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements."""
        return int(self._data.size)

    def nelement(self) -> int:
        """The number of elements."""
        return int(self._data.size)

    def element_size(self) -> int:
        """Bytes per element."""
        return int(self._data.itemsize)

    @property
    def device(self) -> device:
        """Always ``device(type='cpu')``."""
        return _CPU

    @property
    def is_cuda(self) -> bool:
        """Always False: ctxgrad runs on the CPU."""
        return False

    def is_floating_point(self) -> bool:
        """True for float16/32/64 tensors."""
        return bool(self._data.dtype.kind == "f")

    def is_complex(self) -> bool:
        """True for complex tensors."""
        return bool(self._data.dtype.kind == "c")

    def is_contiguous(self) -> bool:
        """True when the elements are laid out in row-major order without gaps."""
        return bool(self._data.flags.c_contiguous)

    def is_inference(self) -> bool:
        """True for tensors made inside ``inference_mode``."""
        return self._inference

    @property
    def _version(self) -> int:
        vc = self._vc
        return 0 if vc is None else vc.value

    def _get_vc(self) -> _VersionCounter:
        vc = self._vc
        if vc is None:
            vc = self._vc = _VersionCounter()
        return vc

    def _bump_version(self) -> None:
        self._get_vc().value += 1

    @property
    def T(self) -> Tensor:
        """The dimensions reversed (``permute`` of all dimensions)."""
        return _shape.Permute.apply(self, tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        """The last two dimensions swapped."""
        return self.transpose(-2, -1)

    # ------------------------------------------------------------------ conversion
    def numpy(self, *, force: bool = False) -> np.ndarray[Any, Any]:
        """The values as a NumPy array that shares memory with this tensor.

        As in torch, a tensor that requires grad refuses while grad mode is on (inside a
        Function's ``forward`` or ``no_grad`` it is allowed).
        """
        if self._requires_grad and _state.grad_enabled and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        return self._data

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        arr: np.ndarray[Any, Any] = self._data
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            arr = arr.astype(dtype)
        elif copy:
            arr = arr.copy()
        return arr

    def item(self) -> Any:
        """The single value as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self) -> Any:
        """The values as (nested) Python lists."""
        return self._data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()).item())

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self._data.shape[0])

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __repr__(self) -> str:
        data = self._data
        prefix = "tensor("
        suffixes = []
        if data.size == 0 and data.ndim != 1:
            body = "[]"
            suffixes.append(f"size={tuple(data.shape)}")
        elif data.size == 0:
            body = "[]"
        else:
            body = format_array(data, len(prefix))
        dt = data.dtype
        if dt not in (_dtypes.get_default_dtype(), _dtypes.int64, _dtypes.bool_) and not (
            dt.kind == "c" and dt == _dtypes.scalar_dtype(1j)
        ):
            suffixes.append(f"dtype={_dtypes.dtype_repr(dt)}")
        if self._grad_fn is not None:
            suffixes.append(f"grad_fn=<{self._grad_fn.name()}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        return add_suffixes(prefix + body, suffixes, len(prefix))

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and spec:
            return format(self.item(), spec)
        return repr(self)

    # ------------------------------------------------------------------ graph control
    def detach(self) -> Tensor:
        """A new leaf that shares values and version counter but has no history."""
        out = _wrap(self._data)
        out._vc = self._get_vc()
        if self._inference:
            out._inference = True
        return out

    def detach_(self) -> Tensor:
        """Make this tensor a leaf that does not require grad, in place."""
        if self._base is not None and self._base._requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP), this is likely because this tensor is a view of a tensor that requires grad."
            )
        self._grad_fn = None
        self._output_nr = 0
        self._requires_grad = False
        return self

    def retain_grad(self) -> None:
        """Fill ``.grad`` of this non-leaf during backward (a no-op on leaves)."""
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        self._grad_fn._add_retain_grad(self._output_nr, self)
        self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf whose ``.grad`` is filled by backward."""
        return self._retains_grad

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a return replaces it.

        >>> import ctxgrad
        >>> x = ctxgrad.ones(2, requires_grad=True)
        >>> h = x.register_hook(lambda g: g * 10)
        >>> x.sum().backward()
        >>> x.grad
        tensor([10., 10.])
        >>> h.remove()
        """
        from ctxgrad.autograd.graph import RemovableHandle

        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            return self._grad_fn._add_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = []
        return RemovableHandle(self._hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Call ``hook(tensor)`` after a leaf's ``.grad`` has been updated."""
        from ctxgrad.autograd.graph import RemovableHandle

        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = []
        return RemovableHandle(self._post_acc_hooks, hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Tensor | Sequence[Tensor] | None = None,
    ) -> None:
        """Accumulate the gradient of this tensor into the leaves' ``.grad``.

        ``gradient`` is required unless the tensor has a single element.
        """
        from ctxgrad.autograd import backward

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ------------------------------------------------------------------ copies and dtypes
    def clone(self) -> Tensor:
        """A differentiable copy with its own storage."""
        return _copy.Clone.apply(self)

    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """Convert to a dtype (``to(ctxgrad.float64)``, ``to(other)``); devices other than cpu fail."""
        dtype = kwargs.pop("dtype", None)
        copy = bool(kwargs.pop("copy", False))
        kwargs.pop("non_blocking", None)
        dev = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a._data.dtype
            elif isinstance(a, (str, device)):
                dev = a
            elif a is not None:
                dtype = a
        if dev is not None:
            device(dev)
        if dtype is None:
            return self.clone() if copy else self
        dt = _dtypes.to_dtype(dtype)
        if dt == self._data.dtype and not copy:
            return self
        return _copy.ToDtype.apply(self, dt)

    def type_as(self, other: Tensor) -> Tensor:
        """This tensor converted to ``other``'s dtype."""
        return self.to(other._data.dtype)

    def cpu(self) -> Tensor:
        """This tensor (ctxgrad has only the CPU)."""
        return self

    # ------------------------------------------------------------------ arithmetic
    def __add__(self, other: Any) -> Tensor:
        return _add(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def __radd__(self, other: Any) -> Tensor:
        # Addition commutes: the tensor goes first, where the ops look for it first.
        return _add(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def __sub__(self, other: Any) -> Tensor:
        return _sub(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def __rsub__(self, other: Any) -> Tensor:
        return _sub(other if type(other) in _PLAIN_OPERANDS else _operand(other), self)

    def __mul__(self, other: Any) -> Tensor:
        return _mul(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def __rmul__(self, other: Any) -> Tensor:
        return _mul(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def __truediv__(self, other: Any) -> Tensor:
        return _div(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def __rtruediv__(self, other: Any) -> Tensor:
        return _div(other if type(other) in _PLAIN_OPERANDS else _operand(other), self)

    def __pow__(self, other: Any) -> Tensor:
        return _pow(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def __rpow__(self, other: Any) -> Tensor:
        return _pow(other if type(other) in _PLAIN_OPERANDS else _operand(other), self)

    def __matmul__(self, other: Any) -> Tensor:
        return _arith.MatMul.apply(self, _tensor_operand(other))

    def __rmatmul__(self, other: Any) -> Tensor:
        return _arith.MatMul.apply(_tensor_operand(other), self)

    def __neg__(self) -> Tensor:
        return _arith.Neg.apply(self)

    def __pos__(self) -> Tensor:
        return self

    def add(self, other: Any, *, alpha: Any = 1) -> Tensor:
        """``self + alpha * other``."""
        return _arith.Add.apply(self, _operand(other) if alpha == 1 else _operand(other) * alpha)

    def sub(self, other: Any, *, alpha: Any = 1) -> Tensor:
        """``self - alpha * other``."""
        return _arith.Sub.apply(self, _operand(other) if alpha == 1 else _operand(other) * alpha)

    def mul(self, other: Any) -> Tensor:
        """``self * other``."""
        return _mul(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def div(self, other: Any) -> Tensor:
        """``self / other`` (true division)."""
        return _div(self, other if type(other) in _PLAIN_OPERANDS else _operand(other))

    def pow(self, exponent: Any) -> Tensor:
        """``self ** exponent``."""
        return _arith.Pow.apply(self, _operand(exponent))

    def neg(self) -> Tensor:
        """``-self``."""
        return _arith.Neg.apply(self)

    def matmul(self, other: Tensor) -> Tensor:
        """Matrix product with NumPy's ``matmul`` rules (1-D, 2-D, batched)."""
        return _arith.MatMul.apply(self, _tensor_operand(other))

    # ------------------------------------------------------------------ comparisons
    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not _is_operand(other):
            return NotImplemented  # ``t == None`` is False, as in torch
        return _cmp.Eq.apply(self, _operand(other))

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if not _is_operand(other):
            return NotImplemented
        return _cmp.Ne.apply(self, _operand(other))

    def __lt__(self, other: Any) -> Tensor:
        return _cmp.Lt.apply(self, _operand(other))

    def __le__(self, other: Any) -> Tensor:
        return _cmp.Le.apply(self, _operand(other))

    def __gt__(self, other: Any) -> Tensor:
        return _cmp.Gt.apply(self, _operand(other))

    def __ge__(self, other: Any) -> Tensor:
        return _cmp.Ge.apply(self, _operand(other))

    def eq(self, other: Any) -> Tensor:
        """Elementwise ``==`` as a bool tensor."""
        return _cmp.Eq.apply(self, _operand(other))

    def ne(self, other: Any) -> Tensor:
        """Elementwise ``!=`` as a bool tensor."""
        return _cmp.Ne.apply(self, _operand(other))

    def lt(self, other: Any) -> Tensor:
        """Elementwise ``<`` as a bool tensor."""
        return _cmp.Lt.apply(self, _operand(other))

    def le(self, other: Any) -> Tensor:
        """Elementwise ``<=`` as a bool tensor."""
        return _cmp.Le.apply(self, _operand(other))

    def gt(self, other: Any) -> Tensor:
        """Elementwise ``>`` as a bool tensor."""
        return _cmp.Gt.apply(self, _operand(other))

    def ge(self, other: Any) -> Tensor:
        """Elementwise ``>=`` as a bool tensor."""
        return _cmp.Ge.apply(self, _operand(other))

    # ------------------------------------------------------------------ pointwise, reductions
    def exp(self) -> Tensor:
        """Elementwise ``e ** x``."""
        return _pointwise.Exp.apply(self)

    def log(self) -> Tensor:
        """Elementwise natural logarithm."""
        return _pointwise.Log.apply(self)

    def tanh(self) -> Tensor:
        """Elementwise hyperbolic tangent."""
        return _pointwise.Tanh.apply(self)

    def abs(self) -> Tensor:
        """Elementwise absolute value."""
        return _pointwise.Abs.apply(self)

    def sign(self) -> Tensor:
        """Elementwise sign: -1, 0 or 1."""
        return _pointwise.Sign.apply(self)

    def sqrt(self) -> Tensor:
        """Elementwise square root."""
        return _pointwise.Sqrt.apply(self)

    def rsqrt(self) -> Tensor:
        """Elementwise ``1 / sqrt(x)``."""
        return _pointwise.Rsqrt.apply(self)

    def square(self) -> Tensor:
        """Elementwise ``x * x``."""
        return _pointwise.Square.apply(self)

    def reciprocal(self) -> Tensor:
        """Elementwise ``1 / x``."""
        return _pointwise.Reciprocal.apply(self)

    def exp2(self) -> Tensor:
        """Elementwise ``2 ** x``."""
        return _pointwise.Exp2.apply(self)

    def expm1(self) -> Tensor:
        """Elementwise ``e ** x - 1``."""
        return _pointwise.Expm1.apply(self)

    def log2(self) -> Tensor:
        """Elementwise base-2 logarithm."""
        return _pointwise.Log2.apply(self)

    def log10(self) -> Tensor:
        """Elementwise base-10 logarithm."""
        return _pointwise.Log10.apply(self)

    def log1p(self) -> Tensor:
        """Elementwise ``log(1 + x)``."""
        return _pointwise.Log1p.apply(self)

    def sin(self) -> Tensor:
        """Elementwise sine."""
        return _pointwise.Sin.apply(self)

    def cos(self) -> Tensor:
        """Elementwise cosine."""
        return _pointwise.Cos.apply(self)

    def tan(self) -> Tensor:
        """Elementwise tangent."""
        return _pointwise.Tan.apply(self)

    def asin(self) -> Tensor:
        """Elementwise arcsine."""
        return _pointwise.Asin.apply(self)

    def acos(self) -> Tensor:
        """Elementwise arccosine."""
        return _pointwise.Acos.apply(self)

    def atan(self) -> Tensor:
        """Elementwise arctangent."""
        return _pointwise.Atan.apply(self)

    def sinh(self) -> Tensor:
        """Elementwise hyperbolic sine."""
        return _pointwise.Sinh.apply(self)

    def cosh(self) -> Tensor:
        """Elementwise hyperbolic cosine."""
        return _pointwise.Cosh.apply(self)

    def sigmoid(self) -> Tensor:
        """Elementwise logistic sigmoid."""
        return _pointwise.Sigmoid.apply(self)

    def relu(self) -> Tensor:
        """Elementwise ``max(x, 0)``."""
        return _pointwise.Relu.apply(self)

    def floor(self) -> Tensor:
        """Elementwise round down."""
        return _pointwise.Floor.apply(self)

    def ceil(self) -> Tensor:
        """Elementwise round up."""
        return _pointwise.Ceil.apply(self)

    def round(self) -> Tensor:
        """Elementwise round to nearest, halves to even."""
        return _pointwise.Round.apply(self)

    def trunc(self) -> Tensor:
        """Elementwise round toward zero."""
        return _pointwise.Trunc.apply(self)

    def frac(self) -> Tensor:
        """Elementwise fractional part, ``x - trunc(x)``."""
        return _pointwise.Frac.apply(self)

    def sum(self, dim: int | Sequence[int] | None = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """Sum over all elements, or over ``dim``."""
        x = self if dtype is None else self.to(dtype)
        if x._data.dtype.kind in "bu" or (x._data.dtype.kind == "i" and x._data.dtype != _dtypes.int64):
            x = x.to(_dtypes.int64)
        return _reduction.Sum.apply(x, _dims(dim), keepdim)

    def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
        """Mean over all elements, or over ``dim``; floating tensors only, as in torch."""
        x = self if dtype is None else self.to(dtype)
        if x._data.dtype.kind not in "fc":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or "
                f"complex dtype. Got: {_dtypes.short_name(x._data.dtype)}"
            )
        return _reduction.Mean.apply(x, _dims(dim), keepdim)

    # ------------------------------------------------------------------ shape
    def reshape(self, *shape: Any) -> Tensor:
        """The same values in a new shape (a view when the layout allows)."""
        return _shape.Reshape.apply(self, _shape_arg(shape))

    def view(self, *shape: Any) -> Tensor:
        """A view with a new shape; fails, as in torch, where no view is possible."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, tuple, list, Size)):
            return _shape.ViewDtype.apply(self, _dtypes.to_dtype(shape[0]))
        return _shape.View.apply(self, _shape_arg(shape))

    def view_as(self, other: Tensor) -> Tensor:
        """A view with ``other``'s shape."""
        return _shape.View.apply(self, tuple(other._data.shape))

    def reshape_as(self, other: Tensor) -> Tensor:
        """Reshape to ``other``'s shape."""
        return _shape.Reshape.apply(self, tuple(other._data.shape))

    def expand(self, *sizes: Any) -> Tensor:
        """A broadcast view with the given sizes (``-1`` keeps a dimension)."""
        return _shape.Expand.apply(self, _shape_arg(sizes))

    def expand_as(self, other: Tensor) -> Tensor:
        """A broadcast view with ``other``'s shape."""
        return _shape.Expand.apply(self, tuple(other._data.shape))

    def sum_to_size(self, *size: Any) -> Tensor:
        """Sum broadcast dimensions away so the result has ``size``."""
        return _reduction.SumToSize.apply(self, _shape_arg(size))

    def t(self) -> Tensor:
        """Transpose a tensor of at most two dimensions."""
        if self._data.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
        return _shape.T.apply(self, tuple(range(self._data.ndim - 1, -1, -1)))

    def transpose(self, dim0: int, dim1: int) -> Tensor:
        """Swap two dimensions (a view)."""
        n = self._data.ndim
        perm = list(range(n))
        a, b = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
        perm[a], perm[b] = perm[b], perm[a]
        return _shape.Transpose.apply(self, tuple(perm))

    def permute(self, *dims: Any) -> Tensor:
        """Reorder the dimensions (a view)."""
        n = self._data.ndim
        return _shape.Permute.apply(self, tuple(_wrap_dim(d, n) for d in _shape_arg(dims)))

    def contiguous(self) -> Tensor:
        """This tensor if it is row-major contiguous, else a contiguous copy."""
        if self._data.flags.c_contiguous:
            return self
        return _copy.Contiguous.apply(self)

    def __getitem__(self, index: Any) -> Tensor:
        return _indexing.GetItem.apply(self, _indexing.normalize_index(index, self._data.shape))

    # ------------------------------------------------------------------ pointwise and binary ops
    # [pointwise methods: add above this line]

    # ------------------------------------------------------------------ reductions
    # [reduction methods: add above this line]

    # ------------------------------------------------------------------ linear algebra
    # [linalg methods: add above this line]

    # ------------------------------------------------------------------ shape and views
    # [shape methods: add above this line]

    # ------------------------------------------------------------------ indexing, sorting and construction
    # [indexing methods: add above this line]

    # ------------------------------------------------------------------ in-place ops
    # [inplace methods: add above this line]

    # Conversions named after dtypes come last: inside the class body their names hide
    # the builtins ``int``, ``float`` and ``bool``.
    def float(self) -> Tensor:
        """Convert to float32."""
        return self.to(_dtypes.float32)

    def double(self) -> Tensor:
        """Convert to float64."""
        return self.to(_dtypes.float64)

    def half(self) -> Tensor:
        """Convert to float16."""
        return self.to(_dtypes.float16)

    def long(self) -> Tensor:
        """Convert to int64."""
        return self.to(_dtypes.int64)

    def int(self) -> Tensor:
        """Convert to int32."""
        return self.to(_dtypes.int32)

    def bool(self) -> Tensor:
        """Convert to bool."""
        return self.to(_dtypes.bool_)


def _array_from(data: Any, dtype: Any) -> np.ndarray[Any, Any]:
    """A fresh array from nested Python data, arrays or tensors, with torch's default dtypes."""
    dt = None if dtype is None else _dtypes.to_dtype(dtype)
    if isinstance(data, Tensor):
        arr = np.array(data._data, dtype=dt, copy=True)
    elif isinstance(data, (np.ndarray, np.generic)):
        arr = np.array(data, dtype=dt, copy=True)  # a NumPy scalar keeps its dtype, as in torch
    elif isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _flatten(data)):
        arr = np.array([_array_from(v, None) for v in data], dtype=dt)
    else:
        arr = np.array(data, dtype=dt)
        if dt is None and arr.dtype.kind == "f" and arr.dtype != _dtypes.get_default_dtype():
            arr = arr.astype(_dtypes.get_default_dtype())
        elif dt is None and arr.dtype.kind == "c":
            arr = arr.astype(_dtypes.scalar_dtype(1j))
        elif dt is None and arr.dtype.kind in "iu" and arr.dtype != _dtypes.int64:
            arr = arr.astype(_dtypes.int64)
    return arr


def _flatten(data: Any) -> Iterator[Any]:
    for v in data:
        if isinstance(v, (list, tuple)):
            yield from _flatten(v)
        else:
            yield v


def _wrap(arr: np.ndarray[Any, Any]) -> Tensor:
    """A new leaf tensor around ``arr`` (no copy): the fast constructor ops use."""
    t = _new_tensor(Tensor)
    t._data = arr
    return t


_new_tensor = object.__new__


# Operand types that binary ops take as they are.
_PLAIN_OPERANDS = frozenset({Tensor, int, float})


def _operand(other: Any) -> Any:
    """Tensors and Python numbers pass through (NumPy scalars become Python numbers, as
    torch treats them); arrays and nested lists become tensors."""
    if isinstance(other, np.generic):
        return other.item()
    if isinstance(other, (Tensor, int, float, complex)):
        return other
    if isinstance(other, np.ndarray):
        return _wrap(other)
    return Tensor(other, dtype=None)


def _is_operand(other: Any) -> bool:
    """True for what ``==`` can compare a tensor with (anything else compares unequal)."""
    return isinstance(other, (Tensor, int, float, complex, np.ndarray, np.generic, list, tuple))


def _tensor_operand(other: Any) -> Tensor:
    if isinstance(other, Tensor):
        return other
    return Tensor(other)


def _wrap_dim(dim: SupportsIndex, ndim: int) -> int:
    d = int(dim)
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d + n if d < 0 else d


def _dims(dim: int | Sequence[int] | None) -> tuple[int, ...] | None:
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)):
        return (int(dim),)
    return tuple(int(d) for d in dim)


def _shape_arg(shape: tuple[Any, ...]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


# The ops import Tensor, so they are imported after it is defined.
from ctxgrad.ops import arithmetic as _arith  # noqa: E402
from ctxgrad.ops import comparison as _cmp  # noqa: E402
from ctxgrad.ops import copy as _copy  # noqa: E402
from ctxgrad.ops import indexing as _indexing  # noqa: E402
from ctxgrad.ops import pointwise as _pointwise  # noqa: E402
from ctxgrad.ops import reduction as _reduction  # noqa: E402
from ctxgrad.ops import shape as _shape  # noqa: E402

_add = _arith.Add.apply
_sub = _arith.Sub.apply
_mul = _arith.Mul.apply
_div = _arith.Div.apply
_pow = _arith.Pow.apply
