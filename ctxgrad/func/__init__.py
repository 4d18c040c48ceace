"""Function transforms, as ``torch.func``: ``vmap``, ``grad``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, ``functional_call`` and friends.

>>> import ctxgrad
>>> from ctxgrad.func import grad, vmap
>>> x = ctxgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> vmap(grad(lambda v: (v ** 3).sum()))(x)  # one gradient per row
tensor([[ 3., 12.],
        [27., 48.]])

How they work, in ctxgrad's terms:

* ``vmap`` wraps each mapped input in a :class:`~ctxgrad.autograd._batched.BatchedTensor`
  (all samples, batch in dimension 0, showing one sample's shape) and opens a *level*; every
  Function applied to it runs its batching rule (its ``vmap`` staticmethod), which usually
  applies the same Function once to the whole batch.
* ``grad``, ``vjp`` and ``jvp`` differentiate with ctxgrad's own autograd (reverse mode, and
  forward mode's dual tensors), on the tensors that hold the whole batch.  Inside ``vmap``,
  the inputs they differentiate are first given a batch dimension at every open level (a
  per-sample copy of an input shared by all samples), so each sample's derivative is its own.
* ``jacrev`` and ``jacfwd`` are ``vmap`` of ``vjp`` and ``jvp`` over the rows (columns) of an
  identity matrix: one batched call, not a loop.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from ctxgrad._factories import eye, ones_like, zeros_like
from ctxgrad._state import _state
from ctxgrad._tensor import Size, Tensor
from ctxgrad.autograd import forward_ad
from ctxgrad.autograd._batched import stack_samples
from ctxgrad.autograd._batched_tensor import BatchedTensor, VmapLevel, close_level, level_info, open_level
from ctxgrad.autograd._grad import differentiated_again
from ctxgrad.autograd._grad import grad as autograd_grad
from ctxgrad.autograd.grad_mode import enable_grad
from ctxgrad.func._pytree import TreeSpec, broadcast_prefix, tree_flatten, tree_unflatten
from ctxgrad.ops.shape import cat

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "stack_module_state",
    "vjp",
    "vmap",
]

_RANDOMNESS = ("error", "different", "same")


class _Depth(threading.local):
    grad: int = 0  # grad/vjp transforms running in this thread, outermost first


_depth = _Depth()


def _name(func: Any) -> str:
    return getattr(func, "__name__", type(func).__name__)


# ------------------------------------------------------------------------------ vmap
def vmap(
    func: Callable[..., Any],
    in_dims: Any = 0,
    out_dims: Any = 0,
    randomness: str = "error",
    *,
    chunk_size: int | None = None,
) -> Callable[..., Any]:
    """``func`` mapped over a dimension of its inputs: ``vmap(f)(x)`` is
    ``stack([f(x[0]), f(x[1]), ...])``, computed in one batched call of each op.

    ``in_dims`` gives the mapped dimension of each positional input (an int for all, or a
    tree of ints and None matching the inputs; None for an input shared by all samples),
    ``out_dims`` where the batch goes in the outputs; ``randomness`` says what random ops do
    inside (``"error"``: refuse; ``"different"``: each sample its own draw; ``"same"``: one draw
    for all); ``chunk_size`` runs the batch that many samples at a time.

    >>> import ctxgrad
    >>> from ctxgrad.func import vmap
    >>> vmap(ctxgrad.dot)(ctxgrad.ones(3, 2), ctxgrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    tensor([ 3.,  7., 11.])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _vmap_call(
    func: Callable[..., Any],
    in_dims: Any,
    out_dims: Any,
    randomness: str,
    chunk_size: int | None,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    name = _name(func)
    where = f"vmap({name}, in_dims={_fmt_dims(in_dims)}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(
            f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a (potentially "
            f"nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if not args:
        raise ValueError(
            f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap "
            "over a function with no inputs. The latter is unsupported."
        )
    leaves, spec = tree_flatten(args)
    dims = broadcast_prefix(in_dims, spec)
    if dims is None:
        _, dims_spec = tree_flatten(in_dims)
        raise ValueError(
            f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
            f"{dims_spec} but inputs has structure {spec}."
        )
    sizes = []
    for leaf, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"{where}: in_dims must be int or None for each input, got {type(d)}")
        if not isinstance(leaf, Tensor):
            raise ValueError(
                f"vmap({name}, in_dims={_fmt_dims(in_dims)}, ...)(<inputs>): Got in_dim={d} for an input but the "
                f"input is of type {type(leaf)}. We cannot vmap over non-Tensor arguments, please use None as the "
                "respective in_dim"
            )
        n = leaf.dim()
        if not -n <= d < n:
            raise ValueError(
                f"{where}: Got in_dim={d} for some input, but that input is a Tensor of dimensionality {n} so "
                f"expected in_dim to satisfy -{n} <= in_dim < {n}."
            )
        sizes.append(leaf.shape[d])
    if not sizes:
        raise ValueError(
            f"vmap({name}, in_dims={_fmt_dims(in_dims)}, ...)(<inputs>): at least one input must be a Tensor "
            "mapped over a dimension (an in_dim that is not None); got none."
        )
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            "vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
            f"{sizes} for the mapped dimension"
        )
    size = sizes[0]
    if chunk_size is None or chunk_size >= size:
        return _vmap_once(func, name, leaves, dims, spec, out_dims, size, randomness, args, kwargs)
    chunks = []
    for start in range(0, size, chunk_size):
        stop = min(start + chunk_size, size)
        part = [leaf.narrow(d, start, stop - start) if d is not None else leaf for leaf, d in zip(leaves, dims)]
        chunks.append(_vmap_once(func, name, part, dims, spec, out_dims, stop - start, randomness, args, kwargs))
    out_leaves = [tree_flatten(c)[0] for c in chunks]
    out_spec = tree_flatten(chunks[0])[1]
    odims = broadcast_prefix(out_dims, out_spec) or [out_dims] * out_spec.num_leaves
    joined = [
        cat([c[i] for c in out_leaves], dim=od) if od is not None else out_leaves[0][i] for i, od in enumerate(odims)
    ]
    return tree_unflatten(joined, out_spec)


def _fmt_dims(in_dims: Any) -> str:
    return str(in_dims)


def _vmap_once(
    func: Callable[..., Any],
    name: str,
    leaves: list[Any],
    dims: list[Any],
    spec: TreeSpec,
    out_dims: Any,
    size: int,
    randomness: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Any:
    lv = open_level(size, randomness)
    try:
        batched = [
            BatchedTensor(leaf.movedim(d, 0) if d % leaf.dim() != 0 else leaf, lv.level) if d is not None else leaf
            for leaf, d in zip(leaves, dims)
        ]
        out = func(*tree_unflatten(batched, spec), **kwargs)
        out_leaves, out_spec = tree_flatten(out)
        odims = broadcast_prefix(out_dims, out_spec)
        if odims is None:
            raise ValueError(
                f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure "
                f"of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has structure "
                f"{out_spec}."
            )
        result = [_unbatch(name, o, od, lv) for o, od in zip(out_leaves, odims)]
    finally:
        close_level(lv)
    return tree_unflatten(result, out_spec)


def _unbatch(name: str, o: Any, od: Any, lv: VmapLevel) -> Any:
    if od is None:
        if isinstance(o, BatchedTensor) and o.level == lv.level:
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        return o
    if not isinstance(o, Tensor):
        raise ValueError(
            f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)}. Did you mean to set "
            "out_dims= to None for output?"
        )
    if isinstance(o, BatchedTensor) and o.level == lv.level:
        value = o.value
        return value.movedim(0, od) if od not in (0, -value.dim()) else value
    # Not batched at this level (the same for every sample): every sample gets it.
    n = o.dim() + 1
    if not -n <= od < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {od})")
    e = o.unsqueeze(od)
    sizes = [-1] * n
    sizes[od] = lv.batch_size
    return e.expand(*sizes)


