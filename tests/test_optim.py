"""ctxgrad.optim: optimizers and learning-rate schedulers, against torch.optim.

Each optimizer trains the same small float64 network (a tanh layer and a linear read-out)
from the same starting values as torch's, for 20 steps; every parameter must follow torch's
trajectory to ~1e-12.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.optim import SGD, Adam, Optimizer, RMSprop, lr_scheduler

STEPS = 20
RNG = np.random.default_rng(1234)
X = RNG.standard_normal((8, 3))
Y = RNG.standard_normal(8)
START = [RNG.standard_normal((3, 4)), RNG.standard_normal(4), RNG.standard_normal(4)]


def ctx_params() -> list[ctxgrad.Tensor]:
    return [ctxgrad.tensor(a, dtype=ctxgrad.float64, requires_grad=True) for a in START]


def ctx_loss(params: list[ctxgrad.Tensor]) -> ctxgrad.Tensor:
    w1, b1, w2 = params
    hidden = (ctxgrad.tensor(X) @ w1 + b1).tanh()
    return ((hidden @ w2 - ctxgrad.tensor(Y)) ** 2).mean()


def torch_params(torch: Any) -> list[Any]:
    return [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in START]


def torch_loss(torch: Any, params: list[Any]) -> Any:
    w1, b1, w2 = params
    hidden = (torch.tensor(X) @ w1 + b1).tanh()
    return ((hidden @ w2 - torch.tensor(Y)) ** 2).mean()


def run_ctx(opt: Optimizer, params: list[ctxgrad.Tensor], steps: int) -> list[list[np.ndarray]]:
    trajectory = []
    for _ in range(steps):
        opt.zero_grad()
        ctx_loss(params).backward()
        opt.step()
        trajectory.append([p.detach().numpy().copy() for p in params])
    return trajectory


def run_torch(torch: Any, opt: Any, params: list[Any], steps: int) -> list[list[np.ndarray]]:
    trajectory = []
    for _ in range(steps):
        opt.zero_grad()
        torch_loss(torch, params).backward()
        opt.step()
        trajectory.append([p.detach().numpy().copy() for p in params])
    return trajectory


def assert_same_trajectory(ours: list[list[np.ndarray]], theirs: list[list[np.ndarray]]) -> None:
    assert len(ours) == len(theirs)
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for i, (pa, pb) in enumerate(zip(a, b)):
            np.testing.assert_allclose(pa, pb, rtol=1e-11, atol=1e-12, err_msg=f"step {step}, parameter {i}")


CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("SGD", {"lr": 0.1}),
    ("SGD", {"lr": 0.1, "momentum": 0.9}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3, "weight_decay": 0.01}),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}),
    ("SGD", {"lr": 0.01, "momentum": 0.5, "maximize": True}),
    ("Adam", {"lr": 0.01}),
    ("Adam", {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6, "weight_decay": 0.1}),
    ("Adam", {"lr": 0.02, "amsgrad": True}),
    ("Adam", {"lr": 0.05, "betas": (0.3, 0.9)}),  # 1 - beta1 >= 0.5: lerp's other branch
    ("Adam", {"lr": 0.01, "maximize": True, "weight_decay": 0.05}),
    ("Adam", {"lr": 0.01, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("AdamW", {"lr": 0.01}),
    ("AdamW", {"lr": 0.02, "weight_decay": 0.1, "amsgrad": True}),
    ("RMSprop", {"lr": 0.01}),
    ("RMSprop", {"lr": 0.01, "alpha": 0.9, "momentum": 0.5}),
    ("RMSprop", {"lr": 0.005, "centered": True}),
    ("RMSprop", {"lr": 0.005, "centered": True, "momentum": 0.9, "weight_decay": 0.1, "eps": 1e-4}),
    ("RMSprop", {"lr": 0.001, "maximize": True}),
    ("Adagrad", {"lr": 0.1}),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05, "weight_decay": 0.1, "initial_accumulator_value": 0.5}),
    ("Adagrad", {"lr": 0.05, "eps": 1e-3, "maximize": True}),
    ("Adadelta", {}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "eps": 1e-3, "weight_decay": 0.1}),
    ("Adadelta", {"lr": 0.1, "maximize": True}),
    ("Adamax", {"lr": 0.01}),
    ("Adamax", {"lr": 0.02, "betas": (0.3, 0.9), "eps": 1e-4, "weight_decay": 0.1}),
    ("Adamax", {"lr": 0.01, "maximize": True}),
    ("NAdam", {"lr": 0.01}),
    ("NAdam", {"lr": 0.02, "betas": (0.8, 0.99), "momentum_decay": 0.01, "weight_decay": 0.1}),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True, "maximize": True}),
    ("RAdam", {"lr": 0.01}),
    ("RAdam", {"lr": 0.02, "betas": (0.5, 0.9), "weight_decay": 0.1}),  # rho_t > 5 from step 4 on
    ("RAdam", {"lr": 0.02, "betas": (0.5, 0.8), "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.01, "maximize": True, "eps": 1e-3}),
    ("Rprop", {"lr": 0.01}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.08)}),
    ("Rprop", {"lr": 0.01, "maximize": True}),
]


def config_id(config: tuple[str, dict[str, Any]]) -> str:
    name, kwargs = config
    # A function by its name, not its repr: the address in that differs between processes
    # (pytest-xdist's workers must collect the same ids).
    return name + "-" + "-".join(f"{k}={v.__name__ if callable(v) else v}" for k, v in kwargs.items())


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_trajectory_matches_torch(torch: Any, config: tuple[str, dict[str, Any]]) -> None:
    name, kwargs = config
    ours = ctx_params()
    theirs = torch_params(torch)
    ours_traj = run_ctx(getattr(ctxgrad.optim, name)(ours, **kwargs), ours, STEPS)
    theirs_traj = run_torch(torch, getattr(torch.optim, name)(theirs, **kwargs), theirs, STEPS)
    assert_same_trajectory(ours_traj, theirs_traj)


@pytest.mark.parametrize("config", CONFIGS[1::3], ids=config_id)
def test_state_matches_torch(torch: Any, config: tuple[str, dict[str, Any]]) -> None:
    """The state dict has torch's structure: the same keys, groups and state values."""
    name, kwargs = config
    ours, theirs = ctx_params(), torch_params(torch)
    opt = getattr(ctxgrad.optim, name)(ours, **kwargs)
    topt = getattr(torch.optim, name)(theirs, **kwargs)
    run_ctx(opt, ours, 3)
    run_torch(torch, topt, theirs, 3)
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["param_groups"] == tsd["param_groups"]
    assert list(sd["state"]) == list(tsd["state"])
    for index, entry in sd["state"].items():
        assert list(entry) == list(tsd["state"][index])
        for key, value in entry.items():
            expected = tsd["state"][index][key]
            assert str(value.dtype) == str(expected.dtype).replace("torch.", "ctxgrad.")
            np.testing.assert_allclose(value.numpy(), expected.numpy(), rtol=1e-11, atol=1e-14)


