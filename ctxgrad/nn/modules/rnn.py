"""Recurrent layers: ``RNN``, ``LSTM`` and ``GRU`` (stacked, optionally bidirectional) and their
single-step cells, with torch's parameter names, shapes, initialisation and equations.  Each
step is composed of ``linear`` and pointwise ops, so gradients (through time), double
backward and forward mode come from those ops.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> lstm = nn.LSTM(3, 5, num_layers=2, batch_first=True)
>>> out, (h, c) = lstm(ctxgrad.randn(4, 7, 3))
>>> tuple(out.shape), tuple(h.shape), tuple(c.shape)
((4, 7, 5), (2, 4, 5), (2, 4, 5))
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

from ctxgrad._factories import empty, zeros
from ctxgrad._made_functions import stack
from ctxgrad._tensor import Tensor
from ctxgrad.nn import functional as F
from ctxgrad.nn import init
from ctxgrad.nn.modules.module import Module
from ctxgrad.nn.parameter import Parameter

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCell", "RNNBase", "RNNCellBase"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_step(mode: str, x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any, b_hh: Any) -> Tensor:
    """One step of a plain RNN: ``act(x W_ih^T + b_ih + h W_hh^T + b_hh)``."""
    pre = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    return pre.tanh() if mode == "RNN_TANH" else pre.relu()


def _lstm_step(
    x: Tensor, h: Tensor, c: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any, b_hh: Any
) -> tuple[Tensor, Tensor]:
    """One LSTM step: input, forget, cell and output gates, then ``c' = f c + i g``, ``h' = o tanh(c')``."""
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, -1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c_next.tanh(), c_next


def _gru_step(x: Tensor, h: Tensor, w_ih: Tensor, w_hh: Tensor, b_ih: Any, b_hh: Any) -> Tensor:
    """One GRU step: reset and update gates, ``n = tanh(i_n + r (W_hn h + b_hn))``, ``h' = (1 - z) n + z h``."""
    i_r, i_z, i_n = F.linear(x, w_ih, b_ih).chunk(3, -1)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, -1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (1 - z) * n + z * h


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the stacked, optionally bidirectional parameters
    (``weight_ih_l{k}[_reverse]``, ...), their initialisation U(-1/√hidden, 1/√hidden), the
    loop over layers, directions and time, and the repr."""

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
                f"num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                stacklevel=3,
            )
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")
        if proj_size:
            raise NotImplementedError("ctxgrad.nn.LSTM: proj_size is not supported")
        gate_size = _GATES[mode] * hidden_size
        directions = 2 if bidirectional else 1
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else hidden_size * directions
                suffix = "_reverse" if direction == 1 else ""
                names = [f"weight_ih_l{layer}{suffix}", f"weight_hh_l{layer}{suffix}"]
                shapes: list[tuple[int, ...]] = [(gate_size, layer_input), (gate_size, hidden_size)]
                if bias:
                    names += [f"bias_ih_l{layer}{suffix}", f"bias_hh_l{layer}{suffix}"]
                    shapes += [(gate_size,), (gate_size,)]
                for name, shape in zip(names, shapes):
                    setattr(self, name, Parameter(empty(shape, dtype=dtype, device=device)))
                self._flat_weights_names.extend(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter from U(-1/√hidden_size, 1/√hidden_size)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _layer_params(self, layer: int, direction: int) -> tuple[Any, ...]:
        suffix = "_reverse" if direction == 1 else ""
        names = ["weight_ih", "weight_hh", "bias_ih", "bias_hh"] if self.bias else ["weight_ih", "weight_hh"]
        params = tuple(getattr(self, f"{n}_l{layer}{suffix}") for n in names)
        return params if self.bias else (*params, None, None)

    def _hidden_shape(self, batch: int, unbatched: bool) -> tuple[int, ...]:
        layers = self.num_layers * (2 if self.bidirectional else 1)
        return (layers, self.hidden_size) if unbatched else (layers, batch, self.hidden_size)

    def _check_hidden(self, hx: Tensor, expected: tuple[int, ...], what: str = "hidden") -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _run(self, input: Tensor, states: list[Tensor]) -> tuple[Tensor, list[Tensor]]:
        """The stacked recurrence over ``(L, N, H_in)`` input from the initial ``states`` (one
        ``(layers * directions, N, H)`` tensor, two for LSTM); returns the output and final states."""
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.shape[-1]}"
            )
        directions = 2 if self.bidirectional else 1
        layer_input = input
        finals: list[list[Tensor]] = [[] for _ in states]
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                carry = [s[index] for s in states]
                w_ih, w_hh, b_ih, b_hh = self._layer_params(layer, direction)
                steps = range(layer_input.shape[0])
                produced: list[Tensor] = []
                for t in reversed(steps) if direction == 1 else steps:
                    carry = self._cell(layer_input[t], carry, (w_ih, w_hh, b_ih, b_hh))
                    produced.append(carry[0])
                if direction == 1:
                    produced.reverse()
                outputs.append(stack(produced, 0))
                for final, value in zip(finals, carry):
                    final.append(value)
            layer_input = outputs[0] if directions == 1 else _cat(outputs)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, [stack(f, 0) for f in finals]

    def _cell(self, x: Tensor, carry: list[Tensor], params: tuple[Any, ...]) -> list[Tensor]:
        """One time step of this layer's kind: the new hidden state (and cell state, LSTM)."""
        w_ih, w_hh, b_ih, b_hh = params
        if self.mode == "LSTM":
            return list(_lstm_step(x, carry[0], carry[1], w_ih, w_hh, b_ih, b_hh))
        if self.mode == "GRU":
            return [_gru_step(x, carry[0], w_ih, w_hh, b_ih, b_hh)]
        return [_rnn_step(self.mode, x, carry[0], w_ih, w_hh, b_ih, b_hh)]

    def _forward_packed(self, packed: Any, hx: Any) -> tuple[Any, Any]:
        """The recurrence over a :class:`~ctxgrad.nn.utils.rnn.PackedSequence`: at step ``t`` only
        the first ``batch_sizes[t]`` sequences advance; the others keep their last state."""
        from ctxgrad._made_functions import cat
        from ctxgrad.nn.utils.rnn import PackedSequence

        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = [int(b) for b in batch_sizes.tolist()]
        offsets = [0]
        for b in sizes:
            offsets.append(offsets[-1] + b)
        batch = sizes[0]
        expected = self._hidden_shape(batch, False)
        if hx is None:
            states = [zeros(expected, dtype=data.dtype) for _ in range(2 if self.mode == "LSTM" else 1)]
        else:
            given = list(hx) if self.mode == "LSTM" else [hx]
            names = ["hidden[0]", "hidden[1]"] if self.mode == "LSTM" else ["hidden"]
            for value, what in zip(given, names):
                self._check_hidden(value, expected, what)
            states = [g.index_select(1, sorted_indices) if sorted_indices is not None else g for g in given]
        if data.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {data.shape[-1]}"
            )
        directions = 2 if self.bidirectional else 1
        layer_input = data
        finals: list[list[Tensor]] = [[] for _ in states]
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                carry = [st[index] for st in states]
                params = self._layer_params(layer, direction)
                pieces: list[Tensor | None] = [None] * len(sizes)
                order = range(len(sizes) - 1, -1, -1) if direction == 1 else range(len(sizes))
                for t in order:
                    b = sizes[t]
                    active = self._cell(layer_input[offsets[t] : offsets[t + 1]], [c[:b] for c in carry], params)
                    pieces[t] = active[0]
                    carry = [n if b == c.shape[0] else cat([n, c[b:]], 0) for n, c in zip(active, carry)]
                outputs.append(cat([p for p in pieces if p is not None], 0))
                for final, value in zip(finals, carry):
                    final.append(value)
            layer_input = outputs[0] if directions == 1 else _cat(outputs)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        hidden = [stack(f, 0) for f in finals]
        if unsorted_indices is not None:
            hidden = [h.index_select(1, unsorted_indices) for h in hidden]
        out = PackedSequence(layer_input, batch_sizes, sorted_indices, unsorted_indices)
        if self.mode == "LSTM":
            return out, (hidden[0], hidden[1])
        return out, hidden[0]

    def forward(self, input: Any, hx: Any = None) -> tuple[Any, Any]:
        if type(input).__name__ == "PackedSequence":
            return self._forward_packed(input, hx)
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        unbatched = input.ndim == 2
        x = input.unsqueeze(1) if unbatched else (input.transpose(0, 1) if self.batch_first else input)
        batch = x.shape[1]
        expected = self._hidden_shape(batch, unbatched)
        count = 2 if self.mode == "LSTM" else 1
        if hx is None:
            states = [zeros(self._hidden_shape(batch, False), dtype=input.dtype) for _ in range(count)]
        else:
            given = list(hx) if self.mode == "LSTM" else [hx]
            names = ["hidden[0]", "hidden[1]"] if self.mode == "LSTM" else ["hidden"]
            for value, what in zip(given, names):
                self._check_hidden(value, expected, what)
            states = [v.unsqueeze(1) if unbatched else v for v in given]
        out, finals = self._run(x, states)
        if unbatched:
            out = out.squeeze(1)
            finals = [f.squeeze(1) for f in finals]
        elif self.batch_first:
            out = out.transpose(0, 1)
        if self.mode == "LSTM":
            return out, (finals[0], finals[1])
        return out, finals[0]

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _cat(tensors: list[Tensor]) -> Tensor:
    from ctxgrad._made_functions import cat

    out: Tensor = cat(tensors, -1)
    return out


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU), stacked.

    ``forward(input, h_0=None)`` returns ``(output, h_n)``: ``output`` ``(L, N, D * H)`` (``(N,
    L, D * H)`` with ``batch_first``), ``h_n`` ``(num_layers * D, N, H)``."""

    def __init__(
        self, input_size: int, hidden_size: int, *args: Any, nonlinearity: str = "tanh", **kwargs: Any
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory, stacked: ``forward(input, (h_0, c_0)=None)`` returns ``(output,
    (h_n, c_n))``; the gates in torch's order ``i, f, g, o``."""

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", input_size, hidden_size, *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit, stacked: ``forward(input, h_0=None)`` returns ``(output, h_n)``;
    the gates in torch's order ``r, z, n``."""

    def __init__(self, input_size: int, hidden_size: int, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", input_size, hidden_size, *args, **kwargs)


class RNNCellBase(Module):
    """What the cells share: ``weight_ih``, ``weight_hh`` (and biases), initialised as the layers."""

    bias_ih: Parameter | None
    bias_hh: Parameter | None

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), dtype=dtype, device=device))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), dtype=dtype, device=device))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dtype, device=device))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dtype, device=device))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every parameter from U(-1/√hidden_size, 1/√hidden_size)."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input: Tensor, hx: Tensor | None) -> tuple[Tensor, Tensor | None, bool]:
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        h = None if hx is None else (hx.unsqueeze(0) if unbatched else hx)
        return x, h, unbatched

    def _zeros(self, x: Tensor) -> Tensor:
        return zeros((x.shape[0], self.hidden_size), dtype=x.dtype)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One step of :class:`RNN`: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU)."""

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, h, unbatched = self._prepare(input, hx)
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        out = _rnn_step(
            mode, x, self._zeros(x) if h is None else h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh
        )
        return out.squeeze(0) if unbatched else out


class LSTMCell(RNNCellBase):
    """One step of :class:`LSTM`: ``forward(input, (h, c)=None)`` returns ``(h', c')``."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        x, _, unbatched = self._prepare(input, None)
        if hx is None:
            h, c = self._zeros(x), self._zeros(x)
        else:
            h, c = (hx[0].unsqueeze(0), hx[1].unsqueeze(0)) if unbatched else hx
        h, c = _lstm_step(x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)


class GRUCell(RNNCellBase):
    """One step of :class:`GRU`: ``h' = (1 - z) n + z h``."""

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        x, h, unbatched = self._prepare(input, hx)
        out = _gru_step(
            x, self._zeros(x) if h is None else h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh
        )
        return out.squeeze(0) if unbatched else out
