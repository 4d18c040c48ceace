"""Gradient validation: what a ``backward`` (or ``jvp``) returns, checked and fitted.

The rules are stated once, in :func:`gradient_problems`: it returns every
:class:`Problem` with what a ``backward`` returned (the count, the type, the shape, the
dtype), each a record with a stable ``kind``, the argument's index and name, what was
expected and what came, and the message the engine raises for it.  Everything that judges
a gradient reads them:

* the engine, through :func:`check_grads` (called by ``BackwardCFunction._run``): it raises
  the first fatal problem (the exception carries it as ``problem``) and fits the rest, as
  torch does: a gradient of a shape that broadcasts to its input's is summed down to it,
  one of another dtype is cast to the input's;
* ``ctxgrad check`` (:mod:`ctxgrad.checks`), which turns each problem into a finding;
* ``gradcheck(check_grad_dtypes=True)``, which fails on the gradients the engine would cast.

:func:`tangent_problems` and :func:`check_tangents` do the same for the tangents ``jvp``
returns (forward mode).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ctxgrad._tensor import Tensor, _wrap, summed_to_shape
from ctxgrad.autograd._edges import Edge, edge_at, edges_of
from ctxgrad.autograd.errors import GradientTypeError
from ctxgrad.autograd.grad_mode import is_recording
from ctxgrad.autograd.values import is_value_dtype, value_type_of

if TYPE_CHECKING:
    from ctxgrad.autograd.function import BackwardCFunction, Function

__all__ = [
    "GradientTypeError",
    "Problem",
    "arg_label_of",
    "check_all_tensors",
    "check_grads",
    "check_tangents",
    "gradient_problems",
    "problem_of",
    "tangent_problems",
]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with what a ``backward`` (or ``jvp``) returned.

    ``kind`` is a stable identifier; ``index`` the argument's position in ``forward``'s
    arguments (for a tangent: the output's position; None for a wrong count); ``name`` the
    argument's name in ``forward``'s signature (``args[k]`` for the k-th of ``*args``; None
    for a tangent or a count); ``message`` the text of the exception the engine raises.

    ====================================  ==================  =================================
    kind                                  expected            got
    ====================================  ==================  =================================
    ``count``                             number of args      number of values returned
    ``gradient-for-non-tensor``           ``"None"``          the gradient's type name
    ``not-a-tensor``                      ``"Tensor"``        the gradient's type name
    ``wrong-kind``                        the input's kind    the gradient's type name
    ``shape``                             the input's shape   the gradient's shape
    ``complex-for-real``                  the input's dtype   the gradient's dtype
    ``dtype`` (not fatal: cast)           the input's dtype   the gradient's dtype
    ``tangent-count``                     number of outputs   number of tangents
    ``tangent-for-non-differentiable``    ``"None"``          the tangent's type name
    ``tangent-not-a-tensor``              ``"Tensor"``        the tangent's type name
    ``tangent-shape``                     the output's shape  the tangent's shape
    ``tangent-dtype`` (not fatal: cast)   the output's dtype  the tangent's dtype
    ====================================  ==================  =================================

    Shapes are tuples of ints, dtypes and types their names.  ``fatal`` is False for the
    problems the engine fixes instead of raising (it casts a gradient of another dtype, as
    torch does); a checker still reports them, because the cast loses precision silently.
    """

    kind: str
    index: int | None
    name: str | None
    expected: object
    got: object
    message: str
    fatal: bool = True

    @property
    def argument(self) -> str:
        """How messages name the argument: ``'x' (index 0)``."""
        return f"'{self.name}' (index {self.index})"

    def error(self) -> Exception:
        """The exception the engine raises for this problem, with the problem as its
        ``problem`` attribute.  Its type is torch's (``RuntimeError``; ``TypeError`` for a
        tangent that is not a tensor), or :class:`GradientTypeError` (a ``TypeError`` and a
        ``RuntimeError``) for a gradient of the wrong type."""
        exc = _EXCEPTION_OF.get(self.kind, RuntimeError)(self.message)
        exc.problem = self  # type: ignore[attr-defined]
        return exc


