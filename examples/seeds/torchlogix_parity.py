"""torchlogix-style: a soft logic-gate network learns 4-bit parity, with GradFactor declared.

torchlogix (difflogic) trains circuits of two-input logic gates: each neuron mixes the 16
relaxed gates with softmax weights, and after training keeps its most likely gate. Between
layers it puts ``GradFactor``, an op whose forward is the identity and whose backward
multiplies the gradient by a factor, so that deep gate networks keep learning. That gradient
is *not* the derivative of the forward on purpose: a surrogate. ``ctxgrad check`` would call
it "off by a constant factor"; declared (``surrogate_gradient = "why"`` on the class, or
``@ctxgrad.checks.surrogate("why")``), the checker reports it as declared, with the reason,
and runs every other check.

The network, its layers and GradFactor come from ``examples/logic_gates.py`` (imported, not
copied). The task here is 4-bit parity, ``x0 XOR x1 XOR x2 XOR x3``, on all 16 inputs.
Run it: ``python examples/seeds/torchlogix_parity.py``; it exits 0 when the discretised
circuit gets all 16 inputs right and the checker accepts the declared GradFactor.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # examples/: logic_gates.py

from logic_gates import GradFactor, LogicLayer, group_sum

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.checks import check_function


def main() -> None:
    rng = np.random.default_rng(0)
    inputs = np.array(list(itertools.product([0.0, 1.0], repeat=4)), dtype=np.float32)
    labels = (inputs.sum(axis=1) % 2).astype(np.int64)  # parity
    x, y = ctxgrad.as_tensor(inputs), ctxgrad.as_tensor(labels)

    layers = [LogicLayer(4, 64, rng, 1.0), LogicLayer(64, 64, rng, 2.0), LogicLayer(64, 32, rng, 2.0)]
    optimizer = ctxgrad.optim.Adam([layer.weights for layer in layers], lr=0.05)

    def net(x: Tensor, hard: bool = False) -> Tensor:
        for layer in layers:
            x = layer(x, hard)
        return group_sum(x, classes=2, tau=4.0)

    first = last = 0.0
    for step in range(STEPS):
        loss = ctxgrad.nn.functional.cross_entropy(net(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 100 == 0 or step == STEPS - 1:
            print(f"step {step:3d}  loss {loss.item():.4f}")
            first = first or loss.item()
            last = loss.item()
    with ctxgrad.no_grad():
        predicted = net(x, hard=True).argmax(-1)
    accuracy = float((predicted == y).float().mean().item())
    print(f"accuracy of the discretised circuit on 4-bit parity: {accuracy:.0%} of the 16 inputs")

    report = check_function(GradFactor)  # its example_inputs(); the CLI does the same
    print(report)
    statuses = {check.name: check.status for check in report.checks}
    assert report.ok, report
    assert statuses["gradient"] == "declared", statuses
    assert statuses["backward-returns"] == "pass" and statuses["determinism"] == "pass", statuses
    assert last < first / 2, (first, last)
    assert accuracy == 1.0, accuracy


STEPS = 401

if __name__ == "__main__":
    main()
