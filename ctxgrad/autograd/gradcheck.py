"""Check a backward (and a forward-mode ``jvp``) against finite differences: ``gradcheck``.

The op author's test: a ``backward`` written by hand is compared with the derivative that
the forward alone implies.  For a function ``f`` and each input ``x`` that requires grad,

* the **numerical** Jacobian comes from central differences: each element of ``x`` is
  nudged in place by ``±eps`` (its array is written directly, as torch writes ``.data``,
  so autograd sees no change) and ``(f(x + eps) - f(x - eps)) / (2 eps)`` is one column;
* the **analytical** Jacobian comes from the backward: one ``autograd.grad`` per output
  element, with a one-hot ``grad_output``, gives one row ``e_j^T J``.

The two must agree to ``|analytical - numerical| <= atol + rtol * |numerical|``.  Then
come torch's side checks: backward run twice agrees (``nondet_tol``), a zero
``grad_output`` gives a zero gradient of the input's dtype ("backward multiplied by
grad_output"), and undefined output gradients do not crash backward.

``fast_mode=True`` does what HIPS autograd's ``check_grads`` does: instead of whole
Jacobians it draws a random direction ``u`` per input and ``v`` per output and compares
``v^T (J u)``, where ``J u`` is one finite difference along ``u``, with ``(v^T J) u``, where
``v^T J`` is one backward: two function calls and one backward per input and output pair.

A failure raises :class:`GradcheckError` whose first line is torch's
(``Jacobian mismatch for output 0 with respect to input 0,``), so a search for torch's
message finds the same cause; the lines after it say more than torch does: which argument
that input is, the largest absolute and relative errors and where they are, the worst
entries of a large Jacobian, and a guess at the kind of mistake (a constant factor, a sign,
a transpose, a missing gradient).

    >>> import ctxgrad
    >>> from ctxgrad.autograd import Function, gradcheck
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
    >>> x = ctxgrad.tensor([0.5, -1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True)
    >>> gradcheck(Cube.apply, (x,))
    True

Indices in messages follow torch: "input 1" is the second input *that requires grad* and
"output 0" the first output that requires grad; the next line says where that is in the
``inputs`` tuple and, when it can, the name of the argument.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd import forward_ad as fwAD
from ctxgrad.autograd._edges import edges_of
from ctxgrad.autograd._grad import as_tuple, grad
from ctxgrad.autograd._readonly import _locks, relock, writable
from ctxgrad.autograd.errors import NoJvpError, OnceDifferentiableError
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import no_grad

__all__ = ["GradcheckError", "get_analytical_jacobian", "get_numerical_jacobian", "gradcheck", "gradgradcheck"]

# A Jacobian with more entries than this is summarized by its worst entries, not printed.
_PRINT_LIMIT = 100
_WORST_SHOWN = 5
# The directions of fast mode and the grad_outputs of gradgradcheck come from this seed,
# so that a check fails or passes the same way every time and the user's RNG is untouched.
_SEED = 0


class _OptionsError(ValueError, AssertionError):
    """Options that do not go together: a ``ValueError``, and an ``AssertionError`` as torch's
    (its checks are asserts), so that code catching either catches it."""


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


# --------------------------------------------------------------------------- what is checked
@dataclass
class _Checked:
    """The inputs and outputs of one check, and how to name them in a message."""

    func: Callable[..., Any]
    inputs: tuple[Any, ...]
    input_positions: list[int]  # positions in ``inputs`` of the tensors that are checked
    input_labels: list[str]  # "inputs[2] (argument 'weight' of Linear.forward)", by position
    input_names: list[str]  # "weight" (or "inputs[2]" when the name is unknown), by position
    output_labels: Callable[[int], str] | None  # position in func's result -> its name (None: the default)
    returns_tuple: bool = False
    complex_step: bool = False  # numerical derivatives of real inputs by the complex step

    def output_name(self, position: int) -> str:
        if self.output_labels is not None:
            return self.output_labels(position)
        return f"func's result[{position}]" if self.returns_tuple else "func's result"

    @property
    def tensors(self) -> list[Tensor]:
        return [self.inputs[p] for p in self.input_positions]

    def input_name(self, i: int) -> str:
        return self.input_labels[self.input_positions[i]]

    def short_name(self, i: int) -> str:
        return self.input_names[self.input_positions[i]]


def _differentiable_positions(result: tuple[Any, ...]) -> list[int]:
    return [q for q, o in enumerate(result) if isinstance(o, Tensor) and o._requires_grad]


def _argument_names(func: Callable[..., Any], count: int) -> tuple[list[str | None], str]:
    """The parameter name each positional input binds to (None where unknown), and what
    to call ``func`` in a message: ``Linear.forward`` for ``Linear.apply``."""
    owner = getattr(func, "__self__", None)
    if isinstance(owner, type) and issubclass(owner, Function) and getattr(func, "__name__", "") == "apply":
        plan = getattr(owner, "_plan", None)
        names: list[str | None] = list(getattr(plan, "slot_names", ()))
        return (names + [None] * count)[:count], f"{owner.__name__}.forward"
    title = getattr(func, "__qualname__", None) or type(func).__name__
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return [None] * count, title
    names = []
    for p in params:
        if p.kind not in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
            break
        names.append(p.name)
    return (names + [None] * count)[:count], title


def _input_labels(func: Callable[..., Any], inputs: tuple[Any, ...]) -> tuple[list[str], list[str]]:
    """Per input, how a message names it in full and in short."""
    names, title = _argument_names(func, len(inputs))
    if "<lambda>" in title:
        title = "the lambda"
    labels = [f"inputs[{p}]" + (f" (argument '{n}' of {title})" if n else "") for p, n in enumerate(names)]
    return labels, [n or f"inputs[{p}]" for p, n in enumerate(names)]


def _check_inputs(inputs: tuple[Any, ...]) -> list[int]:
    """The positions of the inputs to check; torch's warning for each one that is not
    double precision, and its error for one that cannot be perturbed element by element."""
    positions: list[int] = []
    for idx, inp in enumerate(inputs):
        if not (isinstance(inp, Tensor) and inp._requires_grad):
            continue
        data = inp._data
        if data.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{idx} requires gradient and "
                "is not a double precision floating point or complex. "
                "This check will likely fail if all the inputs are "
                "not of double precision floating point or complex. ",
                UserWarning,
                stacklevel=3,
            )
        if not all(st != 0 or sz <= 1 for st, sz in zip(data.strides, data.shape)):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only "
                "supports inputs that are non-overlapping to be able to "
                "compute the numerical gradients correctly. You should call "
                ".contiguous on the input before passing it to gradcheck."
            )
        if not data.flags.writeable and not (id(data) in _locks or id(data.base) in _locks):
            raise RuntimeError(
                f"The {idx}th input is read-only, so gradcheck cannot perturb it in place to compute the "
                "numerical gradients. Pass a copy (.clone()) of it instead."
            )
        if data.dtype.kind in "fc":
            positions.append(idx)
    if not positions:
        raise ValueError(
            "gradcheck expects at least one input tensor to require gradient, but none of them have requires_grad=True."
        )
    return positions


# --------------------------------------------------------------------------- numerical side
def _values(func: Callable[..., Any], inputs: tuple[Any, ...]) -> list[np.ndarray[Any, Any] | None]:
    """The values of func's tensor results, copied (a result may share the input's array)."""
    result = as_tuple(func(*inputs))
    return [np.array(o._data, copy=True) if isinstance(o, Tensor) else None for o in result]


def _central_difference(
    checked: _Checked, x: Tensor, index: Any, delta: Any, eps: float, positions: list[int]
) -> list[np.ndarray[Any, Any]]:
    """``(f(x + delta) - f(x - delta)) / (2 eps)`` for the results at ``positions``, where
    ``delta`` is added at ``index`` of x's array; x is restored exactly afterwards."""
    data = x._data
    original = np.array(data[index], copy=True)
    # (a graph alive elsewhere may have saved x, which makes its array read-only; the
    # perturbation is undone exactly, so it is not an in-place change anyone can see)
    flipped = writable(data)
    try:
        data[index] = original - delta
        below = _values(checked.func, checked.inputs)
        data[index] = original + delta
        above = _values(checked.func, checked.inputs)
    finally:
        data[index] = original
        relock(flipped)
    columns: list[np.ndarray[Any, Any]] = []
    for q in positions:
        a, b = below[q], above[q]
        if a is None or b is None or a.shape != b.shape or a.dtype != b.dtype:
            raise GradcheckError(
                f"Expected `func` to return outputs with the same shape and dtype when inputs are perturbed by "
                f"{eps}, but {checked.output_name(q)} changed from "
                f"{_describe(a)} to {_describe(b)} when {_input_name_of(checked, x)} was perturbed"
            )
        columns.append(((b - a) / (2 * eps)).reshape(-1))
    return columns


