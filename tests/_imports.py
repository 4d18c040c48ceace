"""The import graph of the ctxgrad package, read from the source with :mod:`ast`, and its layers.

The design notes (DESIGN.md, "Layers") say that each layer of ctxgrad imports only from the layers
below it and that there are no import cycles anywhere.  ``test_layers.py`` keeps that promise
with the three things this module gives:

* :func:`import_edges`: every import of one package module by another, read without importing
  anything.  Every import *statement* counts, wherever it is: at the top, at the bottom of the
  file, in a class body, inside a function or method (a deferred import is still a dependency;
  it only hides the cycle from the interpreter until the call).  Imports that run only under a
  type checker (``if TYPE_CHECKING:`` or ``if typing.TYPE_CHECKING:``; their ``else:`` runs, so
  it counts) are left out: annotations are not dependencies at run time.
* :func:`import_cycles`: the strongly connected components of that graph with more than one
  module (iterative Tarjan, so a deep graph cannot overflow the stack), each with the edges
  that hold it together.
* :func:`layer_of` / :func:`upward_edges`: each module's layer from a table (:data:`LAYERS`),
  and the imports that go from a lower layer to a higher one.

How an import statement becomes edges (``importer -> imported``):

* ``import ctxgrad.autograd.graph`` imports ``ctxgrad.autograd.graph``;
* ``from ctxgrad.x import y`` imports ``ctxgrad.x.y`` when that is a module of the package,
  else ``ctxgrad.x`` (``y`` is then a name defined in ``ctxgrad/x.py`` or ``ctxgrad/x/__init__.py``);
* a package stands for its ``__init__.py``: ``ctxgrad.autograd`` is ``ctxgrad/autograd/__init__.py``;
* relative imports (``from . import y``, ``from ..ops import y``) are resolved against the
  importing module first, then read as above;
* imports of anything outside the package (NumPy, the standard library) are not edges, nor is a
  module importing itself.

Python also runs the ``__init__`` of every parent package before a submodule (importing
``ctxgrad.ops.shape`` runs ``ctxgrad/__init__.py``); those implicit imports are *not* edges,
or every module would import everything through ``ctxgrad/__init__.py``.  The graph is the
one the code spells out, which is the one a developer can change.  Imports made by a call
(``importlib.import_module``) are not statements and are not seen.

Run ``python tests/_imports.py [PACKAGE_DIR]`` for a report of the cycles and upward edges of
the package (default: the ``ctxgrad`` next to ``tests/``); it exits with 1 when there are any.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "LAYERS",
    "Cycle",
    "Edge",
    "find_modules",
    "format_cycles",
    "format_edges",
    "format_report",
    "import_cycles",
    "import_edges",
    "layer_of",
    "main",
    "strongly_connected_components",
    "unassigned_modules",
    "upward_edges",
]

#: The package's layers (DESIGN.md, "Layers"): module name -> layer.  A key ``name``
#: matches that module only; ``name.*`` matches every module below the package ``name``.  The
#: most specific key wins: an exact name, then the ``.*`` key of the nearest enclosing package.
#:
#: ``ctxgrad.autograd.functional`` (jacobian, hessian, jvp, ...) is an L5 tool: it imports the
#: public surface (``from ctxgrad import zeros_like, stack``).  ``gradcheck`` and ``printing``
#: import only ``_tensor`` and the autograd core, and ``ctxgrad.autograd`` re-exports
#: ``gradcheck``, so both sit in L2 with the core (nothing below L2 imports them).  The
#: packages the design plans (``func``, ``compat``, ``trace``, ``viz``) are listed so that a new
#: one lands in L5 without editing this table.  The package itself, ``ctxgrad/__init__.py``
#: (what ``import ctxgrad`` gives), re-exports every layer (``ctxgrad.nn``, ``ctxgrad.linalg``),
#: so it is the top, L6; only the command line (L7), a program that uses the package, imports it.
LAYERS: dict[str, int] = {
    # L0: thread-local state, dtypes, formatting.
    "ctxgrad._state": 0,
    "ctxgrad._dtypes": 0,
    "ctxgrad._format": 0,
    "ctxgrad._device": 0,
    "ctxgrad._replayed": 0,  # (the frontends a trace replays whole: it reads only _state)
    "ctxgrad._pydata": 0,
    "ctxgrad._memory_format": 0,  # (the memory formats: flags and NumPy layouts)
    "ctxgrad.func._pytree": 0,  # (pytrees: plain Python, nothing of ctxgrad; vmap's rules read them)
    # L1: Tensor.
    "ctxgrad._tensor": 1,
    "ctxgrad._shortcut": 1,  # (the operators' NumPy shortcut: it reads the autograd fields)
    "ctxgrad._tensor_base": 1,  # (its autograd fields: the compiled core's fixed layout)
    # L2: the autograd core (Function, graph, engine, grad modes, forward mode, ...).
    "ctxgrad.autograd": 2,
    "ctxgrad.autograd.*": 2,
    # L3: the ops, each a Function.
    "ctxgrad.ops": 3,
    "ctxgrad.ops.*": 3,
    # L4: the public surface.
    "ctxgrad._factories": 4,
    "ctxgrad._sampling": 4,
    "ctxgrad._surface": 4,
    "ctxgrad._made_functions": 4,
    "ctxgrad._numpy": 4,
    "ctxgrad._legacy": 4,
    "ctxgrad._typeinfo": 4,
    "ctxgrad._dlpack": 4,
    "ctxgrad._generator": 4,
    "ctxgrad._construct": 4,
    "ctxgrad._runtime": 4,
    "ctxgrad._storage": 4,  # (Tensor.storage and shared memory, attached by the surface)
    # L5: everything built on the public surface.
    "ctxgrad.autograd.functional": 5,
    "ctxgrad.nn": 5,
    "ctxgrad.nn.*": 5,
    "ctxgrad.optim": 5,
    "ctxgrad.optim.*": 5,
    "ctxgrad.linalg": 5,
    "ctxgrad.special": 5,
    "ctxgrad.distributions": 5,
    "ctxgrad.fft": 5,
    "ctxgrad.distributions.*": 5,
    "ctxgrad.testing": 5,
    "ctxgrad.testing.*": 5,
    "ctxgrad.utils": 5,
    "ctxgrad.utils.*": 5,
    "ctxgrad.checks": 5,
    "ctxgrad._check_inputs": 5,  # (the inputs checks runs a Function on: specs, guesses, strided copies)
    "ctxgrad.checks_torch": 5,  # (checks against torch: the bridge or the file's torch Function)
    "ctxgrad.compiler": 5,
    "ctxgrad._torch_alias": 5,  # (the torch alias: it maps torch's module paths to ctxgrad's)
    "ctxgrad.bridge": 5,  # (a ctxgrad Function as a torch.autograd.Function; torch imported lazily)
    "ctxgrad._gen_methods": 5,
    "ctxgrad.serialization": 5,
    "ctxgrad.cuda": 5,
    "ctxgrad.cuda.*": 5,
    "ctxgrad.amp": 5,
    "ctxgrad.hub": 5,
    "ctxgrad.multiprocessing": 5,
    "ctxgrad.accelerator": 5,
    "ctxgrad.distributed": 5,
    "ctxgrad.version": 5,
    "ctxgrad.return_types": 5,
    "ctxgrad.backends": 5,
    "ctxgrad.backends.*": 5,
    "ctxgrad.random": 5,
    "ctxgrad._einops": 5,
    "ctxgrad.func": 5,
    "ctxgrad.func.*": 5,
    "ctxgrad.compat": 5,
    "ctxgrad.compat.*": 5,
    "ctxgrad._trace_program": 5,  # (a trace's replay as generated NumPy code)
    "ctxgrad.trace": 5,
    "ctxgrad.trace.*": 5,
    "ctxgrad.viz": 5,
    "ctxgrad.viz.*": 5,
    # L6: the package facade.
    "ctxgrad": 6,
    # L7: the command line (``ctxgrad check``, ``--version``), a program that uses the package.
    "ctxgrad.cli": 7,
    "ctxgrad.as_torch": 7,  # (imported for its effect: installs the torch alias)
    "ctxgrad.__main__": 7,
}


@dataclass(frozen=True, order=True)
class Edge:
    """One import statement of one package module by another."""

    importer: str  #: the importing module, e.g. ``ctxgrad._tensor``
    imported: str  #: the imported module, e.g. ``ctxgrad.ops.arithmetic``
    path: str  #: the importer's file, relative to the package's parent, e.g. ``ctxgrad/_tensor.py``
    line: int  #: the line of the import statement
    in_function: bool  #: the statement is inside a function or method body (a deferred import)

    @property
    def where(self) -> str:
        """``path:line``, the form editors and terminals turn into a link."""
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Cycle:
    """A strongly connected component of the import graph: from any of its modules, imports
    lead to every other.  ``edges`` are the imports between its modules (cut enough of them and
    the cycle is gone)."""

    modules: tuple[str, ...]
    edges: tuple[Edge, ...]


# --- reading --------------------------------------------------------------------------------


def find_modules(package_dir: Path) -> dict[str, Path]:
    """Every module of the package at ``package_dir``, by dotted name (a package by its own
    name, standing for its ``__init__.py``), sorted by name."""
    package_dir = Path(package_dir)
    modules: dict[str, Path] = {}
    for path in package_dir.rglob("*.py"):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        if "__pycache__" in parts:
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return dict(sorted(modules.items()))


def import_edges(package_dir: Path) -> list[Edge]:
    """Every import of a package module by another (see the module docstring for what counts),
    sorted by importer, line and imported module."""
    package_dir = Path(package_dir)
    root = package_dir.name
    modules = find_modules(package_dir)
    edges: set[Edge] = set()
    for module, path in modules.items():
        tree = ast.parse(path.read_bytes(), filename=str(path))
        is_package = path.name == "__init__.py"
        rel_path = path.relative_to(package_dir.parent).as_posix()
        for statement, in_function in _import_statements(tree):
            for imported in _resolve(statement, module, is_package, modules.keys()):
                if imported != module and (imported == root or imported.startswith(root + ".")):
                    edges.add(Edge(module, imported, rel_path, statement.lineno, in_function))
    return sorted(edges, key=lambda e: (e.importer, e.line, e.imported))


def _import_statements(tree: ast.Module) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """The import statements that run at some point (everything but the body of an
    ``if TYPE_CHECKING:``), each with whether it is inside a function.  Walks with an explicit
    stack, in source order."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function
            continue
        children: Sequence[ast.AST]
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            children = node.orelse  # the body runs only under a type checker; `else:` always runs
        else:
            children = list(ast.iter_child_nodes(node))
        inside = in_function or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        stack.extend((child, inside) for child in reversed(children))


