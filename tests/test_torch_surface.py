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
FUNCTIONS_AT_LEAST = 288
METHODS_AT_LEAST = 119


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


_DIFFERENCES = Path(__file__).resolve().parent.parent / "docs" / "differences.md"
_LEFT_OUT = "The names the measure still counts as missing"


def _left_out_table() -> dict[str, set[str]]:
    """The names ``docs/differences.md`` lists as left out, by kind (``function``, ``method``)."""
    text = _DIFFERENCES.read_text(encoding="utf-8")
    assert _LEFT_OUT in text, f"docs/differences.md lost its paragraph {_LEFT_OUT!r}"
    table = text.split(_LEFT_OUT, 1)[1].split("\n## ", 1)[0]
    listed: dict[str, set[str]] = {"function": set(), "method": set()}
    for line in table.splitlines():
        if line.startswith("| `"):
            name, kind, reason = (cell.strip() for cell in line.strip("|").split("|"))
            assert reason, f"{name} has no reason"
            listed[kind].add(name.strip("`"))
    return listed


def test_docs_list_every_name_the_measure_misses_and_no_other(measure: object) -> None:
    listed = _left_out_table()
    missing_functions = {name for name, _ in measure.functions if not measure.has_function[name]}
    missing_methods = {name for name, _ in measure.methods if not measure.has_method[name]}
    assert listed["function"] == missing_functions, (
        f"add to docs/differences.md: {sorted(missing_functions - listed['function'])}; "
        f"remove (ctxgrad has them now): {sorted(listed['function'] - missing_functions)}"
    )
    assert listed["method"] == missing_methods, (
        f"add to docs/differences.md: {sorted(missing_methods - listed['method'])}; "
        f"remove (ctxgrad has them now): {sorted(listed['method'] - missing_methods)}"
    )
