"""What a graph node offers beyond running in the engine: hooks, metadata, saved values by
torch's names (``grad_fn._saved_self``), and calling it by hand (``grad_fn(grad)``).

:class:`NodeAPI` is a base class of :class:`~ctxgrad.autograd.graph.Node`, so every node,
built-in or a user's ctx, has these; the node itself (graph.py) keeps only what the engine
needs.

Saved values by name: a ``Function`` may declare ``saved_fields``, a dict from torch's field
name (``"self"``, ``"other"``, ``"result"``, ``"self_sym_sizes"``, ...) to where the value is:

* an ``int`` ``k``: ``ctx.saved_tensors[k]`` (a Python number the op kept in
  ``ctx.scalars[k]`` instead comes back as a 0-d tensor, as torch wraps it);
* a ``str``: the ctx attribute of that name;
* ``("sizes", k)`` / ``("numel", k)``: the shape / number of elements of forward argument ``k``;
* a callable: ``f(ctx)``.

A Function whose subclasses record other torch node names (``Transpose`` of ``Permute``, each
with its own ``node_name``) may also declare
``saved_fields_of_node``, a dict from the node name to the fields of that node.

``grad_fn._saved_<name>`` gives the value; for a saved tensor, ``grad_fn._raw_saved_<name>``
gives the :class:`RawSavedTensor`, whose ``register_hooks(pack,
unpack)`` puts saved-tensor hooks on that one tensor.
"""

from __future__ import annotations

import functools
import math
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ctxgrad.autograd._edges import WIDTH, edge_count, edges_of
from ctxgrad.autograd.hooks import RemovableHandle, _NodeHooks

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor
    from ctxgrad.autograd.saved import SavedTensor

__all__ = ["NodeAPI", "RawSavedTensor", "saved_field_properties"]