# ------------------------------------------------------------------------------ levels
def _unwrap_all(t: Tensor) -> tuple[Tensor, list[int]]:
    """The plain tensor under the batched wrappers of ``t`` and their levels, outermost
    vmap first (so the root holds one batch dimension per level, in that order)."""
    levels = []
    while isinstance(t, BatchedTensor):
        levels.append(t.level)
        t = t.value
    levels.reverse()
    return t, levels


def _to_levels(t: Tensor, levels: tuple[VmapLevel, ...]) -> Tensor:
    """The plain tensor that holds ``t`` batched at every one of ``levels`` (a batch
    dimension per level, outermost first): the dimensions ``t`` has no batch at are added,
    the same values for each sample."""
    root, have = _unwrap_all(t)
    for i, lv in enumerate(levels):
        if lv.level not in have:
            root = root.unsqueeze(i)
            sizes = [-1] * root.dim()
            sizes[i] = lv.batch_size
            root = root.expand(*sizes)
    return root


def _rewrap(root: Tensor, levels: tuple[VmapLevel, ...]) -> Tensor:
    t = root
    for lv in levels:
        t = BatchedTensor(t, lv.level)
    return t


def _as_input(root: Tensor) -> Tensor:
    """A tensor to differentiate by: a new node (so that only this transform's uses count)
    that requires grad, keeping any forward-mode tangent."""
    inp = root.view_as(root)
    if not inp.requires_grad:
        inp.requires_grad_()
    return inp


