"""``apply`` under ``vmap``: batched tensors, and the batching rule of a Function.

Inside ``vmap(f)``, ``f`` sees one sample: each mapped input is a :class:`BatchedTensor`
whose ``value`` holds every sample, the batch in dimension 0, while the tensor itself shows
the shape of one sample (its *logical* shape).  When a Function is applied to a batched
tensor, ``apply`` asks the Function for its batching rule, its ``vmap`` staticmethod, with
torch's signature: ``vmap(info, in_dims, *args)`` gets the ``value`` of each batched argument
(``in_dims`` says which: 0, or None for an argument that is the same for every sample) and
returns ``(outputs, out_dims)``.  (A rule written outside ctxgrad gets torch's contract: each
batched argument as ``vmap`` was given it, with the dimension its batch is in.)
A rule usually applies the same Function once, to the whole
batch, with its arguments adjusted (a reduction's ``dim`` moved past the batch dimension):
NumPy runs the batch in one call, and autograd records that call as any other, so gradients
flow through ``vmap`` with nothing added to the engine.

A Function without a ``vmap`` rule either has ``generate_vmap_rule = True`` (its ``forward``
and ``backward`` then run on batched tensors: :func:`generated_rule`) or falls back to a
loop over the samples, with a one-time warning naming it.

Each ``vmap`` opens a *level*; nested ``vmap`` calls nest batched tensors (the value of a
level-2 batched tensor is a level-1 batched tensor), and a rule handles one level at a
time: the ``value`` it gets may itself be batched at an outer level, and the ops it applies
to it dispatch again.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ctxgrad._dtypes import result_dtype
from ctxgrad._state import refuse_inference_write
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd._batched_generate import generated_rule
from ctxgrad.autograd._batched_tensor import (
    BatchedTensor,
    VmapInfo,
    VmapLevel,
    close_level,
    function_class,
    level_info,
    open_level,
    values_error,
)

__all__ = [
    "BatchedTensor",
    "VmapInfo",
    "VmapLevel",
    "NOT_BATCHED",
    "apply_batched",
    "batch_elementwise",
    "batch_unary",
    "expand_unbatched",
    "loop_over_samples",
    "only_first_batched",
    "shift_dim",
    "shift_dims",
]


def batched(value: Tensor, level: int) -> BatchedTensor:
    """``value`` (batch in dimension 0) as a tensor batched at ``level``."""
    return BatchedTensor(value, level)


def is_batched_at(t: Any, level: int) -> bool:
    return isinstance(t, BatchedTensor) and t.level == level


# ------------------------------------------------------------------------------ dispatch
# (weak: a Function class made on the fly, as tests do, is not kept alive by vmap)
_RULES: weakref.WeakKeyDictionary[type, str] = weakref.WeakKeyDictionary()  # Function -> "vmap", "generate" or "loop"
_WARNED: weakref.WeakSet[type] = weakref.WeakSet()


def _rule_kind(cls: type) -> str:
    """``"vmap"`` (a rule written in ctxgrad, batch first), ``"user"`` (a ``vmap`` written
    outside ctxgrad: torch's contract), ``"generate"`` or ``"loop"``."""
    kind = _RULES.get(cls)
    if kind is None:
        owner = next(c for c in cls.__mro__ if "vmap" in c.__dict__)
        if owner is not function_class():
            if getattr(cls, "generate_vmap_rule", False):
                raise RuntimeError(
                    f"You tried to vmap over {cls.__name__}, but it has both generate_vmap_rule=True and an "
                    "overridden vmap staticmethod. Please set generate_vmap_rule=False or delete the overridden "
                    "vmap staticmethod to avoid ambiguity. For more details, please see "
                    "https://pytorch.org/docs/main/notes/extending.func.html"
                )
            rule = getattr(owner.__dict__["vmap"], "__func__", owner.__dict__["vmap"])
            kind = "vmap" if getattr(rule, "__module__", "").startswith("ctxgrad.") else "user"
        elif getattr(cls, "generate_vmap_rule", False):
            kind = "generate"
        else:
            kind = "loop"
        _RULES[cls] = kind
    return kind


NOT_BATCHED: Any = object()


def apply_batched(cls: Any, args: tuple[Any, ...]) -> Any:
    """``cls.apply(*args)`` while a vmap is open: the batching rule for the innermost level
    at which an argument is batched, or :data:`NOT_BATCHED` when none is (apply goes on as
    usual)."""
    top = 0
    for a in args:
        if isinstance(a, BatchedTensor) and a.level > top:
            top = a.level
    if not top:
        return NOT_BATCHED
    lv = level_info(top)
    if lv is None:
        raise values_error(top)
    in_dims = tuple(0 if is_batched_at(a, top) else None for a in args)
    values = tuple(a.value if d == 0 else a for a, d in zip(args, in_dims))
    info = VmapInfo(lv.batch_size, lv.randomness)
    writes = cls.writes_first_input
    if writes and in_dims[0] is None:
        _refuse_write_into_unbatched(cls, args)
    if writes:
        target = args[0]
        while isinstance(target, BatchedTensor):
            target = target.value
        refuse_inference_write(target)  # (the samples are the inference tensor's memory)
    kind = _rule_kind(cls)
    if kind == "user":
        # torch's contract: each batched argument laid out as vmap was given it, its in_dim
        # saying where the batch is (ctxgrad's own rules take the batch first)
        user_dims = tuple(a.bdim if d == 0 else None for a, d in zip(args, in_dims))
        laid_out = tuple(v.movedim(0, d) if d else v for v, d in zip(values, user_dims))
        out, out_dims = _user_rule_result(cls, cls.vmap(info, user_dims, *laid_out))
    elif kind == "vmap":
        result = cls.vmap(info, in_dims, *values)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise RuntimeError(
                f"{cls.__name__}.vmap must return a tuple of two things: (outputs, out_dims), "
                f"got {type(result).__name__}"
            )
        out, out_dims = result
    elif kind == "generate":
        out, out_dims = generated_rule(cls, info, in_dims, values)
    else:
        _warn_loop(cls)
        out, out_dims = _loop(cls, lv, in_dims, values)
    wrapped = wrap_outputs(cls, out, out_dims, top)
    if writes:
        return args[0]  # an in-place op returns the tensor it wrote into
    return wrapped


_EXTENDING = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _user_rule_result(cls: Any, result: Any) -> tuple[Any, Any]:
    """What a user's ``vmap`` staticmethod returned, checked as torch checks it: two things,
    the outputs and out_dims whose structure fits them (one int for all, or one per output)."""
    from ctxgrad.func._pytree import broadcast_prefix, tree_flatten

    if not isinstance(result, tuple):
        raise RuntimeError(
            "Expected the vmap staticmethod to have two returns, an output and out_dims with pytree structure "
            f"compatible with the output. Got a {type(result)} instead"
        )
    if len(result) != 2:
        raise RuntimeError(
            "Expected the vmap staticmethod to have two returns, an output and out_dims with pytree structure "
            f"compatible with the output. Got {len(result)} returns instead"
        )
    out, out_dims = result
    spec = tree_flatten(out)[1]
    if broadcast_prefix(out_dims, spec) is None:
        raise RuntimeError(
            "The autograd.Function's vmap staticmethod returned an incompatible (output, out_dims) tuple. "
            f"Expected out_dims={out_dims} to be compatible with the structure of `output`. out_dims has structure "
            f"{tree_flatten(out_dims)[1]} but output has structure {spec}. {_EXTENDING}"
        )
    return out, out_dims


def _refuse_write_into_unbatched(cls: Any, args: tuple[Any, ...]) -> None:
    raise RuntimeError(
        f"vmap: {cls.__name__} in place (self, *extra_args) is not possible because there exists a Tensor in "
        "extra_args that is batched while `self` is not: the result has more elements than `self` can hold. "
        "Please try to use the out-of-place operator instead."
    )


def wrap_outputs(cls: Any, out: Any, out_dims: Any, level: int) -> Any:
    """The outputs of a rule (batch at ``out_dims``) as batched tensors at ``level``."""
    if isinstance(out, tuple):
        dims = out_dims if isinstance(out_dims, tuple) else (out_dims,) * len(out)
        if len(dims) != len(out):
            raise RuntimeError(
                f"{cls.__name__}.vmap returned {len(out)} outputs but {len(dims)} out_dims: give one out_dim "
                "per output (or a single int for all)"
            )
        wrapped = tuple(_wrap_one(cls, o, d, level) for o, d in zip(out, dims))
        return type(out)(*wrapped) if type(out) is not tuple and hasattr(out, "_fields") else wrapped
    if isinstance(out_dims, tuple):
        raise RuntimeError(f"{cls.__name__}.vmap returned one output but a tuple of out_dims {out_dims}")
    return _wrap_one(cls, out, out_dims, level)


def _wrap_one(cls: Any, o: Any, d: Any, level: int) -> Any:
    if d is None or not isinstance(o, Tensor):
        return o
    if not isinstance(d, int):
        raise RuntimeError(f"{cls.__name__}.vmap: an out_dim must be an int or None, got {type(d).__name__}")
    if d != 0:
        o = o.movedim(d, 0)
    return BatchedTensor(o, level)


def _warn_loop(cls: type) -> None:
    if cls in _WARNED:
        return
    _WARNED.add(cls)
    warnings.warn(
        f"vmap: {cls.__name__} has no batching rule (no vmap staticmethod, and generate_vmap_rule is not set), "
        "so vmap runs it once per sample, in a Python loop, and stacks the results. The result is right, but "
        f"slower than a batching rule: give {cls.__name__} a vmap staticmethod, or set generate_vmap_rule = True "
        "if its forward and backward are written in ctxgrad ops.",
        UserWarning,
        stacklevel=4,
    )


def _loop(cls: Any, lv: VmapLevel, in_dims: tuple[Any, ...], values: tuple[Any, ...]) -> tuple[Any, Any]:
    """Apply ``cls`` once per sample and stack the results: the rule of last resort."""
    results = []
    for i in range(lv.batch_size):
        sample = tuple(v[i] if d == 0 else v for v, d in zip(values, in_dims))
        results.append(cls.apply(*sample))
    first = results[0]
    if isinstance(first, tuple):
        cols = tuple(stack_samples([r[k] for r in results]) for k in range(len(first)))
        return cols, 0
    return stack_samples(results), 0


def stack_samples(samples: list[Any]) -> Any:
    """Tensors of one shape stacked in a new dimension 0 (differentiable)."""
    global _StackSamples
    if not isinstance(samples[0], Tensor):
        return samples[0]
    if _StackSamples is None:
        _StackSamples = _stack_samples_cls(function_class())
    return _StackSamples.apply(*samples)


def _stack_samples_cls(function: Any) -> Any:
    class StackSamples(function):  # type: ignore[misc]
        """The samples a loop computed, stacked: each one's gradient is its slice."""

        node_name = "StackBackward0"
        skips_without_gradient = True

        @staticmethod
        def forward(ctx: Any, *samples: Tensor) -> Tensor:
            ctx.n = len(samples)
            return _wrap(np.stack([s._data for s in samples]))

        @staticmethod
        def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, ...]:
            return tuple(grad[i] for i in range(ctx.n))

        @staticmethod
        def vmap(info: Any, in_dims: tuple[Any, ...], *samples: Tensor) -> tuple[Tensor, int]:
            moved = [
                s if d is not None else s.unsqueeze(0).expand(info.batch_size, *s.shape)
                for s, d in zip(samples, in_dims)
            ]
            return StackSamples.apply(*moved).movedim(0, 1), 0

    return StackSamples