def test_param_groups_with_their_own_hyperparameters_match_torch(torch: Any) -> None:
    ours, theirs = ctx_params(), torch_params(torch)
    opt = Adam([{"params": ours[:2], "lr": 0.05}, {"params": ours[2:], "betas": (0.5, 0.9)}], lr=0.01)
    topt = torch.optim.Adam([{"params": theirs[:2], "lr": 0.05}, {"params": theirs[2:], "betas": (0.5, 0.9)}], lr=0.01)
    assert [g["lr"] for g in opt.param_groups] == [0.05, 0.01]
    assert opt.param_groups[1]["betas"] == (0.5, 0.9)
    assert_same_trajectory(run_ctx(opt, ours, 10), run_torch(torch, topt, theirs, 10))


def test_add_param_group_starts_training_more_parameters(torch: Any) -> None:
    ours, theirs = ctx_params(), torch_params(torch)
    opt, topt = SGD(ours[:1], lr=0.1, momentum=0.9), torch.optim.SGD(theirs[:1], lr=0.1, momentum=0.9)
    run_ctx(opt, ours, 3)
    run_torch(torch, topt, theirs, 3)
    opt.add_param_group({"params": ours[1:], "lr": 0.01})
    topt.add_param_group({"params": theirs[1:], "lr": 0.01})
    assert_same_trajectory(run_ctx(opt, ours, 5), run_torch(torch, topt, theirs, 5))


def test_a_parameter_without_gradient_is_skipped_and_gets_no_state() -> None:
    used, unused = ctxgrad.ones(2, dtype=ctxgrad.float64, requires_grad=True), ctxgrad.ones(2, requires_grad=True)
    opt = Adam([used, unused], lr=0.1)
    (used * used).sum().backward()
    opt.step()
    assert unused.tolist() == [1.0, 1.0]
    assert unused not in opt.state and used in opt.state
    assert list(opt.state_dict()["state"]) == [0]


# NAdam's "mu_product" is kept in float32 but comes back from a state dict in the parameter's
# dtype, in torch as here, so its resumed run differs in the last digits (tested below).
ROUND_TRIP = [c for c in CONFIGS[::2] if c[0] != "NAdam"]


@pytest.mark.parametrize("config", ROUND_TRIP, ids=config_id)
def test_state_dict_round_trip_continues_the_same_trajectory(config: tuple[str, dict[str, Any]]) -> None:
    """Save mid-run (through ctxgrad.save), load into a fresh optimizer on fresh tensors,
    continue: the same values as a run that never stopped."""
    name, kwargs = config
    cls = getattr(ctxgrad.optim, name)
    params = ctx_params()
    whole = run_ctx(cls(params, **kwargs), params, 10)

    params = ctx_params()
    opt = cls(params, **kwargs)
    first_half = run_ctx(opt, params, 5)
    buffer = io.BytesIO()
    ctxgrad.save(opt.state_dict(), buffer)
    buffer.seek(0)
    saved = ctxgrad.load(buffer)
    resumed = [ctxgrad.tensor(p.detach().numpy(), requires_grad=True) for p in params]
    fresh = cls(resumed, lr=123.0)  # every hyperparameter comes back from the state dict
    fresh.load_state_dict(saved)
    assert fresh.param_groups[0]["lr"] == kwargs["lr"]
    second_half = run_ctx(fresh, resumed, 5)
    for a, b in zip(whole, first_half + second_half):
        for pa, pb in zip(a, b):
            np.testing.assert_array_equal(pa, pb)


