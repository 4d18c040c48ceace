"""The documentation site stays whole without building it (the CI docs leg builds it with
Sphinx, warnings as errors, and runs every example; ``python -m pytest docs`` runs them too).

- every page of ``docs/`` is in a table of contents of ``docs/index.md``;
- every listing a page reads from the source (``literalinclude`` with ``:pyobject:``)
  names a function or class that exists, so a renamed core function fails here, not only
  in the docs build;
- every "same as torch" row of the porting guide names a test that exists and runs the
  same code on torch.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def _toctree_entries() -> set[str]:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    entries: set[str] = set()
    for block in re.findall(r"```\{toctree\}\n(.*?)```", index, re.S):
        entries |= {line.strip() for line in block.splitlines() if line.strip() and not line.startswith(":")}
    return entries


def test_every_page_is_in_the_table_of_contents() -> None:
    pages = {p.stem for p in DOCS.glob("*.md") if p.stem != "index"} | {p.stem for p in DOCS.glob("*.rst")}
    entries = _toctree_entries()
    assert pages - entries == set(), "pages missing from the toctrees of docs/index.md"
    assert entries - pages == set(), "toctree entries without a page"


def _defined_names(path: Path) -> set[str]:
    """Dotted names of the functions and classes a module defines (``Class.method`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            if isinstance(node, ast.ClassDef):
                names |= {
                    f"{node.name}.{item.name}"
                    for item in node.body
                    if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
                }
    return names


LISTINGS = [
    (page.name, target, obj)
    for page in sorted(DOCS.glob("*.md"))
    for target, obj in re.findall(
        r"```\{literalinclude\} (\S+)\n(?::\w[\w-]*:.*\n)*?:pyobject: (\S+)\n", page.read_text(encoding="utf-8")
    )
]


def test_the_pages_read_listings_from_the_source() -> None:
    assert len(LISTINGS) >= 6


@pytest.mark.parametrize(("page", "target", "obj"), LISTINGS)
def test_each_listing_names_a_function_that_exists(page: str, target: str, obj: str) -> None:
    source = (DOCS / target).resolve()
    assert source.is_file(), f"{page}: no file {target}"
    assert obj in _defined_names(source), f"{page}: {target} defines no {obj}"


def _porting_references() -> list[tuple[str, str]]:
    text = (DOCS / "porting.md").read_text(encoding="utf-8")
    section = text[text.index("### The same as torch") : text.index("### Where ctxgrad differs on purpose")]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "`tests/" in line]
    assert len(rows) >= 20
    for row in rows:
        assert re.search(r"`tests/\S+\.py::test_\w+`", row), f"a row without a test: {row}"
    return re.findall(r"`(tests/\S+\.py)::(test_\w+)`", section)


@pytest.mark.parametrize(("file", "name"), _porting_references())
def test_each_same_as_torch_row_points_at_a_comparison_test(file: str, name: str) -> None:
    path = ROOT / file
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text)
    tests = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    assert len(tests) == 1, f"no test {name} in {file}"
    # It runs torch: a module that is skipped without torch (every test there runs the same
    # code on both libraries), or a test that takes the torch fixture.
    module_compares = 'torch = pytest.importorskip("torch")' in text
    assert module_compares or "torch" in [a.arg for a in tests[0].args.args], f"{file}::{name} does not use torch"
