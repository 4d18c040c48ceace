"""Optimizer step hooks against torch: order of global and per-optimizer hooks, arguments,
replacing the step's arguments, removal, and the error for a bad return value."""

from __future__ import annotations

from typing import Any

import pytest

import ctxgrad
from ctxgrad.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook


def record(lib: Any, register_global: Any, register_global_post: Any) -> list[str]:
    w = lib.ones(1, requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)
    events: list[str] = []
    handles = [
        register_global(lambda o, args, kwargs: events.append(f"global-pre {len(args)} {sorted(kwargs)}")),
        opt.register_step_pre_hook(lambda o, args, kwargs: events.append(f"pre {o is opt} {args[0] is opt}")),
        opt.register_step_post_hook(lambda o, args, kwargs: events.append("post")),
        register_global_post(lambda o, args, kwargs: events.append("global-post")),
    ]
    try:
        w.grad = lib.ones(1)
        opt.step()
        events.append(f"w={float(w.detach()[0]):.2f}")
        for handle in handles[1:3]:
            handle.remove()
        opt.step()
    finally:
        for handle in handles:
            handle.remove()
    opt.step()
    return events


def test_hook_order_and_arguments_match_torch(torch: Any) -> None:
    from torch.optim.optimizer import register_optimizer_step_post_hook as t_post
    from torch.optim.optimizer import register_optimizer_step_pre_hook as t_pre

    ours = record(ctxgrad, register_optimizer_step_pre_hook, register_optimizer_step_post_hook)
    theirs = record(torch, t_pre, t_post)
    assert ours == theirs
    assert ours[:4] == ["global-pre 1 []", "pre True True", "post", "global-post"]


def test_a_pre_hook_can_replace_the_closure(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        w = lib.ones(1, requires_grad=True)
        opt = lib.optim.SGD([w], lr=0.1)
        opt.register_step_pre_hook(lambda o, args, kwargs: ((args[0],), {"closure": lambda: 42.0}))
        assert opt.step() == 42.0


def test_a_pre_hook_returning_something_else_is_an_error(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
        opt.register_step_pre_hook(lambda o, args, kwargs: 5)
        with pytest.raises(RuntimeError, match=r"must return None or a tuple of \(new_args, new_kwargs\), but got 5"):
            opt.step()


def test_hooks_run_for_an_optimizer_with_its_own_step() -> None:
    w = ctxgrad.tensor([2.0], dtype=ctxgrad.float64, requires_grad=True)
    opt = ctxgrad.optim.LBFGS([w])
    calls: list[int] = []
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append(1))

    def closure() -> ctxgrad.Tensor:
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert calls == [1]
