"""One row per op: :class:`Op`, the declaration that sits beside an op's Function in its family
module and says everything else about the op.

A row names the op (torch's name) and says where it appears: a ``ctxgrad.<name>`` function, a
Tensor method, its in-place variant (``exp_``), ``out=``, aliases, dunders, the NumPy ufuncs
that dispatch to it.  ``ctxgrad.ops.table`` gathers the rows of every family; the surface layer
(``ctxgrad._surface``, ``ctxgrad._numpy``, ``python -m ctxgrad._gen_methods``) makes all of
those from them.

When the op's frontend would only forward its arguments to ``Function.apply``, the row names
the Function itself and the frontend is made from it, with torch's parameter names
(``params``); ``inplace=True`` makes the in-place variant from the same Function (its
forward's result written into the first argument, which is marked dirty: the one in-place
mechanism, :func:`~ctxgrad.autograd.inplace.write_in_place`), never a copy of its body:

>>> from ctxgrad.ops.pointwise import Sin
>>> row = Op("sin", Sin, inplace=True, out=True)
>>> row.frontend.__name__, row.inplace.__name__, list(inspect.signature(row.frontend).parameters)
('sin', 'sin_', ['input'])

An op whose arguments need real work (normalising ``dim``/``axis``, checking types, choosing
between Functions) keeps a named frontend function in its family module, which the row names.
"""

from __future__ import annotations
import __future__

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place

__all__ = ["Op", "made_frontend"]


def made_frontend(name: str, body: Callable[..., Any], params: str, doc: str | None) -> Callable[..., Any]:
    """``def name(params) -> Tensor: return body(args)``: a plain function with torch's
    parameter names, so keywords, ``inspect.signature`` and the typed stubs see them, and a call
    costs what a hand-written frontend costs."""
    names = [p.split(":")[0].split("=")[0].strip().lstrip("*") for p in params.split(",") if p.strip()]
    arguments = ", ".join(n for n in names if n)
    source = f"def {name}({params}) -> Tensor:\n    return _body({arguments})\n"
    namespace: dict[str, Any] = {"_body": body}
    # (annotations stay text, as in the modules written by hand: the stubs print them as written)
    exec(compile(source, f"<row {name}>", "exec", flags=__future__.annotations.compiler_flag), namespace)
    frontend: Callable[..., Any] = namespace[name]
    frontend.__doc__ = doc
    return frontend


def _first_line(fn: type[Function[Any]]) -> str | None:
    doc = inspect.getdoc(fn)
    return doc.split("\n", 1)[0] if doc else None


@dataclass(frozen=True)
class Op:
    """One op and its surfaces (see the module docstring)."""

    name: str
    #: The frontend: a function taking torch's arguments, or the Function it would only
    #: forward them to (then the frontend is made from it, with ``params``).
    frontend: Callable[..., Any]
    #: The made frontend's parameters, as Python writes them, with torch's names.
    params: str = "input: Tensor"
    method: bool = True
    function: bool = True
    #: The in-place variant's frontend (``pointwise.exp_``), or True to make it from the row's
    #: Function (``x.sin_()`` runs ``Sin`` and writes the result into ``x``).
    inplace: Callable[..., Any] | bool | None = None
    #: ``ctxgrad.<name>`` takes torch's ``out=`` (added by ``_surface.with_out``).
    out: bool = False
    #: The NumPy ufuncs that run this op on tensors (``np.sin(t)``; ``ctxgrad._numpy``).
    numpy: tuple[str, ...] = ()
    nn_functional: bool = False
    aliases: tuple[str, ...] = ()
    #: The Tensor method when it differs from the function (torch counts argument positions
    #: from ``self`` in methods, from ``input`` in functions, so some errors differ).
    method_frontend: Callable[..., Any] | None = None
    #: Dunders (``"__add__"``) that are this op, each attached as the method is.
    dunders: tuple[str, ...] = ()
    #: Dunders (``"__iadd__"``) that are the in-place variant.
    inplace_dunders: tuple[str, ...] = ()
    #: The method is a property (``x.T``).
    property: bool = False
    #: The Function the frontend was made from (None for a frontend written by hand).
    made_from: type[Function[Any]] | None = field(default=None, init=False, compare=False)

    def __post_init__(self) -> None:
        fn = self.frontend
        if not (isinstance(fn, type) and issubclass(fn, Function)):
            if self.inplace is True:
                raise TypeError(f"row {self.name!r}: inplace=True needs the row's Function as its frontend")
            return
        object.__setattr__(self, "made_from", fn)
        module = fn.__module__
        frontend = made_frontend(self.name, fn.apply, self.params, _first_line(fn))
        frontend.__module__ = module
        object.__setattr__(self, "frontend", frontend)
        if self.inplace is True:

            def written(input: Tensor, *args: Any) -> Tensor:
                return write_in_place(fn, input, *args)

            doc = f"In place: ``{self.name}``, the result written into this tensor."
            inplace = made_frontend(f"{self.name}_", written, self.params, doc)
            inplace.__module__ = module
            object.__setattr__(self, "inplace", inplace)