_StackSamples: Any = None


# ------------------------------------------------------------------------------ rules
def logical_ndim(value: Tensor, d: Any) -> int:
    """The number of dimensions of one sample of an argument (batched or not)."""
    return value.ndim - 1 if d == 0 else value.ndim


def shift_dim(dim: int, ndim: int) -> int:
    """A dimension of one sample (negative counts from the end) as a dimension of the batch."""
    if dim < 0:
        dim += ndim
    return dim + 1


def shift_dims(dims: Any, ndim: int) -> Any:
    """:func:`shift_dim` over a tuple of dimensions; None (every dimension) stays all of one sample's."""
    if dims is None:
        return tuple(range(1, ndim + 1))
    if isinstance(dims, int):
        return shift_dim(dims, ndim)
    return tuple(shift_dim(d, ndim) for d in dims)


def batch_unary(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, *rest: Any) -> tuple[Any, Any]:
    """The rule of an op that works on its first argument's last dimensions (or each
    element) and takes no other batched tensor: apply it to the batch as it is."""
    if any(d is not None for d in in_dims[1:]):
        return _loop_rule(cls, info, in_dims, (x, *rest))
    return cls.apply(x, *rest), 0


def batch_elementwise(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], *args: Any) -> tuple[Any, Any]:
    """The rule of an elementwise op (its tensor arguments broadcast together): give each
    batched argument the dimensions of the widest sample after its batch dimension, so that
    NumPy's broadcasting lines up the samples, and apply the op once.

    A batched 0-d sample is first cast to the dtype the op gives one sample, since torch's
    promotion ranks a 0-d tensor below one with dimensions and the batch has dimensions."""
    tensors = [(a, d) for a, d in zip(args, in_dims) if isinstance(a, Tensor)]
    n = max(logical_ndim(a, d) for a, d in tensors)
    out_dtype = None
    if n > 0 and any(d == 0 and a.ndim == 1 for a, d in tensors):
        dtypes = {a.dtype for a, _ in tensors}
        if len(dtypes) > 1:
            probe: list[np.ndarray[Any, Any]] = [np.empty((1,) * logical_ndim(a, d), a.dtype) for a, d in tensors]
            out_dtype = probe[0].dtype
            acc: Any = probe[0]
            for p in probe[1:]:
                out_dtype = result_dtype(acc, p)
                acc = np.empty((1,) * max(acc.ndim, p.ndim), out_dtype)
    new = []
    for a, d in zip(args, in_dims):
        if d == 0 and out_dtype is not None and a.ndim == 1 and a.dtype != out_dtype and a.dtype.kind in "biufc":
            a = a.to(out_dtype)
        new.append(a)
    return cls.apply(*align_samples(new, in_dims)), 0


