"""``grad``, ``grad_and_value``, ``vjp``, ``jvp`` and ``linearize`` (see :mod:`ctxgrad.func`)."""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import Any

from ctxgrad._factories import ones_like, zeros_like
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor
from ctxgrad.autograd import forward_ad
from ctxgrad.autograd._batched import stack_samples
from ctxgrad.autograd._batched_tensor import BatchedTensor, VmapLevel, level_info
from ctxgrad.autograd._dual import FUNC_JVP_LEVELS
from ctxgrad.autograd._grad import differentiated_again
from ctxgrad.autograd._grad import grad as autograd_grad
from ctxgrad.autograd.grad_mode import enable_grad
from ctxgrad.autograd.hooks import disable_saved_tensors_hooks
from ctxgrad.func._common import (
    _as_input,
    _depth,
    _detached,
    _logical_shape,
    _outer_part,
    _own_root,
    _reaches_outside,
    _rewrap,
    _to_levels,
    _tracked,
    _transform_running,
    _transforming,
    _unwrap_all,
    _write_back,
)
from ctxgrad.func._pytree import TreeSpec, tree_flatten, tree_unflatten

# vjp (and so grad, jacrev, hessian) refuses saved-tensor hooks while it runs the function, as
# torch.func does: a hook would see the tensors that hold the whole batch of every open vmap
# level and the transform's own inputs, not what the function was given.
_NO_SAVED_HOOKS = (
    "torch.func.{grad, vjp, jacrev, hessian} don't yet support saved tensor hooks. Please open an issue with your "
    "use case."
)


def _diff_args(args: tuple[Any, ...], argnums: int | tuple[int, ...], who: str) -> tuple[Any, ...]:
    if isinstance(argnums, int):
        nums: tuple[int, ...] = (argnums,)
    elif isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums):
        nums = argnums
    else:
        raise RuntimeError(
            f"{who}: Expected argnums to be int or Tuple[int, ...], got: {type(argnums)}"
            if not isinstance(argnums, tuple)
            else f"{who}: argnums must be non-empty"
        )
    for a in nums:
        if not -len(args) <= a < len(args):
            raise RuntimeError(f"Got argnum={a}, but only {len(args)} positional inputs")
    positive = tuple(a % len(args) for a in nums)
    if len(set(positive)) != len(positive):  # one input twice would get one of its gradients
        raise RuntimeError(f"argnums elements must be unique, got {positive}")
    return nums


def _with_args(args: tuple[Any, ...], nums: tuple[int, ...], values: tuple[Any, ...]) -> list[Any]:
    """``args`` with the ones at positions ``nums`` replaced by ``values``."""
    new = list(args)
    for n, x in zip(nums, values):
        new[n] = x
    return new


def _check_tensors(leaves: list[Any]) -> None:
    for leaf in leaves:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
        if leaf.dtype.kind not in "fc":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")


