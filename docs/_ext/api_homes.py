"""One home per object in the API reference: which module's page documents each name.

A public class or function is exported by several modules (``ctxgrad.no_grad``,
``ctxgrad.autograd.no_grad`` and ``ctxgrad.autograd.grad_mode.no_grad`` are one class).
It is documented once, under its most public name: by the module of the API reference with
the shortest name that exports it and is a package of where it is defined (``no_grad``:
``ctxgrad``; ``ctxgrad.optim.adam.Adam``: ``ctxgrad.optim``), unless that full name is
also a module's (``ctxgrad.trace`` is a module and a function: the function is documented
as ``ctxgrad.trace.trace``); or, when no such module exports it, by the first module
listed that does (``ctxgrad.compat.afnio`` re-exports ``backward``: documented in
``ctxgrad.autograd``).  Every other module that exports it lists it with a link.

``conf.py`` gives the answer to the autosummary templates (``autosummary_context``); the
modules whose pages show their docstring and source only (``:template: autosummary/source.rst``
in ``api.rst``: the built-in ops) document no members, so they are no home.
"""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path
from types import ModuleType
from typing import Any

ENTRY = re.compile(r"^   (ctxgrad(?:\.\w+)*)$", re.MULTILINE)
SOURCE_ONLY = ":template: autosummary/source.rst"


def listed_modules(api_rst: Path, source_only: bool = False) -> list[str]:
    """The modules of the API reference whose pages document their members (or, with
    ``source_only``, those whose pages show their docstring and source only), in the order
    ``api.rst`` lists them."""
    blocks = api_rst.read_text(encoding="utf-8").split(".. autosummary::")[1:]
    return [name for block in blocks if (SOURCE_ONLY in block) == source_only for name in ENTRY.findall(block)]


def public_names(module: ModuleType) -> list[str]:
    """What a module page documents: its ``__all__``, or the classes and functions it defines."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and (inspect.isclass(value) or inspect.isfunction(value))
        and value.__module__ == module.__name__
    ]


def _has_home(value: Any) -> bool:
    return inspect.isclass(value) or inspect.isfunction(value)


def homes(modules: list[str]) -> dict[int, str]:
    """``id(object) -> the full name it is documented under`` (its home module and the name
    that module exports it by), for every class and function the listed modules export."""
    exported_as: dict[int, list[tuple[str, str]]] = {}
    defined_in: dict[int, str] = {}
    for name in modules:
        module = importlib.import_module(name)
        for member in public_names(module):
            value = getattr(module, member, None)
            if _has_home(value):
                exported_as.setdefault(id(value), []).append((name, member))
                defined_in[id(value)] = getattr(value, "__module__", "") or ""
    listed = set(modules)
    found: dict[int, str] = {}
    for key, candidates in exported_as.items():
        where = defined_in[key]
        enclosing = [c for c in candidates if where == c[0] or where.startswith(c[0] + ".")]
        unclashing = [c for c in enclosing if f"{c[0]}.{c[1]}" not in listed] or enclosing
        module, member = min(unclashing, key=lambda c: len(c[0])) if unclashing else candidates[0]
        found[key] = f"{module}.{member}"
    return found


def documented_elsewhere(modules: list[str]) -> dict[str, dict[str, str]]:
    """``module -> {name: the full name it is documented under}`` for the names a module
    exports whose home is another module's page."""
    home = homes(modules)
    elsewhere: dict[str, dict[str, str]] = {}
    for name in modules:
        module = importlib.import_module(name)
        for member in public_names(module):
            value = getattr(module, member, None)
            if _has_home(value) and home[id(value)] != f"{name}.{member}":
                elsewhere.setdefault(name, {})[member] = home[id(value)]
    return elsewhere


def source_path(module: str, root: Path) -> str:
    """The file of ``module`` in the repository whose root is ``root``
    (``ctxgrad/ops/shape.py``; from the name, so an installed, not editable, copy works)."""
    parts = module.split(".")
    package = Path(*parts, "__init__.py")
    path = package if (root / package).is_file() else Path(*parts[:-1], parts[-1] + ".py")
    if not (root / path).is_file():
        raise FileNotFoundError(f"no source file of {module} under {root}")
    return path.as_posix()
