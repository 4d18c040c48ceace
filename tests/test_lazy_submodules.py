"""``import ctxgrad`` (and so each ``ctxgrad check`` run) loads only the tensor, the ops and
autograd; ``ctxgrad.nn``, ``optim``, ``utils``, ``distributions``, ``testing``, ``viz`` and the
serialization functions load on first use, and are public as if imported eagerly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOADED_ON_FIRST_USE = ["distributions", "nn", "optim", "serialization", "testing", "utils", "viz"]


def run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_import_ctxgrad_and_the_checker_leave_them_unloaded() -> None:
    code = (
        "import sys, ctxgrad, ctxgrad.cli, ctxgrad.checks\n"
        "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('ctxgrad.')} & set(sys.argv[1:])))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, *LOADED_ON_FIRST_USE],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    )
    assert result.stdout.strip() == "[]", result.stderr


def test_they_load_on_first_use_under_their_public_names() -> None:
    out = run(
        "import ctxgrad\n"
        "from ctxgrad import save, load, optim\n"
        "import ctxgrad.nn.functional as F\n"
        "print(ctxgrad.nn.Linear.__module__, optim.SGD.__name__, save.__module__, load is ctxgrad.load,\n"
        "      F.relu(ctxgrad.tensor([-1.0, 2.0])).tolist(), ctxgrad.distributions.Normal.__name__,\n"
        "      all(n in dir(ctxgrad) for n in ('nn', 'optim', 'utils', 'testing', 'viz', 'save', 'load')),\n"
        "      ctxgrad.trace.__module__)"
    )
    assert out == "ctxgrad.nn.modules.linear SGD ctxgrad.serialization True [0.0, 2.0] Normal True ctxgrad.trace"


def test_a_name_that_is_not_there_is_an_attribute_error() -> None:
    out = run("import ctxgrad\ntry:\n    ctxgrad.no_such_name\nexcept AttributeError as exc:\n    print(exc)")
    assert out == "module 'ctxgrad' has no attribute 'no_such_name'"
