"""Diagnose a custom :class:`~ctxgrad.autograd.Function`: ``check_function``.

:func:`~ctxgrad.autograd.gradcheck` answers one question, "is the backward right?", and
stops at the first failure.  ``check_function`` is for the op author who wants to know
*what* is wrong: it runs a list of named checks on one Function class and turns every
mistake it recognises into a :class:`Finding` with a one-line fix:

* ``backward`` returns the wrong number of gradients, a gradient of the wrong shape or
  dtype, something that is not a tensor, or a gradient for an argument that is not one;
* the gradient disagrees with finite differences, for which input, and how: a constant
  factor, the wrong sign, the transpose;
* ``forward`` changes an input in place without ``ctx.mark_dirty``;
* a tensor is kept as a ctx attribute instead of passed to ``save_for_backward``;
* a saved intermediate (neither input nor output) makes double backward silently wrong;
* a backward computed in raw NumPy, not marked ``once_differentiable``, whose result
  cannot be differentiated again;
* ``ctx.needs_input_grad`` is ignored (a hint: wasted work, not a wrong answer);
* a gradient that is *meant* to differ from the true one (a straight-through estimator,
  torchlogix's ``GradFactor``) is declared with :func:`surrogate` (or a class attribute
  ``surrogate_gradient = "why"``): the gradient check then reports it as ``declared``, with
  the reason, instead of failing, and every other check still runs;
* two identical backward calls disagree;
* the ``jvp`` disagrees with the backward; with ``forward=True``, a Function without
  ``jvp`` is checked through the tangents forward mode derives from its backward.

The inputs come from an ``example_inputs()`` staticmethod of the class, or from the
:func:`example` decorator, or from the ``inputs`` argument.  Floating-point tensors among
them are cast to ``dtype`` and checked (they require grad); other values pass through.

    >>> import ctxgrad
    >>> from ctxgrad.autograd import Function
    >>> from ctxgrad.checks import check_function, example
    >>> @example(ctxgrad.tensor([0.5, -1.0, 2.0]))
    ... class Cube(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x * x * grad
    >>> report = check_function(Cube)
    >>> report.ok
    True
    >>> [check.name for check in report.checks if check.status == "pass"][:3]
    ['inputs', 'forward', 'in-place']

The command line runs the same checks on every Function of a file:
``python -m ctxgrad check my_ops.py`` (see :mod:`ctxgrad.cli`).
"""

from __future__ import annotations

import os
import re
import traceback
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import numpy as np

from ctxgrad._check_inputs import CheckedInputs, Strided, guess_arguments, strided_leaf
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd._grad import as_tuple
from ctxgrad.autograd._validate import Problem, gradient_problems
from ctxgrad.autograd.errors import NoJvpError
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.autograd.gradcheck import (
    GradcheckError,
    _Checked,
    _forward_jacobian,
    _input_labels,
    _numerical_jacobians,
    _vjp,
    gradcheck,
    gradgradcheck,
)

__all__ = ["CheckReport", "CheckResult", "Finding", "check_function", "example", "surrogate"]

Severity = Literal["error", "hint"]
Status = Literal["pass", "fail", "skip", "declared"]
_F = TypeVar("_F", bound=type)

# ctx attributes set by ctxgrad itself: the scan for tensors kept on ctx skips them.
_CTX_INTERNALS = frozenset(
    {
        "_saved",
        "_materialize",
        "_fw_saved",
        "_cleared_on_access",
        "to_save",
        "_hooks",
        "_metadata",
        "_edges",
        "_seq",
        "_dual",
        "_dirty",
        "_non_diff",
    }
)
# Finite differences and their tolerances by dtype: float32 cannot resolve eps=1e-6.
_TOLERANCES = {"float64": (1e-6, 1e-5, 1e-3), "float32": (1e-3, 1e-2, 1e-2), "float16": (1e-2, 5e-2, 5e-2)}


# --------------------------------------------------------------------------- the report
@dataclass(frozen=True)
class Finding:
    """One recognised mistake: a stable ``name``, ``severity`` ("error": a wrong result or a
    crash; "hint": wasted work), a ``message`` saying what was seen, and a one-line ``fix``."""

    name: str
    severity: Severity
    message: str
    fix: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "severity": self.severity, "message": self.message, "fix": self.fix}


@dataclass(frozen=True)
class CheckResult:
    """One check that was run (``status`` "pass" or "fail") or could not be ("skip"); "declared":
    the check found what the Function declared on purpose (a surrogate gradient), not a mistake."""

    name: str
    status: Status
    detail: str

    def to_dict(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "detail": self.detail}


