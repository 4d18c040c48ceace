"""Batched tensors: what ``vmap`` hands the function it maps, and the vmap levels.

A :class:`BatchedTensor` holds every sample in ``value`` (the batch in dimension 0) and shows
the shape of one sample; ``autograd/_batched.py`` applies Functions to it.
"""

from __future__ import annotations

import itertools
import sys
from types import SimpleNamespace
from typing import Any, NamedTuple

import numpy as np

from ctxgrad._dtypes import ArrayFacts
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, _wrap

__all__ = [
    "BatchedTensor",
    "VmapInfo",
    "VmapLevel",
    "close_level",
    "function_class",
    "level_info",
    "open_level",
    "RANDOM_ERROR_MSG",
    "SAME_RANDOMNESS_BATCHED_MSG",
    "check_random_fill",
    "refuse_dynamic_shape",
    "random_carrier",
    "random_under_vmap",
    "values_error",
]

_level_counter = itertools.count(1)


def function_class() -> Any:
    """``ctxgrad.autograd.Function``, looked up rather than imported: ``function.py`` imports
    the vmap modules, which make Functions of their own (the stacked samples of a loop, a
    ``generate_vmap_rule`` Function on a whole batch)."""
    return sys.modules["ctxgrad.autograd.function"].Function


class VmapLevel(NamedTuple):
    """One open ``vmap``: its level, batch size and randomness mode."""

    level: int
    batch_size: int
    randomness: str


class VmapInfo(NamedTuple):
    """What a ``vmap`` staticmethod learns about the batch (torch's ``info``)."""

    batch_size: int
    randomness: str


def open_level(batch_size: int, randomness: str) -> VmapLevel:
    """Open a new vmap level (closed by :func:`close_level`), innermost last."""
    lv = VmapLevel(next(_level_counter), batch_size, randomness)
    _state.modes.vmap_levels = (*_state.modes.vmap_levels, lv)
    return lv


def close_level(lv: VmapLevel) -> None:
    _state.modes.vmap_levels = tuple(x for x in _state.modes.vmap_levels if x.level != lv.level)


def level_info(level: int) -> VmapLevel | None:
    lv: VmapLevel
    for lv in _state.modes.vmap_levels:
        if lv.level == level:
            return lv
    return None


_ITEM_MSG = (
    "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over calling .item() on a "
    "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
    "inside PyTorch internals, please file a bug report."
)
_CONTROL_FLOW_MSG = (
    "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow. We don't "
    "support that yet, please file an issue at https://github.com/pytorch/pytorch/issues ."
)


def _dense(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int, order: Any) -> bool:
    """Whether ``strides`` (bytes) lay ``shape`` out without gaps, the dimensions taken from
    the fastest in ``order`` (``reversed``: row-major); a dimension of length 1 has any stride."""
    step = itemsize
    for n, stride in order(list(zip(shape, strides))):
        if n != 1 and stride != step:
            return False
        step *= n
    return True


def values_error(level: int) -> RuntimeError:
    if level_info(level) is None:
        return RuntimeError(
            "Either your tensor may have escaped from inside a function being vmapped and this is a user error "
            "(see https://pytorch.org/functorch/stable/ux_limitations.html), or there is an internal functorch "
            "error in `gen_vmap_plumbing` Please file an issue if it looks like the latter"
        )
    return RuntimeError(
        "vmap: the values of a batched tensor are not available inside vmap (it stands for every sample "
        "at once): use ctxgrad ops on it, not NumPy or Python on its values."
    )


class _LogicalArray(ArrayFacts):
    """What a batched tensor has where a tensor has its array: the facts of one sample
    (``shape``, ``dtype``, and its layout: the ``strides`` of the batch without its batch
    dimension, as torch reports them), so that code that reads them works, and no values."""

    __slots__ = ("dtype", "flags", "level", "shape", "strides")
    base = None

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype[Any], level: int, strides: tuple[int, ...]) -> None:
        self.shape = shape
        self.dtype = dtype
        self.level = level
        self.strides = strides
        self.flags = SimpleNamespace(
            c_contiguous=_dense(shape, strides, dtype.itemsize, reversed),
            f_contiguous=_dense(shape, strides, dtype.itemsize, iter),
            writeable=True,
            owndata=False,
        )

    @property
    def ndim(self) -> int:  # type: ignore[override]
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def itemsize(self) -> int:
        return int(self.dtype.itemsize)

    def __array__(self, *args: Any, **kwargs: Any) -> Any:
        raise values_error(self.level)

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise values_error(self.level)

    # NumPy work on the values (x.array * 2, x.array[0], ...) refuses, as reading them does.
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __pow__ = __rpow__ = __matmul__ = __rmatmul__ = _refuse
    __neg__ = __pos__ = __abs__ = __invert__ = __and__ = __or__ = __xor__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = __getitem__ = __setitem__ = __iter__ = __len__ = _refuse
    __float__ = __int__ = __bool__ = __index__ = _refuse

    def __getattr__(self, name: str) -> Any:
        raise values_error(object.__getattribute__(self, "level"))


