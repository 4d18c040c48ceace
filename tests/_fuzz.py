"""Property-based fuzzing of ctxgrad against torch: graph strategies and their interpreter.

Two generators live here, with what each needs to run:

* :func:`graphs` draws a small random expression DAG (3-12 op nodes) over the built-in ops:
  pointwise functions on safe domains, broadcasting arithmetic, reductions, ``@``, shape
  ops and indexing, ``cat``/``stack``, ``where``, ``clamp``, ``softmax``, ``maximum``...,
  and in-place ops on views (``INPLACE_OPS``: through a view of a clone, or on the clone
  after a view of it was taken, among them views that read an element more than once:
  ``expand``, ``expand_as``, ``broadcast_to``, ``unfold`` and ``as_strided`` with overlapping
  windows).  Leaves get random shapes, dtypes (``dtypes``: float32 and
  float64 mixed in one graph, with ``REAL_DTYPES`` also int64 and bool leaves, with
  ``COMPLEX_DTYPES`` complex ones, over ``COMPLEX_OPS``), ``requires_grad`` flags (never for
  integer and bool leaves) and, with ``special=True``, special values (NaN, ±inf, ±0) among
  their elements; a node may use an earlier node twice or feed several later
  nodes (shared subexpressions); every node nobody uses is an output of the graph.
  :func:`run_graph` evaluates one graph with either library (``ctxgrad`` or ``torch``,
  passed as a module), so the code under test is the same on both sides, and
  :func:`kink_margin` says how far a run stayed from the points where an op is not
  smooth (ties of ``maximum``/``amax``, ``relu`` at 0, the bounds of ``clamp``, ...).
* :func:`function_specs` draws a custom ``Function`` assembled from pieces with known
  derivatives (``sin``, ``exp``, ``tanh``, ...) and a multiplication by a second input;
  :func:`make_function` turns a spec into a ``ctxgrad.autograd.Function`` subclass whose
  backward is the chain rule written from the pieces' derivatives, saving inputs,
  outputs or intermediates as the spec says.

The Hypothesis profiles ``ci`` (few examples; the default for these tests) and ``long``
(10,000 examples, no deadline) are registered by :func:`register_profiles`, which
``conftest.py`` calls before pytest reads ``--hypothesis-profile``.  :func:`fuzz_settings`
picks the profile for the fuzz tests: ``--hypothesis-profile=NAME``, else the environment
variable ``CTXGRAD_FUZZ=NAME``, else ``ci``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

# --------------------------------------------------------------------------- profiles
FUZZ_ENV_VAR = "CTXGRAD_FUZZ"


def register_profiles() -> None:
    """Register the ``ci`` and ``long`` Hypothesis profiles, once."""
    try:
        settings.get_profile("long")
        return
    except InvalidArgument:
        pass
    quiet = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]
    settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=quiet)
    settings.register_profile("long", max_examples=10_000, deadline=None, suppress_health_check=quiet, print_blob=True)


def fuzz_settings() -> settings:
    """The settings for the fuzz tests: the profile loaded with ``--hypothesis-profile``
    if it is one of ours, else the one named by ``CTXGRAD_FUZZ``, else ``ci``.  Only the
    fuzz tests use it: the global default profile is left alone."""
    register_profiles()
    current = settings.get_current_profile_name()
    name = current if current in ("ci", "long") else os.environ.get(FUZZ_ENV_VAR, "ci")
    return settings(parent=settings.get_profile(name))


# --------------------------------------------------------------------------- graphs
Shape = tuple[int, ...]
MAX_NDIM = 4
MAX_NUMEL = 128


@dataclass(frozen=True)
class Leaf:
    """An input of a graph: its shape, dtype name (``float32``, ``float64``, ``complex64``,
    ``complex128``, ``int64`` or ``bool``), whether it requires grad, and whether some of its
    elements are special values (NaN, ±inf, ±0)."""

    shape: Shape
    dtype: str
    requires_grad: bool
    special: bool = False


@dataclass(frozen=True)
class Node:
    """One op of a graph: ``op`` applied to earlier values ``args`` (indices into the list
    of leaves followed by nodes) with the op's non-tensor ``params``."""

    op: str
    args: tuple[int, ...]
    params: tuple[Any, ...]
    shape: Shape


@dataclass(frozen=True)
class Graph:
    """A DAG: its values (leaves and op nodes, each node after its arguments, which are
    indices into ``values``), the indices of its outputs, and the seed of its leaf values
    and loss weights."""

    values: tuple[Leaf | Node, ...]
    outputs: tuple[int, ...]
    seed: int

    @property
    def leaves(self) -> tuple[Leaf, ...]:
        return tuple(v for v in self.values if isinstance(v, Leaf))

    @property
    def nodes(self) -> tuple[Node, ...]:
        return tuple(v for v in self.values if isinstance(v, Node))

    def __repr__(self) -> str:
        lines = [f"Graph(seed={self.seed}, outputs={self.outputs})"]
        for i, v in enumerate(self.values):
            if isinstance(v, Leaf):
                special = " special" if v.special else ""
                lines.append(f"  v{i} = leaf{v.shape} {v.dtype} requires_grad={v.requires_grad}{special}")
            else:
                args = ", ".join(f"v{a}" for a in v.args)
                lines.append(f"  v{i} = {v.op}({args}; params={v.params}) -> {v.shape}")
        return "\n".join(lines)