@dataclass
class CheckReport:
    """What :func:`check_function` found for one Function class.

    ``str(report)`` is the text the command line prints: one line per check, then the
    findings with their fixes, then a summary line.
    """

    function: str
    checks: list[CheckResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no check failed and no finding is an error (hints are allowed)."""
        return not any(c.status == "fail" for c in self.checks) and not any(
            f.severity == "error" for f in self.findings
        )

    def finding(self, name: str) -> Finding | None:
        """The first finding called ``name``, or None."""
        return next((f for f in self.findings if f.name == name), None)

    @property
    def summary(self) -> str:
        counts = {s: sum(c.status == s for c in self.checks) for s in ("pass", "fail", "skip", "declared")}
        errors = sum(f.severity == "error" for f in self.findings)
        hints = len(self.findings) - errors
        declared = f", {counts['declared']} declared" if counts["declared"] else ""
        return (
            f"{self.function}: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped{declared}; "
            f"{errors} error{'s' * (errors != 1)}, {hints} hint{'s' * (hints != 1)} -> "
            f"{'OK' if self.ok else 'FAILED'}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "ok": self.ok,
            "checks": [c.to_dict() for c in self.checks],
            "findings": [f.to_dict() for f in self.findings],
            "summary": self.summary,
        }

    def __str__(self) -> str:
        lines = [f"== {self.function}"]
        lines += [f"  {_LABELS.get(c.status, c.status.upper()):<4}  {c.name:<24} {c.detail}" for c in self.checks]
        for f in self.findings:
            lines.append(f"  {f.severity}: [{f.name}] {f.message}")
            lines.append(f"    fix: {f.fix}")
        lines.append(self.summary)
        return "\n".join(lines)

    def _add(self, name: str, status: Status, detail: str) -> None:
        self.checks.append(CheckResult(name, status, detail))


_LABELS = {"declared": "DECL"}  # the status column is four wide


class _Stop(Exception):
    """Raised inside check_function when the remaining checks cannot run."""


# --------------------------------------------------------------------------- example inputs
def example(*args: Any, **kwargs: Any) -> Callable[[_F], _F]:
    """Attach example inputs to a Function class, for :func:`check_function` and the
    ``python -m ctxgrad check`` command: ``@example(x, w, scale=2.0)`` above ``class F``.

    The arguments are those of ``F.apply``; an ``example_inputs()`` staticmethod on the
    class takes precedence.
    """

    def attach(cls: _F) -> _F:
        if not (isinstance(cls, type) and issubclass(cls, Function)):
            raise TypeError(f"@example(...) decorates a Function subclass, not {cls!r}")
        cls.__ctxgrad_example__ = (args, kwargs)  # type: ignore[attr-defined]
        return cls

    return attach


def surrogate(reason: str) -> Callable[[_F], _F]:
    """Declare that a Function's backward is a *surrogate* gradient on purpose: not the
    derivative of its forward (a straight-through estimator, a gradient scaled to keep a deep
    network learning).  ``@surrogate("why")`` above ``class F`` sets ``F.surrogate_gradient =
    "why"``, which may also be written in the class body.

    :func:`check_function` and ``python -m ctxgrad check`` then report the gradient check (and
    the forward-mode tangents derived from backward) as ``declared``, with the reason, instead
    of failing; every other check still runs, and a backward that crashes or returns the wrong
    structure is still an error.

    >>> import ctxgrad
    >>> from ctxgrad.autograd import Function
    >>> from ctxgrad.checks import check_function, example, surrogate
    >>> @surrogate("straight-through: round has no useful derivative")
    ... @example(ctxgrad.tensor([0.2, 1.7]))
    ... class Round(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         return x.round()
    ...
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         return grad
    >>> report = check_function(Round)
    >>> report.ok
    True
    >>> print(next(c for c in report.checks if c.name == "gradient").detail)
    backward differs from finite differences for x, as declared: straight-through: round has no useful derivative
    """
    if not isinstance(reason, str) or not reason.strip():
        raise TypeError(f"@surrogate(reason) needs the reason as a non-empty string, but got {reason!r}")

    def declare(cls: _F) -> _F:
        if not (isinstance(cls, type) and issubclass(cls, Function)):
            raise TypeError(f"@surrogate(...) decorates a Function subclass, not {cls!r}")
        cls.surrogate_gradient = reason  # type: ignore[attr-defined]
        return cls

    return declare


def _surrogate_reason(cls: type[Function]) -> str | None:
    """The reason ``cls`` declared for its surrogate gradient, or None."""
    reason = getattr(cls, "surrogate_gradient", None)
    if reason is None:
        return None
    if not isinstance(reason, str) or not reason.strip():
        raise TypeError(
            f"{cls.__name__}.surrogate_gradient must be the reason, a non-empty string, but it is {reason!r}"
        )
    return reason


def _missing_inputs_message(name: str) -> str:
    return (
        f"{name} has no example inputs, so it cannot be checked. Give them in one of two ways: a staticmethod "
        f"`example_inputs()` on {name} that returns the tuple of arguments for apply, or the decorator "
        f"`@ctxgrad.checks.example(arg0, arg1, ...)` above `class {name}`."
    )


def _example_arguments(cls: type[Function], inputs: Sequence[Any] | None) -> tuple[Any, ...]:
    """The positional arguments of ``cls.apply`` to check with (keywords bound to slots)."""
    kwargs: dict[str, Any] = {}
    if inputs is not None:
        args = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    elif callable(getattr(cls, "example_inputs", None)):
        made = cls.example_inputs()  # type: ignore[attr-defined]
        args = tuple(made) if isinstance(made, (tuple, list)) else (made,)
    elif hasattr(cls, "__ctxgrad_example__"):
        args, kwargs = cls.__ctxgrad_example__
    else:
        raise _Stop(_missing_inputs_message(cls.__name__))
    if kwargs:
        args = cls._plan.bind(cls, args, kwargs)
    return args


# --------------------------------------------------------------------------- helpers
def _outputs_of(result: Any) -> list[tuple[int, Tensor]]:
    """The outputs that require grad, with their positions in forward's result."""
    return [(q, o) for q, o in enumerate(as_tuple(result)) if isinstance(o, Tensor) and o._requires_grad]


def _ctx_of(cls: type[Function], result: Any) -> Any:
    for o in as_tuple(result):
        fn = getattr(o, "_grad_fn", None) if isinstance(o, Tensor) else None
        if fn is not None and type(fn) is cls._backward_cls:
            return fn
    return None


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (tuple, list)):
        return any(isinstance(v, Tensor) for v in value)
    if isinstance(value, dict):
        return any(isinstance(v, Tensor) for v in value.values())
    return False


def _raw_backward(cls: type[Function], ctx: Any, grads: list[Tensor | None]) -> tuple[Any, ...]:
    """What the user's backward returns, before the engine checks and fits it."""
    impl = cls._backward_impl
    with no_grad():
        result = impl(ctx, grads) if cls.boxed_grads_call else impl(ctx, *grads)
    return as_tuple(result)


def _seeds(ctx: Any, result: Any, rng: np.random.Generator, normal: bool = False) -> list[Tensor | None]:
    """One grad_output per output of the node: random for a differentiable one (in [0.5, 1.5),
    or ``normal``: standard normal, complex for a complex output), zeros for one that is not
    (as the engine materialises it), None for a non-tensor."""
    outs = as_tuple(result)
    seeds: list[Tensor | None] = []
    for q, m in enumerate(ctx._out_meta):
        if m is None:
            seeds.append(None)
        elif q < len(outs) and isinstance(outs[q], Tensor) and outs[q]._requires_grad:
            values = rng.standard_normal(m[0]) if normal else rng.uniform(0.5, 1.5, m[0])
            if normal and np.dtype(m[1]).kind == "c":
                values = values + 1j * rng.standard_normal(m[0])
            seeds.append(_wrap(np.asarray(values).astype(m[1])))
        else:
            seeds.append(_wrap(np.zeros(m[0], dtype=m[1])))
    return seeds


def _combined(a: list[Tensor | None], b: list[Tensor | None] | None, scale: float = 1.0) -> list[Tensor | None]:
    """``scale * a + b`` for lists of grad_outputs (None where ``a`` has None)."""
    out: list[Tensor | None] = []
    for k, x in enumerate(a):
        y = None if b is None else b[k]
        out.append(None if x is None else _wrap(scale * x._data + (0 if y is None else y._data)))
    return out


def _arrays(values: Sequence[Any]) -> list[np.ndarray[Any, Any] | None]:
    return [v._data if isinstance(v, Tensor) else None for v in values]


def _gap(a: np.ndarray[Any, Any] | None, b: np.ndarray[Any, Any] | None) -> float:
    """The largest absolute difference of two gradients, None read as zeros."""
    if a is None and b is None:
        return 0.0
    if a is None or b is None:
        given = b if a is None else a
        assert given is not None
        return float(np.abs(given).max(initial=0.0))
    if np.shape(a) != np.shape(b):
        return float("inf")
    x, y = np.asarray(a), np.asarray(b)
    if x.dtype.kind == "b" or y.dtype.kind == "b":
        return float(np.any(x != y))
    return float(np.abs(x - y).max(initial=0.0))


def _scale_of(values: Sequence[np.ndarray[Any, Any] | None]) -> float:
    return max([1.0, *(float(np.abs(v).max(initial=0.0)) for v in values if v is not None)])


# What each check does, for the finding of a check that raised.
_CHECK_DOES = {
    "forward": "runs forward on the example inputs",
    "in-place": "runs forward without grad and compares the inputs before and after",
    "ctx-attributes": "looks for tensors kept as ctx attributes",
    "backward-returns": "calls backward once with random grad_outputs",
    "determinism": "calls backward twice with the same grad_outputs",
    "linearity": "calls backward with random grad_outputs g, 2g, h and g + h",
    "gradient": "compares backward with finite differences, one one-hot grad_output at a time",
    "strided": "runs forward and backward on transposed or sliced views of the inputs",
    "needs-input-grad": "runs backward with one input at a time not requiring grad",
    "backward-differentiable": "runs backward with create_graph=True (grad_outputs that require grad)",
    "double-backward": "differentiates backward again (gradgradcheck)",
    "jvp": "runs forward mode (dual tensors) through apply",
}
_HERE = os.path.dirname(os.path.abspath(__file__))


def _where(exc: BaseException) -> str:
    """Where ``exc`` was raised: the last frame outside ctxgrad (the user's code), else the last."""
    frames = traceback.extract_tb(exc.__traceback__)
    outside = [f for f in frames if not os.path.abspath(f.filename).startswith(_HERE + os.sep)]
    if not (outside or frames):
        return "an unknown place"
    frame = (outside or frames)[-1]
    return f"{frame.name} ({frame.filename}, line {frame.lineno})"


def _leaves_graph(exc: BaseException) -> bool:
    """True for the error ``.numpy()`` raises on a tensor that requires grad."""
    return isinstance(exc, RuntimeError) and "numpy()" in str(exc)


def _arg_name(names: list[str], i: int) -> str:
    return f"'{names[i]}' (index {i})"


def _listed(shape: object) -> object:
    """A shape as messages print it: ``[2, 3]``."""
    return list(shape) if isinstance(shape, tuple) else shape


def _fmt(value: float) -> str:
    return f"{value:.4g}"


# --------------------------------------------------------------------------- the checks
class _Run:
    """The state of one check_function call: the class, its inputs and the report."""

    def __init__(self, cls: type[Function], inputs: CheckedInputs, dtype: np.dtype[Any], seed: int) -> None:
        self.cls = cls
        self.name = cls.__name__
        self.inputs = inputs
        self.dtype = dtype
        self.seed = seed
        self.report = CheckReport(cls.__name__)
        self.names = [
            n if n else f"args[{i}]"
            for i, n in enumerate((list(cls._plan.slot_names) + [""] * len(inputs.args))[: len(inputs.args)])
        ]
        self.eps, self.atol, self.rtol = _TOLERANCES.get(np.finfo(dtype).dtype.name, _TOLERANCES["float64"])
        self.analytical: list[np.ndarray[Any, Any]] = []
        self.numerical: list[np.ndarray[Any, Any]] = []
        self.surrogate = _surrogate_reason(cls)
        self.current = "inputs"  # the check now running, named if it raises
        self.guessed = ""  # what was guessed for inputs, when the Function gives none
        self.inputs_from = ""  # where the inputs came from, when given

    def apply(self, *args: Any) -> Any:
        """``cls.apply`` on clones of the tensor arguments: a forward that changes its input
        (and says so with mark_dirty) changes the clone, so the leaves stay as they were."""
        return self.cls.apply(*[a.clone() if isinstance(a, Tensor) else a for a in args])

    def find(self, name: str, severity: Severity, message: str, fix: str) -> None:
        self.report.findings.append(Finding(name, severity, message, fix))

    # -- forward ------------------------------------------------------------------------
    def forward(self) -> tuple[Any, Any]:
        leaves = self.inputs.fresh()
        args = tuple(a.clone() if isinstance(a, Tensor) else a for a in leaves)
        try:
            result = self.cls.apply(*args)
        except Exception as exc:
            self.report._add("forward", "fail", f"{self.name}.apply raised {type(exc).__name__}")
            self.find(
                "forward-raises",
                "error",
                f"{self.name}.apply(*example inputs) raised {type(exc).__name__}: {exc}"
                + (f" (the inputs were guessed from forward's signature: {self.guessed})" if self.guessed else ""),
                "make forward run on the example inputs (or fix the example inputs) before checking the gradients",
            )
            raise _Stop from exc
        outs = _outputs_of(result)
        ctx = _ctx_of(self.cls, result)
        if not outs or ctx is None:
            self.report._add("forward", "fail", "no output requires grad")
            self.find(
                "no-differentiable-output",
                "error",
                f"{self.name}.apply returned no floating-point tensor that requires grad, so there is nothing to "
                "differentiate (do the example inputs include a floating-point tensor?)",
                "return floating-point tensors from forward and give at least one floating-point tensor input",
            )
            raise _Stop
        self.report._add("forward", "pass", f"{len(outs)} differentiable output{'s' * (len(outs) != 1)}")
        return args, result

    def in_place(self) -> bool:
        args = self.inputs.fresh(lambda i: False)
        before = [np.array(a._data, copy=True) if isinstance(a, Tensor) else None for a in args]
        with no_grad():
            result = self.cls.apply(*args)
        outs = as_tuple(result)
        changed = [
            i
            for i, (a, b) in enumerate(zip(args, before))
            if b is not None and not np.array_equal(a._data, b, equal_nan=True) and not any(o is a for o in outs)
        ]
        if not changed:
            self.report._add("in-place", "pass", "forward leaves its inputs unchanged (or marks them dirty)")
            return True
        which = ", ".join(_arg_name(self.names, i) for i in changed)
        self.report._add("in-place", "fail", f"forward changed {which} in place")
        self.find(
            "inplace-without-mark-dirty",
            "error",
            f"{self.name}.forward changes argument {which} in place but does not call ctx.mark_dirty on it: "
            "autograd does not know the input changed, so gradients of anything that used it are silently wrong",
            "call ctx.mark_dirty(x) and return x, or compute into a new tensor (x.clone() first)",
        )
        return False

    def ctx_attributes(self, ctx: Any) -> None:
        stored = [k for k, v in vars(ctx).items() if k not in _CTX_INTERNALS and _holds_tensor(v)]
        if not stored:
            self.report._add("ctx-attributes", "pass", "no tensor kept as a ctx attribute")
            return
        which = ", ".join(f"ctx.{k}" for k in stored)
        self.report._add("ctx-attributes", "fail", f"tensor stored as {which}")
        self.find(
            "tensor-as-ctx-attribute",
            "error",
            f"{self.name}.forward stores a tensor as {which}: it skips the in-place version check (a later "
            "in-place change gives a silently wrong gradient) and an output kept there makes a reference cycle",
            f"use ctx.save_for_backward(...) in forward and ctx.saved_tensors in backward instead of {which}",
        )

    # -- what backward returns ------------------------------------------------------------
    def backward_returns(self, ctx: Any, args: tuple[Any, ...], result: Any) -> bool:
        """What backward returns, judged by the engine's own rules (:func:`gradient_problems`):
        one finding per problem, the dtype ones too (the engine casts those silently)."""
        rng = np.random.default_rng(self.seed)
        try:
            returned = _raw_backward(self.cls, ctx, _seeds(ctx, result, rng))
        except Exception as exc:
            self.report._add("backward-returns", "fail", f"backward raised {type(exc).__name__}")
            if _leaves_graph(exc):
                self._leaves_graph(exc, "in a plain backward call (a saved tensor requires grad)")
                return False
            self.find(
                "backward-raises",
                "error",
                f"{self.name}.backward raised {type(exc).__name__}: {exc}",
                "make backward run: it gets one gradient per output and returns one per forward argument",
            )
            return False
        problems = gradient_problems(self.cls, returned, args)
        for problem in problems:
            self._report_problem(problem)
        if problems:
            n = len(problems)
            self.report._add(
                "backward-returns",
                "fail",
                f"{n} problem{'s' * (n != 1)} with the gradients backward returns",
            )
            return False
        self.report._add("backward-returns", "pass", "one gradient per argument, with its shape and dtype")
        return True

    def _report_problem(self, problem: Problem) -> None:
        """The finding for one problem with what backward returns."""
        kind, i = problem.kind, problem.index
        if kind == "count" or i is None:
            got, count = problem.got, problem.expected
            self.find(
                "wrong-gradient-count",
                "error",
                f"{self.name}.backward returned {got} value{'s' * (got != 1)} but forward takes "
                f"{count} argument{'s' * (count != 1)} ({', '.join(self.names)})",
                f"return exactly {count} values from backward, one per forward argument, None for those without one",
            )
            return
        name = _arg_name(self.names, i)
        if kind == "gradient-for-non-tensor":
            self.find(
                "gradient-for-non-tensor",
                "error",
                f"{self.name}.backward returned a gradient for argument {name}, which is not a tensor "
                f"({type(self.inputs.args[i]).__name__})",
                f"return None in position {i} of backward's result",
            )
        elif kind in ("not-a-tensor", "wrong-kind"):  # (wrong-kind: a text Variable for a tensor, say)
            self.find(
                "gradient-not-a-tensor",
                "error",
                f"{self.name}.backward returned a {problem.got} as the gradient of argument {name}",
                "wrap the gradient in a tensor (ctxgrad.tensor(...)) or, better, compute it with ctxgrad ops",
            )
        elif kind == "shape":
            shape = _listed(problem.expected)
            self.find(
                "wrong-gradient-shape",
                "error",
                f"{self.name}.backward returned a gradient of shape {_listed(problem.got)} for argument "
                f"{name}, which has shape {shape}",
                f"return a gradient of shape {shape} for argument {name} (reduce or reshape it)",
            )
        else:  # "dtype", "complex-for-real"
            self.find(
                "wrong-gradient-dtype",
                "error",
                f"{self.name}.backward returned a {problem.got} gradient for argument {name}, which "
                f"is {problem.expected} (the engine casts it: the values silently lose precision)",
                f"compute the gradient of {name} in its dtype (avoid creating arrays or tensors with a "
                "fixed dtype in backward)",
            )

    # -- the values of the gradients ------------------------------------------------------
    def gradient(self) -> bool:
        if self.inputs.complex:
            return self._complex_gradient()
        args = self.inputs.fresh()
        result = self.apply(*args)
        outs = _outputs_of(result)
        positions = [q for q, _ in outs]
        sizes = [o._data.size for _, o in outs]
        labels, short = _input_labels(self.cls.apply, args)
        checked = _Checked(self.apply, args, self.inputs.checked, labels, short, None)
        tensors = checked.tensors
        self.analytical, self.numerical = [], []
        for i in range(len(tensors)):
            along_real, _ = _numerical_jacobians(checked, i, positions, sizes, self.eps)
            self.numerical.append(np.concatenate([j.real for j in along_real], axis=1))
        columns: list[list[np.ndarray[Any, Any]]] = [[] for _ in tensors]
        for _, o in outs:
            for j in range(o._data.size):
                seed = np.zeros(o._data.size, dtype=o._data.dtype)
                seed[j] = 1
                for i, g in enumerate(_vjp(o, tensors, seed)):
                    columns[i].append(np.zeros(tensors[i]._data.size) if g is None else g.reshape(-1).real)
        self.analytical = [np.stack(c, axis=1) for c in columns]
        ignored, keep = self._ignored_outputs(sizes)
        wrong = [
            i
            for i in range(len(tensors))
            if not np.allclose(self.analytical[i][:, keep], self.numerical[i][:, keep], rtol=self.rtol, atol=self.atol)
        ]
        if not (wrong or ignored):
            self.report._add("gradient", "pass", "backward agrees with finite differences")
            return True
        names = ", ".join(self.names[self.inputs.checked[i]] for i in wrong)
        if self.surrogate is not None:
            self.report._add(
                "gradient",
                "declared",
                f"backward differs from finite differences for {names or 'every input'}, as declared: {self.surrogate}",
            )
            return True
        for k in ignored:
            q = positions[k]
            self.find(
                "output-gradient-ignored",
                "error",
                f"{self.name}.backward ignores the gradient of output {q}: the gradients it returns do not change "
                f"with grad_output {q} (they are zero along it), but output {q} depends on the inputs (the finite "
                "differences are not zero)",
                f"use backward's argument {q} (the gradient of output {q}): add its contribution to each input's "
                "gradient",
            )
        for i in wrong:
            position = self.inputs.checked[i]
            columns_kept = (self.analytical[i][:, keep], self.numerical[i][:, keep])
            self._diagnose_gradient(i, position, len(wrong), len(tensors), args[position]._data.shape, columns_kept)
        said = [f"ignores the gradient of output {positions[k]}" for k in ignored]
        said += [f"disagrees with finite differences for {names}"] if wrong else []
        self.report._add("gradient", "fail", f"backward {' and '.join(said)}")
        return False

    def _ignored_outputs(self, sizes: list[int]) -> tuple[list[int], np.ndarray[Any, Any]]:
        """The outputs (by number among those that require grad) whose grad_output backward
        ignores, and the Jacobian columns of the others."""
        bounds = np.cumsum([0, *sizes])
        ignored = []
        if len(sizes) > 1:
            for k in range(len(sizes)):
                block = slice(int(bounds[k]), int(bounds[k + 1]))
                if not any(np.any(a[:, block]) for a in self.analytical) and any(
                    np.abs(n[:, block]).max(initial=0.0) > self.atol for n in self.numerical
                ):
                    ignored.append(k)
            if len(ignored) == len(sizes):
                ignored = []  # nothing at all comes back: gradient-missing says so per input
        keep = np.concatenate(
            [np.arange(bounds[k], bounds[k + 1]) for k in range(len(sizes)) if k not in ignored] or [np.arange(0)]
        ).astype(int)
        return ignored, keep

    def _complex_gradient(self) -> bool:
        """Complex inputs: gradcheck, which knows torch's convention (``ds/dx + i ds/dy``) and
        recognises a missing conjugate."""
        try:
            gradcheck(
                self.apply,
                self.inputs.fresh(),
                eps=self.eps,
                atol=self.atol,
                rtol=self.rtol,
                check_undefined_grad=False,
            )
        except GradcheckError as exc:
            text = str(exc)
            if self.surrogate is not None:
                self.report._add(
                    "gradient", "declared", f"backward differs from gradcheck, as declared: {self.surrogate}"
                )
                return True
            found = re.search(r"with respect to input (\d+)", text)
            which = _arg_name(self.names, int(found.group(1))) if found else "an input"
            first = text.splitlines()[0].rstrip(",") if text else type(exc).__name__
            hint = next(
                (line.strip()[5:].strip() for line in text.splitlines() if line.strip().startswith("hint:")), ""
            )
            self.report._add("gradient", "fail", f"backward disagrees with finite differences for {which} (complex)")
            if "conj(numerical)" in hint:
                self.find(
                    "gradient-conjugate-missing",
                    "error",
                    f"the gradient of {which} is the conjugate of the right one ({hint}); gradcheck: {first}",
                    "conjugate the derivative in backward: grad_input = grad_output * conj(f'(z)) for a holomorphic "
                    "f, as torch does (docs/complex.md)",
                )
            else:
                self.find(
                    "gradient-wrong",
                    "error",
                    f"the gradient of {which} disagrees with finite differences (complex; gradcheck: {first}"
                    f"{'; hint: ' + hint if hint else ''})",
                    "re-derive the gradient with torch's convention for complex inputs (grad = dL/dx + i dL/dy; "
                    "docs/complex.md); ctxgrad.autograd.gradcheck prints the full Jacobians",
                )
            return False
        self.report._add("gradient", "pass", "backward agrees with finite differences (complex, by gradcheck)")
        return True

    def _diagnose_gradient(
        self,
        i: int,
        position: int,
        n_wrong: int,
        n_inputs: int,
        shape: tuple[int, ...],
        columns: tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]],
    ) -> None:
        a, n = columns
        name = _arg_name(self.names, position)
        only = " (the only input whose gradient is wrong)" if n_wrong == 1 and n_inputs > 1 else ""
        where = f"the gradient of argument {name}{only}"
        error = float(np.abs(a - n).max())
        factor = float(np.vdot(n, a) / np.vdot(n, n)) if np.any(n) else 0.0
        if not np.any(a):
            self.find(
                "gradient-missing",
                "error",
                f"{where} is zero (or None) but the finite differences are not",
                f"return the gradient of {name} from backward instead of None or zeros",
            )
            return
        if (
            np.any(n)
            and abs(factor - 1) > 1e-3
            and np.allclose(a, factor * n, rtol=self.rtol, atol=self.atol * max(1.0, abs(factor)))
        ):
            if abs(factor + 1) < 1e-3:
                self.find(
                    "gradient-wrong-sign",
                    "error",
                    f"{where} has the wrong sign: backward = -1 x the finite differences",
                    f"negate the gradient of {name} in backward (check the sign of the derivative)",
                )
            else:
                self.find(
                    "gradient-constant-factor",
                    "error",
                    f"{where} is off by a constant factor: backward = {_fmt(factor)} x the finite differences",
                    f"multiply the gradient of {name} by "
                    f"{_fmt(1 / factor) if factor else 'the missing factor'} (a missing or extra constant "
                    "in backward)",
                )
            return
        if self._transposed(a, n, shape):
            self.find(
                "gradient-transposed",
                "error",
                f"{where} is transposed: backward returns the transpose of "
                "the right gradient (or applies J instead of J^T)",
                f"transpose the gradient of {name} (use W.T where backward uses W, or swap the operands of a matmul)",
            )
            return
        self.find(
            "gradient-wrong",
            "error",
            f"{where} disagrees with finite differences (largest absolute error {_fmt(error)})",
            f"re-derive the gradient of {name}; compare with ctxgrad.autograd.gradcheck for the full Jacobians",
        )

    def _transposed(self, a: np.ndarray[Any, Any], n: np.ndarray[Any, Any], shape: tuple[int, ...]) -> bool:
        close = self._close
        if a.shape[0] == a.shape[1] and close(a, n.T):
            return True
        if len(shape) == 2 and shape[0] == shape[1]:
            k = shape[0]
            swapped = n.reshape(k, k, -1).transpose(1, 0, 2).reshape(n.shape)
            return close(a, swapped)
        return False

    def _close(self, a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> bool:
        return bool(np.allclose(a, b, rtol=self.rtol, atol=self.atol))

    def determinism(self) -> bool:
        args = self.inputs.fresh()
        result = self.apply(*args)
        ctx = _ctx_of(self.cls, result)
        seeds = _seeds(ctx, result, np.random.default_rng(self.seed))
        first = _raw_backward(self.cls, ctx, seeds)
        second = _raw_backward(self.cls, ctx, seeds)
        differs = [
            i
            for i, (g, h) in enumerate(zip(first, second))
            if isinstance(g, Tensor) and isinstance(h, Tensor) and not np.array_equal(g._data, h._data)
        ]
        if not differs:
            self.report._add("determinism", "pass", "two identical backward calls agree exactly")
            return True
        which = ", ".join(_arg_name(self.names, i) for i in differs)
        diff = max(float(np.abs(first[i]._data - second[i]._data).max()) for i in differs)
        self.report._add("determinism", "fail", f"two identical backward calls differ for {which}")
        self.find(
            "nondeterministic-backward",
            "error",
            f"two backward calls with the same inputs and grad_output give different gradients for {which} "
            f"(by up to {_fmt(diff)})",
            "remove the randomness from backward (or draw it in forward with a fixed seed and save it)",
        )
        return False

    def needs_input_grad(self) -> None:
        if len(self.inputs.checked) < 2:
            self.report._add("needs-input-grad", "skip", "needs two or more tensor inputs")
            return
        ignored: list[int] = []
        for p in self.inputs.checked:
            args = self.inputs.fresh(lambda i, p=p: i != p)  # type: ignore[misc]
            result = self.apply(*args)
            ctx = _ctx_of(self.cls, result)
            if ctx is None:
                continue
            try:
                returned = _raw_backward(self.cls, ctx, _seeds(ctx, result, np.random.default_rng(self.seed)))
            except Exception:
                continue  # a backward that relies on every input requiring grad: reported elsewhere if wrong
            if p < len(returned) and returned[p] is not None:
                ignored.append(p)
        if not ignored:
            self.report._add("needs-input-grad", "pass", "no gradient computed for inputs that do not need one")
            return
        which = ", ".join(_arg_name(self.names, i) for i in ignored)
        self.report._add("needs-input-grad", "pass", f"hint: gradients computed for {which} when not needed")
        self.find(
            "needs-input-grad-ignored",
            "hint",
            f"{self.name}.backward computes a gradient for {which} even when it does not require grad (the engine "
            "drops it: wasted work)",
            "guard each gradient with `if ctx.needs_input_grad[i]:` and return None otherwise",
        )

    def _leaves_graph(self, exc: BaseException, when: str) -> None:
        self.find(
            "backward-leaves-graph",
            "error",
            f"backward leaves the graph (numpy()): {self.name}.backward calls .numpy() on a tensor that requires "
            f"grad, which raises {when}: {type(exc).__name__}: {exc} (in {_where(exc)}); a backward written "
            "in NumPy has no graph, so double backward and forward mode cannot differentiate it",
            "write backward with ctxgrad ops (grad * 3 * x * x, not grad.numpy() ...); if it must be NumPy, use "
            ".detach().numpy() and decorate backward with @once_differentiable",
        )

    # -- linear in grad_output --------------------------------------------------------------
    def linearity(self) -> bool:
        """backward(2g) == 2 backward(g) and backward(g + h) == backward(g) + backward(h) for random
        g and h.  The gradient check seeds one-hot grad_outputs (each entry 0 or 1), which cannot
        see a backward that squares, normalises or takes the absolute value of its grad_output."""
        args = self.inputs.fresh()
        result = self.apply(*args)
        ctx = _ctx_of(self.cls, result)
        rng = np.random.default_rng(self.seed + 1)
        g, h = _seeds(ctx, result, rng, normal=True), _seeds(ctx, result, rng, normal=True)

        def backward(seeds: list[Tensor | None]) -> list[np.ndarray[Any, Any] | None]:
            return _arrays(_raw_backward(self.cls, ctx, seeds))

        once, other = backward(g), backward(h)
        cases = [
            (
                "backward(2g) != 2 backward(g)",
                backward(_combined(g, None, 2.0)),
                [None if v is None else 2 * v for v in once],
            ),
            (
                "backward(g + h) != backward(g) + backward(h)",
                backward(_combined(g, h)),
                [a if b is None else b if a is None else a + b for a, b in zip(once, other)],
            ),
        ]
        for words, got, want in cases:
            tolerance = self.atol + self.rtol * _scale_of(want)
            gaps = [_gap(a, b) for a, b in zip(got, want)]
            wrong = [i for i, gap in enumerate(gaps) if gap > tolerance]
            if wrong:
                which = ", ".join(_arg_name(self.names, i) for i in wrong)
                self.report._add("linearity", "fail", f"{words} for {which}")
                self.find(
                    "backward-not-linear",
                    "error",
                    f"backward is not linear in grad_output: {words} for the gradient of {which}, with random g and "
                    f"h (largest difference {_fmt(max(gaps))}). The gradient check seeds one-hot grad_outputs (each "
                    f"entry 0 or 1) and cannot see this, but any other grad_output, such as that of "
                    f"(3 * {self.name}.apply(x)).sum(), gets a wrong gradient",
                    "multiply grad_output by the derivative and do nothing else with it (no abs, power, norm or "
                    "division by it); clip or normalise gradients in the optimiser, not in backward",
                )
                return False
        self.report._add("linearity", "pass", "backward is linear in grad_output (random g, h: 2g and g + h)")
        return True

    # -- strided inputs -----------------------------------------------------------------------
    def _strided_run(self, positions: list[int]) -> tuple[list[np.ndarray[Any, Any]], list[Any]]:
        """Outputs and gradients (random grad_outputs) with the inputs at ``positions`` given as
        strided views, the others as contiguous clones, as in every other check."""
        from ctxgrad.autograd import grad

        leaves = list(self.inputs.fresh())
        args = [a.clone() if isinstance(a, Tensor) and a._requires_grad else a for a in leaves]
        made: dict[int, Strided] = {}
        for p in positions:
            made[p] = self._strided_input(p)
            leaves[p], args[p] = made[p].leaf, made[p].arg
        result = self.cls.apply(*args)
        values = [np.array(o._data) for o in as_tuple(result) if isinstance(o, Tensor)]
        outs = [o for _, o in _outputs_of(result)]
        rng = np.random.default_rng(self.seed + 2)
        seeds = [_wrap(rng.standard_normal(o._data.shape).astype(o._data.dtype)) for o in outs]
        grads = grad(outs, [leaves[p] for p in self.inputs.checked], seeds, allow_unused=True)
        return values, [
            None if g is None else made[p].grad_of(g._data) if p in made else g._data
            for p, g in zip(self.inputs.checked, grads)
        ]

    def _strided_input(self, p: int) -> Strided:
        made = strided_leaf(self.inputs.arrays[p], self.inputs.given.get(p))  # type: ignore[arg-type]
        assert made is not None
        return made

    def strided(self) -> None:
        """The same values as a transposed (or sliced) view, or laid out as given when an input
        came non-contiguous, not C-contiguous: the outputs and gradients must not change."""
        movable = [p for p in self.inputs.checked if self.inputs.arrays[p].size >= 2]  # type: ignore[union-attr]
        if not movable:
            self.report._add("strided", "skip", "no tensor input has two or more elements")
            return
        values, grads = self._strided_run([])

        def differs(positions: list[int]) -> tuple[list[int], list[int], float]:
            got_values, got_grads = self._strided_run(positions)
            scale = self.atol + self.rtol * _scale_of([*values, *grads])
            out_gaps = [_gap(a, b) for a, b in zip(got_values, values)]
            grad_gaps = [_gap(a, b) for a, b in zip(got_grads, grads)]
            bad_out = [q for q, gap in enumerate(out_gaps) if gap > scale]
            bad_grad = [self.inputs.checked[i] for i, gap in enumerate(grad_gaps) if gap > scale]
            return bad_out, bad_grad, max([0.0, *out_gaps, *grad_gaps])

        bad_out, bad_grad, gap = differs(movable)
        if not (bad_out or bad_grad):
            self.report._add("strided", "pass", "the same outputs and gradients for transposed or sliced inputs")
            return
        culprits = [p for p in movable if any(differs([p])[:2])] if len(movable) > 1 else movable
        how = {p: self._strided_input(p).how for p in culprits}
        given = ", ".join(f"{_arg_name(self.names, p)} is {how[p]}" for p in culprits) or "the inputs are strided views"
        if bad_out:
            what = f"{self.name}.forward gives a different output {', '.join(map(str, bad_out))}"
        else:
            wrong_grads = ", ".join(_arg_name(self.names, p) for p in bad_grad)
            what = f"{self.name}.backward gives a different gradient for {wrong_grads}"
        self.report._add("strided", "fail", f"{'forward' if bad_out else 'backward'} differs when {given}")
        self.find(
            "wrong-for-strided-input",
            "error",
            f"{what} when {given} with the same values, not C-contiguous (largest difference {_fmt(gap)}): it reads "
            "the array's memory order, not its values, so it is right only for C-contiguous input",
            "index arrays by shape, not by memory (no ravel(order='K'), tobytes(), .data or as_strided on an "
            "input), or make the input contiguous first (x.contiguous(), np.ascontiguousarray)",
        )

    # -- higher order ---------------------------------------------------------------------
    def differentiable_backward(self) -> bool:
        from ctxgrad.autograd import grad

        if getattr(self.cls._backward_impl, "_once_differentiable", False):
            self.report._add("backward-differentiable", "skip", "backward is marked once_differentiable")
            return False
        args = self.inputs.fresh()
        outs = _outputs_of(self.apply(*args))
        rng = np.random.default_rng(self.seed)
        seeds = [_wrap(rng.uniform(0.5, 1.5, o._data.shape).astype(o._data.dtype)).requires_grad_() for _, o in outs]
        tensors = [args[p] for p in self.inputs.checked]
        try:
            grads = grad([o for _, o in outs], tensors, seeds, create_graph=True, allow_unused=True)
        except RuntimeError as exc:
            if not _leaves_graph(exc):
                raise
            self.report._add("backward-differentiable", "fail", "backward calls numpy() on a tensor that requires grad")
            self._leaves_graph(
                exc,
                "when backward runs with create_graph=True (double backward, forward mode): then grad_output and the "
                "saved tensors require grad",
            )
            return False
        # A zero gradient without a graph is consistent (its derivative is zero too); a
        # nonzero one without a graph was computed outside ctxgrad ops.
        detached = [
            p for p, g in zip(self.inputs.checked, grads) if g is not None and not g._requires_grad and np.any(g._data)
        ]
        if not detached:
            self.report._add("backward-differentiable", "pass", "the gradients can be differentiated again")
            return True
        which = ", ".join(_arg_name(self.names, i) for i in detached)
        self.report._add("backward-differentiable", "fail", f"the gradient of {which} has no graph")
        self.find(
            "backward-not-differentiable",
            "error",
            f"{self.name}.backward computes the gradient of {which} outside ctxgrad ops (raw NumPy?), so it has no "
            "graph: a double backward silently gives zero (or raises) instead of the second derivative",
            "write backward with ctxgrad ops, or decorate it with @once_differentiable so double backward raises",
        )
        return False

    def second_derivative(self, ctx: Any, args: tuple[Any, ...], result: Any, double: bool) -> None:
        intermediates = self._saved_intermediates(ctx, args, result)
        if not (double or intermediates):
            self.report._add("double-backward", "skip", "pass double=True (--double) to check it")
            return
        fresh = self.inputs.fresh()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                gradgradcheck(self.apply, fresh, eps=self.eps, atol=self.atol, rtol=self.rtol)
        except GradcheckError as exc:
            first = "gradgradcheck: " + (str(exc).splitlines() or [type(exc).__name__])[0].rstrip(",")
            self.report._add("double-backward", "fail", "second derivatives disagree with finite differences")
            if intermediates:
                which = ", ".join(f"saved_tensors[{k}]" for k in intermediates)
                self.find(
                    "saved-intermediate",
                    "error",
                    f"{self.name} saves an intermediate ({which}: neither an input nor an output) computed in "
                    "forward without a graph, so double backward treats it as a constant and is silently wrong "
                    f"({first})",
                    "save the inputs (or outputs) and recompute the intermediate in backward with ctxgrad ops",
                )
            else:
                self.find(
                    "wrong-second-derivative",
                    "error",
                    f"the double backward of {self.name} disagrees with finite differences ({first})",
                    "check that backward uses only differentiable ctxgrad ops on saved inputs or outputs",
                )
            return
        self.report._add("double-backward", "pass", "second derivatives agree with finite differences")

    def _saved_intermediates(self, ctx: Any, args: tuple[Any, ...], result: Any) -> list[int]:
        saved = ctx._saved or ()
        ours = [*args, *as_tuple(result)]
        found = []
        for k, s in enumerate(saved):
            t = getattr(s, "_tensor", None) if s is not None else None
            if t is not None and not any(t is a for a in ours) and t._data.dtype.kind in "fc":
                found.append(k)
        return found

    # -- forward mode -----------------------------------------------------------------------
    def jvp(self, forward: bool) -> None:
        """The jvp forward mode uses: the Function's own, or (``forward=True``, no jvp) the one
        forward mode derives from a differentiable backward (``autograd/_dual.py``)."""
        derived = not self.cls._has_jvp
        if derived and not forward:
            self.report._add("jvp", "skip", f"{self.name} has no jvp")
            return
        if self.inputs.complex:
            self.report._add("jvp", "skip", "not checked for complex inputs: use gradcheck(..., check_forward_ad=True)")
            return
        args = self.inputs.fresh()
        result = self.apply(*args)
        positions = [q for q, _ in _outputs_of(result)]
        labels, short = _input_labels(self.cls.apply, args)
        checked = _Checked(self.apply, args, self.inputs.checked, labels, short, None)
        try:
            # Forward mode as the library runs it: a dual level, duals of the inputs, apply.
            forward_jacs = [
                np.concatenate([j.real for j in _forward_jacobian(checked, i, positions)], axis=1)
                for i in range(len(checked.tensors))
            ]
        except Exception as exc:
            if derived and isinstance(exc, NoJvpError):
                self._no_derived_jvp()
                return
            self.report._add("jvp", "fail", f"{'derived ' * derived}jvp raised {type(exc).__name__}")
            if derived:
                self.find(
                    "jvp-raises",
                    "error",
                    f"{self.name} defines no jvp, and forward mode raised {type(exc).__name__} while deriving the "
                    f"tangents from {self.name}.backward: {exc}",
                    "make backward run on tensors that require grad, or define `jvp(ctx, *tangents)`",
                )
            else:
                self.find(
                    "jvp-raises",
                    "error",
                    f"{self.name}.jvp raised {type(exc).__name__}: {exc}",
                    "make jvp return one tangent per output, computed from ctx and the input tangents",
                )
            return
        if derived:
            self._derived_jvp(forward_jacs)
            return
        close = self._close
        wrong = [i for i, f in enumerate(forward_jacs) if not close(f, self.analytical[i])]
        if not wrong:
            self.report._add("jvp", "pass", "jvp agrees with backward")
            return
        names = [_arg_name(self.names, self.inputs.checked[i]) for i in wrong]
        right = all(close(self.analytical[i], self.numerical[i]) for i in wrong)
        verdict = (
            "finite differences agree with backward, so the jvp is wrong"
            if right
            else (
                "finite differences agree with the jvp, so the backward is wrong"
                if all(close(forward_jacs[i], self.numerical[i]) for i in wrong)
                else "neither matches finite differences"
            )
        )
        self.report._add("jvp", "fail", f"jvp disagrees with backward for {', '.join(names)}")
        self.find(
            "jvp-disagrees-with-backward",
            "error",
            f"{self.name}.jvp and {self.name}.backward give different derivatives for {', '.join(names)}; {verdict}",
            "make jvp compute J @ tangent with the same derivative backward uses (grad @ J)",
        )

    def _no_derived_jvp(self) -> None:
        """forward=True, no jvp, and forward mode raised NoJvpError: it cannot derive one."""
        why = (
            "is marked @once_differentiable"
            if getattr(self.cls._backward_impl, "_once_differentiable", False)
            else "computes its gradients outside ctxgrad ops (raw NumPy?)"
        )
        self.report._add("jvp", "fail", f"{self.name} has no jvp, and forward mode cannot derive one")
        self.find(
            "missing-jvp",
            "error",
            f"forward mode (forward=True) was asked for, but {self.name} defines no jvp and its backward {why}, "
            f"so forward mode cannot derive the tangents from it: {self.name}.apply under forward mode raises "
            "NoJvpError",
            f"define `jvp(ctx, *tangents)` on {self.name}, returning one tangent per output",
        )

    def _derived_jvp(self, forward_jacs: list[np.ndarray[Any, Any]]) -> None:
        """The tangents forward mode derived from backward, against finite differences."""
        close = self._close
        wrong = [i for i, f in enumerate(forward_jacs) if not close(f, self.numerical[i])]
        if not wrong:
            self.report._add(
                "jvp", "pass", f"jvp derived from backward ({self.name} defines none) agrees with finite differences"
            )
            return
        names = ", ".join(_arg_name(self.names, self.inputs.checked[i]) for i in wrong)
        if self.surrogate is not None and all(close(forward_jacs[i], self.analytical[i]) for i in wrong):
            self.report._add(
                "jvp",
                "declared",
                f"jvp derived from the declared surrogate backward differs from finite differences "
                f"for {names}, as declared: {self.surrogate}",
            )
            return
        self.report._add("jvp", "fail", f"jvp derived from backward disagrees with finite differences for {names}")
        if not all(close(self.analytical[i], self.numerical[i]) for i in wrong):
            self.find(
                "derived-jvp-wrong",
                "error",
                f"{self.name} defines no jvp, so forward mode derives its tangents from {self.name}.backward, and "
                f"they disagree with finite differences for {names}: backward's gradient is wrong there too (see "
                "the gradient check), and the derived tangents inherit its mistake",
                f"fix {self.name}.backward (the gradient finding says how); the derived tangents follow it",
            )
        else:
            self.find(
                "derived-jvp-wrong",
                "error",
                f"{self.name} defines no jvp, so forward mode derives its tangents from {self.name}.backward, and "
                f"they disagree with finite differences for {names}, although backward's gradient agrees and backward "
                "is linear in grad_output: backward computes something different when its inputs carry tangents "
                "(forward mode runs it on dual tensors)",
                f"make {self.name}.backward use only ctxgrad ops on its arguments and saved tensors (no NumPy, no "
                "branches on their values), or define `jvp(ctx, *tangents)` returning J @ tangent for each output",
            )


# --------------------------------------------------------------------------- public entry point
def check_function(
    fn_cls: type[Function],
    inputs: Sequence[Any] | None = None,
    *,
    double: bool = False,
    forward: bool = False,
    dtype: str = "float64",
    seed: int = 0,
    guess_inputs: bool = False,
    inputs_from: str = "",
) -> CheckReport:
    """Run every diagnosis on the Function class ``fn_cls`` and return the report.

    Args:
        fn_cls: a subclass of :class:`~ctxgrad.autograd.Function`.
        inputs: the arguments of ``fn_cls.apply``; by default those of its
            ``example_inputs()`` staticmethod or of the :func:`example` decorator.
        double: also check second derivatives (double backward) against finite
            differences; they are checked anyway when forward saves an intermediate.
        forward: check forward mode: the ``jvp`` that forward mode uses, which for a
            Function without one is derived from its ``backward`` (the ``jvp`` check
            says so). Only where forward mode itself fails (a ``once_differentiable`` or
            NumPy ``backward``) is a missing ``jvp`` an error. A ``jvp`` that exists is
            always checked.
        dtype: the dtype the floating-point inputs are cast to. float64 is what finite
            differences need; float32 uses coarser steps and tolerances; complex128 or
            complex64 make the inputs complex and check the gradients with torch's
            convention (a missing conjugate is the finding ``gradient-conjugate-missing``).
        seed: the seed of the random ``grad_output`` values.
        guess_inputs: when the Function gives no example inputs, guess them from its
            ``forward``'s signature (a random 3 x 3 tensor per parameter without a default)
            instead of reporting ``no-example-inputs``; the report says what was guessed.
        inputs_from: where ``inputs`` came from, said in the report's ``inputs`` line
            (the command line passes ``'--inputs "3x3,float64"'``).

    Returns:
        A :class:`CheckReport`; ``report.ok`` is True when nothing is wrong.  It does not
        raise for a broken Function: a forward that raises is the finding
        ``forward-raises``, missing example inputs the finding ``no-example-inputs``.
    """
    if not (isinstance(fn_cls, type) and issubclass(fn_cls, Function)):
        raise TypeError(f"check_function expects a Function subclass, but got {fn_cls!r}")
    np_dtype = np.dtype(dtype)
    if np_dtype.kind not in "fc":
        raise ValueError(f"check_function: dtype must be a floating-point or complex dtype, got {dtype!r}")
    report = CheckReport(fn_cls.__name__)
    guessed = ""
    try:
        args = _example_arguments(fn_cls, inputs)
    except Exception as exc:
        if guess_inputs and isinstance(exc, _Stop):
            args, guessed = guess_arguments(fn_cls, np_dtype, seed)
        else:
            why = (
                str(exc)
                if isinstance(exc, _Stop)
                else (f"the example inputs of {fn_cls.__name__} could not be made: {type(exc).__name__}: {exc}")
            )
            report._add("inputs", "fail", "no example inputs")
            report.findings.append(
                Finding(
                    "no-example-inputs",
                    "error",
                    why,
                    f"add `@ctxgrad.checks.example(...)` or an `example_inputs()` staticmethod to {fn_cls.__name__}",
                )
            )
            return report
    try:
        _surrogate_reason(fn_cls)
    except TypeError as exc:
        report._add("surrogate", "fail", "surrogate_gradient is not a reason")
        report.findings.append(
            Finding(
                "invalid-surrogate",
                "error",
                str(exc),
                f'declare the surrogate with its reason: surrogate_gradient = "why" on {fn_cls.__name__}, or '
                '@ctxgrad.checks.surrogate("why")',
            )
        )
        return report
    run = _Run(fn_cls, CheckedInputs(args, np_dtype), np_dtype, seed)
    run.report = report
    run.guessed = guessed
    run.inputs_from = inputs_from if inputs is not None else ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            _run_checks(run, double, forward)
        except _Stop:
            pass
        except Exception as exc:
            # A Function broken in a way no check foresaw: a finding that says which check
            # raised, what it was doing and where, never a bare traceback.
            check, where = run.current, _where(exc)
            does = _CHECK_DOES.get(check, "runs the Function")
            report._add(check, "fail", f"{type(exc).__name__} while checking")
            report.findings.append(
                Finding(
                    "check-raised",
                    "error",
                    f"the {check} check (it {does}) raised {type(exc).__name__}: {exc}, in {where}",
                    f"fix {where}: it fails when the checker {does}",
                )
            )
    return report


def _run_checks(run: _Run, double: bool, forward: bool) -> None:
    report = run.report
    if not run.inputs.checked:
        report._add("inputs", "fail", "no floating-point tensor among the inputs")
        run.find(
            "no-differentiable-input",
            "error",
            f"none of the example inputs of {run.name} is a floating-point tensor, so no gradient can be checked",
            "give at least one floating-point tensor in the example inputs",
        )
        return
    n = len(run.inputs.checked)
    guessed = f"; no example inputs, so guessed from forward's signature: {run.guessed}" if run.guessed else ""
    guessed += f"; inputs from {run.inputs_from}" if run.inputs_from else ""
    dtypes = sorted({run.inputs.arrays[p].dtype.name for p in run.inputs.checked}, reverse=True)  # type: ignore[union-attr]
    as_ = " and ".join(dtypes)
    report._add("inputs", "pass", f"{n} tensor input{'s' * (n != 1)} checked, as {as_}{guessed}")
    if run.guessed:
        run.find(
            "inputs-guessed",
            "hint",
            f"{run.name} gives no example inputs, so the checks ran on inputs guessed from forward's signature "
            f"({run.guessed}); a Function that needs other shapes or values is not checked as it is used",
            f"add an `example_inputs()` staticmethod or `@ctxgrad.checks.example(...)` to {run.name}, or pass "
            '--inputs "shape,dtype;..."',
        )
    run.current = "forward"
    args, result = run.forward()
    ctx = _ctx_of(run.cls, result)
    later = [
        "ctx-attributes",
        "backward-returns",
        "determinism",
        "linearity",
        "gradient",
        "strided",
        "needs-input-grad",
        "backward-differentiable",
        "double-backward",
        "jvp",
    ]
    run.current = "in-place"
    if not run.in_place():
        for name in later:
            report._add(name, "skip", "forward changes its input in place; fix that first")
        return
    run.current = "ctx-attributes"
    run.ctx_attributes(ctx)
    run.current = "backward-returns"
    if not run.backward_returns(ctx, args, result):
        for name in later[2:]:
            report._add(name, "skip", "backward's result has the wrong structure; fix that first")
        return
    run.current = "determinism"
    if not run.determinism():
        report._add("linearity", "skip", "backward is not deterministic; fix that first")
    else:
        run.current = "linearity"
        if not run.linearity():
            for name in (
                "gradient",
                "strided",
                "needs-input-grad",
                "backward-differentiable",
                "double-backward",
                "jvp",
            ):
                report._add(name, "skip", "backward is not linear in grad_output; fix that first")
            return
    run.current = "gradient"
    gradient_ok = run.gradient()
    run.current = "strided"
    run.strided()
    run.current = "needs-input-grad"
    run.needs_input_grad()
    run.current = "backward-differentiable"
    if run.differentiable_backward():
        run.current = "double-backward"
        if gradient_ok:
            run.second_derivative(ctx, args, result, double)
        else:
            report._add("double-backward", "skip", "the first derivative is wrong; fix that first")
    elif double and getattr(run.cls._backward_impl, "_once_differentiable", False):
        report._add("double-backward", "fail", "backward is marked once_differentiable")
        run.find(
            "once-differentiable",
            "error",
            f"double=True was asked for, but {run.name}.backward is marked "
            "@once_differentiable, so it has no second derivative",
            "write backward in differentiable ctxgrad ops and remove @once_differentiable",
        )
    else:
        report._add("double-backward", "skip", "backward cannot be differentiated")
    run.current = "jvp"
    run.jvp(forward)
