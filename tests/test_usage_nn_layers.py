"""The nn layers that public torch code uses most (torch-usage.tsv): each built on torch, its
parameters copied into ctxgrad's layer of the same name, and the output and the gradients of
the input and of every parameter compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _usage import assert_same, torch_names

import ctxgrad


def run_layer(m: Any, layer: Any, inputs: list[np.ndarray], out_index: int | None = None) -> Any:
    """The layer's output, the gradient of each input and of each parameter (by name)."""
    xs = [m.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    out = layer(*xs)
    if out_index is not None:
        out = out[out_index]
    w = m.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(tuple(out.shape)), dtype=out.dtype)
    (out * w).sum().backward()
    params = {name: p.grad for name, p in layer.named_parameters()}
    return out, [x.grad for x in xs], params


def check_layer(torch: Any, make: Any, *shapes: tuple[int, ...], out_index: int | None = None, ints: int = 0) -> None:
    """``make(m)`` on both libraries, torch's parameters and buffers loaded into ctxgrad's."""
    torch.manual_seed(0)
    theirs = make(torch).double()
    ours = make(ctxgrad).double()
    ours.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s) if not ints else rng.integers(0, ints, s) for s in shapes]
    assert_same(run_layer(ctxgrad, ours, inputs, out_index), run_layer(torch, theirs, inputs, out_index), 1e-7, 1e-9)


