"""The functional autograd API: Jacobians, Hessians and their products with vectors.

Mirrors ``torch.autograd.functional``: each function takes a Python function ``func`` and
the point ``inputs`` at which to differentiate it, calls ``func`` itself, and returns
derivatives, not ``.grad`` side effects.

========================================  =====================================================
``vjp(func, inputs, v)``                  ``vᵀ J``: one backward pass
``jvp(func, inputs, v)``                  ``J v``: the double-backward trick, as torch does
``jacobian(func, inputs)``                ``J``: one backward per output element (or one
                                          forward-mode pass per input element)
``hessian(func, inputs)``                 the Jacobian of the gradient of a scalar function
``vhp(func, inputs, v)``                  ``vᵀ H``: gradient, then one more backward
``hvp(func, inputs, v)``                  ``H v``: the double-backward trick on the gradient
========================================  =====================================================

Structure follows the arguments: a single Tensor in gives a single Tensor out, a tuple in
gives a tuple out; ``jacobian`` of tuple outputs and tuple inputs gives a tuple (per output)
of tuples (per input), and ``hessian`` of tuple inputs a tuple of tuples.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.functional import jacobian, vjp
    >>> x = ctxgrad.tensor([1.0, 2.0])
    >>> jacobian(lambda t: t ** 2, x)
    tensor([[2., 0.],
            [0., 4.]])
    >>> vjp(lambda t: (t ** 2).sum(), x)
    (tensor(5.), tensor([2., 4.]))

How it fits the rest: these are thin drivers around :func:`ctxgrad.autograd.grad` and, for
``strategy="forward-mode"``, :mod:`ctxgrad.autograd.forward_ad`.  Each input is first
replaced by a fresh tensor (a detached copy, or a view when ``create_graph=True`` and the input
already requires grad), so the derivative is taken with respect to the argument ``func``
receives and not a tensor ``func`` might capture from outside.

Where an output does not depend on an input, the derivative is a tensor of zeros (the right
value) when ``strict=False`` (with a ``UserWarning`` in ``vjp``, ``jvp``, ``vhp`` and ``hvp``,
where that derivative was asked for by name; torch says nothing), and a ``RuntimeError`` when
``strict=True``: pass ``strict=True`` to be told that a requested derivative is structurally
zero.  A ``once_differentiable`` backward met while a second derivative is needed (``hessian``,
``hvp``, ``vhp``, ``jvp``) raises a ``RuntimeError`` that names the Function, where torch can
return zeros.
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import numpy as np

from ctxgrad._factories import zeros_like
from ctxgrad._made_functions import stack
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd import forward_ad as fwAD
from ctxgrad.autograd._grad import differentiated_again
from ctxgrad.autograd._grad import grad as autograd_grad
from ctxgrad.autograd.errors import OnceDifferentiableError
from ctxgrad.autograd.function import once_differentiable_message
from ctxgrad.autograd.grad_mode import enable_grad, set_grad_enabled

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]

_Strategy = Literal["forward-mode", "reverse-mode"]
_InputsT = Tensor | Sequence[Tensor]


class _StrategyError(ValueError, AssertionError):
    """An unknown ``strategy``: a ``ValueError``, and an ``AssertionError`` like torch's."""