def _describe(arr: np.ndarray[Any, Any] | None) -> str:
    return "a non-tensor" if arr is None else f"shape {list(arr.shape)} {arr.dtype.name}"


def _input_name_of(checked: _Checked, x: Tensor) -> str:
    for i, t in enumerate(checked.tensors):
        if t is x:
            return checked.input_name(i)
    return "an input"


def _numerical_jacobians(
    checked: _Checked, i: int, positions: list[int], sizes: list[int], eps: float
) -> tuple[list[np.ndarray[Any, Any]], list[np.ndarray[Any, Any]] | None]:
    """For input ``i``: per result at ``positions``, the Jacobian ``[x.numel(), out.numel()]``
    of a real perturbation, and for a complex input also that of an imaginary one."""
    x = checked.tensors[i]
    is_complex = x._data.dtype.kind == "c"
    if checked.complex_step and not is_complex:
        return _complex_step_jacobians(checked, i, positions, sizes), None
    along_real = [np.zeros((x._data.size, n), dtype=np.complex128) for n in sizes]
    along_imag = [np.zeros((x._data.size, n), dtype=np.complex128) for n in sizes] if is_complex else None
    for k, index in enumerate(np.ndindex(*x._data.shape)):
        for jac, col in zip(along_real, _central_difference(checked, x, index, eps, eps, positions)):
            jac[k] = col
        if along_imag is not None:
            for jac, col in zip(along_imag, _central_difference(checked, x, index, 1j * eps, eps, positions)):
                jac[k] = col
    return along_real, along_imag


_COMPLEX_STEP = 1e-20


def _complex_step_jacobians(
    checked: _Checked, i: int, positions: list[int], sizes: list[int]
) -> list[np.ndarray[Any, Any]]:
    """``Im f(x + ih e_k) / h`` for each element k of real input ``i``: the derivative of a
    real-analytic ``f`` with no subtraction, so exact to rounding even with h = 1e-20
    (Squire and Trapp, 1998).  ``func`` must accept complex inputs."""
    x = checked.tensors[i]
    where = checked.input_positions[i]
    jacobians = [np.zeros((x._data.size, n), dtype=np.complex128) for n in sizes]
    for k, index in enumerate(np.ndindex(*x._data.shape)):
        shifted = x._data.astype(np.complex128)
        shifted[index] += 1j * _COMPLEX_STEP
        inputs = list(checked.inputs)
        inputs[where] = _wrap(shifted)
        try:
            values = _values(checked.func, tuple(inputs))
        except Exception as exc:
            raise GradcheckError(
                f"gradcheck(complex_step=True) needs a func that accepts complex inputs, but it raised "
                f"{type(exc).__name__}: {exc} (with {checked.input_name(i)} made complex)"
            ) from exc
        for jac, q in zip(jacobians, positions):
            value = values[q]
            if value is None or value.dtype.kind != "c":
                raise GradcheckError(
                    f"gradcheck(complex_step=True) needs {checked.output_name(q)} to be complex when "
                    f"{checked.input_name(i)} is complex; it is {_describe(value)}"
                )
            jac[k] = value.imag.reshape(-1) / _COMPLEX_STEP
    return jacobians


# --------------------------------------------------------------------------- analytical side
def _vjp(output: Tensor, inputs: list[Tensor], grad_output: np.ndarray[Any, Any]) -> list[np.ndarray[Any, Any] | None]:
    seed = _wrap(np.asarray(grad_output, dtype=output._data.dtype).reshape(output._data.shape))
    grads = grad(output, inputs, seed, retain_graph=True, allow_unused=True)
    return [None if g is None else np.array(g._data, copy=True) for g in grads]


@dataclass
class _Part:
    """One real-valued quantity to check: a real output, or the real or the imaginary part
    of a complex one (as torch does, a complex output is checked as two real ones)."""

    q: int  # index among the differentiable outputs
    position: int  # position in func's result
    imag: bool
    complex_output: bool


def _parts(result: tuple[Any, ...], positions: list[int]) -> list[_Part]:
    parts: list[_Part] = []
    for q, p in enumerate(positions):
        if result[p]._data.dtype.kind == "c":
            parts.append(_Part(q, p, True, True))
            parts.append(_Part(q, p, False, True))
        else:
            parts.append(_Part(q, p, False, False))
    return parts


def _analytical_jacobians(
    output: Tensor, part: _Part, checked: _Checked, nondet_tol: float, check_grad_dtypes: bool
) -> list[np.ndarray[Any, Any]]:
    """One Jacobian ``[x.numel(), out.numel()]`` per checked input, a row of each per
    backward; everything is computed twice to catch a nondeterministic backward."""
    inputs = checked.tensors
    size = output._data.size
    unit = 1j if part.imag else 1.0
    runs: list[list[np.ndarray[Any, Any]]] = []
    for _ in range(2):
        jacs = [np.zeros((t._data.size, size), dtype=np.complex128) for t in inputs]
        for j in range(size):
            seed = np.zeros(size, dtype=np.complex128 if part.complex_output else output._data.dtype)
            seed[j] = unit
            for i, g in enumerate(_vjp(output, inputs, seed)):
                if g is None:
                    continue
                _check_gradient_attributes(g, inputs[i], checked, i, part, check_grad_dtypes)
                jacs[i][:, j] = g.reshape(-1)
        runs.append(jacs)
    for i, (first, second) in enumerate(zip(*runs)):
        if first.size and np.abs(first - second).max() > nondet_tol:
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with "
                "same input and grad_output multiple times gives different values, "
                "although analytical gradient matches numerical gradient."
                f"The tolerance for nondeterminism was {nondet_tol}.\n"
                f"The gradient of output {part.q} with respect to input {i} ({checked.input_name(i)}) differs by up "
                f"to {np.abs(first - second).max():.3g} between two identical backward calls. If this is expected, "
                "pass nondet_tol=<tolerance>."
            )
    return runs[0]