class BatchedTensor(Tensor):
    """A tensor inside ``vmap``: ``value`` holds every sample (batch in dimension 0); the
    tensor itself has the shape of one sample.

    >>> import ctxgrad
    >>> from ctxgrad.func import vmap
    >>> vmap(lambda x: (print(type(x).__name__, tuple(x.shape)), x * 2)[1])(ctxgrad.ones(4, 3)).shape
    BatchedTensor (3,)
    ctxgrad.Size([4, 3])
    """

    value: Tensor
    level: int
    #: where the batch dimension was in the tensor vmap was given (``value`` has it first):
    #: what a user's ``vmap`` staticmethod is told, as torch tells it (its ``in_dims``)
    bdim: int

    def __init__(self, value: Tensor, level: int, bdim: int = 0) -> None:  # (Tensor.__init__ makes an array)
        self.value = value
        self.level = level
        self.bdim = bdim

    @property
    def _data(self) -> Any:  # type: ignore[override]
        v = self.value._data
        return _LogicalArray(v.shape[1:], v.dtype, self.level, tuple(v.strides[1:]))

    def storage_offset(self) -> int:
        return self.value.storage_offset()

    @property  # type: ignore[misc]
    def requires_grad(self) -> bool:
        return self.value.requires_grad

    @property
    def grad_fn(self) -> Any:
        return self.value.grad_fn

    @property
    def is_leaf(self) -> bool:
        return self.value.is_leaf

    def detach(self) -> Tensor:
        return BatchedTensor(self.value.detach(), self.level)

    def item(self) -> Any:
        raise RuntimeError(_ITEM_MSG)

    def tolist(self) -> Any:
        raise RuntimeError(_ITEM_MSG)

    def numpy(self, *, force: bool = False) -> np.ndarray[Any, Any]:
        raise values_error(self.level)

    def __bool__(self) -> bool:
        raise RuntimeError(_CONTROL_FLOW_MSG)

    def __float__(self) -> float:
        raise RuntimeError(_ITEM_MSG)

    def __int__(self) -> int:
        raise RuntimeError(_ITEM_MSG)

    def __index__(self) -> int:
        raise RuntimeError(_CONTROL_FLOW_MSG)

    def __repr__(self) -> str:
        inner = "\n".join("    " + line for line in repr(self.value).splitlines())
        return f"BatchedTensor(lvl={self.level}, bdim=0, value=\n{inner}\n)"

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise RuntimeError("vmap: a batched tensor cannot be pickled or copied inside vmap")


RANDOM_ERROR_MSG = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or 'different' "
    "randomness flags on vmap or perform the randomness operation out of vmap"
)


def random_under_vmap(shape: tuple[int, ...], draw: Any) -> Any:
    """Random values of ``shape`` made inside vmap, as its ``randomness`` says: ``"error"``
    refuses, ``"same"`` draws once for all samples, ``"different"`` draws for each sample
    (a batched tensor).  ``draw(shape)`` makes a tensor of random values; None outside vmap."""
    levels = _state.modes.vmap_levels
    if not levels:
        return None
    if any(lv.randomness == "error" for lv in levels):
        raise RuntimeError(RANDOM_ERROR_MSG)
    different = [lv for lv in levels if lv.randomness == "different"]
    t = draw(tuple(lv.batch_size for lv in different) + tuple(shape))
    for lv in different:
        t = BatchedTensor(t, lv.level)
    return t


SAME_RANDOMNESS_BATCHED_MSG = (
    "Vmap does not currently support same randomness with a batched tensor input. Please file an issue with functorch"
)
_DIFFERENT_IN_PLACE_MSG = (
    "vmap: Cannot ask for different inplace randomness on an unbatched tensor. This will appear like same "
    "randomness. If this is necessary for your usage, please file an issue with functorch."
)


def random_carrier() -> Tensor | None:
    """Before a random op on tensors inside vmap: torch's error in ``"error"`` mode, else a
    0-d bool tensor batched at every ``"different"`` level (None when there is none).  Given
    to the op as one more input, it makes the op's rule draw for every sample; ``"same"``
    draws once, as outside vmap."""
    if not _state.modes.vmap_levels:
        return None
    t = random_under_vmap((), lambda shape: _wrap(np.zeros(shape, bool)))
    return t if isinstance(t, BatchedTensor) else None


def _levels_of(t: Any) -> set[int]:
    found = set()
    while isinstance(t, BatchedTensor):
        found.add(t.level)
        t = t.value
    return found


def check_random_fill(x: Tensor, op: str, *sources: Tensor) -> None:
    """Before an in-place random fill of ``x`` (drawn from ``sources``, as ``bernoulli_``'s
    probabilities) inside vmap: torch's errors for ``"error"`` mode, for batched sources
    under ``"same"`` or written into a tensor not batched alike, and for ``"different"``
    randomness asked of a tensor that is not batched there."""
    levels = _state.modes.vmap_levels
    if not levels:
        return
    if any(lv.randomness == "error" for lv in levels):
        raise RuntimeError(RANDOM_ERROR_MSG)
    batched_at = _levels_of(x)
    from_batched = set().union(*(_levels_of(s) for s in sources))
    for lv in levels:
        if lv.level in from_batched and lv.randomness == "same":
            raise RuntimeError(SAME_RANDOMNESS_BATCHED_MSG)
        if lv.level in from_batched - batched_at:
            raise RuntimeError(
                f"vmap: inplace {op}(self, *extra_args) is not possible because there exists a Tensor `other` in "
                "extra_args that has more elements than `self`. This happened due to `other` being vmapped over but "
                "`self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of inplace "
                f"{op}. If said operator is being called inside the PyTorch framework, please file a bug report "
                "instead."
            )
    if any(lv.randomness == "different" and lv.level not in batched_at for lv in levels):
        raise RuntimeError(_DIFFERENT_IN_PLACE_MSG)


def refuse_dynamic_shape(op: str, *tensors: Any) -> None:
    """Torch's refusal, inside vmap, of an op whose result's shape depends on each sample's
    values (``aten::`` ``op``), when one of ``tensors`` is batched."""
    if any(isinstance(t, BatchedTensor) for t in tensors):
        raise RuntimeError(
            "vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap over "
            f"aten::{op}. Please file an issue at https://github.com/pytorch/pytorch/issues if you need this feature."
        )