def test_nadam_state_dict_round_trip_matches_torch(torch: Any) -> None:
    """After a load, NAdam's mu_product is in the parameter's dtype in both libraries."""
    ours, theirs = ctx_params(), torch_params(torch)
    opt, topt = ctxgrad.optim.NAdam(ours, lr=0.02), torch.optim.NAdam(theirs, lr=0.02)
    run_ctx(opt, ours, 5)
    run_torch(torch, topt, theirs, 5)
    fresh, tfresh = ctxgrad.optim.NAdam(ours), torch.optim.NAdam(theirs)
    fresh.load_state_dict(opt.state_dict())
    tfresh.load_state_dict(topt.state_dict())
    assert fresh.state[ours[0]]["mu_product"].dtype == ctxgrad.float64
    assert str(tfresh.state[theirs[0]]["mu_product"].dtype) == "torch.float64"
    assert_same_trajectory(run_ctx(fresh, ours, 5), run_torch(torch, tfresh, theirs, 5))


def test_adagrad_state_exists_before_the_first_step_as_torch(torch: Any) -> None:
    ours = ctxgrad.optim.Adagrad(ctx_params(), initial_accumulator_value=0.25)
    theirs = torch.optim.Adagrad(torch_params(torch), initial_accumulator_value=0.25)
    sd, tsd = ours.state_dict(), theirs.state_dict()
    assert list(sd["state"]) == list(tsd["state"]) == [0, 1, 2]
    for index, entry in sd["state"].items():
        assert list(entry) == list(tsd["state"][index]) == ["step", "sum"]
        np.testing.assert_array_equal(entry["sum"].numpy(), tsd["state"][index]["sum"].numpy())


def test_loaded_state_is_copied_and_cast_to_the_parameter_dtype() -> None:
    w = ctxgrad.ones(2, dtype=ctxgrad.float64, requires_grad=True)
    opt = SGD([w], lr=0.1, momentum=0.9)
    w.grad = ctxgrad.ones(2, dtype=ctxgrad.float64)
    opt.step()
    w32 = ctxgrad.ones(2, requires_grad=True)
    other = SGD([w32], lr=0.1, momentum=0.9)
    other.load_state_dict(opt.state_dict())
    buf = other.state[w32]["momentum_buffer"]
    assert buf.dtype == ctxgrad.float32
    assert buf is not opt.state[w]["momentum_buffer"]


def test_load_state_dict_errors() -> None:
    a, b = ctxgrad.ones(1, requires_grad=True), ctxgrad.ones(1, requires_grad=True)
    sd = SGD([a, b]).state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        SGD([{"params": [a]}, {"params": [b]}]).load_state_dict(sd)
    with pytest.raises(ValueError, match=r"doesn't match the size of optimizer's group \(group 0: 2 saved"):
        SGD([a]).load_state_dict(sd)
    with pytest.raises(ValueError, match="keys 'state' and 'param_groups'"):
        SGD([a]).load_state_dict({"state": {}})


def test_updates_are_in_place_and_bump_versions(torch: Any) -> None:
    w = ctxgrad.ones(3, requires_grad=True)
    opt = SGD([w], lr=0.1)
    y = (w * w).sum()
    y.backward(retain_graph=True)
    before = w._version
    opt.step()
    assert w._version > before and w.is_leaf and w.requires_grad and w.grad_fn is None
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    tw = torch.ones(3, requires_grad=True)
    ty = (tw * tw).sum()
    ty.backward(retain_graph=True)
    torch.optim.SGD([tw], lr=0.1).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        ty.backward()


def test_zero_grad() -> None:
    w = ctxgrad.ones(2, requires_grad=True)
    opt = SGD([w])
    (w * 3).sum().backward()
    grad = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is grad and w.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_step_runs_the_closure_with_grad_enabled_and_returns_its_loss() -> None:
    w = ctxgrad.tensor([2.0], requires_grad=True)
    opt = SGD([w], lr=0.25)

    def closure() -> ctxgrad.Tensor:
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with ctxgrad.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 4.0
    assert w.tolist() == [1.0]


