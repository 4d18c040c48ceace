"""Shared fixtures and the parametrization of the op test kit (``_opcheck.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from _opcheck import CHECKS, OpFamilyTests, case_params


@pytest.fixture(scope="session")
def torch() -> Any:
    """torch, or skip the test when it is not installed."""
    return pytest.importorskip("torch")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run each check of an op family over its table: ``double_cases`` for the
    double-backward checks, ``cases`` for the rest."""
    cls = metafunc.cls
    if cls is None or not issubclass(cls, OpFamilyTests) or "case" not in metafunc.fixturenames:
        return
    name = metafunc.function.__name__
    cases = cls.double_cases if "double_backward" in name else cls.cases
    metafunc.parametrize("case", case_params(cases, CHECKS[name]))


# The Hypothesis profiles of the fuzz tests, registered before pytest reads `--hypothesis-profile`.
from _fuzz import register_profiles  # noqa: E402

register_profiles()