def align_samples(args: Sequence[Any], in_dims: tuple[Any, ...]) -> list[Any]:
    """Each batched tensor given the dimensions of the widest sample (of size 1) after its
    batch dimension, so that NumPy's broadcasting lines up the samples of tensors that
    broadcast together (an unbatched tensor lines up with the samples as it is)."""
    n = max(logical_ndim(a, d) for a, d in zip(args, in_dims) if isinstance(a, Tensor))
    return [
        a.reshape((a.shape[0],) + (1,) * (n - a.ndim + 1) + tuple(a.shape[1:])) if d == 0 and a.ndim - 1 < n else a
        for a, d in zip(args, in_dims)
    ]


def loop_over_samples(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], *values: Any) -> tuple[Any, Any]:
    """The last resort of a rule that covers only some cases: ``cls`` once per sample, with
    vmap's one-time warning naming it."""
    return _loop_rule(cls, info, in_dims, values)


def _loop_rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], values: tuple[Any, ...]) -> tuple[Any, Any]:
    _warn_loop(cls)
    return _loop(cls, VmapLevel(0, info.batch_size, info.randomness), in_dims, values)


def only_first_batched(in_dims: tuple[Any, ...]) -> bool:
    """Whether only the first argument is batched (the case most op-specific rules batch)."""
    return in_dims[0] == 0 and all(d is None for d in in_dims[1:])