def _is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``<anything>.TYPE_CHECKING`` (``typing.TYPE_CHECKING``)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _resolve(
    statement: ast.Import | ast.ImportFrom, module: str, is_package: bool, modules: Collection[str]
) -> list[str]:
    """The modules an import statement in ``module`` imports (absolute names, possibly outside
    the package)."""
    if isinstance(statement, ast.Import):
        return [alias.name for alias in statement.names]
    if statement.level == 0:
        base = statement.module or ""
    else:
        # `from . import x` is relative to the module's package: the module itself for an
        # __init__.py, else its parent; each further dot goes one package up.
        package = module.split(".") if is_package else module.split(".")[:-1]
        up = statement.level - 1
        if up >= len(package):
            raise ValueError(f"{module}: relative import beyond the top-level package (line {statement.lineno})")
        parts = package[: len(package) - up]
        if statement.module:
            parts.append(statement.module)
        base = ".".join(parts)
    targets: list[str] = []
    for alias in statement.names:
        submodule = f"{base}.{alias.name}"
        target = submodule if submodule in modules else base
        if target not in targets:
            targets.append(target)
    return targets


# --- cycles ---------------------------------------------------------------------------------


def strongly_connected_components(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of a directed graph given as ``node -> successors``
    (a successor need not be a key), by Tarjan's algorithm without recursion.  Each component
    is sorted; components come largest first, then by name.  A node on no cycle is a component
    of its own."""
    successors: dict[str, list[str]] = defaultdict(list)
    nodes: list[str] = []
    for node, targets in graph.items():
        nodes.append(node)
        for target in targets:
            successors[node].append(target)
            nodes.append(target)

    index: dict[str, int] = {}  # the order in which the depth-first search reached each node
    lowlink: dict[str, int] = {}  # the smallest index reachable from the node's subtree
    on_stack: set[str] = set()
    stack: list[str] = []  # Tarjan's stack of nodes whose component is not yet closed
    components: list[list[str]] = []

    for start in dict.fromkeys(nodes):
        if start in index:
            continue
        # The explicit call stack: (node, iterator over its successors not yet looked at).
        work: list[tuple[str, Iterator[str]]] = [(start, iter(successors[start]))]
        index[start] = lowlink[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, pending = work[-1]
            for target in pending:
                if target not in index:  # tree edge: descend ("recurse") into target
                    index[target] = lowlink[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(successors[target])))
                    break
                if target in on_stack:  # back or cross edge into the open component
                    lowlink[node] = min(lowlink[node], index[target])
            else:  # every successor done: "return" from node
                work.pop()
                if work:
                    parent = work[-1][0]
                    lowlink[parent] = min(lowlink[parent], lowlink[node])
                if lowlink[node] == index[node]:  # node is the root of a component: pop it
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return sorted(components, key=lambda c: (-len(c), c))


def import_cycles(edges: Iterable[Edge]) -> list[Cycle]:
    """The import cycles: every strongly connected component of more than one module, with the
    edges between its modules, largest first."""
    edges = list(edges)
    graph: dict[str, list[str]] = defaultdict(list)
    for edge in edges:
        graph[edge.importer].append(edge.imported)
    cycles = []
    for component in strongly_connected_components(graph):
        if len(component) > 1:
            members = set(component)
            inside = tuple(e for e in edges if e.importer in members and e.imported in members)
            cycles.append(Cycle(tuple(component), inside))
    return cycles


# --- layers ---------------------------------------------------------------------------------


def layer_of(module: str, table: Mapping[str, int] = LAYERS) -> int | None:
    """The layer of ``module`` in ``table`` (see :data:`LAYERS`), or None when no key matches.

    >>> layer_of("ctxgrad.ops.shape"), layer_of("ctxgrad.autograd.functional"), layer_of("ctxgrad")
    (3, 5, 6)
    >>> layer_of("ctxgrad.linalg"), layer_of("ctxgrad.ops.linalg"), layer_of("ctxgrad.unlisted")
    (5, 3, None)
    """
    if module in table:
        return table[module]
    parts = module.split(".")
    for end in range(len(parts) - 1, 0, -1):
        key = ".".join(parts[:end]) + ".*"
        if key in table:
            return table[key]
    return None


def unassigned_modules(modules: Iterable[str], table: Mapping[str, int] = LAYERS) -> list[str]:
    """The modules that ``table`` gives no layer."""
    return [m for m in modules if layer_of(m, table) is None]


def upward_edges(edges: Iterable[Edge], table: Mapping[str, int] = LAYERS) -> list[Edge]:
    """The edges from a module to a module in a higher layer (edges with an unassigned end are
    left to :func:`unassigned_modules`)."""
    found = []
    for edge in edges:
        low, high = layer_of(edge.importer, table), layer_of(edge.imported, table)
        if low is not None and high is not None and low < high:
            found.append(edge)
    return found


# --- reporting ------------------------------------------------------------------------------


def _layer_name(module: str, table: Mapping[str, int]) -> str:
    layer = layer_of(module, table)
    return "L?" if layer is None else f"L{layer}"


def _lines(edges: Iterable[Edge]) -> str:
    """``12,40*``: the lines of some edges of one file, ``*`` marking an import inside a function."""
    marked = sorted({(e.line, e.in_function) for e in edges})
    return ",".join(f"{line}{'*' if in_function else ''}" for line, in_function in marked)


def format_edges(edges: Iterable[Edge], table: Mapping[str, int] = LAYERS, indent: str = "  ") -> str:
    """One edge a line, ``path:line: importer (Ln) -> imported (Lm)``, marked when the import is
    inside a function.  The form of the test failures: each line leads to one statement."""
    lines = []
    for e in edges:
        deferred = "  [in a function]" if e.in_function else ""
        lines.append(
            f"{indent}{e.where}: {e.importer} ({_layer_name(e.importer, table)})"
            f" -> {e.imported} ({_layer_name(e.imported, table)}){deferred}"
        )
    return "\n".join(lines)


def _format_pairs(edges: Iterable[Edge], table: Mapping[str, int], indent: str) -> list[str]:
    """One line per (importer, imported) pair: ``path:line,line*: importer -> imported``."""
    pairs: dict[tuple[str, str], list[Edge]] = defaultdict(list)
    for edge in edges:
        pairs[edge.importer, edge.imported].append(edge)
    return [
        f"{indent}{group[0].path}:{_lines(group)}: {importer} ({_layer_name(importer, table)})"
        f" -> {imported} ({_layer_name(imported, table)})"
        for (importer, imported), group in sorted(pairs.items())
    ]


def _format_cuts(edges: Iterable[Edge], table: Mapping[str, int], indent: str) -> list[str]:
    """Upward edges summed up by importer and the layer they reach: which modules, which lines."""
    groups: dict[tuple[str, int], list[Edge]] = defaultdict(list)
    for edge in edges:
        groups[edge.importer, layer_of(edge.imported, table) or 0].append(edge)
    lines = []
    for (importer, layer), group in sorted(groups.items(), key=lambda kv: (layer_of(kv[0][0], table) or 0, kv[0])):
        targets = sorted({e.imported for e in group})
        named = ", ".join(targets) if len(targets) <= 3 else f"{len(targets)} modules ({', '.join(targets)})"
        lines.append(
            f"{indent}{importer} ({_layer_name(importer, table)}) -> L{layer}: {named}"
            f"  at {group[0].path}:{_lines(group)}"
        )
    return lines


def _grouped_by_importer(edges: Sequence[Edge], table: Mapping[str, int], indent: str) -> list[str]:
    """Edges one a line, under a heading per importing module (lowest layer first)."""
    groups: dict[str, list[Edge]] = defaultdict(list)
    for edge in edges:
        groups[edge.importer].append(edge)
    lines = []
    for importer in sorted(groups, key=lambda m: (layer_of(m, table) or 0, m)):
        group = groups[importer]
        targets = {e.imported for e in group}
        lines.append(
            f"{indent}{importer} ({_layer_name(importer, table)}): {len(group)} imports of {len(targets)} modules"
        )
        lines.append(format_edges(group, table, indent + "  "))
    return lines


def format_cycles(cycles: Sequence[Cycle], table: Mapping[str, int] = LAYERS, *, compact: bool = False) -> str:
    """Each cycle: its modules by layer; the upward imports inside it, summed up by importer
    (cutting those is what the layer rule asks, and it breaks every cycle that crosses layers);
    the cycles that would be left within one layer; then every import inside it.  ``compact``
    lists those imports one (importer, imported) pair a line, else one statement a line."""
    out: list[str] = []
    for number, cycle in enumerate(cycles, 1):
        out.append(f"cycle {number}: {len(cycle.modules)} modules, {len(cycle.edges)} imports among them")
        by_layer: dict[str, list[str]] = defaultdict(list)
        for module in cycle.modules:
            by_layer[_layer_name(module, table)].append(module)
        for layer in sorted(by_layer):
            out.append(f"  {layer}: {', '.join(by_layer[layer])}")
        up = set(upward_edges(cycle.edges, table))
        if up:
            out.append(f"  to break it, cut its {len(up)} upward imports (importer -> layer above: what, where):")
            out.extend(_format_cuts(sorted(up), table, "    "))
        left = import_cycles(e for e in cycle.edges if e not in up)
        if left:
            out.append("  cycles within one layer, left after those cuts (cut one import of each):")
            for rest in left:
                out.append(f"    {', '.join(rest.modules)}")
                out.append(format_edges(rest.edges, table, "      "))
        else:
            out.append("  cycles within one layer, left after those cuts: none")
        out.append(f"  every import inside cycle {number}:")
        if compact:
            out.extend(_format_pairs(cycle.edges, table, "    "))
        else:
            out.append(format_edges(cycle.edges, table, "    "))
    return "\n".join(out)


def format_report(package_dir: Path, table: Mapping[str, int] = LAYERS) -> tuple[str, bool]:
    """The text of the report on the package at ``package_dir``, and whether it is clean (no
    cycles, no upward imports, every module in a layer)."""
    package_dir = Path(package_dir)
    modules = list(find_modules(package_dir))
    edges = import_edges(package_dir)
    cycles = import_cycles(edges)
    up = upward_edges(edges, table)
    missing = unassigned_modules(modules, table)
    deferred = sum(e.in_function for e in edges)
    out = [
        f"import graph of {package_dir.name} ({package_dir}): {len(modules)} modules,"
        f" {len(edges)} imports between them ({deferred} inside functions)",
        "(path:12,40* = lines 12 and 40 of path; * = the import is inside a function)",
        "",
        f"== import cycles: {len(cycles)} ==",
    ]
    if cycles:
        out.append(format_cycles(cycles, table, compact=True))
    out += ["", f"== upward imports (a module importing from a higher layer): {len(up)} =="]
    out.extend(_grouped_by_importer(up, table, "  "))
    if missing:
        out += ["", f"== modules with no layer in the table: {len(missing)} ==", *(f"  {m}" for m in missing)]
    return "\n".join(out), not (cycles or up or missing)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the report for the package given on the command line (default: ``ctxgrad`` next
    to ``tests/``); 0 when it is clean, 1 when not."""
    args = list(sys.argv[1:] if argv is None else argv)
    package_dir = Path(args[0]) if args else Path(__file__).resolve().parent.parent / "ctxgrad"
    report, clean = format_report(package_dir)
    print(report)
    return 0 if clean else 1


if __name__ == "__main__":
    sys.exit(main())