def _detached(tree: Any) -> Any:
    """The tensors of ``tree`` without their history (what a top-level transform returns)."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([x.detach() if isinstance(x, Tensor) else x for x in leaves], spec)


def _nested() -> bool:
    """Whether an outer transform will differentiate what this one computes."""
    return _depth.grad > 0 or bool(_state.fw_levels)


# ------------------------------------------------------------------------------ grad and vjp
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
    levels = _state.vmap_levels
    nested = _nested()
    with enable_grad():
        leaves, spec = tree_flatten(primals)
        _check_tensors(leaves)
        roots = [_to_levels(x, levels) for x in leaves]
        nested = nested or any(r.requires_grad for r in roots)
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
        return _vjp_apply(ct_leaves, root_outs, ins, levels, spec, nested)

    value = out if nested else tree_unflatten([o.detach() for o in out_leaves], out_spec)
    if has_aux:
        return value, vjp_fn, (aux if nested else _detached(aux))
    return value, vjp_fn


def _vjp_apply(
    cts: list[Any],
    root_outs: list[Tensor],
    ins: list[Tensor],
    levels: tuple[VmapLevel, ...],
    spec: TreeSpec,
    nested: bool,
) -> tuple[Any, ...]:
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
            rows.append(tree_flatten(_vjp_apply(sample, root_outs, ins, levels, spec, nested))[0])
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
    with enable_grad(), differentiated_again() if nested else contextlib.nullcontext():
        if pairs:
            grads = autograd_grad(
                [o for o, _ in pairs],
                ins,
                [c for _, c in pairs],
                retain_graph=True,
                create_graph=nested,
                allow_unused=True,
            )
        else:
            grads = (None,) * len(ins)
    gs = [_rewrap(zeros_like(i) if g is None else g, levels) for g, i in zip(grads, ins)]
    return tuple(tree_unflatten(gs, spec))


def _logical_shape(root: Tensor, levels: tuple[VmapLevel, ...]) -> Size:
    return Size(root.shape[len(levels) :])


# ------------------------------------------------------------------------------ jvp
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
    levels = _state.vmap_levels
    outer = _nested() or any(p.requires_grad or t.requires_grad for p, t in zip(p_leaves, t_leaves))
    with forward_ad.dual_level():
        duals = [
            forward_ad.make_dual(_to_levels(p, levels), _to_levels(t, levels).to(p.dtype))
            for p, t in zip(p_leaves, t_leaves)
        ]
        out = func(*tree_unflatten([_rewrap(d, levels) for d in duals], p_spec))
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
            if not outer:
                p, t = p.detach(), t.detach()
            primal_out.append(_rewrap(p, levels))
            tangent_out.append(_rewrap(t, levels))
    result = (tree_unflatten(primal_out, o_spec), tree_unflatten(tangent_out, o_spec))
    if has_aux:
        return (*result, aux if outer else _detached(aux))
    return result


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is the jvp at ``primals``.
    (ctxgrad runs ``func`` again for each call of ``jvp_fn``; torch traces it once.)"""
    out = func(*primals)

    def jvp_fn(*tangents: Any) -> Any:
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


# ------------------------------------------------------------------------------ Jacobians
def _basis(leaves: list[Tensor]) -> tuple[int, list[Tensor]]:
    """The rows of an identity matrix over all elements of ``leaves``, split per leaf and
    shaped like it: one batch of ``total`` unit vectors per leaf."""
    sizes = [leaf.numel() for leaf in leaves]
    total = sum(sizes)
    dtype = leaves[0].dtype
    ident = eye(total, dtype=dtype)
    out, start = [], 0
    for leaf, n in zip(leaves, sizes):
        out.append(ident[:, start : start + n].reshape(total, *leaf.shape))
        start += n
    return total, out


