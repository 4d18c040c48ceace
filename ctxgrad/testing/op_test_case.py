"""``OpTestCase``: a test base class that checks a differentiable op from its inputs alone.

An op author writes the op (a :class:`~ctxgrad.autograd.Function` subclass, or any callable
taking tensors), some inputs, and optionally a NumPy reference of the forward; a subclass of
:class:`OpTestCase` then gets, for free, test methods that pytest (and unittest, when the
subclass also derives from ``unittest.TestCase``) collect:

========================================  ==================================================
test method                               what it checks
========================================  ==================================================
``test_inputs_are_supplied``              the subclass gave inputs (one clear failure if not)
``test_forward``                          outputs are tensors, floating outputs have the
                                          input's dtype, values match ``reference``
``test_backward``                         float64: ``gradcheck`` against central differences;
                                          other dtypes: the gradient agrees with the float64
                                          one on the same values
``test_double_backward``                  float64: ``gradgradcheck``
``test_forward_mode``                     float64: ``gradcheck(check_forward_ad=True)``;
                                          other dtypes: the tangent agrees with float64's
``test_requires_grad_subsets``            with only some inputs requiring grad, the others
                                          get no gradient and the rest get the same one
========================================  ==================================================

The idea is Chainer's ``FunctionTestCase``; the checks are those of ctxgrad's own op test kit,
without torch: the oracles are central differences, the float64 run and your reference.

    >>> import numpy as np
    >>> from ctxgrad.autograd import Function
    >>> from ctxgrad.testing import OpTestCase
    >>> class Cube(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x * x * grad
    ...
    ...     @staticmethod
    ...     def jvp(ctx, tangent):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x * x * tangent
    >>> class TestCube(OpTestCase):
    ...     function = Cube
    ...
    ...     def inputs(self):
    ...         return [(np.array([0.5, -1.0, 2.0]),), (np.array(1.5),)]
    ...
    ...     def reference(self, x):
    ...         return x ** 3
    >>> TestCube().test_backward()  # passes: returns None

A failure is an ``AssertionError`` whose message names the check, the input case (its index
and shapes), the dtype and which inputs required grad; every failing case is listed, not only
the first.
"""

from __future__ import annotations

import inspect
import itertools
import unittest
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd import forward_ad as fwAD
from ctxgrad.autograd._grad import as_tuple
from ctxgrad.autograd.errors import NoJvpError
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.gradcheck import gradcheck, gradgradcheck

__all__ = ["OpTestCase"]

# How many failing cases one test lists before it says "and N more".
_FAILURES_SHOWN = 5

_DEFAULT_TOLERANCES: dict[str, dict[str, float]] = {
    "float64": {"rtol": 1e-7, "atol": 1e-10},
    "float32": {"rtol": 1e-4, "atol": 1e-5},
    "float16": {"rtol": 1e-2, "atol": 1e-3},
}
_DEFAULT_GRADIENT_TOLERANCES: dict[str, dict[str, float]] = {
    "float64": {"rtol": 1e-9, "atol": 1e-12},
    "float32": {"rtol": 1e-3, "atol": 1e-4},
    "float16": {"rtol": 5e-2, "atol": 1e-2},
}
_COMPLEX_OF = {"float64": "complex128", "float32": "complex64", "float16": "complex64"}

_HOW_TO_GIVE_INPUTS = (
    "give it inputs: define `def inputs(self): return [(x, y), ...]` (a list of argument tuples of "
    "NumPy arrays, ctxgrad tensors or numbers; floating arrays are cast to each dtype in `dtypes`), or "
    "`def generate_inputs(self, rng, dtype): return [(x, y), ...]` (rng is a numpy.random.Generator, "
    "dtype a name such as 'float64'), or decorate the Function class with `@example(x, y)` "
    "(from ctxgrad.testing)"
)


