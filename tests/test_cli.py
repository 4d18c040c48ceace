"""``python -m ctxgrad check``, end to end through a subprocess: output, exit codes,
``--json`` and every kind of bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOOD = "examples/checks/good_ops.py"
MISTAKES = "examples/checks/mistakes"


def check(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ctxgrad", "check", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        cwd=cwd,
        env={**os.environ, "PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(ROOT)},
    )


def assert_clean_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """A usage error: exit code 2, one paragraph on stderr, no traceback."""
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("python -m ctxgrad check: error: ")
    assert result.stderr.count("\n") == 1
    for fragment in fragments:
        assert fragment in result.stderr


def test_good_ops_pass_with_exit_code_0() -> None:
    result = check(GOOD)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("== ")] == ["== Cube", "== Exp", "== ScaledMatVec"]
    assert "  PASS  gradient                 backward agrees with finite differences" in lines
    assert "Cube: 10 passed, 0 failed, 3 skipped; 0 errors, 0 hints -> OK" in lines
    assert lines[-1] == "3 Functions checked: 3 OK, 0 failed"


def test_good_ops_pass_the_double_and_forward_checks_of_one_named_function() -> None:
    result = check(f"{GOOD}::Exp", "--double", "--forward", "--dtype", "float64", "--seed", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "  PASS  double-backward          second derivatives agree with finite differences" in result.stdout
    assert "  PASS  jvp                      jvp agrees with backward" in result.stdout
    assert result.stdout.splitlines()[-1] == "1 Function checked: 1 OK, 0 failed"


def test_forward_checks_the_jvp_derived_from_backward() -> None:
    """--forward on Functions without a jvp: the tangents forward mode derives from a
    differentiable backward pass (and say so); a once_differentiable backward fails."""
    result = check(GOOD, "--forward")
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "  PASS  jvp                      jvp derived from backward (Cube defines none) agrees with finite differences"
        in result.stdout.splitlines()
    )
    assert result.stdout.splitlines()[-1] == "3 Functions checked: 3 OK, 0 failed"

    once = check(f"{MISTAKES}/once_differentiable_without_jvp.py", "--forward", "--json")
    assert once.returncode == 1
    (report,) = json.loads(once.stdout)["functions"]
    assert [f["name"] for f in report["findings"]] == ["missing-jvp"]
    assert check(f"{MISTAKES}/once_differentiable_without_jvp.py").returncode == 0

    help_text = " ".join(check("--help").stdout.split())
    assert "--forward check forward mode: the jvp, or for a Function without one the jvp derived from its backward" in (
        help_text
    )

    wrong = check(f"{MISTAKES}/gradient_constant_factor.py", "--forward", "--json")
    assert wrong.returncode == 1
    (report,) = json.loads(wrong.stdout)["functions"]
    assert [f["name"] for f in report["findings"]] == ["gradient-constant-factor", "derived-jvp-wrong"]


def test_a_mistake_fails_with_exit_code_1_and_the_output_in_the_docs() -> None:
    """docs/checking.md shows this run's output verbatim."""
    target = f"{MISTAKES}/gradient_transposed.py"
    result = check(target)
    assert result.returncode == 1
    docs = (ROOT / "docs" / "checking.md").read_text(encoding="utf-8")
    match = re.search(rf"<!-- cli-output: {re.escape(target)} -->\n```text\n(.*?)```", docs, re.S)
    assert match is not None
    assert result.stdout == match.group(1)


def test_json_output() -> None:
    result = check(f"{MISTAKES}/needs_input_grad_ignored.py", "--json")
    assert result.returncode == 0  # a hint does not fail
    data = json.loads(result.stdout)
    assert data["ok"] is True and data["summary"] == "1 Function checked: 1 OK, 0 failed"
    (report,) = data["functions"]
    assert report["function"] == "Mul" and report["ok"] is True
    assert [(f["name"], f["severity"]) for f in report["findings"]] == [("needs-input-grad-ignored", "hint")]
    assert {"name": "gradient", "status": "pass", "detail": "backward agrees with finite differences"} in (
        report["checks"]
    )

    failing = check(f"{MISTAKES}/wrong_gradient_count.py", "--json")
    assert failing.returncode == 1
    assert json.loads(failing.stdout)["functions"][0]["findings"][0]["name"] == "wrong-gradient-count"