def grad_and_value(
    func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False
) -> Callable[..., Any]:
    """``func``'s gradient with respect to the inputs ``argnums`` and its value:
    ``(gradient, value)``, or ``((gradient, (value, aux))`` with ``has_aux``."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        who = "grad_and_value(f)(*args)"
        nums = _diff_args(args, argnums, who)
        chosen = tuple(args[n] for n in nums)
        _check_tensors(tree_flatten(chosen)[0])

        def scalar_function(*diff: Any) -> Any:  # func, its output checked as grad's must be
            out = func(*_with_args(args, nums, diff), **kwargs)
            if has_aux and not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(f"{who}: output of function f should be a tuple: (output, aux) if has_aux is True")
            value = out[0] if has_aux else out
            if not isinstance(value, Tensor):
                raise RuntimeError(f"{who}: Expected f(*args) to return a Tensor, got {type(value)}")
            if value.dim() != 0:
                raise RuntimeError(
                    f"{who}: Expected f(*args) to return a scalar Tensor, got tensor with {value.dim()} dims. Maybe "
                    "you wanted to use the vjp or jacrev APIs instead?"
                )
            return out

        # the gradient of a scalar is its vector-Jacobian product with 1
        value, vjp_fn, *aux = vjp(scalar_function, *chosen, has_aux=has_aux)
        with _transforming():  # (a custom backward may not call requires_grad_ there either)
            grads = vjp_fn(ones_like(value))
        result = grads[0] if isinstance(argnums, int) else grads
        return (result, (value, aux[0])) if has_aux else (result, value)

    return wrapper


def grad(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable[..., Any]:
    """The gradient of ``func`` (which returns one number) with respect to the inputs
    ``argnums``; with ``has_aux``, ``func`` returns ``(value, aux)`` and so does ``grad``:
    ``(gradient, aux)``.

    >>> import ctxgrad
    >>> from ctxgrad.func import grad
    >>> grad(lambda x: (x ** 2).sum())(ctxgrad.tensor([1.0, 2.0]))
    tensor([2., 4.])
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, value = gv(*args, **kwargs)
        if has_aux:
            return g, value[1]
        return g

    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> Any:
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives the vector-Jacobian product
    for each primal (a tuple); with ``has_aux``, ``func`` returns ``(output, aux)`` and so
    ``vjp`` returns ``(output, vjp_fn, aux)``.

    >>> import ctxgrad
    >>> from ctxgrad.func import vjp
    >>> out, fn = vjp(ctxgrad.sin, ctxgrad.tensor([0.0, 1.0]))
    >>> fn(ctxgrad.ones(2))
    (tensor([1.0000, 0.5403]),)
    """
    levels = _state.modes.vmap_levels
    tracked = _tracked()
    forward_outside = bool(_state.modes.fw_levels)
    depth = _state.modes.func_transforms + 1
    with disable_saved_tensors_hooks(_NO_SAVED_HOOKS), _transform_running(), enable_grad():
        leaves, spec = tree_flatten(primals)
        _check_tensors(leaves)
        roots = [_to_levels(x, levels) for x in leaves]
        ins = [_as_input(r) for r in roots]
        _depth.grad += 1
        try:
            out = func(*tree_unflatten([_rewrap(i, levels) for i in ins], spec))
        finally:
            _depth.grad -= 1
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(
                    "vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux is True"
                )
            out, aux = out
        out_leaves, out_spec = tree_flatten(out)
        for o in out_leaves:
            if not isinstance(o, Tensor):
                raise RuntimeError(
                    f"vjp(f, *primals): Expected f(*primals) to return only tensors, got unsupported type {type(o)}"
                )
        root_outs = [_to_levels(o, levels) for o in out_leaves]
    # Outer code differentiates what this computes when it records (not under no_grad) and
    # the outputs reach a tensor that requires grad outside: an outer transform's input, or
    # one the function closed over; an outer jvp always does (forward mode ignores no_grad).
    nested = forward_outside or (tracked and _reaches_outside(root_outs, ins, depth))

    def vjp_fn(*cotangents: Any) -> tuple[Any, ...]:
        ct = cotangents[0] if len(cotangents) == 1 and out_spec.kind == "leaf" else cotangents
        if out_spec.kind != "leaf" and len(cotangents) == 1:
            ct = cotangents[0]
        ct_leaves, ct_spec = tree_flatten(ct)
        if ct_spec != out_spec:
            raise RuntimeError(
                f"Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
                f"function. cotangents: {ct_spec}, primal output: {out_spec}"
            )
        with _transform_running(transforming=False):
            return _vjp_apply(ct_leaves, root_outs, ins, levels, spec, nested, forward_outside or _tracked())

    if forward_outside:
        value = out
    elif nested:
        value = _outer_part(out, ins, depth)
    else:
        value = tree_unflatten([o.detach() for o in out_leaves], out_spec)
    if has_aux:
        return value, vjp_fn, (aux if forward_outside else _outer_part(aux, ins, depth) if tracked else _detached(aux))
    return value, vjp_fn


def _vjp_apply(
    cts: list[Any],
    root_outs: list[Tensor],
    ins: list[Tensor],
    levels: tuple[VmapLevel, ...],
    spec: TreeSpec,
    nested: bool,
    tracked: bool,
) -> tuple[Any, ...]:
    """The vector-Jacobian products of ``cts`` (``tracked``: the code calling ``vjp_fn``
    records, so a cotangent that requires grad, as one made inside an outer ``grad``, keeps
    its history in the result)."""
    known = {lv.level for lv in levels}
    new = [lvl for c in cts if isinstance(c, Tensor) for lvl in _unwrap_all(c)[1] if lvl not in known]
    if new:
        # Cotangents batched by a vmap opened after the vjp: one vjp per sample of it.

        top = max(new)
        lv = level_info(top)
        assert lv is not None
        rows = []
        for i in range(lv.batch_size):
            sample = [c.value[i] if isinstance(c, BatchedTensor) and c.level == top else c for c in cts]
            rows.append(tree_flatten(_vjp_apply(sample, root_outs, ins, levels, spec, nested, tracked))[0])
        cols = [BatchedTensor(stack_samples([r[k] for r in rows]), top) for k in range(len(rows[0]))]
        return tuple(tree_unflatten(cols, spec))
    root_cts = []
    for k, (c, o) in enumerate(zip(cts, root_outs)):
        if not isinstance(c, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(c)}")
        rc = _to_levels(c, levels)
        if rc.shape != o.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{k}] has a shape of {c.shape} and output[{k}] has a shape of "
                f"{_logical_shape(o, levels)}."
            )
        root_cts.append(rc)
    pairs = [(o, c) for o, c in zip(root_outs, root_cts) if o.requires_grad]
    through_cotangents = tracked and any(c.requires_grad for _, c in pairs)
    with enable_grad(), differentiated_again() if nested else contextlib.nullcontext():
        if pairs:
            grads = autograd_grad(
                [o for o, _ in pairs],
                ins,
                [c for _, c in pairs],
                retain_graph=True,
                create_graph=nested or through_cotangents,
                allow_unused=True,
            )
        else:
            grads = (None,) * len(ins)
    if (nested or through_cotangents) and not _state.modes.fw_levels:
        depth = _state.modes.func_transforms
        grads = tuple(g if g is None or _reaches_outside([g], ins, depth) else g.detach() for g in grads)
    gs = [_rewrap(zeros_like(i) if g is None else g, levels) for g, i in zip(grads, ins)]
    return tuple(tree_unflatten(gs, spec))


# ------------------------------------------------------------------------------ jvp
@contextlib.contextmanager
def _func_jvp_level() -> Iterator[None]:
    """Mark the dual level just opened as jvp's (see ``FUNC_JVP_LEVELS``)."""
    key = _state.modes.fw_levels[-1]
    FUNC_JVP_LEVELS.add(key)
    try:
        yield
    finally:
        FUNC_JVP_LEVELS.discard(key)