UNARY_OPS = (
    "neg", "exp", "tanh", "sin", "cos", "sigmoid", "square", "atan", "expm1", "erf",
    "relu", "abs", "softplus", "silu", "gelu", "elu", "leaky_relu",
    "log_pos", "sqrt_pos", "rsqrt_pos", "reciprocal_pos", "pow_pos", "log1p_pos", "asin_tanh",
    "affine", "rsub", "rdiv_pos", "clamp", "to_float32", "to_float64", "clone",
    "softmax", "log_softmax", "cumsum", "flip", "sort", "sort_descending",
)  # fmt: skip
BINARY_OPS = ("add", "sub", "mul", "div_pos", "maximum", "minimum", "atan2_pos", "pow_tensor")
REDUCTIONS = ("sum", "mean", "amax", "amin", "prod", "logsumexp", "norm", "max_dim", "var")
SHAPE_OPS = ("reshape", "transpose", "permute", "unsqueeze", "squeeze", "expand", "select", "slice", "take_rows")
MULTI_OPS = ("matmul", "cat", "stack", "where")
#: In-place ops on views: ``out = x.clone()``, then an in-place op on a view of ``out``
#: (``out`` is the node's value), or on ``out`` itself after a view was taken (the view is;
#: then the view may be one that reads some elements of ``out`` more than once).
INPLACE_OPS = ("inplace_on_view", "view_of_inplace")
#: The kinds of view that read some elements of their base more than once (:func:`_overlapping_kinds`).
OVERLAPPING_VIEWS = ("expand", "expand_as", "broadcast_to", "unfold", "as_strided")
#: An operand changed in place after a binary op used it (``t = x * 1.0; out = t * y;
#: t.add_(0.5)``), often with the other operand a leaf that does not require grad: backward
#: works where the op did not save ``t`` (no needed gradient reads it, as torch decides) and
#: raises torch's version error where it did.  Params ``(binop, side, kind)``; the binop is
#: one of :data:`SAVED_OPERAND_BINOPS`.
SAVED_OPERAND_OPS = ("mutate_after_use",)
SAVED_OPERAND_BINOPS = ("mul", "div", "add", "sub", "atan2", "maximum", "matmul", "addcmul")
ALL_OPS = UNARY_OPS + BINARY_OPS + REDUCTIONS + SHAPE_OPS + MULTI_OPS + INPLACE_OPS + SAVED_OPERAND_OPS
#: The ops a graph of complex leaves draws: those torch takes complex inputs for, without the
#: poles of ``tanh``/``sigmoid`` near the leaves (the branch cuts of ``log``, ``sqrt`` and
#: ``pow`` are kept at a distance by :func:`kink_margin`).
COMPLEX_OPS = (
    "neg", "exp", "sin", "cos", "square", "expm1", "abs", "log_pos", "sqrt_pos", "reciprocal_pos",
    "pow_pos", "affine", "rsub", "rdiv_pos", "clone", "cumsum", "flip",
    "add", "sub", "mul", "div_pos", "pow_tensor", "sum", "mean", "prod", "norm", "var",
    *SHAPE_OPS, "matmul", "cat", "stack", "where", *INPLACE_OPS,
)  # fmt: skip
#: The leaf dtypes of the default graphs: integer and bool leaves (never requiring grad) mix
#: with floating ones, and an op torch refuses for them must fail on ctxgrad too.
REAL_DTYPES = ("float32", "float64", "float32", "float64", "int64", "bool")
COMPLEX_DTYPES = ("complex128", "complex64", "complex128", "float64")


def _numel(shape: Shape) -> int:
    return math.prod(shape)


@dataclass
class _Builder:
    """The graph being drawn: its values so far and their shapes."""

    draw: Callable[[st.SearchStrategy[Any]], Any]
    values: list[Leaf | Node] = field(default_factory=list)
    dtypes: Sequence[str] = ("float32", "float64")
    special: bool = False

    @property
    def shapes(self) -> list[Shape]:
        return [v.shape for v in self.values]

    def node_count(self) -> int:
        return sum(isinstance(v, Node) for v in self.values)

    def leaf(self, shape: Shape, frozen: bool = False) -> int:
        """A new leaf of ``shape``; ``frozen``: one that does not require grad."""
        dtype = self.draw(st.sampled_from(tuple(self.dtypes)))
        requires_grad = (
            not frozen and self.draw(st.sampled_from((True, True, False))) and dtype not in ("int64", "bool")
        )
        special = bool(self.draw(st.booleans())) if self.special else False
        self.values.append(Leaf(shape, dtype, requires_grad, special))
        return len(self.values) - 1

    def pick(self, ok: Callable[[Shape], bool] = lambda s: True) -> int | None:
        """An existing value whose shape is ``ok``, the latest one more likely, or None."""
        candidates = [i for i, s in enumerate(self.shapes) if ok(s)]
        if not candidates:
            return None
        if self.draw(st.booleans()):
            return int(candidates[-1])
        return int(self.draw(st.sampled_from(candidates)))

    def partner(
        self, shape: Shape, ok: Callable[[Shape], bool], make: Callable[[], Shape], frozen: bool = False
    ) -> int:
        """An existing value with an ``ok`` shape (maybe), else a new leaf shaped ``make()``
        (``frozen``: not requiring grad)."""
        if self.draw(st.booleans()):
            found = self.pick(ok)
            if found is not None:
                return found
        return self.leaf(make(), frozen)

    def add(self, op: str, args: Sequence[int], params: tuple[Any, ...], shape: Shape) -> int:
        self.values.append(Node(op, tuple(args), params, shape))
        return len(self.values) - 1


def _shapes(draw: Any, min_ndim: int = 0, max_ndim: int = 3) -> Shape:
    return tuple(draw(st.lists(st.integers(1, 4), min_size=min_ndim, max_size=max_ndim)))


def _broadcastable_to(draw: Any, shape: Shape) -> Shape:
    """A shape that broadcasts with ``shape``: trailing dims kept or set to 1, maybe fewer
    dims, maybe one extra leading dim."""
    keep = draw(st.integers(0, len(shape)))
    dims = [d if draw(st.booleans()) else 1 for d in shape[len(shape) - keep :]]
    if keep == len(shape) < MAX_NDIM and draw(st.integers(0, 4)) == 0:
        dims = [draw(st.integers(1, 3)), *dims]
    return tuple(dims)


def _broadcasts(a: Shape, b: Shape) -> bool:
    try:
        out = np.broadcast_shapes(a, b)
    except ValueError:
        return False
    return len(out) <= MAX_NDIM and _numel(out) <= MAX_NUMEL


def _dim(draw: Any, ndim: int) -> int:
    """A dimension index, sometimes negative."""
    d = int(draw(st.integers(0, ndim - 1)))
    return d - ndim if draw(st.booleans()) else d