def test_a_module_name_works_like_a_path(tmp_path: Path) -> None:
    (tmp_path / "my_ops.py").write_text((ROOT / GOOD).read_text(encoding="utf-8"), encoding="utf-8")
    result = check("my_ops::Cube", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("== Cube\n")


def test_a_path_that_does_not_exist() -> None:
    assert_clean_error(check("no_such_ops.py"), "no_such_ops.py does not exist.")
    assert_clean_error(check("no_such_package.ops"), "is neither an existing file nor an importable module")


@pytest.mark.parametrize(
    ("source", "fragments"),
    [
        ("def f(:\n    pass\n", ("has a syntax error at line 1",)),
        ("import ctxgrad\nX = 1\n", ("defines no subclass of ctxgrad.autograd.Function",)),
        ("raise RuntimeError('boom')\n", ("running it raised RuntimeError: boom", "line 1")),
    ],
    ids=["syntax-error", "no-functions", "import-raises"],
)
def test_bad_files(tmp_path: Path, source: str, fragments: tuple[str, ...]) -> None:
    path = tmp_path / "ops.py"
    path.write_text(source, encoding="utf-8")
    assert_clean_error(check(str(path)), *fragments)


def test_an_unknown_function_name_lists_the_ones_there() -> None:
    assert_clean_error(
        check(f"{GOOD}::Nope"),
        "defines no Function called 'Nope' (the Functions defined there: Cube, Exp, ScaledMatVec)",
    )


def test_bad_input_with_json_prints_the_error_as_json(tmp_path: Path) -> None:
    result = check(str(tmp_path / "missing.py"), "--json")
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["ok"] is False and "missing.py does not exist" in data["error"]


def test_a_forward_that_raises(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(
        "import ctxgrad\n"
        "from ctxgrad.autograd import Function\n"
        "from ctxgrad.checks import example\n\n"
        "@example(ctxgrad.tensor([1.0]))\n"
        "class Broken(Function):\n"
        "    @staticmethod\n"
        "    def forward(ctx, x):\n"
        "        raise ValueError('x must be positive')\n\n"
        "    @staticmethod\n"
        "    def backward(ctx, grad):\n"
        "        return grad\n",
        encoding="utf-8",
    )
    result = check(str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stdout + result.stderr
    assert "  error: [forward-raises] Broken.apply(*example inputs) raised ValueError: x must be positive" in (
        result.stdout
    )


_BARE = """\
from ctxgrad.autograd import Function

class Scale(Function):
    @staticmethod
    def forward(ctx, x, w, factor=2.0):
        ctx.save_for_backward(x, w)
        ctx.factor = factor
        return x * w * factor

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        return grad * w * ctx.factor, grad * x * ctx.factor, None
"""


def test_a_function_without_example_inputs_is_checked_on_inputs_guessed_from_forward(tmp_path: Path) -> None:
    path = tmp_path / "bare.py"
    path.write_text(_BARE, encoding="utf-8")
    result = check(str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (
        "  PASS  inputs                   2 tensor inputs checked, as float64; no example inputs, so guessed from "
        "forward's signature: x: [3, 3] float64, w: [3, 3] float64, factor=2.0"
    ) in result.stdout.splitlines()
    assert "  hint: [inputs-guessed] Scale gives no example inputs" in result.stdout


def test_inputs_describes_the_inputs_and_the_report_says_so(tmp_path: Path) -> None:
    path = tmp_path / "bare.py"
    path.write_text(_BARE, encoding="utf-8")
    result = check(str(path), "--inputs", "2x4,float64; 4,float64", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    (report,) = json.loads(result.stdout)["functions"]
    assert report["checks"][0]["detail"] == (
        "2 tensor inputs checked, as float64; inputs from --inputs '2x4,float64; 4,float64'"
    )
    assert [f["name"] for f in report["findings"]] == ["needs-input-grad-ignored"]  # a hint
    bad = check(str(path), "--inputs", "2y4,float64")
    assert_clean_error(bad, "cannot read the shape '2y4' in '2y4,float64'")


def test_several_paths_a_directory_and_a_glob_in_one_run(tmp_path: Path) -> None:
    """A progress line per file on stderr, every report, one summary; --json holds all."""
    result = check(GOOD, MISTAKES, "--json")
    assert result.returncode == 1
    files = sorted((ROOT / MISTAKES).glob("*.py"))
    progress = result.stderr.splitlines()
    assert len(progress) == 1 + len(files)
    assert progress[0] == f"[1/{len(progress)}] {GOOD}: 3 Functions, OK"
    assert f"{MISTAKES}/backward_uses_grad_magnitude.py: 1 Function, failed: Square (backward-not-linear)" in (
        result.stderr
    )
    data = json.loads(result.stdout)
    assert data["ok"] is False and data["target"] == [GOOD, MISTAKES]
    assert [f["path"] for f in data["files"]] == [GOOD, *(f"{MISTAKES}/{p.name}" for p in files)]
    assert len(data["functions"]) == 3 + len(files)
    hints = {"needs_input_grad_ignored.py", "once_differentiable_without_jvp.py"}
    failed = len(files) - len(hints)
    assert data["summary"] == (
        f"{3 + len(files)} Functions checked in {len(progress)} files: {3 + len(hints)} OK, {failed} failed"
    )

    (tmp_path / "ops.py").write_text((ROOT / GOOD).read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "helpers.py").write_text("X = 1\n", encoding="utf-8")  # no Function: skipped
    (tmp_path / "broken.py").write_text("raise ValueError('no')\n", encoding="utf-8")
    text = check(str(tmp_path / "*.py"))
    assert text.returncode == 2  # broken.py could not be checked; the others were
    lines = text.stderr.splitlines()
    assert lines[0].startswith(f"[1/3] {tmp_path / 'broken.py'}: not checked: cannot import")
    assert lines[1] == f"[2/3] {tmp_path / 'helpers.py'}: no Function defined, skipped"
    assert lines[2] == f"[3/3] {tmp_path / 'ops.py'}: 3 Functions, OK"
    assert text.stdout.splitlines()[-1] == "3 Functions checked in 3 files: 3 OK, 0 failed; 1 file could not be checked"
    assert_clean_error(check(str(tmp_path / "nothing*.py")), "nothing*.py matches no Python file.")


def test_complex_dtype() -> None:
    result = check(f"{MISTAKES}/complex_conjugate_missing.py", "--json")
    (report,) = json.loads(result.stdout)["functions"]
    assert [f["name"] for f in report["findings"]] == ["gradient-conjugate-missing"]
    # A real op run on complex inputs (real values given an imaginary part): its backward
    # has no conjugate, which is right for real inputs only.
    real_on_complex = check(f"{GOOD}::ScaledMatVec", "--dtype", "complex128")
    assert real_on_complex.returncode == 1
    assert "2 tensor inputs checked, as complex128" in real_on_complex.stdout
    assert "error: [gradient-conjugate-missing] the gradient of 'w' (index 0)" in real_on_complex.stdout


def test_version_is_the_package_version() -> None:
    import ctxgrad

    result = subprocess.run(
        [sys.executable, "-m", "ctxgrad", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"ctxgrad {ctxgrad.__version__}"


def test_the_console_script_names_itself_in_errors(capsys: pytest.CaptureFixture[str]) -> None:
    from ctxgrad.cli import main

    argv0 = sys.argv[0]
    sys.argv[0] = "/usr/local/bin/ctxgrad"
    try:
        code = main(["check", "no_such_file.py"])
    finally:
        sys.argv[0] = argv0
    assert code == 2
    assert capsys.readouterr().err.startswith("ctxgrad check: error: no_such_file.py does not exist.")


# Loading from the source: a check right after an edit runs the edited code.

_CUBE = """\
import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example
from {helper} import FACTOR


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return FACTOR * x * x * grad
"""


def _check_in_process(capsys: pytest.CaptureFixture[str], target: str) -> tuple[int, str]:
    from ctxgrad.cli import main

    code = main(["check", target])
    return code, capsys.readouterr().out


def test_a_file_rewritten_at_the_same_size_within_a_second_is_checked_anew(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bytecode cache judges a source by its modification time (in whole seconds) and
    size: the edit below keeps both, so a loader that used the cache would run the old code."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as in a user's shell
    (tmp_path / "cube_helper.py").write_text("FACTOR = 1\n", encoding="utf-8")
    ops = tmp_path / "my_ops.py"
    ops.write_text(_CUBE.format(helper="cube_helper").replace("FACTOR * x", "2 * x"), encoding="utf-8")
    stamp = ops.stat().st_mtime_ns
    code, out = _check_in_process(capsys, str(ops))
    assert code == 1
    assert "Cube: 9 passed, 1 failed, 3 skipped; 1 error, 0 hints -> FAILED" in out

    ops.write_text(_CUBE.format(helper="cube_helper").replace("FACTOR * x", "3 * x"), encoding="utf-8")
    os.utime(ops, ns=(stamp, stamp))  # the same size and the same time: only the text differs
    code, out = _check_in_process(capsys, str(ops))
    assert code == 0, out
    assert "Cube: 10 passed, 0 failed, 3 skipped; 0 errors, 0 hints -> OK" in out


def test_checking_leaves_no_bytecode_and_the_interpreter_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No ``__pycache__`` beside the file or the neighbour it imports; ``sys.path``,
    ``sys.dont_write_bytecode`` and ``sys.modules``' entry for the module as before, however
    often the same file or module is checked."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))  # so that `my_ops` is importable by name
    (tmp_path / "neighbour_factor.py").write_text("FACTOR = 3\n", encoding="utf-8")
    (tmp_path / "my_ops.py").write_text(_CUBE.format(helper="neighbour_factor"), encoding="utf-8")
    path_before = list(sys.path)
    for target in ("my_ops.py", str(tmp_path / "my_ops.py"), "my_ops", "my_ops.py::Cube"):
        code, out = _check_in_process(capsys, target)
        assert code == 0, out
        assert out.splitlines()[-1] == "1 Function checked: 1 OK, 0 failed"
        assert sys.path == path_before
        assert sys.dont_write_bytecode is False
        assert "my_ops" not in sys.modules and "_ctxgrad_check_my_ops" not in sys.modules
    assert sorted(p.name for p in tmp_path.iterdir()) == ["my_ops.py", "neighbour_factor.py"]
    sys.modules.pop("neighbour_factor", None)


def test_a_module_name_already_imported_is_checked_from_its_source_and_left_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "edited_factor.py").write_text("FACTOR = 2\n", encoding="utf-8")
    (tmp_path / "edited_ops.py").write_text(_CUBE.format(helper="edited_factor"), encoding="utf-8")
    import edited_ops  # type: ignore[import-not-found]

    monkeypatch.setitem(sys.modules, "edited_ops", edited_ops)
    (tmp_path / "edited_ops.py").write_text(
        _CUBE.format(helper="edited_factor").replace("FACTOR * x", "3 * x"), encoding="utf-8"
    )
    code, out = _check_in_process(capsys, "edited_ops")
    assert code == 0, out
    assert sys.modules["edited_ops"] is edited_ops
    sys.modules.pop("edited_factor", None)
