"""The package's import layers (DESIGN.md, "Layers"): each layer imports only from the layers
below it, and there are no import cycles anywhere.

The first tests specify the reader of the import graph (``_imports.py``) on small packages
written to a temporary directory; the last ones hold the real package to the design.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from _imports import (
    LAYERS,
    Edge,
    find_modules,
    format_cycles,
    format_edges,
    import_cycles,
    import_edges,
    layer_of,
    strongly_connected_components,
    unassigned_modules,
    upward_edges,
)

PACKAGE = Path(__file__).resolve().parent.parent / "ctxgrad"


def write_package(root: Path, files: dict[str, str], name: str = "pkg") -> Path:
    """A package ``name`` under ``root`` with the given files (paths relative to the package,
    sources dedented); every directory gets an ``__init__.py`` unless one is given."""
    package = root / name
    for relative, source in files.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source))
    for directory in [package, *(p for p in package.rglob("*") if p.is_dir())]:
        (directory / "__init__.py").touch()
    return package


def pairs(edges: list[Edge]) -> set[tuple[str, str]]:
    return {(e.importer, e.imported) for e in edges}


# --- the reader -----------------------------------------------------------------------------


def test_modules_are_named_by_dotted_path_and_a_package_by_its_init(tmp_path: Path) -> None:
    package = write_package(tmp_path, {"a.py": "", "sub/b.py": ""})
    assert list(find_modules(package)) == ["pkg", "pkg.a", "pkg.sub", "pkg.sub.b"]


def test_a_top_level_import_is_an_edge_with_its_file_and_line(tmp_path: Path) -> None:
    package = write_package(tmp_path, {"a.py": "import os\n\nimport pkg.b\n", "b.py": ""})
    assert import_edges(package) == [Edge("pkg.a", "pkg.b", "pkg/a.py", 3, in_function=False)]


def test_a_function_level_import_is_seen(tmp_path: Path) -> None:
    source = """\
        def f():
            from pkg import b
            return b
    """
    package = write_package(tmp_path, {"a.py": source, "b.py": ""})
    assert import_edges(package) == [Edge("pkg.a", "pkg.b", "pkg/a.py", 2, in_function=True)]


def test_a_method_level_import_is_seen(tmp_path: Path) -> None:
    source = """\
        class A:
            def f(self):
                import pkg.b
    """
    package = write_package(tmp_path, {"a.py": source, "b.py": ""})
    assert import_edges(package) == [Edge("pkg.a", "pkg.b", "pkg/a.py", 3, in_function=True)]


def test_a_bottom_of_file_import_is_seen(tmp_path: Path) -> None:
    source = """\
        def f():
            return b.x

        from pkg import b  # noqa: E402
    """
    package = write_package(tmp_path, {"a.py": source, "b.py": "x = 1\n"})
    assert import_edges(package) == [Edge("pkg.a", "pkg.b", "pkg/a.py", 4, in_function=False)]


def test_a_type_checking_import_is_ignored(tmp_path: Path) -> None:
    source = """\
        import typing
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from pkg.b import B
        if typing.TYPE_CHECKING:
            import pkg.c
        else:
            import pkg.d
    """
    package = write_package(tmp_path, {"a.py": source, "b.py": "", "c.py": "", "d.py": ""})
    assert pairs(import_edges(package)) == {("pkg.a", "pkg.d")}  # the `else:` runs


def test_a_relative_import_resolves(tmp_path: Path) -> None:
    files = {
        "a.py": "from . import b\nfrom .sub import c\n",
        "b.py": "",
        "sub/c.py": "from .. import b\nfrom ..b import name\nfrom . import d\n",
        "sub/d.py": "",
        "sub/__init__.py": "from .d import name\n",
    }
    package = write_package(tmp_path, files)
    assert pairs(import_edges(package)) == {
        ("pkg.a", "pkg.b"),
        ("pkg.a", "pkg.sub.c"),
        ("pkg.sub.c", "pkg.b"),
        ("pkg.sub.c", "pkg.sub.d"),
        ("pkg.sub", "pkg.sub.d"),  # in an __init__.py, `.` is the package itself
    }


def test_from_import_names_the_submodule_when_there_is_one_else_the_module(tmp_path: Path) -> None:
    files = {"a.py": "from pkg.sub import c, helper\n", "sub/__init__.py": "helper = 1\n", "sub/c.py": ""}
    package = write_package(tmp_path, files)
    assert pairs(import_edges(package)) == {("pkg.a", "pkg.sub.c"), ("pkg.a", "pkg.sub")}


def test_importing_a_package_imports_its_init(tmp_path: Path) -> None:
    files = {"a.py": "import pkg.sub\nfrom pkg import sub\nfrom pkg import name\n", "sub/x.py": ""}
    package = write_package(tmp_path, files)
    assert pairs(import_edges(package)) == {("pkg.a", "pkg.sub"), ("pkg.a", "pkg")}


def test_imports_from_outside_the_package_and_of_itself_are_not_edges(tmp_path: Path) -> None:
    files = {"a.py": "import numpy\nimport pkgother\nfrom os import path\nfrom pkg import a\n"}
    package = write_package(tmp_path, files)
    assert import_edges(package) == []


def test_a_three_module_cycle_is_found(tmp_path: Path) -> None:
    files = {
        "a.py": "from pkg import b\n",
        "b.py": "def f():\n    from pkg import c\n",
        "c.py": "import pkg.a\nimport pkg.d\n",
        "d.py": "",
    }
    package = write_package(tmp_path, files)
    [cycle] = import_cycles(import_edges(package))
    assert cycle.modules == ("pkg.a", "pkg.b", "pkg.c")
    assert [e.where for e in cycle.edges] == ["pkg/a.py:1", "pkg/b.py:2", "pkg/c.py:1"]  # not c -> d
    assert "pkg/b.py:2: pkg.b (L?) -> pkg.c (L?)  [in a function]" in format_cycles([cycle])


def test_an_acyclic_graph_has_no_cycle(tmp_path: Path) -> None:
    files = {
        "a.py": "from pkg import b, c\n",
        "b.py": "from pkg import c\n",
        "c.py": "import os\n",
        "__init__.py": "from pkg import a\n",
    }
    package = write_package(tmp_path, files)
    assert import_edges(package)
    assert import_cycles(import_edges(package)) == []


def test_components_are_found_without_recursion_on_a_deep_graph() -> None:
    n = 50_000  # far deeper than the interpreter's recursion limit
    chain = {f"m{i}": [f"m{i + 1}"] for i in range(n)}
    chain[f"m{n}"] = ["m0"]
    tail = {"x": ["y"], "y": []}
    components = strongly_connected_components({**chain, **tail})
    assert len(components[0]) == n + 1
    assert components[1:] == [["x"], ["y"]]


def test_two_separate_cycles_are_two_components() -> None:
    graph = {"a": ["b"], "b": ["a", "c"], "c": ["d"], "d": ["c"], "e": ["a"]}
    assert strongly_connected_components(graph) == [["a", "b"], ["c", "d"], ["e"]]


# --- layers ---------------------------------------------------------------------------------


def test_a_module_takes_its_own_layer_else_its_nearest_package_s() -> None:
    table = {"p": 4, "p.core": 1, "p.core.*": 1, "p.core.tools": 5, "p.tools.*": 5}
    assert layer_of("p", table) == 4
    assert layer_of("p.core.engine", table) == 1
    assert layer_of("p.core.tools", table) == 5
    assert layer_of("p.tools.deep.x", table) == 5
    assert layer_of("p.tools", table) is None  # `p.tools.*` covers what is below, not the __init__
    assert layer_of("p.other", table) is None  # `p` is the __init__ only


def test_an_import_of_a_higher_layer_is_upward_and_of_the_same_or_lower_is_not(tmp_path: Path) -> None:
    files = {"low.py": "def f():\n    from pkg import high\n", "high.py": "from pkg import low, mid\n", "mid.py": ""}
    package = write_package(tmp_path, files)
    table = {"pkg.low": 0, "pkg.mid": 1, "pkg.high": 1}
    [edge] = upward_edges(import_edges(package), table)
    assert edge == Edge("pkg.low", "pkg.high", "pkg/low.py", 2, in_function=True)
    assert format_edges([edge], table) == "  pkg/low.py:2: pkg.low (L0) -> pkg.high (L1)  [in a function]"


# --- the package ----------------------------------------------------------------------------


def test_every_module_of_the_package_has_a_layer() -> None:
    missing = unassigned_modules(find_modules(PACKAGE), LAYERS)
    assert not missing, "add these modules to LAYERS in tests/_imports.py:\n" + "\n".join(missing)


def test_the_reader_sees_the_package() -> None:
    edges = import_edges(PACKAGE)
    assert {"ctxgrad._tensor", "ctxgrad.autograd", "ctxgrad.ops._util"} <= {e.imported for e in edges}


def test_no_import_cycles() -> None:
    cycles = import_cycles(import_edges(PACKAGE))
    assert not cycles, f"{len(cycles)} import cycles in ctxgrad (python tests/_imports.py):\n" + format_cycles(cycles)


def test_each_layer_imports_only_from_layers_below() -> None:
    up = upward_edges(import_edges(PACKAGE), LAYERS)
    assert not up, f"{len(up)} imports go up a layer (python tests/_imports.py):\n" + format_edges(up)
