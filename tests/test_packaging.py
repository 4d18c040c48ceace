"""The package as users meet it: licence, metadata, one version, links that work off-site."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import ctxgrad

ROOT = Path(__file__).resolve().parent.parent
REPO = "https://github.com/ctxgrad/ctxgrad"

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the floor leg
    tomllib = pytest.importorskip("tomli")


def project() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        table: dict[str, object] = tomllib.load(f)["project"]
    return table


def test_the_licence_is_bsd_3_clause_in_a_file_and_in_the_metadata() -> None:
    assert project()["license"] == "BSD-3-Clause"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("BSD 3-Clause License")


def test_the_version_has_one_source() -> None:
    assert project()["dynamic"] == ["version"]
    assert "version" not in project()
    assert re.fullmatch(r"\d+\.\d+\.\d+", ctxgrad.__version__)


def test_the_console_script_is_the_cli() -> None:
    assert project()["scripts"] == {"ctxgrad": "ctxgrad.cli:main"}


def test_metadata_names_urls_pythons_and_audiences() -> None:
    meta = project()
    urls = meta["urls"]
    assert isinstance(urls, dict) and set(urls) == {"Homepage", "Documentation", "Changelog", "Issues"}
    # The documentation as a site (built from docs/ as .readthedocs.yaml says), not Markdown in a tree.
    assert urls.pop("Documentation") == "https://ctxgrad.readthedocs.io/"
    assert all(url.startswith(REPO) for url in urls.values())
    classifiers = meta["classifiers"]
    assert isinstance(classifiers, list)
    for minor in (10, 11, 12, 13):
        assert f"Programming Language :: Python :: 3.{minor}" in classifiers
    for needed in (
        "Intended Audience :: Science/Research",
        "Intended Audience :: Education",
        "Operating System :: OS Independent",
        "Typing :: Typed",
    ):
        assert needed in classifiers
    assert any(c.startswith("Development Status ::") for c in classifiers)


def test_readme_links_are_absolute_and_point_at_files_in_the_tree() -> None:
    # The README is also the package index page, where a relative link leads nowhere.
    links = re.findall(r"\]\(([^)]+)\)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert links
    for link in links:
        assert link.startswith("https://"), f"relative link {link!r} breaks on the package index page"
        if link.startswith(f"{REPO}/blob/main/"):
            assert (ROOT / link.removeprefix(f"{REPO}/blob/main/")).exists(), link
