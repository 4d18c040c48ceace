"""Define-then-run, auto_diff's way and ctxgrad.trace's: build or trace once, run many times.

1. auto_diff's API (``ctxgrad.compat.auto_diff``): define a linear regression with a
   placeholder for the data and variables for the weights, ask once for the gradients (they
   are operations of the graph), then run them by feed dicts and train by gradient descent;
   it reaches the weights an eager ctxgrad loop reaches.
2. ``ctxgrad.trace``: trace a small network's loss once, replay it every step (its Python
   does not run again); the parameters are closed over, updated in place by the optimizer,
   and the replay sees every update.

Run: ``python examples/seeds/define_then_run.py`` (exits non-zero if a check fails).
"""

from __future__ import annotations

import numpy as np

import ctxgrad
from ctxgrad.compat.auto_diff import OpPlaceholder, OpVariable

rng = np.random.default_rng(0)
X = rng.normal(size=(64, 2))
Y = X @ np.array([[2.0], [-3.0]]) + 1.0

# ---------------------------------------------------------------- 1. auto_diff
x = OpPlaceholder((None, 2), name="x")
y = OpPlaceholder((None, 1), name="y")
w = OpVariable(lambda shape: np.zeros(shape), shape=(2, 1))
b = OpVariable(np.zeros(1))
error = x.dot(w) + b - y
loss = (error * error).sum() / len(X)
print(f"graph defined: loss has shape {loss.shape}, error has shape {error.shape}")
loss.backward()  # once: each variable's .gradient is now an operation of the graph
print(f"w's gradient is the operation {w.gradient}")
feed = {x: X, "y": Y}
for _ in range(300):
    grad_w, grad_b = w.gradient.forward(feed), b.gradient.forward(feed)
    w.update(w.value - 0.1 * grad_w)
    b.update(b.value - 0.1 * grad_b)
print(f"auto_diff: w = {w.value.ravel().round(4)}, b = {b.value.round(4)}")

ew = ctxgrad.zeros(2, 1, dtype=ctxgrad.float64, requires_grad=True)
eb = ctxgrad.zeros(1, dtype=ctxgrad.float64, requires_grad=True)
for _ in range(300):
    e = ctxgrad.tensor(X) @ ew + eb - ctxgrad.tensor(Y)
    ew.grad = eb.grad = None
    ((e * e).sum() / len(X)).backward()
    with ctxgrad.no_grad():
        ew -= 0.1 * ew.grad
        eb -= 0.1 * eb.grad
assert np.allclose(w.value, ew.detach().numpy(), rtol=1e-12, atol=1e-14), "auto_diff and eager disagree"
assert np.allclose(w.value.ravel(), [2.0, -3.0], atol=1e-3) and np.allclose(b.value, [1.0], atol=1e-3)
print("auto_diff reaches the eager weights: True")

# ---------------------------------------------------------------- 2. ctxgrad.trace
ctxgrad.manual_seed(0)
model = ctxgrad.nn.Sequential(ctxgrad.nn.Linear(2, 16), ctxgrad.nn.Tanh(), ctxgrad.nn.Linear(16, 1))
model.double()
optimizer = ctxgrad.optim.SGD(model.parameters(), lr=0.05)
inputs, targets = ctxgrad.tensor(X), ctxgrad.tensor(Y)
runs = []


def step_loss(inputs: ctxgrad.Tensor, targets: ctxgrad.Tensor) -> ctxgrad.Tensor:
    runs.append(1)  # counts the times this Python code runs
    return ((model(inputs) - targets) ** 2).mean()


traced = ctxgrad.trace(step_loss, inputs, targets)
first = traced(inputs, targets).item()
for _ in range(200):
    optimizer.zero_grad()
    traced(inputs, targets).backward()
    optimizer.step()
last = traced(inputs, targets).item()
eager = step_loss(inputs, targets).item()
assert len(runs) == 2 and last < first / 20 and abs(last - eager) < 1e-12  # (traced once, then the eager check)
print(f"trace: {len(traced.graph.steps)} recorded steps, replayed 202 times; loss {first:.3f} -> {last:.4f}")
print("the replays trained the model: True")
