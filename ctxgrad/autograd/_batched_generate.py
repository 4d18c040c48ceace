"""``generate_vmap_rule = True``: a Function's own ``forward`` and ``backward``, run on
batched tensors.

Under ``vmap``, such a Function is applied as another Function made from it once, which
takes the whole batch: its ``forward`` opens a vmap level of its own, hands the user's
``forward`` batched tensors (so every op inside it runs its batching rule) and returns the
batch; its ``backward`` does the same for the user's ``backward``.  What the user's
``forward`` keeps for ``backward`` (``save_for_backward``, ctx attributes) is kept as the
whole batch and handed back batched at the level that ``backward`` opens.  A Function
with a ``jvp`` of its own gets one here too, run the same way, so that forward mode uses it.
"""

from __future__ import annotations

from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.autograd._batched_tensor import BatchedTensor, VmapInfo, VmapLevel, close_level, function_class, open_level

__all__ = ["generated_rule"]


def generated_rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], values: tuple[Any, ...]) -> tuple[Any, Any]:
    """``cls`` applied to the batch (``values``, batched where ``in_dims`` is 0)."""
    made = cls.__dict__.get("_vmapped")  # made once, kept on the class (not inherited)
    if made is None:
        made = _batched_function(cls)
        type.__setattr__(cls, "_vmapped", made)
    out = made.apply(info, in_dims, *values)
    return out, 0


def _to_batch(t: Any, lv: VmapLevel) -> Any:
    """A result of the user's code as the whole batch: a batched tensor's value, a tensor
    that is the same for every sample repeated for each."""
    if isinstance(t, BatchedTensor) and t.level == lv.level:
        return t.value
    if isinstance(t, Tensor):
        return t.unsqueeze(0).expand(lv.batch_size, *t.shape).clone()
    return t


class _BatchedCtx:
    """The ctx the user's ``forward``/``backward`` sees: the real ctx, with the tensors kept
    for backward stored as whole batches and read back batched at the current level."""

    def __init__(self, ctx: Any, lv: VmapLevel, n_lead: int, forward_mode: bool = False) -> None:
        object.__setattr__(self, "_ctx", ctx)
        object.__setattr__(self, "_lv", lv)
        object.__setattr__(self, "_n_lead", n_lead)
        object.__setattr__(self, "_forward_mode", forward_mode)  # (inside jvp: save_for_forward's tensors)

    def _keep(self, t: Any) -> tuple[Any, bool]:
        lv: VmapLevel = object.__getattribute__(self, "_lv")
        if isinstance(t, BatchedTensor) and t.level == lv.level:
            return t.value, True
        return t, False

    def _read(self, kept: tuple[Any, bool]) -> Any:
        lv: VmapLevel = object.__getattribute__(self, "_lv")
        value, was_batched = kept
        return BatchedTensor(value, lv.level) if was_batched else value

    def save_for_backward(self, *tensors: Any) -> None:
        kept = [self._keep(t) for t in tensors]
        ctx = object.__getattribute__(self, "_ctx")
        ctx._vmap_saved_batched = tuple(b for _, b in kept)
        ctx.save_for_backward(*[v for v, _ in kept])

    def save_for_forward(self, *tensors: Any) -> None:
        kept = [self._keep(t) for t in tensors]
        ctx = object.__getattribute__(self, "_ctx")
        ctx._vmap_fw_saved_batched = tuple(b for _, b in kept)
        ctx.save_for_forward(*[v for v, _ in kept])

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        ctx = object.__getattribute__(self, "_ctx")
        flags = getattr(ctx, "_vmap_saved_batched", ())
        if object.__getattribute__(self, "_forward_mode"):  # jvp reads what save_for_forward kept, if anything
            flags = getattr(ctx, "_vmap_fw_saved_batched", flags)
        return tuple(self._read((t, b)) for t, b in zip(ctx.saved_tensors, flags))

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        ctx = object.__getattribute__(self, "_ctx")
        n: int = object.__getattribute__(self, "_n_lead")
        needs: tuple[bool, ...] = ctx.needs_input_grad[n:]
        return needs

    def mark_non_differentiable(self, *tensors: Any) -> None:
        ctx = object.__getattribute__(self, "_ctx")
        ctx.mark_non_differentiable(*[self._keep(t)[0] for t in tensors])

    def mark_dirty(self, *tensors: Any) -> None:
        raise RuntimeError(
            "vmap with generate_vmap_rule=True: ctx.mark_dirty is not supported (an in-place Function needs a "
            "vmap staticmethod of its own)"
        )

    def set_materialize_grads(self, value: bool) -> None:
        object.__getattribute__(self, "_ctx").set_materialize_grads(value)

    # An attribute is kept on the real ctx (which may itself be one of these, under nested
    # vmaps) as (value, batched), under a name of its own.
    def __setattr__(self, name: str, value: Any) -> None:
        setattr(object.__getattribute__(self, "_ctx"), "_vmap_attr_" + name, self._keep(value))

    def __getattr__(self, name: str) -> Any:
        ctx = object.__getattribute__(self, "_ctx")
        kept = getattr(ctx, "_vmap_attr_" + name, None)
        if kept is not None:
            return self._read(kept)
        return getattr(ctx, name)