@dataclass
class _Case:
    """One input case at one dtype: the arguments as NumPy arrays (or other values) and
    which of them are differentiable (floating or complex arrays)."""

    index: int
    dtype: str
    values: tuple[Any, ...]
    differentiable: list[int]

    def describe(self) -> str:
        parts = []
        for v in self.values:
            if isinstance(v, np.ndarray):
                parts.append(f"{v.dtype.name}{list(v.shape)}")
            else:
                parts.append(repr(v))
        return f"input case {self.index} ({', '.join(parts)}), dtype {self.dtype}"

    def tensors(self, requires_grad: Sequence[int] = ()) -> tuple[Any, ...]:
        """Fresh arguments: arrays become tensors (copies), those at ``requires_grad`` requiring grad."""
        return tuple(
            Tensor(v, dtype=v.dtype, requires_grad=p in requires_grad) if isinstance(v, np.ndarray) else v
            for p, v in enumerate(self.values)
        )

    def in_float64(self) -> _Case:
        """The same values, exactly, in float64 (complex128)."""
        return _Case(self.index, "float64", tuple(_cast(v, "float64") for v in self.values), self.differentiable)


def _cast(value: Any, dtype: str) -> Any:
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(dtype)
    if isinstance(value, np.ndarray) and value.dtype.kind == "c":
        return value.astype(_COMPLEX_OF[dtype])
    return value


def _as_value(arg: Any) -> Any:
    if isinstance(arg, Tensor):
        return np.array(arg.detach().numpy(), copy=True)
    if isinstance(arg, np.ndarray):
        return np.array(arg, copy=True)
    return arg


def _names(positions: Sequence[int]) -> str:
    return ", ".join(f"inputs[{p}]" for p in positions) if positions else "none"


class _Failures:
    """The failures of one test method, collected over cases, raised together."""

    def __init__(self, owner: OpTestCase, check: str, role: str = "requires grad") -> None:
        self.owner = owner
        self.check = check
        self.role = role  # what the inputs listed with a failure have: "requires grad", "tangents on"
        self.messages: list[str] = []

    def add(self, case: _Case, requires_grad: Sequence[int], problem: str) -> None:
        self.messages.append(
            f"{case.describe()}, {self.role}: {_names(requires_grad)}:\n    " + problem.replace("\n", "\n    ")
        )

    def raise_if_any(self) -> None:
        if not self.messages:
            return
        shown = self.messages[:_FAILURES_SHOWN]
        more = len(self.messages) - len(shown)
        tail = f"\n... and {more} more failing case(s)" if more else ""
        raise AssertionError(
            f"{type(self.owner).__name__}: check '{self.check}' failed for {len(self.messages)} case(s) of "
            f"{self.owner._function_name()}:\n" + "\n".join(shown) + tail
        )


