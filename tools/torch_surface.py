"""How much of the torch surface that torch's own examples use does ctxgrad have?

The measure, computed from the installed torch:

1. **The docstrings.**  Those of ``torch`` itself, of every public attribute of ``torch``
   (functions, classes, and the public members of those classes: ``torch.Tensor.add``,
   ``torch.nn.Linear.forward``, ...), and of every public submodule of ``torch`` one level
   down (``torch.nn``, ``torch.linalg``, ``torch.special``, ``torch.fft``, ...) with the same
   for their attributes.  Each distinct docstring is read once, however many objects carry it
   (an inherited method, an alias that shares its original's text).
2. **The example lines.**  Only the lines of a docstring that start (after indentation) with
   ``>>>`` or ``...``: the code of its doctest examples, not its prose.
3. **Functions.**  Each ``torch.NAME(`` in an example line (``torch`` not preceded by a word
   character or a dot, so ``torch.nn.functional.relu(`` counts nothing here) counts one use
   of ``NAME``, when ``torch.NAME`` is callable.  The measure is the 300 names used most often
   (ties kept in the order of first appearance) and how many of them ``ctxgrad`` has as an
   attribute.
4. **Tensor methods.**  Each ``.NAME(`` after a word character, ``)`` or ``]`` counts one use
   of ``NAME`` when ``torch.Tensor`` has a public attribute ``NAME`` and what precedes it is
   not a dotted path of ``torch`` (``torch.linalg.norm(`` is a function, not a method; a path
   ending in ``Tensor``, as in ``torch.Tensor.add_(``, still names a method).  The measure is
   the 152 names used most often (all of them when fewer are used) and how many of them
   :class:`ctxgrad.Tensor` has.

Run ``python tools/torch_surface.py`` to print both counts and the missing names, most used
first (``--all`` lists the names ctxgrad has too).  ``tests/test_torch_surface.py`` keeps
the counts from falling.
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import types
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TOP_FUNCTIONS = 300
TOP_METHODS = 152

_FUNCTION = re.compile(r"(?<![\w.])torch\.([A-Za-z_]\w*)\s*\(")
_METHOD = re.compile(r"(?<=[\w)\]])\.([A-Za-z_]\w*)\s*\(")
_TORCH_PATH = re.compile(r"(?<![\w.])torch(?:\.\w+)*$")


@dataclass(frozen=True)
class Measure:
    """The names most used in torch's examples, each with its count, and which ctxgrad has."""

    functions: list[tuple[str, int]]
    methods: list[tuple[str, int]]
    has_function: dict[str, bool]
    has_method: dict[str, bool]

    @property
    def function_count(self) -> int:
        """How many of the most used ``torch.*`` functions ctxgrad has."""
        return sum(self.has_function[name] for name, _ in self.functions)

    @property
    def method_count(self) -> int:
        """How many of the most used Tensor methods ctxgrad has."""
        return sum(self.has_method[name] for name, _ in self.methods)


def _public(obj: Any) -> Iterator[Any]:
    for name in dir(obj):
        if name.startswith("_"):
            continue
        try:
            yield getattr(obj, name)
        except Exception:  # a lazy attribute that fails to load is not documentation
            continue


def docstrings(torch: types.ModuleType) -> list[str]:
    """The docstrings of torch's public objects (point 1 of the module docstring)."""
    found: dict[str, None] = {}  # (a dict keeps the order of first appearance)

    def add(obj: Any) -> None:
        doc = getattr(obj, "__doc__", None)
        if isinstance(doc, str):
            found[doc] = None

    def visit(module: types.ModuleType, depth: int) -> None:
        add(module)
        for obj in _public(module):
            if isinstance(obj, types.ModuleType):
                if depth == 0 and obj.__name__.startswith("torch.") and id(obj) not in seen:
                    seen.add(id(obj))
                    visit(obj, depth + 1)
                continue
            add(obj)
            if inspect.isclass(obj) and obj.__module__.startswith("torch"):
                for member in _public(obj):
                    add(member)

    seen = {id(torch)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        visit(torch, 0)
    return list(found)


def example_lines(doc: str) -> Iterator[str]:
    """The ``>>>`` and ``...`` lines of a docstring (point 2)."""
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped.startswith((">>>", "...")):
            yield stripped


def count(torch: types.ModuleType) -> tuple[Counter[str], Counter[str]]:
    """Uses of each ``torch.*`` function and each Tensor method in torch's examples."""
    tensor_names = {name for name in dir(torch.Tensor) if not name.startswith("_")}
    functions: Counter[str] = Counter()
    methods: Counter[str] = Counter()
    for doc in docstrings(torch):
        for line in example_lines(doc):
            for match in _FUNCTION.finditer(line):
                if callable(getattr(torch, match.group(1), None)):
                    functions[match.group(1)] += 1
            for match in _METHOD.finditer(line):
                before = line[: match.start()]
                if match.group(1) in tensor_names and (before.endswith("Tensor") or not _TORCH_PATH.search(before)):
                    methods[match.group(1)] += 1
    return functions, methods


def measure() -> Measure:
    """The measure against the installed torch and the ctxgrad of this checkout (else the one
    on the path)."""
    import torch

    root = str(Path(__file__).resolve().parent.parent)
    if Path(root, "ctxgrad", "__init__.py").is_file() and root not in sys.path:
        sys.path.insert(0, root)  # run as a script, the path starts at tools/, not here

    import ctxgrad

    functions, methods = count(torch)
    top_functions = functions.most_common(TOP_FUNCTIONS)
    top_methods = methods.most_common(TOP_METHODS)
    return Measure(
        top_functions,
        top_methods,
        {name: hasattr(ctxgrad, name) for name, _ in top_functions},
        {name: hasattr(ctxgrad.Tensor, name) for name, _ in top_methods},
    )


def report(result: Measure, show_all: bool = False) -> str:
    """The counts and the names ctxgrad lacks (all names with ``show_all``), most used first."""
    lines = [
        f"torch.* functions: ctxgrad has {result.function_count} of the {len(result.functions)} "
        "most used in torch's docstring examples",
        f"Tensor methods: ctxgrad has {result.method_count} of the {len(result.methods)} "
        "most used in torch's docstring examples",
    ]
    for title, names, has in (
        ("functions", result.functions, result.has_function),
        ("methods", result.methods, result.has_method),
    ):
        lines.append(f"\n{'all' if show_all else 'missing'} {title} (uses):")
        lines.extend(
            f"  {'+' if has[name] else '-'} {name} ({uses})" for name, uses in names if show_all or not has[name]
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Print the measure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--all", action="store_true", help="list every name, + when ctxgrad has it")
    show_all = parser.parse_args(argv).all
    try:
        result = measure()
    except ModuleNotFoundError as exc:
        raise SystemExit(f"the measure reads the installed torch and ctxgrad: {exc}") from None
    print(report(result, show_all))


if __name__ == "__main__":
    main()