def _batched_function(cls: Any) -> Any:
    function = function_class()

    def forward(ctx: Any, info: VmapInfo, in_dims: tuple[Any, ...], *values: Any) -> Any:
        lv = open_level(info.batch_size, info.randomness)
        try:
            args = [BatchedTensor(v, lv.level) if d == 0 else v for v, d in zip(values, in_dims)]
            inner = _BatchedCtx(ctx, lv, 2)
            if cls._setup_style:
                out = cls.forward(*args)
                cls.setup_context(inner, tuple(args), out)
            else:
                out = cls.forward(inner, *args)
            result = tuple(_to_batch(o, lv) for o in out) if isinstance(out, tuple) else _to_batch(out, lv)
        finally:
            close_level(lv)
        ctx._vmap_info = (info, in_dims)
        return result

    def backward(ctx: Any, *grads: Any) -> Any:
        info, in_dims = ctx._vmap_info
        lv = open_level(info.batch_size, info.randomness)
        try:
            inner = _BatchedCtx(ctx, lv, 2)
            batched = [None if g is None else BatchedTensor(g, lv.level) for g in grads]
            res = cls._backward_impl(inner, *batched)
            res = res if isinstance(res, tuple) else (res,)
            out: list[Any] = [None, None]
            for r, d in zip(res, in_dims):
                if r is None or not isinstance(r, Tensor):
                    out.append(None)
                    continue
                whole = _to_batch(r, lv)
                out.append(whole if d == 0 else whole.sum(0))  # a shared input: every sample's share
        finally:
            close_level(lv)
        return tuple(out)

    def jvp(ctx: Any, _info: None, _in_dims: None, *tangents: Any) -> Any:
        info, in_dims = ctx._vmap_info
        lv = open_level(info.batch_size, info.randomness)
        try:
            inner = _BatchedCtx(ctx, lv, 2, forward_mode=True)
            batched = [BatchedTensor(t, lv.level) if d == 0 and t is not None else t for t, d in zip(tangents, in_dims)]
            res = cls.jvp(inner, *batched)
            out = tuple(_to_batch(r, lv) for r in res) if isinstance(res, tuple) else _to_batch(res, lv)
        finally:
            close_level(lv)
        return out

    namespace = {
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
        "node_name": cls._backward_cls.__name__,
        "generate_vmap_rule": True,  # (under an outer vmap as well)
        "__module__": cls.__module__,
        "__qualname__": f"{cls.__qualname__}.vmapped",
        "__doc__": f"{cls.__name__} on a whole vmap batch (generate_vmap_rule).",
    }
    if cls._has_jvp:  # forward mode (jvp, jacfwd, hessian) runs the user's jvp on the batch too
        namespace["jvp"] = staticmethod(jvp)
    meta: Any = type(function)
    return meta(cls.__name__, (function,), namespace)