def _check_gradient_attributes(
    g: np.ndarray[Any, Any], x: Tensor, checked: _Checked, i: int, part: _Part, check_grad_dtypes: bool
) -> None:
    if g.shape != x._data.shape:
        raise GradcheckError(
            f"Analytical gradient has incorrect size: the gradient of output {part.q} with respect to input {i} "
            f"({checked.input_name(i)}) has shape {list(g.shape)}, the input {list(x._data.shape)}"
        )
    if check_grad_dtypes and g.dtype != x._data.dtype:
        raise GradcheckError(
            f"Gradient has dtype mismatch: the gradient of output {part.q} with respect to input {i} "
            f"({checked.input_name(i)}) is {g.dtype.name}, the input {x._data.dtype.name}"
        )


_DTYPE_KINDS = ("dtype", "complex-for-real")


def _check_backward_gradient_dtypes(outputs: list[Tensor]) -> None:
    """Run the backward of every custom Function in the graph once and check the dtype of
    what it returns, before the engine casts it to the input's dtype (silently, as torch
    does: a float32 gradient for a float64 input passes the value checks)."""
    from ctxgrad.autograd._validate import gradient_problems
    from ctxgrad.autograd.function import BackwardCFunction

    seen: set[int] = set()
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        edges = edges_of(node)
        stack.extend(e[0] for e in edges if e is not None and e[0] is not None)
        if not isinstance(node, BackwardCFunction) or node._forward_cls.__module__.startswith("ctxgrad."):
            continue
        cls = node._forward_cls
        seeds = [None if m is None else _wrap(np.ones(m[0], dtype=m[1])) for m in node._out_meta]
        with no_grad():
            result = cls._backward_impl(node, seeds) if cls.boxed_grads_call else cls._backward_impl(node, *seeds)
        for problem in gradient_problems(node, result):
            k = problem.index
            if problem.kind in _DTYPE_KINDS and k is not None and (e := edges[k]) is not None and e[0] is not None:
                raise GradcheckError(
                    f"Gradient has dtype mismatch: {cls.__name__}.backward returned a {problem.got} gradient "
                    f"for argument {problem.argument}, which is {problem.expected} (the engine casts it, so "
                    "the values silently lose precision or their imaginary part)"
                )


# --------------------------------------------------------------------------- messages
def _position(shape: tuple[int, ...], flat: int) -> str:
    if not shape:
        return ""
    return "[" + ", ".join(str(int(v)) for v in np.unravel_index(flat, shape)) + "]"