def jvp(
    func: Callable[..., Any],
    primals: Any,
    tangents: Any,
    *,
    strict: bool = False,
    has_aux: bool = False,
) -> Any:
    """``(func(*primals), jvp_out)``: the output and its directional derivative along
    ``tangents`` (forward mode); with ``has_aux``, also ``aux``.

    >>> import ctxgrad
    >>> from ctxgrad.func import jvp
    >>> jvp(ctxgrad.exp, (ctxgrad.tensor([0.0, 1.0]),), (ctxgrad.tensor([1.0, 2.0]),))[1]
    tensor([1.0000, 5.4366])
    """
    if not isinstance(primals, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    if not isinstance(tangents, tuple):
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected tangents to be a tuple. E.g. it should be valid to call f(*primals)."
        )
    p_leaves, p_spec = tree_flatten(primals)
    t_leaves, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(
            "jvp(f, primals, tangents): Expected primals and tangents to have the same python structure. For "
            f"example, if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
            f"{p_spec} and tangents with structure {t_spec}"
        )
    _check_tensors(p_leaves)
    for p, t in zip(p_leaves, t_leaves):
        if not isinstance(t, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(t)}")
        if p.shape != t.shape:
            raise RuntimeError(
                "jvp(f, primals, tangents): Expected primals and tangents to have the same shape, got "
                f"{p.shape} and {t.shape}"
            )
    levels = _state.modes.vmap_levels
    # What outer code differentiates keeps its history: an outer jvp's tangents always, and
    # reverse-mode history unless the code around records nothing (no_grad, inference_mode).
    forward_outside = bool(_state.modes.fw_levels)
    tracked = _tracked()
    depth = _state.modes.func_transforms + 1
    with _transform_running(), forward_ad.dual_level(), _func_jvp_level():
        roots = [_own_root(p, levels) for p in p_leaves]
        duals = [
            forward_ad.make_dual(r, _to_levels(t, levels).to(p.dtype)) for r, p, t in zip(roots, p_leaves, t_leaves)
        ]
        versions = [r._get_vc().value for r in roots]
        out = func(*tree_unflatten([_rewrap(d, levels) for d in duals], p_spec))
        for p, r, v in zip(p_leaves, roots, versions):
            if r._get_vc().value != v and r is not _to_levels(p, ()):
                _write_back(p, r, levels)
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(
                    "jvp(f, primals, tangents): output of function f should be a tuple: (output, aux) "
                    "if has_aux is True"
                )
            out, aux = out
        o_leaves, o_spec = tree_flatten(out)
        primal_out, tangent_out = [], []
        for o in o_leaves:
            if not isinstance(o, Tensor):
                raise RuntimeError(
                    "jvp(f, primals, tangents): Expected f(*primals) to return only tensors, got unsupported "
                    f"type {type(o)}"
                )
            root = _to_levels(o, levels)
            p, t = forward_ad.unpack_dual(root)
            t = zeros_like(p) if t is None else t
            if not forward_outside:
                p, t = (x if tracked and _reaches_outside([x], (), depth) else x.detach() for x in (p, t))
            primal_out.append(_rewrap(p, levels))
            tangent_out.append(_rewrap(t, levels))
    result = (tree_unflatten(primal_out, o_spec), tree_unflatten(tangent_out, o_spec))
    if has_aux:
        return (*result, aux if forward_outside else _outer_part(aux, (), depth) if tracked else _detached(aux))
    return result


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is the jvp at ``primals``.
    (ctxgrad runs ``func`` again for each call of ``jvp_fn``; torch traces it once.)"""
    out = func(*primals)

    def jvp_fn(*tangents: Any) -> Any:
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn
