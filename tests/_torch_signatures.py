"""torch's Python signatures, read from the type stubs torch ships (``torch/_C/*.pyi``).

torch's built-in functions and Tensor methods are C functions with no ``inspect.signature``;
their Python argument parser accepts exactly what the generated stubs declare, one ``@overload``
per parser signature.  This module reads those stubs with :mod:`ast` (nothing is imported from
them) and, for a torch name, gives the keyword names each overload accepts and whether one of
them takes ``out=``.  Functions written in Python (``torch.split``, ``torch.nn.functional.elu``)
are read with :func:`inspect.signature`.
"""

from __future__ import annotations

import ast
import functools
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Keywords about where or how memory is laid out: accepted by ctxgrad where it matters
#: (factories) and not part of an op's arithmetic, so a row is not held to them.
LAYOUT_KEYWORDS = frozenset({"layout", "device", "pin_memory", "memory_format"})


@dataclass(frozen=True)
class Overload:
    """One signature of torch's parser: its parameters' names and which can be keywords."""

    positional: tuple[str, ...]  # in order, each may also be given by keyword
    keyword_only: tuple[str, ...]

    @property
    def keywords(self) -> frozenset[str]:
        return frozenset(self.positional) | frozenset(self.keyword_only)


def _overloads_of(node: ast.FunctionDef, *, method: bool) -> Overload:
    args = node.args
    # (torch's stubs declare no positional-only parameters for ops)
    named = tuple(a.arg for a in args.args if not (method and a.arg == "self"))
    return Overload(named, tuple(a.arg for a in args.kwonlyargs))


def _takes_a_tensor_first(node: ast.FunctionDef, *, method: bool) -> bool:
    """Whether the overload's first operand is a Tensor (torch's Scalar-first overloads, such
    as ``add(self: Number, other: Tensor)``, are reached only positionally)."""
    params = [a for a in node.args.args if not (method and a.arg == "self")]
    if method or not params or params[0].annotation is None:
        return True
    return "Tensor" in ast.unparse(params[0].annotation)


def _stub(path: Path, *, class_name: str | None) -> dict[str, list[Overload]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body: list[ast.stmt] = tree.body
    if class_name is not None:
        body = next(n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name)
    found: dict[str, list[Overload]] = {}
    for node in body:
        if isinstance(node, ast.FunctionDef) and _takes_a_tensor_first(node, method=class_name is not None):
            found.setdefault(node.name, []).append(_overloads_of(node, method=class_name is not None))
    return found


@functools.cache
def _stubs(torch_dir: str) -> tuple[dict[str, list[Overload]], dict[str, list[Overload]]]:
    root = Path(torch_dir) / "_C"
    return _stub(root / "_VariableFunctions.pyi", class_name=None), _stub(
        root / "__init__.pyi", class_name="TensorBase"
    )


def _from_inspect(fn: Any, *, method: bool) -> list[Overload] | None:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = list(signature.parameters.values())
    if method and params:
        params = params[1:]
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None  # accepts any keyword: nothing to hold ctxgrad to
    positional = tuple(p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD)
    keyword_only = tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)
    return [Overload(positional, keyword_only)]


def function_overloads(torch: Any, name: str) -> list[Overload] | None:
    """The overloads of ``torch.<name>``, or None when torch has no such function."""
    fn = getattr(torch, name, None)
    if fn is None or not callable(fn):
        return None
    functions, _ = _stubs(str(Path(torch.__file__).parent))
    if name in functions:
        return functions[name]
    return _from_inspect(fn, method=False)


def method_overloads(torch: Any, name: str) -> list[Overload] | None:
    """The overloads of ``torch.Tensor.<name>`` (without ``self``), or None when absent."""
    fn = getattr(torch.Tensor, name, None)
    if fn is None:
        return None
    _, methods = _stubs(str(Path(torch.__file__).parent))
    if name in methods:
        return methods[name]
    return _from_inspect(fn, method=True)


def accepted_keywords(fn: Any, *, method: bool = False) -> frozenset[str] | None:
    """The keyword names ``fn`` (a ctxgrad function or method) accepts; None for ``**kwargs``."""
    overloads = _from_inspect(fn, method=method)
    return None if overloads is None else overloads[0].keywords
