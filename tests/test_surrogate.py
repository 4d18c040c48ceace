"""Declared surrogate gradients in ``check_function`` / ``ctxgrad check``, and the error for a
forward that returns an ndarray."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import check_function, example, surrogate

ROOT = Path(__file__).resolve().parent.parent
REASON = "torchlogix scales the gradient so deep gate networks keep learning"


# torchlogix's GradFactor as torchlogix writes it (``torch`` -> ``ctxgrad``), declared.
@example(ctxgrad.tensor([0.5, -1.0, 2.0]), 2.0)
class GradFactor(Function):
    surrogate_gradient = REASON

    @staticmethod
    def forward(ctx: Any, x: Any, f: float) -> Any:
        ctx.f = f
        return x

    @staticmethod
    def backward(ctx: Any, grad_y: Any) -> Any:
        return grad_y * ctx.f, None


@surrogate("straight-through: the gradient of round is taken as 1")
@example(ctxgrad.tensor([0.2, 1.7, -0.6]))
class RoundSTE(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x.round()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return grad


def statuses(report: Any) -> dict[str, str]:
    return {c.name: c.status for c in report.checks}


def test_a_declared_surrogate_is_reported_as_declared_and_the_other_checks_run() -> None:
    report = check_function(GradFactor, double=True, forward=True)
    seen = statuses(report)
    assert report.ok and not report.findings
    assert seen["gradient"] == "declared"
    detail = next(c.detail for c in report.checks if c.name == "gradient")
    assert detail == f"backward differs from finite differences for x, as declared: {REASON}"
    for name in ("inputs", "forward", "in-place", "ctx-attributes", "backward-returns", "determinism"):
        assert seen[name] == "pass", (name, seen)
    assert seen["double-backward"] == "pass"  # run, not skipped: the declared gradient is the first derivative
    assert seen["jvp"] == "declared"  # forward mode derives its tangents from the same backward
    assert "2 declared" in report.summary and report.summary.endswith("-> OK")
    assert "  DECL  gradient " in str(report)
    assert check_function(RoundSTE).ok
    assert statuses(check_function(RoundSTE))["gradient"] == "declared"


def test_without_the_declaration_the_same_op_fails_as_a_constant_factor() -> None:
    class Undeclared(GradFactor):
        surrogate_gradient = None

    report = check_function(Undeclared)
    assert not report.ok
    assert statuses(report)["gradient"] == "fail"
    finding = report.finding("gradient-constant-factor")
    assert finding is not None and "backward = 2 x the finite differences" in finding.message


def test_a_declared_surrogate_that_agrees_with_finite_differences_passes() -> None:
    @surrogate("a factor of 1 is the true gradient")
    class Identity(GradFactor):
        pass

    report = check_function(Identity, (ctxgrad.tensor([1.0, 2.0]), 1.0))
    assert statuses(report)["gradient"] == "pass"


def test_a_declared_surrogate_with_a_broken_backward_still_fails() -> None:
    @surrogate("declared, but backward returns one gradient too few")
    @example(ctxgrad.tensor([1.0, 2.0]), 2.0)
    class TooFew(Function):
        @staticmethod
        def forward(ctx: Any, x: Any, f: float) -> Any:
            return x * 1

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad

    report = check_function(TooFew)
    assert not report.ok
    assert report.finding("wrong-gradient-count") is not None


def test_bad_declarations_are_named() -> None:
    with pytest.raises(TypeError, match=r"@surrogate\(reason\) needs the reason as a non-empty string, but got ''"):
        surrogate("")
    with pytest.raises(TypeError, match=r"@surrogate\(\.\.\.\) decorates a Function subclass, not <class 'int'>"):
        surrogate("why")(int)

    class NotAReason(GradFactor):
        surrogate_gradient = True  # type: ignore[assignment]

    report = check_function(NotAReason)
    assert not report.ok
    finding = report.finding("invalid-surrogate")
    assert finding is not None
    assert finding.message == "NotAReason.surrogate_gradient must be the reason, a non-empty string, but it is True"


def run_check(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxgrad", "check", str(path), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)},
    )


def test_the_command_line_shows_the_declaration_with_its_reason_and_exits_0(tmp_path: Path) -> None:
    source = textwrap.dedent(
        """
        import ctxgrad
        from ctxgrad.autograd import Function
        from ctxgrad.checks import example, surrogate


        @surrogate("torchlogix: gradient times f on purpose")
        @example(ctxgrad.tensor([0.5, -1.0, 2.0]), 2.0)
        class GradFactor(Function):
            @staticmethod
            def forward(ctx, x, f):
                ctx.f = f
                return x

            @staticmethod
            def backward(ctx, grad_y):
                return grad_y * ctx.f, None
        """
    )
    path = tmp_path / "grad_factor.py"
    path.write_text(source, encoding="utf-8")
    result = run_check(path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "  DECL  gradient                 backward differs from finite differences for x, as declared: "
        "torchlogix: gradient times f on purpose" in result.stdout
    )
    assert "1 Function checked: 1 OK, 0 failed" in result.stdout
    result = run_check(path, "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    (report,) = json.loads(result.stdout)["functions"]
    gradient = next(c for c in report["checks"] if c["name"] == "gradient")
    assert gradient["status"] == "declared" and "on purpose" in gradient["detail"]
    path.write_text(source.replace('@surrogate("torchlogix: gradient times f on purpose")\n', ""), encoding="utf-8")
    result = run_check(path)
    assert result.returncode == 1 and "gradient-constant-factor" in result.stdout


# --------------------------------------------------------------------------- forward returns an ndarray
class ReturnsArray(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return np.tanh(x.array)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        return grad


class ReturnsNumber(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2, np.float64(x.array.sum())

    @staticmethod
    def backward(ctx: Any, grad: Any, _: Any) -> Any:
        return grad * 2


class ReturnsArraySecond(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2, x.array.cumsum()

    @staticmethod
    def backward(ctx: Any, grad: Any, _: Any) -> Any:
        return grad * 2


def test_a_forward_that_returns_an_ndarray_raises_naming_the_function() -> None:
    message = (
        r"ReturnsArray\.forward returned a numpy\.ndarray instead of a Tensor, so no graph would be recorded for it "
        r"and no gradient would flow back through ReturnsArray\. Wrap it: return ctxgrad\.as_tensor\(result\)"
    )
    with pytest.raises(TypeError, match=message):
        ReturnsArray.apply(ctxgrad.tensor([0.5], requires_grad=True))
    with pytest.raises(TypeError, match=message), ctxgrad.no_grad():  # also when nothing is recorded
        ReturnsArray.apply(ctxgrad.tensor([0.5], requires_grad=True))
    with pytest.raises(TypeError, match=r"ReturnsArraySecond\.forward returned a numpy\.ndarray as output 1 instead"):
        ReturnsArraySecond.apply(ctxgrad.tensor([0.5], requires_grad=True))
    # A NumPy scalar is a value like a Python number (a statistic returned beside the result).
    out, total = ReturnsNumber.apply(ctxgrad.tensor([0.5, 1.0], requires_grad=True))
    assert total == 1.5 and isinstance(total, np.float64) and out.requires_grad


def test_torch_accepts_a_returned_ndarray_silently_so_we_use_its_type_error() -> None:
    """torch returns the array as it is and records nothing (no gradient flows): the silent
    failure ctxgrad turns into a TypeError, torch's type for a value of the wrong type."""
    torch = pytest.importorskip("torch")

    class TorchReturnsArray(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return np.tanh(x.detach().numpy())

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad

    out = TorchReturnsArray.apply(torch.tensor([0.5], requires_grad=True))
    assert isinstance(out, np.ndarray)  # no tensor, no graph, no error
    with pytest.raises(TypeError):
        ReturnsArray.apply(ctxgrad.tensor([0.5], requires_grad=True))


def test_the_checking_docs_show_the_run_on_logic_gates_verbatim() -> None:
    result = run_check(ROOT / "examples" / "logic_gates.py")
    assert result.returncode == 0, result.stdout + result.stderr
    docs = (ROOT / "docs" / "checking.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- cli-output: examples/logic_gates.py -->\n```text\n(.*?)```", docs, re.S)
    assert match is not None
    assert result.stdout == match.group(1)
