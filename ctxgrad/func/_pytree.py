"""Nested tuples, lists and dicts of tensors (torch's pytrees), flattened and rebuilt."""

from __future__ import annotations

from typing import Any

__all__ = ["TreeSpec", "tree_flatten", "tree_unflatten", "broadcast_prefix"]


class TreeSpec:
    """The structure of a pytree: a leaf, or a container (its type, keys and children)."""

    __slots__ = ("children", "keys", "kind", "type")

    def __init__(self, kind: str, type_: Any = None, keys: Any = None, children: tuple[TreeSpec, ...] = ()) -> None:
        self.kind = kind
        self.type = type_
        self.keys = keys
        self.children = children

    @property
    def num_leaves(self) -> int:
        return 1 if self.kind == "leaf" else sum(c.num_leaves for c in self.children)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, TreeSpec)
            and self.kind == other.kind
            and self.type == other.type
            and self.keys == other.keys
            and self.children == other.children
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.keys, self.children))

    def __repr__(self, indent: int = 0) -> str:
        # torch's layout: the first child on the line, the others each on a new line
        if self.kind == "leaf":
            return "*"
        context = list(self.keys) if self.keys is not None else None
        indent += 2
        children = [c.__repr__(indent) for c in self.children]
        inner = children[0] + ("," if len(children) > 1 else "") if children else ""
        inner += ",".join("\n" + " " * indent + c for c in children[1:])
        if self.kind == "seq" and hasattr(self.type, "_fields"):  # (torch's: the kind, then the class)
            return f"TreeSpec(namedtuple, {self.type}, [{inner}])"
        return f"TreeSpec({self.type.__name__}, {context}, [{inner}])"


_LEAF = TreeSpec("leaf")


def tree_flatten(tree: Any) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree`` (depth first) and its structure."""
    leaves: list[Any] = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(tree: Any, leaves: list[Any]) -> TreeSpec:
    if isinstance(tree, (tuple, list)):
        children = tuple(_flatten(x, leaves) for x in tree)
        return TreeSpec("seq", type(tree), None, children)
    if isinstance(tree, dict):
        keys = tuple(tree)
        return TreeSpec("dict", type(tree), keys, tuple(_flatten(tree[k], leaves) for k in keys))
    leaves.append(tree)
    return _LEAF


def tree_unflatten(leaves: list[Any], spec: TreeSpec) -> Any:
    """The tree of structure ``spec`` with ``leaves`` in its places."""
    it = iter(leaves)
    return _build(it, spec)


def _build(it: Any, spec: TreeSpec) -> Any:
    if spec.kind == "leaf":
        return next(it)
    children = [_build(it, c) for c in spec.children]
    if spec.kind == "dict":
        return spec.type(zip(spec.keys, children))
    if spec.type in (tuple, list):
        return spec.type(children)
    if hasattr(spec.type, "_fields"):  # a named tuple
        return spec.type(*children)
    return spec.type(children)


def broadcast_prefix(prefix: Any, spec: TreeSpec) -> list[Any] | None:
    """``prefix`` (a tree whose leaves stand for whole subtrees of ``spec``: vmap's
    ``in_dims``) as one value per leaf of ``spec``; None when the structures do not match."""
    out: list[Any] = []
    if not _broadcast(prefix, spec, out):
        return None
    return out


def _broadcast(prefix: Any, spec: TreeSpec, out: list[Any]) -> bool:
    if not isinstance(prefix, (tuple, list, dict)):
        out.extend([prefix] * spec.num_leaves)
        return True
    if spec.kind == "leaf":
        return False
    if isinstance(prefix, dict):
        if spec.kind != "dict" or set(prefix) != set(spec.keys):
            return False
        return all(_broadcast(prefix[k], c, out) for k, c in zip(spec.keys, spec.children))
    if spec.kind != "seq" or _seq_kind(type(prefix)) != _seq_kind(spec.type) or len(prefix) != len(spec.children):
        return False
    return all(_broadcast(p, c, out) for p, c in zip(prefix, spec.children))


def _seq_kind(type_: Any) -> str:
    """Which of torch's pytree nodes a sequence type is: a list, a tuple and a named tuple
    are three kinds (a prefix of one kind does not match a tree of another, as in torch)."""
    if issubclass(type_, list):
        return "list"
    return "namedtuple" if hasattr(type_, "_fields") else "tuple"
