"""afnio's way in: text that flows through Functions, with written feedback as its gradient.

In afnio a ``Variable`` holds text (a prompt, an answer) and its gradient is *feedback*, text
saying how to change it.  Here that is one more kind of value the engine carries (see
:mod:`ctxgrad.autograd.values`): :class:`Variable` is a value type whose zero is empty
feedback and whose sum joins two feedbacks with :data:`SEPARATOR`.  ``Function`` is
``ctxgrad.autograd.Function`` itself; ``ctx.saved_variables`` (afnio's name) is
``ctx.saved_tensors`` without the deprecation warning it has for tensors, and
``save_for_backward`` also keeps the plain values (strings) afnio's Functions save.

A Variable used twice gets both feedbacks, joined in the order the engine delivers them
(the order in which torch would sum two gradients: the later use's feedback first)::

    >>> import ctxgrad.compat.afnio as hf
    >>> from ctxgrad.compat.afnio import Function
    >>> class Critique(Function):
    ...     @staticmethod
    ...     def forward(ctx, x, aspect):
    ...         ctx.aspect = aspect
    ...         return hf.Variable(f"{x.data} [{aspect}]", role=f"{aspect} of {x.role}")
    ...     @staticmethod
    ...     def backward(ctx, grad_out):
    ...         return hf.Variable(f"{ctx.aspect}: {grad_out.data}", role="feedback"), None
    >>> class Both(Function):
    ...     @staticmethod
    ...     def forward(ctx, a, b):
    ...         return hf.Variable(a.data + " / " + b.data, role="both")
    ...     @staticmethod
    ...     def backward(ctx, grad_out):
    ...         return grad_out, grad_out
    >>> x = hf.Variable("Paris is in Spain", role="answer", requires_grad=True)
    >>> out = Both.apply(Critique.apply(x, "style"), Critique.apply(x, "facts"))
    >>> out
    Variable(data='Paris is in Spain [style] / Paris is in Spain [facts]', role='both', grad_fn=<BothBackward>)
    >>> out.backward(hf.Variable("be precise"))
    >>> print(x.grad.data)
    facts: be precise
    <BLANKLINE>
    style: be precise
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor
from ctxgrad.autograd import Function, backward, enable_grad, grad, no_grad
from ctxgrad.autograd.values import register_value_type

__all__ = ["SEPARATOR", "Function", "Join", "Variable", "backward", "enable_grad", "grad", "no_grad"]

#: What joins two feedbacks for one Variable (a blank line: each feedback stays a paragraph).
SEPARATOR = "\n\n"


@dataclass(frozen=True)
class _Text:
    """The value a Variable's 0-d array holds: the text and its role, kept together so a
    Variable rebuilt from its array (a saved output) keeps both."""

    data: str
    role: str


def _check_str(what: str, position: int, value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(
            f"Variable(): argument '{what}' (position {position}) must be str, not {type(value).__name__}"
            + (" (for numbers, use ctxgrad.tensor)" if what == "data" else "")
        )


class Variable(Tensor):
    """Text that can require grad; its gradient (``.grad``) is a feedback Variable.

    A ``Tensor`` subclass whose 0-d array holds the text and its role, so that ``apply``,
    the engine, hooks, ``backward`` and ``autograd.grad`` take it as they are; of Tensor's
    attributes it keeps only those of the graph (Tensor's numeric methods are hidden).

    >>> from ctxgrad.compat.afnio import Variable
    >>> v = Variable("This is a string", role="Input string", requires_grad=True)
    >>> v
    Variable(data='This is a string', role='Input string', requires_grad=True)
    >>> v.data, v.role, v.is_leaf, v.grad
    ('This is a string', 'Input string', True, None)
    >>> print((Variable("too long", role="feedback") + Variable("too vague", role="feedback")).data)
    too long
    <BLANKLINE>
    too vague
    """

    def __init__(self, data: str = "", role: str = "", requires_grad: bool = False) -> None:
        _check_str("data", 1, data)
        _check_str("role", 2, role)
        self._data = _text_array(data, role)
        if requires_grad:
            self._requires_grad = True

    # ------------------------------------------------------------------ afnio's fields
    @property  # type: ignore[override]
    def data(self) -> str:
        """The text."""
        text: _Text = self._data.item()
        return text.data

    @data.setter
    def data(self, value: str) -> None:
        _check_str("data", 1, value)
        self._data = _text_array(value, self.role)

    @property
    def role(self) -> str:
        """What this text is in the model (``"system prompt"``, ``"feedback to answer"``)."""
        text: _Text = self._data.item()
        return text.role

    @role.setter
    def role(self, value: str) -> None:
        _check_str("role", 2, value)
        self._data = _text_array(self.data, value)

    @property
    def requires_grad(self) -> bool:
        """Whether feedback is computed for this Variable."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Variable:
        """Set ``requires_grad`` of a leaf in place and return it."""
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        if self._grad_fn is None:
            self._requires_grad = bool(requires_grad)
        return self

    # ------------------------------------------------------------------ the value protocol
    def __add__(self, other: Any) -> Variable:
        """The feedbacks joined (the value protocol's add: what the engine uses to sum two
        gradients of one Variable, and ``.grad`` to accumulate)."""
        if not isinstance(other, Variable):
            raise TypeError(f"Variable + {type(other).__name__}: only Variables can be joined")
        out: Variable = Join.apply(self, other)
        return out

    def detach(self) -> Variable:
        """The same text and role as a new leaf without history (it does not require grad)."""
        out = _new_variable()
        out._data = self._data
        return out

    def __repr__(self) -> str:
        if self._grad_fn is not None:
            tail = f", grad_fn=<{self._grad_fn.name()}>"
        else:
            tail = ", requires_grad=True" if self._requires_grad else ""
        return f"Variable(data={self.data!r}, role={self.role!r}{tail})"

    __str__ = __repr__


def _refuse(symbol: str, reflected: bool = False) -> Any:
    """A Tensor operator that has no meaning for text: raise Python's TypeError for it."""

    def op(self: Variable, other: Any = None) -> Any:
        left, right = (type(other).__name__, "Variable") if reflected else ("Variable", type(other).__name__)
        raise TypeError(f"unsupported operand type(s) for {symbol}: '{left}' and '{right}' (a Variable holds text)")

    return op


for _name, _symbol in (
    ("mul", "*"),
    ("sub", "-"),
    ("truediv", "/"),
    ("floordiv", "//"),
    ("matmul", "@"),
    ("pow", "**"),
):
    setattr(Variable, f"__{_name}__", _refuse(_symbol))
    setattr(Variable, f"__r{_name}__", _refuse(_symbol, reflected=True))
Variable.__radd__ = _refuse("+", reflected=True)  # type: ignore[method-assign]


# What a Variable keeps of Tensor: the graph (backward, grad, hooks, leaves) and the metadata
# the engine and the printers read.  Tensor's numeric methods (sum, exp, item, ...) do not
# apply to text: on a Variable they are hidden, so using one raises AttributeError naming it.
_KEPT = frozenset(
    {
        "backward",
        "data",
        "detach",
        "device",
        "dtype",
        "grad",
        "grad_fn",
        "is_leaf",
        "ndim",
        "output_nr",
        "register_hook",
        "register_post_accumulate_grad_hook",
        "requires_grad",
        "requires_grad_",
        "retain_grad",
        "retains_grad",
        "role",
        "shape",
    }
)


class _Hidden:
    """A Tensor attribute that does not apply to text: reading it on a Variable raises."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        raise AttributeError(
            f"'Variable' object has no attribute '{self.name}' (a Variable holds text: of Tensor it keeps "
            f"only {', '.join(sorted(n for n in _KEPT if n not in ('data', 'role')))})"
        )


for _attr in dir(Tensor):
    if not _attr.startswith("_") and _attr not in _KEPT and _attr not in Variable.__dict__:
        _hidden = _Hidden()
        _hidden.__set_name__(Variable, _attr)
        setattr(Variable, _attr, _hidden)


def _new_variable() -> Variable:
    out: Variable = object.__new__(Variable)
    return out


def _text_array(data: str, role: str) -> np.ndarray[Any, Any]:
    arr = np.empty((), dtype=_TEXT)
    arr[()] = _Text(data, role)
    return arr


def _joined(a: str, b: str, sep: str) -> str:
    return a if not b or a == b else b if not a else f"{a}{sep}{b}"


class Join(Function):
    """Two Variables' texts joined with :data:`SEPARATOR` (empty text is skipped: it is the
    zero); roles that differ are joined with ``"; "``.  Each input's feedback is the
    output's."""

    @staticmethod
    def forward(ctx: Any, a: Variable, b: Variable) -> Variable:
        data = a.data if not b.data else b.data if not a.data else a.data + SEPARATOR + b.data
        return Variable(data, role=_joined(a.role, b.role, "; "))

    @staticmethod
    def backward(ctx: Any, grad_out: Variable) -> tuple[Variable, Variable]:
        return grad_out, grad_out


_TEXT = register_value_type(Variable, zero=Variable)
