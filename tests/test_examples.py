"""The scripts in examples/ run, print what they promise and exit with the right code."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ctxgrad

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / "main.py"), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )


def test_main_prints_the_graph_and_passes_its_gradient_check() -> None:
    result = run()
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    assert (
        "SumBackward0\n"
        "└─ MulBackward0\n"
        "   ├─ LinearFunctionBackward\n"
        "   │  ├─ AccumulateGrad (leaf: shape [4, 3], float64)\n"
        "   │  ├─ AccumulateGrad (leaf: shape [3, 3], float64)\n"
        "   │  └─ AccumulateGrad (leaf: shape [3], float64)\n"
        "   └─ (None)\n"
    ) in result.stdout
    assert "gradient check: OK" in result.stdout


def test_main_catches_a_wrong_backward() -> None:
    result = run("--broken")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "gradient check: FAILED" in result.stdout
    assert "d loss / d weight" in result.stdout


def run_example(name: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``examples/<name>`` in a fresh interpreter (ctxgrad from this checkout)."""
    root = str(EXAMPLES.parent)
    path = os.environ.get("PYTHONPATH")
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": root + (os.pathsep + path if path else "")},
    )


def assert_runs(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    return result.stdout


def test_the_ops_of_torchs_extending_note_pass_their_checks() -> None:
    out = assert_runs(run_example("extending_torch_autograd.py"))
    assert "Exp: gradcheck passed; x.grad == exp(x)" in out
    assert "needs_input_grad with a frozen weight: (True, False, True)" in out
    assert "MulConstant: gradcheck passed; x.grad == 2.5" in out


def test_legendre_fit_reaches_the_tutorials_result() -> None:
    out = assert_runs(run_example("legendre.py"))
    assert "gradcheck of LegendrePolynomial3: passed" in out
    # torch's tutorial ends with y = ... - 2.208 * P3(... + 0.255 x)
    assert "-2.2085 * P3(0.0000 + 0.2555 x)" in out


def test_straight_through_estimator_learns_where_round_cannot() -> None:
    out = assert_runs(run_example("straight_through.py"))
    assert "STE gradient: tensor([0., 1., 1., 1., 0.])" in out
    assert "loss 0.0\n" in out
    assert "(the gradient is 0: no learning)" in out


def test_gradient_reversal_subtracts_the_domain_gradient() -> None:
    out = assert_runs(run_example("gradient_reversal.py"))
    assert "feature gradient = task gradient - lambda * domain gradient: True" in out
    assert "reversed gradient of sum(): tensor([-2., -2., -2.])" in out


def test_inplace_relu_matches_relu_and_its_misuses_raise() -> None:
    out = assert_runs(run_example("inplace_relu.py"))
    assert "y is h: True   y = tensor([0., 1., 4., 0.], grad_fn=<ReLU_Backward>)" in out
    assert "x.grad: tensor([0., 4., 6., 0.])" in out
    assert "on a leaf: a leaf Variable that requires grad has been used in an in-place operation" in out
    assert "on a saved tensor: one of the variables needed for gradient computation has been modified" in out


def test_sort_with_indices_matches_the_built_in_sort() -> None:
    out = assert_runs(run_example("sort_with_indices.py"))
    assert "requires_grad: False" in out
    assert "same values, indices and gradient as ctxgrad.sort; gradcheck passed" in out


def test_define_then_run_trains_by_feed_dicts_and_by_replays() -> None:
    out = assert_runs(run_example("seeds/define_then_run.py"))
    assert "auto_diff: w = [ 2. -3.], b = [1.]" in out
    assert "auto_diff reaches the eager weights: True" in out
    assert "the replays trained the model: True" in out


def test_logic_gate_network_learns_its_boolean_function() -> None:
    out = assert_runs(run_example("logic_gates.py"))
    assert "accuracy of the discretised circuit: 100% of the 16 inputs" in out


def test_spirals_training_loss_falls_and_accuracy_is_high(tmp_path: Path) -> None:
    out = assert_runs(run_example("train_spirals.py", "--png", str(tmp_path / "spirals.png"), cwd=tmp_path))
    losses = [float(line.split()[-1]) for line in out.splitlines() if line.startswith("step")]
    assert len(losses) == 11 and losses[-1] < losses[0] / 10, losses
    accuracy = float(out.split("accuracy: ")[1].split("%")[0])
    assert accuracy >= 95.0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed: no picture" in out
    else:
        assert (tmp_path / "spirals.png").stat().st_size > 0


# mini_ctxgrad: the teaching version of the whole idea gives ctxgrad's gradients.


def _load_mini_ctxgrad() -> Any:
    spec = importlib.util.spec_from_file_location("mini_ctxgrad", EXAMPLES / "mini_ctxgrad.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mini_ctxgrad = _load_mini_ctxgrad()


def _programs() -> dict[str, Any]:
    return {
        "a square and a sum": lambda x, w: (x * x + x).sum(),
        "a two-layer network (one weight, used twice)": lambda x, w: (((x @ w).tanh() @ w).tanh() * 0.5 + 1.0).sum(),
        "one input used on many paths": lambda x, w: ((x * 2.0 + x) * (x + 1.0) * x).sum(),
        "broadcasting a scalar and a row": lambda x, w: (x * w.sum() + (x @ w).sum() * x).sum(),
    }


@pytest.mark.parametrize("name", list(_programs()))
def test_mini_ctxgrad_gives_ctxgrads_gradients(name: str) -> None:
    program = _programs()[name]
    rng = np.random.default_rng(1)
    x0, w0 = rng.normal(size=(3, 4)), rng.normal(size=(4, 4))
    mx, mw = mini_ctxgrad.Tensor(x0, requires_grad=True), mini_ctxgrad.Tensor(w0, requires_grad=True)
    program(mx, mw).backward()
    cx = ctxgrad.tensor(x0, dtype=ctxgrad.float64, requires_grad=True)
    cw = ctxgrad.tensor(w0, dtype=ctxgrad.float64, requires_grad=True)
    program(cx, cw).backward()
    np.testing.assert_allclose(mx.grad, cx.grad.array, rtol=1e-12, atol=1e-12)
    if cw.grad is None:
        assert mw.grad is None
    else:
        np.testing.assert_allclose(mw.grad, cw.grad.array, rtol=1e-12, atol=1e-12)


def test_mini_ctxgrad_runs_a_node_once_after_all_its_inputs() -> None:
    """A diamond: ``x`` reaches the sum along two paths; its node runs once, with the sum."""
    runs: list[str] = []
    original = mini_ctxgrad.AccumulateGrad.run

    def counting(self: Any, grad: np.ndarray) -> tuple[np.ndarray | None, ...]:
        runs.append("AccumulateGrad")
        return original(self, grad)

    x = mini_ctxgrad.Tensor([1.0, 2.0], requires_grad=True)
    y = (x.tanh() + x * 3.0).sum()
    mini_ctxgrad.AccumulateGrad.run = counting  # type: ignore[method-assign]
    try:
        y.backward()
    finally:
        mini_ctxgrad.AccumulateGrad.run = original  # type: ignore[method-assign]
    assert runs == ["AccumulateGrad"]
    np.testing.assert_allclose(x.grad, 1 - np.tanh([1.0, 2.0]) ** 2 + 3.0)


def test_mini_ctxgrad_is_short_and_runs_as_a_script() -> None:
    source = (EXAMPLES / "mini_ctxgrad.py").read_text(encoding="utf-8")
    assert len(source.splitlines()) <= 260  # about 150 lines of code, plus its explanation
    out = assert_runs(run_example("mini_ctxgrad.py"))
    assert "x.grad = [2.         6.43656366] = exp(x) (1 + x) + 1" in out


def test_the_extending_note_ops_give_torchs_values_and_gradients(torch: Any) -> None:
    """The example's claim: the Functions are torch's code with ``torch`` -> ``ctxgrad``.
    The same class bodies, built on torch's Function, agree with the ctxgrad ones."""
    spec = importlib.util.spec_from_file_location("extending_torch_autograd", EXAMPLES / "extending_torch_autograd.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    names = ("Exp", "LinearFunction", "MulConstant")
    source = (EXAMPLES / "extending_torch_autograd.py").read_text(encoding="utf-8")
    on_torch: dict[str, Any] = {"Any": Any, "Tensor": torch.Tensor, "Function": torch.autograd.Function}
    for name in names:
        start = source.index(f"class {name}(Function):")
        end = source.index("\n\n\n", start)
        exec(source[start:end], on_torch)

    rng = np.random.default_rng(0)
    x0, w0, b0 = rng.normal(size=(4, 3)), rng.normal(size=(2, 3)), rng.normal(size=2)
    calls = {
        "Exp": lambda lib, F, x, w, b: F.apply(x),
        "LinearFunction": lambda lib, F, x, w, b: F.apply(x, w, b),
        "MulConstant": lambda lib, F, x, w, b: F.apply(x, 2.5),
    }
    for name in names:
        results = []
        for lib, cls in ((ctxgrad, getattr(example, name)), (torch, on_torch[name])):
            x, w, b = (lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in (x0, w0, b0))
            out = calls[name](lib, cls, x, w, b)
            (out * lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)), dtype=lib.float64)).sum().backward()
            grads = [t.grad for t in (x, w, b)]
            results.append(
                [out.detach().numpy()] + [None if g is None else np.asarray(g.detach().numpy()) for g in grads]
            )
        ours, theirs = results
        for a, b in zip(ours, theirs):
            assert (a is None) == (b is None), name
            if a is not None:
                np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=name)


