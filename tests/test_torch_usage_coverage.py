"""The usage measure (tools/torch_usage_coverage.py): it counts what it says, each name a test
marks is a real name of torch-usage.tsv, and the coverage cannot silently fall."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("torch_usage_coverage", ROOT / "tools" / "torch_usage_coverage.py")
assert _spec is not None and _spec.loader is not None
usage = importlib.util.module_from_spec(_spec)
sys.modules["torch_usage_coverage"] = usage
_spec.loader.exec_module(usage)

#: The share today, weighted by repositories, of the in-scope names that ctxgrad has and a test
#: compares with torch; raise it as names are covered, never lower it.
COVERED_PERCENT_AT_LEAST = 99.9
#: The same for the keyword forms used in at least KEYWORD_MIN_REPOS repositories.
KEYWORDS_COVERED_PERCENT_AT_LEAST = 99.9

TSV = usage.REFERENCE / "torch-usage.tsv"
needs_tsv = pytest.mark.skipif(
    not TSV.is_file(), reason=f"torch-usage.tsv is not at {TSV} (the shared/reference folder beside the repository)"
)


@pytest.fixture(scope="module")
def coverage() -> Any:
    return usage.measure()


@needs_tsv
def test_the_coverage_of_the_used_names_does_not_fall(coverage: Any) -> None:
    assert len(coverage.in_scope) > 800
    assert coverage.covered_percent >= COVERED_PERCENT_AT_LEAST, usage.report(coverage)
    assert coverage.covered_percent <= coverage.present_percent


@needs_tsv
def test_the_coverage_of_the_keyword_forms_does_not_fall(coverage: Any) -> None:
    assert len(coverage.keywords) >= 60  # (the table of torch-usage.md has 60)
    assert coverage.keyword_percent(tested=True) >= KEYWORDS_COVERED_PERCENT_AT_LEAST, usage.report(coverage)


def _on_torch(torch: Any, name: str) -> bool:
    """``name`` resolves on torch, spelled as the TSV spells names (``Tensor.x`` for a Tensor
    attribute, ``torch.nn.Module.x`` for a Module's)."""
    if name.startswith("Tensor."):
        name = "torch." + name
    obj: Any = torch
    parts = name.split(".")
    for i, part in enumerate(parts[1:], start=2):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                return False
    return True


@needs_tsv
def test_every_marked_name_is_spelled_as_the_tsv_spells_names() -> None:
    """A misspelt marker would count nothing: each name a ``torch_names`` marker gives is a row of
    the TSV (in scope or out) or a keyword form ``NAME(KEYWORD=)`` of one, or else (with torch
    installed) a name of torch that the TSV leaves out, spelled as the TSV spells names:
    ``Tensor.pow``, never ``torch.Tensor.pow``."""
    names = {u.name for u in usage.read_usage(TSV)}
    counted, ignored = usage.marker_names(ROOT / "tests")
    assert counted, "no torch_names markers found"
    assert not ignored, f"torch_names markers in files that do not run torch (they count nothing): {ignored}"
    outside = {}
    for name, where in counted.items():
        form = usage.KEYWORD_FORM.match(name)
        if (form["name"] if form else name) not in names:
            outside[name] = where
    misspelt = {name: where for name, where in outside.items() if name.startswith("torch.Tensor.")}
    assert not misspelt, f"torch_names markers spelling a Tensor name as torch.Tensor.x (the TSV: Tensor.x): {misspelt}"
    if outside and importlib.util.find_spec("torch") is not None:
        import torch

        unknown = {name: where for name, where in outside.items() if not _on_torch(torch, name)}
        assert not unknown, f"torch_names markers naming nothing of torch: {unknown}"


@needs_tsv
def test_the_report_lists_the_counts_and_the_uncovered_names(coverage: Any) -> None:
    text = usage.report(coverage)
    assert f"{len(coverage.in_scope)} in-scope names" in text
    assert f"{coverage.covered_percent:6.2f}% weighted" in text
    first = coverage.uncovered()[0] if coverage.uncovered() else None
    if first is not None:
        assert f" {first.name} ({first.repos})" in text
    data = usage.as_json(coverage)
    assert data["in_scope"] == len(data["names"]) == len(coverage.in_scope)
    assert abs(data["covered_weighted_percent"] - coverage.covered_percent) < 1e-3


def test_presence_follows_attributes_submodules_and_instances() -> None:
    rows = [
        usage.Usage(name, "x", 1, 1, True)
        for name in (
            "torch.nn.functional.relu",  # an attribute chain
            "torch.utils.checkpoint.checkpoint",  # a submodule to import on the way
            "Tensor.grad",  # an instance attribute
            "torch.nn.Module.training",  # set by Module.__init__, not on the class
            "torch.return_types.values",  # of what ctxgrad.max(x, 0) returns
            "torch.autograd.function.FunctionCtx.saved_tensors",
            "torch.no_such_name",
            "Tensor.no_such_name",
        )
    ]
    found = usage.presence(rows)
    assert [found[r.name] for r in rows] == [True] * 6 + [False] * 2


def test_markers_are_read_from_decorators_pytestmark_params_and_constants(tmp_path: Path) -> None:
    (tmp_path / "test_a.py").write_text(
        "import pytest\n"
        "torch = pytest.importorskip('torch')\n"
        "NAMES = ('torch.cat', 'Tensor.sum')\n"
        "pytestmark = pytest.mark.torch_names('torch.zeros')\n"
        "torch_names = pytest.mark.torch_names\n"
        "@pytest.mark.torch_names(*NAMES)\n"
        "def test_x(): pass\n"
        "@pytest.mark.parametrize('v', [pytest.param(1, marks=torch_names('Tensor.mean'))])\n"
        "def test_y(v): pass\n"
    )
    (tmp_path / "test_b.py").write_text("import pytest\n@pytest.mark.torch_names('torch.ones')\ndef test_z(): pass\n")
    counted, ignored = usage.marker_names(tmp_path)
    assert sorted(counted) == ["Tensor.mean", "Tensor.sum", "torch.cat", "torch.zeros"]
    assert list(ignored) == ["torch.ones"]  # test_b.py does not run torch


def test_a_case_compared_with_torch_counts_its_rows_names(tmp_path: Path) -> None:
    (tmp_path / "test_ops_x.py").write_text(
        "class TestX(OpFamilyTests):\n"
        "    cases = [\n"
        "        Case('a', lambda m, a: m.nn.functional.softplus(a).exp(), any_((2,))),\n"
        "        Case('b', lambda m, a: a.cumsum(0), any_((2,)), bugs={'torch': 'differs'}),\n"
        "    ]\n"
    )
    calls = usage.compared_case_calls(tmp_path)
    assert sorted(calls) == ["Tensor.exp", "torch.nn.functional.softplus"]
    names = usage.op_case_names(tmp_path)
    assert {"torch.exp", "Tensor.exp", "Tensor.exp_"} <= set(names)
    assert "Tensor.cumsum" not in names  # its case is expected to differ from torch


def test_keyword_acceptance_reads_the_signature_not_a_star_parameter() -> None:
    assert usage.takes_keyword("torch.cat", "dim")
    assert usage.takes_keyword("Tensor.to", "dtype")  # **kwargs: by a trial call
    assert not usage.takes_keyword("torch.cat", "no_such_keyword")
    assert not usage.takes_keyword("torch.zeros", "sizes")  # ctxgrad.zeros(*sizes, size=...)
    assert usage.takes_keyword("torch.zeros", "size")