def _real_if_possible(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return arr.real.copy() if arr.dtype.kind == "c" and not np.any(arr.imag) else arr


def _show(arr: np.ndarray[Any, Any]) -> str:
    arr = _real_if_possible(arr)
    if arr.dtype.kind == "c":
        return "\n" + np.array2string(arr, precision=4, max_line_width=120)
    return repr(_wrap(arr))


def _hint(
    analytical: np.ndarray[Any, Any],
    numerical: np.ndarray[Any, Any],
    x_shape: tuple[int, ...],
    rtol: float,
    atol: float,
) -> str | None:
    """A guess at the kind of mistake, when the numbers show one."""
    scale = float(np.abs(numerical).max()) if numerical.size else 0.0
    if scale == 0.0:
        return None
    if not np.any(analytical):
        return "the analytical Jacobian is all zeros: does backward return None (or zeros) for this input?"
    if np.iscomplexobj(numerical) and np.any(numerical.imag):
        for sign in (1, -1):
            if np.allclose(analytical, sign * np.conj(numerical), rtol=rtol, atol=atol):
                return (
                    f"analytical = {'-' if sign < 0 else ''}conj(numerical): a conjugate missing from backward? "
                    "(for a holomorphic f, grad_input = grad_output * conj(f'(z)), as in torch)"
                )
    factor = complex(np.vdot(numerical, analytical) / np.vdot(numerical, numerical))
    scaled_atol = atol * max(1.0, abs(factor))
    if abs(factor - 1) > 1e-3 and np.allclose(analytical, factor * numerical, rtol=rtol, atol=scaled_atol):
        f = factor.real if abs(factor.imag) < 1e-9 * abs(factor) else factor
        if isinstance(f, float) and abs(f + 1) < 1e-6:
            return "analytical = -1 x numerical: a sign error in backward?"
        return f"analytical = {f:.6g} x numerical: a constant factor missing from (or extra in) backward?"
    if len(x_shape) == 2 and x_shape[0] == x_shape[1]:
        n = x_shape[0]
        swapped = numerical.reshape(n, n, -1).transpose(1, 0, 2).reshape(numerical.shape)
        if np.allclose(analytical, swapped, rtol=rtol, atol=atol):
            return (
                "analytical matches the numerical Jacobian with the input transposed: backward returns the "
                "transpose of the gradient for this input?"
            )
    return None


def _mismatch_message(
    analytical: np.ndarray[Any, Any],
    numerical: np.ndarray[Any, Any],
    checked: _Checked,
    i: int,
    part: _Part,
    output_shape: tuple[int, ...],
    rtol: float,
    atol: float,
    *,
    forward_ad: bool = False,
) -> str:
    """Torch's first line, then which input and output, the errors, a hint and the
    Jacobians (or their worst entries when large). Both are ``[x.numel(), out.numel()]``."""
    x = checked.tensors[i]
    x_shape = x._data.shape
    name = checked.short_name(i)
    a = analytical.astype(np.complex128)
    n = numerical.astype(np.complex128)
    diff = np.abs(a - n)
    allowed = atol + rtol * np.abs(n)
    failing = int(np.count_nonzero(diff > allowed))
    mode = "computed with forward mode " if forward_ad else ""
    side = ("imaginary" if part.imag else "real") if part.complex_output else None
    lines = [
        (f"While considering the {side} part of complex outputs only, " if side else "")
        + f"Jacobian {mode}mismatch for output {part.q:d} with respect to input {i:d},",
        f"  input {i} is {checked.input_name(i)}: shape {list(x_shape)}, {x._data.dtype.name}",
        f"  output {part.q} is {checked.output_name(part.position)}: shape {list(output_shape)}",
        f"  Jacobian[k, j] is d output[j] / d input[k], shape [{n.shape[0]}, {int(np.prod(output_shape))}]"
        + (
            f" (rows {x._data.size} and on: along the imaginary parts)"
            if n.shape[0] == 2 * x._data.size and x._data.size
            else ""
        )
        + ": "
        f"{failing} of {diff.size} entries fail |analytical - numerical| <= atol + rtol * |numerical| "
        f"(atol={atol:g}, rtol={rtol:g})",
    ]
    if diff.size:
        worst = int(np.argmax(diff))
        k, j = divmod(worst, max(n.shape[1], 1))
        lines.append(f"  largest absolute error: {diff.flat[worst]:.6g} at {_entry(k, j, x_shape, output_shape, name)}")
        nonzero = np.abs(n) > 0
        if nonzero.any():
            relative = np.where(nonzero, diff / np.where(nonzero, np.abs(n), 1.0), 0.0)
            r = int(np.argmax(relative))
            kr, jr = divmod(r, max(n.shape[1], 1))
            where = _entry(kr, jr, x_shape, output_shape, name)
            lines.append(f"  largest relative error: {relative.flat[r]:.6g} at {where}")
        hint = _hint(a, n, x_shape, rtol, atol)
        if hint:
            lines.append(f"  hint: {hint}")
    if diff.size <= _PRINT_LIMIT:
        lines += [f"numerical:{_show(numerical)}", f"analytical:{_show(analytical)}"]
    else:
        lines.append(f"the {_WORST_SHOWN} worst entries (of {diff.size}):")
        for flat in np.argsort(-diff, axis=None)[:_WORST_SHOWN]:
            k, j = divmod(int(flat), n.shape[1])
            lines.append(
                f"  {_entry(k, j, x_shape, output_shape, name)}: numerical {_scalar(n[k, j])}, "
                f"analytical {_scalar(a[k, j])}"
            )
    return "\n".join(lines) + "\n"


def _entry(k: int, j: int, x_shape: tuple[int, ...], output_shape: tuple[int, ...], name: str) -> str:
    size = int(np.prod(x_shape))
    if size and k >= size:  # forward mode's rows for a complex input: then those along its imaginary part
        where = f"imag({name}{_position(x_shape, k - size)})"
    else:
        where = f"{name}{_position(x_shape, k)}"
    return f"Jacobian[{k}, {j}] (d output{_position(output_shape, j)} / d {where})"


def _scalar(value: complex) -> str:
    return f"{value.real:.6g}" if value.imag == 0 else f"{value:.6g}"


def _allclose(a: np.ndarray[Any, Any], n: np.ndarray[Any, Any], rtol: float, atol: float) -> bool:
    return bool(np.allclose(a, n, rtol=rtol, atol=atol))


# --------------------------------------------------------------------------- the modes
def _select(jac: np.ndarray[Any, Any], imag_of_output: bool | None) -> np.ndarray[Any, Any]:
    if imag_of_output is None:
        return jac
    return jac.imag if imag_of_output else jac.real


def _numerical_for_part(
    along_real: np.ndarray[Any, Any], along_imag: np.ndarray[Any, Any] | None, part: _Part
) -> np.ndarray[Any, Any]:
    """The Jacobian of a real quantity with torch's convention for a complex input
    (``ds/dx + i ds/dy``, the conjugate Wirtinger derivative times two)."""
    which = part.imag if part.complex_output else None
    real = _select(along_real, which)
    if along_imag is None:
        return real.real if not part.complex_output else real
    return real.real + 1j * _select(along_imag, which).real


def _slow_backward_check(
    checked: _Checked,
    result: tuple[Any, ...],
    positions: list[int],
    eps: float,
    rtol: float,
    atol: float,
    nondet_tol: float,
    check_grad_dtypes: bool,
) -> None:
    sizes = [result[p]._data.size for p in positions]
    numerical = [_numerical_jacobians(checked, i, positions, sizes, eps) for i in range(len(checked.tensors))]
    for part in _parts(result, positions):
        output = result[part.position]
        analytical = _analytical_jacobians(output, part, checked, nondet_tol, check_grad_dtypes)
        for i, a in enumerate(analytical):
            along_real, along_imag = numerical[i]
            n = _numerical_for_part(along_real[part.q], None if along_imag is None else along_imag[part.q], part)
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(_mismatch_message(a, n, checked, i, part, output._data.shape, rtol, atol))


def _random_unit(rng: np.random.Generator, size: int) -> np.ndarray[Any, Any]:
    vec = rng.random(size)
    norm = np.linalg.norm(vec)
    return vec / norm if norm > 0 else vec


def _directions(rng: np.random.Generator, inputs: list[Tensor], outputs: list[Tensor]) -> tuple[list[Any], list[Any]]:
    """Random unit directions ``u`` per input and ``v`` per output; a complex input's ``u`` is
    complex (its imaginary part drawn last, so real checks see the same directions)."""
    us: list[Any] = [_random_unit(rng, t._data.size) for t in inputs]
    vs = [_random_unit(rng, o._data.size) for o in outputs]
    for k, t in enumerate(inputs):
        if t._data.dtype.kind == "c":
            us[k] = us[k] + 1j * _random_unit(rng, t._data.size)
    return us, vs


def _fast_backward_check(
    checked: _Checked,
    result: tuple[Any, ...],
    positions: list[int],
    eps: float,
    rtol: float,
    atol: float,
    nondet_tol: float,
    check_grad_dtypes: bool,
) -> None:
    """``v^T (J u)`` by one finite difference against ``(v^T J) u`` by one backward.

    Complex numbers as torch does: a complex output is checked as its real and its imaginary
    part (the backward seeded with ``v`` and ``i v``); a complex input's direction
    ``u = u_r + i u_i`` moves its real part along ``u_r`` and its imaginary part along ``u_i``,
    so the finite difference is ``ds/dx u_r + ds/dy u_i``, and the backward's gradient
    ``G = ds/dx + i ds/dy`` gives the same number as ``Re(conj(G) . u)``."""
    inputs = checked.tensors
    us, vs = _directions(np.random.default_rng(_SEED), inputs, [result[p] for p in positions])
    # J u for every input and output: two calls of func per input.
    ju = [
        _central_difference(checked, x, ..., eps * u.reshape(x._data.shape), eps, positions) for x, u in zip(inputs, us)
    ]
    for part in _parts(result, positions):
        q, p = part.q, part.position
        output, v = result[p], vs[q]
        seed = v * 1j if part.imag else v
        first, second = _vjp(output, inputs, seed), _vjp(output, inputs, seed)
        for i, x in enumerate(inputs):
            g1, g2 = first[i], second[i]
            if g1 is not None:
                _check_gradient_attributes(g1, x, checked, i, part, check_grad_dtypes)
            if g1 is not None and g2 is not None and g1.size and np.abs(g1 - g2).max() > nondet_tol:
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with "
                    "same input and grad_output multiple times gives different values, "
                    "although analytical gradient matches numerical gradient."
                    f"The tolerance for nondeterminism was {nondet_tol}.\n"
                    f"(output {q}, input {i}: {checked.input_name(i)})"
                )
            u = us[i]
            analytical = 0.0 if g1 is None else float(np.real(np.vdot(g1.reshape(-1), u)))
            column = ju[i][q]
            numerical = float(np.dot(v, _select(column, part.imag) if part.complex_output else column.real))
            adjusted_atol = atol * float(np.abs(u.real).sum() + np.abs(np.imag(u)).sum()) * float(v.sum())
            if not np.isclose(analytical, numerical, rtol=rtol, atol=adjusted_atol):
                a_full = _analytical_jacobians(output, part, checked, float("inf"), False)[i]
                along_real, along_imag = _numerical_jacobians(checked, i, [p], [output._data.size], eps)
                n_full = _numerical_for_part(along_real[0], None if along_imag is None else along_imag[0], part)
                prefix = ""
                if _allclose(a_full, n_full, rtol, atol):
                    prefix = (
                        "Fast gradcheck failed but element-wise differences are small: with fast_mode=False this "
                        "check passes.\n"
                    )
                message = _mismatch_message(a_full, n_full, checked, i, part, output._data.shape, rtol, atol)
                raise GradcheckError(
                    message
                    + f"fast mode: for random unit directions u (input) and v (output), v^T J u is {numerical:.10g} "
                    f"numerically and {analytical:.10g} analytically (tolerance {adjusted_atol:.3g} + "
                    f"{rtol:g} x |numerical|); the Jacobians above are recomputed in slow mode.\n" + prefix
                )