SEEDS = sorted((EXAMPLES / "seeds").glob("*.py"))
# What some seeds promise to print (a seed not listed here is only run).
SEED_OUTPUT = {
    "megengine_sigmoid": ["Sigmoid()(x) has grad_fn SigmoidBackward", "values and gradients equal ctxgrad.sigmoid's"],
    "megengine_test_function": ["test_multiple_grad: passed", "all 11 cases of MegEngine's test_function.py passed"],
    "auto_diff_seed_tests": ["auto_diff's seed-era tests: 92 run, 0 failed, 0 errors"],
    "auto_diff_new_ops": [
        "the gradient equals the analytic one and central differences: True",
        "dot(C(2, 2), C(2, 2))",
    ],
    "loupe_optics": ["gradcheck passed: expc, masked multiply and image (complex)", "misfit fell", "loupe.optimize:"],
    "afnio_text_feedback": ["2 feedbacks reaching the answer:", "as on afnio: `.grad` expects a list of Variables"],
    "loupe_quickstart": [
        "quickstart: coefficients recovered as in loupe's docs",
        "autograd page: x.grad [4. 5. 6.], y.grad [1. 2. 3.], z.grad 3.0 as in loupe's docs",
        "optimize page: x recovered [1, -2, 3]",
        "optimize docstring: the minimum of 4 (x - 5)^2 is at x = 5, with either gradient",
    ],
    "torchlogix_parity": [
        "accuracy of the discretised circuit on 4-bit parity: 100% of the 16 inputs",
        "DECL  gradient",
        "as declared: torchlogix scales the gradient",
    ],
    "torchlogix_quickstart": [
        "quick start: the first batch's loss went from",
        "discretised gates: parity right on 100% of the 8 inputs",
        "[gradient-constant-factor] the gradient of argument 'x' (index 0) is off by a constant factor",
    ],
}


@pytest.mark.parametrize("path", SEEDS, ids=[p.stem for p in SEEDS])
def test_every_seed_example_runs_and_checks_its_result(path: Path) -> None:
    """examples/seeds/: one example per source system, each asserting its own result."""
    if path.stem.startswith("loupe_"):
        pytest.importorskip("scipy", reason="loupe.optimize runs SciPy's L-BFGS-B, as loupe does")
    if path.stem == "torchlogix_quickstart" and importlib.util.find_spec("torchlogix") is None:
        pytest.skip("torchlogix is not installed (pip install --no-deps torchlogix==0.2.2; CI's torch leg has it)")
    out = assert_runs(run_example(f"seeds/{path.name}"))
    for fragment in SEED_OUTPUT.get(path.stem, []):
        assert fragment in out, out
