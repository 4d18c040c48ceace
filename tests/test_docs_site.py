"""The documentation site stays whole without building it (the CI docs leg builds it with
Sphinx, warnings as errors, and runs every example; ``python -m pytest docs`` runs them too).

- every page of ``docs/`` is in a table of contents of ``docs/index.md``;
- every listing a page reads from the source (``literalinclude`` with ``:pyobject:``)
  names a function or class that exists, so a renamed core function fails here, not only
  in the docs build;
- every "same as torch" row of the porting guide names a test that exists and runs the
  same code on torch;
- the API reference has a page for every public module and describes every public class
  and function once;
- the graph pages show pictures of the graphs their examples make: each committed SVG of
  ``docs/_graphs`` is drawn from the DOT text the page's examples give today, and the built
  HTML holds them (``CTXGRAD_DOCS_HTML``: a built site to check; else, with Sphinx
  installed, the pages with pictures are built here).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import os
import pkgutil
import re
import sys
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


# --------------------------------------------------------------------------- API reference

sys.path.insert(0, str(DOCS / "_ext"))  # the site's own extensions, importable without Sphinx
import api_homes  # noqa: E402
import graph_pictures  # noqa: E402
import run_examples  # noqa: E402

API = DOCS / "api.rst"


# Imported for what importing does (ctxgrad.as_torch installs the torch alias), so not
# imported to be documented: docs/running-torch-programs.md describes it.
IMPORTED_FOR_EFFECT = {"ctxgrad.as_torch"}


def _public_modules() -> list[str]:
    import ctxgrad

    return [
        m.name
        for m in pkgutil.walk_packages(ctxgrad.__path__, "ctxgrad.")
        if not any(part.startswith("_") for part in m.name.split(".")) and m.name not in IMPORTED_FOR_EFFECT
    ]


def test_every_public_module_has_a_page_in_the_api_reference() -> None:
    listed = api_homes.listed_modules(API) + api_homes.listed_modules(API, source_only=True)
    assert len(listed) == len(set(listed)), "a module listed twice"
    assert set(_public_modules()) | {"ctxgrad"} == set(listed)
    for name in ("ctxgrad.viz", "ctxgrad.special", "ctxgrad.random", "ctxgrad.fft", "ctxgrad.func"):
        assert name in api_homes.listed_modules(API), f"{name} has no page of its own"


def test_every_public_class_and_function_is_described_once_under_one_name() -> None:
    documented = api_homes.listed_modules(API)
    homes = api_homes.homes(documented)
    # one description per object, and no two objects (nor an object and a module) share a name
    assert len(set(homes.values())) == len(homes)
    assert not set(homes.values()) & set(documented), "an object described under a module's name"
    import ctxgrad
    import ctxgrad.trace as trace_module  # (the name ctxgrad.trace is the function)

    assert homes[id(ctxgrad.no_grad)] == "ctxgrad.no_grad"
    assert homes[id(ctxgrad.nn.Linear)] == "ctxgrad.nn.Linear"
    assert homes[id(ctxgrad.trace)] == "ctxgrad.trace.trace"
    assert trace_module is ctxgrad.trace
    # each exported class or function of every module outside the built-in ops has a home
    for name in _public_modules():
        if name == "ctxgrad.ops" or name.startswith("ctxgrad.ops."):
            continue
        module = importlib.import_module(name)
        for member in api_homes.public_names(module):
            value = getattr(module, member, None)
            if inspect.isclass(value) or inspect.isfunction(value):
                assert id(value) in homes, f"{name}.{member} is described nowhere"


# --------------------------------------------------------------------------- graph pictures

PICTURE = re.compile(r"^```\{ctxgrad-graph\} .+\n:name: ([a-z0-9-]+)\n(?::mask: .+\n)?:alt: .+\n```$", re.MULTILINE)
PICTURED_PAGES = {"quickstart", "visualising", "engine", "first-custom-op", "trace"}


def _pictures() -> dict[str, list[str]]:
    """page -> the names of its pictures, in order."""
    found = {page.stem: PICTURE.findall(page.read_text(encoding="utf-8")) for page in sorted(DOCS.glob("*.md"))}
    return {page: names for page, names in found.items() if names}


def test_the_graph_pages_have_pictures_each_with_a_committed_svg() -> None:
    pictures = _pictures()
    assert set(pictures) >= PICTURED_PAGES
    for page, names in pictures.items():
        text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
        assert len(names) == len(graph_pictures.pictures_in(text)), f"{page}: a picture without :name: and :alt:"
    names = [name for names in pictures.values() for name in names]
    assert len(names) == len(set(names)), "two pictures with one name"
    committed = {p.stem for p in (DOCS / "_graphs").glob("*.svg")}
    assert committed == set(names), "docs/_graphs must hold exactly the pictures the pages draw"


@pytest.mark.parametrize("page", sorted(PICTURED_PAGES))
def test_each_committed_picture_was_drawn_from_the_graph_its_page_makes_now(page: str) -> None:
    """The picture shown without Graphviz is the one the page's examples make today."""
    path = DOCS / f"{page}.md"
    failed, _, report, graphs = run_examples.run_page_examples(path.read_text(encoding="utf-8"), page, str(path))
    assert failed == 0, report
    for name, (dot, problem) in zip(_pictures()[page], graphs, strict=True):
        assert problem is None and dot is not None, f"{name}: {problem}"
        svg = (DOCS / "_graphs" / f"{name}.svg").read_text(encoding="utf-8")
        stamp = graph_pictures.STAMP.match(svg)
        assert stamp is not None, f"{name}.svg has no stamp"
        assert stamp.group(1) == hashlib.sha256(dot.encode("utf-8")).hexdigest(), (
            f"docs/_graphs/{name}.svg is stale: build the docs with Graphviz's dot installed and commit it"
        )
        # a drawing of this graph: each node label of the DOT text is a text of the picture
        labels = {m.split("\\n")[0].split("\n")[0] for m in re.findall(r'label="?([A-Za-z][\w]*)', dot)}
        assert labels and all(f">{label}" in svg for label in labels), (name, labels)


