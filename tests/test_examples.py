"""The scripts in examples/ run, print what they promise and exit with the right code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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