def test_named_parameters_are_kept_as_param_names(torch: Any) -> None:
    w = ctxgrad.ones(1, requires_grad=True)
    opt = SGD([("weight", w)], lr=0.1)
    assert opt.param_groups[0]["params"] == [w] and opt.param_groups[0]["param_names"] == ["weight"]
    topt = torch.optim.SGD([("weight", torch.ones(1, requires_grad=True))], lr=0.1)
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam"])
def test_repr_matches_torch(torch: Any, name: str) -> None:
    ours = getattr(ctxgrad.optim, name)([ctxgrad.ones(1, requires_grad=True)], lr=0.5)
    theirs = getattr(torch.optim, name)([torch.ones(1, requires_grad=True)], lr=0.5)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("SGD", {"lr": -0.1}),
        ("SGD", {"momentum": -0.5}),
        ("SGD", {"weight_decay": -1.0}),
        ("SGD", {"nesterov": True}),
        ("SGD", {"nesterov": True, "momentum": 0.9, "dampening": 0.1}),
        ("Adam", {"lr": -0.1}),
        ("Adam", {"eps": -1.0}),
        ("Adam", {"betas": (1.0, 0.999)}),
        ("Adam", {"betas": (0.9, -0.1)}),
        ("Adam", {"weight_decay": -0.1}),
        ("Adam", {"betas": (0, 0.999)}),
        ("AdamW", {"lr": -1e-3}),
        ("RMSprop", {"lr": -0.1}),
        ("RMSprop", {"alpha": -0.1}),
        ("RMSprop", {"eps": -1.0}),
        ("RMSprop", {"momentum": -1.0}),
        ("RMSprop", {"weight_decay": -1.0}),
        ("Adagrad", {"lr": -0.1}),
        ("Adagrad", {"lr_decay": -0.1}),
        ("Adagrad", {"weight_decay": -0.1}),
        ("Adagrad", {"initial_accumulator_value": -0.1}),
        ("Adagrad", {"eps": -0.1}),
        ("Adadelta", {"lr": -0.1}),
        ("Adadelta", {"rho": 1.5}),
        ("Adadelta", {"eps": -1.0}),
        ("Adadelta", {"weight_decay": -1.0}),
        ("Adamax", {"betas": (1.0, 0.9)}),
        ("Adamax", {"eps": -1.0}),
        ("NAdam", {"momentum_decay": -1.0}),
        ("NAdam", {"betas": (0.9, 1.0)}),
        ("RAdam", {"weight_decay": -1.0}),
        ("RAdam", {"lr": -1.0}),
        ("Rprop", {"etas": (1.5, 2.0)}),
        ("Rprop", {"lr": -1.0}),
    ],
)
def test_bad_hyperparameters_raise_torchs_error(torch: Any, name: str, kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.ones(1, requires_grad=True)], **kwargs)
    with pytest.raises(ValueError) as ours:
        getattr(ctxgrad.optim, name)([ctxgrad.ones(1, requires_grad=True)], **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_bad_params_raise_torchs_errors(torch: Any) -> None:
    w, tw = ctxgrad.ones(1, requires_grad=True), torch.ones(1, requires_grad=True)
    cases: list[tuple[Callable[[], Any], Callable[[], Any]]] = [
        (lambda: SGD([w, 1.0]), lambda: torch.optim.SGD([tw, 1.0])),
        (lambda: SGD([]), lambda: torch.optim.SGD([])),
        (
            lambda: SGD([{"params": [w]}, {"params": [w]}]),
            lambda: torch.optim.SGD([{"params": [tw]}, {"params": [tw]}]),
        ),
        (lambda: SGD([w * 2]), lambda: torch.optim.SGD([tw * 2])),
        (lambda: SGD([{"params": {w}}]), lambda: torch.optim.SGD([{"params": {tw}}])),
        (lambda: SGD([("a", w), w]), lambda: torch.optim.SGD([("a", tw), tw])),
    ]
    for ours, theirs in cases:
        with pytest.raises((TypeError, ValueError)) as expected:
            theirs()
        with pytest.raises(type(expected.value), match="^" + str(expected.value).replace("(", r"\(")[:40]):
            ours()


def test_a_tensor_as_params_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"should be an iterable of Tensors or dicts, but got ctxgrad\.Tensor"):
        SGD(ctxgrad.ones(1, requires_grad=True))


def test_a_parameter_twice_in_one_group_is_an_error() -> None:
    w = ctxgrad.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match=r"the same parameter twice in one parameter group \(at positions 0 and 2\)"):
        SGD([w, ctxgrad.ones(1, requires_grad=True), w])


def test_options_without_meaning_here_are_refused() -> None:
    w = ctxgrad.ones(1, requires_grad=True)
    with pytest.raises(NotImplementedError, match=r"Adam\(fused=True\) is not supported"):
        Adam([w], fused=True)
    with pytest.raises(NotImplementedError, match=r"SGD\(differentiable=True\)"):
        SGD([w], differentiable=True)
    SGD([w], foreach=True)  # same arithmetic either way: accepted