# --------------------------------------------------------------------------- helpers
def _tensors_tuple(value: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """``(was_tuple, value as a tuple of Tensors)``; a non-Tensor element is a TypeError naming it."""
    is_tuple = isinstance(value, tuple)
    items: tuple[Any, ...] = value if is_tuple else (value,)
    for i, item in enumerate(items):
        if not isinstance(item, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {arg_name}"
            raise TypeError(
                f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but {where} "
                f"has type {type(item)}."
            )
    return is_tuple, items


def _tuple_postprocess(res: Any, to_unpack: bool | tuple[bool, bool]) -> Any:
    """Undo :func:`_as_tuple`: unwrap the one-element tuples made for non-tuple arguments.

    ``to_unpack`` is one flag, or two flags (outer, inner) for a tuple of tuples.
    """
    if isinstance(to_unpack, tuple):
        outer, inner = to_unpack
        if not inner:
            res = tuple(el[0] for el in res)
        if not outer:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple[Tensor, ...], create_graph: bool, need_graph: bool) -> tuple[Tensor, ...]:
    """Fresh tensor objects for ``inputs``: views that keep history when the caller wants the
    result differentiable with respect to the originals, detached copies otherwise."""
    out: list[Tensor] = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _grad_postprocess(values: Any, create_graph: bool) -> Any:
    """Detach (possibly nested tuples of) results unless the caller asked for a graph."""
    if isinstance(values, Tensor):
        return values if create_graph else values.detach()
    return tuple(_grad_postprocess(v, create_graph) for v in values)


def _validate_v(v: tuple[Tensor, ...], other: tuple[Tensor, ...], is_other_tuple: bool) -> None:
    """``v`` must have one tensor per element of ``other``, each of the same size."""
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_REQUIRES_GRAD_MESSAGES = {
    "outputs": (
        "Output {i} of the user-provided function does not require gradients. The outputs must be computed in "
        "a differentiable manner from the input when running in strict mode."
    ),
    "grad_inputs": (
        "The gradient with respect to input {i} is independent of the inputs of the user-provided function. "
        "This is not allowed in strict mode."
    ),
    "jacobian": (
        "While computing the hessian, found that the jacobian of the user-provided function with respect to "
        "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that your "
        "function is twice differentiable and that the jacobian depends on the inputs (this would be violated by "
        "a linear function for example)."
    ),
    "hessian": (
        "The hessian of the user-provided function with respect to input {i} is independent of the input. This "
        "is not allowed in strict mode. You should ensure that your function is thrice differentiable and that "
        "the hessian depends on the inputs."
    ),
}


def _check_requires_grad(values: Sequence[Tensor | None], kind: str, strict: bool) -> None:
    """In strict mode, every value must be a tensor that requires grad; the error says which."""
    if not strict:
        return
    for i, value in enumerate(values):
        if value is None:
            raise RuntimeError(
                f"The output of the user-provided function is independent of input {i}. This is not allowed in "
                "strict mode."
            )
        if not value.requires_grad:
            raise RuntimeError(_REQUIRES_GRAD_MESSAGES[kind].format(i=i))


def _autograd_grad(
    outputs: Sequence[Tensor | None],
    inputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor | None] | None = None,
    create_graph: bool = False,
    retain_graph: bool | None = None,
) -> tuple[Tensor | None, ...]:
    """``autograd.grad`` with ``allow_unused=True`` that skips outputs without history
    (None, or not requiring grad): their contribution is zero."""
    seeds: Sequence[Tensor | None] = grad_outputs if grad_outputs is not None else (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, seeds) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    result: tuple[Tensor | None, ...] = autograd_grad(
        [o for o, _ in kept],
        list(inputs),
        [g for _, g in kept],
        allow_unused=True,
        create_graph=create_graph,
        retain_graph=retain_graph,
    )
    return result


@contextlib.contextmanager
def _second_derivative() -> Iterator[None]:
    """Around a derivative of a derivative: a ``once_differentiable`` backward met on the
    way raises its error (torch's answer is zeros for the terms it leaves out)."""
    with differentiated_again() as seen:
        yield
    if seen:
        raise OnceDifferentiableError(once_differentiable_message(seen[0]))


# torch's strict-mode message for a missing derivative, by the function that found it
_FILL_MESSAGES = {
    "vjp": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "jvp": (
        "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using the "
        "double backward trick to compute forward mode gradients. This is not allowed in strict mode."
    ),
    "vhp": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
    "strict mode.",
    "hvp": (
        "The hessian of the user-provided function is independent of entry {i} in the grad_jacobian. This is not "
        "allowed in strict mode as it prevents from using the double backward trick to replace forward mode AD."
    ),
}