class NodeAPI:
    """The user-facing methods of a graph node (a base class of ``Node``)."""

    if not TYPE_CHECKING:  # (the attributes it sets are Node's slots and class defaults)
        __slots__ = ()

    if TYPE_CHECKING:
        _hooks: _NodeHooks | None
        _metadata: dict[str, Any] | None
        _edges: tuple[Any, ...]

        def _run(self, grads: list[Tensor | None]) -> list[Tensor | None]: ...
        def name(self) -> str: ...

    @property
    def metadata(self) -> dict[str, Any]:
        """A dict for anything you want to keep on the node (anomaly mode adds ``traceback_``)."""
        md = self._metadata
        if md is None:
            md = self._metadata = {}
        return md

    def _node_hooks(self) -> _NodeHooks:
        h = self._hooks
        if h is None:
            h = self._hooks = _NodeHooks()
        return h

    def register_prehook(self, fn: Callable[[tuple[Tensor | None, ...]], Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before the node; returning a tuple replaces them."""
        return RemovableHandle(self._node_hooks().pre, fn)

    def register_hook(
        self, fn: Callable[[tuple[Tensor | None, ...], tuple[Tensor | None, ...]], Any]
    ) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after the node; returning a tuple replaces grad_inputs.

        ``grad_inputs`` has one entry per tensor argument, like ``next_functions``.
        """
        return RemovableHandle(self._node_hooks().post, fn)

    def _add_tensor_hook(self, output_nr: int, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        hooks = self._node_hooks().tensor_pre.setdefault(output_nr, [])
        return RemovableHandle(hooks, hook)

    def _add_retain_grad(self, output_nr: int, tensor: Tensor) -> None:
        self._node_hooks().retain[output_nr] = weakref.ref(tensor)

    # ------------------------------------------------------------------ calling a node by hand
    def __call__(self, *grads: Any, **kwargs: Any) -> Any:
        """Run this node's backward on one gradient per output, as the engine would.

        Returns the gradient for each tensor argument of the forward call (a single one
        unwrapped), computed in the current grad mode; nothing is accumulated anywhere except
        by an ``AccumulateGrad`` node, which adds its gradient into ``.grad`` and returns ``()``.
        """
        from ctxgrad._tensor import Tensor

        if kwargs:
            raise TypeError("keyword arguments are not supported")
        n = len(getattr(self, "_out_meta", ()))
        if len(grads) != n:
            raise TypeError(f"expected {n} arguments, got {len(grads)} instead")
        for i, g in enumerate(grads):
            if g is not None and not isinstance(g, Tensor):
                raise TypeError(f"argument {i} is not a Variable")
        if getattr(self, "skips_without_gradient", False) and all(g is None for g in grads):
            out: list[Tensor | None] = [None] * edge_count(self._edges)  # no gradient in, none out (as the engine)
        else:
            out = self._run(list(grads))
        if self.name() == "AccumulateGrad":
            return ()
        slots = [g for g, e in zip(out, edges_of(self)) if e is not None]
        return slots[0] if len(slots) == 1 else tuple(slots)

    # ------------------------------------------------------------------ saved values by name
    # ``_saved_<name>`` and ``_raw_saved_<name>`` are properties of each Function's node class,
    # made with it (:func:`saved_field_properties`): a missing attribute costs no Python call.


def saved_field_properties(forward_cls: type, node_name: str) -> dict[str, property]:
    """The ``_saved_<name>`` (and, for a saved tensor, ``_raw_saved_<name>``) properties of the
    node class named ``node_name`` that records calls of ``forward_cls``, from its
    ``saved_fields`` (or ``saved_fields_of_node[node_name]``)."""
    fields: dict[str, Any] = getattr(forward_cls, "saved_fields", None) or {}
    by_node: dict[str, dict[str, Any]] | None = getattr(forward_cls, "saved_fields_of_node", None)
    if by_node is not None:  # (one Function recorded under several node names: transpose is a permute)
        fields = by_node.get(node_name, fields)
    properties = {}
    for name, spec in fields.items():
        properties[f"_saved_{name}"] = property(functools.partial(_saved_value, spec=spec, raw=False))
        if isinstance(spec, int):
            properties[f"_raw_saved_{name}"] = property(functools.partial(_saved_value, spec=spec, raw=True))
    return properties


def _saved_value(node: Any, spec: Any, raw: bool) -> Any:
    """The value ``spec`` (an entry of ``saved_fields``) names on ``node``."""
    from ctxgrad._tensor import as_tensor

    if isinstance(spec, int):
        if raw:
            return RawSavedTensor(node, spec)
        saved = node.saved_tensors
        value = saved[spec] if spec < len(saved) else None
        scalars = getattr(node, "scalars", None)
        if value is None and scalars is not None and spec < len(scalars) and scalars[spec] is not None:
            return as_tensor(scalars[spec])
        return value
    if isinstance(spec, str):
        return getattr(node, spec)
    if isinstance(spec, tuple):
        kind, k = spec
        shape = tuple(node._edges[WIDTH * k + 2])
        return shape if kind == "sizes" else math.prod(shape)
    return spec(node)


class RawSavedTensor:
    """One tensor a node saved, as ``grad_fn._raw_saved_<name>`` gives it (torch's
    ``SavedTensor``): read it with ``data`` (or ``unpack()``), or give it a pair of
    saved-tensor hooks of its own with ``register_hooks(pack, unpack)``.

    ``pack`` runs at once on the saved tensor; ``unpack`` runs each time the node (or
    ``data``) reads it back, as with ``saved_tensors_hooks``.  After a backward freed the
    node's saved tensors, ``data`` is None, as in torch.
    """

    __slots__ = ("_index", "_node")

    def __init__(self, node: Any, index: int) -> None:
        self._node = node
        self._index = index

    def _saved(self) -> SavedTensor | None:
        saved: tuple[SavedTensor | None, ...] | None = self._node._saved
        if saved is None or self._index >= len(saved):
            return None
        return saved[self._index]

    def unpack(self) -> Tensor | None:
        """The saved tensor (checked for in-place changes, as backward reads it), None once freed."""
        s = self._saved()
        return None if s is None else s.unpack(self._node, self._index)

    @property
    def data(self) -> Tensor | None:
        """The saved tensor; see :meth:`unpack`."""
        return self.unpack()

    def register_hooks(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Any]) -> None:
        """Replace the saved tensor by ``pack_hook(tensor)``; backward gets ``unpack_hook(packed)``."""
        s = self._saved()
        if s is None:
            if self._node._saved is None:
                raise RuntimeError(
                    "Calling register_hooks on a saved tensor after it has been freed. Saved intermediate values "
                    "of the graph are freed when you call .backward() or autograd.grad(). Specify "
                    "retain_graph=True if you need to backward through the graph a second time or if you need "
                    "to access saved variables after calling backward."
                )
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is forbidden")
        if s._unpack is not None:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one "
                "pair of hooks is allowed at a time."
            )
        s._hook(s.unpack(self._node, self._index), self._node, pack_hook, unpack_hook)