def _forward_jvp(
    checked: _Checked, i: int, tangent: np.ndarray[Any, Any], positions: list[int]
) -> list[np.ndarray[Any, Any]]:
    """The tangents of func's results at ``positions`` for tangent ``tangent`` on input i
    (zero on the other checked inputs)."""
    with fwAD.dual_level():
        args = list(checked.inputs)
        for k, p in enumerate(checked.input_positions):
            x = checked.inputs[p]
            t = tangent if k == i else np.zeros_like(x._data)
            args[p] = fwAD.make_dual(x.detach(), _wrap(np.asarray(t, dtype=x._data.dtype).reshape(x._data.shape)))
        result = as_tuple(checked.func(*args))
        out: list[np.ndarray[Any, Any]] = []
        for q in positions:
            primal, tan = fwAD.unpack_dual(result[q])
            out.append(np.zeros(primal._data.size) if tan is None else np.array(tan._data, copy=True).reshape(-1))
        return out


def _forward_check(
    checked: _Checked,
    result: tuple[Any, ...],
    positions: list[int],
    eps: float,
    rtol: float,
    atol: float,
    fast_mode: bool,
    check_undefined_grad: bool,
) -> None:
    """The tangents of forward mode against the numerical Jacobian (or, fast, ``J u``).  A
    complex input is moved along its real and (a tangent ``i e_k``) its imaginary part."""
    sizes = [result[p]._data.size for p in positions]
    rng = np.random.default_rng(_SEED)
    for i, x in enumerate(checked.tensors):
        if fast_mode:
            u = _random_unit(rng, x._data.size)
            if x._data.dtype.kind == "c":
                u = u + 1j * _random_unit(np.random.default_rng(_SEED + 1), x._data.size)
            numerical_u = _central_difference(checked, x, ..., eps * u.reshape(x._data.shape), eps, positions)
            analytical_u = _forward_jvp(checked, i, u, positions)
            for q, (a, n) in enumerate(zip(analytical_u, numerical_u)):
                if not _allclose(a, n, rtol, atol * float(np.abs(u.real).sum() + np.abs(np.imag(u)).sum())):
                    along_real, along_imag = _numerical_jacobians(checked, i, positions, sizes, eps)
                    a_full = _forward_jacobian(checked, i, positions)[q]
                    n_full = along_real[q] if along_imag is None else np.concatenate([along_real[q], along_imag[q]])
                    raise GradcheckError(
                        _mismatch_message(
                            a_full,
                            n_full,
                            checked,
                            i,
                            _Part(q, positions[q], False, False),
                            result[positions[q]]._data.shape,
                            rtol,
                            atol,
                            forward_ad=True,
                        )
                        + "fast mode: J u along a random unit direction u differs; the Jacobians above are "
                        "recomputed in slow mode.\n"
                    )
        else:
            along_real, along_imag = _numerical_jacobians(checked, i, positions, sizes, eps)
            analytical = _forward_jacobian(checked, i, positions)
            for q, (a, n) in enumerate(zip(analytical, along_real)):
                if along_imag is not None:  # rows: the real parts' tangents, then the imaginary parts'
                    n = np.concatenate([n, along_imag[q]])
                n = n if result[positions[q]]._data.dtype.kind == "c" else n.real
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(
                        _mismatch_message(
                            a,
                            n,
                            checked,
                            i,
                            _Part(q, positions[q], False, False),
                            result[positions[q]]._data.shape,
                            rtol,
                            atol,
                            forward_ad=True,
                        )
                    )
    if check_undefined_grad:
        _check_undefined_tangents(checked, positions)


def _forward_jacobian(checked: _Checked, i: int, positions: list[int]) -> list[np.ndarray[Any, Any]]:
    """Per output, the tangents for a tangent ``e_k`` on input i, one row per k; for a complex
    input then also those for ``i e_k`` (the derivative along the imaginary part)."""
    x = checked.tensors[i]
    columns = []
    units = (1.0, 1j) if x._data.dtype.kind == "c" else (1.0,)
    for unit in units:
        for k in range(x._data.size):
            onehot = np.zeros(x._data.size, dtype=np.complex128 if unit == 1j else np.float64)
            onehot[k] = unit
            columns.append(_forward_jvp(checked, i, onehot, positions))
    return [np.stack([col[q] for col in columns]) if columns else np.zeros((0, 0)) for q in range(len(positions))]


def _check_undefined_tangents(checked: _Checked, positions: list[int]) -> None:
    """An input with a zero tangent and one with no tangent at all give the same tangents."""
    for i, p in enumerate(checked.input_positions):
        x = checked.inputs[p]
        with fwAD.dual_level():
            args_zero = list(checked.inputs)
            args_none = list(checked.inputs)
            for k, pk in enumerate(checked.input_positions):
                xk = checked.inputs[pk]
                ones = _wrap(np.ones_like(xk._data))
                args_zero[pk] = fwAD.make_dual(xk.detach(), ones if k != i else _wrap(np.zeros_like(xk._data)))
                args_none[pk] = fwAD.make_dual(xk.detach(), ones) if k != i else x.detach()
            zero = as_tuple(checked.func(*args_zero))
            none = as_tuple(checked.func(*args_none))
            for q in positions:
                t0 = fwAD.unpack_dual(zero[q]).tangent
                t1 = fwAD.unpack_dual(none[q]).tangent
                if t0 is not None and t1 is not None and not _allclose(t0._data, t1._data, 1e-5, 1e-8):
                    raise GradcheckError(
                        f"Mismatch in tangent values for output with index: {q} when input {i} "
                        f"({checked.input_name(i)}) has an undefined tangent value: a zero tangent gives "
                        f"{t0!r} but no tangent gives {t1!r}"
                    )


class _UndefinedGrad(Function):
    """Identity whose backward returns None: what flows back past it is an undefined
    gradient (the user's backward gets zeros, or None under ``set_materialize_grads(False)``)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return x.clone()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> None:
        return None


def _check_backward_with_zero_and_undefined_grads(
    checked: _Checked,
    result: tuple[Any, ...],
    positions: list[int],
    masked: bool | None,
    check_undefined_grad: bool,
) -> None:
    """Torch's "backward not multiplied by grad_output" and undefined-gradient checks."""
    inputs = checked.tensors
    outputs = [result[p] for p in positions]
    zeros = [_wrap(np.zeros_like(o._data)) for o in outputs]
    grads = grad(outputs, inputs, zeros, allow_unused=True, retain_graph=True)
    for i, (g, x) in enumerate(zip(grads, inputs)):
        if g is None:
            continue
        zero = np.allclose(g._data, 0) if masked else not np.any(g._data)
        if not zero:
            raise GradcheckError(
                f"backward not multiplied by grad_output: with every grad_output zero, the gradient for input {i} "
                f"({checked.input_name(i)}) is not zero (largest |value| {np.abs(g._data).max():.6g})"
            )
        if g._data.dtype != x._data.dtype:
            raise GradcheckError(
                f"grad is incorrect type: the gradient for input {i} ({checked.input_name(i)}) is "
                f"{g._data.dtype.name}, the input {x._data.dtype.name}"
            )
        if g._data.shape != x._data.shape:
            raise GradcheckError(
                f"grad is incorrect size: the gradient for input {i} ({checked.input_name(i)}) has shape "
                f"{list(g._data.shape)}, the input {list(x._data.shape)}"
            )
    if not check_undefined_grad:
        return
    # Every output's gradient undefined at once, then (several outputs) one at a time.
    cases: list[set[int]] = [set(range(len(positions)))]
    if len(positions) > 1:
        cases += [{q} for q in range(len(positions))]
    for undefined in cases:
        fresh = as_tuple(checked.func(*checked.inputs))
        outs = [_UndefinedGrad.apply(fresh[p]) if q in undefined else fresh[p] for q, p in enumerate(positions)]
        which = "every output" if len(undefined) == len(positions) else f"output {next(iter(undefined))}"
        try:
            grads = grad(outs, inputs, [_wrap(np.zeros_like(o._data)) for o in outs], allow_unused=True)
        except Exception as exc:
            _warn_undefined_grad_check()
            raise GradcheckError(
                "Expected backward function to handle undefined output grads. "
                'Please look at "Notes about undefined output gradients" in '
                '"tools/autograd/derivatives.yaml"\n'
                f"backward raised {type(exc).__name__}: {exc}\nwhen the gradient of {which} was undefined "
                "(None under ctx.set_materialize_grads(False): treat None as zero)"
            ) from exc
        for i, g in enumerate(grads):
            if g is not None and np.any(g._data):
                _warn_undefined_grad_check()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads are undefined "
                    'or zero. Please look at "Notes about undefined output gradients" in '
                    f'"tools/autograd/derivatives.yaml"\n(input {i}, {checked.input_name(i)}, when the gradient of '
                    f"{which} was undefined)"
                )