def expand_unbatched(args: tuple[Any, ...], in_dims: tuple[Any, ...], size: int) -> list[Any]:
    """Each unbatched tensor argument given the batch dimension (the same for every sample)."""
    return [
        a.unsqueeze(0).expand(size, *a.shape) if d is None and isinstance(a, Tensor) else a
        for a, d in zip(args, in_dims)
    ]


def dims_rule(
    pos: int, *, new_dim: bool = False, none_is_all: bool = False, empty_is_all: bool = False, scalar_ok: bool = True
) -> Any:
    """The rule of an op on its first argument along the dimensions at argument ``pos`` (an
    int, a tuple, or None for every dimension when ``none_is_all``; ``()`` too when
    ``empty_is_all``): the same op on the batch, each dimension moved past the batch
    dimension.  ``new_dim``: the dimension is one of the result's (one more than the input
    has), as ``unsqueeze``'s.  A 0-d sample (whose only dimensions are ``0`` and ``-1``) is
    given one dimension of size 1 for the op, and loses it again after."""

    def rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, *rest: Any) -> tuple[Any, Any]:
        n = x.ndim - 1
        if not only_first_batched(in_dims) or (n == 0 and not scalar_ok):
            return _loop_rule(cls, info, in_dims, (x, *rest))
        scalar = n == 0 and not new_dim
        if scalar:
            x, n = x.unsqueeze(-1), 1
        args = [x, *rest]
        d = args[pos]
        if d is None or (empty_is_all and d == ()):
            if none_is_all or d == ():
                args[pos] = tuple(range(1, n + 1))
        else:
            args[pos] = shift_dims(d, n + 1 if new_dim else n)
        out = cls.apply(*args)
        if scalar:
            out = tuple(_drop_last(o) for o in out) if isinstance(out, tuple) else _drop_last(out)
        return out, 0

    return classmethod(rule)


