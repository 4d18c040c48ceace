"""torchlogix's own tests, and a model built from its layers, run on ctxgrad with no line edited.

torchlogix (ligerlac/torchlogix) is a library of logic-gate network layers written for torch:
its users write ``import torch`` and train its layers in torch's loops. Its package and eight of
its test files are in ``torchlogix_upstream/`` as its authors wrote them (the README there says
which commit, and the one import left out: the ``torch.fx`` circuit exporter). Under
``ctxgrad.torch_alias`` their ``import torch`` gives ctxgrad, so:

1. six of torchlogix's test files run through pytest, and every test passes (the tests
   torchlogix itself skips for some parameter combinations stay skipped);
2. a model as torchlogix's quick start writes it (``LogicDense`` layers and ``GroupSum`` in an
   ``nn.Sequential``, Adam and ``CrossEntropyLoss``) learns 3-bit parity, and its gates,
   discretised, compute parity on all 8 inputs;
3. ``ctxgrad check`` reads torchlogix's own ``GradFactor`` as written and reports that its
   gradient is a constant times the true one: torchlogix scales the gradient between layers on
   purpose (``examples/seeds/torchlogix_parity.py`` declares it as a surrogate).

Run it: ``python examples/seeds/torchlogix_tests.py`` (it needs pytest); it exits non-zero when a
check fails. The two test files with hundreds of parametrised convolution cases
(``test_clgn.py``, ``test_clgn_3d.py``) pass too; ``--all`` runs them (about a minute more).
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Any

import pytest

import ctxgrad
from ctxgrad.checks import check_function

UPSTREAM = Path(__file__).resolve().parent / "torchlogix_upstream"
QUICK = [
    "test_lgn.py",
    "test_layers.py",
    "test_parametrization.py",
    "test_binarization.py",
    "test_connections.py",
    "test_models.py",
]
SLOW = ["test_clgn.py", "test_clgn_3d.py"]


class Outcomes:
    """A pytest plugin that counts the outcomes of the test calls."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {"passed": 0, "failed": 0, "skipped": 0}

    def pytest_runtest_logreport(self, report: Any) -> None:
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.counts[report.outcome] = self.counts.get(report.outcome, 0) + 1


def run_upstream_tests(files: list[str]) -> dict[str, int]:
    outcomes = Outcomes()
    paths = [str(UPSTREAM / "tests" / name) for name in files]
    code = pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", str(UPSTREAM), *paths], plugins=[outcomes])
    print(f"torchlogix's tests on ctxgrad: {outcomes.counts} (pytest exit code {int(code)})")
    assert int(code) == 0 and outcomes.counts["failed"] == 0, outcomes.counts
    return outcomes.counts


def train_parity() -> float:
    import torch  # ctxgrad, under the alias
    import torch.nn as nn
    from torchlogix.layers import GroupSum, LogicDense

    torch.manual_seed(0)
    inputs = torch.tensor(list(itertools.product([0.0, 1.0], repeat=3)))
    labels = (inputs.sum(dim=1) % 2).long()
    model = nn.Sequential(
        LogicDense(3, 64, connections="fixed", device="cpu"),
        LogicDense(64, 64, connections="fixed", device="cpu"),
        LogicDense(64, 32, connections="fixed", device="cpu"),
        GroupSum(k=2, tau=4.0),
    )
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
    return accuracy


def check_grad_factor() -> None:
    import torch  # ctxgrad, under the alias
    from torchlogix.functional import GradFactor

    report = check_function(GradFactor, inputs=[torch.randn(5, dtype=torch.float64), 2.0])
    print(report)
    assert not report.ok and "constant" in str(report), report


def main() -> None:
    sys.path.insert(0, str(UPSTREAM))
    with ctxgrad.torch_alias(replace_installed=True):
        counts = run_upstream_tests(QUICK + (SLOW if "--all" in sys.argv else []))
        assert counts["passed"] >= 140, counts
        train_parity()
        check_grad_factor()
    print("ok")


if __name__ == "__main__":
    main()
