"""The quick subset (``-m quick``, picked in conftest.py) names tests that exist."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import NOT_QUICK, QUICK_TESTS

TESTS = Path(__file__).resolve().parent


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.name.startswith("test")}


def test_every_quick_file_and_test_name_exists() -> None:
    for file, names in QUICK_TESTS.items():
        assert (TESTS / file).is_file(), f"conftest.QUICK_TESTS names {file}, which is not in tests/"
        missing = set(names or ()) - _test_names(TESTS / file)
        assert not missing, f"conftest.QUICK_TESTS names tests that {file} does not define: {sorted(missing)}"


def test_every_test_left_out_of_the_quick_subset_exists_in_a_quick_file() -> None:
    defined = set().union(*(_test_names(TESTS / file) for file in QUICK_TESTS))
    assert NOT_QUICK <= defined, sorted(NOT_QUICK - defined)


def test_the_quick_marker_is_registered(pytestconfig: pytest.Config) -> None:
    """In pyproject.toml, so that ``--strict-markers`` accepts it and ``--markers`` lists it."""
    markers = [m.split(":")[0] for m in pytestconfig.getini("markers")]
    assert "quick" in markers