LAYERS = [
    pytest.param(lambda m: m.nn.Linear(4, 3), (2, 4), marks=torch_names("torch.nn.Linear", "torch.nn"), id="Linear"),
    pytest.param(
        lambda m: m.nn.Sequential(m.nn.Linear(4, 5), m.nn.ReLU(), m.nn.Linear(5, 2)),
        (3, 4),
        marks=torch_names("torch.nn.Sequential", "torch.nn.ReLU"),
        id="Sequential",
    ),
    pytest.param(
        lambda m: m.nn.Conv2d(2, 3, 3, padding=1), (1, 2, 5, 5), marks=torch_names("torch.nn.Conv2d"), id="Conv2d"
    ),
    pytest.param(
        lambda m: m.nn.Conv1d(2, 3, 3, stride=2), (2, 2, 7), marks=torch_names("torch.nn.Conv1d"), id="Conv1d"
    ),
    pytest.param(lambda m: m.nn.Conv3d(1, 2, 2), (1, 1, 3, 3, 3), marks=torch_names("torch.nn.Conv3d"), id="Conv3d"),
    pytest.param(
        lambda m: m.nn.ConvTranspose2d(2, 3, 3, stride=2),
        (1, 2, 3, 3),
        marks=torch_names("torch.nn.ConvTranspose2d"),
        id="ConvTranspose2d",
    ),
    pytest.param(lambda m: m.nn.LayerNorm(4), (3, 4), marks=torch_names("torch.nn.LayerNorm"), id="LayerNorm"),
    pytest.param(
        lambda m: m.nn.BatchNorm2d(2), (3, 2, 2, 2), marks=torch_names("torch.nn.BatchNorm2d"), id="BatchNorm2d"
    ),
    pytest.param(lambda m: m.nn.BatchNorm1d(3), (4, 3), marks=torch_names("torch.nn.BatchNorm1d"), id="BatchNorm1d"),
    pytest.param(lambda m: m.nn.GroupNorm(2, 4), (2, 4, 3), marks=torch_names("torch.nn.GroupNorm"), id="GroupNorm"),
    pytest.param(
        lambda m: m.nn.InstanceNorm2d(2, affine=True),
        (2, 2, 3, 3),
        marks=torch_names("torch.nn.InstanceNorm2d"),
        id="InstanceNorm2d",
    ),
    pytest.param(lambda m: m.nn.Sigmoid(), (2, 3), marks=torch_names("torch.nn.Sigmoid"), id="Sigmoid"),
    pytest.param(lambda m: m.nn.Tanh(), (2, 3), marks=torch_names("torch.nn.Tanh"), id="Tanh"),
    pytest.param(lambda m: m.nn.GELU(), (2, 3), marks=torch_names("torch.nn.GELU"), id="GELU"),
    pytest.param(lambda m: m.nn.LeakyReLU(0.2), (2, 3), marks=torch_names("torch.nn.LeakyReLU"), id="LeakyReLU"),
    pytest.param(lambda m: m.nn.SiLU(), (2, 3), marks=torch_names("torch.nn.SiLU"), id="SiLU"),
    pytest.param(lambda m: m.nn.Softmax(dim=1), (2, 3), marks=torch_names("torch.nn.Softmax"), id="Softmax"),
    pytest.param(lambda m: m.nn.LogSoftmax(dim=-1), (2, 3), marks=torch_names("torch.nn.LogSoftmax"), id="LogSoftmax"),
    pytest.param(lambda m: m.nn.ELU(), (2, 3), marks=torch_names("torch.nn.ELU"), id="ELU"),
    pytest.param(lambda m: m.nn.PReLU(), (2, 3), marks=torch_names("torch.nn.PReLU"), id="PReLU"),
    pytest.param(lambda m: m.nn.Softplus(beta=2.0), (2, 3), marks=torch_names("torch.nn.Softplus"), id="Softplus"),
    pytest.param(lambda m: m.nn.Hardswish(), (2, 5), marks=torch_names("torch.nn.Hardswish"), id="Hardswish"),
    pytest.param(lambda m: m.nn.LogSigmoid(), (2, 3), marks=torch_names("torch.nn.LogSigmoid"), id="LogSigmoid"),
    pytest.param(lambda m: m.nn.ReLU6(), (2, 3), marks=torch_names("torch.nn.ReLU6"), id="ReLU6"),
    pytest.param(lambda m: m.nn.GLU(), (2, 4), marks=torch_names("torch.nn.GLU"), id="GLU"),
    pytest.param(lambda m: m.nn.Identity(), (2, 3), marks=torch_names("torch.nn.Identity"), id="Identity"),
    pytest.param(lambda m: m.nn.Flatten(), (2, 3, 2), marks=torch_names("torch.nn.Flatten"), id="Flatten"),
    pytest.param(lambda m: m.nn.AvgPool2d(2), (1, 2, 4, 4), marks=torch_names("torch.nn.AvgPool2d"), id="AvgPool2d"),
    pytest.param(lambda m: m.nn.AvgPool1d(2), (1, 2, 4), marks=torch_names("torch.nn.AvgPool1d"), id="AvgPool1d"),
    pytest.param(lambda m: m.nn.AvgPool3d(2), (1, 1, 4, 4, 4), marks=torch_names("torch.nn.AvgPool3d"), id="AvgPool3d"),
    pytest.param(lambda m: m.nn.MaxPool2d(2), (1, 2, 4, 4), marks=torch_names("torch.nn.MaxPool2d"), id="MaxPool2d"),
    pytest.param(
        lambda m: m.nn.MaxPool1d(3, stride=2), (1, 2, 7), marks=torch_names("torch.nn.MaxPool1d"), id="MaxPool1d"
    ),
    pytest.param(lambda m: m.nn.MaxPool3d(2), (1, 1, 4, 4, 4), marks=torch_names("torch.nn.MaxPool3d"), id="MaxPool3d"),
    pytest.param(
        lambda m: m.nn.AdaptiveAvgPool2d((2, 1)),
        (1, 2, 5, 4),
        marks=torch_names("torch.nn.AdaptiveAvgPool2d"),
        id="AdaptiveAvgPool2d",
    ),
    pytest.param(
        lambda m: m.nn.AdaptiveMaxPool2d(2),
        (1, 2, 5, 4),
        marks=torch_names("torch.nn.AdaptiveMaxPool2d"),
        id="AdaptiveMaxPool2d",
    ),
    pytest.param(
        lambda m: m.nn.Upsample(scale_factor=2, mode="nearest"),
        (1, 1, 2, 3),
        marks=torch_names("torch.nn.Upsample"),
        id="Upsample",
    ),
    pytest.param(
        lambda m: m.nn.PixelShuffle(2), (1, 4, 2, 3), marks=torch_names("torch.nn.PixelShuffle"), id="PixelShuffle"
    ),
    pytest.param(lambda m: m.nn.Unfold(2), (1, 2, 3, 4), marks=torch_names("torch.nn.Unfold"), id="Unfold"),
    pytest.param(
        lambda m: m.nn.ZeroPad2d((1, 0, 2, 1)), (1, 1, 2, 3), marks=torch_names("torch.nn.ZeroPad2d"), id="ZeroPad2d"
    ),
    pytest.param(
        lambda m: m.nn.ReflectionPad2d(1),
        (1, 1, 3, 3),
        marks=torch_names("torch.nn.ReflectionPad2d"),
        id="ReflectionPad2d",
    ),
    pytest.param(lambda m: m.nn.Dropout(0.3).eval(), (2, 3), marks=torch_names("torch.nn.Dropout"), id="Dropout-eval"),
    pytest.param(
        lambda m: m.nn.Dropout2d(0.3).eval(), (1, 2, 2, 2), marks=torch_names("torch.nn.Dropout2d"), id="Dropout2d-eval"
    ),
    pytest.param(lambda m: m.nn.GRUCell(3, 4), (2, 3), marks=torch_names("torch.nn.GRUCell"), id="GRUCell"),
]


