"""The optional compiled core (``tools/build_compiled.py``): ``ctxgrad.version`` says which core
runs, and where the compiled one runs, it computes bit for bit what the pure-Python one does.

Without a compiled build (a plain install) only the first test runs; the others skip.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import ctxgrad

# Workloads run by both cores, each in a fresh interpreter: the benchmarks' chains of custom and
# built-in ops, an MLP training step, a few more ops and a double backward.  Each prints which
# core ran, then the bytes of every gradient and value it computed, in hex.
_WORKLOADS = r"""
import numpy as np
import ctxgrad
from ctxgrad import nn

out = [str(ctxgrad.version.compiled)]

def show(*tensors):
    out.extend(np.ascontiguousarray(t.detach().numpy()).tobytes().hex() for t in tensors)

class Squash(ctxgrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x / (1 + x * x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (1 - x * x) / (1 + x * x) ** 2

x = ctxgrad.linspace(-2, 2, 16, dtype=ctxgrad.float64, requires_grad=True)
y = x
for _ in range(50):
    y = Squash.apply(y) * 1.5
y.sum().backward()
show(y, x.grad)

x = ctxgrad.linspace(-1, 1, 16, dtype=ctxgrad.float64, requires_grad=True)
y = x
for i in range(1, 201):
    y = y * 1.0001 + 0.001
    if i % 10 == 0:
        y = ctxgrad.tanh(y)
y.sum().backward()
show(y, x.grad)

ctxgrad.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 3))
optimizer = ctxgrad.optim.SGD(model.parameters(), lr=0.1)
rng = np.random.default_rng(0)
inputs = ctxgrad.from_numpy(rng.standard_normal((4, 8)).astype(np.float32))
labels = ctxgrad.tensor([0, 2, 1, 2])
for _ in range(3):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(inputs), labels)
    loss.backward()
    optimizer.step()
show(loss, *model.parameters())

a = ctxgrad.tensor([[0.5, -1.5], [2.0, 3.0]], dtype=ctxgrad.float64, requires_grad=True)
b = ctxgrad.tensor([[1.25, 0.75], [-0.5, 4.0]], dtype=ctxgrad.float64, requires_grad=True)
z = ((a - b) / (a * b + 3) - 2.0 / b + (a @ b) ** 2).sum()
(ga, gb) = ctxgrad.autograd.grad(z, (a, b), create_graph=True)
(gga,) = ctxgrad.autograd.grad((ga * gb).sum(), (a,))
show(z, ga, gb, gga)
print("\n".join(out))
"""


def _run_workloads(package_parent: Path, cwd: Path) -> list[str]:
    """The workloads' printed lines, run with ``package_parent``'s ctxgrad first on the path."""
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(package_parent)!r})\n{_WORKLOADS}"],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_version_says_which_core_runs() -> None:
    runs_compiled = {
        m: not (importlib.import_module(m).__file__ or "").endswith(".py") for m in ctxgrad.version.COMPILABLE
    }
    assert ctxgrad.version.compiled_modules == tuple(m for m, c in runs_compiled.items() if c)
    assert ctxgrad.version.compiled is any(runs_compiled.values())


def _compiled_sources() -> list[tuple[Path, Path]]:
    """(compiled module, its .py source) for each module that runs compiled."""
    pairs = []
    for name in ctxgrad.version.compiled_modules:
        built = Path(importlib.import_module(name).__file__ or "")
        pairs.append((built, built.parent / (name.rsplit(".", 1)[1] + ".py")))
    return pairs


@pytest.mark.skipif(not ctxgrad.version.compiled, reason="the compiled core is not built (tools/build_compiled.py)")
def test_compiled_modules_are_not_older_than_their_sources() -> None:
    # A compiled module hides its .py: an edit made after the build would not run.
    stale = [
        str(source.name)
        for built, source in _compiled_sources()
        for dependency in (source, source.with_suffix(".pxd"), source.with_suffix(".pyx"))
        if dependency.exists() and dependency.stat().st_mtime > built.stat().st_mtime
    ]
    assert stale == [], f"rebuild with tools/build_compiled.py: {stale} changed after the build"


@pytest.mark.skipif(not ctxgrad.version.compiled, reason="the compiled core is not built (tools/build_compiled.py)")
def test_compiled_and_pure_cores_give_bit_identical_results(tmp_path: Path) -> None:
    installed = Path(ctxgrad.__file__).parent
    pure = tmp_path / "pure"
    shutil.copytree(installed, pure / "ctxgrad", ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    compiled_lines = _run_workloads(installed.parent, tmp_path)
    pure_lines = _run_workloads(pure, tmp_path)
    assert compiled_lines[0] == "True"
    assert pure_lines[0] == "False"
    assert len(compiled_lines) == 1 + 2 + 2 + 5 + 4
    assert compiled_lines[1:] == pure_lines[1:]


# ------------------------------------------------------------------ the .pxd declarations

_PACKAGE = Path(ctxgrad.__file__).resolve().parent
_HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class made by a class statement, not an extension type


def _declared_classes() -> dict[tuple[str, str], list[str]]:
    """(module, class) -> the fields its ``.pxd`` declares, for every ``cdef class`` there."""
    declared: dict[tuple[str, str], list[str]] = {}
    for pxd in sorted(_PACKAGE.rglob("*.pxd")):
        module = ".".join(pxd.relative_to(_PACKAGE.parent).with_suffix("").parts)
        fields: list[str] | None = None
        for line in pxd.read_text().splitlines():
            if match := re.match(r"cdef class (\w+)", line):
                fields = declared.setdefault((module, match.group(1)), [])
            elif fields is not None and (match := re.match(r"    cdef public object (\w+)$", line)):
                fields.append(match.group(1))
    return declared


def test_every_declared_class_has_its_slots_as_fields() -> None:
    # The .pxd (compiled core) and the class's __slots__ (pure Python) list the same fields, so
    # both cores give a tensor, the thread's modes and a saved tensor the same attributes.
    declared = _declared_classes()
    assert {("ctxgrad._tensor_base", "TensorBase"), ("ctxgrad._state", "Modes")} <= set(declared)
    for (module, name), fields in declared.items():
        cls = getattr(importlib.import_module(module), name)
        assert sorted(fields) == sorted(cls.__slots__), f"{module}.{name}"


@pytest.mark.skipif(not ctxgrad.version.compiled, reason="the compiled core is not built (tools/build_compiled.py)")
def test_the_declared_classes_are_extension_types_in_the_compiled_core() -> None:
    for module, name in _declared_classes():
        cls = getattr(importlib.import_module(module), name)
        assert not cls.__flags__ & _HEAP_TYPE, f"{module}.{name} was not built from its .pxd"
        obj = cls.__new__(cls)
        assert all(getattr(obj, field) is None for field in cls.__slots__)  # (members start as None)
    # Tensor stays a class of its own statement (the op table attaches its methods to it), on
    # TensorBase; as torch's, object.__new__ refuses it.
    assert ctxgrad.Tensor.__flags__ & _HEAP_TYPE
    assert ctxgrad.Tensor.__mro__[1].__name__ == "TensorBase"
    with pytest.raises(TypeError, match="is not safe, use"):
        object.__new__(ctxgrad.Tensor)
