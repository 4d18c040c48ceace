"""W3: one training step of a small network, the whole loop a user writes.

A step is ``optimizer.zero_grad()``, the forward, ``nn.functional.cross_entropy`` (mean
over the batch), ``loss.backward()`` and ``optimizer.step()`` (``optim.SGD``, plain, lr
0.01), on a fixed batch of random inputs and class labels. Three workloads:

- ``mlp-32``: ``Linear(64, 128) -> Tanh -> Linear(128, 10)`` on a batch of 32 (per-op
  overhead dominates: about a dozen ops and their backwards on small arrays);
- ``mlp-1024``: the same MLP on a batch of 1024 (the matrix products dominate);
- ``conv-32``: ``Conv2d(1, 8, 3, padding=1) -> ReLU -> MaxPool2d(2) -> Flatten ->
  Linear(8*14*14, 10)`` on a batch of 32 inputs of 1x28x28.

Each is timed for

- ctxgrad (``ctxgrad.nn``, ``ctxgrad.optim.SGD``);
- torch running the same model from the same initial weights (copied from ctxgrad's);
  skipped, with a note, when torch cannot be imported;
- for the MLP, HIPS autograd: the same forward and loss written with ``autograd.numpy``,
  ``autograd.grad`` of the loss in the four parameters and the SGD update by hand (skipped,
  with a note, when autograd cannot be imported);
- for the MLP, a hand-written NumPy step: the forward, the softmax cross-entropy gradient,
  the backward by hand and the SGD update in place, with no graph: the floor for any
  Python library.

Before timing, one float64 step of each workload from the same weights is checked: the
weights ctxgrad's step leaves must equal torch's (and HIPS autograd's and the NumPy
step's) to 1e-10, so the benchmark cannot time a wrong computation. Reported in
milliseconds per step, median (min) over ``--runs`` runs of ``--steps`` steps each after
``--warmup`` untimed runs, with the ratios of ctxgrad to each other column, and the Core v2
targets (batch 32 no slower than torch; batch 1024 within 5% of NumPy) checked on the
medians.

Run: ``python benchmarks/bench_training_step.py [--dtype float32|float64] [--steps N]
[--runs N] [--warmup N] [--workloads mlp-32,mlp-1024,conv-32] [--torch-threads N]``.
On a busy or small machine run every library on one thread
(``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1``, which must be set before NumPy and torch
load): threads that wait for a busy core make the times swing by 10x or more.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _harness import measure, ratio, target_line, versions

import ctxgrad
from ctxgrad import nn

LEARNING_RATE = 0.01
N_CLASSES = 10
MLP_SIZES = (64, 128, N_CLASSES)
IMAGE_SIDE = 28
CONV_CHANNELS = 8
WORKLOADS = ("mlp-32", "mlp-1024", "conv-32")
# Steps per timed run, so that each run lasts several milliseconds (timer noise is small).
DEFAULT_STEPS = {"mlp-32": 50, "mlp-1024": 10, "conv-32": 5}
VERIFY_TOLERANCE = 1e-10
# The Core v2 targets: (workload, other column, the most ctxgrad's time may be, as a multiple of the other's).
TARGETS = (("mlp-32", "torch", 1.0), ("mlp-1024", "numpy", 1.05))
MLP_WEIGHTS = ("0.weight", "0.bias", "2.weight", "2.bias")

Step = Callable[[], object]
# A benchmark row: a step function, or a note saying why it was skipped.
Row = Step | str


# ---------------------------------------------------------------- models and data


def ctxgrad_model(workload: str, dtype: Any) -> nn.Module:
    """A freshly initialised ctxgrad model for ``workload``, in ``dtype``."""
    if workload.startswith("mlp"):
        n_in, n_hidden, n_out = MLP_SIZES
        return nn.Sequential(nn.Linear(n_in, n_hidden, dtype=dtype), nn.Tanh(), nn.Linear(n_hidden, n_out, dtype=dtype))
    pooled = IMAGE_SIDE // 2
    return nn.Sequential(
        nn.Conv2d(1, CONV_CHANNELS, 3, padding=1, dtype=dtype),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(CONV_CHANNELS * pooled * pooled, N_CLASSES, dtype=dtype),
    )


def torch_model(workload: str, weights: dict[str, np.ndarray]) -> Any:
    """The same model in torch, its parameters copied from ``weights`` (ctxgrad's state dict)."""
    import torch

    tnn = torch.nn
    if workload.startswith("mlp"):
        n_in, n_hidden, n_out = MLP_SIZES
        model = tnn.Sequential(tnn.Linear(n_in, n_hidden), tnn.Tanh(), tnn.Linear(n_hidden, n_out))
    else:
        pooled = IMAGE_SIDE // 2
        model = tnn.Sequential(
            tnn.Conv2d(1, CONV_CHANNELS, 3, padding=1),
            tnn.ReLU(),
            tnn.MaxPool2d(2),
            tnn.Flatten(),
            tnn.Linear(CONV_CHANNELS * pooled * pooled, N_CLASSES),
        )
    tensors = {name: torch.from_numpy(array.copy()) for name, array in weights.items()}
    # load_state_dict casts into the parameters' dtype: make it the weights' dtype first.
    model = model.to(next(iter(tensors.values())).dtype)
    model.load_state_dict(tensors)
    return model


def batch(workload: str, dtype: np.dtype[Any], seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Fixed random inputs (standard normal) and int64 class labels for ``workload``."""
    batch_size = int(workload.rsplit("-", 1)[1])
    rng = np.random.default_rng(seed)
    shape = (batch_size, MLP_SIZES[0]) if workload.startswith("mlp") else (batch_size, 1, IMAGE_SIDE, IMAGE_SIDE)
    inputs = rng.standard_normal(shape).astype(dtype)
    labels = rng.integers(0, N_CLASSES, size=batch_size, dtype=np.int64)
    return inputs, labels


def state_arrays(model: nn.Module) -> dict[str, np.ndarray]:
    """Copies of the model's parameters as NumPy arrays, by state-dict name."""
    return {name: np.array(value.detach().numpy(), copy=True) for name, value in model.state_dict().items()}


# ---------------------------------------------------------------- one step, four ways


def ctxgrad_step(model: nn.Module, inputs: np.ndarray, labels: np.ndarray) -> Step:
    x = ctxgrad.from_numpy(inputs)
    y = ctxgrad.from_numpy(labels)
    optimizer = ctxgrad.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    cross_entropy = nn.functional.cross_entropy

    def step() -> object:
        optimizer.zero_grad()
        loss = cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return step


def torch_step(model: Any, inputs: np.ndarray, labels: np.ndarray) -> Step:
    import torch

    x = torch.from_numpy(inputs)
    y = torch.from_numpy(labels)
    optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE)
    cross_entropy = torch.nn.functional.cross_entropy

    def step() -> object:
        optimizer.zero_grad()
        loss = cross_entropy(model(x), y)
        loss.backward()  # type: ignore[no-untyped-call]  # torch's Tensor.backward has no annotations
        optimizer.step()
        return loss

    return step


def numpy_mlp_step(weights: dict[str, np.ndarray], inputs: np.ndarray, labels: np.ndarray) -> Step:
    """The MLP step by hand, updating ``weights`` (state-dict names of the Sequential) in place.

    Forward ``h = tanh(x W1ᵀ + b1)``, ``z = h W2ᵀ + b2``; the loss is the mean over the batch of
    ``logsumexp(z) - z[label]``, whose gradient in ``z`` is ``(softmax(z) - onehot) / batch``;
    the backward is the chain rule through the two products and ``tanh' = 1 - h²``.
    """
    w1, b1, w2, b2 = (weights[name] for name in MLP_WEIGHTS)
    rows = np.arange(len(labels))
    scale = 1.0 / len(labels)

    def step() -> object:
        hidden = np.tanh(inputs @ w1.T + b1)
        logits = hidden @ w2.T + b2
        shifted = logits - logits.max(axis=1, keepdims=True)
        exp = np.exp(shifted)
        total = exp.sum(axis=1, keepdims=True)
        loss = np.log(total[:, 0]).mean() - shifted[rows, labels].mean()
        grad_logits = exp / total
        grad_logits[rows, labels] -= 1.0
        grad_logits *= scale
        grad_w2 = grad_logits.T @ hidden
        grad_b2 = grad_logits.sum(axis=0)
        grad_pre = (grad_logits @ w2) * (1.0 - hidden * hidden)
        grad_w1 = grad_pre.T @ inputs
        grad_b1 = grad_pre.sum(axis=0)
        for param, grad in ((w1, grad_w1), (b1, grad_b1), (w2, grad_w2), (b2, grad_b2)):
            param -= LEARNING_RATE * grad
        return loss

    return step


def autograd_mlp_step(weights: dict[str, np.ndarray], inputs: np.ndarray, labels: np.ndarray) -> Step:
    """The MLP step in HIPS autograd, updating ``weights`` (state-dict names) in place.

    The loss is written with ``autograd.numpy`` as a user would (the log-sum-exp shifted by
    the row's max), ``autograd.grad`` gives its gradient in the four parameters, and the SGD
    update is by hand.
    """
    import autograd
    import autograd.numpy as anp

    params = [weights[name] for name in MLP_WEIGHTS]
    rows = np.arange(len(labels))

    def loss(params: list[Any]) -> Any:
        w1, b1, w2, b2 = params
        hidden = anp.tanh(anp.dot(inputs, w1.T) + b1)
        logits = anp.dot(hidden, w2.T) + b2
        top = anp.max(logits, axis=1, keepdims=True)
        log_total = anp.log(anp.sum(anp.exp(logits - top), axis=1)) + top[:, 0]
        return anp.mean(log_total - logits[rows, labels])

    gradient = autograd.grad(loss)

    def step() -> object:
        for param, grad in zip(params, gradient(params)):
            param -= LEARNING_RATE * grad
        return None

    return step


# ---------------------------------------------------------------- the check and the table


def verify(workload: str, with_torch: bool, with_autograd: bool) -> str:
    """One float64 step of each implementation from the same weights; raise if their updated
    weights differ by more than ``VERIFY_TOLERANCE``, else return a line saying what agreed."""
    model = ctxgrad_model(workload, ctxgrad.float64)
    initial = state_arrays(model)
    inputs, labels = batch(workload, np.dtype(np.float64), seed=1)
    ctxgrad_step(model, inputs, labels)()
    ours = state_arrays(model)
    others: dict[str, dict[str, np.ndarray]] = {}
    if with_torch:
        reference = torch_model(workload, initial)
        torch_step(reference, inputs, labels)()
        others["torch"] = {name: value.detach().numpy() for name, value in reference.state_dict().items()}
    if workload.startswith("mlp") and with_autograd:
        traced = {name: array.copy() for name, array in initial.items()}
        autograd_mlp_step(traced, inputs, labels)()
        others["autograd"] = traced
    if workload.startswith("mlp"):
        by_hand = {name: array.copy() for name, array in initial.items()}
        numpy_mlp_step(by_hand, inputs, labels)()
        others["numpy"] = by_hand
    worst: dict[str, float] = {}
    for other, weights in others.items():
        worst[other] = max(float(np.abs(ours[name] - weights[name]).max()) for name in ours)
        if not worst[other] <= VERIFY_TOLERANCE:
            raise SystemExit(
                f"{workload}: after one float64 step ctxgrad's weights differ from {other}'s by "
                f"{worst[other]:.3g} (> {VERIFY_TOLERANCE:g}); not timing a wrong computation"
            )
    moved = max(float(np.abs(ours[name] - initial[name]).max()) for name in ours)
    if not worst:
        return f"not verified {workload}: one float64 step ran (weights moved up to {moved:.1e}); nothing to compare"
    agreed = ", ".join(f"{other} (max |diff| {diff:.1e})" for other, diff in worst.items())
    return f"verified {workload}: one float64 step (weights moved up to {moved:.1e}) matches {agreed}"


def repeated(step: Step, n_steps: int) -> Step:
    """A run of ``n_steps`` calls of ``step``."""

    def run() -> object:
        for _ in range(n_steps):
            step()
        return None

    return run


def report_steps(rows: dict[str, dict[str, Row]], steps: dict[str, int], runs: int, warmup: int) -> None:
    """Time every row of every workload (the rows of a workload take turns) and print a
    table in milliseconds per step, the ratios, and the Core v2 targets.

    A local variant of ``_harness.report``, whose table has forward/backward columns and
    microseconds per op.
    """
    columns = ("ctxgrad", "torch", "autograd", "numpy")
    results: dict[str, dict[str, tuple[float, float]]] = {}
    notes: list[str] = []
    for workload, row in rows.items():
        ready = {name: fn for name, fn in row.items() if not isinstance(fn, str)}
        notes += [f"{workload} {name}: {fn}" for name, fn in row.items() if isinstance(fn, str)]
        n_steps = steps[workload]
        microseconds = measure([repeated(fn, n_steps) for fn in ready.values()], n_steps, runs, warmup)
        results[workload] = {name: (med / 1e3, low / 1e3) for name, (med, low) in zip(ready, microseconds)}

    def cell(m: tuple[float, float] | None) -> str:
        return "-" if m is None else f"{m[0]:.3f} ({m[1]:.3f})"

    others = columns[1:]
    header = [*columns, *(f"ctxgrad/{c}" for c in others)]
    print(f"\n{'ms per step':12}" + "".join(f"{c:>18}" for c in header))
    for workload, timed in results.items():
        mine = timed["ctxgrad"]
        cells = [cell(timed.get(c)) for c in columns]
        cells += [ratio(mine, timed[c]) if c in timed else "-" for c in others]
        print(f"{workload:12}" + "".join(f"{c:>18}" for c in cells))
    for workload, other, limit in TARGETS:
        if workload in results:
            timed = results[workload]
            print(target_line(f"W3 {workload}", other, limit, timed["ctxgrad"], timed.get(other)))
    for note in notes:
        print(f"note: {note}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32", help="timed dtype (float32)")
    parser.add_argument("--steps", type=int, default=None, help="steps per timed run (default per workload)")
    parser.add_argument("--runs", type=int, default=30, help="timed runs (default 30)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help=f"comma-separated, of {', '.join(WORKLOADS)}")
    parser.add_argument("--torch-threads", type=int, default=None, help="torch.set_num_threads (default: torch's)")
    args = parser.parse_args(argv)
    workloads = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(WORKLOADS)}")
    steps = {w: args.steps or DEFAULT_STEPS[w] for w in workloads}

    torch: Any = None
    try:
        import torch

        if args.torch_threads is not None:
            torch.set_num_threads(args.torch_threads)
        torch_note = f", torch {torch.__version__} ({torch.get_num_threads()} threads)"
    except ImportError as exc:
        torch_note = f", torch not importable ({exc})"
    with_torch = torch is not None
    try:
        import autograd  # noqa: F401

        autograd_note = f", autograd {importlib.metadata.version('autograd')}"
        with_autograd = True
    except ImportError as exc:
        autograd_note = f", autograd not importable ({exc})"
        with_autograd = False

    print(
        f"W3: one training step (zero_grad, forward, cross_entropy, backward, SGD lr={LEARNING_RATE}) in "
        f"{args.dtype}\n{args.runs} timed runs of {', '.join(f'{w}: {n}' for w, n in steps.items())} steps after "
        f"{args.warmup} warm-up; milliseconds per step, median (min); ratios of medians (of mins)\n"
        f"{versions()}{torch_note}{autograd_note}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}"
    )
    for workload in workloads:
        print(verify(workload, with_torch, with_autograd), flush=True)

    dtype = np.dtype(args.dtype)
    rows: dict[str, dict[str, Row]] = {}
    for workload in workloads:
        model = ctxgrad_model(workload, ctxgrad.float32 if args.dtype == "float32" else ctxgrad.float64)
        initial = state_arrays(model)
        inputs, labels = batch(workload, dtype)
        row: dict[str, Row] = {"ctxgrad": ctxgrad_step(model, inputs, labels)}
        row["torch"] = (
            torch_step(torch_model(workload, initial), inputs, labels)
            if with_torch
            else "skipped, torch not importable"
        )
        if workload.startswith("mlp"):
            row["autograd"] = (
                autograd_mlp_step({name: array.copy() for name, array in initial.items()}, inputs, labels)
                if with_autograd
                else "skipped, autograd not importable"
            )
            row["numpy"] = numpy_mlp_step({name: array.copy() for name, array in initial.items()}, inputs, labels)
        rows[workload] = row
    report_steps(rows, steps, args.runs, args.warmup)
    return 0


if __name__ == "__main__":
    sys.exit(main())
