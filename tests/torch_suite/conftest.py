"""torch's own test files on ctxgrad (or, with ``CTXGRAD_SUITE_BACKEND=torch``, on torch).

On the ctxgrad backend each test of ``_suite_manifest.XFAIL`` is marked
``xfail(strict=True)`` with its category and reason.  With ``CTXGRAD_SUITE_REPORT`` set to a
path, each test's outcome is appended there as a JSON line (``tools/torch_suite_figures.py``
reads it).
"""

from __future__ import annotations

import json
import os

import pytest
from _suite import backend_name
from _suite_manifest import XFAIL

# torch's files themselves are read by _suite.load, never collected as they are.
collect_ignore = ["upstream"]


def _source_of(item: pytest.Item) -> str | None:
    module = getattr(item, "module", None)
    return getattr(module, "__torch_suite_source__", None)


def _test_id(item: pytest.Item) -> str:
    cls = getattr(item, "cls", None)
    return f"{cls.__name__}.{item.name}" if cls is not None else item.name


# nodeid -> (torch's file, Class.test_name), for the report
_PORTED: dict[str, tuple[str, str]] = {}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        source = _source_of(item)
        if source is None:
            continue
        _PORTED[item.nodeid] = (source, _test_id(item))
        if backend_name() != "ctxgrad":
            continue
        expected = XFAIL.get(source, {}).get(_test_id(item))
        if expected is not None:
            category, reason = expected
            item.add_marker(pytest.mark.xfail(strict=True, reason=f"{category}: {reason}"))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = os.environ.get("CTXGRAD_SUITE_REPORT")
    ported = _PORTED.get(report.nodeid)
    if not path or ported is None:
        return
    if report.when == "call" or (report.when != "teardown" and report.outcome != "passed"):
        outcome = report.outcome
        if hasattr(report, "wasxfail"):
            outcome = "xfailed" if report.outcome == "skipped" else "xpassed"
        elif str(report.longrepr).startswith("[XPASS(strict)]"):
            outcome = "xpassed"
        skip_reason = report.longrepr[2] if outcome == "skipped" and isinstance(report.longrepr, tuple) else ""
        record = {
            "source": ported[0],
            "test": ported[1],
            "outcome": outcome,
            "backend": backend_name(),
            "reason": str(skip_reason).removeprefix("Skipped: "),
        }
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
