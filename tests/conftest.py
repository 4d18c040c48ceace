"""Shared fixtures, the parametrization of the op test kit (``_opcheck.py``) and the quick
subset (``-m quick``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _opcheck import CHECKS, OpFamilyTests, case_params

import ctxgrad

# The quick subset, for the inner loop (`python -m pytest -m quick`): the teaching core, the
# checker and the teaching file whole, less the tests that take seconds each; and one case of
# every op family (the first of its table, through every check of the kit).  A file maps to
# None (all of its tests) or to the names of the tests that are quick.  tests/test_quick.py
# keeps these names true.
QUICK_TESTS: dict[str, frozenset[str] | None] = {
    "test_core_size.py": None,
    "test_engine.py": None,
    "test_function_api.py": None,
    "test_grad_modes.py": None,
    "test_checks.py": None,
    "test_mini_ctxgrad.py": None,
    "test_cli.py": frozenset(
        {
            "test_good_ops_pass_with_exit_code_0",  # the one end-to-end run in a subprocess
            "test_a_file_rewritten_at_the_same_size_within_a_second_is_checked_anew",
            "test_checking_leaves_no_bytecode_and_the_interpreter_as_it_was",
            "test_the_console_script_names_itself_in_errors",
        }
    ),
}
# Seconds each, so not quick though their files are.
NOT_QUICK = frozenset(
    {
        "test_million_op_chain_forward_backward_and_free_with_default_recursion_limit",
        "test_graph_memory_is_a_bounded_constant_per_node",
    }
)


def _only_quick(config: pytest.Config) -> bool:
    """``-m quick`` as such: then the rest is not even collected (collecting all of it takes
    longer than running the quick tests)."""
    return str(config.getoption("markexpr", "")).strip() == "quick"


def _defines_an_op_family(path: Path) -> bool:
    return "(OpFamilyTests):" in path.read_text(encoding="utf-8")


def _is_quick(item: pytest.Item) -> bool:
    name = getattr(item, "originalname", item.name)
    if name in NOT_QUICK:
        return False
    cls = getattr(item, "cls", None)
    if cls is not None and issubclass(cls, OpFamilyTests):
        case = getattr(item, "callspec", None) and item.callspec.params.get("case")  # type: ignore[attr-defined]
        tables = (cls.cases, cls.double_cases)
        return case is not None and any(table and case is table[0] for table in tables)
    if item.path.name not in QUICK_TESTS:
        return False
    names = QUICK_TESTS[item.path.name]
    return names is None or name in names


@pytest.fixture(autouse=True)
def _default_dtypes_restored() -> Iterator[None]:
    """Each test starts from float32, ctxgrad's and torch's default dtype, whatever an earlier
    test in the same process (under xdist, any earlier test) left set."""
    yield
    if ctxgrad.get_default_dtype() != ctxgrad.float32:
        ctxgrad.set_default_dtype(ctxgrad.float32)
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_default_dtype() != torch.float32:
        torch.set_default_dtype(torch.float32)


@pytest.fixture(scope="session")
def torch() -> Any:
    """torch, or skip the test when it is not installed."""
    return pytest.importorskip("torch")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run each check of an op family over its table: ``double_cases`` for the
    double-backward checks, ``cases`` for the rest (only the first under ``-m quick``)."""
    cls = metafunc.cls
    if cls is None or not issubclass(cls, OpFamilyTests) or "case" not in metafunc.fixturenames:
        return
    name = metafunc.function.__name__
    cases = cls.double_cases if "double_backward" in name else cls.cases
    if _only_quick(metafunc.config):
        cases = cases[:1]
    metafunc.parametrize("case", case_params(cases, CHECKS[name]))


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Under ``-m quick``, skip the files of tests/ that hold no quick test."""
    if not _only_quick(config) or collection_path.suffix != ".py" or collection_path.name == "conftest.py":
        return None
    if collection_path.name in QUICK_TESTS or _defines_an_op_family(collection_path):
        return None
    return True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.parent == Path(__file__).parent and _is_quick(item):
            item.add_marker(pytest.mark.quick)


# The Hypothesis profiles of the fuzz tests, registered before pytest reads `--hypothesis-profile`.
from _fuzz import register_profiles  # noqa: E402

register_profiles()