def _problem(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _lacks_jvp(exc: BaseException) -> bool:
    """True when forward mode failed because the op has no jvp (and its backward cannot stand
    in for one): a :class:`~ctxgrad.autograd.errors.NoJvpError`, raised or the cause of one."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, NoJvpError):
            return True
        cause = cause.__cause__
    return False


class OpTestCase:
    """Base class of a test that checks one differentiable op; subclass it and set
    ``function`` and the inputs.

    Class attributes a subclass may set:

    * ``function``: a ``Function`` subclass (its ``apply`` is called) or any callable that
      takes the arguments of one input case and returns a tensor or a tuple of tensors.
    * ``dtypes``: the floating dtypes to test, by name (default ``("float64", "float32")``).
      Floating arrays of :meth:`inputs` are cast to each, complex arrays to the complex dtype
      of that precision (``complex128`` for float64, ``complex64`` for float32); float64 is
      the dtype of the numerical checks, whatever this says.  With complex inputs the checks
      are torch's: ``gradcheck`` perturbs the real and the imaginary parts and expects the
      gradient ``dL/dx + i dL/dy`` (so a backward that forgets a conjugation fails).
    * ``tolerances``: ``{dtype: {"rtol": ..., "atol": ...}}`` for the forward values against
      the reference; ``gradient_tolerances`` the same for a gradient or tangent in a lower
      precision against the float64 one. Given entries replace the defaults of that dtype.
    * ``gradcheck_options``: keyword arguments for :func:`~ctxgrad.autograd.gradcheck` and
      :func:`~ctxgrad.autograd.gradgradcheck` (``eps``, ``atol``, ``rtol``, ``fast_mode``...).
    * ``check_backward``, ``check_double_backward``, ``check_forward_mode``,
      ``check_requires_grad_subsets``: turn a check off (its test is then skipped) when the op
      does not support it, for example ``check_forward_mode = False`` for a Function without
      ``jvp`` whose ``backward`` is ``once_differentiable`` or computed in NumPy (forward mode
      derives a ``jvp`` from a ``backward`` written in ctxgrad ops, and the test checks that
      one), ``check_double_backward = False`` for a ``once_differentiable`` backward.
    * ``max_requires_grad_subsets``: the subsets of differentiable inputs tried by
      ``test_requires_grad_subsets`` (all non-empty proper subsets, smallest first, up to this
      many per case).
    * ``seed``: the seed of the generator passed to :meth:`generate_inputs` and of the random
      output weights and tangents.

    Methods a subclass may define: :meth:`inputs` or :meth:`generate_inputs`, and
    :meth:`reference`. Without either of the first two, the inputs a Function class carries
    are one case: its ``example_inputs()`` staticmethod, or the arguments of the
    :func:`~ctxgrad.checks.example` decorator (re-exported here).

    It works as a plain pytest class; for unittest, derive from both:
    ``class TestMyOp(OpTestCase, unittest.TestCase)``.
    """

    function: ClassVar[Any] = None
    dtypes: ClassVar[Sequence[str]] = ("float64", "float32")
    tolerances: ClassVar[dict[str, dict[str, float]]] = {}
    gradient_tolerances: ClassVar[dict[str, dict[str, float]]] = {}
    gradcheck_options: ClassVar[dict[str, Any]] = {}
    check_backward: ClassVar[bool] = True
    check_double_backward: ClassVar[bool] = True
    check_forward_mode: ClassVar[bool] = True
    check_requires_grad_subsets: ClassVar[bool] = True
    max_requires_grad_subsets: ClassVar[int] = 14
    seed: ClassVar[int] = 0

    # ----------------------------------------------------------------- what a subclass gives
    def inputs(self) -> Sequence[Sequence[Any]]:
        """The input cases: a list of argument tuples (arrays, tensors, numbers, ...).

        Floating arrays and tensors are cast to each dtype of ``dtypes``; integer and boolean
        arrays are passed as tensors unchanged (and are not differentiated); other values are
        passed as they are."""
        raise NotImplementedError

    def generate_inputs(self, rng: np.random.Generator, dtype: str) -> Sequence[Sequence[Any]]:
        """The input cases for ``dtype``, drawn from ``rng``: an alternative to :meth:`inputs`
        (define one of the two). Floating arrays should have ``dtype``; they are cast to it."""
        raise NotImplementedError

    def reference(self, *arrays: Any) -> Any:
        """The forward in NumPy: takes the arguments of a case as arrays (tensors converted),
        returns an array or a tuple of arrays. Not defining it skips the value comparison."""
        raise NotImplementedError

    # ----------------------------------------------------------------- the generated tests
    def test_inputs_are_supplied(self) -> None:
        """A subclass without inputs fails here, once, with how to give them."""
        if not self._gives_inputs():
            raise AssertionError(
                f"{type(self).__name__} has no input cases for {self._function_name()}: " + _HOW_TO_GIVE_INPUTS
            )
        if self._callable() is None:
            raise AssertionError(
                f"{type(self).__name__} has no `function`: set `function = MyFunction` (a Function subclass) "
                "or any callable taking the arguments of one input case"
            )
        for dtype in self.dtypes:
            if not self._cases(dtype):
                raise AssertionError(
                    f"{type(self).__name__} gave an empty list of input cases for dtype {dtype}: " + _HOW_TO_GIVE_INPUTS
                )

    def test_forward(self) -> None:
        """Outputs are tensors; a floating output has the case's dtype; values match
        :meth:`reference` within ``tolerances`` (when it is defined)."""
        self._require_inputs()
        failures = _Failures(self, "forward")
        has_reference = self._defines("reference")
        for dtype in self.dtypes:
            tol = self._tolerance(self.tolerances, _DEFAULT_TOLERANCES, dtype)
            for case in self._cases(dtype):
                try:
                    outputs = as_tuple(self._call(case.tensors()))
                except Exception as exc:
                    failures.add(case, [], f"the function raised {_problem(exc)}")
                    continue
                problem = self._forward_problem(case, outputs, has_reference, tol)
                if problem:
                    failures.add(case, [], problem)
        failures.raise_if_any()

    def test_backward(self) -> None:
        """float64: ``gradcheck`` (backward against central differences, gradient dtypes);
        a lower precision: the gradient of ``sum(output * w)`` against float64's."""
        self._require_inputs()
        self._require_flag("check_backward")
        failures = _Failures(self, "backward")
        for dtype in self._all_dtypes():
            for case in self._cases(dtype):
                if not case.differentiable:
                    continue
                if dtype == "float64":
                    self._gradcheck(case, failures, check="backward")
                    continue
                try:
                    low = self._weighted_gradients(case, case.differentiable)
                    high = self._weighted_gradients(case.in_float64(), case.differentiable)
                except Exception as exc:
                    failures.add(case, case.differentiable, f"backward raised {_problem(exc)}")
                    continue
                problem = self._compare(low, high, dtype, "gradient", case.differentiable)
                if problem:
                    failures.add(case, case.differentiable, problem + " (compared with float64 on the same values)")
        failures.raise_if_any()

    def test_double_backward(self) -> None:
        """float64: ``gradgradcheck``, the gradient of the backward against central differences."""
        self._require_inputs()
        self._require_flag("check_double_backward")
        failures = _Failures(self, "double backward")
        for case in self._cases("float64"):
            if not case.differentiable:
                continue
            try:
                gradgradcheck(self._function(), case.tensors(case.differentiable), **self._gradcheck_kwargs())
            except Exception as exc:
                failures.add(case, case.differentiable, _problem(exc))
        failures.raise_if_any()

    def test_forward_mode(self) -> None:
        """float64: ``gradcheck(check_forward_ad=True)``, the tangents (the ``jvp``) against
        central differences; a lower precision: the tangent against float64's."""
        self._require_inputs()
        self._require_flag("check_forward_mode")
        failures = _Failures(self, "forward mode", role="tangents on")
        for dtype in self._all_dtypes():
            for case in self._cases(dtype):
                if not case.differentiable:
                    continue
                if dtype == "float64":
                    self._gradcheck(case, failures, check="forward mode")
                    continue
                try:
                    low = self._tangents(case)
                    high = self._tangents(case.in_float64())
                except Exception as exc:
                    failures.add(case, case.differentiable, f"forward mode raised {_problem(exc)}")
                    continue
                problem = self._compare(low, high, dtype, "tangent", None)
                if problem:
                    failures.add(case, case.differentiable, problem + " (compared with float64 on the same values)")
        failures.raise_if_any()

    def test_requires_grad_subsets(self) -> None:
        """With no input requiring grad, no output does; with a subset requiring grad, the
        others get no gradient (``.grad`` stays None) and the subset gets the same gradient as
        when every input requires grad."""
        self._require_inputs()
        self._require_flag("check_requires_grad_subsets")
        failures = _Failures(self, "requires_grad subsets")
        for case in self._cases("float64"):
            if not case.differentiable:
                continue
            try:
                outputs = as_tuple(self._call(case.tensors()))
            except Exception as exc:
                failures.add(case, [], f"the function raised {_problem(exc)}")
                continue
            culprits = [q for q, o in enumerate(outputs) if isinstance(o, Tensor) and o.requires_grad]
            if culprits:
                failures.add(case, [], f"output(s) {culprits} require grad although no input does")
            try:
                full = self._weighted_gradients(case, case.differentiable)
            except Exception as exc:
                failures.add(case, case.differentiable, f"backward raised {_problem(exc)}")
                continue
            for subset in self._subsets(case.differentiable):
                problem = self._subset_problem(case, subset, full)
                if problem:
                    failures.add(case, subset, problem)
        failures.raise_if_any()

    # ----------------------------------------------------------------- helpers
    def _callable(self) -> Callable[..., Any] | None:
        # Read without binding: a plain function set as a class attribute is not a method.
        fn = inspect.getattr_static(self, "function", None)
        if isinstance(fn, (staticmethod, classmethod)):
            fn = fn.__func__
        if isinstance(fn, type) and issubclass(fn, Function):
            return fn.apply
        return fn if callable(fn) else None

    def _function_name(self) -> str:
        fn = inspect.getattr_static(self, "function", None)
        return getattr(fn, "__qualname__", None) or repr(fn)

    def _call(self, args: tuple[Any, ...]) -> Any:
        return self._function()(*args)

    def _function(self) -> Callable[..., Any]:
        fn = self._callable()
        if fn is None:
            raise AssertionError("no `function`: see test_inputs_are_supplied")
        return fn

    def _defines(self, name: str) -> bool:
        return getattr(type(self), name) is not getattr(OpTestCase, name)

    def _gives_inputs(self) -> bool:
        return self._defines("inputs") or self._defines("generate_inputs") or self._example_arguments() is not None

    def _example_arguments(self) -> tuple[Any, ...] | None:
        """The arguments a Function class carries itself: its ``example_inputs()`` staticmethod,
        or those of the ``@example(...)`` decorator (:mod:`ctxgrad.checks`); None if neither."""
        fn = inspect.getattr_static(self, "function", None)
        if not (isinstance(fn, type) and issubclass(fn, Function)):
            return None
        made = getattr(fn, "example_inputs", None)
        if callable(made):
            return as_tuple(made())
        attached = getattr(fn, "__ctxgrad_example__", None)
        if attached is None:
            return None
        args, kwargs = attached
        # Keywords go to their slots (defaults fill skipped ones), as in apply.
        return tuple(fn._plan.bind(fn, tuple(args), dict(kwargs))) if kwargs else tuple(args)

    def _require_inputs(self) -> None:
        if not self._gives_inputs() or self._callable() is None:
            raise unittest.SkipTest("no inputs or no function: see test_inputs_are_supplied")

    def _require_flag(self, flag: str) -> None:
        if not getattr(self, flag):
            raise unittest.SkipTest(f"{flag} = False")

    def _all_dtypes(self) -> list[str]:
        """``dtypes``, with float64 first (the numerical checks run there even when not listed)."""
        return ["float64", *(d for d in self.dtypes if d != "float64")]

    def _cases(self, dtype: str) -> list[_Case]:
        if self._defines("generate_inputs"):
            raw = self.generate_inputs(np.random.default_rng(self.seed), dtype)
        elif self._defines("inputs"):
            raw = self.inputs()
        else:
            attached = self._example_arguments()
            raw = [] if attached is None else [attached]
        cases = []
        for index, args in enumerate(raw):
            values = tuple(_cast(_as_value(a), dtype) for a in as_tuple(args))
            differentiable = [p for p, v in enumerate(values) if isinstance(v, np.ndarray) and v.dtype.kind in "fc"]
            cases.append(_Case(index, dtype, values, differentiable))
        return cases

    @staticmethod
    def _tolerance(
        given: dict[str, dict[str, float]], defaults: dict[str, dict[str, float]], dtype: str
    ) -> dict[str, float]:
        return {**defaults.get(dtype, defaults["float32"]), **given.get(dtype, {})}

    def _gradcheck_kwargs(self) -> dict[str, Any]:
        return {"check_grad_dtypes": True, **self.gradcheck_options}

    def _forward_problem(
        self, case: _Case, outputs: tuple[Any, ...], has_reference: bool, tol: dict[str, float]
    ) -> str | None:
        for q, out in enumerate(outputs):
            if not isinstance(out, Tensor):
                return f"output {q} is of type {type(out).__name__}, not a Tensor"
            kind = out.dtype.kind
            expected = case.dtype if kind == "f" else _COMPLEX_OF[case.dtype] if kind == "c" else None
            if expected is not None and out.dtype.name != expected:
                return (
                    f"output {q} has dtype {out.dtype.name}, expected {expected}: a floating output should "
                    "follow the dtype of the inputs"
                )
        if not has_reference:
            return None
        expected_values = as_tuple(self.reference(*(_as_value(v) for v in case.values)))
        if len(expected_values) != len(outputs):
            return f"the function returned {len(outputs)} output(s), the reference {len(expected_values)}"
        for q, (out, ref) in enumerate(zip(outputs, expected_values)):
            got, want = out.detach().numpy(), np.asarray(ref)
            if got.shape != want.shape:
                return f"output {q} has shape {list(got.shape)}, the reference {list(want.shape)}"
            if want.dtype.kind not in "fc" and got.dtype.kind != want.dtype.kind:
                return f"output {q} has dtype {got.dtype.name}, the reference {want.dtype.name}"
            if not _close(got, want, tol):
                return f"output {q} differs from the reference: " + _worst(got, want)
        return None

    def _gradcheck(self, case: _Case, failures: _Failures, check: str) -> None:
        backward = check == "backward"
        try:
            gradcheck(
                self._function(),
                case.tensors(case.differentiable),
                check_forward_ad=not backward,
                check_backward_ad=backward,
                **self._gradcheck_kwargs(),
            )
        except Exception as exc:
            if not backward and _lacks_jvp(exc):
                failures.add(
                    case,
                    case.differentiable,
                    _problem(exc) + "\n(set `check_forward_mode = False` if the op has no forward mode)",
                )
            else:
                failures.add(case, case.differentiable, _problem(exc))

    def _weights(self, outputs: tuple[Any, ...]) -> list[Tensor | None]:
        """A fixed random weight per output that requires grad (None for the others)."""
        rng = np.random.default_rng(self.seed + 1)
        weights: list[Tensor | None] = []
        for out in outputs:
            values = rng.standard_normal(tuple(out.shape)) if isinstance(out, Tensor) else None
            usable = isinstance(out, Tensor) and out.requires_grad and out.dtype.kind in "fc"
            weights.append(as_tensor(values.astype(out.dtype)) if usable and values is not None else None)
        return weights

    def _weighted_gradients(self, case: _Case, requires_grad: Sequence[int]) -> list[np.ndarray[Any, Any] | None]:
        """The gradients of ``sum(output * w)`` with respect to the inputs at ``requires_grad``,
        through ``backward()``, so that ``.grad`` of the other inputs is seen too."""
        args = case.tensors(requires_grad)
        outputs = as_tuple(self._call(args))
        weights = self._weights(outputs)
        terms = [(o * w).sum() for o, w in zip(outputs, weights) if w is not None]
        if not terms:  # no differentiable output (an argmax, say): no gradients to compare
            return [None for _ in requires_grad]
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        # (a complex total: the gradient of its real part, the seed 1 that torch will not make for it)
        (total.real if total.is_complex() else total).backward()
        for p, a in enumerate(args):
            if isinstance(a, Tensor) and p not in requires_grad and a.grad is not None:
                raise AssertionError(f"inputs[{p}] does not require grad but got a gradient (.grad is set)")
        return [None if args[p].grad is None else args[p].grad.numpy() for p in requires_grad]

    def _tangents(self, case: _Case) -> list[np.ndarray[Any, Any] | None]:
        """The output tangents when each differentiable input carries a fixed random tangent."""
        rng = np.random.default_rng(self.seed + 2)
        with fwAD.dual_level():
            args = list(case.tensors())
            for p in case.differentiable:
                direction = rng.standard_normal(args[p].shape).astype(case.values[p].dtype)
                args[p] = fwAD.make_dual(args[p], as_tensor(direction))
            outputs = as_tuple(self._call(tuple(args)))
            tangents: list[np.ndarray[Any, Any] | None] = []
            for q, out in enumerate(outputs):
                tangent = fwAD.unpack_dual(out).tangent if isinstance(out, Tensor) else None
                if tangent is not None and tangent.dtype != out.dtype:
                    raise AssertionError(
                        f"the tangent of output {q} is {tangent.dtype.name}, the output {out.dtype.name}"
                    )
                tangents.append(None if tangent is None else tangent.numpy().copy())
            return tangents

    def _compare(
        self,
        low: list[np.ndarray[Any, Any] | None],
        high: list[np.ndarray[Any, Any] | None],
        dtype: str,
        what: str,
        positions: Sequence[int] | None,
    ) -> str | None:
        tol = self._tolerance(self.gradient_tolerances, _DEFAULT_GRADIENT_TOLERANCES, dtype)
        for k, (a, b) in enumerate(zip(low, high)):
            label = f"inputs[{positions[k]}]" if positions is not None else f"output {k}"
            if (a is None) != (b is None):
                return (
                    f"the {what} of {label} is {'None' if a is None else 'set'} in {dtype}, "
                    f"{'None' if b is None else 'set'} in float64"
                )
            if a is None or b is None:
                continue
            if a.dtype.name not in (dtype, _COMPLEX_OF[dtype]):
                return f"the {what} of {label} has dtype {a.dtype.name}, expected {dtype}"
            if not _close(a.astype(b.dtype), b, tol):
                return f"the {what} of {label} in {dtype} differs from float64's: " + _worst(a, b)
        return None

    def _subsets(self, positions: list[int]) -> list[list[int]]:
        subsets: list[list[int]] = []
        for size in range(1, len(positions)):
            for combo in itertools.combinations(positions, size):
                if len(subsets) >= self.max_requires_grad_subsets:
                    return subsets
                subsets.append(list(combo))
        return subsets

    def _subset_problem(self, case: _Case, subset: list[int], full: list[np.ndarray[Any, Any] | None]) -> str | None:
        try:
            grads = self._weighted_gradients(case, subset)
        except AssertionError as exc:
            return str(exc)
        except Exception as exc:
            return f"backward raised {_problem(exc)}"
        tol = _DEFAULT_GRADIENT_TOLERANCES["float64"]
        for p, g in zip(subset, grads):
            want = full[case.differentiable.index(p)]
            if (g is None) != (want is None):
                return (
                    f"the gradient of inputs[{p}] is {'None' if g is None else 'set'} here, "
                    f"{'None' if want is None else 'set'} when every input requires grad"
                )
            if g is not None and want is not None and not _close(g, want, tol):
                return f"the gradient of inputs[{p}] differs from the one when every input requires grad: " + _worst(
                    g, want
                )
        return None


def _close(got: np.ndarray[Any, Any], want: np.ndarray[Any, Any], tol: dict[str, float]) -> bool:
    return bool(np.allclose(got, want, rtol=tol["rtol"], atol=tol["atol"], equal_nan=True))


def _worst(got: np.ndarray[Any, Any], want: np.ndarray[Any, Any]) -> str:
    """Where two arrays differ most, for a message."""
    if got.size == 0:
        return "(empty)"
    diff = np.abs(got.astype(np.complex128) - want.astype(np.complex128))
    diff = np.where(np.isnan(diff), np.inf, diff)
    flat = int(np.argmax(diff))
    where = np.unravel_index(flat, got.shape) if got.shape else ()
    at = f"[{', '.join(str(int(i)) for i in where)}]" if got.shape else ""
    return (
        f"largest difference {float(diff.reshape(-1)[flat]):.3g} at {at or 'the scalar'}: got "
        f"{got.reshape(-1)[flat].item()!r}, expected {want.reshape(-1)[flat].item()!r}"
    )
