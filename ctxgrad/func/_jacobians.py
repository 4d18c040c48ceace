"""``jacrev``, ``jacfwd`` and ``hessian``: Jacobians as ``vmap`` of ``vjp`` and ``jvp`` (see
:mod:`ctxgrad.func`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ctxgrad._factories import eye
from ctxgrad._tensor import Tensor
from ctxgrad.func._grad import _check_tensors, _diff_args, _with_args, jvp, vjp
from ctxgrad.func._pytree import TreeSpec, tree_flatten, tree_unflatten
from ctxgrad.func._vmap import vmap


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
