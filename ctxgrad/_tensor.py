"""The Tensor: a NumPy array plus the autograd bookkeeping that links it into a graph.

A tensor holds

* ``_data``: the ``numpy.ndarray`` with its values (shared, never copied, by views,
  ``detach()`` and ``from_numpy``), public and read-only as ``Tensor.array``;
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

import itertools
import operator
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, SupportsIndex, TypeVar, overload

import numpy as np

from ctxgrad import _dtypes, _memory_format, _pydata
from ctxgrad._device import check_device, device
from ctxgrad._dtypes import _BY_NUMPY
from ctxgrad._format import add_suffixes, format_array
from ctxgrad._state import _state, refuse_inference_write
from ctxgrad._state import special_modes as _special_modes
from ctxgrad._tensor_base import TensorBase

if TYPE_CHECKING:
    from ctxgrad._storage import TypedStorage, UntypedStorage
    from ctxgrad.autograd.graph import AccumulateGrad, Node
    from ctxgrad.autograd.hooks import RemovableHandle
    from ctxgrad.ops import _return_types


_TensorT = TypeVar("_TensorT", bound="Tensor")


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


_CPU = device("cpu")  # the device of every tensor

_NOT_LEAF_MSG = (
    "you can only change requires_grad flags of leaf variables. If you want to use a "
    "computed variable in a subgraph that doesn't require differentiation use "
    "var_no_grad = var.detach()."
)


_OWN_DTYPE = "own"


def _refuse_in_transform(call: str, also: str = "") -> None:
    """torch.func's error for ``requires_grad_()`` or ``retain_grad()`` called inside a function
    being transformed (by ``vmap``, ``grad``, ``vjp``, ``jvp``...), where a tensor's autograd
    flags belong to the transform: the library's own code sets them with
    :meth:`Tensor._set_requires_grad`."""
    if _state.modes.transforming or _state.modes.vmap_levels:
        raise RuntimeError(
            f"You are attempting to call Tensor.{call}{also} inside of a function being transformed by a functorch "
            "transform. This is unsupported, please attempt to use the functorch transforms (e.g. grad, vjp, "
            f"jacrev, jacfwd, hessian) or call {call} outside of a function being transformed instead."
        )


def _check_requires_grad_dtype(dt: np.dtype[Any], factory: bool) -> None:
    """Torch's error for an integer or bool tensor asked to require grad (worded as each
    entry point words it: factories, the setter, ``requires_grad_``)."""
    if dt.kind not in "fc":
        this = f" (this tensor is {_dtypes.dtype_repr(dt)})"
        if factory:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients" + this)
        raise RuntimeError("only Tensors of floating point dtype can require gradients" + this)


def _check_requires_grad_setter(dt: np.dtype[Any]) -> None:
    if dt.kind not in "fc":
        raise RuntimeError(
            "only Tensors of floating point and complex dtype can require gradients "
            f"(this tensor is {_dtypes.dtype_repr(dt)})"
        )


class Tensor(TensorBase):
    """An n-dimensional array that can record the operations applied to it.

    >>> import ctxgrad
    >>> x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([2., 4.])
    """

    # The fields every recorded op reads are TensorBase's, set when a tensor is made
    # (``__new__``; ``_wrap`` and ``as_tensor`` inline): a slot reads faster than a class default,
    # and the compiled core reads them at fixed offsets.  ``__dict__`` holds the rest, which keep
    # class defaults (an instance stores only those that differ), and users' own attributes.
    __slots__ = ("__dict__", "__weakref__")
    _requires_grad: bool
    _grad_fn: Node | None
    _output_nr: int
    _base: Tensor | None
    _grad: Tensor | None = None
    _vc: _VersionCounter | None = None
    _hooks: list[Callable[[Tensor], Tensor | None]] | None = None
    _post_acc_hooks: list[Callable[[Tensor], None]] | None = None
    _accumulator: weakref.ref[AccumulateGrad] | None = None
    _retains_grad: bool = False
    _inference: bool = False
    _view_meta: tuple[int, str] | None = None  # a view torch guards (autograd/_outputs.py, view_meta)
    _view_version: int = 0  # a view: its version when its grad_fn was last derived from the base
    _fw: dict[int, Tensor] | None = None  # forward-mode tangents by dual level
    _fw_version: int = 0  # a view: its version when its tangents were last set or taken from the base
    # A leaf's ``grad_dtype``: the tensor's own dtype (_OWN_DTYPE), another dtype, or None (any).
    _grad_dtype: Any = "own"

    # NumPy's dispatch (``np.exp(t)`` runs ``ctxgrad.exp``; ``ndarray * tensor`` runs
    # ``Tensor.__rmul__``): ``__array_ufunc__`` and ``__array_function__`` are set by the
    # surface (``ctxgrad/_numpy.py``, L4) when ``ctxgrad`` is imported, and declared with the
    # other attached methods below.
    __hash__ = object.__hash__

    _data: np.ndarray[Any, Any]

    if TYPE_CHECKING:

        @property
        def array(self) -> np.ndarray[Any, Any]: ...

    else:
        # An attrgetter property: as fast as a property can be (the built-in ops read it in
        # every forward), and read-only, since it has no setter.
        array = property(
            operator.attrgetter("_data"),
            doc="""The NumPy array that holds this tensor's values: shared, never a copy.

            For a Function's ``forward`` and ``backward`` where NumPy does the work: read
            ``x.array``, compute, and make the result a tensor with :func:`ctxgrad.as_tensor`
            (``as_tensor(np.tanh(x.array))``).  The built-in ops in ``ctxgrad.ops`` are written
            exactly so.  Unlike ``numpy()``, it does not refuse a tensor that requires grad.

            Read-only as an attribute (there is no setter; ``t.data = other`` swaps the
            values).  Writing *into* the array (``x.array[0] = 1``) bypasses the version
            counter, so autograd cannot see the change: change values with ctxgrad's in-place
            ops instead.  ctxgrad keeps the array of a tensor that a graph saved for backward
            read-only while it is saved, so NumPy refuses such a write there.
            """,
        )

    def __new__(cls: type[_TensorT], *args: Any, **kwargs: Any) -> _TensorT:
        t = _new_leaf(cls)
        t._requires_grad = False
        t._grad_fn = None
        t._output_nr = 0
        t._base = None
        return t

    def __init__(self, data: Any = (), *sizes: int, dtype: Any = None, requires_grad: bool = False) -> None:
        # torch's legacy constructor, as real code writes it (``Parameter(Tensor(out, in))``):
        # ints (or one Size) are a size, an uninitialised tensor of the default dtype, as
        # ``ctxgrad.empty``; data (a list, an array) is converted to the default dtype; a tensor
        # is shared.  ``dtype=`` (and ``requires_grad=``) are ctxgrad's additions: with a
        # dtype, data keeps its values in that dtype, as ``ctxgrad.tensor(data, dtype=...)``.
        if dtype is not None and not sizes and not isinstance(data, Size):
            arr = _array_from(data, dtype)
        elif sizes or isinstance(data, Size) or _is_size_int(data):
            shape = (*data, *sizes) if isinstance(data, Size) else (data, *sizes)
            for at, n in enumerate(shape):
                if not _is_size_int(n):
                    raise TypeError(
                        f"new(): argument 'size' failed to unpack the object at pos {at + 1} with error \"type must "
                        f'be tuple of ints,but got {type(n).__name__}"'
                    )
            if any(n < 0 for n in shape):
                raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
            arr = np.empty(shape, dtype=_dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype))
        elif isinstance(data, Tensor):
            arr = data._data  # torch shares the other tensor's storage (and its version counter)
            self._vc = data._get_vc()
        elif isinstance(data, (bool, float, complex, np.bool_, np.floating, np.complexfloating)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        else:
            arr = _array_from(data, _dtypes.get_default_dtype())
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
        out = _wrap(self._data)
        out._inference = self._inference
        return out

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        self._data = value._data

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @property
    def volatile(self) -> bool:
        """Removed from torch long ago (always False); kept so old code gets torch's warning."""
        warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=2)
        return False

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are computed for this tensor."""
        if self._base is not None:
            self._history()  # a view whose base was changed in place since: re-read it first
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value and self._grad_fn is None:
            _check_requires_grad_setter(self._data.dtype)
        self._set_requires_grad(value)  # (torch.func allows the setter where it refuses requires_grad_)

    @requires_grad.deleter
    def requires_grad(self) -> None:
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` of a leaf in place and return it (refused inside a function
        that ``ctxgrad.func`` transforms, as torch.func refuses it)."""
        _refuse_in_transform("requires_grad_()", " (or perhaps using torch.autograd.functional.* APIs)")
        return self._set_requires_grad(requires_grad)

    def _set_requires_grad(self, requires_grad: bool = True) -> Tensor:
        """``requires_grad_`` for the library's own code, which may run inside a transform."""
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(_NOT_LEAF_MSG)
            return self
        if requires_grad:
            _check_requires_grad_dtype(self._data.dtype, False)
            if self._inference and not _state.modes.inference:
                raise RuntimeError(
                    "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."
                )
        self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad_fn(self) -> Node | None:
        """The node that made this tensor (None for leaves)."""
        return self._grad_fn if self._base is None else self._history()

    if TYPE_CHECKING:
        # Set by the autograd core (ctxgrad/autograd/_views.py), which makes their nodes.
        def _history(self) -> Node | None:
            """``grad_fn``, first re-derived from the base for a view whose base was changed
            in place since (so that the view's gradient goes through the change, as in torch)."""

        def _record_base_write(self, old_fn: Any = None, old_nr: int = 0) -> None:
            """This view was changed in place by a recorded Function: record it on the base."""

        def _write_base_tangent(self, level: int) -> None:
            """This view got a new tangent by an in-place change: its base's tangent follows."""

        def _view_tangents(self) -> dict[int, Tensor] | None:
            """This view's tangents, first taken again from the base's where the base was
            changed in place since they were set (a view's tangent is a view of its base's)."""

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
        wanted = self._data.dtype if self._grad_dtype is _OWN_DTYPE else self._grad_dtype
        if wanted is not None and value._data.dtype != wanted:
            raise RuntimeError(
                f"attempting to assign a gradient with dtype '{_dtypes.short_name(value._data.dtype).lower()}' "
                f"to a tensor with grad_dtype '{_dtypes.short_name(wanted)}'. The gradient must match "
                "the tensor's grad_dtype (defaults to the tensor's dtype). You can set the tensor's "
                "grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype "
                "with caution. Diverging the dtypes of a tensor and its gradient may break downstream "
                "systems that assume they match."
            )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def grad_dtype(self) -> _dtypes.dtype | None:
        """The dtype ``.grad`` must have (a leaf's own dtype unless set; None allows any).

        Backward casts the gradient it accumulates into ``.grad`` to it, as torch does.
        """
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
        gd = self._grad_dtype
        if gd is None:
            return None
        return _dtypes.as_dtype(self._data.dtype if gd is _OWN_DTYPE else gd)

    @grad_dtype.setter
    def grad_dtype(self, value: Any) -> None:
        if self._grad_fn is not None:
            raise RuntimeError("grad_dtype can only be set on leaf tensors.")
        if value is None:
            self._grad_dtype = None
            return
        if isinstance(value, str) or not isinstance(value, (np.dtype, _dtypes.dtype, type)):
            raise RuntimeError(f"grad_dtype must be a ctxgrad.dtype or None, but got {type(value).__name__}")
        dt = _dtypes.to_dtype(value)
        g = self._grad
        if g is not None and g._data.dtype != dt:
            raise RuntimeError(
                f"Cannot set grad_dtype to '{_dtypes.short_name(dt)}' because there is already a gradient with "
                f"dtype '{_dtypes.short_name(g._data.dtype).lower()}'. Please clear the gradient (.grad = None) "
                "before changing grad_dtype, or ensure the new grad_dtype matches the existing gradient's dtype."
            )
        self._grad_dtype = _OWN_DTYPE if dt == self._data.dtype else dt

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
    def dtype(self) -> _dtypes.dtype:
        """The element type (``ctxgrad.float32`` and friends): a :class:`ctxgrad.dtype`,
        which NumPy takes wherever it takes a dtype."""
        try:
            return _BY_NUMPY[self._data.dtype]
        except KeyError:
            return _dtypes.as_dtype(self._data.dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def dim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def ndimension(self) -> int:
        """The number of dimensions (torch's older name for :meth:`dim`)."""
        return self._data.ndim

    @property
    def nbytes(self) -> int:
        """The bytes the elements take: ``numel() * element_size()``."""
        return int(self._data.size * self._data.itemsize)

    @property
    def itemsize(self) -> int:
        """The bytes one element takes (:meth:`element_size`)."""
        return int(self._data.itemsize)

    @property
    def is_sparse(self) -> bool:
        """False: ctxgrad's tensors are dense (strided), as torch's default layout."""
        return False

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

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """True when the elements are laid out in row-major order without gaps (or in the
        order ``memory_format``, e.g. ``ctxgrad.channels_last``, says)."""
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        return _memory_format.is_contiguous_as(
            self._data, _memory_format.checked(memory_format, "is_contiguous", self.shape)
        )

    @property
    def layout(self) -> _memory_format.layout:
        """``ctxgrad.strided``: every ctxgrad tensor is dense, with strides."""
        return _memory_format.strided

    def is_inference(self) -> bool:
        """True for tensors made inside ``inference_mode``."""
        return self._inference

    def data_ptr(self) -> int:
        """The address of the first element (tensors that share memory there give the same number)."""
        return int(self._data.__array_interface__["data"][0])

    def stride(self, dim: SupportsIndex | None = None) -> Any:
        """The step, in elements, from one element to the next along each dimension (a
        tuple), or along ``dim``: NumPy's byte strides divided by the element size, so a
        transposed tensor has its strides swapped, an expanded dimension has stride 0 and a
        slice keeps its base's strides, as in torch.

        >>> import ctxgrad
        >>> x = ctxgrad.zeros(2, 3)
        >>> x.stride(), x.t().stride(), x.expand(4, 2, 3).stride(), x.stride(-1)
        ((3, 1), (1, 3), (0, 3, 1), 1)

        (NumPy allows negative strides, torch does not: a tensor made from a reversed NumPy
        array, ``from_numpy(a[::-1])``, reports them.)
        """
        data = self._data
        strides = tuple(s // data.itemsize for s in data.strides)
        if not data.size and not any(strides):
            # (NumPy 2 gives an empty array zero strides: torch's are a new tensor's, each the
            # product of the sizes after it, a size 0 counted as 1)
            step, reversed_strides = 1, []
            for n in reversed(data.shape):
                reversed_strides.append(step)
                step *= max(n, 1)
            strides = tuple(reversed(reversed_strides))
        if dim is None:
            return strides
        if isinstance(dim, (bool, float)) or not hasattr(dim, "__index__"):
            raise TypeError(f"stride(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
        if not data.ndim:
            raise IndexError(f"Dimension specified as {int(dim)} but tensor has no dimensions")
        return strides[_wrap_dim(dim, data.ndim)]

    def storage_offset(self) -> int:
        """Where this tensor's first element sits in the memory it shares with the tensor (or
        NumPy array) it is a view of, in elements: ``x[1:].storage_offset()`` is ``x``'s
        stride of dimension 0; a tensor that owns its memory says 0.

        >>> import ctxgrad
        >>> x = ctxgrad.arange(6.0).reshape(2, 3)
        >>> x.storage_offset(), x[1].storage_offset(), x[:, 2:].storage_offset()
        (0, 3, 2)
        """
        data = root = self._data
        while isinstance(root.base, np.ndarray):
            root = root.base
        start = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        return int(start // data.itemsize)

    def dim_order(self, *, ambiguity_check: bool = False) -> tuple[int, ...]:
        """The dimensions from the outermost in memory to the innermost (torch's algorithm:
        by stride, largest first; a dimension of stride 0 or of length 1 keeps its place).

        >>> import ctxgrad
        >>> ctxgrad.empty(2, 3, 4).dim_order(), ctxgrad.empty(2, 3, 4).permute(2, 0, 1).dim_order()
        ((0, 1, 2), (1, 2, 0))

        ``ambiguity_check=True`` raises torch's RuntimeError when two orders describe the same
        memory (equal strides, or a dimension of length 1).
        """
        if not isinstance(ambiguity_check, bool):
            raise TypeError("dim_order(): ambiguity_check must be a bool (ctxgrad has no memory formats)")
        data = self._data
        shape, strides, ndim = data.shape, self.stride(), data.ndim
        if ambiguity_check and (1 in shape or any(a == b for a, b in itertools.pairwise(strides))):
            raise RuntimeError(
                "The tensor does not have unique dim order, or cannot map to exact one of the given memory formats."
            )
        if ndim < 2:
            return tuple(range(ndim))
        contiguous, channels_last = data.flags.c_contiguous, ndim == 4 and _channels_last(shape, strides)
        if contiguous != channels_last:  # torch's shortcuts, taken only when they disagree
            return tuple(range(ndim)) if contiguous else (0, 2, 3, 1)

        def ge(a: int, b: int) -> bool:
            return b == 0 or (a != 0 and (a >= b or a % b == 0))

        def should_swap(a: int, b: int) -> int:
            sa, sb = strides[a], strides[b]
            if sa == 0 or sb == 0:
                return 0
            if sa == sb:
                return 0 if ge(shape[b], shape[a]) else 1
            return -1 if ge(sb, sa) else 1

        perm = list(reversed(range(ndim)))  # sorted back to front: innermost first
        for i in range(1, ndim):
            dim1 = i
            for dim0 in reversed(range(i)):
                order = should_swap(perm[dim0], perm[dim1])
                if order > 0:
                    perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                    dim1 = dim0
                elif order < 0:
                    break
        return tuple(reversed(perm))

    def resize_(self, *sizes: Any, memory_format: Any = None) -> Tensor:
        """Give this tensor the shape ``sizes`` in place, keeping its first elements in
        row-major order (new ones are uninitialised), as torch's ``resize_``; refused for a
        tensor that requires grad, as torch refuses it.  The tensor gets new memory, so views
        of it made before no longer share it (in torch they may, while it does not grow).

        >>> import ctxgrad
        >>> ctxgrad.arange(6.0).resize_(2, 2)
        tensor([[0., 1.],
                [2., 3.]])
        """
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        for n in sizes:
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
                raise TypeError(
                    f"resize_(): argument 'size' (position 1) must be tuple of ints, not {type(n).__name__}"
                )
            if n < 0:
                raise RuntimeError(
                    f"Trying to create tensor with negative dimension {int(n)}: {[int(m) for m in sizes]}"
                )
        if self._requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        refuse_inference_write(self)
        old = self._data.reshape(-1)
        new = np.empty(tuple(int(n) for n in sizes), dtype=self._data.dtype)
        keep = min(old.size, new.size)
        new.reshape(-1)[:keep] = old[:keep]
        self._data = new
        self._bump_version()
        return self

    def set_(self, source: Tensor | None = None) -> Tensor:
        """Make this tensor use ``source``'s values (shared, as a view is), or none at all.

        ``t.set_(s)`` gives ``t`` the shape and the very array of ``s``, so a change through
        either shows in both; ``t.set_()`` empties it.  The dtypes must agree.  Not
        differentiable: refused on a tensor that requires grad, and while grad mode is on for
        a ``source`` that does.
        """
        if source is not None and not isinstance(source, Tensor):
            raise TypeError(
                f"set_() received an invalid combination of arguments - got ({type(source).__name__}), but "
                "expected one of: (), (Tensor source)"
            )
        grad_mode = _state.modes.grad_enabled
        if grad_mode and self._requires_grad and self._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if source is not None and source._data.dtype != self._data.dtype:
            raise RuntimeError(
                f"Could not set tensor of type {_dtypes.cpp_name(source._data.dtype)} to a tensor of type "
                f"{_dtypes.cpp_name(self._data.dtype)}"
            )
        if grad_mode and (self._requires_grad or (source is not None and source._requires_grad)):
            raise RuntimeError(
                "set_ is not differentiable in ctxgrad: the tensor or its source requires grad (torch records "
                "a node whose backward raises). Call it on .detach()ed tensors, or under no_grad()."
            )
        self._data = np.empty((0,), dtype=self._data.dtype) if source is None else source._data
        self._bump_version()
        # New storage: graphs recorded before no longer lead to this tensor (as in torch, where
        # the leaf gets a new gradient accumulator).
        self._accumulator = None
        return self

    @property
    def _version(self) -> int:
        if self._inference:  # (as torch's, whose inference tensors have no version counter)
            raise RuntimeError("Inference tensors do not track version counter.")
        vc = self._vc
        return 0 if vc is None else vc.value

    def _get_vc(self) -> _VersionCounter:
        vc = self._vc
        if vc is None:
            vc = self._vc = _VersionCounter()
        return vc

    def _bump_version(self) -> None:
        self._get_vc().value += 1

    # ------------------------------------------------------------------ conversion
    def numpy(self, *, force: bool = False) -> np.ndarray[Any, Any]:
        """The values as a NumPy array that shares memory with this tensor.

        As in torch, a tensor that requires grad refuses while grad mode is on (inside a
        Function's ``forward`` or ``no_grad`` it is allowed).
        """
        if self._requires_grad and _state.modes.grad_enabled and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if _state.modes.recorder is not None:  # (a value read while ctxgrad.trace records)
            _state.modes.recorder.value_read("numpy()")
        return self._data

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        """``np.asarray(t)``: the values, refused (as ``numpy()`` refuses) for a tensor that
        requires grad while grad mode is on, whose graph NumPy would silently lose."""
        if self._requires_grad and _state.modes.grad_enabled:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead. "
                "(NumPy asked for this tensor's array; call ctxgrad's op on the tensor to keep its graph.)"
            )
        arr: np.ndarray[Any, Any] = self._data
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            arr = arr.astype(dtype)
        elif copy:
            arr = arr.copy()
        return arr

    def item(self) -> int | float | bool:
        """The single value as a Python number (a complex one for a complex tensor, which
        the annotation leaves out, as torch's does)."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        if _state.modes.recorder is not None:
            _state.modes.recorder.value_read("item()")
        return self._data.reshape(()).item()  # type: ignore[no-any-return]

    def tolist(self) -> list[Any]:
        """The values as (nested) Python lists (a 0-d tensor's as a number, which the
        annotation leaves out, as torch's does)."""
        if _state.modes.recorder is not None:
            _state.modes.recorder.value_read("tolist()")
        return self._data.tolist()  # type: ignore[no-any-return]

    def __float__(self) -> float:
        return float(self._real_item("double"))

    def __int__(self) -> int:
        return int(self._real_item("int64_t"))

    def __complex__(self) -> complex:
        self._check_one_element()
        return complex(self.item())

    def _real_item(self, c_type: str) -> Any:
        """The one value, for ``float(t)``/``int(t)``: a complex one only when it is real (torch's
        RuntimeError otherwise)."""
        self._check_one_element()
        value = self.item()
        if isinstance(value, complex):
            if value.imag != 0:
                raise RuntimeError(f"value cannot be converted to type {c_type} without overflow")
            value = value.real
        return value

    def _check_one_element(self) -> None:
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")

    def __index__(self) -> int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            if self._data.size == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        if _state.modes.recorder is not None:
            _state.modes.recorder.value_read("bool()")
        return bool(self._data.reshape(()).item())

    # ------------------------------------------------------------------ pickle and deepcopy
    def __reduce_ex__(self, protocol: Any) -> Any:
        """Pickle the values and ``requires_grad`` (torch's rule: not the graph, not ``.grad``;
        a non-leaf comes back as a leaf that requires grad)."""
        return (_rebuild_tensor, (type(self), np.array(self._data), self._requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        """A leaf's copy: new storage, the same ``requires_grad``, a copy of ``.grad``.
        A non-leaf refuses, as in torch (the graph cannot be copied)."""
        if id(self) in memo:
            copied: Tensor = memo[id(self)]
            return copied
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol "
                "at the moment. (This one is the output of "
                f"{type(self._grad_fn).__name__}: deep-copy its .detach() instead.)"
            )
        result = _rebuild_tensor(type(self), self._data.copy(), self._requires_grad)
        memo[id(self)] = result
        if self._grad is not None:
            result._grad = self._grad.__deepcopy__(memo)
        return result

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
        fn_name = None if self._grad_fn is None else self._grad_fn.name()
        if self._base is not None:
            try:
                fn = self._history()  # (re-derived, as reading grad_fn does)
                fn_name = None if fn is None else fn.name()
            except RuntimeError:  # a view whose grad_fn cannot be derived: torch prints a placeholder
                fn_name = "Invalid"
        if fn_name is not None:
            suffixes.append(f"grad_fn=<{fn_name}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        fw = self._fw if self._base is None else self._view_tangents()
        if fw is not None and _state.modes.fw_levels:
            tangent = fw.get(_state.modes.fw_levels[-1])  # a dual tensor shows its tangent, as in torch
            if tangent is not None:
                suffixes.append(f"tangent={tangent!r}")
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
        fn = self._grad_fn if self._base is None else self._history()  # (a view re-read first, as for a hook)
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        _refuse_in_transform("retain_grad()")
        if fn is None or self._retains_grad:
            return
        fn._add_retain_grad(self._output_nr, self)
        self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        """True for a non-leaf whose ``.grad`` is filled by backward."""
        return self._retains_grad

    # The methods of the op table (ops/table.py), attached by ctxgrad/_surface.py; declared
    # here for type checkers.
    # --- generated by python -m ctxgrad._gen_methods from ctxgrad/ops/table.py: do not edit ---
    if TYPE_CHECKING:

        def backward(
            self,
            gradient: Tensor | None = None,
            retain_graph: bool | None = None,
            create_graph: bool = False,
            inputs: Tensor | Sequence[Tensor] | None = None,
        ) -> None: ...

        def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle: ...

        def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle: ...

        def new_zeros(
            self,
            *sizes: Any,
            size: Any = ...,
            dtype: Any = None,
            device: Any = None,
            requires_grad: bool = False,
            layout: Any = None,
            pin_memory: bool = False,
        ) -> Tensor: ...

        def new_ones(
            self,
            *sizes: Any,
            size: Any = ...,
            dtype: Any = None,
            device: Any = None,
            requires_grad: bool = False,
            layout: Any = None,
            pin_memory: bool = False,
        ) -> Tensor: ...

        def new_empty(
            self,
            *sizes: Any,
            size: Any = ...,
            dtype: Any = None,
            device: Any = None,
            requires_grad: bool = False,
            layout: Any = None,
            pin_memory: bool = False,
        ) -> Tensor: ...

        def new_full(
            self,
            size: Sequence[int],
            fill_value: Any,
            *,
            dtype: Any = None,
            device: Any = None,
            requires_grad: bool = False,
            layout: Any = None,
            pin_memory: bool = False,
        ) -> Tensor: ...

        def new_tensor(
            self,
            data: Any,
            *,
            dtype: Any = None,
            device: Any = None,
            requires_grad: bool = False,
            layout: Any = None,
            pin_memory: bool = False,
        ) -> Tensor: ...

        def new(self, *args: Any, **kwargs: Any) -> Tensor: ...

        def new_empty_strided(
            self,
            size: Sequence[int],
            stride: Sequence[int],
            *,
            dtype: Any = None,
            layout: Any = None,
            device: Any = None,
            requires_grad: bool = False,
            pin_memory: bool = False,
        ) -> Tensor: ...

        def get_device(self) -> int: ...

        def is_pinned(self, device: Any = None) -> bool: ...

        def pin_memory(self, device: Any = None) -> Tensor: ...

        def isclose(
            self, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
        ) -> Tensor: ...

        def allclose(
            self, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
        ) -> bool: ...

        def equal(self, other: Tensor) -> bool: ...

        def uniform_(self, from_: float = 0.0, to: float = 1.0, *, generator: Any = None, **kwargs: Any) -> Tensor: ...

        def normal_(self, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor: ...

        def bernoulli_(self, p: Any = 0.5, *, generator: Any = None) -> Tensor: ...

        def exponential_(self, lambd: float = 1.0, *, generator: Any = None) -> Tensor: ...

        def random_(self, *args: Any, generator: Any = None, **kwargs: Any) -> Tensor: ...

        def log_normal_(self, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor: ...

        def geometric_(self, p: float, *, generator: Any = None) -> Tensor: ...

        def cauchy_(self, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor: ...

        def bernoulli(self, p: Any = None, *, generator: Any = None) -> Tensor: ...

        def multinomial(self, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor: ...

        def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any: ...

        def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any: ...

        def __dlpack__(
            self,
            *,
            stream: Any = None,
            max_version: tuple[int, int] | None = None,
            dl_device: tuple[int, int] | None = None,
            copy: bool | None = None,
        ) -> Any: ...

        def storage(self) -> TypedStorage: ...

        def untyped_storage(self) -> UntypedStorage: ...

        def share_memory_(self) -> Tensor: ...

        def is_shared(self) -> bool: ...

        def resize_as_(self, the_template: Tensor, *, memory_format: Any = None) -> Tensor: ...

        def __dlpack_device__(self) -> tuple[int, int]: ...

        def log(self) -> Tensor: ...

        def log_(self) -> Tensor: ...

        def tanh(self) -> Tensor: ...

        def tanh_(self) -> Tensor: ...

        def abs(self) -> Tensor: ...

        def absolute(self) -> Tensor: ...

        def __abs__(self) -> Tensor: ...

        def abs_(self) -> Tensor: ...

        def absolute_(self) -> Tensor: ...

        def sign(self) -> Tensor: ...

        def sign_(self) -> Tensor: ...

        def sqrt(self) -> Tensor: ...

        def sqrt_(self) -> Tensor: ...

        def rsqrt(self) -> Tensor: ...

        def rsqrt_(self) -> Tensor: ...

        def square(self) -> Tensor: ...

        def square_(self) -> Tensor: ...

        def reciprocal(self) -> Tensor: ...

        def reciprocal_(self) -> Tensor: ...

        def exp2(self) -> Tensor: ...

        def exp2_(self) -> Tensor: ...

        def expm1(self) -> Tensor: ...

        def expm1_(self) -> Tensor: ...

        def log2(self) -> Tensor: ...

        def log2_(self) -> Tensor: ...

        def log10(self) -> Tensor: ...

        def log10_(self) -> Tensor: ...

        def log1p(self) -> Tensor: ...

        def log1p_(self) -> Tensor: ...

        def sin(self) -> Tensor: ...

        def sin_(self) -> Tensor: ...

        def cos(self) -> Tensor: ...

        def cos_(self) -> Tensor: ...

        def tan(self) -> Tensor: ...

        def tan_(self) -> Tensor: ...

        def asin(self) -> Tensor: ...

        def arcsin(self) -> Tensor: ...

        def asin_(self) -> Tensor: ...

        def arcsin_(self) -> Tensor: ...

        def acos(self) -> Tensor: ...

        def arccos(self) -> Tensor: ...

        def acos_(self) -> Tensor: ...

        def arccos_(self) -> Tensor: ...

        def atan(self) -> Tensor: ...

        def arctan(self) -> Tensor: ...

        def atan_(self) -> Tensor: ...

        def arctan_(self) -> Tensor: ...

        def sinh(self) -> Tensor: ...

        def sinh_(self) -> Tensor: ...

        def cosh(self) -> Tensor: ...

        def cosh_(self) -> Tensor: ...

        def sigmoid(self) -> Tensor: ...

        def sigmoid_(self) -> Tensor: ...

        def floor(self) -> Tensor: ...

        def floor_(self) -> Tensor: ...

        def ceil(self) -> Tensor: ...

        def ceil_(self) -> Tensor: ...

        def trunc(self) -> Tensor: ...

        def trunc_(self) -> Tensor: ...

        def frac(self) -> Tensor: ...

        def frac_(self) -> Tensor: ...

        def erf(self) -> Tensor: ...

        def erf_(self) -> Tensor: ...

        def erfc(self) -> Tensor: ...

        def erfc_(self) -> Tensor: ...

        def acosh(self) -> Tensor: ...

        def arccosh(self) -> Tensor: ...

        def acosh_(self) -> Tensor: ...

        def arccosh_(self) -> Tensor: ...

        def asinh(self) -> Tensor: ...

        def arcsinh(self) -> Tensor: ...

        def asinh_(self) -> Tensor: ...

        def arcsinh_(self) -> Tensor: ...

        def atanh(self) -> Tensor: ...

        def arctanh(self) -> Tensor: ...

        def atanh_(self) -> Tensor: ...

        def arctanh_(self) -> Tensor: ...

        def deg2rad(self) -> Tensor: ...

        def deg2rad_(self) -> Tensor: ...

        def rad2deg(self) -> Tensor: ...

        def rad2deg_(self) -> Tensor: ...

        def logit(self, eps: float | None = None) -> Tensor: ...

        def logit_(self, eps: float | None = None) -> Tensor: ...

        def exp(self) -> Tensor: ...

        def exp_(self) -> Tensor: ...

        def round(self, *, decimals: int = 0) -> Tensor: ...

        def round_(self, *, decimals: int = 0) -> Tensor: ...

        def nan_to_num(self, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor: ...

        def nan_to_num_(self, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor: ...

        def positive(self) -> Tensor: ...

        def __pos__(self) -> Tensor: ...

        def sgn(self) -> Tensor: ...

        def sgn_(self) -> Tensor: ...

        def frexp(self) -> _return_types.frexp: ...

        def atan2(self, other: Tensor) -> Tensor: ...

        def atan2_(self, other: Tensor) -> Tensor: ...

        def arctan2(self, other: Tensor) -> Tensor: ...

        def arctan2_(self, other: Tensor) -> Tensor: ...

        def maximum(self, other: Tensor) -> Tensor: ...

        def minimum(self, other: Tensor) -> Tensor: ...

        def clamp(self, min: Any = None, max: Any = None) -> Tensor: ...

        def clamp_(self, min: Any = None, max: Any = None) -> Tensor: ...

        def clip(self, min: Any = None, max: Any = None) -> Tensor: ...

        def clip_(self, min: Any = None, max: Any = None) -> Tensor: ...

        def clamp_min(self, min: Any) -> Tensor: ...

        def clamp_min_(self, min: Any) -> Tensor: ...

        def clamp_max(self, max: Any) -> Tensor: ...

        def clamp_max_(self, max: Any) -> Tensor: ...

        def lerp(self, end: Tensor, weight: Any) -> Tensor: ...

        def lerp_(self, end: Tensor, weight: Any) -> Tensor: ...

        def hypot(self, other: Tensor) -> Tensor: ...

        def hypot_(self, other: Tensor) -> Tensor: ...

        def logaddexp(self, other: Tensor) -> Tensor: ...

        def logaddexp2(self, other: Tensor) -> Tensor: ...

        def xlogy(self, other: Any) -> Tensor: ...

        def xlogy_(self, other: Any) -> Tensor: ...

        def copysign(self, other: Any) -> Tensor: ...

        def copysign_(self, other: Any) -> Tensor: ...

        def heaviside(self, values: Tensor) -> Tensor: ...

        def heaviside_(self, values: Tensor) -> Tensor: ...

        def nextafter(self, other: Tensor) -> Tensor: ...

        def nextafter_(self, other: Tensor) -> Tensor: ...

        def fmax(self, other: Tensor) -> Tensor: ...

        def fmin(self, other: Tensor) -> Tensor: ...

        def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor: ...

        def addcmul_(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor: ...

        def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor: ...

        def addcdiv_(self, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor: ...

        def sinc(self) -> Tensor: ...

        def sinc_(self) -> Tensor: ...

        def lgamma(self) -> Tensor: ...

        def lgamma_(self) -> Tensor: ...

        def digamma(self) -> Tensor: ...

        def digamma_(self) -> Tensor: ...

        def polygamma(self, n: int) -> Tensor: ...

        def polygamma_(self, n: int) -> Tensor: ...

        def erfinv(self) -> Tensor: ...

        def erfinv_(self) -> Tensor: ...

        def i0(self) -> Tensor: ...

        def i0_(self) -> Tensor: ...

        def igamma(self, other: Tensor) -> Tensor: ...

        def igamma_(self, other: Tensor) -> Tensor: ...

        def igammac(self, other: Tensor) -> Tensor: ...

        def igammac_(self, other: Tensor) -> Tensor: ...

        def relu(self) -> Tensor: ...

        def relu_(self) -> Tensor: ...

        def add(self, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor: ...

        def add_(self, other: Any, *, alpha: Any = 1) -> Tensor: ...

        def __iadd__(self, other: Any, *, alpha: Any = 1) -> Tensor: ...

        def sub(self, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor: ...

        def subtract(self, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor: ...

        def sub_(self, other: Any, *, alpha: Any = 1) -> Tensor: ...

        def subtract_(self, other: Any, *, alpha: Any = 1) -> Tensor: ...

        def __isub__(self, other: Any, *, alpha: Any = 1) -> Tensor: ...

        def mul(self, other: Any, *, out: Tensor | None = None) -> Tensor: ...

        def multiply(self, other: Any, *, out: Tensor | None = None) -> Tensor: ...

        def mul_(self, other: Any) -> Tensor: ...

        def multiply_(self, other: Any) -> Tensor: ...

        def __imul__(self, other: Any) -> Tensor: ...

        def div(self, other: Any, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor: ...

        def true_divide(self, other: Any, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor: ...

        def divide(self, other: Any, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor: ...

        def div_(self, other: Any, *, rounding_mode: str | None = None) -> Tensor: ...

        def true_divide_(self, other: Any, *, rounding_mode: str | None = None) -> Tensor: ...

        def divide_(self, other: Any, *, rounding_mode: str | None = None) -> Tensor: ...

        def __itruediv__(self, other: Any, *, rounding_mode: str | None = None) -> Tensor: ...

        def pow(self, exponent: Any) -> Tensor: ...

        def pow_(self, exponent: Any) -> Tensor: ...

        def __ipow__(self, exponent: Any) -> Tensor: ...

        def neg(self) -> Tensor: ...

        def __neg__(self) -> Tensor: ...

        def neg_(self) -> Tensor: ...

        def floor_divide(self, other: Any) -> Tensor: ...

        def __floordiv__(self, other: Any) -> Tensor: ...

        def floor_divide_(self, other: Any) -> Tensor: ...

        def remainder(self, other: Any) -> Tensor: ...

        def __mod__(self, other: Any) -> Tensor: ...

        def remainder_(self, other: Any) -> Tensor: ...

        def fmod(self, other: Any) -> Tensor: ...

        def fmod_(self, other: Any) -> Tensor: ...

        def float_power(self, exponent: Any) -> Tensor: ...

        def float_power_(self, exponent: Any) -> Tensor: ...

        def ldexp(self, other: Tensor) -> Tensor: ...

        def ldexp_(self, other: Tensor) -> Tensor: ...

        def __add__(self, other: Any) -> Tensor: ...

        def __radd__(self, other: Any) -> Tensor: ...

        def __sub__(self, other: Any) -> Tensor: ...

        def __rsub__(self, other: Any) -> Tensor: ...

        def __mul__(self, other: Any) -> Tensor: ...

        def __rmul__(self, other: Any) -> Tensor: ...

        def __truediv__(self, other: Any) -> Tensor: ...

        def __rtruediv__(self, other: Any) -> Tensor: ...

        def __pow__(self, other: Any) -> Tensor: ...

        def __rpow__(self, other: Any) -> Tensor: ...

        def __rfloordiv__(self, other: Any) -> Tensor: ...

        def __rmod__(self, other: Any) -> Tensor: ...

        def eq(self, other: Any) -> Tensor: ...

        def eq_(self, other: Any) -> Tensor: ...

        def ne(self, other: Any) -> Tensor: ...

        def not_equal(self, other: Any) -> Tensor: ...

        def ne_(self, other: Any) -> Tensor: ...

        def not_equal_(self, other: Any) -> Tensor: ...

        def lt(self, other: Any) -> Tensor: ...

        def less(self, other: Any) -> Tensor: ...

        def __lt__(self, other: Any) -> Tensor: ...

        def lt_(self, other: Any) -> Tensor: ...

        def less_(self, other: Any) -> Tensor: ...

        def le(self, other: Any) -> Tensor: ...

        def less_equal(self, other: Any) -> Tensor: ...

        def __le__(self, other: Any) -> Tensor: ...

        def le_(self, other: Any) -> Tensor: ...

        def less_equal_(self, other: Any) -> Tensor: ...

        def gt(self, other: Any) -> Tensor: ...

        def greater(self, other: Any) -> Tensor: ...

        def __gt__(self, other: Any) -> Tensor: ...

        def gt_(self, other: Any) -> Tensor: ...

        def greater_(self, other: Any) -> Tensor: ...

        def ge(self, other: Any) -> Tensor: ...

        def greater_equal(self, other: Any) -> Tensor: ...

        def __ge__(self, other: Any) -> Tensor: ...

        def ge_(self, other: Any) -> Tensor: ...

        def greater_equal_(self, other: Any) -> Tensor: ...

        def __eq__(self, other: Any) -> Tensor: ...  # type: ignore[override]

        def __ne__(self, other: Any) -> Tensor: ...  # type: ignore[override]

        def isnan(self) -> Tensor: ...

        def isinf(self) -> Tensor: ...

        def isfinite(self) -> Tensor: ...

        def logical_and(self, other: Tensor) -> Tensor: ...

        def logical_and_(self, other: Tensor) -> Tensor: ...

        def logical_or(self, other: Tensor) -> Tensor: ...

        def logical_or_(self, other: Tensor) -> Tensor: ...

        def logical_xor(self, other: Tensor) -> Tensor: ...

        def logical_xor_(self, other: Tensor) -> Tensor: ...

        def logical_not(self) -> Tensor: ...

        def logical_not_(self) -> Tensor: ...

        def bitwise_and(self, other: Any) -> Tensor: ...

        def __and__(self, other: Any) -> Tensor: ...

        def bitwise_and_(self, other: Any) -> Tensor: ...

        def bitwise_or(self, other: Any) -> Tensor: ...

        def __or__(self, other: Any) -> Tensor: ...

        def bitwise_or_(self, other: Any) -> Tensor: ...

        def bitwise_xor(self, other: Any) -> Tensor: ...

        def __xor__(self, other: Any) -> Tensor: ...

        def bitwise_xor_(self, other: Any) -> Tensor: ...

        def bitwise_not(self) -> Tensor: ...

        def bitwise_not_(self) -> Tensor: ...

        def __rand__(self, other: Any) -> Tensor: ...

        def __ror__(self, other: Any) -> Tensor: ...

        def __rxor__(self, other: Any) -> Tensor: ...

        def __invert__(self) -> Tensor: ...

        def gcd(self, other: Tensor) -> Tensor: ...

        def gcd_(self, other: Tensor) -> Tensor: ...

        def lcm(self, other: Tensor) -> Tensor: ...

        def lcm_(self, other: Tensor) -> Tensor: ...

        def bitwise_left_shift(self, other: Any) -> Tensor: ...

        def __lshift__(self, other: Any) -> Tensor: ...

        def bitwise_left_shift_(self, other: Any) -> Tensor: ...

        def __ilshift__(self, other: Any) -> Tensor: ...

        def bitwise_right_shift(self, other: Any) -> Tensor: ...

        def __rshift__(self, other: Any) -> Tensor: ...

        def bitwise_right_shift_(self, other: Any) -> Tensor: ...

        def __irshift__(self, other: Any) -> Tensor: ...

        def __rlshift__(self, other: Any) -> Tensor: ...

        def __rrshift__(self, other: Any) -> Tensor: ...

        def signbit(self) -> Tensor: ...

        def isposinf(self) -> Tensor: ...

        def isneginf(self) -> Tensor: ...

        def isreal(self) -> Tensor: ...

        def sum(
            self,
            dim: int | Sequence[int] | None = ...,
            keepdim: bool = False,
            *,
            dtype: Any = None,
            keepdims: bool | None = None,
            axis: Any = None,
        ) -> Tensor: ...

        def mean(
            self,
            dim: int | Sequence[int] | None = ...,
            keepdim: bool = False,
            *,
            dtype: Any = None,
            keepdims: bool | None = None,
            axis: Any = None,
        ) -> Tensor: ...

        def prod(
            self,
            dim: int | None = None,
            keepdim: bool = False,
            *,
            dtype: Any = None,
            keepdims: bool | None = None,
            axis: Any = None,
        ) -> Tensor: ...

        def var(
            self,
            dim: Any = None,
            unbiased: bool | None = None,
            keepdim: bool = False,
            *,
            correction: float | None = None,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def std(
            self,
            dim: Any = None,
            unbiased: bool | None = None,
            keepdim: bool = False,
            *,
            correction: float | None = None,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        @overload
        def max(
            self, dim: None = None, keepdim: bool = False, *, axis: Any = None, keepdims: bool | None = None
        ) -> Tensor: ...
        @overload
        def max(self, dim: Tensor, *, axis: Any = None) -> Tensor: ...
        @overload
        def max(self, *, other: Tensor) -> Tensor: ...
        @overload
        def max(
            self, dim: int, keepdim: bool = False, *, keepdims: bool | None = None, axis: Any = None
        ) -> _return_types.max: ...
        def max(
            self,
            dim: Any = None,
            keepdim: bool = False,
            *,
            other: Tensor | None = None,
            keepdims: bool | None = None,
            axis: Any = None,
        ) -> Any: ...

        @overload
        def min(
            self, dim: None = None, keepdim: bool = False, *, axis: Any = None, keepdims: bool | None = None
        ) -> Tensor: ...
        @overload
        def min(self, dim: Tensor, *, axis: Any = None) -> Tensor: ...
        @overload
        def min(self, *, other: Tensor) -> Tensor: ...
        @overload
        def min(
            self, dim: int, keepdim: bool = False, *, keepdims: bool | None = None, axis: Any = None
        ) -> _return_types.min: ...
        def min(
            self,
            dim: Any = None,
            keepdim: bool = False,
            *,
            other: Tensor | None = None,
            keepdims: bool | None = None,
            axis: Any = None,
        ) -> Any: ...

        def amax(
            self,
            dim: int | Sequence[int] = (),
            keepdim: bool = False,
            *,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def amin(
            self,
            dim: int | Sequence[int] = (),
            keepdim: bool = False,
            *,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def argmax(
            self, dim: int | None = None, keepdim: bool = False, *, axis: Any = None, keepdims: bool | None = None
        ) -> Tensor: ...

        def argmin(
            self, dim: int | None = None, keepdim: bool = False, *, axis: Any = None, keepdims: bool | None = None
        ) -> Tensor: ...

        def logsumexp(
            self,
            dim: int | Sequence[int] = ...,
            keepdim: bool = False,
            *,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def norm(self, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Tensor: ...

        def all(
            self,
            dim: int | Sequence[int] | None = None,
            keepdim: bool = False,
            *,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def any(
            self,
            dim: int | Sequence[int] | None = None,
            keepdim: bool = False,
            *,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def sum_to_size(self, *sizes: Any, size: Any = None) -> Tensor: ...

        def cumsum(self, dim: int = ..., *, dtype: Any = None, axis: Any = None) -> Tensor: ...

        def cumsum_(self, dim: int = ..., *, dtype: Any = None, axis: Any = None) -> Tensor: ...

        def cumprod(self, dim: int = ..., *, dtype: Any = None, axis: Any = None) -> Tensor: ...

        def cumprod_(self, dim: int = ..., *, dtype: Any = None, axis: Any = None) -> Tensor: ...

        def cummax(self, dim: int = ..., *, axis: Any = None) -> Any: ...

        def cummin(self, dim: int = ..., *, axis: Any = None) -> Any: ...

        def logcumsumexp(self, dim: int = ..., *, axis: Any = None) -> Tensor: ...

        def softmax(self, dim: int = ..., dtype: Any = None, *, axis: Any = None) -> Tensor: ...

        def log_softmax(self, dim: int = ..., dtype: Any = None, *, axis: Any = None) -> Tensor: ...

        def nansum(
            self,
            dim: Any = None,
            keepdim: bool = False,
            *,
            dtype: Any = None,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def nanmean(
            self,
            dim: Any = None,
            keepdim: bool = False,
            *,
            dtype: Any = None,
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def count_nonzero(self, dim: Any = None, *, axis: Any = None) -> Tensor: ...

        def aminmax(
            self, *, dim: int | None = None, keepdim: bool = False, axis: Any = None, keepdims: bool | None = None
        ) -> Any: ...

        def mode(
            self, dim: int = -1, keepdim: bool = False, *, axis: Any = None, keepdims: bool | None = None
        ) -> Any: ...

        def nanmedian(
            self, dim: int | None = None, keepdim: bool = False, *, axis: Any = None, keepdims: bool | None = None
        ) -> Any: ...

        def quantile(
            self,
            q: Any,
            dim: int | None = None,
            keepdim: bool = False,
            *,
            interpolation: str = "linear",
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def nanquantile(
            self,
            q: Any,
            dim: int | None = None,
            keepdim: bool = False,
            *,
            interpolation: str = "linear",
            axis: Any = None,
            keepdims: bool | None = None,
        ) -> Tensor: ...

        def diff(
            self,
            n: int = 1,
            dim: int = -1,
            prepend: Tensor | None = None,
            append: Tensor | None = None,
            *,
            axis: Any = None,
        ) -> Tensor: ...

        def cov(
            self, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None
        ) -> Tensor: ...

        def corrcoef(self) -> Tensor: ...

        def renorm(self, p: float, dim: int, maxnorm: float) -> Tensor: ...

        def renorm_(self, p: float, dim: int, maxnorm: float) -> Tensor: ...

        def unique(
            self, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
        ) -> Any: ...

        def unique_consecutive(
            self, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
        ) -> Any: ...

        def bincount(self, weights: Tensor | None = None, minlength: int = 0) -> Tensor: ...

        def histc(self, bins: int = 100, min: float = 0, max: float = 0) -> Tensor: ...

        def histogram(
            self,
            bins: Any,
            *,
            range: Sequence[float] | None = None,
            weight: Tensor | None = None,
            density: bool = False,
        ) -> Any: ...

        def reshape(self, *sizes: Any, shape: Any = None) -> Tensor: ...

        def view(self, *sizes: Any, size: Any = None, dtype: Any = None) -> Tensor: ...

        def view_as(self, other: Tensor) -> Tensor: ...

        def reshape_as(self, other: Tensor) -> Tensor: ...

        def expand(self, *sizes: Any, size: Any = None, implicit: bool = False) -> Tensor: ...

        def expand_as(self, other: Tensor) -> Tensor: ...

        def t(self) -> Tensor: ...

        def t_(self) -> Tensor: ...

        def transpose(self, dim0: int, dim1: int) -> Tensor: ...

        def transpose_(self, dim0: int, dim1: int) -> Tensor: ...

        def permute(self, *order: Any, dims: Any = None) -> Tensor: ...

        def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor: ...

        def unflatten(self, dim: int, sizes: Sequence[int]) -> Tensor: ...

        def squeeze(self, dim: int | Sequence[int] | None = None, *, axis: Any = None) -> Tensor: ...

        def squeeze_(self, dim: int | Sequence[int] | None = None, *, axis: Any = None) -> Tensor: ...

        def unsqueeze(self, dim: int = ..., *, axis: Any = None) -> Tensor: ...

        def unsqueeze_(self, dim: int = ..., *, axis: Any = None) -> Tensor: ...

        def swapaxes(self, axis0: int, axis1: int) -> Tensor: ...

        def swapaxes_(self, axis0: int, axis1: int) -> Tensor: ...

        def swapdims(self, dim0: int, dim1: int) -> Tensor: ...

        def swapdims_(self, dim0: int, dim1: int) -> Tensor: ...

        def movedim(self, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor: ...

        def moveaxis(self, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor: ...

        def broadcast_to(self, *args: Any, size: Any = None) -> Tensor: ...

        def narrow(self, dim: int = ..., start: Any = ..., length: int = ..., *, axis: Any = None) -> Tensor: ...

        def ravel(self) -> Tensor: ...

        def narrow_copy(self, dim: int, start: int, length: int) -> Tensor: ...

        def unfold(self, dimension: int, size: int, step: int) -> Tensor: ...

        def as_strided(
            self, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
        ) -> Tensor: ...

        @property
        def T(self) -> Tensor: ...

        @property
        def mT(self) -> Tensor: ...

        @property
        def mH(self) -> Tensor: ...

        @property
        def H(self) -> Tensor: ...

        def adjoint(self) -> Tensor: ...

        def as_strided_scatter(
            self, src: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
        ) -> Tensor: ...

        def unbind(self, dim: int = 0, *, axis: Any = None) -> tuple[Tensor, ...]: ...

        def split(self, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]: ...

        def chunk(self, chunks: int, dim: int = 0, *, axis: Any = None) -> tuple[Tensor, ...]: ...

        def tensor_split(
            self,
            indices_or_sections: Any = None,
            dim: int = 0,
            *,
            sections: int | None = None,
            indices: Sequence[int] | None = None,
            tensor_indices_or_sections: Tensor | None = None,
            axis: Any = None,
        ) -> tuple[Tensor, ...]: ...

        def hsplit(
            self, indices_or_sections: Any = None, *, sections: int | None = None, indices: Sequence[int] | None = None
        ) -> tuple[Tensor, ...]: ...

        def vsplit(
            self, indices_or_sections: Any = None, *, sections: int | None = None, indices: Sequence[int] | None = None
        ) -> tuple[Tensor, ...]: ...

        def dsplit(
            self, indices_or_sections: Any = None, *, sections: int | None = None, indices: Sequence[int] | None = None
        ) -> tuple[Tensor, ...]: ...

        def split_with_sizes(self, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]: ...

        def flip(self, *args: Any, dims: Any = None) -> Tensor: ...

        def fliplr(self) -> Tensor: ...

        def flipud(self) -> Tensor: ...

        def roll(self, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor: ...

        def repeat(self, *args: Any, repeats: Any = None) -> Tensor: ...

        def tile(self, *args: Any, dims: Any = None) -> Tensor: ...

        def tril(self, diagonal: int = 0) -> Tensor: ...

        def tril_(self, diagonal: int = 0) -> Tensor: ...

        def triu(self, diagonal: int = 0) -> Tensor: ...

        def triu_(self, diagonal: int = 0) -> Tensor: ...

        def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor: ...

        def diag(self, diagonal: int = 0) -> Tensor: ...

        def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor: ...

        def rot90(self, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor: ...

        def repeat_interleave(
            self, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None, axis: Any = None
        ) -> Tensor: ...

        def diagflat(self, offset: int = 0) -> Tensor: ...

        def matmul(self, other: Tensor) -> Tensor: ...

        def __matmul__(self, other: Tensor) -> Tensor: ...

        def __rmatmul__(self, other: Any) -> Tensor: ...

        def mm(self, mat2: Tensor) -> Tensor: ...

        def bmm(self, mat2: Tensor) -> Tensor: ...

        def mv(self, vec: Tensor) -> Tensor: ...

        def dot(self, tensor: Tensor) -> Tensor: ...

        def vdot(self, other: Tensor) -> Tensor: ...

        def outer(self, vec2: Tensor) -> Tensor: ...

        def ger(self, vec2: Tensor) -> Tensor: ...

        def inverse(self) -> Tensor: ...

        def det(self) -> Tensor: ...

        def addmm(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def addmm_(self, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def addmv(self, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def addmv_(self, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def addr(self, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def addr_(self, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def baddbmm(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def baddbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def addbmm(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def addbmm_(self, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor: ...

        def matrix_exp(self) -> Tensor: ...

        def dist(self, other: Tensor, p: Any = 2) -> Tensor: ...

        def inner(self, other: Tensor) -> Tensor: ...

        def kron(self, other: Tensor) -> Tensor: ...

        def cross(self, other: Tensor, dim: int | None = None) -> Tensor: ...

        def trace(self) -> Tensor: ...

        def logdet(self) -> Tensor: ...

        def matrix_power(self, n: int) -> Tensor: ...

        def svd(self, some: bool = True, compute_uv: bool = True) -> _return_types.svd: ...

        def qr(self, some: bool = True) -> _return_types.qr: ...

        def cholesky(self, upper: bool = False) -> Tensor: ...

        def cholesky_inverse(self, upper: bool = False) -> Tensor: ...

        def cholesky_solve(self, input2: Tensor, upper: bool = False) -> Tensor: ...

        def lu(self, pivot: bool = True, get_infos: bool = False) -> Any: ...

        def lu_solve(self, LU_data: Tensor, LU_pivots: Tensor) -> Tensor: ...

        def slogdet(self) -> _return_types.slogdet: ...

        def pinverse(self, rcond: float = 1e-15) -> Tensor: ...

        def triangular_solve(
            self, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False
        ) -> _return_types.triangular_solve: ...

        def geqrf(self) -> _return_types.geqrf: ...

        def orgqr(self, input2: Tensor) -> Tensor: ...

        def ormqr(self, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False) -> Tensor: ...

        def __getitem__(self, index: Any) -> Tensor: ...

        def select(self, dim: int = ..., index: int = ..., *, axis: Any = None) -> Tensor: ...

        def take(self, index: Tensor) -> Tensor: ...

        def index_put(self, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor: ...

        def index_put_(self, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor: ...

        def nonzero(self, *, as_tuple: bool = False) -> Any: ...

        def nonzero_static(self, *, size: int, fill_value: int = -1) -> Tensor: ...

        def argwhere(self) -> Tensor: ...

        def gather(
            self, dim: int = ..., index: Tensor = ..., *, sparse_grad: bool = False, axis: Any = None
        ) -> Tensor: ...

        def take_along_dim(self, indices: Tensor, dim: int | None = None, *, axis: Any = None) -> Tensor: ...

        def scatter(
            self,
            dim: int = ...,
            index: Tensor = ...,
            src: Any = None,
            *,
            value: Any = None,
            reduce: str | None = None,
            axis: Any = None,
        ) -> Tensor: ...

        def scatter_(
            self,
            dim: int = ...,
            index: Tensor = ...,
            src: Any = None,
            *,
            value: Any = None,
            reduce: str | None = None,
            axis: Any = None,
        ) -> Tensor: ...

        def scatter_add(
            self, dim: int = ..., index: Tensor = ..., src: Tensor = ..., *, axis: Any = None
        ) -> Tensor: ...

        def scatter_add_(
            self, dim: int = ..., index: Tensor = ..., src: Tensor = ..., *, axis: Any = None
        ) -> Tensor: ...

        def scatter_reduce(
            self,
            dim: int = ...,
            index: Tensor = ...,
            src: Tensor = ...,
            reduce: str = ...,
            *,
            include_self: bool = True,
            axis: Any = None,
        ) -> Tensor: ...

        def scatter_reduce_(
            self,
            dim: int = ...,
            index: Tensor = ...,
            src: Tensor = ...,
            reduce: str = ...,
            *,
            include_self: bool = True,
            axis: Any = None,
        ) -> Tensor: ...

        def index_select(self, dim: int = ..., index: Tensor = ..., *, axis: Any = None) -> Tensor: ...

        def put(self, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor: ...

        def put_(self, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor: ...

        def index_add(
            self, dim: int = ..., index: Tensor = ..., source: Tensor = ..., *, alpha: Any = 1, axis: Any = None
        ) -> Tensor: ...

        def index_add_(
            self, dim: int = ..., index: Tensor = ..., source: Tensor = ..., *, alpha: Any = 1, axis: Any = None
        ) -> Tensor: ...

        def index_copy(
            self, dim: int = ..., index: Tensor = ..., source: Tensor = ..., *, axis: Any = None
        ) -> Tensor: ...

        def index_copy_(
            self, dim: int = ..., index: Tensor = ..., source: Tensor = ..., *, axis: Any = None
        ) -> Tensor: ...

        def index_fill(self, dim: int = ..., index: Tensor = ..., value: Any = ..., *, axis: Any = None) -> Tensor: ...

        def index_fill_(self, dim: int = ..., index: Tensor = ..., value: Any = ..., *, axis: Any = None) -> Tensor: ...

        def index_reduce(
            self,
            dim: int = ...,
            index: Tensor = ...,
            source: Tensor = ...,
            reduce: str = ...,
            *,
            include_self: bool = True,
            axis: Any = None,
        ) -> Tensor: ...

        def index_reduce_(
            self,
            dim: int = ...,
            index: Tensor = ...,
            source: Tensor = ...,
            reduce: str = ...,
            *,
            include_self: bool = True,
            axis: Any = None,
        ) -> Tensor: ...

        def masked_fill(self, mask: Tensor, value: Any) -> Tensor: ...

        def masked_fill_(self, mask: Tensor, value: Any) -> Tensor: ...

        def masked_select(self, mask: Tensor) -> Tensor: ...

        def masked_scatter(self, mask: Tensor, source: Tensor) -> Tensor: ...

        def masked_scatter_(self, mask: Tensor, source: Tensor) -> Tensor: ...

        def select_scatter(self, src: Tensor, dim: int, index: int) -> Tensor: ...

        def slice_scatter(
            self, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
        ) -> Tensor: ...

        def diagonal_scatter(self, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor: ...

        def fill_diagonal_(self, fill_value: Any, wrap: bool = False) -> Tensor: ...

        def zero_(self) -> Tensor: ...

        def fill_(self, value: Any) -> Tensor: ...

        def copy_(self, other: Any, non_blocking: bool = False) -> Tensor: ...

        def __setitem__(self, index: Any, value: Any) -> None: ...

        @property
        def real(self) -> Tensor: ...

        @property
        def imag(self) -> Tensor: ...

        def conj(self) -> Tensor: ...

        def conj_physical(self) -> Tensor: ...

        def conj_physical_(self) -> Tensor: ...

        def resolve_conj(self) -> Tensor: ...

        def is_conj(self) -> bool: ...

        def resolve_neg(self) -> Tensor: ...

        def is_neg(self) -> bool: ...

        def angle(self) -> Tensor: ...

        def sort(
            self, dim: int = -1, descending: bool = False, *, stable: bool | None = None, axis: Any = None
        ) -> _return_types.sort: ...

        def argsort(
            self, dim: int = -1, descending: bool = False, *, stable: bool = False, axis: Any = None
        ) -> Tensor: ...

        def topk(
            self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *, axis: Any = None
        ) -> _return_types.topk: ...

        def kthvalue(
            self, k: int, dim: int = -1, keepdim: bool = False, *, axis: Any = None, keepdims: bool | None = None
        ) -> _return_types.kthvalue: ...

        def median(
            self, dim: int | None = None, keepdim: bool = False, *, keepdims: bool | None = None, axis: Any = None
        ) -> Any: ...

        def msort(self) -> Tensor: ...

        def clone(self, *, memory_format: Any = None) -> Tensor: ...

        def to(self, *args: Any, **kwargs: Any) -> Tensor: ...

        def type_as(self, other: Tensor) -> Tensor: ...

        def contiguous(self, memory_format: Any = None) -> Tensor: ...

        def cpu(self, *, memory_format: Any = None) -> Tensor: ...

        def double(self, *, memory_format: Any = None) -> Tensor: ...

        def half(self, *, memory_format: Any = None) -> Tensor: ...

        def cdouble(self, *, memory_format: Any = None) -> Tensor: ...

        def cfloat(self, *, memory_format: Any = None) -> Tensor: ...

        def to_dense(self, dtype: Any = None, *, masked_grad: Any = None) -> Tensor: ...

        def long(self, *, memory_format: Any = None) -> Tensor: ...

        def byte(self, *, memory_format: Any = None) -> Tensor: ...

        def float(self, *, memory_format: Any = None) -> Tensor: ...

        def int(self, *, memory_format: Any = None) -> Tensor: ...

        def bool(self, *, memory_format: Any = None) -> Tensor: ...

        def cuda(self, device: Any = None, non_blocking: Any = False, memory_format: Any = None) -> Tensor: ...

        def type(self, dtype: Any = None, non_blocking: Any = False, **kwargs: Any) -> Any: ...
    # --- end of generated code ---


def _array_from(data: Any, dtype: Any) -> np.ndarray[Any, Any]:
    """A fresh array from nested Python data, arrays or tensors, with torch's default dtypes."""
    dt = None if dtype is None else _dtypes.to_dtype(dtype)
    if isinstance(data, Tensor):
        arr = np.array(data._data, dtype=dt, copy=True)
    elif isinstance(data, (np.ndarray, np.generic)):
        if data.dtype not in _DTYPES:  # strings, objects, datetimes, longdouble, other byte order
            raise _dtype_error(data.dtype)
        if isinstance(data, np.generic) and dt is not None and dt.kind in "iu":  # converted as a number
            arr = _pydata.numbers_array(data.item(), dt)
        else:
            with np.errstate(invalid="ignore"):  # NaN to an integer dtype: torch's cast, without a warning
                arr = np.array(data, dtype=dt, copy=True)  # a NumPy scalar keeps its dtype, as in torch
    elif isinstance(data, (list, tuple)) and any(isinstance(v, Tensor) for v in _flatten(data)):
        arr = np.array([_array_from(v, None) for v in data], dtype=dt)
    else:
        refused = (v.dtype for v in _pydata.items(data) if isinstance(v, np.generic) and v.dtype not in _DTYPES)
        if (refused_dtype := next(refused, None)) is not None:
            raise _dtype_error(refused_dtype)
        arr = _pydata.numbers_array(data, dt)
        if arr.dtype.kind in "OUS":
            _refuse_elements(data)
        if dt is None and arr.dtype.kind in "fc":
            arr = arr.astype(_inferred_dtype(data, arr.dtype.kind))
        elif dt is None and arr.dtype.kind in "iu" and arr.dtype != _dtypes.int64:
            arr = arr.astype(_dtypes.int64)
    return arr


def _inferred_dtype(data: Any, kind: str) -> np.dtype[Any]:
    """torch's dtype for floating or complex Python data: the default dtype (its complex
    twin for complex), promoted with the dtype of any NumPy scalar among the values
    (``tensor([np.float64(1.0), 2.0])`` is float64)."""
    default = _dtypes.get_default_dtype() if kind == "f" else _dtypes.scalar_dtype(1j)
    items = _flatten(data) if isinstance(data, (list, tuple)) else iter((data,))
    found = {v.dtype for v in items if isinstance(v, np.generic) and v.dtype.kind in "fc"}
    return np.result_type(default, *found) if found else default


def _refuse_elements(data: Any) -> None:
    """Torch's errors for data that is not numbers (strings, None, other objects)."""
    first = data
    while isinstance(first, (list, tuple)) and first:
        first = first[0]
    if first is not data and isinstance(first, str):  # torch reads a leading string as a dimension
        raise ValueError(f"too many dimensions 'str'{_TEXT_HINT}")
    items = _flatten(data) if isinstance(data, (list, tuple)) else iter((data,))
    for v in items:
        if isinstance(v, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(v).__name__}'{_TEXT_HINT}")
        if not isinstance(v, (bool, int, float, complex, np.generic, np.ndarray, Tensor)):
            raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")


# A tensor holds numbers; text that flows through Functions (with written feedback as its
# gradient) is a Variable of ctxgrad.compat.afnio.
_TEXT_HINT = " (a tensor holds numbers; for text, use ctxgrad.compat.afnio.Variable)"


def _flatten(data: Any) -> Iterator[Any]:
    for v in data:
        if isinstance(v, (list, tuple)):
            yield from _flatten(v)
        else:
            yield v


def _is_size_int(value: Any) -> bool:
    """An int the legacy constructor reads as a size (a bool is data, as in torch)."""
    return type(value) is int or isinstance(value, np.integer)


def _wrap(arr: np.ndarray[Any, Any]) -> Tensor:
    """A new leaf tensor around ``arr`` (no copy), for the core (ops use :func:`as_tensor`)."""
    t = _new_leaf(Tensor)
    t._data = arr
    t._requires_grad = False  # (Tensor.__new__, inline)
    t._grad_fn = None
    t._output_nr = 0
    t._base = None
    return t


_new_leaf = TensorBase.__new__  # (a tensor's slots are then set by the caller, as Tensor.__new__ does)
_new_tensor = Tensor.__new__  # a tensor without its ``__init__``
_ndarray = np.ndarray  # a global: one lookup fewer in as_tensor's first branch
_device = check_device

# The dtypes a tensor can hold (torch's; ``torch.from_numpy`` takes these), in native byte order.
_DTYPES = frozenset(
    np.dtype(t)
    for t in (
        np.bool_,
        np.uint8,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
)


def _rebuild_tensor(cls: type[Tensor], data: np.ndarray[Any, Any], requires_grad: bool) -> Tensor:
    """A leaf of class ``cls`` around ``data``: how a pickled tensor comes back."""
    t = _new_tensor(cls)
    t._data = data
    t._requires_grad = requires_grad
    return t


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """A tensor from ``data`` that shares memory with it when no conversion is needed.

    A NumPy array is wrapped as it is, without a copy (a change to one shows in the other);
    a NumPy scalar (what a ufunc returns for 0-d input) becomes a 0-d tensor of its dtype; a
    tensor comes back itself.  With a ``dtype`` it does not have, the data is converted
    (a copy).  Anything else (nested lists, Python numbers) is copied, as by ``ctxgrad.tensor``.

    This is how a Function's ``forward`` and ``backward`` turn a NumPy result into a tensor
    (``as_tensor(np.tanh(x.array))``, see :attr:`Tensor.array`); every built-in op does.
    An ndarray of a supported dtype, outside inference mode, takes the first branch, which
    is the whole cost of such a call.

    An array of a dtype torch cannot hold (strings, objects, ``longdouble``, ...) raises
    torch's ``TypeError``; one in the other byte order, torch's ``ValueError``.

    >>> import numpy as np, ctxgrad
    >>> a = np.array([1.0, 2.0])
    >>> t = ctxgrad.as_tensor(a)
    >>> a[0] = 5.0
    >>> t
    tensor([5., 2.], dtype=ctxgrad.float64)
    >>> ctxgrad.as_tensor(np.float64(3.0) * 2)
    tensor(6., dtype=ctxgrad.float64)
    """
    if (
        type(data) is _ndarray
        and dtype is None
        and device is None
        and data.dtype in _DTYPES
        and (not _special_modes or not _state.modes.special)
    ):
        t = _new_leaf(Tensor)
        t._data = data
        t._requires_grad = False  # (Tensor.__new__, inline)
        t._grad_fn = None
        t._output_nr = 0
        t._base = None
        return t
    return _as_tensor(data, dtype, device)


def _as_tensor(data: Any, dtype: Any, device: Any) -> Tensor:
    """:func:`as_tensor` past its first branch: NumPy scalars, conversions, a device, ndarray
    subclasses, tensors, Python data, refused dtypes, inference mode."""
    if isinstance(data, np.generic):
        data = np.asarray(data)
    if isinstance(data, np.ndarray):
        if data.dtype not in _DTYPES:
            raise _dtype_error(data.dtype)
        arr = data if dtype is None or _dtypes.to_dtype(dtype) == data.dtype else _array_from(data, dtype)
    elif isinstance(data, Tensor):
        if device is not None:
            _device(device)
        return data if dtype is None or _dtypes.to_dtype(dtype) == data.dtype else data.to(dtype)
    else:
        arr = _array_from(data, dtype)
    if device is not None:
        _device(device)
    t = _wrap(arr)
    if _state.modes.inference:
        t._inference = True
    return t


def _dtype_error(dt: np.dtype[Any]) -> Exception:
    """Torch's error for an array whose dtype a tensor cannot hold."""
    if not dt.isnative and dt.newbyteorder("=") in _DTYPES:
        return ValueError(
            "given numpy array has byte order different from the native byte order. "
            "Conversion between byte orders is currently not supported."
        )
    return TypeError(
        f"can't convert np.ndarray of type numpy.{dt.type.__name__}. The only supported types are: "
        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
        "uint16, uint8, and bool." + (_TEXT_HINT if dt.kind in "OUSV" else "")
    )


def _channels_last(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """A 4-d layout of torch's ``channels_last`` memory format (dimension 1 innermost, then
    3, 2 and 0; a dimension of length 1 may have any stride)."""
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def _wrap_dim(dim: SupportsIndex, ndim: int) -> int:
    d = int(dim)
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return d + n if d < 0 else d


def summed_to_shape(data: np.ndarray[Any, Any], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """``data`` summed down to ``shape``, a shape it broadcasts from (over its leading
    dimensions, and where ``shape`` has a 1): ``sum_to_size``'s values, in a new array."""
    lead = data.ndim - len(shape)
    if lead and shape and data.shape[lead:] == shape:  # (the common case, a bias's: leading dimensions only;
        # a full sum takes the path below, whose ``keepdims`` keeps a 0-d array, not a NumPy scalar)
        return np.add.reduce(data, axis=0 if lead == 1 else tuple(range(lead)))  # type: ignore[no-any-return]
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and data.shape[lead + i] != 1)
    if not axes:  # (nothing to sum: ``data`` already has ``shape``)
        copied: np.ndarray[Any, Any] = data.copy()
        return copied
    summed: np.ndarray[Any, Any] = np.add.reduce(data, axis=axes, keepdims=True).reshape(shape)
    return summed