def _add_op(b: _Builder, op: str) -> int | None:
    """Append one ``op`` node (with new leaves if it needs partners); None if ``op`` does
    not apply to the values drawn."""
    draw = b.draw
    x = b.pick()
    assert x is not None
    shape = b.shapes[x]
    ndim = len(shape)
    if op in UNARY_OPS:
        params: tuple[Any, ...] = ()
        if op in ("softmax", "log_softmax", "cumsum", "sort", "sort_descending"):
            if ndim == 0:
                return None
            params = (_dim(draw, ndim),)
        elif op == "flip":
            if ndim == 0:
                return None
            params = (tuple(sorted(set(draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim))))),)
        elif op == "pow_pos":
            params = (draw(st.sampled_from((0.5, 1.5, 2.0, 3.0, -1.0, -0.5))),)
        elif op in ("affine", "rsub", "rdiv_pos", "elu", "leaky_relu"):
            params = (draw(st.sampled_from((0.5, 2.0, -1.5, 0.1))),)
        elif op == "clamp":
            lo = draw(st.sampled_from((None, -1.0, -0.5, 0.0)))
            hi = draw(st.sampled_from((None, 0.5, 1.0))) if lo is not None else draw(st.sampled_from((0.5, 1.0)))
            params = (lo, hi)
        return b.add(op, [x], params, shape)
    if op in BINARY_OPS:
        y = b.partner(shape, lambda s: _broadcasts(shape, s), lambda: _broadcastable_to(draw, shape))
        if not _broadcasts(shape, b.shapes[y]):
            return None
        args = [x, y] if draw(st.booleans()) else [y, x]
        return b.add(op, args, (), tuple(np.broadcast_shapes(shape, b.shapes[y])))
    if op in REDUCTIONS:
        if op == "max_dim" or op == "var" or draw(st.booleans()):
            if ndim == 0:
                return None
            dim = _dim(draw, ndim)
            keepdim = bool(draw(st.booleans()))
            out = list(shape)
            if keepdim:
                out[dim] = 1
            else:
                del out[dim]
            if op == "var" and shape[dim] < 2:
                return None
            return b.add(op, [x], (dim, keepdim), tuple(out))
        if op in ("var", "max_dim"):
            return None
        return b.add(op, [x], (None, False), ())
    if op == "reshape":
        n = _numel(shape)
        divisors = [k for k in range(1, n + 1) if n % k == 0]
        k = draw(st.sampled_from(divisors))
        target = draw(st.sampled_from([(n,), (k, n // k), (n // k, k, 1), (-1, k)]))
        out = tuple(n // k if t == -1 else t for t in target)
        return b.add(op, [x], (target,), out)
    if op == "transpose":
        if ndim < 2:
            return None
        d0, d1 = _dim(draw, ndim), _dim(draw, ndim)
        out = list(shape)
        out[d0], out[d1] = out[d1], out[d0]
        return b.add(op, [x], (d0, d1), tuple(out))
    if op == "permute":
        if ndim == 0:
            return None
        perm = tuple(draw(st.permutations(range(ndim))))
        return b.add(op, [x], (perm,), tuple(shape[p] for p in perm))
    if op == "unsqueeze":
        if ndim >= MAX_NDIM:
            return None
        d = int(draw(st.integers(-(ndim + 1), ndim)))
        out = list(shape)
        out.insert(d if d >= 0 else d + ndim + 1, 1)
        return b.add(op, [x], (d,), tuple(out))
    if op == "squeeze":
        ones = [i for i, s in enumerate(shape) if s == 1]
        if not ones:
            return None
        d = int(draw(st.sampled_from(ones)))
        return b.add(op, [x], (d,), shape[:d] + shape[d + 1 :])
    if op == "expand":
        target = tuple(s if s != 1 else draw(st.integers(1, 3)) for s in shape)
        if len(target) < MAX_NDIM and draw(st.booleans()):
            target = (2, *target)
        if _numel(target) > MAX_NUMEL:
            return None
        return b.add(op, [x], (target,), target)
    if op == "select":
        if ndim == 0:
            return None
        d = int(draw(st.integers(0, ndim - 1)))
        i = int(draw(st.integers(-shape[d], shape[d] - 1)))
        return b.add(op, [x], (d, i), shape[:d] + shape[d + 1 :])
    if op == "slice":
        if ndim == 0:
            return None
        d = int(draw(st.integers(0, ndim - 1)))
        start = int(draw(st.integers(0, shape[d] - 1)))
        step = int(draw(st.integers(1, 2)))
        length = len(range(start, shape[d], step))
        return b.add(op, [x], (d, start, step), shape[:d] + (length,) + shape[d + 1 :])
    if op == "take_rows":
        if ndim == 0:
            return None
        rows = tuple(draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=1, max_size=5)))
        if _numel((len(rows), *shape[1:])) > MAX_NUMEL:
            return None
        return b.add(op, [x], (rows,), (len(rows), *shape[1:]))
    if op == "mutate_after_use":
        binop = draw(st.sampled_from(SAVED_OPERAND_BINOPS))
        params = (binop, draw(st.sampled_from(("left", "right"))), draw(st.sampled_from(("add_", "mul_"))))
        frozen = bool(draw(st.booleans()))  # the other operand a leaf that does not require grad, often
        if binop == "matmul":
            # (matrices and vectors only: with a batch, torch's matmul may save a copy of an
            # operand it folded or broadcast, so changing that operand later is harmless there;
            # ctxgrad raises: test_fuzz_vs_torch.test_batched_matmul_operand_changed_after_use)
            if ndim == 0 or ndim > 2:
                return None
            other = _matmul_partner_shape(draw, shape)[-2:]
            y = b.partner(shape, lambda s: s == other, lambda: other, frozen)
            out = tuple(np.matmul(np.zeros(shape), np.zeros(b.shapes[y])).shape)
        else:
            y = b.partner(shape, lambda s: _broadcasts(shape, s), lambda: _broadcastable_to(draw, shape), frozen)
            if not _broadcasts(shape, b.shapes[y]):
                return None
            out = tuple(np.broadcast_shapes(shape, b.shapes[y]))
        if _numel(out) > MAX_NUMEL:
            return None
        return b.add(op, [x, y], params, out)
    if op == "matmul":
        if ndim == 0:
            return None
        k = shape[-1]
        m = int(draw(st.integers(1, 4)))
        if ndim == 1:
            other: Shape = draw(st.sampled_from([(k,), (k, m), (2, k, m)]))
        else:
            other = draw(st.sampled_from([(k,), (k, m), (*shape[:-2], k, m)]))
        y = b.partner(shape, lambda s: s == other, lambda: other)
        ya = b.shapes[y]
        out = tuple(np.matmul(np.zeros(shape), np.zeros(ya)).shape)
        if _numel(out) > MAX_NUMEL:
            return None
        return b.add(op, [x, y], (), out)
    if op == "cat":
        if ndim == 0:
            return None
        d = _dim(draw, ndim)
        size = int(draw(st.integers(1, 3)))

        def same_but_dim(s: Shape) -> bool:
            return len(s) == ndim and all(a == c for i, (a, c) in enumerate(zip(s, shape)) if i != d % ndim)

        y = b.partner(shape, same_but_dim, lambda: shape[: d % ndim] + (size,) + shape[d % ndim + 1 :])
        out = list(shape)
        out[d] += b.shapes[y][d]
        if _numel(tuple(out)) > MAX_NUMEL:
            return None
        args = [x, y] if draw(st.booleans()) else [y, x, y]
        if len(args) == 3:
            out[d] += b.shapes[y][d]
        return b.add(op, args, (d,), tuple(out))
    if op == "stack":
        if ndim >= MAX_NDIM or 2 * _numel(shape) > MAX_NUMEL:
            return None
        d = int(draw(st.integers(-(ndim + 1), ndim)))
        y = b.partner(shape, lambda s: s == shape, lambda: shape)
        out = list(shape)
        out.insert(d if d >= 0 else d + ndim + 1, 2)
        return b.add(op, [x, y], (d,), tuple(out))
    if op in INPLACE_OPS:
        # (torch writes into an overlapping view element by element, in an order of its own:
        # only the view of a changed base reads through one)
        view = _view_kind(draw, shape, overlapping=op == "view_of_inplace")
        if view is None:
            return None
        vshape = view_shape(shape, view)
        kind = draw(st.sampled_from(("mul_", "add_", "sub_", "div_", "copy_", "zero_", "neg_", "mul_scalar")))
        args = [x]
        if kind in ("mul_", "add_", "sub_", "div_", "copy_"):
            target = vshape if op == "inplace_on_view" else shape
            y = b.partner(
                target,
                lambda s: _broadcasts_into(s, target),
                lambda: _broadcastable_to(draw, target)[-len(target) :] if target else (),
            )
            if not _broadcasts_into(b.shapes[y], target):
                return None
            args.append(y)
        return b.add(op, args, (view, kind), shape if op == "inplace_on_view" else vshape)
    if op == "where":
        c = b.partner(shape, lambda s: _broadcasts(shape, s), lambda: _broadcastable_to(draw, shape))
        y = b.partner(shape, lambda s: _broadcasts(shape, s), lambda: _broadcastable_to(draw, shape))
        try:
            out = tuple(np.broadcast_shapes(shape, b.shapes[c], b.shapes[y]))
        except ValueError:
            return None
        if len(out) > MAX_NDIM or _numel(out) > MAX_NUMEL:
            return None
        args = [c, x, y] if draw(st.booleans()) else [c, y, x]
        return b.add(op, args, (), out)
    raise AssertionError(f"unknown op {op}")


def _matmul_partner_shape(draw: Any, shape: Shape) -> Shape:
    """The shape of a right operand of ``@`` for a left one of ``shape`` (at least 1-D)."""
    k = shape[-1]
    m = int(draw(st.integers(1, 4)))
    if len(shape) == 1:
        return tuple(draw(st.sampled_from([(k,), (k, m), (2, k, m)])))
    return tuple(draw(st.sampled_from([(k,), (k, m), (*shape[:-2], k, m)])))


def _view_kind(draw: Any, shape: Shape, overlapping: bool = False) -> tuple[Any, ...] | None:
    """A view to take of a value of ``shape``: a row, a slice with a step, a transpose or the
    whole tensor (``view_as``); with ``overlapping``, also one that reads elements more than
    once (:func:`_overlapping_kinds`)."""
    kinds: list[tuple[Any, ...]] = [("whole",)]
    if len(shape) >= 1:
        start = int(draw(st.integers(0, 1))) if shape[0] > 1 else 0  # (never an empty slice)
        kinds += [("row", int(draw(st.integers(-shape[0], shape[0] - 1)))), ("step", start)]
    if len(shape) >= 2:
        kinds.append(("transpose",))
    if overlapping:
        kinds += _overlapping_kinds(draw, shape)
    return tuple(draw(st.sampled_from(kinds)))


def _overlapping_kinds(draw: Any, shape: Shape) -> list[tuple[Any, ...]]:
    """Views of a value of ``shape`` that read some of its elements more than once: a new
    leading dimension of 2 or 3 (``expand``, ``expand_as``, ``broadcast_to``), windows along a
    dimension that overlap (``unfold`` with a step below the size), and rows of ``width``
    consecutive elements ``step`` apart from ``offset`` (``as_strided`` of the flat elements)."""
    kinds: list[tuple[Any, ...]] = []
    n = _numel(shape)
    copies = int(draw(st.integers(2, 3)))
    if len(shape) < MAX_NDIM and copies * n <= MAX_NUMEL:
        kinds += [(kind, copies) for kind in ("expand", "expand_as", "broadcast_to")]
    long_dims = [d for d, size in enumerate(shape) if size >= 2]
    if long_dims and len(shape) < MAX_NDIM:
        d = int(draw(st.sampled_from(long_dims)))
        size = int(draw(st.integers(2, shape[d])))
        kinds.append(("unfold", d, size, int(draw(st.integers(1, size - 1)))))
    if n >= 2:
        width = int(draw(st.integers(2, min(n, 4))))
        step = int(draw(st.integers(1, width - 1)))
        offset = int(draw(st.integers(0, n - width)))
        kinds.append(("as_strided", (n - offset - width) // step + 1, width, step, offset))
    return kinds


def view_shape(shape: Shape, view: tuple[Any, ...]) -> Shape:
    if view[0] == "row":
        return shape[1:]
    if view[0] == "step":
        return (len(range(view[1], shape[0], 2)), *shape[1:])
    if view[0] == "transpose":
        return (shape[1], shape[0], *shape[2:])
    if view[0] in ("expand", "expand_as", "broadcast_to"):
        return (view[1], *shape)
    if view[0] == "unfold":
        _, d, size, step = view
        return (*shape[:d], (shape[d] - size) // step + 1, *shape[d + 1 :], size)
    if view[0] == "as_strided":
        return (view[1], view[2])
    return shape


def _broadcasts_into(s: Shape, target: Shape) -> bool:
    """``s`` broadcasts to ``target`` without growing it (an in-place op's operand)."""
    try:
        return tuple(np.broadcast_shapes(s, target)) == tuple(target)
    except ValueError:
        return False


def take_view(x: Any, view: tuple[Any, ...]) -> Any:
    if view[0] == "row":
        return x[view[1]]
    if view[0] == "step":
        return x[view[1] :: 2]
    if view[0] == "transpose":
        return x.transpose(0, 1)
    if view[0] == "expand":
        return x.expand(view[1], *x.shape)
    if view[0] == "expand_as":
        return x.expand_as(x.new_zeros((view[1], *x.shape)))
    if view[0] == "broadcast_to":
        return x.broadcast_to((view[1], *x.shape))
    if view[0] == "unfold":
        return x.unfold(*view[1:])
    if view[0] == "as_strided":
        _, rows, width, step, offset = view
        return x.as_strided((rows, width), (step, 1), offset)  # (of a clone: its storage starts with it)
    return x.view_as(x)


def in_place(kind: str, target: Any, other: Any) -> None:
    """``target.<kind>(other)``; ``mul_scalar`` multiplies by -1.5, ``div_`` divides by
    ``other * other + 0.5``."""
    if kind == "mul_scalar":
        target.mul_(-1.5)
    elif kind in ("zero_", "neg_"):
        getattr(target, kind)()
    elif kind == "div_":
        target.div_(_pos(other))
    else:
        getattr(target, kind)(other)


@st.composite
def graphs(
    draw: Any,
    min_nodes: int = 3,
    max_nodes: int = 12,
    ops: Sequence[str] = ALL_OPS,
    dtypes: Sequence[str] = ("float32", "float64"),
    special: bool = False,
) -> Graph:
    """A random expression DAG over the built-in ops (see the module docstring), its leaves
    of ``dtypes``; with ``special``, some leaves hold NaN, ±inf and ±0 among their values."""
    b = _Builder(draw, dtypes=dtypes, special=special)
    for _ in range(draw(st.integers(1, 3))):
        b.leaf(_shapes(draw, 0, 3))  # extra leaves may stay unused: their gradient is None
    n_nodes = draw(st.integers(min_nodes, max_nodes))
    while b.node_count() < n_nodes:
        op = draw(st.sampled_from(tuple(ops)))
        if _add_op(b, op) is None:
            # fall back on an op that always applies, so that the graph still grows
            x = b.pick()
            assert x is not None
            fallback = draw(st.sampled_from(("sin", "neg", "mul_self")))
            b.add(fallback, [x, x] if fallback == "mul_self" else [x], (), b.shapes[x])
    nodes = [i for i, v in enumerate(b.values) if isinstance(v, Node)]
    used = {a for v in b.values if isinstance(v, Node) for a in v.args}
    sinks = [i for i in nodes if i not in used]
    extra = draw(st.lists(st.sampled_from(nodes), max_size=2))
    outputs = tuple(sorted(set(sinks) | set(extra)))
    seed = draw(st.integers(0, 2**32 - 1))
    return Graph(tuple(b.values), outputs, seed)


SPECIAL_VALUES = (math.nan, math.inf, -math.inf, 0.0, -0.0)


def leaf_arrays(graph: Graph) -> list[np.ndarray]:
    """The values of the leaves (in [-2, 2], away from 0 by a little; complex: both parts so;
    int64: ±1 to ±3; bool: either), in their dtypes; a special leaf has about a third of its
    elements replaced by NaN, ±inf or ±0 (NaN or ±0 in each part, for a complex one)."""
    rng = np.random.default_rng(graph.seed)
    out = []
    for leaf in graph.leaves:
        values = rng.uniform(0.1, 2.0, size=leaf.shape) * rng.choice((-1.0, 1.0), size=leaf.shape)
        if leaf.dtype.startswith("complex"):
            values = values + 1j * rng.uniform(0.1, 2.0, size=leaf.shape) * rng.choice((-1.0, 1.0), size=leaf.shape)
        elif leaf.dtype == "int64":
            values = np.round(values * 1.5 + np.sign(values))
        elif leaf.dtype == "bool":
            values = values > 0
        if leaf.special and leaf.dtype not in ("int64", "bool"):
            where = rng.random(leaf.shape) < 0.35
            picks = np.asarray(rng.choice(len(SPECIAL_VALUES), size=leaf.shape))
            special = np.asarray(SPECIAL_VALUES)[picks]
            if values.dtype.kind == "c":
                # NaN and ±0 only: torch's complex kernels are not C99's at infinities (expm1 of
                # -inf + iy is NaN there, -1 in NumPy and ctxgrad); built part by part
                finite_ones = np.asarray((math.nan, 0.0, -0.0))
                special = np.asarray(finite_ones[np.asarray(rng.choice(3, size=leaf.shape))], dtype=np.complex128)
                special.imag = finite_ones[np.asarray(rng.choice(3, size=leaf.shape))]
            values = np.where(where, special, values)
        out.append(np.asarray(values, dtype=leaf.dtype))
    return out


def loss_weights(graph: Graph, shapes: Sequence[Shape]) -> list[np.ndarray]:
    """One float64 weight array per output, so the loss is not symmetric in its elements."""
    rng = np.random.default_rng(graph.seed + 1)
    return [rng.uniform(-1.0, 1.0, size=s) for s in shapes]


def _pos(x: Any) -> Any:
    """A smooth positive function of ``x`` (at least 0.5): the argument of ops with a
    restricted domain."""
    return x * x + 0.5


def apply_op(lib: Any, node: Node, args: Sequence[Any]) -> Any:
    """``node``'s op on ``args`` with library ``lib`` (``ctxgrad`` or ``torch``)."""
    functional = lib.nn.functional
    op, p = node.op, node.params
    x = args[0]
    if op in ("neg", "exp", "tanh", "sin", "cos", "sigmoid", "square", "atan", "expm1", "erf", "relu", "abs"):
        return getattr(lib, op)(x)
    if op in ("softplus", "silu", "gelu"):
        return getattr(functional, op)(x)
    if op == "elu":
        return functional.elu(x, alpha=abs(p[0]))
    if op == "leaky_relu":
        return functional.leaky_relu(x, p[0])
    if op == "log_pos":
        return lib.log(_pos(x))
    if op == "sqrt_pos":
        return lib.sqrt(_pos(x))
    if op == "rsqrt_pos":
        return lib.rsqrt(_pos(x))
    if op == "reciprocal_pos":
        return lib.reciprocal(_pos(x))
    if op == "pow_pos":
        return _pos(x) ** p[0]
    if op == "log1p_pos":
        return lib.log1p(x * x)
    if op == "asin_tanh":
        return lib.asin(lib.tanh(x) * 0.9)
    if op == "affine":
        return x * p[0] + 0.25
    if op == "rsub":
        return p[0] - x
    if op == "rdiv_pos":
        return p[0] / _pos(x)
    if op == "clamp":
        return lib.clamp(x, min=p[0], max=p[1])
    if op == "to_float32":
        return x.to(lib.float32)
    if op == "to_float64":
        return x.to(lib.float64)
    if op == "clone":
        return x.clone()
    if op == "softmax":
        return lib.softmax(x, p[0])
    if op == "log_softmax":
        return lib.log_softmax(x, p[0])
    if op in ("sort", "sort_descending"):
        return lib.sort(x, dim=p[0], descending=op == "sort_descending").values
    if op == "cumsum":
        return lib.cumsum(x, dim=p[0])
    if op == "flip":
        return lib.flip(x, p[0])
    if op == "mul_self":
        return x * args[1]
    y = args[1] if len(args) > 1 else None
    if op == "add":
        return x + y
    if op == "sub":
        return x - y
    if op == "mul":
        return x * y
    if op == "div_pos":
        return x / _pos(y)
    if op == "maximum":
        return lib.maximum(x, y)
    if op == "minimum":
        return lib.minimum(x, y)
    if op == "atan2_pos":
        return lib.atan2(x, _pos(y))
    if op == "pow_tensor":
        return _pos(x) ** y
    if op in REDUCTIONS:
        dim, keepdim = p
        if op == "max_dim":
            return lib.max(x, dim=dim, keepdim=keepdim).values
        if op == "norm":
            return lib.norm(x) if dim is None else lib.norm(x, dim=dim, keepdim=keepdim)
        if op == "logsumexp":
            # torch 2.13 refuses dim=(): name every dimension (a 0-d tensor has dimension 0 too)
            every = tuple(range(x.dim())) or 0
            return lib.logsumexp(x, dim=every if dim is None else dim, keepdim=keepdim)
        if dim is None:
            return getattr(x, op)()
        return getattr(x, op)(dim=dim, keepdim=keepdim)
    if op == "reshape":
        return x.reshape(*p[0])
    if op == "transpose":
        return x.transpose(p[0], p[1])
    if op == "permute":
        return x.permute(*p[0])
    if op == "unsqueeze":
        return x.unsqueeze(p[0])
    if op == "squeeze":
        return x.squeeze(p[0])
    if op == "expand":
        return x.expand(p[0])
    if op == "select":
        # x[:, ..., i] rather than x.select(d, i): ctxgrad's Tensor has no select method
        return x[(slice(None),) * p[0] + (p[1],)]
    if op == "slice":
        d, start, step = p
        return x[(slice(None),) * d + (slice(start, None, step),)]
    if op == "take_rows":
        return x[list(p[0])]
    if op == "matmul":
        # torch's matmul refuses mixed dtypes: promote explicitly, as torch code must
        if x.dtype != y.dtype:
            wide = lib.complex128 if x.is_complex() or y.is_complex() else lib.float64
            x, y = x.to(wide), y.to(wide)
        return lib.matmul(x, y)
    if op == "cat":
        return lib.cat(list(args), dim=p[0])
    if op == "stack":
        return lib.stack(list(args), dim=p[0])
    if op == "where":
        condition = args[0].real if args[0].is_complex() else args[0]
        return lib.where(condition > 0, args[1], args[2])
    if op == "inplace_on_view":
        out = x.clone()
        in_place(p[1], take_view(out, p[0]), y)
        return out
    if op == "view_of_inplace":
        # (as_strided reads torch's memory, ctxgrad's elements in row-major order: the same
        # for a contiguous tensor, which torch's clone of a transposed one is not)
        out = x.contiguous().clone() if p[0][0] == "as_strided" else x.clone()
        view = take_view(out, p[0])
        in_place(p[1], out, y)
        return view
    if op == "mutate_after_use":
        return _mutate_after_use(lib, p, x, y)
    raise AssertionError(f"unknown op {op}")


def _mutate_after_use(lib: Any, params: tuple[Any, ...], x: Any, y: Any) -> Any:
    """``binop(left, right)``, then the operand on ``side`` (a fresh tensor made from ``x``
    or ``y``) changed in place (``kind``: ``add_(0.5)`` or ``mul_(-1.5)``); a denominator
    (``div``, ``atan2``) is ``y * y + 0.5``."""
    binop, side, kind = params
    right = _pos(y) if binop in ("div", "atan2") else y
    left = x * 1.0 if side == "left" else x
    if side == "right" and binop not in ("div", "atan2"):
        right = right * 1.0
    if binop == "matmul" and left.dtype != right.dtype:
        wide = lib.complex128 if left.is_complex() or right.is_complex() else lib.float64
        left, right = left.to(wide), right.to(wide)  # (promoting makes a fresh tensor: mutate that one)
    if binop == "addcmul" and left.dtype != right.dtype:
        left, right = left.to(lib.float64), right.to(lib.float64)
    out = {
        "mul": lambda: left * right,
        "div": lambda: left / right,
        "add": lambda: left + right,
        "sub": lambda: left - right,
        "atan2": lambda: lib.atan2(left, right),
        "maximum": lambda: lib.maximum(left, right),
        "matmul": lambda: lib.matmul(left, right),
        "addcmul": lambda: lib.addcmul(lib.zeros((), dtype=left.dtype), left, right, value=0.5),
    }[binop]()
    changed = left if side == "left" else right
    if kind == "add_":
        changed.add_(0.5)
    else:
        changed.mul_(-1.5)
    return out


def run_graph(lib: Any, graph: Graph, leaves: Sequence[Any], promote: bool = False) -> list[Any]:
    """Every value of ``graph`` computed with ``lib``, the leaves taken from ``leaves``;
    ``promote`` turns casts to float32 into casts to float64 (with float64 leaves, the
    whole graph then runs in float64)."""
    next_leaf = iter(leaves)
    values: list[Any] = []
    for v in graph.values:
        if isinstance(v, Leaf):
            values.append(next(next_leaf))
            continue
        if promote and v.op == "to_float32":
            v = Node("to_float64", v.args, v.params, v.shape)
        values.append(apply_op(lib, v, [values[a] for a in v.args]))
    return values


def make_leaves(lib: Any, graph: Graph, promote: bool = False) -> list[Any]:
    """The leaves of ``graph`` as tensors of ``lib``, from :func:`leaf_arrays` (in float64
    if ``promote``: the float32 values, exactly)."""
    wider = {"float32": np.float64, "complex64": np.complex128}
    return [
        lib.tensor(
            a.astype(wider[leaf.dtype]) if promote and leaf.dtype in wider else a, requires_grad=leaf.requires_grad
        )
        for a, leaf in zip(leaf_arrays(graph), graph.leaves)
    ]


def loss_of(lib: Any, graph: Graph, values: Sequence[Any]) -> Any:
    """``sum_k (output_k * weight_k).sum()``: one scalar from every output of ``graph``."""
    outs = [values[i] for i in graph.outputs]
    weights = loss_weights(graph, [tuple(o.shape) for o in outs])
    total = None
    for out, w in zip(outs, weights):
        term = (out * lib.tensor(w)).sum()
        if term.is_complex():
            term = term.real
        total = term if total is None else total + term
    return total


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.min(np.abs(a - b))) if np.size(a - b) else math.inf


def kink_margin(node: Node, args: Sequence[np.ndarray]) -> float:
    """How far the arguments of ``node`` are from a point where its op is not smooth (or
    where the two libraries may pick different sides through rounding), relative to 1;
    ``inf`` for smooth ops."""
    op, p = node.op, node.params
    x = args[0]
    if any(np.iscomplexobj(a) for a in args):
        return _complex_margin(op, args)
    if op in ("relu", "abs", "elu", "leaky_relu"):
        return _gap(x, np.zeros(()))
    if op == "clamp":
        return min(_gap(x, np.asarray(bound)) for bound in p if bound is not None)
    if op in ("maximum", "minimum") or (op == "mutate_after_use" and p[0] == "maximum"):
        return _gap(x, args[1])
    if op == "where":
        return _gap(args[0], np.zeros(()))
    if op in INPLACE_OPS and p[1] == "div_":
        return _gap(args[1] * args[1] + 0.5, np.zeros(()))
    if op in ("sort", "sort_descending"):
        if x.ndim == 0 or x.shape[p[0]] < 2:
            return math.inf
        ordered = np.sort(np.moveaxis(x, p[0], -1), axis=-1)
        return float(np.min(np.diff(ordered, axis=-1)))
    if op in ("amax", "amin", "max_dim"):
        dim = p[0]
        if x.ndim == 0:
            return math.inf
        flat = x.reshape(1, -1) if dim is None else np.moveaxis(x, dim, -1)
        if flat.shape[-1] < 2:
            return math.inf
        ordered = np.sort(flat, axis=-1)
        return min(_gap(ordered[..., -1], ordered[..., -2]), _gap(ordered[..., 0], ordered[..., 1]))
    if op == "norm":
        return float(np.sqrt(np.sum(x * x)))
    return math.inf


def _cut_distance(w: np.ndarray) -> float:
    """How far ``w`` stays from the branch cut of ``log`` and ``sqrt`` (the negative real axis)
    and from 0."""
    w = np.asarray(w)
    if w.size == 0:
        return math.inf
    near_cut = np.where(w.real < 0, np.abs(w.imag), math.inf)
    return float(min(np.min(near_cut), np.min(np.abs(w))))


def _complex_margin(op: str, args: Sequence[np.ndarray]) -> float:
    """:func:`kink_margin` for complex arguments: 0 of ``abs``, ``where``'s real part at 0, and
    the branch cuts (and 0) of the arguments of ``log``, ``sqrt`` and ``pow``."""
    x = args[0]
    if op in ("abs", "norm"):
        return float(np.min(np.abs(x))) if x.size else math.inf
    if op == "where":
        return _gap(np.real(x), np.zeros(()))
    if op in ("log_pos", "sqrt_pos", "rsqrt_pos", "pow_pos", "reciprocal_pos", "rdiv_pos"):
        return _cut_distance(x * x + 0.5)
    if op in ("pow_tensor", "div_pos"):
        return _cut_distance(args[1] * args[1] + 0.5) if op == "div_pos" else _cut_distance(x * x + 0.5)
    if op in INPLACE_OPS and len(args) > 1:
        return _cut_distance(args[1] * args[1] + 0.5)
    return math.inf


# --------------------------------------------------------------------------- custom Functions
@dataclass(frozen=True)
class Piece:
    """One step ``y = f(x)`` of a custom Function, with its derivative ``f'`` written from
    the step's input ``x`` or its output ``y`` (``uses`` says which one)."""

    name: str
    forward: Callable[[Any], Any]
    derivative: Callable[[Any, Any], Any]
    uses: str  # "x", "y" or "none"


def _pieces() -> dict[str, Piece]:
    import ctxgrad

    return {
        p.name: p
        for p in (
            Piece("sin", ctxgrad.sin, lambda x, y: ctxgrad.cos(x), "x"),
            Piece("exp_y", ctxgrad.exp, lambda x, y: y, "y"),
            Piece("exp_x", ctxgrad.exp, lambda x, y: ctxgrad.exp(x), "x"),
            Piece("tanh_y", ctxgrad.tanh, lambda x, y: 1 - y * y, "y"),
            Piece("tanh_x", ctxgrad.tanh, lambda x, y: 1 - ctxgrad.tanh(x) ** 2, "x"),
            Piece("sigmoid_y", ctxgrad.sigmoid, lambda x, y: y * (1 - y), "y"),
            Piece("square", lambda x: x * x, lambda x, y: 2 * x, "x"),
            Piece("scale", lambda x: x * -1.5, lambda x, y: ctxgrad.full_like(x, -1.5), "none"),
            Piece("log_pos", lambda x: ctxgrad.log(x * x + 1), lambda x, y: 2 * x / (x * x + 1), "x"),
            Piece("sqrt_pos_y", lambda x: ctxgrad.sqrt(x * x + 1), lambda x, y: x / y, "xy"),
        )
    }


PIECE_NAMES = ("sin", "exp_y", "exp_x", "tanh_y", "tanh_x", "sigmoid_y", "square", "scale", "log_pos", "sqrt_pos_y")


@dataclass(frozen=True)
class FunctionSpec:
    """A custom Function ``(x, c, w) -> (h_n, h_mid)``, or ``-> h_n`` when ``mid`` is None:
    ``h_0 = x``, ``h_{i+1} = piece_i(h_i)``, except that step ``mul_at`` is
    ``h_{i+1} = h_i * w * c`` (``w`` a tensor that may broadcast, ``c`` a Python float).
    ``saved`` are the ``h_i`` the Function saves with ``save_for_backward`` (besides ``w``,
    always saved, first or last as ``w_first`` says); backward recomputes the others from
    the nearest saved one before them.  ``setup_context`` selects the style; then only
    inputs and outputs can be saved."""

    pieces: tuple[str, ...]
    mul_at: int
    saved: tuple[int, ...]
    w_first: bool
    mid: int | None
    setup_context: bool
    x_shape: Shape
    w_shape: Shape
    c: float
    requires_grad: tuple[bool, bool]
    seed: int


@st.composite
def function_specs(draw: Any) -> FunctionSpec:
    """A random custom Function assembled from correct pieces (see :class:`FunctionSpec`)."""
    pieces = tuple(draw(st.lists(st.sampled_from(PIECE_NAMES), min_size=1, max_size=5)))
    n = len(pieces) + 1  # h_0 .. h_n: the multiplication by w is one more step
    mul_at = int(draw(st.integers(0, n - 1)))
    mid = draw(st.none() | st.integers(0, n))
    style = bool(draw(st.booleans()))
    # setup_context sees only inputs and outputs: it can save h_0, h_n and h_mid
    allowed = sorted({0, n} | ({mid} if mid is not None else set())) if style else list(range(n + 1))
    saved = set(draw(st.lists(st.sampled_from(allowed), max_size=4)))
    saved.add(0)  # backward recomputes from the nearest saved h_i before: h_0 is the last resort
    x_shape = _shapes(draw, 0, 3)
    w_shape = _broadcastable_to(draw, x_shape) if draw(st.booleans()) else x_shape
    if len(w_shape) > len(x_shape):
        w_shape = w_shape[1:]
    requires_grad = (bool(draw(st.booleans())), bool(draw(st.booleans())))
    if not any(requires_grad):
        requires_grad = (True, requires_grad[1])
    return FunctionSpec(
        pieces, mul_at, tuple(sorted(saved)), bool(draw(st.booleans())), mid, style, x_shape, w_shape,
        float(draw(st.sampled_from((1.0, 0.5, -2.0)))), requires_grad, int(draw(st.integers(0, 2**32 - 1))),
    )  # fmt: skip


def _steps(spec: FunctionSpec) -> list[str]:
    """The steps of ``spec`` in order: piece names and ``"mul_w"``."""
    steps = list(spec.pieces)
    steps.insert(spec.mul_at, "mul_w")
    return steps


def spec_forward(spec: FunctionSpec, x: Any, c: float, w: Any) -> list[Any]:
    """``h_0 .. h_n`` computed with ctxgrad ops."""
    pieces = _pieces()
    hs = [x]
    for step in _steps(spec):
        hs.append(hs[-1] * w * c if step == "mul_w" else pieces[step].forward(hs[-1]))
    return hs


def spec_outputs(spec: FunctionSpec, hs: Sequence[Any]) -> Any:
    """What the Function returns: ``h_n``, or ``(h_n, h_mid)``."""
    return (hs[-1], hs[spec.mid]) if spec.mid is not None else hs[-1]


def make_function(spec: FunctionSpec, calls: list[tuple[bool, ...]]) -> type:
    """A ``ctxgrad.autograd.Function`` subclass computing ``spec``; each backward call
    appends its ``ctx.needs_input_grad`` to ``calls``."""
    from ctxgrad.autograd import Function

    pieces = _pieces()
    steps = _steps(spec)
    n = len(steps)

    def save(ctx: Any, hs: dict[int, Any], c: float, w: Any) -> None:
        tensors = [hs[i] for i in spec.saved]
        ctx.save_for_backward(*([w, *tensors] if spec.w_first else [*tensors, w]))
        ctx.c = c

    def backward(ctx: Any, *grads: Any) -> Any:
        calls.append(tuple(ctx.needs_input_grad))
        saved = list(ctx.saved_tensors)
        w = saved.pop(0) if spec.w_first else saved.pop()
        known: dict[int, Any] = dict(zip(spec.saved, saved))
        c = ctx.c

        def h(i: int) -> Any:
            if i not in known:
                prev = h(i - 1)
                step = steps[i - 1]
                known[i] = prev * w * c if step == "mul_w" else pieces[step].forward(prev)
            return known[i]

        grad = grads[0]
        grad_w = None
        for i in range(n - 1, -1, -1):
            if spec.mid == i + 1:
                grad = grad + grads[1]
            step = steps[i]
            if step == "mul_w":
                if ctx.needs_input_grad[2]:
                    grad_w = grad * h(i) * c
                grad = grad * w * c
            else:
                grad = grad * pieces[step].derivative(h(i), h(i + 1))
        if spec.mid == 0:
            grad = grad + grads[1]
        return (grad if ctx.needs_input_grad[0] else None), None, grad_w

    if spec.setup_context:

        def forward_plain(x: Any, c: float, w: Any) -> Any:
            return spec_outputs(spec, spec_forward(spec, x, c, w))

        def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
            x, c, w = inputs
            outs = output if isinstance(output, tuple) else (output,)
            available = {0: x, n: outs[0]}
            if spec.mid is not None:
                available[spec.mid] = outs[1]
            save(ctx, available, c, w)

        namespace: dict[str, Any] = {
            "forward": staticmethod(forward_plain),
            "setup_context": staticmethod(setup_context),
            "backward": staticmethod(backward),
        }
    else:

        def forward_ctx(ctx: Any, x: Any, c: float, w: Any) -> Any:
            hs = spec_forward(spec, x, c, w)
            save(ctx, dict(enumerate(hs)), c, w)
            return spec_outputs(spec, hs)

        namespace = {"forward": staticmethod(forward_ctx), "backward": staticmethod(backward)}
    return type("Fuzzed", (Function,), namespace)
