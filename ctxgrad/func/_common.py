"""What the transforms share: the levels a tensor is batched at, the transform depth, and
whether a result keeps its dependence on tensors from outside the transform."""

from __future__ import annotations

import contextlib
import threading
import weakref
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Size, Tensor, _wrap
from ctxgrad.autograd import forward_ad
from ctxgrad.autograd._batched_tensor import BatchedTensor, VmapLevel
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.autograd.graph import AccumulateGrad
from ctxgrad.func._pytree import tree_flatten, tree_unflatten

_RANDOMNESS = ("error", "different", "same")


class _Depth(threading.local):
    grad: int = 0  # grad/vjp transforms running in this thread, outermost first


_depth = _Depth()


def _name(func: Any) -> str:
    return getattr(func, "__name__", type(func).__name__)


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


def _own_root(t: Tensor, levels: tuple[VmapLevel, ...]) -> Tensor:
    """:func:`_to_levels`, in memory of its own where that had to give ``t`` batch
    dimensions: an expanded tensor's samples share their elements, so an in-place write into
    one sample (into a jvp's primal, under ``jacfwd``) would land in all of them."""
    root = _to_levels(t, levels)
    return root if root is _unwrap_all(t)[0] else root.clone()


def _write_back(t: Tensor, root: Tensor, levels: tuple[VmapLevel, ...]) -> None:
    """The primal ``t`` was changed in place through its copy ``root`` (:func:`_own_root`):
    ``t`` takes the new values, one sample's at each level it is not batched at (as in torch,
    where such a write changes the input itself)."""
    plain, have = _unwrap_all(t)
    index = tuple(slice(None) if lv.level in have else 0 for lv in levels)
    written = forward_ad.unpack_dual(root).primal
    one = written[index]
    keep = tuple(slice(None) if lv.level in have else None for lv in levels)
    if not np.array_equal(written._data, np.broadcast_to(one._data[keep], written.shape), equal_nan=True):
        raise RuntimeError(
            "vmap: jvp(f, primals, tangents): f changed a primal in place with values that differ per sample, but "
            "that primal is not batched (vmapped over) there: it has room for one sample's values. Please use "
            "out-of-place operators instead of in-place ones on that primal."
        )
    with no_grad():
        plain.copy_(one)


def _rewrap(root: Tensor, levels: tuple[VmapLevel, ...]) -> Tensor:
    t = root
    for lv in levels:
        t = BatchedTensor(t, lv.level)
    return t


def _as_input(root: Tensor) -> Tensor:
    """A tensor to differentiate by: a new node (so that only this transform's uses count)
    that requires grad, keeping any forward-mode tangent."""
    if root._inference or not (root.requires_grad or _state.modes.fw_levels):
        # No history and no tangent to keep: a leaf of its own over the same memory, so that
        # an in-place write into it or a view of it is refused as torch refuses it (a view of
        # ``root`` would be a view of a tensor that does not require grad, and allowed).
        inp = _wrap(root._data)._set_requires_grad()
    else:
        inp = root.view_as(root)
        if not inp.requires_grad:
            inp._set_requires_grad()
    if inp.is_leaf:
        _INPUT_DEPTH[id(inp)] = _state.modes.func_transforms
        weakref.finalize(inp, _INPUT_DEPTH.pop, id(inp), None)
    return inp


def _detached(tree: Any) -> Any:
    """The tensors of ``tree`` without their history (what a top-level transform returns)."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([x.detach() if isinstance(x, Tensor) else x for x in leaves], spec)


def _nested() -> bool:
    """Whether an outer transform will differentiate what this one computes."""
    return _depth.grad > 0 or bool(_state.modes.fw_levels)


def _tracked() -> bool:
    """Whether the code around this transform records for reverse mode: under ``no_grad``
    or ``inference_mode`` a transform's results are constants to everything outside it
    (an outer ``grad`` included), as in torch."""
    return _state.modes.grad_enabled and not _state.modes.inference


@contextlib.contextmanager
def _transform_running(transforming: bool = True) -> Iterator[None]:
    """The body of ``vjp``/``jvp`` (``transforming``: running the function they transform) or
    a ``vjp_fn``: out of inference mode (a transform differentiates even there, and its results
    are not inference tensors, as torch's), and marked as running, so that a tensor made in
    inference mode may be saved for its backward, and, while the function runs, that
    ``requires_grad_()`` and ``retain_grad()`` are refused in it (as torch.func refuses them)."""
    inference = _state.modes.inference
    _state.modes.inference = False
    _state.modes.func_transforms += 1
    _state.modes.transforming += transforming
    try:
        yield
    finally:
        _state.modes.transforming -= transforming
        _state.modes.func_transforms -= 1
        _state.modes.inference = inference


@contextlib.contextmanager
def _transforming() -> Iterator[None]:
    """``grad``'s own backward, which torch runs inside the transform: marked as
    :func:`_transform_running` marks the function's body."""
    _state.modes.transforming += 1
    try:
        yield
    finally:
        _state.modes.transforming -= 1


# The inputs a grad/vjp transform differentiates by (leaves of its own), with the depth of
# the transform that made them (1: outermost): for a transform at depth d, those made at
# depth d or deeper are constants to everything outside it.  (By id, each entry dropped when
# its tensor dies: a tensor's == is elementwise, so it cannot key a WeakKeyDictionary.)
_INPUT_DEPTH: dict[int, int] = {}


def _reaches_outside(tensors: Sequence[Any], private: Sequence[Tensor], depth: int) -> bool:
    """Whether the history of ``tensors`` reaches a tensor that requires grad outside the
    transform at ``depth`` whose inputs are ``private``: an input of an outer transform, or a
    tensor closed over by the function (a MAML meta-parameter), which outer differentiation
    must reach; the inputs of this transform and of the ones inside it are not."""
    own = {id(p) for p in private}

    def outside(leaf: Tensor) -> bool:
        return id(leaf) not in own and _INPUT_DEPTH.get(id(leaf), 0) < depth

    seen: set[int] = set()
    todo: list[Any] = []
    for t in tensors:
        if isinstance(t, Tensor) and t.requires_grad:
            if t.grad_fn is None:
                if outside(t):
                    return True
            else:
                todo.append(t.grad_fn)
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if outside(node.variable):
                return True
            continue
        todo.extend(n for n, _ in node.next_functions if n is not None)
    return False


def _outer_part(tree: Any, private: Sequence[Tensor], depth: int) -> Any:
    """The tensors of ``tree`` as outer code sees them: with their history where it reaches
    outside the transform (:func:`_reaches_outside`), detached where it reaches only the
    transform's own inputs (a constant to the code around it)."""
    leaves, spec = tree_flatten(tree)
    return tree_unflatten(
        [x.detach() if isinstance(x, Tensor) and not _reaches_outside([x], private, depth) else x for x in leaves],
        spec,
    )


def _logical_shape(root: Tensor, levels: tuple[VmapLevel, ...]) -> Size:
    return Size(root.shape[len(levels) :])