def test_a_custom_optimizer_with_a_required_hyperparameter() -> None:
    from ctxgrad.optim.optimizer import required

    class Descent(Optimizer):
        def __init__(self, params: Any, lr: Any = required) -> None:
            super().__init__(params, {"lr": lr})

    w = ctxgrad.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="didn't specify a value of required optimization parameter lr"):
        Descent([w])
    with pytest.raises(NotImplementedError, match="Descent does not implement step"):
        Descent([w], lr=0.1).step()


def test_tensor_learning_rate(torch: Any) -> None:
    ours, theirs = ctx_params(), torch_params(torch)
    opt = Adam(ours, lr=ctxgrad.tensor(0.01, dtype=ctxgrad.float64))
    topt = torch.optim.Adam(theirs, lr=torch.tensor(0.01, dtype=torch.float64))
    assert_same_trajectory(run_ctx(opt, ours, 5), run_torch(torch, topt, theirs, 5))


# --------------------------------------------------------------------------- schedulers
SCHEDULERS: list[tuple[str, dict[str, Any]]] = [
    ("StepLR", {"step_size": 3}),
    ("StepLR", {"step_size": 2, "gamma": 0.5}),
    ("MultiStepLR", {"milestones": [2, 5, 5, 9], "gamma": 0.5}),
    ("ExponentialLR", {"gamma": 0.9}),
    ("CosineAnnealingLR", {"T_max": 5}),
    ("CosineAnnealingLR", {"T_max": 4, "eta_min": 0.01}),
    ("MultiplicativeLR", {"lr_lambda": lambda epoch: 0.9 if epoch % 2 else 0.8}),
    ("ConstantLR", {}),
    ("ConstantLR", {"factor": 0.5, "total_iters": 4}),
    ("LinearLR", {}),
    ("LinearLR", {"start_factor": 0.1, "end_factor": 0.6, "total_iters": 7}),
    ("PolynomialLR", {}),
    ("PolynomialLR", {"total_iters": 10, "power": 2.5}),
    ("CosineAnnealingWarmRestarts", {"T_0": 3}),
    ("CosineAnnealingWarmRestarts", {"T_0": 2, "T_mult": 2, "eta_min": 0.01}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3}),
    (
        "CyclicLR",
        {"base_lr": [0.01, 0.02], "max_lr": 0.2, "step_size_up": 2, "step_size_down": 3, "mode": "triangular2"},
    ),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "mode": "exp_range", "gamma": 0.9}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "scale_fn": lambda x: 0.5**x}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 16}),
    ("OneCycleLR", {"max_lr": [0.5, 1.0], "epochs": 4, "steps_per_epoch": 4, "anneal_strategy": "linear"}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 15, "three_phase": True, "pct_start": 0.25}),
]


def _two_group_optimizers(torch: Any) -> tuple[Optimizer, Any]:
    ours = SGD(
        [
            {"params": [ctxgrad.ones(1, requires_grad=True)]},
            {"params": [ctxgrad.ones(1, requires_grad=True)], "lr": 0.3},
        ],
        lr=0.1,
    )
    theirs = torch.optim.SGD(
        [{"params": [torch.ones(1, requires_grad=True)]}, {"params": [torch.ones(1, requires_grad=True)], "lr": 0.3}],
        lr=0.1,
    )
    return ours, theirs


def _lr_sequence(optimizer: Any, scheduler: Any, epochs: int = 15) -> list[list[float]]:
    rates = []
    for _ in range(epochs):
        optimizer.step()
        rates.append([float(lr) for lr in scheduler.get_last_lr()])
        scheduler.step()
    return rates


@pytest.mark.parametrize("config", SCHEDULERS, ids=config_id)
def test_scheduler_rates_match_torch(torch: Any, config: tuple[str, dict[str, Any]]) -> None:
    name, kwargs = config
    opt, topt = _two_group_optimizers(torch)
    ours = getattr(lr_scheduler, name)(opt, **kwargs)
    theirs = getattr(torch.optim.lr_scheduler, name)(topt, **kwargs)
    np.testing.assert_allclose(_lr_sequence(opt, ours), _lr_sequence(topt, theirs), rtol=1e-14, atol=0)
    assert [g["lr"] for g in opt.param_groups] == pytest.approx([g["lr"] for g in topt.param_groups], rel=1e-14)
    assert set(ours.state_dict()) == set(theirs.state_dict())


