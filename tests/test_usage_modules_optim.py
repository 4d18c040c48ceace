"""nn.Module's methods, the containers, the optimizers and the LR schedulers as public torch code
uses them (torch-usage.tsv): the same program on ctxgrad and torch, what it returns compared."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
from _usage import assert_same, check, torch_names

import ctxgrad


def net(m: Any) -> Any:
    """A small model with a buffer, a submodule list, a dict, and a parameter of its own."""

    class Net(m.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.Tanh())
            self.heads = m.nn.ModuleList([m.nn.Linear(4, 2), m.nn.Linear(4, 2)])
            self.extra = m.nn.ModuleDict({"norm": m.nn.LayerNorm(2)})
            self.scale = m.nn.Parameter(m.tensor(1.5))
            self.register_buffer("offset", m.tensor([0.1, -0.2]))
            self.register_parameter("bias", m.nn.Parameter(m.zeros(2)))
            self.add_module("act", m.nn.ReLU())

        def forward(self, x: Any) -> Any:
            h = self.body(x)
            out = sum(head(h) for head in self.heads) * self.scale + self.offset + self.bias
            return self.act(self.extra["norm"](out))

    m.manual_seed(0)
    return Net().double()


def loaded(m: Any, torch: Any) -> Any:
    """``net(m)`` holding torch's ``net``'s values."""
    theirs = net(torch)
    model = net(m)
    model.load_state_dict({k: m.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    return model


def submodule(m: Any, path: str) -> Any:
    """``m.<path>``, imported (``import torch.optim.adam``)."""
    return importlib.import_module(f"{m.__name__}.{path}")


def subclass_of(base: Any, params: Any) -> Any:
    """An optimizer written as a subclass of ``base``: plain gradient descent."""

    class Descent(base):  # type: ignore[misc,valid-type]
        def __init__(self, params: Any) -> None:
            super().__init__(params, {"lr": 0.05})

        def step(self, closure: Any = None) -> None:
            for group in self.param_groups:
                for p in group["params"]:
                    p.data.sub_(group["lr"] * p.grad)

    return Descent(params)


X = np.random.default_rng(0).standard_normal((5, 3))


@torch_names(
    "torch.nn.Module",
    "torch.nn.Module.named_parameters",
    "torch.nn.Module.parameters",
    "torch.nn.Module.named_modules",
    "torch.nn.Module.modules",
    "torch.nn.Module.children",
    "torch.nn.Module.named_children",
    "torch.nn.Module.buffers",
    "torch.nn.Module.named_buffers",
    "torch.nn.Module.state_dict",
    "torch.nn.Module.register_buffer",
    "torch.nn.Module.register_parameter",
    "torch.nn.Module.add_module",
    "torch.nn.ModuleList",
    "torch.nn.ModuleDict",
    "torch.nn.Parameter",
)
def test_module_structure_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        model = net(m)
        return (
            [name for name, _ in model.named_parameters()],
            [tuple(p.shape) for p in model.parameters()],
            [(name, type(mod).__name__) for name, mod in model.named_modules()],
            [type(mod).__name__ for mod in model.modules()],
            [type(c).__name__ for c in model.children()],
            [name for name, _ in model.named_children()],
            [b for b in model.buffers()],
            [name for name, _ in model.named_buffers()],
            list(model.state_dict().keys()),
            isinstance(model.scale, m.nn.Parameter) and model.scale.requires_grad,
            len(model.heads),
            list(model.extra.keys()),
        )

    check(run, torch)


@torch_names(
    "torch.nn.Module.forward",
    "torch.nn.Module.load_state_dict",
    "torch.nn.Module.eval",
    "torch.nn.Module.train",
    "torch.nn.Module.training",
)
def test_forward_after_load_state_dict_and_modes_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        model = loaded(m, torch)
        x = m.tensor(X, requires_grad=True)
        out = model(x)
        out.pow(2).sum().backward()
        modes = [model.training]
        model.eval()
        modes += [model.training, model.body[0].training]
        model.train()
        modes += [model.training]
        model.train(False)
        modes += [model.heads[1].training]
        result = model.load_state_dict(model.state_dict())
        return out, x.grad, model.scale.grad, modes, list(result.missing_keys), list(result.unexpected_keys)

    check(run, torch)


@torch_names("torch.nn.Module.load_state_dict", "torch.nn.Module.load_state_dict(strict=)")
def test_load_state_dict_strict_false_and_the_error_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        model = m.nn.Linear(2, 2)
        state = {"weight": m.zeros(2, 2), "other": m.ones(1)}
        result = model.load_state_dict(state, strict=False)
        return list(result.missing_keys), list(result.unexpected_keys), model.weight.detach()

    check(run, torch)
    kinds = []
    for m in (ctxgrad, torch):
        with pytest.raises(RuntimeError, match="Missing key") as info:
            m.nn.Linear(2, 2).load_state_dict({"weight": m.zeros(2, 2)})
        kinds.append("bias" in str(info.value))
    assert kinds == [True, True]


@torch_names(
    "torch.nn.Module.register_forward_hook",
    "torch.nn.Module.register_forward_pre_hook",
    "torch.nn.Module.get_submodule",
    "torch.nn.Module.extra_repr",
)
def test_hooks_get_submodule_and_extra_repr_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        model = loaded(m, torch)
        seen: list[Any] = []
        pre = model.body.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
        post = model.body[0].register_forward_hook(lambda mod, args, out: seen.append(out.detach()) or out + 1)
        out = model(m.tensor(X))
        pre.remove()
        post.remove()
        plain = model(m.tensor(X))
        return out, seen, plain, type(model.get_submodule("heads.1")).__name__, model.body[0].extra_repr()

    check(run, torch)


@torch_names("torch.nn.ParameterList", "torch.nn.ParameterDict")
def test_parameter_containers_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        holder = m.nn.Module()
        holder.plist = m.nn.ParameterList([m.nn.Parameter(m.ones(2)), m.nn.Parameter(m.zeros(1))])
        holder.pdict = m.nn.ParameterDict({"a": m.nn.Parameter(m.tensor([2.0]))})
        loss = holder.plist[0].sum() * holder.pdict["a"].sum() + holder.plist[1].sum()
        loss.backward()
        return [n for n, _ in holder.named_parameters()], [p.grad for p in holder.parameters()], len(holder.plist)

    check(run, torch)


def train(m: Any, make: Any, steps: int = 5, scheduler: Any = None, closure: bool = False) -> Any:
    """A few steps of a least-squares fit; the parameters, the LR of each step, the state keys."""
    w = m.nn.Parameter(m.tensor([[0.5, -1.0, 2.0]], dtype=m.float64))
    b = m.nn.Parameter(m.tensor([0.1], dtype=m.float64))
    opt = make(m, [w, b])
    sched = scheduler(m, opt) if scheduler else None
    x = m.tensor(X, dtype=m.float64)
    y = m.tensor(np.arange(5.0), dtype=m.float64)
    lrs = []

    def loss_fn() -> Any:
        opt.zero_grad()
        loss = ((x @ w.T).squeeze(1) + b - y).pow(2).mean()
        loss.backward()
        return loss

    for _ in range(steps):
        if closure:
            opt.step(loss_fn)
        else:
            loss_fn()
            opt.step()
        if sched is not None:
            sched.step()
        lrs.append(opt.param_groups[0]["lr"])
    return w.detach(), b.detach(), lrs, w.grad


OPTIMIZERS = [
    pytest.param(
        lambda m, ps: m.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True),
        marks=torch_names(
            "torch.optim.SGD",
            "torch.optim.SGD(lr=)",
            "torch.optim",
            "torch.optim.Optimizer.step",
            "torch.optim.Optimizer.zero_grad",
            "torch.optim.Optimizer.param_groups",
        ),
        id="SGD",
    ),
    pytest.param(
        lambda m, ps: m.optim.Adam(ps, lr=0.05, betas=(0.8, 0.99)),
        marks=torch_names("torch.optim.Adam", "torch.optim.Adam(lr=)", "torch.optim.Adam(betas=)"),
        id="Adam",
    ),
    pytest.param(
        lambda m, ps: m.optim.AdamW(ps, lr=0.05, weight_decay=0.1),
        marks=torch_names("torch.optim.AdamW", "torch.optim.AdamW(lr=)"),
        id="AdamW",
    ),
    pytest.param(
        lambda m, ps: m.optim.RMSprop(ps, lr=0.01, alpha=0.9), marks=torch_names("torch.optim.RMSprop"), id="RMSprop"
    ),
    pytest.param(lambda m, ps: m.optim.Adagrad(ps, lr=0.1), marks=torch_names("torch.optim.Adagrad"), id="Adagrad"),
    pytest.param(lambda m, ps: m.optim.Adadelta(ps, lr=1.0), marks=torch_names("torch.optim.Adadelta"), id="Adadelta"),
    pytest.param(lambda m, ps: m.optim.Adamax(ps, lr=0.05), marks=torch_names("torch.optim.Adamax"), id="Adamax"),
    pytest.param(lambda m, ps: m.optim.RAdam(ps, lr=0.05), marks=torch_names("torch.optim.RAdam"), id="RAdam"),
    pytest.param(
        lambda m, ps: submodule(m, "optim.adam").Adam(ps, lr=0.01),
        marks=torch_names("torch.optim.adam", "torch.optim.adam.Adam"),
        id="adam.Adam",
    ),
    pytest.param(
        lambda m, ps: subclass_of(submodule(m, "optim.optimizer").Optimizer, ps),
        marks=torch_names("torch.optim.optimizer", "torch.optim.optimizer.Optimizer"),
        id="optimizer.Optimizer",
    ),
]


@pytest.mark.parametrize("make", OPTIMIZERS)
def test_optimizer_steps_match_torch(torch: Any, make: Any) -> None:
    check(lambda m: train(m, make), torch, 1e-9, 1e-11)


@torch_names("torch.optim.LBFGS")
def test_lbfgs_steps_match_torch(torch: Any) -> None:
    check(
        lambda m: train(m, lambda m, ps: m.optim.LBFGS(ps, lr=0.5, max_iter=4), steps=2, closure=True),
        torch,
        1e-8,
        1e-10,
    )


SCHEDULERS = [
    pytest.param(
        lambda m, o: m.optim.lr_scheduler.StepLR(o, step_size=2, gamma=0.5),
        marks=torch_names("torch.optim.lr_scheduler", "torch.optim.lr_scheduler.StepLR"),
        id="StepLR",
    ),
    pytest.param(
        lambda m, o: m.optim.lr_scheduler.MultiStepLR(o, milestones=[1, 3], gamma=0.1),
        marks=torch_names("torch.optim.lr_scheduler.MultiStepLR"),
        id="MultiStepLR",
    ),
    pytest.param(
        lambda m, o: m.optim.lr_scheduler.ExponentialLR(o, gamma=0.9),
        marks=torch_names("torch.optim.lr_scheduler.ExponentialLR"),
        id="ExponentialLR",
    ),
    pytest.param(
        lambda m, o: m.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.001),
        marks=torch_names("torch.optim.lr_scheduler.CosineAnnealingLR"),
        id="CosineAnnealingLR",
    ),
    pytest.param(
        lambda m, o: m.optim.lr_scheduler.LambdaLR(o, lambda epoch: 1 / (epoch + 1)),
        marks=torch_names("torch.optim.lr_scheduler.LambdaLR"),
        id="LambdaLR",
    ),
]


@pytest.mark.parametrize("scheduler", SCHEDULERS)
def test_lr_schedulers_match_torch(torch: Any, scheduler: Any) -> None:
    check(lambda m: train(m, lambda m, ps: m.optim.SGD(ps, lr=0.1), steps=6, scheduler=scheduler), torch, 1e-9, 1e-11)


@torch_names("torch.optim.lr_scheduler.ReduceLROnPlateau")
def test_reduce_lr_on_plateau_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        opt = m.optim.SGD([m.nn.Parameter(m.zeros(1))], lr=1.0)
        sched = m.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1)
        lrs = []
        for metric in [5.0, 4.0, 4.0, 4.0, 4.0, 3.0, 3.0, 3.0]:
            sched.step(metric)
            lrs.append(opt.param_groups[0]["lr"])
        return lrs

    check(run, torch)


@torch_names("torch.optim.Optimizer", "torch.optim.Optimizer.param_groups", "torch.optim.Optimizer.zero_grad")
def test_a_subclassed_optimizer_and_param_groups_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        class HalfStep(m.optim.Optimizer):
            def __init__(self, params: Any, lr: float) -> None:
                super().__init__(params, {"lr": lr})

            def step(self, closure: Any = None) -> None:
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.data.add_(p.grad, alpha=-group["lr"] / 2)

        a, b = m.nn.Parameter(m.ones(2)), m.nn.Parameter(m.ones(1))
        opt = HalfStep([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
        (a.sum() * 3 + b.sum()).backward()
        opt.step()
        opt.zero_grad()
        return a.detach(), b.detach(), a.grad, [g["lr"] for g in opt.param_groups], len(opt.param_groups)

    check(run, torch)


@torch_names("torch.nn.Module", "torch.nn.Sequential")
def test_module_repr_of_sequential_matches_torch(torch: Any) -> None:
    def run(m: Any) -> str:
        return repr(m.nn.Sequential(m.nn.Linear(2, 3), m.nn.ReLU(), m.nn.Dropout(0.1)))

    assert_same(run(ctxgrad), run(torch))
