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

An op whose arguments need real work names an *argument handler* beside its Function: a
function of the name called (``"atan2"`` or ``"atan2_"``, for torch's error messages) and of
torch's arguments, returning the Function's arguments.  The frontend and the in-place variant
are made from the two, with the handler's parameters:

>>> from ctxgrad.ops.pointwise import Logit, logit_args
>>> row = Op("logit", Logit, args=logit_args, inplace=True)
>>> row.inplace.__name__, list(inspect.signature(row.inplace).parameters)
('logit_', ['input', 'eps'])

An op that chooses between Functions keeps a named frontend function in its family module,
which the row names (``Op("sum", sum)``).  Three fields add what torch's frontends share:
``numpy_dims=True`` takes NumPy's ``axis=``/``keepdims=`` for ``dim``/``keepdim``;
``view=True`` with ``inplace=True`` makes the in-place view op (``x.t_()``, by
:func:`~ctxgrad.autograd.inplace.view_in_place`); ``nn_functional=True`` puts the op in
``ctxgrad.nn.functional``, and ``inplace_keyword=True`` gives that function torch's
``inplace=False`` keyword, which runs the in-place variant.
"""

from __future__ import annotations
import __future__

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import view_in_place, write_in_place
from ctxgrad.ops._util import numpy_dim, numpy_keepdim

__all__ = ["Op", "made_frontend", "signature_of", "with_numpy_dims"]

_FLAGS = __future__.annotations.compiler_flag
_P = inspect.Parameter


@functools.cache  # (the rows share a few parameter lists: compiled once each at import)
def signature_of(params: str) -> inspect.Signature:
    """The signature that ``params`` (as Python writes parameters: ``"input: Tensor, dim: int
    = 0"``) declares, its annotations kept as text."""
    namespace: dict[str, Any] = {}
    exec(compile(f"def _({params}): pass\n", "<params>", "exec", flags=_FLAGS), namespace)
    return inspect.signature(namespace["_"])


def _source(name: str, signature: inspect.Signature, call: str, prologue: str, namespace: dict[str, Any]) -> str:
    """``def name(<signature>) -> R:\n<prologue>    return _body(<call>)``, the defaults put
    in ``namespace``."""
    pieces: list[str] = []
    star = False
    parameters = list(signature.parameters.values())
    for i, p in enumerate(parameters):
        piece = p.name
        if p.kind is _P.VAR_POSITIONAL:
            piece, star = f"*{p.name}", True
        elif p.kind is _P.VAR_KEYWORD:
            piece = f"**{p.name}"
        elif p.kind is _P.KEYWORD_ONLY and not star:
            pieces.append("*")
            star = True
        if p.annotation is not p.empty:
            annotation = p.annotation if isinstance(p.annotation, str) else inspect.formatannotation(p.annotation)
            piece += f": {annotation}"
        if p.default is not p.empty:
            namespace[f"_default{i}"] = p.default
            piece += f" = _default{i}"
        pieces.append(piece)
        if p.kind is _P.POSITIONAL_ONLY and (
            i + 1 == len(parameters) or parameters[i + 1].kind is not _P.POSITIONAL_ONLY
        ):
            pieces.append("/")
    returns = signature.return_annotation
    returns_text = "Tensor" if returns is signature.empty else returns if isinstance(returns, str) else "Any"
    return f"def {name}({', '.join(pieces)}) -> {returns_text}:\n{prologue}    return _body({call})\n"


def _call(signature: inspect.Signature) -> list[str]:
    """The arguments that pass a function's parameters on, each as it was given."""
    call: list[str] = []
    for p in signature.parameters.values():
        if p.kind is _P.VAR_POSITIONAL:
            call.append(f"*{p.name}")
        elif p.kind is _P.VAR_KEYWORD:
            call.append(f"**{p.name}")
        elif p.kind is _P.KEYWORD_ONLY:
            call.append(f"{p.name}={p.name}")
        else:
            call.append(p.name)
    return call


def made_frontend(
    name: str,
    body: Callable[..., Any],
    signature: inspect.Signature | str,
    doc: str | None,
    *,
    first: tuple[Any, ...] = (),
    handler: Callable[..., tuple[Any, ...]] | None = None,
    passed: inspect.Signature | None = None,
    prologue: str = "",
    extra: dict[str, Any] | None = None,
) -> Callable[..., Any]:
    """``def name(<signature>) -> Tensor: return body(*first, <its arguments>)``: a plain
    function with torch's parameter names, so keywords, ``inspect.signature`` and the typed
    stubs see them, and a call costs what a hand-written frontend costs.  With a ``handler``,
    ``body(*handler(*first, <its arguments>))``.  ``passed`` (default: the signature) says which
    parameters go on; ``prologue`` is source run first, ``extra`` the names it reads."""
    if isinstance(signature, str):
        signature = signature_of(signature)
    namespace: dict[str, Any] = {"_body": body, "_handler": handler, "Tensor": Tensor, **(extra or {})}
    call = [repr(value) for value in first] + _call(passed or signature)
    if handler is not None:
        call = [f"*_handler({', '.join(call)})"]
    source = _source(name, signature, ", ".join(call), prologue, namespace)
    # (annotations stay text, as in the modules written by hand: the stubs print them as written)
    exec(compile(source, f"<row {name}>", "exec", flags=_FLAGS), namespace)
    frontend: Callable[..., Any] = namespace[name]
    frontend.__doc__ = doc
    return frontend


_NUMPY_DIM = "    if axis is not None:\n        {dim} = _numpy_dim({name!r}, {dim}, axis, _dim_default)\n"
_NUMPY_KEEPDIM = "    if keepdims is not None:\n        keepdim = _numpy_keepdim({name!r}, keepdim, keepdims)\n"


def with_numpy_dims(name: str, frontend: Callable[..., Any]) -> Callable[..., Any]:
    """``frontend`` taking NumPy's ``axis=`` and ``keepdims=`` as well, read as its ``dim`` and
    ``keepdim`` (given beside a ``dim`` or ``keepdim=True``, torch's TypeError): the one
    normaliser of those names, made for the rows with ``numpy_dims=True``.  A frontend that
    declares ``keepdims`` itself receives it as given too (after ``keepdim`` is set from it), for
    torch's errors that name the keyword (``t.sum(keepdims=False)``).

    >>> import ctxgrad
    >>> ctxgrad.tensor([[1.0, 2.0], [3.0, 4.0]]).amax(axis=1, keepdims=True)
    tensor([[2.],
            [4.]])
    """
    signature = inspect.signature(frontend)
    params = dict(signature.parameters)
    dim = "dim" if "dim" in params else "dims"
    prologue = _NUMPY_DIM.format(dim=dim, name=name)
    added = [_P("axis", _P.KEYWORD_ONLY, default=None, annotation="Any")]
    if "keepdim" in params:
        prologue += _NUMPY_KEEPDIM.format(name=name)
        if "keepdims" not in params:  # (a frontend that declares it is told the name given)
            added.append(_P("keepdims", _P.KEYWORD_ONLY, default=None, annotation="bool | None"))
    kept = list(params.values())
    at = len(kept) - (kept[-1].kind is _P.VAR_KEYWORD if kept else 0)
    made = signature.replace(parameters=[*kept[:at], *added, *kept[at:]])
    extra = {"_numpy_dim": numpy_dim, "_numpy_keepdim": numpy_keepdim, "_dim_default": params[dim].default}
    wrapped = made_frontend(name, frontend, made, frontend.__doc__, passed=signature, prologue=prologue, extra=extra)
    wrapped.__module__ = frontend.__module__
    wrapped.__wrapped__ = frontend  # type: ignore[attr-defined]
    wrapped.__signature__ = made  # type: ignore[attr-defined]  # (its own: inspect.signature would follow __wrapped__)
    return wrapped


def _first_line(fn: Any) -> str | None:
    doc = inspect.getdoc(fn)
    return doc.split("\n", 1)[0] if doc else None


def _is_function(value: Any) -> TypeGuard[type[Function[Any]]]:
    return isinstance(value, type) and issubclass(value, Function)


@dataclass(frozen=True)
class Op:
    """One op and its surfaces (see the module docstring)."""

    name: str
    #: The frontend: a function taking torch's arguments, or the Function it would only
    #: forward them to (then the frontend is made from it, with ``params`` or ``args``).
    frontend: Callable[..., Any]
    #: The made frontend's parameters, as Python writes them, with torch's names.
    params: str = "input: Tensor"
    #: The argument handler of a made frontend: ``args(name, *torch's arguments)`` returns the
    #: Function's arguments (``name`` is the one called: ``"atan2"`` or ``"atan2_"``); its
    #: parameters after ``name`` are the frontend's.
    args: Callable[..., tuple[Any, ...]] | None = None
    method: bool = True
    function: bool = True
    #: The in-place variant: its frontend (``pointwise.exp_``); True to make it from the row's
    #: Function (``x.sin_()`` runs ``Sin`` and writes the result into ``x``) or, with
    #: ``view=True``, from the view op; or a subclass of the row's Function that the in-place
    #: form runs instead (torch names some in-place nodes apart: ``EluBackward1``).
    inplace: Callable[..., Any] | bool | None = None
    #: The in-place variant is a ``ctxgrad`` function too, as torch has ``torch.exp_`` (for some
    #: ops only: there is no ``torch.add_``).
    inplace_function: bool = False
    #: The op returns a view of its input (with ``inplace=True``: ``x.t_()``).
    view: bool = False
    #: ``ctxgrad.<name>`` takes torch's ``out=`` (added by ``_surface.with_out``).
    out: bool = False
    #: The NumPy ufuncs that run this op on tensors (``np.sin(t)``; ``ctxgrad._numpy``).
    numpy: tuple[str, ...] = ()
    #: The frontend takes NumPy's ``axis=``/``keepdims=`` too (:func:`with_numpy_dims`), and so
    #: does the in-place variant.
    numpy_dims: bool = False
    #: The made frontend and in-place variant are one step of a trace, which a replay calls
    #: again (:func:`~ctxgrad._replayed.replayed_whole`): for an argument handler that reads
    #: tensor values (an index's positions).
    replayed: bool = False
    #: The op is in ``ctxgrad.nn.functional`` under its name.
    nn_functional: bool = False
    #: ``ctxgrad.nn.functional``'s function takes torch's ``inplace=False`` (True runs the
    #: in-place variant).
    inplace_keyword: bool = False
    #: The in-place variant is in ``ctxgrad.nn.functional`` too (``F.elu_``).
    nn_inplace: bool = False
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
    #: ``ctxgrad.nn.functional``'s function (with ``inplace=`` when ``inplace_keyword``).
    nn_frontend: Callable[..., Any] | None = field(default=None, init=False, compare=False)

    def __post_init__(self) -> None:
        fn = self.frontend
        set_ = functools.partial(object.__setattr__, self)
        if _is_function(fn):
            set_("made_from", fn)
            set_("frontend", _made(self, self.name, fn, fn.apply))
            if self.inplace is True or _is_function(self.inplace):
                writer: Any = self.inplace if _is_function(self.inplace) else fn
                set_("inplace", _made(self, f"{self.name}_", fn, functools.partial(write_in_place, writer), writer))
        if self.numpy_dims:
            set_("frontend", with_numpy_dims(self.name, self.frontend))
            if callable(self.inplace):  # (made from the Function, or written by hand: axis= there too)
                set_("inplace", with_numpy_dims(f"{self.name}_", self.inplace))
        if self.inplace is True:  # (a view op's: the variants made from a Function are set above)
            if not self.view:
                raise TypeError(f"row {self.name!r}: inplace=True needs the row's Function, or view=True")
            made = made_frontend(
                f"{self.name}_",
                functools.partial(view_in_place, self.frontend),
                inspect.signature(self.frontend, follow_wrapped=False),  # (with ``axis=``, when numpy_dims)
                f"In place: ``{self.name}``, this tensor taking the view's shape and strides.",
            )
            made.__module__ = fn.__module__
            set_("inplace", made)
        if self.nn_functional:
            set_("nn_frontend", _nn_frontend(self))


def _made(
    row: Op,
    name: str,
    fn: type[Function[Any]],
    body: Callable[..., Any],
    writer: type[Function[Any]] | None = None,
) -> Callable[..., Any]:
    """The frontend (or, with ``writer``, the in-place variant) named ``name``: ``body``
    (``fn.apply``) of its arguments, or of what the row's argument handler makes of them."""
    if writer is None:
        doc = _first_line(fn)
    else:
        doc = f"In place: ``{row.name}``, the result written into this tensor."
    if row.args is None:
        made = made_frontend(name, body, row.params, doc)
    else:
        signature = inspect.signature(row.args)
        after_name = list(signature.parameters.values())[1:]
        signature = signature.replace(parameters=after_name, return_annotation="Tensor")
        made = made_frontend(name, body, signature, doc, first=(name,), handler=row.args)
    made.__module__ = fn.__module__
    return replayed_whole(made) if row.replayed else made


def _nn_frontend(row: Op) -> Callable[..., Any]:
    """``ctxgrad.nn.functional``'s function of ``row``: its frontend, with torch's ``inplace=``
    keyword (running the in-place variant) when the row says ``inplace_keyword``."""
    if not row.inplace_keyword:
        return row.frontend
    assert callable(row.inplace), f"row {row.name!r}: inplace_keyword needs an in-place variant"
    signature = inspect.signature(row.frontend)
    flag = _P("inplace", _P.POSITIONAL_OR_KEYWORD, default=False, annotation="bool")
    kept = list(signature.parameters.values())
    made = signature.replace(parameters=[*kept, flag])
    prologue = f"    if inplace:\n        return _inplace({', '.join(_call(signature))})\n"
    frontend = made_frontend(
        row.name, row.frontend, made, row.frontend.__doc__, passed=signature, prologue=prologue,
        extra={"_inplace": row.inplace},
    )  # fmt: skip
    frontend.__module__ = row.frontend.__module__
    return frontend