@pytest.mark.parametrize(("make", "shape"), LAYERS)
def test_layer_output_and_gradients_match_torch(torch: Any, make: Any, shape: tuple[int, ...]) -> None:
    check_layer(torch, make, shape)


@torch_names("torch.nn.LSTMCell")
def test_lstm_cell_matches_torch(torch: Any) -> None:
    check_layer(torch, lambda m: m.nn.LSTMCell(3, 4), (2, 3), out_index=0)
    check_layer(torch, lambda m: m.nn.LSTMCell(3, 4), (2, 3), out_index=1)


RECURRENT = [
    pytest.param(
        lambda m: m.nn.LSTM(3, 4, num_layers=2, batch_first=True), marks=torch_names("torch.nn.LSTM"), id="LSTM"
    ),
    pytest.param(lambda m: m.nn.GRU(3, 4, bidirectional=True), marks=torch_names("torch.nn.GRU"), id="GRU"),
    pytest.param(lambda m: m.nn.RNN(3, 4, nonlinearity="tanh"), marks=torch_names("torch.nn.RNN"), id="RNN"),
]


@pytest.mark.parametrize("make", RECURRENT)
def test_recurrent_layers_match_torch(torch: Any, make: Any) -> None:
    check_layer(torch, make, (2, 5, 3), out_index=0)


@torch_names("torch.nn.Embedding")
def test_embedding_matches_torch(torch: Any) -> None:
    check_layer(torch, lambda m: m.nn.Embedding(6, 3, padding_idx=0), (2, 4), ints=6)


@torch_names("torch.nn.MultiheadAttention")
def test_multihead_attention_matches_torch(torch: Any) -> None:
    def make(m: Any) -> Any:
        class SelfAttention(m.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.attention = m.nn.MultiheadAttention(4, 2, batch_first=True)

            def forward(self, x: Any) -> Any:
                return self.attention(x, x, x)[0]

        return SelfAttention()

    check_layer(torch, make, (2, 3, 4))


LOSSES = [
    pytest.param(lambda m: m.nn.MSELoss(), marks=torch_names("torch.nn.MSELoss"), id="MSELoss"),
    pytest.param(lambda m: m.nn.L1Loss(reduction="sum"), marks=torch_names("torch.nn.L1Loss"), id="L1Loss"),
    pytest.param(
        lambda m: m.nn.BCEWithLogitsLoss(), marks=torch_names("torch.nn.BCEWithLogitsLoss"), id="BCEWithLogitsLoss"
    ),
]


@pytest.mark.parametrize("make", LOSSES)
def test_regression_losses_match_torch(torch: Any, make: Any) -> None:
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((3, 4)), rng.uniform(0, 1, (3, 4))

    def run(m: Any) -> Any:
        xt = m.tensor(x, requires_grad=True)
        loss = make(m)(xt, m.tensor(y))
        loss.backward()
        return loss, xt.grad

    assert_same(run(ctxgrad), run(torch))


@torch_names("torch.nn.BCELoss", "torch.nn.CrossEntropyLoss", "torch.nn.NLLLoss")
def test_classification_losses_match_torch(torch: Any) -> None:
    rng = np.random.default_rng(2)
    logits, p, y = rng.standard_normal((4, 3)), rng.uniform(0.05, 0.95, (4, 3)), np.array([0, 2, 1, 2])

    def run(m: Any) -> Any:
        a, b = m.tensor(logits, requires_grad=True), m.tensor(p, requires_grad=True)
        ce = m.nn.CrossEntropyLoss(label_smoothing=0.1)(a, m.tensor(y))
        nll = m.nn.NLLLoss()(a.log_softmax(-1), m.tensor(y))
        bce = m.nn.BCELoss()(b, m.tensor((p > 0.5).astype(np.float64)))
        (ce + 2 * nll + 3 * bce).backward()
        return ce, nll, bce, a.grad, b.grad

    assert_same(run(ctxgrad), run(torch))