CYCLING = [
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 3}),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.1, "step_size_up": 2, "mode": "exp_range", "gamma": 0.9}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 16}),
    ("OneCycleLR", {"max_lr": 0.5, "total_steps": 15, "three_phase": True, "base_momentum": [0.8, 0.7]}),
]


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
@pytest.mark.parametrize("config", CYCLING, ids=config_id)
def test_cycled_momentum_matches_torch(torch: Any, config: tuple[str, dict[str, Any]], optimizer: str) -> None:
    """CyclicLR and OneCycleLR move SGD's momentum (Adam's beta1) against the rate, as torch."""
    name, kwargs = config
    extra = {"momentum": 0.9} if optimizer == "SGD" else {}
    ours_w = [ctxgrad.ones(1, requires_grad=True), ctxgrad.ones(1, requires_grad=True)]
    theirs_w = [torch.ones(1, requires_grad=True), torch.ones(1, requires_grad=True)]
    opt = getattr(ctxgrad.optim, optimizer)([{"params": ours_w[:1]}, {"params": ours_w[1:]}], lr=0.1, **extra)
    topt = getattr(torch.optim, optimizer)([{"params": theirs_w[:1]}, {"params": theirs_w[1:]}], lr=0.1, **extra)
    ours = getattr(lr_scheduler, name)(opt, **kwargs)
    theirs = getattr(torch.optim.lr_scheduler, name)(topt, **kwargs)
    key = "momentum" if optimizer == "SGD" else "betas"
    for _ in range(14):
        ours_m = [g[key] if key == "momentum" else g[key][0] for g in opt.param_groups]
        theirs_m = [g[key] if key == "momentum" else g[key][0] for g in topt.param_groups]
        assert ours_m == pytest.approx(theirs_m, rel=1e-14)
        for w, tw in zip(ours_w, theirs_w):
            w.grad, tw.grad = ctxgrad.ones(1), torch.ones(1)
        opt.step()
        topt.step()
        ours.step()
        theirs.step()
    for w, tw in zip(ours_w, theirs_w):
        np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-6)


def test_one_cycle_refuses_a_step_past_the_end(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
        sched = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
        opt.step()
        sched.step()
        sched.step()
        with pytest.raises(ValueError, match=r"Tried to step 3 times\. The specified number of total steps is 2"):
            sched.step()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"patience": 2},
        {"mode": "max", "patience": 1, "factor": 0.5, "cooldown": 2},
        {"threshold_mode": "abs", "threshold": 0.05, "patience": 0, "min_lr": [0.02, 0.1]},
        {"mode": "max", "threshold_mode": "abs", "patience": 1, "min_lr": 0.05, "eps": 0.01},
    ],
)
def test_reduce_lr_on_plateau_matches_torch(torch: Any, kwargs: dict[str, Any]) -> None:
    opt, topt = _two_group_optimizers(torch)
    ours = lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    theirs = torch.optim.lr_scheduler.ReduceLROnPlateau(topt, **kwargs)
    metrics = [1.0, 0.9, 0.9, 0.91, 0.89, 0.95, 0.95, 0.95, 0.5, 0.5, 0.52, 0.6, 0.6, 0.6, 0.6, 0.6, 0.4, 0.4]
    for metric in metrics:
        ours.step(metric)
        theirs.step(metric)
        assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-14)
        assert (ours.best, ours.num_bad_epochs, ours.cooldown_counter) == (
            theirs.best,
            theirs.num_bad_epochs,
            theirs.cooldown_counter,
        )
    assert set(ours.state_dict()) == set(theirs.state_dict())


def _combined(lib: Any, sched_mod: Any, opt: Any, kind: str) -> Any:
    first = sched_mod.LinearLR(opt, start_factor=0.2, total_iters=3)
    second = sched_mod.ExponentialLR(opt, gamma=0.8)
    if kind == "sequential":
        return sched_mod.SequentialLR(opt, [first, second], milestones=[4])
    if kind == "sequential3":
        third = sched_mod.StepLR(opt, step_size=2, gamma=0.5)
        return sched_mod.SequentialLR(opt, [first, second, third], milestones=[3, 7])
    return sched_mod.ChainedScheduler([first, second, sched_mod.MultiStepLR(opt, [5, 8], 0.5)])


@pytest.mark.parametrize("kind", ["sequential", "sequential3", "chained"])
def test_sequential_and_chained_schedulers_match_torch(torch: Any, kind: str) -> None:
    opt, topt = _two_group_optimizers(torch)
    ours = _combined(ctxgrad, lr_scheduler, opt, kind)
    theirs = _combined(torch, torch.optim.lr_scheduler, topt, kind)
    np.testing.assert_allclose(_lr_sequence(opt, ours, 14), _lr_sequence(topt, theirs, 14), rtol=1e-14, atol=0)
    assert set(ours.state_dict()) == set(theirs.state_dict())


def test_sequential_state_dict_round_trip_continues_the_schedule(torch: Any) -> None:
    opt, topt = _two_group_optimizers(torch)
    ours = _combined(ctxgrad, lr_scheduler, opt, "sequential")
    theirs = _combined(torch, torch.optim.lr_scheduler, topt, "sequential")
    _lr_sequence(opt, ours, 5)
    _lr_sequence(topt, theirs, 5)
    buffer = io.BytesIO()
    ctxgrad.save(ours.state_dict(), buffer)
    buffer.seek(0)
    fresh_opt = SGD(
        [{"params": [ctxgrad.ones(1, requires_grad=True)]}, {"params": [ctxgrad.ones(1, requires_grad=True)]}]
    )
    fresh_opt.load_state_dict(opt.state_dict())
    fresh = _combined(ctxgrad, lr_scheduler, fresh_opt, "sequential")
    fresh.load_state_dict(ctxgrad.load(buffer))
    for group, saved in zip(fresh_opt.param_groups, opt.param_groups):
        group["lr"] = saved["lr"]
    np.testing.assert_allclose(_lr_sequence(fresh_opt, fresh, 6), _lr_sequence(topt, theirs, 6), rtol=1e-14)


