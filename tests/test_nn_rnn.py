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


# --------------------------------------------------------------------------- packed sequences
def test_pack_and_pad_match_torch(torch: Any) -> None:
    from ctxgrad.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence

    data = randn(4, 3, 2)
    for enforce, lengths in ((False, [2, 4, 1]), (True, [4, 2, 1])):
        ours = pack_padded_sequence(ctxgrad.tensor(data), ctxgrad.tensor(lengths), enforce_sorted=enforce)
        theirs = torch.nn.utils.rnn.pack_padded_sequence(
            torch.tensor(data), torch.tensor(lengths), enforce_sorted=enforce
        )
        np.testing.assert_array_equal(ours.data.numpy(), theirs.data.numpy())
        assert ours.batch_sizes.tolist() == theirs.batch_sizes.tolist()
        for a, b in ((ours.sorted_indices, theirs.sorted_indices), (ours.unsorted_indices, theirs.unsorted_indices)):
            assert (a is None and b is None) or a.tolist() == b.tolist()
        for batch_first, total in ((False, None), (True, 6)):
            c_pad, c_len = pad_packed_sequence(ours, batch_first=batch_first, padding_value=-1.0, total_length=total)
            t_pad, t_len = torch.nn.utils.rnn.pad_packed_sequence(
                theirs, batch_first=batch_first, padding_value=-1.0, total_length=total
            )
            np.testing.assert_array_equal(c_pad.numpy(), t_pad.numpy())
            assert c_len.tolist() == t_len.tolist()
    seqs = [randn(3, 2), randn(2, 2)]
    packed = pack_sequence([ctxgrad.tensor(s) for s in seqs])
    assert packed.batch_sizes.tolist() == [2, 2, 1]
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        pack_padded_sequence(ctxgrad.tensor(data), [2, 4, 1])
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest sequence"):
        pad_packed_sequence(packed, total_length=2)


@pytest.mark.parametrize("name", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}], ids=str)
@pytest.mark.parametrize("with_state", [False, True])
def test_layers_on_packed_sequences_match_torch(
    torch: Any, name: str, kwargs: dict[str, Any], with_state: bool
) -> None:
    from ctxgrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    c_mod, t_mod = twins(torch, name, 3, 4, **kwargs)
    data, lengths = randn(5, 3, 3), [3, 5, 2]
    states = (2 if kwargs.get("bidirectional") else 1) * kwargs.get("num_layers", 1)
    extra = [randn(states, 3, 4) for _ in range(2 if name == "LSTM" else 1)] if with_state else []
    c_in = [ctxgrad.tensor(a, requires_grad=True) for a in [data, *extra]]
    t_in = [torch.tensor(a, requires_grad=True) for a in [data, *extra]]

    def run(lib: Any, mod: Any, inputs: list[Any], pack: Any, pad: Any) -> list[Any]:
        packed = pack(inputs[0], lib.tensor(lengths), enforce_sorted=False)
        hx = None if not with_state else ((inputs[1], inputs[2]) if name == "LSTM" else inputs[1])
        out, h = mod(packed, hx)
        padded, _ = pad(out)
        return [padded, *(h if isinstance(h, tuple) else (h,))]

    ours = run(ctxgrad, c_mod, c_in, pack_padded_sequence, pad_packed_sequence)
    theirs = run(torch, t_mod, t_in, torch.nn.utils.rnn.pack_padded_sequence, torch.nn.utils.rnn.pad_packed_sequence)
    c_total, t_total = 0, 0
    for c, t in zip(ours, theirs):
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-11, atol=1e-13)
        up = randn(*t.shape)
        c_total = c_total + (c * ctxgrad.tensor(up)).sum()
        t_total = t_total + (t * torch.tensor(up)).sum()
    c_total.backward()
    t_total.backward()
    for c, t in zip(c_in, t_in):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (pname, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=pname)