def _warn_undefined_grad_check() -> None:
    # torch's warning when this check fails, since it is on by default and older callers may
    # not expect it.
    warnings.warn(
        "Backwards compatibility: New undefined gradient support checking feature is enabled by default, but it "
        "may break existing callers of this function. If this is true for you, you can call this function with "
        '"check_undefined_grad=False" to disable the feature',
        UserWarning,
        stacklevel=2,
    )


def _check_no_differentiable_outputs(
    checked: _Checked, result: tuple[Any, ...], eps: float, fast_mode: bool, nondet_tol: float
) -> None:
    """With no output that requires grad, the function must not depend on the inputs."""
    positions = [p for p, o in enumerate(result) if isinstance(o, Tensor) and o._data.dtype.kind in "fc"]
    sizes = [result[p]._data.size for p in positions]
    for i, x in enumerate(checked.tensors):
        if fast_mode:
            u = _random_unit(np.random.default_rng(_SEED), x._data.size)
            jacs = _central_difference(checked, x, ..., eps * u.reshape(x._data.shape), eps, positions)
            bad = [q for q, jac in enumerate(jacs) if jac.size and np.abs(jac).max() > nondet_tol]
        else:
            along_real, along_imag = _numerical_jacobians(checked, i, positions, sizes, eps)
            jacs = along_real + (along_imag or [])
            bad = [q % max(len(positions), 1) for q, jac in enumerate(jacs) if np.any(jac)]
        if bad:
            raise GradcheckError(
                "Numerical gradient for function expected to be zero: no output requires grad, yet "
                f"{checked.output_name(positions[bad[0]])} changes when {checked.input_name(i)} is perturbed "
                "(does the function detach its result, or compute it outside ctxgrad ops?)"
            )