def _built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The built HTML: ``CTXGRAD_DOCS_HTML`` (the CI docs leg's full build), else the pages
    with pictures built here with Sphinx (without rewriting docs/_graphs)."""
    given = os.environ.get("CTXGRAD_DOCS_HTML")
    if given:
        return Path(given)
    sphinx_build = pytest.importorskip("sphinx.cmd.build")
    out = tmp_path_factory.mktemp("html")
    others = [p.name for p in sorted(DOCS.glob("*.md")) + [API] if p.stem not in PICTURED_PAGES | {"index"}]
    exclude = ",".join(["_build", "_graphs", "api", *others])
    args = ["-q", "-b", "html", "-D", f"exclude_patterns={exclude}", "-D", "graph_pictures_update=0"]
    status = sphinx_build.build_main([*args, "-d", str(out / ".doctrees"), str(DOCS), str(out)])
    assert status == 0
    return out


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _built_site(tmp_path_factory)


FIGURE = re.compile(r'<figure class="ctxgrad-graph" id="graph-([a-z0-9-]+)">\s*<svg (.*?)</svg>\s*</figure>', re.S)


@pytest.mark.parametrize("page", sorted(PICTURED_PAGES))
def test_the_built_pages_show_their_graph_pictures(built_site: Path, page: str) -> None:
    html = (built_site / f"{page}.html").read_text(encoding="utf-8")
    figures = FIGURE.findall(html)
    assert [name for name, _ in figures] == _pictures()[page]
    for name, svg in figures:
        assert 'role="img" aria-label="' in svg
        committed = (DOCS / "_graphs" / f"{name}.svg").read_text(encoding="utf-8")
        # the same drawing as the committed one (the build draws it again only when it changed)
        titles = re.findall(r"<text[^>]*>([^<]+)</text>", committed)
        assert titles and titles == re.findall(r"<text[^>]*>([^<]+)</text>", svg)
    if page == "visualising":
        shown = " ".join(re.findall(r"<text[^>]*>([^<]+)</text>", dict(figures)["visualising-show-values"]))
        for text in ("AddBackward0", "data 4.", "grad &#45;2.", "data 2.", "grad 6."):
            assert text in shown, text


@pytest.fixture(scope="module")
def full_site() -> Path:
    """The CI docs leg's full build (``CTXGRAD_DOCS_HTML``), API reference included."""
    given = os.environ.get("CTXGRAD_DOCS_HTML")
    if not given or not (Path(given) / "api" / "generated").is_dir():
        pytest.skip("CTXGRAD_DOCS_HTML names no full build of the site")
    return Path(given)


def test_no_link_of_the_site_points_at_a_missing_anchor(full_site: Path) -> None:
    ids: dict[Path, set[str]] = {}
    broken = []
    for page in sorted(full_site.rglob("*.html")):
        for path, anchor in re.findall(r'href="([^"#:]*\.html)?#([^"]+)"', page.read_text(encoding="utf-8")):
            target = (page.parent / path).resolve() if path else page.resolve()
            if target not in ids:
                text = target.read_text(encoding="utf-8") if target.is_file() else ""
                ids[target] = set(re.findall(r'id="([^"]+)"', text))
            if anchor not in ids[target]:
                broken.append(f"{page.relative_to(full_site)}: {path}#{anchor}")
    assert broken == []
    assert len(list((full_site / "_modules").rglob("*.html"))) > 50  # the source pages were checked too


def test_each_name_a_module_exports_links_to_its_one_description(full_site: Path) -> None:
    pages = sorted((full_site / "api" / "generated").glob("*.html"))
    assert {p.stem for p in pages} >= set(api_homes.listed_modules(API))
    links = 0
    for page in pages:
        html = page.read_text(encoding="utf-8")
        start = html.find("Also exported here")
        if start < 0:
            continue
        for item in re.findall(r"<li>(.*?)</li>", html[start : html.find("</ul>", start)], re.S):
            assert 'class="reference internal"' in item, f"{page.name}: {re.sub('<[^>]+>', '', item)}"
            links += 1
    assert links > 300
    # a module shadowed by a function of the same name (ctxgrad.trace) has its own page
    trace_page = (full_site / "api" / "generated" / "ctxgrad.trace.html").read_text(encoding="utf-8")
    assert 'id="ctxgrad.trace.TracedFunction"' in trace_page and 'id="ctxgrad.trace.trace"' in trace_page