_EXCEPTION_OF: dict[str, type[Exception]] = {
    "gradient-for-non-tensor": GradientTypeError,
    "not-a-tensor": GradientTypeError,
    "wrong-kind": GradientTypeError,
    "tangent-not-a-tensor": TypeError,
}


def problem_of(exc: BaseException) -> Problem | None:
    """The :class:`Problem` an exception raised by validation carries, else None."""
    problem = getattr(exc, "problem", None)
    return problem if isinstance(problem, Problem) else None


def check_all_tensors(ctx: BackwardCFunction, what: str, tensors: tuple[Any, ...]) -> None:
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise GradientTypeError(
                f"{what} only accepts Tensors, but argument {i} is of type {type(t).__name__} "
                f"(in {ctx._forward_cls.__name__}.forward)"
            )


def _expandable(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """True when ``shape`` broadcasts to ``target`` (so a gradient of ``target`` sums down)."""
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


# --------------------------------------------------------------------------- the engine
def has_complex(grads: list[Tensor | None]) -> bool:
    """Some gradient is complex (a holomorphic backward then runs on the conjugates)."""
    for g in grads:  # (a loop: a third of the cost of any() over a generator)
        if g is not None and g._data.dtype.kind == "c":
            return True
    return False


def conjugate(grads: Any) -> Any:
    """Each tensor conjugated (``conj`` is attached from the op table, a layer above)."""
    if isinstance(grads, tuple):
        return tuple(g.conj() if isinstance(g, Tensor) else g for g in grads)
    return grads.conj() if isinstance(grads, Tensor) else grads


def check_grads(node: BackwardCFunction, result: Any) -> list[Tensor | None]:
    """Check what a backward returned, one gradient per forward argument, and fit each one.

    A gradient that is exactly its input's (a tensor of its shape and dtype) passes as it
    is; any other goes to :func:`_fit`, which raises the first fatal problem
    :func:`gradient_problems` finds with it, or sums it down to the input's shape and casts
    it to the input's dtype.  Extra trailing Nones are allowed.  Gradients for tensors that
    do not require grad are checked too, then dropped.
    """
    edges = node._edges  # (node, output_nr, shape, dtype for each argument: _edges.py)
    n = len(edges) // 4
    if type(result) is not tuple:
        if n == 1 and type(result) is Tensor:
            # The common case, one argument: check it without building tuples.
            data = result._data
            shape, dtype = edges[2], edges[3]
            if shape is not None and data.shape == shape and (data.dtype is dtype or data.dtype == dtype):
                return [result if edges[0] is not None else None]
        result = (result,)
    if len(result) != n:
        count = _count_problem(node._forward_cls, node.name(), edges_of(node), result)
        if count is not None:
            raise count.error()
        result = result[:n]  # extra trailing Nones
    out: list[Tensor | None] = []
    for i in range(n):
        g = result[i]
        if g is None:
            out.append(None)
            continue
        k = 4 * i
        shape, dtype = edges[k + 2], edges[k + 3]
        if (
            shape is not None
            and isinstance(g, Tensor)
            and (d := g._data).shape == shape
            and (d.dtype is dtype or d.dtype == dtype)  # (``is`` first: no comparison call for the same dtype)
        ):
            out.append(g if edges[k] is not None else None)
        else:
            out.append(_fit(node, i, g, edge_at(edges, i)))
    return out


def _fit(node: BackwardCFunction, i: int, g: Any, e: Edge | None) -> Tensor | None:
    """A gradient that is not exactly its input's: raise its first fatal problem, else sum
    it down to the input's shape and cast it to the input's dtype."""
    if type(g) is Tensor and e is not None and (data := g._data).dtype == e[3] and e[3].metadata is None:
        # The common case, a gradient of the input's dtype and a broadcast shape (a bias's):
        # no problem is possible but the shape, and it is summed down on the array when
        # nothing records, as ``sum_to_size``'s forward would.
        if _expandable(e[2], data.shape) and not is_recording():
            return _wrap(summed_to_shape(data, e[2])) if e[0] is not None else None
    if node._forward_cls.holomorphic and isinstance(g, Tensor) and e is not None and g._data.dtype.kind == "c":
        if e[3].kind != "c":
            g = g.real  # a real input of a built-in complex computation: the real part, as in torch
    fatal = _argument_kinds(g, e, fatal_only=True)
    if fatal:
        raise _gradient_problem(fatal[0], node._forward_cls, node.name(), i, g, e).error()
    assert e is not None and isinstance(g, Tensor)  # (else a fatal problem was raised)
    if g._data.shape != e[2]:
        if is_recording() or type(g) is not Tensor:
            g = g.sum_to_size(e[2])  # (an op: the method is attached from the op table, a layer above)
        else:  # (nothing records: what that op's forward computes, without its call)
            g = _wrap(summed_to_shape(g._data, e[2]))
    if g._data.dtype != e[3] and not _any_grad_dtype(e[0]):
        g = g.to(e[3])
    return g if e[0] is not None else None


def _any_grad_dtype(node: Any) -> bool:
    """The edge leads to a leaf whose ``grad_dtype`` is None: its gradient keeps its dtype."""
    leaf = getattr(node, "variable", None)
    return leaf is not None and leaf._grad_dtype is None


# --------------------------------------------------------------------------- the rules
def gradient_problems(
    fn: BackwardCFunction | type[Function], result: Any, inputs: Sequence[Any] | None = None
) -> list[Problem]:
    """Every problem with ``result``, what a ``backward`` returned, in the order the engine
    meets them (so the first fatal one is the one it raises); empty when it is fine.

    ``fn`` is either the node of a recorded call (the ``ctx``, ``y.grad_fn``), as in the
    engine, or a Function class with ``inputs``, the arguments of its ``apply`` call (the
    gradients are judged against their shapes and dtypes; keyword arguments must already
    be in their slots).

    A gradient whose shape broadcasts to its input's is not a problem (the engine sums it
    down, as torch does); one of another dtype is, but not a fatal one (the engine casts
    it, losing precision silently).
    """
    if isinstance(fn, type):
        if inputs is None:
            raise TypeError(
                f"gradient_problems({fn.__name__}, result, inputs): with a Function class, give the arguments "
                "of its apply call as inputs"
            )
        args = tuple(inputs)
        if len(args) < fn._min_args:
            args = fn._plan.bind(fn, args, {})
        cls: type[Function] = fn
        node_name = fn._backward_cls.__name__
        edges: tuple[Edge | None, ...] = tuple(
            (None, 0, a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None for a in args
        )
    else:
        cls, node_name, edges = fn._forward_cls, fn.name(), edges_of(fn)
    grads = result if type(result) is tuple else (result,)
    problems: list[Problem] = []
    count = _count_problem(cls, node_name, edges, grads)
    if count is not None:
        problems.append(count)
    for i, (g, e) in enumerate(zip(grads, edges)):
        if g is not None:
            problems += [_gradient_problem(kind, cls, node_name, i, g, e) for kind in _argument_kinds(g, e)]
    return problems


def _count_problem(
    cls: type[Function], node_name: str, edges: tuple[Edge | None, ...], grads: tuple[Any, ...]
) -> Problem | None:
    n, got = len(edges), len(grads)
    if got == n or (got > n and all(g is None for g in grads[n:])):
        return None
    return Problem(
        "count",
        None,
        None,
        n,
        got,
        f"function {node_name} returned an incorrect number of gradients (expected {n}, got {got})"
        f"{_signature_hint(cls, n)}",
    )


def _argument_kinds(g: Any, e: Edge | None, fatal_only: bool = False) -> list[str]:
    """The rules for one gradient: the kinds of problem with ``g`` (not None) as the gradient
    of the argument whose edge is ``e`` (only the fatal ones with ``fatal_only``: the engine
    casts a gradient of another dtype without a word)."""
    if e is None:
        return ["gradient-for-non-tensor"]
    expected = value_type_of(e[3])
    if expected is not None or (isinstance(g, Tensor) and is_value_dtype(g._data.dtype)):
        # A value that is not an array (see .values), or such a value given for an array.
        return [] if expected is not None and expected.accepts(g) else ["wrong-kind"]
    if not isinstance(g, Tensor):
        return ["not-a-tensor"]
    kinds = []
    data = g._data
    if data.shape != e[2] and not _expandable(e[2], data.shape):
        kinds.append("shape")  # (a shape that broadcasts to the input's is summed down)
    if data.dtype != e[3]:
        if data.dtype.kind == "c" and e[3].kind != "c":
            kinds.append("complex-for-real")
        elif not fatal_only:
            kinds.append("dtype")
    return kinds


def _gradient_problem(kind: str, cls: type[Function], node_name: str, i: int, g: Any, e: Edge | None) -> Problem:
    """The :class:`Problem` of ``kind`` with ``g``, the gradient of argument ``i``: its fields
    and the engine's message, worded like torch's and naming the argument."""
    name = _arg_name(cls, i)
    label = f"'{name}' (index {i})"
    if kind == "gradient-for-non-tensor":
        return Problem(
            kind,
            i,
            name,
            "None",
            type(g).__name__,
            f"function {node_name} returned a gradient different than None at position {i + 1}, "
            "but the corresponding forward input was not a Variable "
            f"(argument {label} is not a tensor; return None for it)",
        )
    if kind == "not-a-tensor":
        return Problem(
            kind,
            i,
            name,
            "Tensor",
            type(g).__name__,
            f"expected Variable or None (got {type(g).__name__}): function {node_name} returned "
            f"it as the gradient of argument {label}; wrap it with ctxgrad.tensor or return None",
        )
    assert e is not None
    if kind == "wrong-kind":
        vt = value_type_of(e[3])
        want = "Tensor" if vt is None else vt.name
        got_kind = type(g).__name__
        return Problem(
            kind,
            i,
            name,
            want,
            got_kind,
            f"function {node_name} returned a {got_kind} as the gradient of argument {label}, which is a "
            f"{want}: a gradient must be of its argument's kind (a {want}) or None",
        )
    data = g._data
    shape: tuple[int, ...] = e[2]
    if kind == "shape":
        return Problem(
            kind,
            i,
            name,
            shape,
            data.shape,
            f"Function {node_name} returned an invalid gradient at index {i} - got {list(data.shape)} "
            f"but expected shape compatible with {list(shape)} (argument {label} of "
            f"{cls.__name__}.forward has shape {list(shape)}; a gradient must have the "
            "argument's shape or a shape it broadcasts to)",
        )
    expected, got = e[3].name, data.dtype.name
    if kind == "complex-for-real":
        return Problem(
            kind,
            i,
            name,
            expected,
            got,
            f"Function {node_name} returned a complex gradient for argument {label}, "
            f"which is real ({expected}); return the real part or make the input complex",
        )
    return Problem(
        kind,
        i,
        name,
        expected,
        got,
        f"{cls.__name__}.backward returned a {got} gradient for argument {label}, which is "
        f"{expected} (the engine casts it, so the values silently lose precision)",
        fatal=False,
    )


def _signature_hint(cls: type[Function], n: int) -> str:
    names = cls._plan.slot_names
    if names and len(names) == n:
        return f"; forward takes ({', '.join(names)}), so backward must return one gradient (or None) for each"
    return ""


def _arg_name(cls: type[Function], i: int) -> str:
    names = cls._plan.slot_names
    return names[i] if i < len(names) else f"args[{i - len(names)}]"


def arg_label_of(cls: type[Function], i: int) -> str:
    return f"'{_arg_name(cls, i)}' (index {i})"


# --------------------------------------------------------------------------- forward mode
def tangent_problems(
    cls: type[Function], outs: tuple[Any, ...], result: Any, non_diff: tuple[Tensor, ...] = ()
) -> list[Problem]:
    """Every problem with ``result``, what ``cls.jvp`` returned for the outputs ``outs`` of
    its forward (``non_diff``: those marked non-differentiable), in the order forward mode
    meets them; empty when it is fine.  The tangents' rules, as :func:`gradient_problems`
    states the gradients'."""
    tangents = result if type(result) is tuple else (result,)
    problems: list[Problem] = []
    if len(tangents) != len(outs):
        problems.append(_tangent_count_problem(cls, outs, tangents))
    for i, (o, t) in enumerate(zip(outs, tangents)):
        if t is not None:
            problems += _tangent_problems_at(cls, i, o, t, non_diff)
    return problems


def check_tangents(
    cls: type[Function], outs: tuple[Any, ...], result: Any, non_diff: tuple[Tensor, ...] = ()
) -> list[Tensor | None]:
    """One tangent (or None) per output from what ``jvp`` returned, each cast to its output's
    dtype; raises the first fatal problem :func:`tangent_problems` finds."""
    tangents = result if type(result) is tuple else (result,)
    if len(tangents) != len(outs):
        raise _tangent_count_problem(cls, outs, tangents).error()
    out: list[Tensor | None] = []
    for i, (o, t) in enumerate(zip(outs, tangents)):
        if t is not None:
            for problem in _tangent_problems_at(cls, i, o, t, non_diff):
                if problem.fatal:
                    raise problem.error()
            if t._data.dtype != o._data.dtype:
                t = t.to(o._data.dtype)
        out.append(t)
    return out


def _tangent_count_problem(cls: type[Function], outs: tuple[Any, ...], tangents: tuple[Any, ...]) -> Problem:
    return Problem(
        "tangent-count",
        None,
        None,
        len(outs),
        len(tangents),
        f"function {cls.__name__}.jvp returned an incorrect number of tangents (expected {len(outs)}, "
        f"got {len(tangents)})",
    )


def _tangent_problems_at(cls: type[Function], i: int, o: Any, t: Any, non_diff: tuple[Tensor, ...]) -> list[Problem]:
    """The problems with ``t`` (not None) as the tangent of output ``o``, at position ``i``."""
    name = cls.__name__
    if not isinstance(o, Tensor) or o._data.dtype.kind not in "fc" or any(o is n for n in non_diff):
        return [
            Problem(
                "tangent-for-non-differentiable",
                i,
                None,
                "None",
                type(t).__name__,
                f"function {name}.jvp returned a tangent at position {i}, but the corresponding forward "
                "output is not a differentiable Tensor (not floating point, or marked non-differentiable). You "
                "should return None at that position instead.",
            )
        ]
    if not isinstance(t, Tensor):
        return [
            Problem(
                "tangent-not-a-tensor",
                i,
                None,
                "Tensor",
                type(t).__name__,
                f"function {name}.jvp returned a {type(t).__name__} as tangent {i}; expected a Tensor or None",
            )
        ]
    problems: list[Problem] = []
    shape, dtype = o._data.shape, o._data.dtype
    if t._data.shape != shape:
        problems.append(
            Problem(
                "tangent-shape",
                i,
                None,
                shape,
                t._data.shape,
                f"function {name}.jvp returned an invalid tangent at index {i} - got "
                f"{list(t._data.shape)} but expected shape compatible with {list(shape)}",
            )
        )
    if t._data.dtype != dtype:
        problems.append(
            Problem(
                "tangent-dtype",
                i,
                None,
                dtype.name,
                t._data.dtype.name,
                f"{name}.jvp returned a {t._data.dtype.name} tangent for output {i}, which is {dtype.name} "
                "(forward mode casts it, so the values silently lose precision)",
                fatal=False,
            )
        )
    return problems