# --------------------------------------------------------------------------- public functions
def gradcheck(
    func: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Any],
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked: bool | None = None,
    complex_step: bool = False,
) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    Every tensor in ``inputs`` (a tensor, or a tuple that may hold non-tensors, which are
    passed through) that requires grad and is floating point or complex is checked, with
    respect to every output of ``func`` that requires grad. ``func`` must use the tensors
    it is given: they are perturbed in place, one element at a time.

    Args:
        func: takes the inputs as positional arguments, returns a tensor or a tuple.
        inputs: the point at which to check.
        eps: the perturbation of the finite differences.
        atol, rtol: analytical and numerical entries must satisfy
            ``|analytical - numerical| <= atol + rtol * |numerical|``.
        raise_exception: on failure, raise :class:`GradcheckError` (True) or return False.
            Other errors (a backward that raises, a wrong input) are raised either way.
        nondet_tol: how much two backward calls with the same inputs may differ.
        check_undefined_grad: also run backward with undefined (zero / None) output
            gradients and require that it works and gives zero.
        check_grad_dtypes: require every gradient to have its input's dtype; ctxgrad also
            runs each custom Function's backward once to see the dtype it returns before
            the engine casts it (torch cannot see that one).
        check_batched_grad, check_batched_forward_grad: also check ``func`` under ``vmap``:
            applied at once to a batch of three samples near ``inputs``, it must give each
            sample's values, and the gradients (tangents) of the batch must be each sample's,
            for a different random ``grad_output`` (tangent) per sample.  This checks the
            batching rules (a custom Function's ``vmap`` staticmethod or
            ``generate_vmap_rule``) where torch checks vmap over the backward formulas.
        check_forward_ad: also compare forward-mode tangents (``forward_ad``, the ``jvp``
            of each Function) with the numerical Jacobian; a complex input is moved along
            its real and its imaginary part.
        check_backward_ad: compare backward with the numerical Jacobian (the default).
        fast_mode: compare ``v^T J u`` for random unit ``u``, ``v`` instead of whole
            Jacobians (one finite difference and one backward per input and output);
            on failure the message shows the full Jacobians. Complex inputs get complex
            directions and complex outputs are checked as their real and imaginary parts,
            as in torch.
        masked: accepted for torch's signature (it concerns sparse tensors, which ctxgrad
            does not have); True makes the zero-grad_output check use ``allclose``.
        complex_step: (ctxgrad only) take the numerical derivatives of real inputs by the
            complex step, ``Im f(x + ih) / h`` with ``h = 1e-20``: no cancellation, so they
            are exact to rounding and tight tolerances can be used. ``func`` must accept
            complex inputs (most ctxgrad ops do) and be real-analytic (no ``abs``,
            comparisons or rounding on the path).

    Returns:
        True when every check passes (False on failure with ``raise_exception=False``).

    Inputs that are not float64 or complex128 get torch's warning: with ``eps=1e-6``,
    float32 finite differences are too coarse for the default tolerances.
    """
    if not (check_forward_ad or check_backward_ad):
        raise _OptionsError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise _OptionsError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise _OptionsError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    tupled = as_tuple(inputs)
    labels, names = _input_labels(func, tupled)
    checked = _Checked(func, tupled, _check_inputs(tupled), labels, names, None, complex_step=complex_step)
    if complex_step and any(t._data.dtype.kind == "c" for t in checked.tensors):
        raise ValueError("gradcheck(complex_step=True) takes real inputs only (it perturbs them along i)")
    try:
        _gradcheck(
            checked,
            eps=eps,
            atol=atol,
            rtol=rtol,
            nondet_tol=nondet_tol,
            check_undefined_grad=check_undefined_grad,
            check_grad_dtypes=check_grad_dtypes,
            check_forward_ad=check_forward_ad,
            check_backward_ad=check_backward_ad,
            fast_mode=fast_mode,
            masked=masked,
        )
        if check_batched_grad or check_batched_forward_grad:
            _check_batched(func, tupled, atol, rtol, reverse=check_batched_grad, forward=check_batched_forward_grad)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _gradcheck(
    checked: _Checked,
    *,
    eps: float,
    atol: float,
    rtol: float,
    nondet_tol: float,
    check_undefined_grad: bool,
    check_grad_dtypes: bool,
    check_forward_ad: bool,
    check_backward_ad: bool,
    fast_mode: bool,
    masked: bool | None,
) -> None:
    raw = checked.func(*checked.inputs)
    checked.returns_tuple = isinstance(raw, (tuple, list))
    result = as_tuple(raw)
    positions = _differentiable_positions(result)
    if not positions:
        _check_no_differentiable_outputs(checked, result, eps, fast_mode, nondet_tol)
        return
    if check_backward_ad:
        if fast_mode:
            _fast_backward_check(checked, result, positions, eps, rtol, atol, nondet_tol, check_grad_dtypes)
        else:
            _slow_backward_check(checked, result, positions, eps, rtol, atol, nondet_tol, check_grad_dtypes)
        if check_grad_dtypes:
            _check_backward_gradient_dtypes([result[p] for p in positions])
    if check_forward_ad:
        _forward_check(checked, result, positions, eps, rtol, atol, fast_mode, check_undefined_grad)
    if check_backward_ad:
        _check_backward_with_zero_and_undefined_grads(checked, result, positions, masked, check_undefined_grad)


def gradgradcheck(
    func: Callable[..., Tensor | Sequence[Tensor]],
    inputs: Tensor | Sequence[Any],
    grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_fwd_over_rev: bool = False,
    check_rev_over_rev: bool = True,
    fast_mode: bool = False,
    masked: bool = False,
) -> bool:
    """Check second derivatives: :func:`gradcheck` applied to the function that maps
    ``(inputs, grad_outputs)`` to ``autograd.grad(func(inputs), inputs, grad_outputs,
    create_graph=True)``.

    A backward written in ctxgrad ops is differentiable and passes when it is right. A
    backward marked ``once_differentiable`` fails: :class:`GradcheckError` (its
    ``__cause__`` is the RuntimeError of ``once_differentiable``). A backward computed
    outside ctxgrad ops (NumPy) gives gradients that do not require grad, and fails with
    "Numerical gradient for function expected to be zero".

    >>> import ctxgrad
    >>> x = ctxgrad.tensor([0.5, 2.0], dtype=ctxgrad.float64, requires_grad=True)
    >>> gradgradcheck(lambda t: t.exp() * t, (x,))
    True

    ``grad_outputs`` defaults to random tensors (uniform in [-1, 1), from a fixed seed)
    of the outputs' shapes and dtypes; ``gen_non_contig_grad_outputs`` makes them
    non-contiguous. The other arguments are those of :func:`gradcheck`;
    ``check_rev_over_rev`` is its ``check_backward_ad``, ``check_fwd_over_rev`` its
    ``check_forward_ad``.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise _OptionsError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise _OptionsError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise _OptionsError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled_inputs = as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(_SEED)
        outputs = [o for o in as_tuple(func(*tupled_inputs)) if isinstance(o, Tensor) and o._requires_grad]
        made: list[Tensor] = []
        for o in outputs:
            dtype = o._data.dtype if o._data.dtype.kind in "fc" else np.dtype(np.float64)
            shape = o._data.shape
            # Non-contiguous: every other element of a buffer twice as long in the last dim.
            big = shape[:-1] + (2 * shape[-1],) if (gen_non_contig_grad_outputs and shape) else shape
            values = rng.uniform(-1, 1, big)
            if dtype.kind == "c":
                values = values + 1j * rng.uniform(-1, 1, big)
            arr = np.array(values, dtype=dtype)  # (an array: a 0-d NumPy scalar would be read-only)
            if big != shape:
                arr = arr[..., ::2]
            made.append(_wrap(arr).requires_grad_())
        tupled_grad_outputs: tuple[Any, ...] = tuple(made)
    else:
        tupled_grad_outputs = as_tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_inputs = [i for i, x in enumerate(tupled_inputs) if isinstance(x, Tensor) and x._requires_grad]
    returned_for: list[int] = []  # which inputs the last call's gradients belong to

    diff_seeds = {k for k, g in enumerate(tupled_grad_outputs) if isinstance(g, Tensor) and g._requires_grad}

    def first_order_gradients(*args: Any) -> tuple[Tensor, ...]:
        # Forward-over-reverse passes detached dual tensors: make them require grad again.
        split = len(args) - num_outputs
        input_args = tuple(a.requires_grad_() if i in diff_inputs else a for i, a in enumerate(args[:split]))
        outs = [o for o in as_tuple(func(*input_args)) if isinstance(o, Tensor) and o._requires_grad]
        seeds = tuple(g.requires_grad_() if k in diff_seeds else g for k, g in enumerate(args[split:]))
        grads = grad(outs, [input_args[i] for i in diff_inputs], seeds, create_graph=True, allow_unused=True)
        returned_for[:] = [p for p, g in zip(diff_inputs, grads) if g is not None]
        return tuple(g for g in grads if g is not None)

    labels, names = _input_labels(func, tupled_inputs)
    labels += [f"grad_outputs[{k}]" for k in range(num_outputs)]
    names += [f"grad_outputs[{k}]" for k in range(num_outputs)]
    all_inputs = tupled_inputs + tupled_grad_outputs

    def output_label(position: int) -> str:
        if position < len(returned_for):
            return f"the first-order gradient with respect to {labels[returned_for[position]]}"
        return f"first-order gradient {position}"

    checked = _Checked(first_order_gradients, all_inputs, _check_inputs(all_inputs), labels, names, output_label)
    try:
        try:
            _gradcheck(
                checked,
                eps=eps,
                atol=atol,
                rtol=rtol,
                nondet_tol=nondet_tol,
                check_undefined_grad=check_undefined_grad,
                check_grad_dtypes=check_grad_dtypes,
                check_forward_ad=check_fwd_over_rev,
                check_backward_ad=check_rev_over_rev,
                fast_mode=fast_mode,
                masked=masked,
            )
            if check_batched_grad:  # (func's batching rules; its gradients under vmap need ctxgrad.func)
                _check_batched(func, tupled_inputs, atol, rtol, reverse=True, forward=False)
        except RuntimeError as exc:
            # A failed check, not a broken call: torch reports it as a Jacobian mismatch.
            if isinstance(exc, GradcheckError) or not _cannot_differentiate_backward(exc):
                raise
            raise GradcheckError(
                "gradgradcheck: the backward cannot be differentiated (it is marked once_differentiable), so its "
                f"second derivatives cannot be checked:\n{exc}"
            ) from exc
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _cannot_differentiate_backward(exc: BaseException) -> bool:
    """True when ``exc`` says a backward cannot be differentiated: its result was differentiated
    though it is ``once_differentiable`` (a double backward), or forward over reverse needs a
    ``jvp`` that a ``once_differentiable`` (or NumPy) backward cannot give."""
    return isinstance(exc, (OnceDifferentiableError, NoJvpError))


