"""Use a ctxgrad :class:`~ctxgrad.autograd.Function` inside a torch model: :func:`to_torch`.

The op author's loop ends in torch: an op written and checked here (``ctxgrad check``) goes
into a real torch model unchanged.  ``to_torch(MyFunction)`` returns a
``torch.autograd.Function`` whose ``forward`` runs ``MyFunction.apply`` on the arrays of the
torch tensors it is given (shared with NumPy, not copied, for CPU tensors), records the
ctxgrad graph, and whose ``backward`` runs the ctxgrad engine through that graph and hands
the gradients back to torch::

    MyOpTorch = to_torch(MyOp)
    y = MyOpTorch.apply(x, w)        # x, w: torch tensors; y: a torch tensor
    y.sum().backward()               # x.grad, w.grad computed by MyOp.backward

Higher derivatives go through too: with ``create_graph=True`` (a double backward,
``torch.autograd.grad`` of a gradient) the bridged backward is itself a bridged Function, of
the vector-Jacobian product ``MyOp`` computes with ctxgrad's ``create_graph=True``, so
torch differentiates it as far as ``MyOp.backward`` is differentiable; a backward marked
``@once_differentiable`` raises torch's error there.  The Function is written in torch's
``setup_context`` style with a ``vmap`` rule (one call per sample), so ``torch.func.grad``,
``vjp``, ``jacrev`` and ``vmap`` take it; forward-mode transforms (``jvp``, ``jacfwd``,
``hessian``) raise a NotImplementedError that says so (the bridge gives no forward-mode
derivative; ``jacrev(jacrev(f))`` is a Hessian).

torch is optional for ctxgrad: it is imported when ``to_torch`` is called, and an
ImportError says how to install it.  The bridge runs on the CPU: a CUDA tensor is copied to
the host and its gradient back.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd import grad
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import enable_grad

Compute = Callable[..., Any]

__all__ = ["to_torch"]


def _import_torch(needed_by: str = "ctxgrad.bridge.to_torch") -> Any:
    try:
        torch = importlib.import_module("torch")
    except ImportError as exc:
        raise ImportError(
            f"{needed_by} needs PyTorch, which ctxgrad does not require: install it with "
            "`pip install torch` (see https://pytorch.org/get-started/locally/)"
        ) from exc
    return torch


def _to_ctxgrad(value: Any, torch: Any) -> Any:
    """A torch tensor as a ctxgrad tensor on the same memory (a CPU tensor), a leaf that
    requires grad when it is floating-point (whether the torch one does or not: under
    ``torch.func`` the tensors forward sees never do, and which gradients torch wants is
    decided in backward); any other value as it is."""
    if not isinstance(value, torch.Tensor):
        return value
    array = value.detach().cpu().numpy()
    tensor = _wrap(array)
    return tensor.requires_grad_() if array.dtype.kind in "fc" else tensor


def _to_torch(value: Any, torch: Any, like: Any = None) -> Any:
    """A ctxgrad tensor's array as a torch tensor (on ``like``'s device), shared when NumPy
    allows it: a read-only array or one with negative strides is copied."""
    if not isinstance(value, Tensor):
        return value
    array = value._data
    if not array.flags.writeable or any(s < 0 for s in array.strides):
        array = np.array(array, copy=True)
    out = torch.from_numpy(array)
    return out.to(like.device) if like is not None and like.device.type != "cpu" else out


@dataclass
class _Recorded:
    """What forward ran in ctxgrad, kept for backward: the torch outputs it returned, the
    ctxgrad inputs and outputs (the graph between them) and which outputs are differentiable."""

    returned: tuple[Any, ...]
    inputs: list[Any]
    outputs: tuple[Any, ...]
    differentiable: list[bool]


# forward (in torch's setup_context style) cannot reach ctx: it leaves its graph here, and
# setup_context, which torch calls right after it in the same thread, takes it when the
# outputs it is given are the ones forward returned.  (Under torch.func they are wrappers;
# backward then runs the ctxgrad Function again.)
_last_forward = threading.local()


def _bridge(torch: Any, name: str, compute: Compute, doc: str, once_differentiable: str | None) -> Any:
    """A torch Function that runs ``compute`` (a function of ctxgrad values returning a
    tensor or a tuple) and whose backward is ctxgrad's vector-Jacobian product of it: from
    the graph forward recorded, or, when torch records a graph of the backward
    (``create_graph=True``, ``torch.func``), as another bridged Function, so that it can be
    differentiated again.  ``once_differentiable``: why not (raised as torch raises it)."""

    def forward(*args: Any) -> Any:
        inputs = [_to_ctxgrad(a, torch) for a in args]
        with enable_grad():
            result = compute(*inputs)
        single = not isinstance(result, tuple)
        outputs = (result,) if single else tuple(result)
        like = next((a for a in args if isinstance(a, torch.Tensor)), None)
        returned = tuple(_to_torch(o, torch, like) for o in outputs)
        differentiable = [isinstance(o, Tensor) and o._requires_grad for o in outputs]
        _last_forward.recorded = _Recorded(returned, inputs, outputs, differentiable)
        return returned[0] if single else returned

    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        outputs = output if isinstance(output, tuple) else (output,)
        recorded: _Recorded | None = getattr(_last_forward, "recorded", None)
        _last_forward.recorded = None
        if recorded is not None and len(recorded.returned) == len(outputs):
            if not all(a is b for a, b in zip(recorded.returned, outputs)):
                recorded = None
        ctx.recorded = recorded
        if recorded is not None:
            differentiable = recorded.differentiable
        else:  # (under torch.func: what a torch op would say)
            differentiable = [
                isinstance(o, torch.Tensor) and (o.is_floating_point() or o.is_complex()) for o in outputs
            ]
        ctx.differentiable = differentiable
        ctx.mark_non_differentiable(
            *(o for o, d in zip(outputs, differentiable) if isinstance(o, torch.Tensor) and not d)
        )
        ctx.save_for_backward(*(a for a in inputs if isinstance(a, torch.Tensor)))
        ctx.arguments = [None if isinstance(a, torch.Tensor) else a for a in inputs]
        ctx.tensor_at = [isinstance(a, torch.Tensor) for a in inputs]

    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        wanted = tuple(i for i, needed in enumerate(ctx.needs_input_grad) if needed)
        result: list[Any] = [None] * len(ctx.arguments)
        if not wanted:
            return tuple(result)
        if once_differentiable is not None:
            raise RuntimeError(once_differentiable)
        like = next((g for g in grad_outputs if g is not None), None)
        if ctx.recorded is not None and not torch.is_grad_enabled():
            grads = _first_order(ctx.recorded, wanted, grad_outputs, torch)
            grads = [None if g is None else _to_torch(g, torch, like) for g in grads]
        else:
            saved = iter(ctx.saved_tensors)
            args = [next(saved) if is_tensor else a for a, is_tensor in zip(ctx.arguments, ctx.tensor_at)]
            if bridged.vjp_function is None:  # made once, on the first higher derivative
                bridged.vjp_function = _vjp_function(torch, name, compute)
            grads = list(bridged.vjp_function.apply(wanted, len(args), *args, *grad_outputs))
        for i, g in zip(wanted, grads):
            result[i] = g
        return tuple(result)

    def vmap(info: Any, in_dims: tuple[Any, ...], *args: Any) -> Any:
        # One call per sample: a ctxgrad Function has no batching rule torch could use.
        samples = [
            bridged.apply(
                *(a.select(d, b) if isinstance(a, torch.Tensor) and d is not None else a for a, d in zip(args, in_dims))
            )
            for b in range(info.batch_size)
        ]
        if not isinstance(samples[0], tuple):
            return torch.stack(samples), 0
        return tuple(torch.stack(list(outs)) for outs in zip(*samples)), (0,) * len(samples[0])

    def jvp(ctx: Any, *tangents: Any) -> Any:
        raise NotImplementedError(
            f"{name} (ctxgrad.bridge.to_torch) has no forward-mode derivative in torch: torch.func.jvp, jacfwd and "
            "hessian need one, and the bridge gives backward only. Use the reverse-mode transforms (torch.func.grad, "
            "vjp, jacrev; a Hessian as jacrev(jacrev(f))), or ctxgrad's own forward mode on the ctxgrad Function"
        )

    bridged: Any = type(
        name,
        (torch.autograd.Function,),
        {
            "forward": staticmethod(forward),
            "setup_context": staticmethod(setup_context),
            "backward": staticmethod(backward),
            "vmap": staticmethod(vmap),
            "jvp": staticmethod(jvp),
            "vjp_function": None,
            "__doc__": doc,
        },
    )
    return bridged


def _first_order(recorded: _Recorded, wanted: tuple[int, ...], grad_outputs: tuple[Any, ...], torch: Any) -> list[Any]:
    """The gradients of the inputs at ``wanted``, through the graph forward recorded."""
    inputs, outputs = recorded.inputs, recorded.outputs
    pairs = [(o, g) for o, g, d in zip(outputs, grad_outputs, recorded.differentiable) if d and g is not None]
    if not pairs:
        return [None] * len(wanted)
    seeds = [_wrap(g.detach().cpu().numpy().astype(o._data.dtype, copy=False)) for o, g in pairs]
    targets = [inputs[i] for i in wanted]
    return list(grad([o for o, _ in pairs], targets, seeds, retain_graph=True, allow_unused=True))


def _vjp_function(torch: Any, name: str, compute: Compute) -> Any:
    """The bridged Function of ``compute``'s vector-Jacobian product: its arguments are the
    positions of the inputs whose gradients are wanted, the number of inputs, the inputs and
    one gradient per output; its outputs, those gradients (zeros where an input is unused),
    computed by ctxgrad with ``create_graph=True``."""

    def vjp(wanted: tuple[int, ...], count: int, *values: Any) -> tuple[Tensor, ...]:
        args, grad_outputs = values[:count], values[count:]
        result = compute(*args)
        outputs = result if isinstance(result, tuple) else (result,)
        pairs = [
            (o, g if g.dtype == o.dtype else g.to(o.dtype))
            for o, g in zip(outputs, grad_outputs)
            if isinstance(o, Tensor) and o._requires_grad and isinstance(g, Tensor)
        ]
        targets = [args[i] for i in wanted]
        grads: list[Any] = [None] * len(targets)
        if pairs:
            outs, seeds = zip(*pairs)
            grads = list(grad(list(outs), targets, list(seeds), create_graph=True, allow_unused=True))
        return tuple(t.detach() * 0 if g is None else g for t, g in zip(targets, grads))

    once = getattr(getattr(compute, "__self__", None), "_backward_impl", None)
    why = None
    if getattr(once, "_once_differentiable", False):
        function = compute.__self__.__name__  # type: ignore[attr-defined]
        why = (
            "trying to differentiate twice a function that was marked with @once_differentiable "
            f"({function}.backward, run through ctxgrad.bridge.to_torch)"
        )
    return _bridge(torch, f"{name}Backward", vjp, f"the vector-Jacobian product of {name}", why)


def to_torch(fn_cls: type[Function]) -> Any:
    """A ``torch.autograd.Function`` that runs the ctxgrad Function ``fn_cls``.

    Its ``apply`` takes what ``fn_cls.apply`` takes, with torch tensors where ``fn_cls``
    takes tensors, and returns torch tensors; gradients flow to the torch inputs that
    require grad through ``fn_cls.backward``, to any order ``fn_cls.backward`` can be
    differentiated.  Integer outputs (and outputs that ``fn_cls`` marks
    non-differentiable) are non-differentiable in torch too.

    >>> import ctxgrad
    >>> from ctxgrad.autograd import Function
    >>> class Cube(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x * x * grad
    >>> import torch  # doctest: +SKIP
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)  # doctest: +SKIP
    >>> to_torch(Cube).apply(x).sum().backward()  # doctest: +SKIP
    >>> x.grad  # doctest: +SKIP
    tensor([ 3., 12.])
    """
    if not (isinstance(fn_cls, type) and issubclass(fn_cls, Function)):
        raise TypeError(f"to_torch expects a ctxgrad Function subclass, but got {fn_cls!r}")
    torch = _import_torch()
    doc = f"{fn_cls.__name__} (a ctxgrad Function) as a torch.autograd.Function: ctxgrad.bridge.to_torch"
    bridged = _bridge(torch, f"{fn_cls.__name__}Torch", fn_cls.apply, doc, None)
    bridged.ctxgrad_function = fn_cls
    bridged.__module__ = fn_cls.__module__
    return bridged
