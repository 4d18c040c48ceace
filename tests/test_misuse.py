"""The misuse catalogue (``misuse_catalogue.py``), run on ctxgrad and on torch.

For every entry: ctxgrad raises the catalogued exception with the catalogued message, and
the message names the culprit; torch raises the exception the table says it raises (or,
where torch accepts the code, returns what the table says); the two exception types are
the same or ctxgrad's is a subclass of torch's, unless the entry points to the section of
``docs/differences.md`` that explains why not; and ``docs/misuse.md`` shows the entry as
the table says it.  Culprit words the table lists as ``missing`` are known gaps in
ctxgrad's messages, each a strict xfail.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from misuse_catalogue import CATALOGUE, PAGE, Misuse, message_pattern, render_entry, render_markdown, run_misuse

import ctxgrad

ENTRIES = [pytest.param(misuse, id=misuse.name) for misuse in CATALOGUE]
WITH_GAPS = [
    pytest.param(
        misuse,
        id=misuse.name,
        marks=pytest.mark.xfail(
            strict=True, reason=f"BUG: ctxgrad's message does not name {', '.join(misuse.missing)}"
        ),
    )
    for misuse in CATALOGUE
    if misuse.missing
]
DIFFERENCES = Path(__file__).resolve().parent.parent / "docs" / "differences.md"


def _ctxgrad_error(misuse: Misuse) -> BaseException:
    outcome = run_misuse(misuse, ctxgrad)
    assert outcome.exception is not None, f"ctxgrad raised nothing and returned {outcome.returned!r}"
    return outcome.exception


def test_the_catalogue_has_at_least_30_distinct_misuses() -> None:
    names = [m.name for m in CATALOGUE]
    assert len(set(names)) == len(names) >= 30
    assert len({m.run for m in CATALOGUE}) == len(CATALOGUE)


@pytest.mark.parametrize("misuse", ENTRIES)
def test_ctxgrad_raises_the_catalogued_exception_and_message(misuse: Misuse) -> None:
    outcome = run_misuse(misuse, ctxgrad)
    if misuse.ctxgrad_exception is None:
        assert outcome.exception is None, f"{type(outcome.exception).__name__}: {outcome.exception}"
        assert outcome.returned == misuse.outcome
        return
    exc = outcome.exception
    assert type(exc) is misuse.ctxgrad_exception, f"{type(exc).__name__}: {exc}"
    assert message_pattern(misuse.message).fullmatch(str(exc)), f"\n{exc}\n!=\n{misuse.message}"
    if misuse.check is not None:
        misuse.check(exc, outcome.warnings)


@pytest.mark.parametrize("misuse", ENTRIES)
def test_torch_behaves_as_catalogued(misuse: Misuse, torch: Any) -> None:
    outcome = run_misuse(misuse, torch)
    if misuse.torch_exception is None:
        assert outcome.exception is None, f"{type(outcome.exception).__name__}: {outcome.exception}"
        assert outcome.returned == misuse.outcome
        return
    exc = outcome.exception
    assert type(exc) is misuse.torch_exception, f"{type(exc).__name__}: {exc}"
    if misuse.torch_message is not None:
        assert misuse.torch_message in str(exc), str(exc)
    if misuse.check is not None:
        misuse.check(exc, outcome.warnings)


@pytest.mark.parametrize("misuse", ENTRIES)
def test_exception_types_agree_with_torch_or_the_difference_is_documented(misuse: Misuse) -> None:
    ours, theirs = misuse.ctxgrad_exception, misuse.torch_exception
    agree = ours is theirs or (ours is not None and theirs is not None and issubclass(ours, theirs))
    if misuse.difference is None:
        assert agree, f"ctxgrad raises {ours}, torch {theirs}, and the table names no difference"
        return
    section = re.match(r"\d+", misuse.difference)
    if section is not None:
        assert f"\n## {section.group()}. " in DIFFERENCES.read_text(), f"no section {section.group()} in {DIFFERENCES}"


@pytest.mark.parametrize("misuse", ENTRIES)
def test_the_message_names_the_culprit(misuse: Misuse) -> None:
    if misuse.ctxgrad_exception is None:
        assert not misuse.culprit
        return
    assert misuse.culprit, "an entry must say which words of its message name the culprit"
    message = str(_ctxgrad_error(misuse))
    assert [part for part in misuse.culprit if part not in message] == []


@pytest.mark.parametrize("misuse", WITH_GAPS)
def test_the_message_names_what_it_does_not_name_yet(misuse: Misuse) -> None:
    message = str(_ctxgrad_error(misuse))
    assert [part for part in misuse.missing if part not in message] == []


@pytest.mark.parametrize("misuse", ENTRIES)
def test_the_docs_page_shows_the_entry_with_its_exception_and_message(misuse: Misuse) -> None:
    page = PAGE.read_text()
    number = CATALOGUE.index(misuse) + 1
    assert render_entry(number, misuse) in page, f"docs/misuse.md does not show entry {number} ({misuse.name})"
    if misuse.ctxgrad_exception is not None:
        section = page.split(f'<a id="{misuse.name}"></a>')[1].split("<a id=")[0]
        assert misuse.ctxgrad_exception.__name__ in section
        assert misuse.message in section


def test_the_docs_page_is_up_to_date() -> None:
    assert PAGE.read_text() == render_markdown(), "regenerate it: python tests/misuse_catalogue.py --write"


GUARANTEES = Path(__file__).resolve().parent.parent / "docs" / "guarantees.md"


def test_every_test_named_in_guarantees_exists() -> None:
    root = GUARANTEES.parent.parent
    named = re.findall(r"`(tests/test_\w+\.py)::(test_\w+)`", GUARANTEES.read_text())
    assert named, "docs/guarantees.md names no test"
    missing = [
        f"{path}::{test}"
        for path, test in named
        if not (root / path).exists() or f"def {test}(" not in (root / path).read_text()
    ]
    assert missing == []
