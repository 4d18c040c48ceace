"""afnio's way in: values that flow through Functions, with written feedback as their gradient.

In afnio (github Tellurio-AI/afnio) a ``Variable`` holds text, a number or a batch of them
(a prompt, an answer, a list of scores), and its gradient is *feedback*: Variables saying
how to change it.  Here that is one more kind of value the engine carries (see
:mod:`ctxgrad.autograd.values`): :class:`Variable` is a value type whose zero is empty
feedback.  A leaf's ``.grad`` is afnio's list of feedback Variables, one per feedback that
reached it; ``x + y`` is afnio's :class:`Add`, and :class:`Sum`, :class:`Split` and
:class:`DeterministicEvaluator` are afnio's Functions of the same names, run here (afnio
runs them on its server).  ``Function`` is ``ctxgrad.autograd.Function`` with afnio's
refusal to be instantiated; its nodes' ``next_functions`` are afnio's ``GradientEdge``
pairs (``.node``, ``.output_nr``).  ``ctx.saved_variables`` (afnio's name) is
``ctx.saved_tensors`` without the deprecation warning it has for tensors, and
``save_for_backward`` also keeps the plain values (strings) afnio's Functions save.

A Variable used twice gets both feedbacks, in the order the engine delivers them (the
order in which torch would sum two gradients: the later use's feedback first)::

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
    >>> [g.data for g in x.grad]
    ['facts: be precise', 'style: be precise']
    >>> s = hf.Sum.apply([hf.Variable("abc", role="first"), x])     # afnio's own Functions
    >>> s.data, s.role
    ('<ITEM>abc</ITEM><ITEM>Paris is in Spain</ITEM>', 'first and answer')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor
from ctxgrad.autograd import backward, enable_grad, grad, no_grad, set_grad_enabled
from ctxgrad.autograd.function import BackwardCFunction, FunctionMeta
from ctxgrad.autograd.function import Function as _CtxFunction
from ctxgrad.autograd.grad_mode import is_grad_enabled
from ctxgrad.autograd.graph import GradientEdge, Node
from ctxgrad.autograd.values import register_value_type

__all__ = [
    "SEPARATOR",
    "Add",
    "DeterministicEvaluator",
    "Function",
    "GradientEdge",
    "Join",
    "Node",
    "Split",
    "Sum",
    "Variable",
    "backward",
    "enable_grad",
    "grad",
    "is_grad_enabled",
    "no_grad",
    "set_grad_enabled",
]

#: What joins the texts of two feedbacks summed inside a graph (a blank line: each stays a
#: paragraph).  A leaf keeps them apart, as afnio's list ``.grad``.
SEPARATOR = "\n\n"


@dataclass(frozen=True, eq=False)
class _Value:
    """What a Variable's 0-d array holds: the data and its role, kept together so a
    Variable rebuilt from its array (a saved output) keeps both."""

    data: Any
    role: str


def _checked_data(data: Any) -> Any:
    """afnio's rule for ``data``: a str, an int or a float, or a list (or tuple) of all
    strings or all numbers (ints and floats mixed become floats); a tuple becomes a list."""
    if isinstance(data, (list, tuple)):
        strings = all(isinstance(d, str) for d in data)
        numbers = all(isinstance(d, (int, float)) for d in data)
        if not (strings or numbers):
            raise TypeError(
                f"When `data` is a {type(data).__name__}, it must be either all strings or all numbers (int, float)."
            )
        if numbers and any(isinstance(d, float) for d in data) and any(isinstance(d, int) for d in data):
            return [float(d) for d in data]
        return list(data)
    if isinstance(data, (str, int, float)):
        return data
    raise TypeError(
        "`data` must be a single value (str, int, float) or a list/tuple of such values, not " + type(data).__name__
    )


def _check_role(value: Any) -> None:
    if not isinstance(value, str):
        raise TypeError(f"Variable(): argument 'role' (position 2) must be str, not {type(value).__name__}")


_NOT_LEAF_GRAD = (
    "Attempted to {} .grad for a non-leaf Variable without retain_grad enabled. Non-leaf Variables do not have "
    "their gradients retained by default in autodiff. To retain gradients for this Variable, call "
    "``.retain_grad()`` before performing the backward pass."
)


class Variable(Tensor):
    """Data (text, a number, or a batch of either) that can require grad; its gradient is
    feedback, and ``.grad`` the list of feedback Variables that reached it.

    A ``Tensor`` subclass whose 0-d array holds the data and its role, so that ``apply``,
    the engine, hooks, ``backward`` and ``autograd.grad`` take it as they are; of Tensor's
    attributes it keeps only those of the graph (Tensor's numeric methods are hidden).

    >>> from ctxgrad.compat.afnio import Variable
    >>> v = Variable("This is a string", role="Input string", requires_grad=True)
    >>> v
    Variable(data='This is a string', role='Input string', requires_grad=True)
    >>> v.data, v.role, v.is_leaf, v.grad
    ('This is a string', 'Input string', True, [])
    >>> Variable([1, 2.5], role="scores").data
    [1.0, 2.5]
    >>> s = Variable("abc", role="first input", requires_grad=True) + Variable("def", role="second input")
    >>> s.data, s.role, s.grad_fn.name()
    ('abcdef', 'first input and second input', 'AddBackward')
    """

    _parts: tuple[Variable, ...] | None = None  # a joined feedback: the feedbacks it joins

    def __init__(self, data: Any = "", role: str = "", requires_grad: bool = False) -> None:
        _check_role(role)
        self._data = _value_array(_checked_data(data), role)
        if requires_grad:
            self._requires_grad = True

    # ------------------------------------------------------------------ afnio's fields
    @property
    def data(self) -> Any:
        """The data: a str, int or float, or a list of them."""
        value: _Value = self._data.item()
        return value.data

    @data.setter
    def data(self, value: Any) -> None:
        self._data = _value_array(_checked_data(value), self.role)

    @property
    def role(self) -> str:
        """What this Variable is in the model (``"system prompt"``, ``"feedback to answer"``)."""
        value: _Value = self._data.item()
        return value.role

    @role.setter
    def role(self, value: str) -> None:
        _check_role(value)
        self._data = _value_array(self.data, value)

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

    @property  # type: ignore[override]  # (afnio's .grad is a list of feedbacks)
    def grad(self) -> list[Variable]:
        """The feedback that reached this Variable, a list of Variables (``[]`` before any)."""
        if self._grad_fn is not None and not self._retains_grad:
            raise RuntimeError(_NOT_LEAF_GRAD.format("access"))
        g = self._grad
        return [] if g is None else list(_parts_of(g))  # type: ignore[arg-type]

    @grad.setter
    def grad(self, value: list[Variable]) -> None:
        if self._grad_fn is not None and not self._retains_grad:
            raise RuntimeError(_NOT_LEAF_GRAD.format("set"))
        if not isinstance(value, list) or not all(isinstance(g, Variable) for g in value):
            raise TypeError(
                f"`.grad` expects a list of Variables for the gradient to accumulate, but got {type(value).__name__}."
            )
        self._grad = _joined_feedback(value)

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    def append_grad(self, gradient: Variable) -> None:
        """Add one feedback Variable to ``.grad``."""
        self.grad = [*self.grad, gradient]

    def backward(  # type: ignore[override]
        self,
        gradient: Variable | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        """Send ``gradient`` (feedback on this Variable; empty feedback when omitted, as afnio
        allows) back through the graph into the leaves' ``.grad``."""
        if self._grad_fn is None:
            raise RuntimeError("Variable does not require grad or does not have a grad_fn.")
        Tensor.backward(self, Variable() if gradient is None else gradient, retain_graph, create_graph, inputs)

    # ------------------------------------------------------------------ the value protocol
    def __add__(self, other: Any) -> Variable:
        """afnio's :class:`Add` (data added or concatenated, roles joined with "and").  Inside
        a backward, where the engine sums two feedbacks of one Variable with ``+`` (the value
        protocol's add), the feedbacks are kept side by side instead: see :class:`Join`."""
        if not isinstance(other, Variable):
            raise TypeError(f"Only Variables can be added to each other (Variable + {type(other).__name__}).")
        if _state.modes.backward_runs:
            joined = _joined_feedback([self, other])
            assert joined is not None  # (two feedbacks join to one)
            return joined
        out: Variable = Add.apply(self, other)
        return out

    def detach(self) -> Variable:
        """The same data and role as a new leaf without history (it does not require grad)."""
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


def _parts_of(g: Variable) -> tuple[Variable, ...]:
    return g._parts if g._parts is not None else (g,)


def _joined_feedback(feedbacks: list[Variable]) -> Variable | None:
    """The feedbacks as one gradient value: None for none, the one for one, else a
    :class:`Join` of them that remembers them (the empty zero feedback is left out)."""
    parts = [p for g in feedbacks for p in _parts_of(g) if not (p.data == "" and p.role == "")]
    if not parts:
        return feedbacks[0] if feedbacks else None
    if len(parts) == 1:
        return parts[0]
    out: Variable = Join.apply(*parts)
    out._parts = tuple(parts)
    return out


def _refuse(symbol: str, reflected: bool = False) -> Any:
    """A Tensor operator that has no meaning for a Variable: raise Python's TypeError for it."""

    def op(self: Variable, other: Any = None) -> Any:
        left, right = (type(other).__name__, "Variable") if reflected else ("Variable", type(other).__name__)
        raise TypeError(
            f"unsupported operand type(s) for {symbol}: '{left}' and '{right}' (a Variable is not a tensor)"
        )

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
# apply to a Variable: they are hidden, so using one raises AttributeError naming it.
_KEPT = frozenset(
    {
        "append_grad",
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
    """A Tensor attribute that does not apply to a Variable: reading it on one raises."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        raise AttributeError(
            f"'Variable' object has no attribute '{self.name}' (a Variable is not a tensor: of Tensor it keeps "
            f"only {', '.join(sorted(n for n in _KEPT if n not in ('data', 'role', 'append_grad')))})"
        )


for _attr in dir(Tensor):
    if not _attr.startswith("_") and _attr not in _KEPT and _attr not in Variable.__dict__:
        _hidden = _Hidden()
        _hidden.__set_name__(Variable, _attr)
        setattr(Variable, _attr, _hidden)


def _new_variable() -> Variable:
    out: Variable = Tensor.__new__(Variable)  # (a tensor's slots set, its __init__ skipped)
    return out


def _value_array(data: Any, role: str) -> np.ndarray[Any, Any]:
    arr = np.empty((), dtype=_VALUE)
    arr[()] = _Value(data, role)
    return arr


# --------------------------------------------------------------------------- Function
class _EdgeNode(BackwardCFunction):
    """A node of an afnio Function: ``next_functions`` as afnio's ``GradientEdge`` pairs."""

    @property
    def next_functions(self) -> tuple[GradientEdge, ...]:
        return tuple(GradientEdge(n, nr) for n, nr in super().next_functions)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{self.name()} object at {id(self):#x}>"

    def __str__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


class _FunctionMeta(FunctionMeta):
    """ctxgrad's Function machinery, with afnio's node class (GradientEdge pairs)."""

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
        super().__init__(name, bases, namespace)
        node = cls._backward_cls
        cls._backward_cls = type(node.__name__, (_EdgeNode, node), {"__module__": node.__module__})
        cls._backward_cls.forward_cls = cls  # type: ignore[assignment]


class Function(_CtxFunction[Any], metaclass=_FunctionMeta):
    """afnio's ``Function``: ``ctxgrad.autograd.Function`` (static ``forward(ctx, ...)`` and
    ``backward(ctx, ...)``, called with ``apply``), which afnio refuses to instantiate."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(
            f"{type(self)} should not be instantiated. Methods on autodiff functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autodiff function is not allowed."
        )


def _feedback_to(role: str, combined: Any) -> Variable:
    """afnio's feedback to an input of a combining Function (Add, Sum, Split)."""
    return Variable(
        f"Here is the combined feedback we got for this specific {role} and other variables: {combined}",
        role=f"feedback to {role}",
    )


def _add_data(a: Any, b: Any) -> Any:
    if isinstance(a, list) or isinstance(b, list):
        if not (isinstance(a, list) and isinstance(b, list)) or len(a) != len(b):
            raise ValueError(
                "Add: both Variables must hold lists of the same length, or both single values; got "
                f"{_describe(a)} and {_describe(b)}"
            )
        return [_add_data(x, y) for x, y in zip(a, b)]
    if isinstance(a, str) or isinstance(b, str):
        return f"{a}{b}"
    return a + b


def _describe(d: Any) -> str:
    return f"a list of {len(d)}" if isinstance(d, list) else f"a {type(d).__name__}"


class Add(Function):
    """``x + y``: numbers added, text concatenated, lists element by element; the role is
    ``"<x's role> and <y's role>"``.  Each input that requires grad gets feedback naming its
    role, with the output's feedback."""

    @staticmethod
    def forward(ctx: Any, x: Variable, y: Variable) -> Variable:
        for at, v in enumerate((x, y)):
            if not isinstance(v, Variable):
                raise TypeError(f"Add: argument {at} must be a Variable, not {type(v).__name__}")
        ctx.roles = (x.role, y.role)
        return Variable(_add_data(x.data, y.data), role=f"{x.role} and {y.role}")

    @staticmethod
    def backward(ctx: Any, grad_output: Variable) -> tuple[Variable | None, Variable | None]:
        return tuple(  # type: ignore[return-value]
            _feedback_to(role, grad_output.data) if need else None
            for role, need in zip(ctx.roles, ctx.needs_input_grad)
        )


def _item(value: Any) -> str:
    return f"<ITEM>{value}</ITEM>"


def _sum_data(values: list[Any]) -> Any:
    if all(isinstance(v, list) for v in values):
        if len({len(v) for v in values}) > 1:
            raise ValueError(f"Sum: the Variables hold lists of different lengths {[len(v) for v in values]}")
        return [_sum_data(list(column)) for column in zip(*values)]
    if any(isinstance(v, list) for v in values):
        raise ValueError("Sum: the Variables must all hold lists or all hold single values")
    if any(isinstance(v, str) for v in values):
        return "".join(_item(v) for v in values)
    total: Any = 0
    for v in values:
        total = total + v
    return total


class Sum(Function):
    """``Sum.apply([x, y, ...])``: numbers summed, text wrapped each in ``<ITEM></ITEM>``
    and concatenated, lists element by element; the roles joined with "and".  Each input
    that requires grad gets feedback naming its role, with the output's feedback."""

    @classmethod
    def apply(cls, x: Any, *more: Any, **kwargs: Any) -> Any:
        """Takes one list (or tuple) of Variables, as afnio's ``Sum.apply``."""
        if more or kwargs or not isinstance(x, (list, tuple)):
            raise TypeError("Sum.apply takes one argument, a list of Variables: Sum.apply([x, y])")
        if not x:
            raise ValueError("Sum.apply needs at least one Variable")
        for at, v in enumerate(x):
            if not isinstance(v, Variable):
                raise TypeError(f"Sum: item {at} of the list must be a Variable, not {type(v).__name__}")
        return super().apply(*x)

    @staticmethod
    def forward(ctx: Any, *xs: Variable) -> Variable:
        ctx.roles = tuple(v.role for v in xs)
        return Variable(_sum_data([v.data for v in xs]), role=" and ".join(ctx.roles))

    @staticmethod
    def backward(ctx: Any, grad_output: Variable) -> tuple[Variable | None, ...]:
        return tuple(
            _feedback_to(role, grad_output.data) if need else None
            for role, need in zip(ctx.roles, ctx.needs_input_grad)
        )


def _plain(value: Any) -> Any:
    return value.data if isinstance(value, Variable) else value


class Split(Function):
    """``Split.apply(x, sep=None, maxsplit=-1)``: the text split as ``str.split`` does, one
    Variable per part (role ``"split part <i> of <x's role>"``); a list of texts is split
    element by element, the shorter splits padded with ``""``.  The feedback to ``x`` holds
    every part's feedback, each wrapped in ``<ITEM></ITEM>``."""

    @staticmethod
    def forward(ctx: Any, x: Variable, sep: Any = None, maxsplit: Any = -1) -> tuple[Variable, ...]:
        sep, maxsplit = _plain(sep), _plain(maxsplit)
        data = x.data
        if isinstance(data, str):
            columns: list[Any] = list(data.split(sep, maxsplit))
        elif isinstance(data, list) and all(isinstance(d, str) for d in data):
            rows = [d.split(sep, maxsplit) for d in data]
            width = max((len(r) for r in rows), default=0)
            columns = [[r[i] if i < len(r) else "" for r in rows] for i in range(width)]
        else:
            raise TypeError(f"Split: x must hold text or a list of texts, not {_describe(data)}")
        ctx.role = x.role
        return tuple(Variable(c, role=f"split part {i} of {x.role}") for i, c in enumerate(columns))

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Variable) -> tuple[Variable, None, None]:
        combined = "".join(_item(g.data) for g in grad_outputs)
        return _feedback_to(ctx.role, combined), None, None


class DeterministicEvaluator(Function):
    """``DeterministicEvaluator.apply(prediction, target, eval_fn, eval_fn_purpose,
    success_fn=None, reduction_fn=None, reduction_fn_purpose=None)``: ``eval_fn(p, t)``
    scores the prediction against the target (each a single value, or a batch of the same
    length); returns ``(score, explanation)``.  The feedback to the prediction asks to
    reassess each prediction whose score is falsy (none when ``success_fn(scores)``)."""

    @staticmethod
    def forward(
        ctx: Any,
        prediction: Variable,
        target: Any,
        eval_fn: Callable[[Any, Any], Any],
        eval_fn_purpose: Any,
        success_fn: Callable[[list[Any]], bool] | None = None,
        reduction_fn: Callable[[list[Any]], Any] | None = None,
        reduction_fn_purpose: Any = None,
    ) -> tuple[Variable, Variable]:
        if not isinstance(prediction, Variable):
            raise TypeError(f"DeterministicEvaluator: prediction must be a Variable, not {type(prediction).__name__}")
        if not callable(eval_fn):
            raise TypeError(f"DeterministicEvaluator: eval_fn must be callable, not {type(eval_fn).__name__}")
        purpose, target = _plain(eval_fn_purpose), _plain(target)
        pred = prediction.data
        if isinstance(pred, list):
            if not isinstance(target, list) or len(target) != len(pred):
                raise ValueError(
                    f"DeterministicEvaluator: a batch of {len(pred)} predictions needs as many targets, got "
                    f"{_describe(target)}"
                )
            scores = [eval_fn(p, t) for p, t in zip(pred, target)]
            ctx.failed = [p for p, s in zip(pred, scores) if not s]
            if reduction_fn is not None:
                score: Any = reduction_fn(scores)
                how = (
                    "These scores were then aggregated using the reduction function "
                    f"'{_plain(reduction_fn_purpose)}', resulting in a final aggregated score: {score}."
                )
            else:
                score, how = scores, f"The individual scores are: {scores}."
            explanation = (
                f"The evaluation function, designed for '{purpose}', compared the <DATA> fields of the predicted "
                "variable and the target variable across all samples in the batch, generating individual scores for "
                f"each pair. {how}"
            )
        else:
            score = eval_fn(pred, target)
            scores = [score]
            ctx.failed = [] if score else [pred]
            explanation = (
                f"The evaluation function, designed for '{purpose}', compared the <DATA> field of the predicted "
                f"variable ('{pred}') with the <DATA> field of the target variable ('{target}'), resulting in a "
                f"score: {score}."
            )
        ctx.succeeded = bool(success_fn(scores)) if success_fn is not None else False
        role = prediction.role
        return (
            Variable(score, role=f"Evaluation result score of {role}"),
            Variable(explanation, role=f"Evaluation result explanation of {role}"),
        )

    @staticmethod
    def backward(ctx: Any, score_grad: Variable, explanation_grad: Variable) -> tuple[Any, ...]:
        none = (None,) * 6
        if ctx.succeeded or not ctx.failed:
            return (None, *none)
        text = " ".join(f"Reassess the criteria that led to the initial prediction of '{p}'." for p in ctx.failed)
        return (Variable(text, role="feedback to prediction"), *none)


class Join(Function):
    """Feedbacks side by side: the texts joined with :data:`SEPARATOR` (roles that differ
    joined with "; "); each input's feedback is the output's.  What the engine's ``+`` of
    two feedbacks of one Variable makes; a leaf's ``.grad`` lists them apart again."""

    @staticmethod
    def forward(ctx: Any, *feedbacks: Variable) -> Variable:
        roles: list[str] = []
        for f in feedbacks:
            if f.role not in roles:
                roles.append(f.role)
        return Variable(SEPARATOR.join(str(f.data) for f in feedbacks), role="; ".join(roles))

    @staticmethod
    def backward(ctx: Any, grad_out: Variable) -> tuple[Variable, ...]:
        return (grad_out,) * len(ctx.needs_input_grad)


_VALUE = register_value_type(Variable, zero=Variable)


_NOT_HERE = {
    "cognitive": "modules, Parameter and ChatCompletion call a language model",
    "functional": "afnio.cognitive.functional calls language models (chat_completion, the LM judge)",
    "models": "the model clients call OpenAI's API over the network",
    "optim": "TGD, afnio's optimiser, asks a language model to rewrite the parameters",
    "trainer": "the Trainer logs each run to Tellurio's server",
    "tellurio": "login, init and the runs talk to Tellurio's server",
    "utils": "DataLoader, the samplers and the datasets (which download their data)",
    "set_backward_model_client": "the backward model client calls a language model",
    "get_backward_model_client": "the backward model client calls a language model",
    "ExactMatchEvaluator": "only DeterministicEvaluator is ported (give it an exact-match eval_fn)",
    "LMJudgeEvaluator": "the LM judge calls a language model",
    "ChatCompletion": "it calls a language model",
    "load": "afnio's serialization (use pickle: a Variable pickles)",
    "save": "afnio's serialization (use pickle: a Variable pickles)",
}


def __getattr__(name: str) -> Any:
    if name in _NOT_HERE:
        raise AttributeError(
            f"ctxgrad.compat.afnio has no {name!r}: {_NOT_HERE[name]}, which this port does not do "
            "(docs/porting-afnio.md lists what runs)"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
