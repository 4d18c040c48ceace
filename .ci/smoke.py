"""Smoke test of an installed ctxgrad (CI runs it against the built wheel, from outside the
source tree): a custom Function, gradcheck, one Module/optimizer step, the console script."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import nn, optim
from ctxgrad.autograd import Function, gradcheck

installed_at = Path(ctxgrad.__file__).resolve()
assert "site-packages" in installed_at.parts, f"ctxgrad imported from {installed_at}, not from the installed wheel"
assert (installed_at.parent / "py.typed").is_file(), "the wheel ships no py.typed"


class Cube(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad


x = ctxgrad.tensor([0.5, -1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True)
Cube.apply(x).sum().backward()
assert x.grad is not None and np.allclose(x.grad.numpy(), 3 * np.array([0.5, -1.0, 2.0]) ** 2)
assert gradcheck(Cube.apply, (x,))

ctxgrad.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
opt = optim.SGD(model.parameters(), lr=0.1)
inputs, target = ctxgrad.randn(16, 4), ctxgrad.randint(0, 2, (16,))
losses = []
for _ in range(20):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(inputs), target)
    loss.backward()
    opt.step()
    losses.append(loss.item())
assert losses[-1] < losses[0], losses

script = Path(sys.executable).parent / "ctxgrad"
version = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True).stdout.strip()
assert version == f"ctxgrad {ctxgrad.__version__}", version
with tempfile.TemporaryDirectory() as folder:
    ops = Path(folder) / "ops.py"
    ops.write_text(
        textwrap.dedent("""
        import ctxgrad
        from ctxgrad.autograd import Function
        from ctxgrad.checks import example

        @example(ctxgrad.tensor([0.5, -1.0, 2.0]))
        class Double(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2
    """)
    )
    checked = subprocess.run([str(script), "check", str(ops)], capture_output=True, text=True, cwd=folder)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Double" in checked.stdout, checked.stdout

print(
    f"smoke: ctxgrad {ctxgrad.__version__} from {installed_at.parent}: Function, gradcheck, training step, "
    f"console script: ok"
)
