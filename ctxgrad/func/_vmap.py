"""``vmap``: a function mapped over a dimension of its inputs (see :mod:`ctxgrad.func`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ctxgrad import _factories
from ctxgrad._made_functions import cat
from ctxgrad._tensor import Tensor
from ctxgrad.autograd._batched_tensor import BatchedTensor, VmapLevel, close_level, open_level
from ctxgrad.func._common import _RANDOMNESS, _name
from ctxgrad.func._pytree import TreeSpec, broadcast_prefix, tree_flatten, tree_unflatten


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
    _check_out_dims(name, out_dims)
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
    # "same" randomness is one draw for the whole batch: every chunk draws from the default
    # generator's state as it was before the first (torch restores its RNG state the same way).
    before = _factories._generator.bit_generator.state if randomness == "same" else None
    for start in range(0, size, chunk_size):
        stop = min(start + chunk_size, size)
        if before is not None:
            _factories._generator.bit_generator.state = before
        part = [leaf.narrow(d, start, stop - start) if d is not None else leaf for leaf, d in zip(leaves, dims)]
        chunks.append(_vmap_once(func, name, part, dims, spec, out_dims, stop - start, randomness, args, kwargs))
    out_leaves = [tree_flatten(c)[0] for c in chunks]
    out_spec = tree_flatten(chunks[0])[1]
    odims = _flat_out_dims(name, out_dims, chunks[0], out_spec)
    joined = [
        cat([c[i] for c in out_leaves], dim=od) if od is not None else out_leaves[0][i] for i, od in enumerate(odims)
    ]
    return tree_unflatten(joined, out_spec)


def _fmt_dims(in_dims: Any) -> str:
    return str(in_dims)


def _check_out_dims(name: str, out_dims: Any) -> None:
    """Torch's refusal of ``out_dims`` other than an int, None, or a tree of them (before
    the function runs)."""
    leaves = [out_dims] if isinstance(out_dims, int) else tree_flatten(out_dims)[0]
    if not all(d is None or isinstance(d, int) for d in leaves):
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python collection of "
            "ints representing where in the outputs the vmapped dimension should appear."
        )


def _flat_out_dims(name: str, out_dims: Any, out: Any, out_spec: TreeSpec) -> list[Any]:
    """One out_dim per output tensor; a function returning one tensor also takes a 1-tuple
    (torch's ``out_dims=(1,)`` for a single output), but not a list."""
    odims: list[Any] | None
    if isinstance(out, Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        odims = list(out_dims)
    else:
        odims = broadcast_prefix(out_dims, out_spec)
    if odims is None:
        raise ValueError(
            f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure "
            f"of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but outputs has structure "
            f"{out_spec}."
        )
    return odims


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
            BatchedTensor(leaf.movedim(d, 0) if d % leaf.dim() != 0 else leaf, lv.level, d % leaf.dim())
            if d is not None
            else leaf
            for leaf, d in zip(leaves, dims)
        ]
        out = func(*tree_unflatten(batched, spec), **kwargs)
        out_leaves, out_spec = tree_flatten(out)
        odims = _flat_out_dims(name, out_dims, out, out_spec)
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
