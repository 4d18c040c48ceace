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

torch is optional for ctxgrad: it is imported when ``to_torch`` is called, and an
ImportError says how to install it.  The bridged backward is ``once_differentiable`` (a
double backward through it raises in torch), and it runs on the CPU: a CUDA tensor is
copied to the host and its gradient back.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd import grad
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import enable_grad

__all__ = ["to_torch"]


def _import_torch() -> Any:
    try:
        torch = importlib.import_module("torch")
    except ImportError as exc:  # pragma: no cover - torch is installed where the tests run
        raise ImportError(
            "ctxgrad.bridge.to_torch needs PyTorch, which ctxgrad does not require: install it with "
            "`pip install torch` (see https://pytorch.org/get-started/locally/)"
        ) from exc
    return torch


def _to_ctxgrad(value: Any, torch: Any) -> Any:
    """A torch tensor as a ctxgrad tensor on the same memory (a CPU tensor), requiring grad as
    the torch tensor does; any other value as it is."""
    if not isinstance(value, torch.Tensor):
        return value
    array = value.detach().cpu().numpy()
    tensor = _wrap(array)
    return tensor.requires_grad_() if value.requires_grad and array.dtype.kind in "fc" else tensor


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


def to_torch(fn_cls: type[Function]) -> Any:
    """A ``torch.autograd.Function`` that runs the ctxgrad Function ``fn_cls``.

    Its ``apply`` takes what ``fn_cls.apply`` takes, with torch tensors where ``fn_cls``
    takes tensors, and returns torch tensors; gradients flow to the torch inputs that
    require grad through ``fn_cls.backward``.  Integer outputs (and outputs that ``fn_cls``
    marks non-differentiable) are non-differentiable in torch too.

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
    once_differentiable = torch.autograd.function.once_differentiable

    def forward(ctx: Any, *args: Any) -> Any:
        inputs = [_to_ctxgrad(a, torch) for a in args]
        with enable_grad():
            result = fn_cls.apply(*inputs)
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        like = next((a for a in args if isinstance(a, torch.Tensor)), None)
        converted = tuple(_to_torch(o, torch, like) for o in outputs)
        differentiable = [isinstance(o, Tensor) and o._requires_grad for o in outputs]
        ctx.mark_non_differentiable(
            *(t for t, d in zip(converted, differentiable) if isinstance(t, torch.Tensor) and not d)
        )
        # The ctxgrad graph, kept for backward: plain attributes of the torch ctx (ctxgrad
        # tensors, not torch ones, so torch's saved-tensor rules do not apply to them).
        ctx.ctxgrad_inputs = inputs
        ctx.ctxgrad_outputs = outputs
        ctx.ctxgrad_differentiable = differentiable
        return converted[0] if single else converted

    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        inputs, outputs = ctx.ctxgrad_inputs, ctx.ctxgrad_outputs
        wanted = [i for i, a in enumerate(inputs) if isinstance(a, Tensor) and a._requires_grad]
        pairs = [(o, g) for o, g, d in zip(outputs, grad_outputs, ctx.ctxgrad_differentiable) if d and g is not None]
        result: list[Any] = [None] * len(inputs)
        if not wanted or not pairs:
            return tuple(result)
        seeds = [_wrap(g.detach().cpu().numpy().astype(o._data.dtype, copy=False)) for o, g in pairs]
        grads = grad([o for o, _ in pairs], [inputs[i] for i in wanted], seeds, retain_graph=True, allow_unused=True)
        like = next((g for g in grad_outputs if g is not None), None)
        for i, g in zip(wanted, grads):
            result[i] = None if g is None else _to_torch(g, torch, like)
        return tuple(result)

    bridged = type(
        f"{fn_cls.__name__}Torch",
        (torch.autograd.Function,),
        {
            "forward": staticmethod(forward),
            "backward": staticmethod(once_differentiable(backward)),
            "ctxgrad_function": fn_cls,
            "__doc__": f"{fn_cls.__name__} (a ctxgrad Function) as a torch.autograd.Function: ctxgrad.bridge.to_torch",
            "__module__": fn_cls.__module__,
        },
    )
    return bridged
