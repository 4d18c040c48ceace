"""Activation checkpointing, as ``torch.utils.checkpoint``: run a piece of the model without
keeping what its backward needs, and recompute it during backward.  Memory for compute.

Two variants, as torch's on the CPU:

* ``use_reentrant=True`` (torch's historical default): a :class:`~ctxgrad.autograd.Function`
  whose ``forward`` runs the function under ``no_grad`` and whose ``backward`` runs it again
  with grad enabled and backpropagates through the fresh graph.  Gradients of tensors the
  function uses but does not receive (a module's parameters) are accumulated into their
  ``.grad``, so it works with ``.backward()`` but not with ``ctxgrad.autograd.grad``.
* ``use_reentrant=False``: the function runs normally, but every tensor its ops save for
  backward is dropped (:class:`~ctxgrad.autograd.graph.saved_tensors_hooks`); the first
  backward access recomputes the function once and hands out the recomputed tensors.  Works
  with ``autograd.grad`` and with inputs that do not require grad.

Both restore the random state of the forward before recomputing (``preserve_rng_state``),
so dropout draws the same mask twice, and leave the random state as they found it.

>>> import ctxgrad
>>> from ctxgrad.utils.checkpoint import checkpoint
>>> layer = ctxgrad.nn.Linear(4, 4)
>>> x = ctxgrad.randn(2, 4, requires_grad=True)
>>> y = checkpoint(lambda t: layer(t).tanh(), x, use_reentrant=False)
>>> y.sum().backward()
>>> tuple(x.grad.shape), tuple(layer.weight.grad.shape)
((2, 4), (4, 4))
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ctxgrad import _factories
from ctxgrad._tensor import Tensor
from ctxgrad.autograd import backward as _backward
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import enable_grad, no_grad
from ctxgrad.autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential"]


class _RandomState:
    """The generator's state at the forward, put back for the recomputation and then undone."""

    def __init__(self, preserve: bool) -> None:
        self.state = _factories._generator.bit_generator.state if preserve else None

    def __enter__(self) -> None:
        self.outer = _factories._generator.bit_generator.state
        if self.state is not None:
            _factories._generator.bit_generator.state = self.state

    def __exit__(self, *exc: object) -> None:
        _factories._generator.bit_generator.state = self.outer


def _detached(args: Iterable[Any]) -> list[Any]:
    """Tensors detached (keeping ``requires_grad``), other arguments as they are."""
    return [a.detach()._set_requires_grad(a.requires_grad) if isinstance(a, Tensor) else a for a in args]


class CheckpointFunction(Function[Any]):
    """The reentrant variant: forward without a graph, backward by recomputing with one.
    Under ``vmap`` the function runs on the batch (its forward is written in ctxgrad ops)."""

    generate_vmap_rule = True

    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool, *args: Any) -> Any:
        ctx.run_function = run_function
        ctx.random = _RandomState(preserve_rng_state)
        ctx.positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple[Any, ...]:
        args = list(ctx.others)
        for position, tensor in zip(ctx.positions, ctx.saved_tensors):
            args[position] = tensor
        inputs = _detached(args)
        with ctx.random, enable_grad():
            outputs = ctx.run_function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [
            (out, grad)
            for out, grad in zip(outputs, grads)
            if isinstance(out, Tensor) and out.requires_grad and grad is not None
        ]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _backward([out for out, _ in pairs], [grad for _, grad in pairs])
        grads_in = [a.grad if isinstance(a, Tensor) and a.requires_grad else None for a in inputs]
        return (None, None, *grads_in)


def _checkpoint_without_reentrant(function: Callable[..., Any], preserve: bool, *args: Any, **kwargs: Any) -> Any:
    random = _RandomState(preserve)
    recomputed: list[Tensor] = []
    done = [False]
    count = [0]

    def pack(tensor: Tensor) -> int:
        count[0] += 1
        return count[0] - 1

    def unpack(index: int) -> Tensor:
        if not done[0]:
            with random, enable_grad(), saved_tensors_hooks(_keep(recomputed), lambda i: recomputed[i]):
                function(*_detached(args), **kwargs)
            done[0] = True
            if len(recomputed) != count[0]:
                raise RuntimeError(
                    "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                    f"and recomputation.\nNumber of tensors saved during forward: {count[0]}\nNumber of tensors "
                    f"saved during recomputation: {len(recomputed)}."
                )
        return recomputed[index]

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


def _keep(store: list[Tensor]) -> Callable[[Tensor], int]:
    def pack(tensor: Tensor) -> int:
        store.append(tensor)
        return len(store) - 1

    return pack


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    context_fn: Any = None,
    determinism_check: str = "default",
    debug: bool = False,
    preserve_rng_state: bool = True,
    **kwargs: Any,
) -> Any:
    """``function(*args, **kwargs)``, its intermediate results recomputed during backward
    instead of kept.  Pass ``use_reentrant`` explicitly (torch warns when it is left out and
    then uses the reentrant variant, as here)."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
            "2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    if context_fn is not None or debug:
        raise NotImplementedError("ctxgrad.utils.checkpoint: context_fn and debug are not supported")
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    return _checkpoint_without_reentrant(function, preserve_rng_state, *args, **kwargs)


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Any,
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Any:
    """Run a sequence of modules (or a ``Sequential``) in ``segments`` checkpointed chunks; the
    last chunk runs normally, as torch's."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. "
            "In version 2.9 we will raise an exception if use_reentrant is not passed. use_reentrant=False is "
            "recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2,
        )
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    modules = list(functions.children()) if hasattr(functions, "children") else list(functions)

    def run(start: int, end: int) -> Callable[[Any], Any]:
        def forward(x: Any) -> Any:
            for j in range(start, end + 1):
                x = modules[j](x)
            return x

        return forward

    size = len(modules) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(modules) - 1)(input)