def test_cosine_warm_restarts_with_fractional_epochs_matches_torch(torch: Any) -> None:
    opt, topt = _two_group_optimizers(torch)
    ours = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3, eta_min=0.001)
    theirs = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(topt, T_0=2, T_mult=3, eta_min=0.001)
    opt.step()
    topt.step()
    for epoch in np.arange(0.0, 12.0, 0.35):
        ours.step(float(epoch))
        theirs.step(float(epoch))
        assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-13)
        assert (ours.T_i, ours.last_epoch) == (theirs.T_i, theirs.last_epoch)


def _scheduler_error(lib: Any, build: Any) -> tuple[type[Exception], str]:
    opt = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
    other = lib.optim.SGD([lib.ones(1, requires_grad=True)], lr=0.1)
    with pytest.raises(Exception) as info:
        build(lib.optim.lr_scheduler, opt, other)
    return type(info.value), str(info.value)


SCHEDULER_ERRORS = [
    lambda m, o, _: m.ConstantLR(o, factor=1.5),
    lambda m, o, _: m.LinearLR(o, start_factor=0.0),
    lambda m, o, _: m.LinearLR(o, end_factor=1.5),
    lambda m, o, _: m.MultiplicativeLR(o, lr_lambda=0.5),
    lambda m, o, _: m.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda m, o, _: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda m, o, _: m.CyclicLR(o, 0.1, 1.0, mode="sawtooth"),
    lambda m, o, _: m.CyclicLR(o, [0.1, 0.2], 1.0),
    lambda m, o, _: m.OneCycleLR(o, max_lr=1.0),
    lambda m, o, _: m.OneCycleLR(o, max_lr=1.0, total_steps=0),
    lambda m, o, _: m.OneCycleLR(o, max_lr=1.0, total_steps=10, pct_start=1.5),
    lambda m, o, _: m.OneCycleLR(o, max_lr=1.0, total_steps=10, anneal_strategy="exp"),
    lambda m, o, _: m.ReduceLROnPlateau(o, factor=1.0),
    lambda m, o, _: m.ReduceLROnPlateau(o, mode="mean"),
    lambda m, o, _: m.ReduceLROnPlateau(o, threshold_mode="ratio"),
    lambda m, o, _: m.ReduceLROnPlateau(o, min_lr=[0.1, 0.2]),
    lambda m, o, _: m.SequentialLR(o, [], milestones=[]),
    lambda m, o, _: m.SequentialLR(o, [m.StepLR(o, 2), m.StepLR(o, 2)], milestones=[]),
    lambda m, o, _: m.SequentialLR(o, [m.StepLR(o, 2), m.ReduceLROnPlateau(o)], milestones=[3]),
    lambda m, o, _: m.ChainedScheduler([]),
    lambda m, o, other: m.ChainedScheduler([m.StepLR(o, 2), m.StepLR(other, 2)], optimizer=o),
]


@pytest.mark.parametrize("build", SCHEDULER_ERRORS)
def test_scheduler_construction_errors_match_torch(torch: Any, build: Any) -> None:
    their_type, their_message = _scheduler_error(torch, build)
    our_type, our_message = _scheduler_error(ctxgrad, build)
    assert our_type is their_type
    if "which is different from" in their_message:  # names the optimizer, whose repr differs by library
        their_message = their_message.split(" has ")[0]
        our_message = our_message.split(" has ")[0]
    assert our_message == their_message


def test_lambda_lr_with_one_function_per_group_matches_torch(torch: Any) -> None:
    opt, topt = _two_group_optimizers(torch)
    lambdas = [lambda epoch: 0.95**epoch, lambda epoch: 1.0 / (1 + epoch)]
    ours = lr_scheduler.LambdaLR(opt, lambdas)
    theirs = torch.optim.lr_scheduler.LambdaLR(topt, lambdas)
    assert _lr_sequence(opt, ours) == _lr_sequence(topt, theirs)
    assert ours.state_dict()["lr_lambdas"] == [None, None]
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(opt, [lambdas[0]])


def test_lambda_lr_saves_the_state_of_callable_objects() -> None:
    class Warmup:
        def __init__(self, steps: int) -> None:
            self.steps = steps

        def __call__(self, epoch: int) -> float:
            return min(1.0, (epoch + 1) / self.steps)

    opt = SGD([ctxgrad.ones(1, requires_grad=True)], lr=1.0)
    sched = lr_scheduler.LambdaLR(opt, Warmup(4))
    assert sched.state_dict()["lr_lambdas"] == [{"steps": 4}]
    other = lr_scheduler.LambdaLR(SGD([ctxgrad.ones(1, requires_grad=True)], lr=1.0), Warmup(10))
    other.load_state_dict(sched.state_dict())
    assert other.lr_lambdas[0].steps == 4  # type: ignore[attr-defined]


