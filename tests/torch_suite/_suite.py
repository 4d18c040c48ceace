"""Runs one of torch's own test files on torch or on ctxgrad, unchanged but for its imports.

The backend is ``CTXGRAD_SUITE_BACKEND`` (``ctxgrad``, the default, or ``torch``).  A test
file of this directory is a stub that calls :func:`load` with the path of a torch test file
(relative to a pytorch checkout).  :func:`load` reads that file, ports it mechanically and
executes it in the stub's namespace, where pytest finds its ``unittest`` classes:

* ``import torch`` binds the backend's module (ctxgrad under the name ``torch``);
  ``import torch.a.b as x`` and ``from torch.a.b import y`` take the backend's ``a.b``;
* ``from torch.testing._internal.<module> import ...`` takes the stand-ins of
  ``_internal.py`` (torch's helpers need torch, and not all of them import without its
  development requirements);
* a test of ``_suite_manifest.LEFT_OUT`` becomes a skip that says why it is left out.

torch's test files are not part of this repository: they are read from a pytorch checkout,
``CTXGRAD_TORCH_TESTS`` (its root), or else ``tests/torch_suite/upstream/`` (ignored by
git).  Each must be the version the manifest was written for (its SHA-256 is checked), so a
changed file fails loudly instead of running against stale expectations.  A copy may begin
with ``# torch_suite: `` lines (the licence notice, the commit), which the check leaves out.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import importlib
import os
import types
import unittest
from pathlib import Path
from typing import Any

import pytest
from _suite_manifest import LEFT_OUT, SOURCES

BACKENDS = ("ctxgrad", "torch")
HERE = Path(__file__).resolve().parent


def backend_name() -> str:
    """The backend the suite runs on, from ``CTXGRAD_SUITE_BACKEND``."""
    name = os.environ.get("CTXGRAD_SUITE_BACKEND", "ctxgrad").strip() or "ctxgrad"
    if name not in BACKENDS:
        raise ValueError(f"CTXGRAD_SUITE_BACKEND: expected one of {', '.join(BACKENDS)}, got {name!r}")
    return name


def backend() -> types.ModuleType:
    """The module the ported files know as ``torch``; skips when the torch backend is asked
    for and torch is not installed."""
    if backend_name() == "torch":
        return pytest.importorskip("torch")
    return importlib.import_module("ctxgrad")


def resolve(dotted: str) -> types.ModuleType:
    """torch's module ``dotted`` (``torch.autograd.functional``) on the current backend."""
    root = backend()
    head, _, rest = dotted.partition(".")
    if head != "torch":
        raise ValueError(f"resolve: expected a name under torch, got {dotted!r}")
    return importlib.import_module(f"{root.__name__}.{rest}" if rest else root.__name__)


def upstream_root() -> Path:
    """Where torch's test files are read from: a checkout's root."""
    configured = os.environ.get("CTXGRAD_TORCH_TESTS", "").strip()
    return Path(configured) if configured else HERE / "upstream"


def _ported_import(node: ast.Import | ast.ImportFrom) -> str:
    """The statement that replaces one import of a torch test file ('' to leave it as is)."""
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if node.level or not (module == "torch" or module.startswith("torch.")):
            return ""
        if module.startswith("torch.testing._internal"):
            return ast.unparse(ast.ImportFrom(module="_internal", names=node.names, level=0))
        return "; ".join(f"{a.asname or a.name} = _suite_resolve({module!r}).{a.name}" for a in node.names)
    parts = []
    for alias in node.names:
        name = alias.name
        if name != "torch" and not name.startswith("torch."):
            parts.append(f"import {name}" + (f" as {alias.asname}" if alias.asname else ""))
        elif alias.asname:
            parts.append(f"{alias.asname} = _suite_resolve({name!r})")
        # `import torch` and `import torch.a.b` bind `torch`, which the namespace already holds
        # (the backend imports its submodules itself).
    return "; ".join(parts) or "pass"


def port(source: str) -> str:
    """torch's test file ``source`` with its torch imports ported (line numbers kept)."""
    lines = source.splitlines(keepends=True)
    tree = ast.parse(source)
    for node in reversed(tree.body):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        replacement = _ported_import(node)
        if not replacement:
            continue
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        lines[first : last + 1] = [replacement + "\n"] + ["\n"] * (last - first)
    return "".join(lines)


HEADER = "# torch_suite: "


def without_header(text: str) -> str:
    """torch's text of a file: without the leading ``# torch_suite: `` lines that a copy kept
    beside this harness may carry (torch's licence notice and the commit it came from)."""
    lines = text.splitlines(keepends=True)
    start = 0
    while start < len(lines) and lines[start].startswith(HEADER):
        start += 1
    return "".join(lines[start:])


def left_out_reason(relpath: str, test_id: str) -> str | None:
    """Why ``Class.test_name`` of ``relpath`` is left out, or None when it is kept."""
    for pattern, reason in LEFT_OUT.get(relpath, {}).items():
        if fnmatch.fnmatchcase(test_id, pattern):
            return reason
    return None


def _skipping(reason: str) -> Any:
    def left_out(self: unittest.TestCase) -> None:
        raise unittest.SkipTest(f"left out: {reason}")

    return left_out


def load(relpath: str, namespace: dict[str, Any]) -> None:
    """Port torch's test file ``relpath`` into ``namespace`` (a stub module's globals)."""
    commit, digest = SOURCES[relpath]
    path = upstream_root() / relpath
    if not path.is_file():
        pytest.skip(
            f"torch's {relpath} (pytorch commit {commit}) is not here: put a pytorch checkout's test/ "
            f"under tests/torch_suite/upstream/ or set CTXGRAD_TORCH_TESTS to the checkout",
            allow_module_level=True,
        )
    text = path.read_text(encoding="utf-8")
    found = hashlib.sha256(without_header(text).encode("utf-8")).hexdigest()
    if found != digest:
        raise RuntimeError(
            f"{path}: expected torch's {relpath} of pytorch commit {commit} (sha256 {digest[:12]}...), "
            f"found another version (sha256 {found[:12]}...); update tests/torch_suite/_suite_manifest.py for it"
        )
    namespace.update(torch=backend(), _suite_resolve=resolve, __torch_suite_source__=relpath)
    exec(compile(port(text), str(path), "exec"), namespace)
    for value in list(namespace.values()):
        if isinstance(value, type) and issubclass(value, unittest.TestCase):
            for attr in list(vars(value)):
                reason = left_out_reason(relpath, f"{value.__name__}.{attr}") if attr.startswith("test") else None
                if reason is not None:
                    setattr(value, attr, _skipping(reason))