def _fill_in_zeros(
    grads: Sequence[Tensor | None], refs: Sequence[Tensor], strict: bool, create_graph: bool, name: str
) -> tuple[Tensor, ...]:
    """Replace a missing gradient (None: no path from the output) by zeros shaped like its
    reference, or, in strict mode, raise the error that says which derivative was missing."""
    res: list[Tensor] = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_MESSAGES[name].format(i=i))
            what = "output" if name == "jvp" else "input"  # jvp's backward trick differentiates w.r.t. its v
            warnings.warn(
                f"ctxgrad.autograd.functional.{name}: the result does not depend on {what} {i}, so its entry is "
                "zeros (torch returns them without a word); pass strict=True to make this an error",
                UserWarning,
                stacklevel=3,
            )
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if name in ("vhp", "hvp") else "jacobian"
            raise RuntimeError(
                f"The {what} of the user-provided function is independent of input {i}. This is not allowed in "
                "strict mode when create_graph=True."
            )
        res.append(g)
    return tuple(res)


def _check_v_none(inputs: tuple[Tensor, ...], about_input: bool) -> None:
    if len(inputs) != 1 or inputs[0].nelement() != 1:
        if about_input:
            raise RuntimeError(
                "The vector v can only be None if the input to the user-provided function is a single Tensor "
                "with a single element."
            )
        raise RuntimeError(
            "The vector v can only be None if the user-provided function returns a single Tensor with a single element."
        )