def _drop_last(t: Any) -> Any:
    return t.squeeze(-1) if isinstance(t, Tensor) and t.ndim == 2 else t


elementwise_rule = classmethod(batch_elementwise)
unary_rule = classmethod(batch_unary)


def matrix_rule(message: str) -> Any:
    """:data:`unary_rule` for an op on (batches of) matrices whose forward refuses fewer than 2
    dimensions: the forward sees the whole batch, where a 1-D sample looks like a matrix, so
    the rule refuses such a sample first, with ``message`` (torch's error under vmap; its
    ``{shape}`` is the batch's shape, which some of torch's messages print)."""

    def rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, *rest: Any) -> tuple[Any, Any]:
        if x.ndim < 3:
            raise RuntimeError(message.format(shape=list(x.shape)))
        return batch_unary(cls, info, in_dims, x, *rest)

    return classmethod(rule)


def flat_rule(method: str) -> Any:
    """The rule of a reduction over every element (``max()``, ``prod()``): each sample
    flattened, then the reduction ``method`` over that dimension."""

    def rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor) -> tuple[Any, Any]:
        return getattr(x.reshape(x.shape[0], -1), method)(1), 0

    return classmethod(rule)


def map_over_batch(
    func: Callable[..., Any], args: tuple[Any, ...], in_dims: tuple[Any, ...], size: int
) -> tuple[Any, ...]:
    """``func`` applied to every sample of ``args`` at once (the arguments with an in_dim of
    0 hold ``size`` samples in dimension 0), its outputs as whole batches: the heart of
    ``vmap``, for the tools below ``ctxgrad.func`` (gradcheck's batched checks)."""
    lv = open_level(size, "error")
    try:
        out = func(*[BatchedTensor(a, lv.level) if d == 0 else a for a, d in zip(args, in_dims)])
        outs = out if isinstance(out, tuple) else (out,)
        return tuple(
            o.value
            if isinstance(o, BatchedTensor) and o.level == lv.level
            else o.unsqueeze(0).expand(size, *o.shape)
            if isinstance(o, Tensor)
            else o
            for o in outs
        )
    finally:
        close_level(lv)


