"""``ctxgrad.checks_torch.compare_with_torch`` and ``ctxgrad check --against-torch``: the same
Function under ctxgrad and under torch, on the same inputs and grad_outputs; the first
difference named (which output or gradient, the index, both values)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_checks_corpus import CORRECT

import ctxgrad
from ctxgrad import cli
from ctxgrad.autograd import Function
from ctxgrad.checks import check_function
from ctxgrad.checks_torch import compare_with_torch, torch_counterpart

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent

from test_bridge import SoftClip  # noqa: E402  (the op the bridge's tests use)


class TorchSoftClipGradientWrong(torch.autograd.Function):
    """The torch side with its square forgotten in backward."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x / (1 + x.abs())

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad / (1 + x.abs())


class TorchSoftClipOutputWrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x / (1 + x * x)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return grad


class TorchRaises(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        raise ValueError("no kernel for this dtype")

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return grad


X = ctxgrad.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]])


@pytest.mark.parametrize(("fn", "inputs", "kwargs"), CORRECT, ids=lambda v: getattr(v, "__name__", ""))
def test_the_correct_corpus_gives_the_same_in_torch_through_the_bridge(
    fn: type[Function], inputs: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    report = compare_with_torch(fn, inputs, **kwargs)
    assert report.ok and report.findings == [], str(report)
    assert [(c.name, c.status) for c in report.checks] == [("torch-outputs", "pass"), ("torch-gradients", "pass")]


def test_a_gradient_that_differs_is_named_with_its_index_and_both_values() -> None:
    report = compare_with_torch(SoftClip, (X,), torch_function=TorchSoftClipGradientWrong)
    (finding,) = report.findings
    assert finding.name == "differs-from-torch"
    # The same seeded grad_outputs on both sides: the values are those of the formulas.
    seed = np.random.default_rng(0).standard_normal((2, 3))
    ours, theirs = float(seed[0, 0] / 1.5**2), float(seed[0, 0] / 1.5)
    assert finding.message == (
        "SoftClip under ctxgrad and the torch Function TorchSoftClipGradientWrong under torch differ on the same "
        f"inputs and grad_outputs: the gradient of 'x' (index 0) differs at index [0, 0]: ctxgrad {ours!r}, torch "
        f"{theirs!r} (6 of 6 elements differ, the largest by "
        f"{np.abs(seed / (1 + np.abs(X.numpy())) ** 2 - seed / (1 + np.abs(X.numpy()))).max():.4g})"
    )
    assert [(c.name, c.status) for c in report.checks] == [("torch-outputs", "pass"), ("torch-gradients", "fail")]


def test_an_output_that_differs_is_named_first_and_the_gradients_wait() -> None:
    report = compare_with_torch(SoftClip, (X,), torch_function=TorchSoftClipOutputWrong)
    assert [f.name for f in report.findings] == ["differs-from-torch"]
    values = X.numpy()
    largest = np.abs(values / (1 + np.abs(values)) - values / (1 + values * values)).max()
    assert report.findings[0].message.endswith(
        f"output 0 differs at index [0, 0]: ctxgrad {0.5 / 1.5!r}, torch {0.5 / 1.25!r} "
        f"(5 of 6 elements differ, the largest by {largest:.4g})"
    )
    assert [(c.name, c.status) for c in report.checks] == [("torch-outputs", "fail"), ("torch-gradients", "skip")]
    assert report.checks[1].detail == "the outputs differ; fix that first"


def test_a_torch_side_that_raises_says_where() -> None:
    report = compare_with_torch(SoftClip, (X,), torch_function=TorchRaises)
    (finding,) = report.findings
    assert finding.name == "torch-raises"
    assert finding.message.startswith(
        "the torch Function TorchRaises raised ValueError under torch: no kernel for this dtype, in forward ("
    )
    assert f"{Path(__file__).name}, line" in finding.message


def test_what_is_not_a_torch_function_is_refused() -> None:
    with pytest.raises(TypeError, match=r"compare_with_torch: torch_function must be a torch\.autograd\.Function"):
        compare_with_torch(SoftClip, (X,), torch_function=SoftClip)
    with pytest.raises(TypeError, match="compare_with_torch expects a ctxgrad Function subclass"):
        compare_with_torch(TorchRaises)


TORCH_TUTORIAL = """
import torch


class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input, weight, bias)
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias
"""


def test_a_torch_tutorials_function_against_its_ctxgrad_port(tmp_path: Path) -> None:
    path = tmp_path / "linear_ops.py"
    path.write_text(TORCH_TUTORIAL)
    native = torch_counterpart(str(path), "LinearFunction")
    assert native is not None and issubclass(native, torch.autograd.Function)
    namespace: dict[str, Any] = {}
    exec(TORCH_TUTORIAL.replace("import torch", "import ctxgrad as torch"), namespace)  # the port: torch -> ctxgrad
    ported = namespace["LinearFunction"]
    inputs = (
        ctxgrad.tensor([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]]),
        ctxgrad.tensor([[0.1, 0.2], [-0.3, 0.4]]),
        ctxgrad.tensor([0.5, -0.5]),
    )
    report = compare_with_torch(ported, inputs, torch_function=native)
    assert report.ok, str(report)
    assert report.checks[1].detail == "the same gradients for 3 inputs"
    # A file without torch has no torch counterpart: the bridge is used.
    assert torch_counterpart(str(ROOT / "examples/checks/good_ops.py"), "Cube") is None
    # A file that does not run with torch says so, and where.
    broken = tmp_path / "broken_ops.py"
    broken.write_text("import torch\n\ntorch.no_such_function()\n")
    with pytest.raises(RuntimeError) as raised:
        torch_counterpart(str(broken), "LinearFunction")
    assert str(raised.value).startswith(
        f"{broken} imports torch, but running it with torch raised AttributeError: module 'torch' has no attribute "
        "'no_such_function', at line 3, so there is no torch Function to compare with"
    )


def test_check_against_torch_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.main(["check", "examples/checks/good_ops.py::ScaledMatVec", "--against-torch"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert (
        "  PASS  torch-outputs            the same 1 output under torch (ScaledMatVec through ctxgrad.bridge.to_torch)"
    ) in out.splitlines()
    assert "  PASS  torch-gradients          the same gradients for 2 inputs" in out.splitlines()
    code = cli.main(["check", "examples/checks/good_ops.py", "--against-torch", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["ok"]
    for function in payload["functions"]:
        assert [c["name"] for c in function["checks"]][-2:] == ["torch-outputs", "torch-gradients"]


def test_without_torch_the_command_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real_import = importlib.import_module

    def import_without_torch(name: str, package: str | None = None) -> Any:
        if name == "torch":
            raise ModuleNotFoundError("No module named 'torch'", name="torch")
        return real_import(name, package)

    monkeypatch.setattr(importlib, "import_module", import_without_torch)  # as if torch were not installed
    code = cli.main(["check", "examples/checks/good_ops.py::Cube", "--against-torch"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.endswith(
        "check: error: --against-torch: ctxgrad check --against-torch needs PyTorch, which ctxgrad does not "
        "require: install it with `pip install torch` (see https://pytorch.org/get-started/locally/)\n"
    )
    # The checks themselves need no torch.
    assert check_function(SoftClip, (X,)).ok