# --------------------------------------------------------------------------- vjp, jvp
def vjp(
    func: Callable[..., Any],
    inputs: _InputsT,
    v: _InputsT | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), vᵀ J)``: the product of ``v`` with the Jacobian of ``func`` at ``inputs``.

    ``v`` has the shape of ``func``'s output(s); it may be omitted when the output is a single
    one-element tensor.  The product has the structure and shapes of ``inputs``.  With
    ``create_graph=True`` both results keep their history and can be differentiated again.
    With ``strict=False``, an input that no output depends on gets zeros; ``strict=True``
    raises a ``RuntimeError`` for it instead.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.functional import vjp
    >>> def adder(x, y):
    ...     return 2 * x + 3 * y
    >>> vjp(adder, (ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([0.0, 1.0])), ctxgrad.ones(2))
    (tensor([2., 7.]), (tensor([2., 2.]), tensor([3., 3.])))
    """
    with enable_grad():
        is_inputs_tuple, ins = _tensors_tuple(inputs, "inputs", "vjp")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outs = _tensors_tuple(func(*ins), "outputs of the user-provided function", "vjp")
        _check_requires_grad(outs, "outputs", strict=strict)
        vs: tuple[Tensor, ...] | None = None
        if v is not None:
            _, vs = _tensors_tuple(v, "v", "vjp")
            vs = _grad_preprocess(vs, create_graph=create_graph, need_graph=False)
            _validate_v(vs, outs, is_outputs_tuple)
        else:
            _check_v_none(outs, about_input=False)
    with set_grad_enabled(True if create_graph else _state.modes.grad_enabled):
        grad_res = _autograd_grad(outs, ins, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, ins, strict, create_graph, "vjp")
    return (
        _tuple_postprocess(_grad_postprocess(outs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )


def jvp(
    func: Callable[..., Any],
    inputs: _InputsT,
    v: _InputsT | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), J v)``: the product of the Jacobian of ``func`` at ``inputs`` with ``v``.

    ``v`` has the shapes of ``inputs`` (omit it for a single one-element input); the product
    has the structure and shapes of the outputs.

    Like torch, this uses the *double-backward trick*: with a dummy seed ``u``, ``g(u) = Jᵀu``
    is linear in ``u``, and the gradient of ``<g(u), v>`` with respect to ``u`` is ``J v``.  So
    every backward on the way must itself be differentiable; a ``once_differentiable``
    backward raises a ``RuntimeError`` naming its Function.  For a true forward pass use
    :mod:`ctxgrad.autograd.forward_ad`, or ``jacobian(..., strategy="forward-mode")``.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.functional import jvp
    >>> jvp(lambda x: x ** 3, ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 0.5]))
    (tensor([1., 8.]), tensor([3., 6.]))
    """
    with enable_grad():
        is_inputs_tuple, ins = _tensors_tuple(inputs, "inputs", "jvp")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        vs: tuple[Tensor, ...] | None = None
        if v is not None:
            _, vs = _tensors_tuple(v, "v", "jvp")
            vs = _grad_preprocess(vs, create_graph=create_graph, need_graph=False)
            _validate_v(vs, ins, is_inputs_tuple)
        else:
            _check_v_none(ins, about_input=True)
        is_outputs_tuple, outs = _tensors_tuple(func(*ins), "outputs of the user-provided function", "jvp")
        _check_requires_grad(outs, "outputs", strict=strict)
        # The backward is linear in its seeds, so their value does not matter (zeros, not NaN).
        grad_outputs = tuple(zeros_like(out, requires_grad=True) for out in outs)
        grad_inputs = _autograd_grad(outs, ins, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    with set_grad_enabled(True if create_graph else _state.modes.grad_enabled):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, outs, strict, create_graph, "jvp")
    return (
        _tuple_postprocess(_grad_postprocess(outs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_outputs_tuple),
    )


# --------------------------------------------------------------------------- jacobian
def _one_hot_for(j: int, basis: Tensor | None, k: int) -> Tensor | None:
    """The tangent of input ``k`` in the pass that differentiates along ``basis`` of input ``j``."""
    return basis if k == j else None


def _jacfwd(func: Callable[..., Any], inputs: Any, strict: bool) -> Any:
    """The Jacobian by forward mode: one dual pass per input element, whose output tangents
    are one column of each output's Jacobian block."""
    if strict:
        raise RuntimeError(
            'ctxgrad.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported '
            'together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
        )
    is_inputs_tuple, ins = _tensors_tuple(inputs, "inputs", "jacobian")
    is_outputs_tuple = False
    primal_outs: tuple[Tensor, ...] = ()
    # columns[j][i]: the tangents of output i, one per element of input j.
    columns: list[list[list[Tensor]]] = []

    def run(tangent_of: Callable[[int], Tensor | None]) -> tuple[Tensor | None, ...]:
        nonlocal is_outputs_tuple, primal_outs
        with fwAD.dual_level():
            args = []
            for k, t in enumerate(ins):
                tangent = tangent_of(k)
                args.append(t if tangent is None else fwAD.make_dual(t, tangent))
            is_outputs_tuple, outs = _tensors_tuple(func(*args), "outputs of the user-provided function", "jacobian")
            unpacked = [fwAD.unpack_dual(o) for o in outs]
            primal_outs = tuple(u.primal.detach() for u in unpacked)
            return tuple(None if u.tangent is None else u.tangent.detach() for u in unpacked)

    for j, inp in enumerate(ins):
        per_output: list[list[Tensor]] = []
        flat = np.zeros(inp.nelement(), dtype=inp._data.dtype)
        for e in range(inp.nelement()):
            flat[:] = 0
            flat[e] = 1
            basis = as_tensor(flat.reshape(inp._data.shape).copy())
            tangents = run(functools.partial(_one_hot_for, j, basis))
            if not per_output:
                per_output = [[] for _ in tangents]
            for i, (tangent, out) in enumerate(zip(tangents, primal_outs)):
                per_output[i].append(zeros_like(out) if tangent is None else tangent)
        columns.append(per_output)
    if not primal_outs:  # every input is empty: one plain call tells the outputs' shapes
        run(functools.partial(_one_hot_for, -1, None))
    jac: list[list[Tensor]] = []
    for i, out in enumerate(primal_outs):
        row: list[Tensor] = []
        for j, inp in enumerate(ins):
            cols = columns[j][i] if columns[j] else []
            shape = (*out.shape, *inp.shape)
            if cols:
                row.append(stack(cols, dim=-1).reshape(shape))
            else:
                row.append(as_tensor(np.zeros(shape, dtype=out._data.dtype)))
        jac.append(row)
    return _tuple_postprocess(tuple(tuple(r) for r in jac), (is_outputs_tuple, is_inputs_tuple))


def jacobian(
    func: Callable[..., Any],
    inputs: _InputsT,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: _Strategy = "reverse-mode",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``.

    For one input and one output, a tensor of shape ``output.shape + input.shape``; for a
    tuple of inputs (or outputs), a tuple with one such block per input (or output); for
    both, ``J[i][j]`` is the block of output ``i`` with respect to input ``j``.

    ``strategy="reverse-mode"`` runs one backward per output element; ``"forward-mode"`` runs
    ``func`` once per input element with a one-hot tangent (:mod:`~ctxgrad.autograd.forward_ad`),
    cheaper when outputs outnumber inputs.  Its blocks have the output's dtype, reverse mode's
    the input's; it supports neither ``create_graph=True`` (``NotImplementedError``) nor
    ``strict=True`` (``RuntimeError``), as in torch.

    ``vectorize=True`` computes the same blocks with :mod:`ctxgrad.func` (``jacrev``, or
    ``jacfwd`` in forward mode): the rows (columns) in one batched pass under ``vmap``
    instead of one pass each.  As in torch it refuses ``strict=True``; unlike torch, forward
    mode does not require it.

    An output that does not depend on an input gets a block of zeros (the right value)
    with ``strict=False``; ``strict=True`` raises a ``RuntimeError`` naming the output and
    the input.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.functional import jacobian
    >>> def exp_adder(x, y):
    ...     return 2 * x.exp() + 3 * y
    >>> jx, jy = jacobian(exp_adder, (ctxgrad.tensor([0.0, 1.0]), ctxgrad.tensor([1.0, 1.0])))
    >>> jx
    tensor([[2.0000, 0.0000],
            [0.0000, 5.4366]])
    >>> jy
    tensor([[3., 0.],
            [0., 3.]])
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise _StrategyError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use '
            '"reverse-mode".'
        )
    if vectorize:
        if strict:
            raise RuntimeError(
                "ctxgrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                "together. Please either set `strict=False` or `vectorize=False`."
            )
        return _vectorized_jacobian(func, inputs, create_graph, strategy)
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                'ctxgrad.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
                'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
            )
        return _jacfwd(func, inputs, strict)

    with enable_grad():
        is_inputs_tuple, ins = _tensors_tuple(inputs, "inputs", "jacobian")
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outs = _tensors_tuple(func(*ins), "outputs of the user-provided function", "jacobian")
        _check_requires_grad(outs, "outputs", strict=strict)
        blocks: list[tuple[Tensor, ...]] = []
        for i, out in enumerate(outs):
            rows: list[list[Tensor]] = [[] for _ in ins]
            flat_out = out.reshape(-1)
            for e in range(out.nelement()):
                vj = _autograd_grad((flat_out[e],), ins, retain_graph=True, create_graph=create_graph)
                for k, (g, inp) in enumerate(zip(vj, ins)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input {k}. This is "
                                "not allowed in strict mode."
                            )
                        g = zeros_like(inp)
                    elif strict and create_graph and not g.requires_grad:
                        raise RuntimeError(
                            f"The jacobian of the user-provided function is independent of input {i}. This is not "
                            "allowed in strict mode when create_graph=True."
                        )
                    rows[k].append(g)
            blocks.append(
                tuple(
                    stack(row, dim=0).view(*out.shape, *inp.shape)
                    if row
                    else as_tensor(np.zeros((*out.shape, *inp.shape), dtype=inp._data.dtype))
                    for row, inp in zip(rows, ins)
                )
            )
        result = _grad_postprocess(tuple(blocks), create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def _vectorized_jacobian(func: Callable[..., Any], inputs: _InputsT, create_graph: bool, strategy: str) -> Any:
    """``jacobian(..., vectorize=True)``: ``ctxgrad.func.jacrev`` (``jacfwd`` in forward mode)
    over all inputs, its blocks arranged as ``jacobian`` arranges them."""
    from ctxgrad.func import jacfwd, jacrev

    if strategy == "forward-mode" and create_graph:
        raise NotImplementedError(
            'ctxgrad.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
            'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
        )
    with enable_grad():
        is_inputs_tuple, ins = _tensors_tuple(inputs, "inputs", "jacobian")
        # with create_graph the blocks stay connected to the inputs; without, they start plain
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        args = ins if create_graph else tuple(i.detach() for i in ins)
        # (checked as the unvectorized path checks them: the transforms would refuse them in
        # their own words, naming vjp rather than jacobian)
        is_outputs_tuple, _ = _tensors_tuple(func(*args), "outputs of the user-provided function", "jacobian")
        transform = jacfwd if strategy == "forward-mode" else jacrev
        jac = transform(func, argnums=tuple(range(len(ins))))(*args)
        blocks = tuple(jac) if is_outputs_tuple else (jac,)
        result = _grad_postprocess(tuple(tuple(b) for b in blocks), create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


# --------------------------------------------------------------------------- second order
def hessian(
    func: Callable[..., Any],
    inputs: _InputsT,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: _Strategy = "reverse-mode",
) -> Any:
    """The Hessian of the scalar function ``func`` at ``inputs``.

    ``func`` must return a single one-element tensor.  For one input, a tensor of shape
    ``input.shape + input.shape``; for a tuple of inputs, ``H[i][j]`` is the block for inputs
    ``i`` and ``j``.  It is computed as the Jacobian (outer, by ``outer_jacobian_strategy``)
    of the gradient (inner, always reverse mode, with ``create_graph=True``), so every
    backward on the way must be differentiable: a ``once_differentiable`` backward raises a
    ``RuntimeError`` that names its Function.  ``vectorize=True`` computes it with
    :mod:`ctxgrad.func` instead (``jacrev`` inside, ``jacrev`` or ``jacfwd`` outside, batched
    under ``vmap``), and refuses ``strict=True`` as torch does.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.functional import hessian
    >>> def pow_adder_reducer(x, y):
    ...     return (2 * x.pow(2) + 3 * y.pow(2)).sum()
    >>> (hxx, hxy), (hyx, hyy) = hessian(pow_adder_reducer, (ctxgrad.ones(2), ctxgrad.ones(2)))
    >>> hxx
    tensor([[4., 0.],
            [0., 4.]])
    >>> hyx
    tensor([[0., 0.],
            [0., 0.]])
    """
    is_inputs_tuple, ins = _tensors_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise _StrategyError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if vectorize:
        return _vectorized_hessian(func, ins, is_inputs_tuple, create_graph, strict, outer_jacobian_strategy)

    def ensure_single_output_function(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _tensors_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        if is_out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp: Tensor) -> Any:
        if outer_jacobian_strategy == "forward-mode":
            # The inner jacobian keeps a differentiable graph (so the tangents flow through
            # the backward) only for inputs that require grad.
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    with _second_derivative():
        strategy = outer_jacobian_strategy
        res = jacobian(jac_func, ins, create_graph=create_graph, strict=strict, vectorize=vectorize, strategy=strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def _vectorized_hessian(
    func: Callable[..., Any],
    ins: tuple[Tensor, ...],
    is_inputs_tuple: bool,
    create_graph: bool,
    strict: bool,
    outer_jacobian_strategy: str,
) -> Any:
    from ctxgrad.func import jacfwd, jacrev

    if strict:
        raise RuntimeError(
            "ctxgrad.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
            "together. Please either set `strict=False` or `vectorize=False`."
        )

    def single(*inp: Tensor) -> Tensor:
        out = func(*inp)
        _tensors_tuple(out, "outputs of the user-provided function", "hessian")
        if isinstance(out, tuple) or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.nelement() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.reshape(())

    if outer_jacobian_strategy == "forward-mode" and create_graph:
        raise NotImplementedError(
            'ctxgrad.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
            'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
        )
    argnums = tuple(range(len(ins)))
    outer = jacfwd if outer_jacobian_strategy == "forward-mode" else jacrev
    with enable_grad(), _second_derivative():
        ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
        args = ins if create_graph else tuple(i.detach() for i in ins)
        hess = outer(jacrev(single, argnums), argnums)(*args)
        result = _grad_postprocess(tuple(tuple(row) for row in hess), create_graph)
    return _tuple_postprocess(result, (is_inputs_tuple, is_inputs_tuple))


def _scalar_function_prologue(
    name: str, func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool
) -> tuple[bool, tuple[Tensor, ...], tuple[Tensor, ...] | None, bool, tuple[Tensor, ...], tuple[Tensor | None, ...]]:
    """What ``vhp`` and ``hvp`` share: checked inputs and ``v``, the one-element output, and
    its gradient with a graph (``jac``).  Runs with grad enabled."""
    is_inputs_tuple, ins = _tensors_tuple(inputs, "inputs", name)
    ins = _grad_preprocess(ins, create_graph=create_graph, need_graph=True)
    vs: tuple[Tensor, ...] | None = None
    if v is not None:
        _, vs = _tensors_tuple(v, "v", name)
        vs = _grad_preprocess(vs, create_graph=create_graph, need_graph=False)
        _validate_v(vs, ins, is_inputs_tuple)
    else:
        _check_v_none(ins, about_input=True)
    is_outputs_tuple, outs = _tensors_tuple(func(*ins), "outputs of the user-provided function", name)
    _check_requires_grad(outs, "outputs", strict=strict)
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {name} should return a single Tensor")
    if outs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {name} should contain a single element")
    jac = _autograd_grad(outs, ins, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, ins, vs, is_outputs_tuple, outs, jac


def vhp(
    func: Callable[..., Any],
    inputs: _InputsT,
    v: _InputsT | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), vᵀ H)``: ``v`` times the Hessian of the scalar function ``func``.

    ``v`` has the shapes of ``inputs`` (omit it for a single one-element input), and so does
    the product.  Computed as the gradient of ``<∇func, v>``: two backward passes, the second
    through the first, so a ``once_differentiable`` backward raises a ``RuntimeError`` naming
    its Function.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.functional import vhp
    >>> vhp(lambda x: x.pow(3).sum(), ctxgrad.tensor([1.0, 2.0]), ctxgrad.ones(2))
    (tensor(9.), tensor([ 6., 12.]))
    """
    with enable_grad(), _second_derivative():
        is_inputs_tuple, ins, vs, is_outputs_tuple, outs, jac = _scalar_function_prologue(
            "vhp", func, inputs, v, create_graph, strict
        )
    with set_grad_enabled(True if create_graph else _state.modes.grad_enabled):
        grad_res = _autograd_grad(jac, ins, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, ins, strict, create_graph, "vhp")
    return (
        _tuple_postprocess(_grad_postprocess(outs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )


def hvp(
    func: Callable[..., Any],
    inputs: _InputsT,
    v: _InputsT | None = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """``(func(*inputs), H v)``: the Hessian of the scalar function ``func`` times ``v``.

    Shapes as in :func:`vhp`; for a twice continuously differentiable ``func`` the Hessian is
    symmetric and ``hvp`` equals ``vhp``, which is cheaper (one backward pass fewer).  ``hvp``
    applies the double-backward trick (see :func:`jvp`) to the gradient: three backward
    passes, each through the previous ones.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.functional import hvp
    >>> hvp(lambda x: x.pow(3).sum(), ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 0.0]))
    (tensor(9.), tensor([6., 0.]))
    """
    with enable_grad(), _second_derivative():
        is_inputs_tuple, ins, vs, is_outputs_tuple, outs, jac = _scalar_function_prologue(
            "hvp", func, inputs, v, create_graph, strict
        )
        grad_jac = tuple(zeros_like(inp, requires_grad=True) for inp in ins)
        double_back = _autograd_grad(jac, ins, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else _state.modes.grad_enabled):
        grad_res = _autograd_grad(double_back, grad_jac, vs, create_graph=create_graph)
        result = _fill_in_zeros(grad_res, ins, strict, create_graph, "hvp")
    return (
        _tuple_postprocess(_grad_postprocess(outs, create_graph), is_outputs_tuple),
        _tuple_postprocess(_grad_postprocess(result, create_graph), is_inputs_tuple),
    )