def into_zeros_rule(shape_pos: int, dims: tuple[int, ...] = ()) -> Any:
    """The rule of a backward that writes a gradient into zeros of ``shape`` (argument
    ``shape_pos``): the batch gets zeros of ``(batch, *shape)``, and the dimensions at the
    argument positions ``dims`` move past the batch dimension."""

    def rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], g: Tensor, *rest: Any) -> tuple[Any, Any]:
        if not only_first_batched(in_dims):
            return _loop_rule(cls, info, in_dims, (g, *rest))
        args = [g, *rest]
        shape = tuple(args[shape_pos])
        args[shape_pos] = (g.shape[0], *shape)
        for pos in dims:
            args[pos] = shift_dim(args[pos], len(shape))
        return cls.apply(*args), 0

    return classmethod(rule)


def leading_rule(pos: int) -> Any:
    """The rule of an op on a sample as a whole (``median()`` of every element) that can keep
    its first ``keep`` dimensions apart (``keep``: its argument at ``pos``, 0 when not given):
    the batch is one more dimension kept apart."""

    def rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], *args: Any) -> tuple[Any, Any]:
        keep = args[pos] if len(args) > pos else 0
        return cls.apply(*args[:pos], keep + 1), 0

    return classmethod(rule)


def _batch_every(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], *args: Any) -> tuple[Any, Any]:
    """The rule of an op that works on each of its tensors' last dimensions, whatever comes
    before them: each unbatched tensor given the batch, then the op once."""
    return cls.apply(*expand_unbatched(args, in_dims, info.batch_size)), 0


every_batched_rule = classmethod(_batch_every)


def flat_positions_rule(values_at: int | None, pos_at: int, *, in_place: bool = False) -> Any:
    """The rule of an op that reads its first argument at flat positions of one sample
    (argument ``pos_at``, an int array), or writes values there (argument ``values_at``,
    broadcast to the positions) into a copy of it (``in_place``: into it):
    :func:`batch_flat_positions`."""

    def rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], *args: Any) -> tuple[Any, Any]:
        return batch_flat_positions(cls, info, in_dims, list(args), values_at, pos_at, in_place)

    return classmethod(rule)


def batch_flat_positions(
    cls: Any,
    info: VmapInfo,
    in_dims: tuple[Any, ...],
    args: list[Any],
    values_at: int | None,
    pos_at: int,
    in_place: bool,
) -> tuple[Any, Any]:
    """``cls`` on the batch: the positions offset to each sample's place in the batch, the
    values given the batch and the rank of the positions, then the op once."""
    size = info.batch_size
    x = args[0]
    if in_dims[0] is None:
        if in_place:
            _refuse_write_into_unbatched(cls, tuple(args))
        args[0] = x.unsqueeze(0).expand(size, *x.shape)
    pos = args[pos_at]
    n = int(np.prod(args[0].shape[1:], dtype=np.int64))
    if isinstance(pos, Tensor):  # a tensor of positions: batched (an index batched by vmap) or not
        if in_dims[pos_at] is None:
            pos = pos.unsqueeze(0).expand(size, *pos.shape)
        start = np.arange(size, dtype=np.int64) * n
        args[pos_at] = pos + _wrap(start.reshape((size,) + (1,) * (pos.ndim - 1)))
    else:
        args[pos_at] = pos + (np.arange(size, dtype=np.int64) * n).reshape((size,) + (1,) * pos.ndim)
    pos = args[pos_at]
    v = None if values_at is None else args[values_at]
    if values_at is not None and isinstance(v, Tensor):
        if in_dims[values_at] is None:
            v = v.unsqueeze(0).expand(size, *v.shape)
        if v.ndim < pos.ndim:
            v = v.reshape((size,) + (1,) * (pos.ndim - v.ndim) + tuple(v.shape[1:]))
        args[values_at] = v
    return cls.apply(*args), 0