def _check_batched(
    func: Callable[..., Any], inputs: tuple[Any, ...], atol: float, rtol: float, *, reverse: bool, forward: bool
) -> None:
    """``func`` under vmap against ``func`` once per sample (``check_batched_grad`` and
    ``check_batched_forward_grad``): values, then gradients (tangents) with a different random
    direction per sample."""
    from ctxgrad.autograd._batched import map_over_batch, stack_samples

    size = 3
    rng = np.random.default_rng(0)
    name = getattr(func, "__name__", type(func).__name__)
    positions = [i for i, a in enumerate(inputs) if isinstance(a, Tensor) and a.requires_grad]
    samples = [
        [_wrap(a._data * (1.0 + 1e-3 * k)).requires_grad_() if i in positions else a for i, a in enumerate(inputs)]
        for k in range(size)
    ]
    per_sample = [as_tuple(func(*s)) for s in samples]
    batch = tuple(stack_samples([s[i] for s in samples]) if i in positions else a for i, a in enumerate(inputs))
    in_dims = tuple(0 if i in positions else None for i in range(len(inputs)))
    outs = map_over_batch(func, batch, in_dims, size)
    diff = [j for j, o in enumerate(outs) if isinstance(o, Tensor) and o._data.dtype.kind in "fc"]
    for j in diff:
        want = np.stack([r[j]._data for r in per_sample])
        if not np.allclose(outs[j]._data, want, rtol=rtol, atol=atol, equal_nan=True):
            raise GradcheckError(
                f"Batched computation failed: vmap over {name} gives output {j} that differs from running {name} "
                f"once per sample (check its batching rule: its vmap staticmethod or generate_vmap_rule).\n"
                f"vmap: {outs[j]._data}\nper sample: {want}"
            )
    if reverse:
        cots = [_wrap(rng.standard_normal(outs[j]._data.shape).astype(outs[j]._data.dtype)) for j in diff]
        used = [j for j in diff if outs[j].requires_grad]
        if used:
            got = grad(
                [outs[j] for j in used],
                [batch[i] for i in positions],
                [cots[diff.index(j)] for j in used],
                allow_unused=True,
            )
            for k in range(size):
                want_k = grad(
                    [per_sample[k][j] for j in used],
                    [samples[k][i] for i in positions],
                    [_wrap(cots[diff.index(j)]._data[k]) for j in used],
                    allow_unused=True,
                )
                for p, g, w in zip(positions, got, want_k):
                    g_arr = np.zeros(inputs[p]._data.shape) if g is None else g._data[k]
                    w_arr = np.zeros(inputs[p]._data.shape) if w is None else w._data
                    if not np.allclose(g_arr, w_arr, rtol=rtol, atol=atol, equal_nan=True):
                        raise GradcheckError(
                            f"Batched grad computation failed: the gradient of input {p} for sample {k}, through "
                            f"vmap over {name}, differs from the gradient of that sample alone.\n"
                            f"vmap: {g_arr}\nper sample: {w_arr}"
                        )
    if forward:
        tans = {i: rng.standard_normal((size, *inputs[i]._data.shape)) for i in positions}
        with fwAD.dual_level():
            duals = tuple(
                fwAD.make_dual(batch[i].detach(), _wrap(tans[i].astype(batch[i]._data.dtype))) if i in positions else a
                for i, a in enumerate(batch)
            )
            got_t = [fwAD.unpack_dual(o).tangent for o in map_over_batch(func, duals, in_dims, size)]
            for k in range(size):
                dk = tuple(
                    fwAD.make_dual(samples[k][i].detach(), _wrap(tans[i][k].astype(inputs[i]._data.dtype)))
                    if i in positions
                    else a
                    for i, a in enumerate(inputs)
                )
                want_t = [fwAD.unpack_dual(o).tangent for o in as_tuple(func(*dk))]
                for j in diff:
                    gt, wt = got_t[j], want_t[j]
                    g_arr = np.zeros(outs[j]._data.shape[1:]) if gt is None else gt._data[k]
                    w_arr = np.zeros(outs[j]._data.shape[1:]) if wt is None else wt._data
                    if not np.allclose(g_arr, w_arr, rtol=rtol, atol=atol, equal_nan=True):
                        raise GradcheckError(
                            f"Batched forward grad computation failed: the tangent of output {j} for sample {k}, "
                            f"through vmap over {name}, differs from the tangent of that sample alone.\n"
                            f"vmap: {g_arr}\nper sample: {w_arr}"
                        )


# --------------------------------------------------------------------------- torch's legacy helpers
_PRIVATE_API = (
    "`{name}` was part of PyTorch's private API and not meant to be exposed. We are deprecating it and it "
    "will be removed in a future version of PyTorch. If you have a specific use for this or feature request "
    "for this to be a stable API, please file us an issue at https://github.com/pytorch/pytorch/issues/new"
)


def _check_grad_out(name: str, grad_out: float) -> None:
    warnings.warn(_PRIVATE_API.format(name=name), FutureWarning, stacklevel=3)
    if grad_out != 1.0:
        raise ValueError(f"Expected grad_out to be 1.0. {name} no longer supports values of grad_out != 1.0.")


def get_numerical_jacobian(
    fn: Callable[..., Any], inputs: Any, target: Any = None, eps: float = 1e-3, grad_out: float = 1.0
) -> tuple[Tensor, ...]:
    """Finite-difference Jacobians of ``fn``'s first output, one per input that requires grad.

    ``fn`` gets ``inputs`` as one tuple; each Jacobian has a row per element of the input
    and a column per element of the output (``J[i, j] = d out[j] / d in[i]``), by central
    differences with step ``eps``.  ``target`` picks other tensors to differentiate by.
    Deprecated in torch (a ``FutureWarning``), kept for code that still calls it.
    """
    _check_grad_out("get_numerical_jacobian", grad_out)
    inputs = as_tuple(inputs)
    wrt = [t for t in as_tuple(inputs if target is None else target) if isinstance(t, Tensor) and t.requires_grad]

    def first_output() -> np.ndarray[Any, Any]:
        out = as_tuple(fn(inputs))[0]
        return np.array(out._data, copy=True)

    jacobians: list[Tensor] = []
    with no_grad():
        n_out = first_output().size
        for x in wrt:
            data = x._data
            jac = np.zeros((data.size, n_out), dtype=data.dtype)
            flipped = writable(data)
            try:
                for k in range(data.size):
                    index = np.unravel_index(k, data.shape)
                    original = data[index].copy()
                    data[index] = original - eps
                    below = first_output()
                    data[index] = original + eps
                    above = first_output()
                    data[index] = original
                    jac[k] = ((above - below) / (2 * eps)).reshape(-1)
            finally:
                relock(flipped)
            jacobians.append(_wrap(jac))
    return tuple(jacobians)


def get_analytical_jacobian(
    inputs: Any, output: Tensor, nondet_tol: float = 0.0, grad_out: float = 1.0
) -> tuple[tuple[Tensor, ...], bool, bool, bool]:
    """Backward-mode Jacobians of ``output``, one per input that requires grad, and three checks.

    Returns ``(jacobians, reentrant, correct_grad_sizes, correct_grad_types)``: each Jacobian
    laid out as :func:`get_numerical_jacobian`'s; ``reentrant`` is False when a second
    backward gives other numbers (beyond ``nondet_tol``); the last two are False when some
    gradient has the wrong shape or dtype.  Deprecated in torch (a ``FutureWarning``).
    """
    _check_grad_out("get_analytical_jacobian", grad_out)
    wrt = [t for t in as_tuple(inputs) if isinstance(t, Tensor) and t.requires_grad]
    n_out = output._data.size
    jacobians = [np.zeros((x._data.size, n_out), dtype=x._data.dtype) for x in wrt]
    again = [np.zeros_like(j) for j in jacobians]
    sizes_ok = types_ok = True
    for j in range(n_out):
        unit = np.zeros(n_out, dtype=output._data.dtype)
        unit[j] = 1
        for target in (jacobians, again):
            for jac, x, g in zip(target, wrt, _vjp(output, wrt, unit)):
                if g is None:
                    continue
                if g.shape != x._data.shape:
                    sizes_ok = False
                    continue
                if g.dtype != x._data.dtype:
                    types_ok = False
                jac[:, j] = g.reshape(-1)
    reentrant = all(a.shape == b.shape and bool(np.all(np.abs(a - b) <= nondet_tol)) for a, b in zip(jacobians, again))
    return tuple(_wrap(j) for j in jacobians), reentrant, sizes_ok, types_ok
