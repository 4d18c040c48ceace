"""ctxgrad.nn.init against torch: gains, fans, bounds and spreads of each initialiser, the
default initialisation of each layer, in-place and unrecorded filling, seeding, and errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn
from ctxgrad.nn import init


@pytest.mark.parametrize(
    ("nonlinearity", "param"),
    [
        ("linear", None),
        ("conv1d", None),
        ("conv2d", None),
        ("conv3d", None),
        ("conv_transpose1d", None),
        ("conv_transpose2d", None),
        ("conv_transpose3d", None),
        ("sigmoid", None),
        ("tanh", None),
        ("relu", None),
        ("leaky_relu", None),
        ("leaky_relu", 0.2),
        ("leaky_relu", math.sqrt(5)),
        ("selu", None),
    ],
)
def test_calculate_gain_matches_torch(torch: Any, nonlinearity: str, param: float | None) -> None:
    ours, theirs = init.calculate_gain(nonlinearity, param), torch.nn.init.calculate_gain(nonlinearity, param)
    assert ours == pytest.approx(theirs)
    assert type(ours) is type(theirs)  # torch's int 1 for the linear layers and sigmoid, floats elsewhere


def test_calculate_gain_errors(torch: Any) -> None:
    with pytest.raises(ValueError, match="Unsupported nonlinearity swish"):
        init.calculate_gain("swish")
    with pytest.raises(ValueError, match="Unsupported nonlinearity swish"):
        torch.nn.init.calculate_gain("swish")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)  # type: ignore[arg-type]


@pytest.mark.parametrize("shape", [(3, 4), (8, 3, 5), (6, 2, 3, 3)])
def test_fans_match_torch(torch: Any, shape: tuple[int, ...]) -> None:
    ours = init._calculate_fan_in_and_fan_out(ctxgrad.empty(*shape))
    assert ours == torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))


def test_fans_need_two_dimensions(torch: Any) -> None:
    msg = "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
    with pytest.raises(ValueError, match=msg):
        init.xavier_uniform_(ctxgrad.empty(5))
    with pytest.raises(ValueError, match=msg):
        torch.nn.init.xavier_uniform_(torch.empty(5))


def test_kaiming_mode_error() -> None:
    with pytest.raises(ValueError, match="Mode fan_avg not supported, please use one of fan_in, fan_out"):
        init.kaiming_uniform_(ctxgrad.empty(3, 3), mode="fan_avg")


SHAPE = (200, 150)
FAN_IN, FAN_OUT = 150, 200


@pytest.mark.parametrize(
    ("name", "kwargs", "bound", "std"),
    [
        ("uniform_", {"a": -2.0, "b": 3.0}, (-2.0, 3.0), 5 / math.sqrt(12)),
        ("normal_", {"mean": 1.0, "std": 0.5}, None, 0.5),
        ("xavier_uniform_", {"gain": 2.0}, 2.0 * math.sqrt(6 / (FAN_IN + FAN_OUT)), None),
        ("xavier_normal_", {}, None, math.sqrt(2 / (FAN_IN + FAN_OUT))),
        ("kaiming_uniform_", {"a": math.sqrt(5)}, 1 / math.sqrt(FAN_IN), None),
        ("kaiming_uniform_", {"mode": "fan_out", "nonlinearity": "relu"}, math.sqrt(6 / FAN_OUT), None),
        ("kaiming_normal_", {"nonlinearity": "relu"}, None, math.sqrt(2 / FAN_IN)),
        ("trunc_normal_", {"std": 2.0, "a": -1.0, "b": 1.5}, (-1.0, 1.5), None),
    ],
)
def test_distribution_bounds_and_spread(torch: Any, name: str, kwargs: dict[str, Any], bound: Any, std: Any) -> None:
    ours = getattr(init, name)(ctxgrad.empty(*SHAPE, dtype=ctxgrad.float64), **kwargs).numpy()
    theirs = getattr(torch.nn.init, name)(torch.empty(*SHAPE, dtype=torch.float64), **kwargs).numpy()
    for values in (ours, theirs):
        if bound is not None:
            lo, hi = bound if isinstance(bound, tuple) else (-bound, bound)
            assert values.min() >= lo and values.max() <= hi
            assert values.min() < lo + 0.05 * (hi - lo) and values.max() > hi - 0.05 * (hi - lo)
        if std is not None:
            assert values.std() == pytest.approx(std, rel=0.03)
    assert ours.mean() == pytest.approx(theirs.mean(), abs=0.05 * (ours.std() + 1e-3))
    assert ours.std() == pytest.approx(theirs.std(), rel=0.03)


def test_init_fills_in_place_without_recording() -> None:
    p = nn.Parameter(ctxgrad.zeros(3, 4))
    version = p._version
    out = init.uniform_(p)
    assert out is p and p.grad_fn is None and p.requires_grad and p._version > version
    assert init.constant_(p, 0.5).tolist() == [[0.5] * 4] * 3
    assert init.ones_(p).sum().item() == 12 and init.zeros_(p).sum().item() == 0
    assert init.eye_(p).tolist()[1] == [0.0, 1.0, 0.0, 0.0]


def test_init_is_seeded_by_manual_seed() -> None:
    ctxgrad.manual_seed(7)
    a = init.normal_(ctxgrad.empty(5))
    ctxgrad.manual_seed(7)
    b = init.normal_(ctxgrad.empty(5))
    assert a.tolist() == b.tolist()
    rng = np.random.default_rng(3)
    c = init.uniform_(ctxgrad.empty(4), generator=rng).tolist()
    assert c == init.uniform_(ctxgrad.empty(4), generator=np.random.default_rng(3)).tolist()


def _bound_and_spread(t: Any) -> tuple[float, float]:
    values = np.asarray(t.detach().numpy(), dtype=np.float64)
    return float(np.abs(values).max()), float(values.std())


@pytest.mark.parametrize(
    ("name", "args"),
    [("Linear", (120, 80)), ("Conv2d", (6, 40, 3)), ("Conv1d", (10, 60, 5)), ("Bilinear", (30, 20, 50))],
)
def test_default_layer_init_matches_torch_distribution(torch: Any, name: str, args: tuple[int, ...]) -> None:
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    fan_in = math.prod(theirs.weight.shape[1:]) if name != "Bilinear" else theirs.weight.shape[1]
    bound = 1 / math.sqrt(fan_in)
    for param in ("weight", "bias"):
        (o_max, o_std), (t_max, t_std) = (
            _bound_and_spread(getattr(ours, param)),
            _bound_and_spread(getattr(theirs, param)),
        )
        assert o_max <= bound + 1e-7 and t_max <= bound + 1e-7
        assert o_max > 0.8 * bound
        tolerance = 0.05 if param == "weight" else 0.35
        assert o_std == pytest.approx(bound / math.sqrt(3), rel=tolerance)
        assert o_std == pytest.approx(t_std, rel=2 * tolerance)


def test_default_embedding_and_norm_init(torch: Any) -> None:
    emb = nn.Embedding(300, 40, padding_idx=3)
    values = emb.weight.detach().numpy()
    assert values.std() == pytest.approx(1.0, rel=0.05) and not values[3].any()
    bn, ln = nn.BatchNorm1d(4), nn.LayerNorm(4)
    for module in (bn, ln):
        assert module.weight.tolist() == [1.0] * 4 and module.bias.tolist() == [0.0] * 4
    assert bn.running_mean.tolist() == [0.0] * 4 and bn.running_var.tolist() == [1.0] * 4
    assert bn.num_batches_tracked.item() == 0 and bn.num_batches_tracked.dtype == ctxgrad.int64


def test_reset_parameters_redraws() -> None:
    lin = nn.Linear(10, 10)
    before = lin.weight.detach().numpy().copy()
    lin.reset_parameters()
    assert not np.array_equal(before, lin.weight.detach().numpy())
