"""torchlogix itself, installed from PyPI, run on ctxgrad with no line of it edited.

torchlogix (ligerlac/torchlogix) is a library of logic-gate network layers written for torch:
its users write ``import torch`` and train its layers in torch's loops. Install it without its
dependencies (they are torch and its relatives): ``pip install --no-deps torchlogix==0.2.2``.
Under ``ctxgrad.torch_alias`` its ``import torch`` gives ctxgrad, so:

1. the two code blocks of torchlogix's quick start ("Define a model", "Train") run as its docs
   write them (with the ``tree_depth`` that version 0.2.2 asks for), on a few batches of
   binary 28 x 28 images: the loss of a batch falls;
2. a model of the same layers (``LogicDense`` and ``GroupSum`` in an ``nn.Sequential``, Adam,
   ``CrossEntropyLoss``) learns 3-bit parity, and its gates, discretised, compute it on all 8
   inputs;
3. ``ctxgrad check`` reads torchlogix's own ``GradFactor`` as written and reports that its
   gradient is a constant times the true one: torchlogix scales the gradient between layers on
   purpose (``examples/seeds/torchlogix_parity.py`` declares it as a surrogate).

torchlogix's package imports its circuit exporter, which traces models with ``torch.fx``
(ctxgrad has no such tracer), so this program loads the package's layers without running the
package's ``__init__``. Run it: ``python examples/seeds/torchlogix_quickstart.py``; it exits
non-zero when a check fails, and says so and exits 0 when torchlogix is not installed.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import types

import ctxgrad
from ctxgrad.checks import check_function


def load_torchlogix_without_its_exporter() -> bool:
    """Register the installed ``torchlogix`` as a package whose submodules import on demand,
    without its ``__init__`` (which imports ``torch.fx``). False when it is not installed."""
    spec = importlib.util.find_spec("torchlogix")
    if spec is None or not spec.submodule_search_locations:
        return False
    package = types.ModuleType("torchlogix")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules["torchlogix"] = package
    return True


def quick_start() -> None:
    import torch

    torch.manual_seed(0)
    images = (torch.rand(3, 8, 1, 28, 28) > 0.5).float()
    labels = torch.randint(0, 10, (3, 8))
    train_loader = list(zip(images, labels))

    # torchlogix's docs, "Define a model", as written but for tree_depth, which the docs of the
    # newer version leave to its default and 0.2.2 needs (torch and ctxgrad alike)
    import torch.nn as nn
    from torchlogix.layers import GroupSum, LogicConv2d, LogicDense, OrPooling2d

    model = nn.Sequential(
        LogicConv2d(in_dim=28, channels=1, num_kernels=16, tree_depth=2, receptive_field_size=3),
        OrPooling2d(kernel_size=2, stride=2),
        nn.Flatten(),
        LogicDense(16 * 13 * 13, 4_000),
        LogicDense(4_000, 4_000),
        GroupSum(k=10),
    )

    # torchlogix's docs, "Train", as written
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    criterion = torch.nn.CrossEntropyLoss()

    first = criterion(model(images[0]), labels[0]).item()
    for _ in range(3):
        for x, y in train_loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
    last = criterion(model(images[0]), labels[0]).item()
    print(f"quick start: the first batch's loss went from {first:.4f} to {last:.4f}")
    assert last < first, (first, last)


def train_parity() -> None:
    import torch
    import torch.nn as nn
    from torchlogix.layers import GroupSum, LogicDense

    torch.manual_seed(0)
    inputs = torch.tensor(list(itertools.product([0.0, 1.0], repeat=3)))
    labels = (inputs.sum(dim=1) % 2).long()
    model = nn.Sequential(LogicDense(3, 64), LogicDense(64, 64), LogicDense(64, 32), GroupSum(k=2, tau=4.0))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.05)
    criterion = torch.nn.CrossEntropyLoss()
    for step in range(300):
        optimizer.zero_grad()
        loss = criterion(model(inputs), labels)
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            print(f"step {step:3d}: loss {loss.item():.4f}")
    model.eval()  # torchlogix's layers use their most likely gate when not training
    with torch.no_grad():
        accuracy = float((model(inputs).argmax(dim=1) == labels).float().mean().item())
    print(f"discretised gates: parity right on {accuracy:.0%} of the 8 inputs")
    assert accuracy == 1.0, accuracy


def check_grad_factor() -> None:
    import torch
    from torchlogix.functional import GradFactor

    report = check_function(GradFactor, inputs=[torch.randn(5, dtype=torch.float64), 2.0])
    print(report)
    assert not report.ok and "constant factor" in str(report), report


def main() -> None:
    with ctxgrad.torch_alias(replace_installed=True):
        if not load_torchlogix_without_its_exporter():
            print("torchlogix is not installed: pip install --no-deps torchlogix==0.2.2")
            return
        quick_start()
        train_parity()
        check_grad_factor()
    print("ok")


if __name__ == "__main__":
    main()