def test_scheduler_state_dict_round_trips_through_save(torch: Any) -> None:
    opt = SGD([ctxgrad.ones(1, requires_grad=True)], lr=1.0)
    sched = lr_scheduler.MultiStepLR(opt, milestones=[2, 4, 4], gamma=0.5)
    _lr_sequence(opt, sched, 3)
    buffer = io.BytesIO()
    ctxgrad.save({"optimizer": opt.state_dict(), "scheduler": sched.state_dict()}, buffer)
    buffer.seek(0)
    saved = ctxgrad.load(buffer)

    opt2 = SGD([ctxgrad.ones(1, requires_grad=True)], lr=1.0)
    sched2 = lr_scheduler.MultiStepLR(opt2, milestones=[], gamma=0.5)
    opt2.load_state_dict(saved["optimizer"])
    sched2.load_state_dict(saved["scheduler"])
    assert _lr_sequence(opt2, sched2, 4) == _lr_sequence(opt, sched, 4) == [[0.5], [0.125], [0.125], [0.125]]


def test_step_with_an_epoch_uses_the_closed_form_like_torch(torch: Any) -> None:
    opt, topt = _two_group_optimizers(torch)
    ours, theirs = (
        lr_scheduler.CosineAnnealingLR(opt, T_max=6),
        torch.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=6),
    )
    opt.step()
    topt.step()
    with pytest.warns(UserWarning, match="epoch parameter"):
        ours.step(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.step(4)
    assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-15)


def test_scheduler_warns_when_stepped_before_the_optimizer() -> None:
    opt = SGD([ctxgrad.ones(1, requires_grad=True)], lr=1.0)
    sched = lr_scheduler.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match=r"lr_scheduler.step\(\)` before `optimizer.step\(\)"):
        sched.step()


def test_scheduler_errors() -> None:
    opt = SGD([ctxgrad.ones(1, requires_grad=True)], lr=1.0)
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(opt, step_size=1, last_epoch=3)
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], step_size=1)  # type: ignore[arg-type]


def test_training_an_nn_module_matches_torch_and_checkpoints_through_save(torch: Any) -> None:
    """End to end: ctxgrad.nn model, Adam and a StepLR schedule, against the same in torch,
    then a checkpoint of model, optimizer and scheduler through ctxgrad.save / load."""
    from ctxgrad import nn

    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).double()
    ours = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
    ours.load_state_dict({k: ctxgrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    opt, topt = Adam(ours.parameters(), lr=0.05), torch.optim.Adam(theirs.parameters(), lr=0.05)
    sched = lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    tsched = torch.optim.lr_scheduler.StepLR(topt, step_size=3, gamma=0.5)
    for _ in range(6):
        for model, optimizer, scheduler, lib in ((ours, opt, sched, ctxgrad), (theirs, topt, tsched, torch)):
            optimizer.zero_grad()
            ((model(lib.tensor(X)).squeeze(-1) - lib.tensor(Y)) ** 2).mean().backward()
            optimizer.step()
            scheduler.step()
    for (name, p), (tname, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        assert name == tname
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-11, atol=1e-12)

    buffer = io.BytesIO()
    ctxgrad.save({"model": ours.state_dict(), "optim": opt.state_dict(), "sched": sched.state_dict()}, buffer)
    buffer.seek(0)
    checkpoint = ctxgrad.load(buffer)
    restored = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)).double()
    restored.load_state_dict(checkpoint["model"])
    opt2 = Adam(restored.parameters())
    opt2.load_state_dict(checkpoint["optim"])
    sched2 = lr_scheduler.StepLR(opt2, step_size=1)
    sched2.load_state_dict(checkpoint["sched"])
    assert sched2.get_last_lr() == sched.get_last_lr() == [0.0125]
    for p, q in zip(restored.parameters(), ours.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_complex_parameters(torch: Any) -> None:
    """SGD's update is linear, so it works on complex tensors as torch's does; Adam and RMSprop
    (which square gradients) refuse them."""
    w, tw = ctxgrad.tensor([1 + 1j], requires_grad=True), torch.tensor([1 + 1j], requires_grad=True)
    opt, topt = SGD([w], lr=0.1, momentum=0.9), torch.optim.SGD([tw], lr=0.1, momentum=0.9)
    for _ in range(2):
        w.grad, tw.grad = ctxgrad.tensor([1 - 2j]), torch.tensor([1 - 2j])
        opt.step()
        topt.step()
    np.testing.assert_allclose(w.detach().numpy(), tw.detach().numpy(), rtol=1e-6)
    for cls in (Adam, RMSprop):
        z = ctxgrad.tensor([1j], requires_grad=True)
        z.grad = ctxgrad.tensor([1j])
        with pytest.raises(NotImplementedError, match=f"{cls.__name__} does not support complex parameters"):
            cls([z]).step()