def jacrev(
    func: Callable[..., Any],
    argnums: int | tuple[int, ...] = 0,
    *,
    has_aux: bool = False,
    chunk_size: int | None = None,
    _preallocate_and_copy: bool = False,
) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to the inputs ``argnums`` by reverse mode: the
    vector-Jacobian products with every row of an identity matrix, batched by ``vmap``.

    >>> import ctxgrad
    >>> from ctxgrad.func import jacrev
    >>> jacrev(lambda x: x ** 2)(ctxgrad.tensor([1.0, 2.0]))
    tensor([[2., 0.],
            [0., 4.]])
    """

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        nums = _diff_args(args, argnums, "jacrev(f)(*args)")
        chosen = tuple(args[n] for n in nums)

        def f_of(*diff: Any) -> Any:
            return func(*_with_args(args, nums, diff))

        out, _, *rest = vjp(f_of, *chosen, has_aux=has_aux)
        out_leaves, out_spec = tree_flatten(out)
        in_leaves, in_spec = tree_flatten(chosen)
        _, basis = _basis(out_leaves)

        def row(*cts: Any) -> Any:
            def g(*diff: Any) -> Any:
                o = f_of(*diff)
                return o[0] if has_aux else o

            return vjp(g, *chosen)[1](tree_unflatten(list(cts), out_spec))

        rows = vmap(row, chunk_size=chunk_size)(*basis)
        row_leaves = tree_flatten(rows)[0]  # per input: (total, *input shape)
        per_out = []
        start = 0
        for o in out_leaves:
            n = o.numel()
            per_in = [r[start : start + n].reshape(*o.shape, *i.shape) for r, i in zip(row_leaves, in_leaves)]
            per_out.append(_shape_like(per_in, in_spec, argnums))
            start += n
        jac = tree_unflatten(per_out, out_spec)
        if has_aux:
            return jac, rest[0]
        return jac

    return wrapper


def _shape_like(per_in: list[Tensor], in_spec: TreeSpec, argnums: int | tuple[int, ...]) -> Any:
    tree = tree_unflatten(per_in, in_spec)
    return tree[0] if isinstance(argnums, int) else tuple(tree)


def jacfwd(
    func: Callable[..., Any],
    argnums: int | tuple[int, ...] = 0,
    has_aux: bool = False,
    *,
    randomness: str = "error",
) -> Callable[..., Any]:
    """The Jacobian of ``func`` with respect to the inputs ``argnums`` by forward mode: the
    Jacobian-vector products with every column of an identity matrix, batched by ``vmap``.

    >>> import ctxgrad
    >>> from ctxgrad.func import jacfwd
    >>> jacfwd(lambda x: x.sin())(ctxgrad.tensor([0.0, 0.0]))
    tensor([[1., 0.],
            [0., 1.]])
    """

    @functools.wraps(func)
    def wrapper(*args: Any) -> Any:
        nums = _diff_args(args, argnums, "jacfwd(f)(*args)")
        chosen = tuple(args[n] for n in nums)
        in_leaves, in_spec = tree_flatten(chosen)
        _check_tensors(in_leaves)
        _, basis = _basis(in_leaves)

        def f_of(*diff: Any) -> Any:
            return func(*_with_args(args, nums, diff))

        def column(*tangents: Any) -> Any:
            t = tree_unflatten(list(tangents), in_spec)
            if has_aux:
                o, dt, aux = jvp(f_of, chosen, tuple(t), has_aux=True)
                return dt, (o, aux)
            o, dt = jvp(f_of, chosen, tuple(t))
            return dt, o

        tangents_out, value = vmap(column, randomness=randomness)(*basis)
        t_leaves, out_spec = tree_flatten(tangents_out)
        per_out = []
        for t in t_leaves:  # (total, *output shape)
            out_shape = tuple(t.shape[1:])
            cols = []
            start = 0
            for i in in_leaves:
                n = i.numel()
                cols.append(t[start : start + n].movedim(0, -1).reshape(*out_shape, *i.shape))
                start += n
            per_out.append(_shape_like(cols, in_spec, argnums))
        jac = tree_unflatten(per_out, out_spec)
        if has_aux:
            aux = value[1]
            aux_leaves, aux_spec = tree_flatten(aux)
            return jac, tree_unflatten([a[0] if isinstance(a, Tensor) else a for a in aux_leaves], aux_spec)
        return jac

    return wrapper


def hessian(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0) -> Callable[..., Any]:
    """The Hessian of ``func`` (forward over reverse: ``jacfwd(jacrev(func))``).

    >>> import ctxgrad
    >>> from ctxgrad.func import hessian
    >>> hessian(lambda x: (x ** 3).sum())(ctxgrad.tensor([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(func, argnums), argnums)


# ------------------------------------------------------------------------------ modules
def functional_call(
    module: Any,
    parameter_and_buffer_dicts: Any,
    args: Any = None,
    kwargs: dict[str, Any] | None = None,
    *,
    tie_weights: bool = True,
    strict: bool = False,
) -> Any:
    """Call ``module`` with the parameters and buffers named in ``parameter_and_buffer_dicts``
    (a dict, or a sequence of dicts) in place of its own, for this call only.

    >>> import ctxgrad
    >>> from ctxgrad.func import functional_call
    >>> lin = ctxgrad.nn.Linear(2, 1)
    >>> functional_call(lin, {"weight": ctxgrad.ones(1, 2), "bias": ctxgrad.zeros(1)}, (ctxgrad.tensor([1.0, 2.0]),))
    tensor([3.])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        keys = [k for d in parameter_and_buffer_dicts for k in d]
        repeated = list(dict.fromkeys(k for k in keys if keys.count(k) > 1))
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError(
            f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
            f"{type(parameter_and_buffer_dicts)}"
        )
    own = dict(module.named_parameters(remove_duplicate=False))
    own.update(dict(module.named_buffers(remove_duplicate=False)))
    if strict:
        missing = [k for k in own if k not in merged]
        unexpected = [k for k in merged if k not in own]
        if missing or unexpected:
            lines = []
            if unexpected:
                lines.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                lines.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t" + "\n\t".join(lines))
    if tie_weights:
        by_id: dict[int, list[str]] = {}
        for k, v in own.items():
            if v is not None:
                by_id.setdefault(id(v), []).append(k)
        for names in by_id.values():
            given = [k for k in names if k in merged]
            if given:
                values = {id(merged[k]) for k in given}
                if len(values) > 1:
                    raise ValueError(
                        f"functional_call got multiple values for keys {given}, which are tied. Consider using "
                        "tie_weights=False"
                    )
                for k in names:
                    merged.setdefault(k, merged[given[0]])
    swapped: list[tuple[dict[str, Any], str, Any]] = []
    try:
        for name, value in merged.items():
            owner, _, attr = name.rpartition(".")
            sub = module.get_submodule(owner) if owner else module
            for registry in (sub._parameters, sub._buffers):
                if attr in registry:
                    swapped.append((registry, attr, registry[attr]))
                    registry[attr] = value
                    break
            else:
                if strict or attr not in sub.__dict__:
                    swapped.append((sub.__dict__, attr, sub.__dict__.get(attr, _MISSING)))
                sub.__dict__[attr] = value
        call_args = args if isinstance(args, tuple) else (() if args is None else (args,))
        return module(*call_args, **(kwargs or {}))
    finally:
        for registry, attr, old in reversed(swapped):
            if old is _MISSING:
                registry.pop(attr, None)
            else:
                registry[attr] = old


_MISSING = object()


def stack_module_state(models: Sequence[Any]) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """The parameters and buffers of same-shaped ``models``, stacked along a new first
    dimension: ``(params, buffers)``, for ``vmap(functional_call...)`` over an ensemble."""
    from ctxgrad.ops.shape import stack

    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not all(m.training == models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    names = [k for k, _ in models[0].named_parameters()]
    params = {}
    for k in names:
        ps = [dict(m.named_parameters())[k] for m in models]
        s = stack([p.detach() for p in ps])
        if all(p.requires_grad for p in ps):
            s.requires_grad_()
        params[k] = s
    buffers = {k: stack([dict(m.named_buffers())[k] for m in models]) for k, _ in models[0].named_buffers()}
    return params, buffers
