"""The torch-surface measure (tools/torch_surface.py): it counts what it says, and the counts
cannot silently fall."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

_PATH = Path(__file__).resolve().parent.parent / "tools" / "torch_surface.py"
_spec = importlib.util.spec_from_file_location("torch_surface", _PATH)
assert _spec is not None and _spec.loader is not None
torch_surface = importlib.util.module_from_spec(_spec)
sys.modules["torch_surface"] = torch_surface
_spec.loader.exec_module(torch_surface)

#: The counts today; raise them as names are added, never lower them.
FUNCTIONS_AT_LEAST = 256
METHODS_AT_LEAST = 110


@pytest.fixture(scope="module")
def measure() -> object:
    return torch_surface.measure()


def test_ctxgrad_keeps_at_least_the_torch_functions_it_has(measure: object) -> None:
    assert len(measure.functions) == 300
    assert measure.function_count >= FUNCTIONS_AT_LEAST, torch_surface.report(measure)


def test_ctxgrad_keeps_at_least_the_tensor_methods_it_has(measure: object) -> None:
    assert 100 <= len(measure.methods) <= 152
    assert measure.method_count >= METHODS_AT_LEAST, torch_surface.report(measure)


def _fake_torch(doc: str) -> types.ModuleType:
    fake = types.ModuleType("torch")
    fake.__doc__ = doc

    class Tensor:
        def add(self) -> None: ...

        def sum(self) -> None: ...

    fake.Tensor = Tensor  # type: ignore[attr-defined]
    fake.add = lambda: None  # type: ignore[attr-defined]
    fake.exp = lambda: None  # type: ignore[attr-defined]
    fake.pi = 3.14  # type: ignore[attr-defined]
    return fake


def test_only_example_lines_count_and_only_what_torch_has() -> None:
    fake = _fake_torch(
        "torch.add(x) in prose does not count\n"
        "    >>> torch.add(x, torch.exp(y)).sum()\n"
        "    ... torch.nn.functional.add(x)\n"
        "    >>> torch.pi(3)  # not callable\n"
        "    >>> torch.missing(3)\n"
        "    >>> torch.Tensor.add(x); x.sum(); x.shape()\n"
    )
    functions, methods = torch_surface.count(fake)
    assert functions == {"add": 1, "exp": 1}
    # .add( of torch.nn.functional is a function; torch.Tensor.add( is a method; shape is no method
    assert methods == {"sum": 2, "add": 1}


def test_the_report_lists_what_is_missing_and_with_all_what_is_there() -> None:
    result = torch_surface.Measure(
        [("add", 5), ("frobnicate", 2)], [("sum", 3)], {"add": True, "frobnicate": False}, {"sum": True}
    )
    short, full = torch_surface.report(result), torch_surface.report(result, show_all=True)
    assert "ctxgrad has 1 of the 2" in short and "ctxgrad has 1 of the 1" in short
    assert "  - frobnicate (2)" in short and "add" not in short.split("uses):")[1]
    assert "  + add (5)" in full and "  + sum (3)" in full
