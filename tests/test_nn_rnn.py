"""RNN, LSTM, GRU and their cells against torch in float64: outputs, final states and the
gradients of the input, the initial states and every parameter, over layers, directions,
batch_first, unbatched input and biases; parameter names, shapes, init range and reprs;
torch's errors; numerical second derivatives without torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(11)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def twins(torch: Any, name: str, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    t_mod = getattr(torch.nn, name)(*args, **kwargs).double()
    c_mod = getattr(nn, name)(*args, **kwargs).double()
    assert repr(c_mod) == repr(t_mod)
    c_names = [(n, tuple(p.shape)) for n, p in c_mod.named_parameters()]
    assert c_names == [(n, tuple(p.shape)) for n, p in t_mod.named_parameters()]
    bound = 1 / np.sqrt(t_mod.hidden_size)
    assert all(float(p.detach().abs().max()) <= bound for p in c_mod.parameters())
    c_mod.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()})
    return c_mod, t_mod


def flatten(out: Any) -> list[Any]:
    if isinstance(out, (tuple, list)):
        return [leaf for item in out for leaf in flatten(item)]
    return [out]


def compare(torch: Any, c_mod: Any, t_mod: Any, arrays: list[Any], structure: Any = None) -> None:
    c_in = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    pack = structure or (lambda xs: xs)
    c_out, t_out = flatten(c_mod(*pack(c_in))), flatten(t_mod(*pack(t_in)))
    c_total, t_total = 0, 0
    for c, t in zip(c_out, t_out):
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-11, atol=1e-13)
        up = randn(*t.shape)
        c_total = c_total + (c * ctxgrad.tensor(up)).sum()
        t_total = t_total + (t * torch.tensor(up)).sum()
    c_total.backward()
    t_total.backward()
    for c, t in zip(c_in, t_in):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


CONFIGS = [
    {},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
    {"bias": False},
]


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_layers_match_torch(torch: Any, name: str, kwargs: dict[str, Any]) -> None:
    c_mod, t_mod = twins(torch, name, 3, 4, **kwargs)
    shape = (2, 5, 3) if kwargs.get("batch_first") else (5, 2, 3)
    compare(torch, c_mod, t_mod, [randn(*shape)])
    states = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    if name == "LSTM":
        compare(
            torch,
            c_mod,
            t_mod,
            [randn(*shape), randn(states, 2, 4), randn(states, 2, 4)],
            lambda xs: (xs[0], (xs[1], xs[2])),
        )
    else:
        compare(torch, c_mod, t_mod, [randn(*shape), randn(states, 2, 4)])


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_unbatched_input_and_relu_rnn_match_torch(torch: Any, name: str) -> None:
    kwargs = {"nonlinearity": "relu"} if name == "RNN" else {}
    c_mod, t_mod = twins(torch, name, 3, 4, num_layers=2, **kwargs)
    compare(torch, c_mod, t_mod, [randn(6, 3)])


def test_dropout_between_layers_only_in_training() -> None:
    lstm = nn.LSTM(3, 4, num_layers=2, dropout=0.5).double()
    x = ctxgrad.tensor(randn(5, 2, 3))
    lstm.eval()
    first, second = lstm(x)[0], lstm(x)[0]
    np.testing.assert_array_equal(first.detach().numpy(), second.detach().numpy())
    lstm.train()
    ctxgrad.manual_seed(0)
    a = lstm(x)[0]
    ctxgrad.manual_seed(1)
    b = lstm(x)[0]
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}), ("LSTMCell", {}), ("GRUCell", {})],
)
@pytest.mark.parametrize("unbatched", [False, True])
def test_cells_match_torch(torch: Any, name: str, kwargs: dict[str, Any], unbatched: bool) -> None:
    c_mod, t_mod = twins(torch, name, 3, 4, **kwargs)
    x, h, c = (randn(3), randn(4), randn(4)) if unbatched else (randn(2, 3), randn(2, 4), randn(2, 4))
    compare(torch, c_mod, t_mod, [x])
    if name == "LSTMCell":
        compare(torch, c_mod, t_mod, [x, h, c], lambda xs: (xs[0], (xs[1], xs[2])))
    else:
        compare(torch, c_mod, t_mod, [x, h])


ERRORS = [
    lambda m: m.nn.LSTM(3, 4)(m.ones(2, 3, 5)),
    lambda m: m.nn.LSTMCell(3, 4)(m.ones(2, 5)),
    lambda m: m.nn.RNN(3, 4, nonlinearity="foo"),
    lambda m: m.nn.GRU(3, 4)(m.ones(5, 2, 3), m.ones(2, 2, 4)),
    lambda m: m.nn.LSTM(3, 4)(m.ones(5, 2, 3), (m.ones(1, 2, 4), m.ones(2, 2, 4))),
    lambda m: m.nn.LSTM(3, 4, dropout=1.5),
    lambda m: m.nn.LSTM(3, 4)(m.ones(2, 3, 4, 5)),
    lambda m: m.nn.LSTMCell(3, 4)(m.ones(2, 3, 3)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(ctxgrad)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
def test_numerical_first_and_second_derivatives(name: str) -> None:
    module = getattr(nn, name)(2, 3, num_layers=2, bidirectional=True).double()

    def fn(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        out: ctxgrad.Tensor = module(x)[0]
        return out

    x = ctxgrad.tensor(randn(3, 1, 2), requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
