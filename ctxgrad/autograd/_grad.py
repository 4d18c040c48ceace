"""``backward`` and ``grad``: the two ways into the engine, with torch's arguments.

They normalise their arguments (a tensor or a sequence; seed gradients made for scalar
outputs, checked against the outputs' shapes and dtypes) and call
:func:`ctxgrad.autograd.engine.run_backward`.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from typing_extensions import overload

from ctxgrad import _dtypes
from ctxgrad._state import _state
from ctxgrad.autograd._callbacks import final_callbacks
from ctxgrad.autograd.engine import run_backward
from ctxgrad.autograd.errors import OnceDifferentiableError
from ctxgrad.autograd.graph import GradientEdge
from ctxgrad.autograd.values import ValueType, value_type_of

if TYPE_CHECKING:
    from typing import TypeAlias

    from typing_extensions import TypeVar

    from ctxgrad._tensor import Tensor

    _K = TypeVar("_K")
    _Edges: TypeAlias = "Tensor | GradientEdge | Sequence[Tensor | GradientEdge]"
    _Seeds: TypeAlias = "Tensor | Sequence[Tensor | None] | None"

__all__ = ["as_tuple", "backward", "grad"]


def as_tuple(value: Any) -> tuple[Any, ...]:
    """``value`` as a tuple: a tuple as it is, a list or an iterator (a generator too, as in
    torch) as its items, anything else (one tensor, one None) alone."""
    if isinstance(value, tuple):
        return value
    if isinstance(value, (list, Iterator)):
        return tuple(value)
    return (value,)


def _make_seeds(outputs: tuple[Tensor, ...], grads: tuple[Any, ...], create_graph: bool) -> list[Tensor]:
    """One seed gradient per output: given ones checked, missing ones made for scalars."""
    from ctxgrad._tensor import Tensor, _wrap

    if grads and len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    seeds: list[Tensor] = []
    for i, out in enumerate(outputs):
        g = grads[i] if grads else None
        vt = value_type_of(out._data.dtype)
        if vt is not None:  # a value that is not an array: its seed is one of its kind, given
            seeds.append(_value_seed(vt, i, g))
            continue
        if g is None:
            if out._data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs (this output has shape "
                    f"{list(out._data.shape)}: pass a gradient of that shape, or reduce it first, e.g. with .sum())"
                )
            if out._data.dtype.kind == "c":  # which real direction to seed is the caller's choice
                raise RuntimeError(
                    "grad can be implicitly created only for real scalar outputs but got "
                    f"{_dtypes.dtype_repr(out._data.dtype)}"
                )
            seeds.append(_wrap(np.ones(out._data.shape, dtype=out._data.dtype)))
            continue
        if not isinstance(g, Tensor):
            g = Tensor(g, dtype=out._data.dtype)
        if g._data.shape != out._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape!r} and output[{i}] has a "
                f"shape of {out.shape!r}."
            )
        if g._data.dtype != out._data.dtype:
            if (g._data.dtype.kind == "c") != (out._data.dtype.kind == "c"):
                raise RuntimeError(
                    "For complex Tensors, both grad_output and output are required to have the same dtype. "
                    f"Mismatch in dtype: grad_output[{i}] has a dtype of {_dtypes.dtype_repr(g._data.dtype)} and "
                    f"output[{i}] has a dtype of {_dtypes.dtype_repr(out._data.dtype)}."
                )
            g = g.detach().to(out._data.dtype) if not create_graph else g.to(out._data.dtype)
        seeds.append(g)
    return seeds


def _value_seed(vt: ValueType, i: int, g: Any) -> Tensor:
    """The seed for output ``i``, a value of type ``vt`` (see :mod:`.values`): ``g`` itself."""
    if g is None:
        raise RuntimeError(
            f"grad can be implicitly created only for scalar outputs, and output {i} is a {vt.name}: "
            f"pass its gradient, a {vt.name}, as gradient= (backward) or grad_outputs= (autograd.grad)"
        )
    if not vt.accepts(g):
        raise TypeError(f"the gradient of output {i}, a {vt.name}, must be a {vt.name}, but got {type(g).__name__}")
    return g  # type: ignore[no-any-return]


def _edge_as_output(edge: GradientEdge) -> Tensor:
    """A stand-in output for a ``GradientEdge``: no values of its own (a broadcast zero of
    the edge's shape), its history the edge, so the engine starts from the edge's node."""
    from ctxgrad._tensor import _wrap

    node, nr = edge
    if node.name() == "AccumulateGrad":
        leaf: Tensor = node.variable  # type: ignore[attr-defined]
        return leaf
    meta = node._out_meta[nr]
    if meta is None:
        raise RuntimeError(f"output {nr} of {node.name()} is not a tensor: it has no gradient edge")
    t = _wrap(np.broadcast_to(np.zeros((), dtype=meta[1]), meta[0]))
    t._grad_fn = node
    t._output_nr = nr
    t._requires_grad = True
    return t


@contextlib.contextmanager
def differentiated_again() -> Iterator[list[str]]:
    """Around the computation of a derivative that the library itself will differentiate
    again (the functional API's Hessians, ``ctxgrad.func``'s nested transforms): a
    ``once_differentiable`` backward met there links its results to its node's inputs, so
    that the next derivative raises its error instead of silently leaving out its terms
    (where, as torch, it would otherwise give results without a graph).  Yields the names
    of those nodes."""
    outer = _state.modes.once_watch
    seen: list[str] = []
    _state.modes.once_watch = seen
    try:
        yield seen
    finally:
        _state.modes.once_watch = outer
        if outer is not None:
            outer.extend(seen)


def _check_outputs(outputs: tuple[Any, ...]) -> None:
    from ctxgrad._tensor import Tensor

    for i, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise TypeError(f"element {i} of tensors is a {type(out).__name__}, not a Tensor")
        if not out._requires_grad:
            message = f"element {i} of tensors does not require grad and does not have a grad_fn"
            if _state.modes.once_dropped is not None:
                raise OnceDifferentiableError(
                    f"{message} (the last backward, run with create_graph=True, went through "
                    f"{_state.modes.once_dropped}, whose backward is marked @once_differentiable: as in torch, the "
                    "gradients it gave do not require grad and cannot be differentiated again; write that "
                    "backward in differentiable ctxgrad operations to allow higher-order gradients)"
                )
            raise RuntimeError(message)
    _state.modes.once_dropped = None  # (what the backward about to run notes)


def _check_inputs(inputs: tuple[Any, ...]) -> None:
    from ctxgrad._tensor import Tensor

    for t in inputs:
        if not isinstance(t, (Tensor, GradientEdge)):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")


def backward(
    tensors: Tensor | GradientEdge | Sequence[Tensor | GradientEdge],
    grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Tensor | GradientEdge | Sequence[Tensor | GradientEdge] | None = None,
) -> None:
    """Accumulate the gradients of ``tensors`` into ``.grad`` of the leaves they depend on.

    ``grad_tensors`` gives one seed per tensor (None only for single-element tensors).
    ``inputs`` restricts accumulation to those tensors (non-leaves get ``.grad`` too).
    """
    if grad_variables is not None:
        warnings.warn("'grad_variables' is deprecated. Use 'grad_tensors' instead.", DeprecationWarning, stacklevel=2)
        grad_tensors = grad_variables
    outputs = (tensors,) if isinstance(tensors, GradientEdge) else (() if tensors is None else as_tuple(tensors))
    outputs = tuple(_edge_as_output(o) if isinstance(o, GradientEdge) else o for o in outputs)
    _check_outputs(outputs)
    if inputs is not None:
        input_list = (inputs,) if isinstance(inputs, GradientEdge) else as_tuple(inputs)
        if not input_list:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
        _check_inputs(input_list)
        for k, t in enumerate(input_list):
            if not isinstance(t, GradientEdge) and not t._requires_grad:
                raise RuntimeError(
                    f"backward(inputs=...): input {k} does not require grad, so no gradient can be accumulated into it"
                )
    else:
        input_list = None
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the parameter "
            "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
            "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
            "of your parameters to None after use to break the cycle and avoid the leak.",
            UserWarning,
            stacklevel=3,
        )
    seeds = _make_seeds(outputs, (() if grad_tensors is None else as_tuple(grad_tensors)), create_graph)
    keep = create_graph if retain_graph is None else retain_graph
    with final_callbacks():
        run_backward(outputs, seeds, keep, create_graph, input_list, accumulate=True)


# Typed by what comes back: a tuple of tensors (a dict for a dict of inputs), with None for
# an unused input only where allow_unused=True lets one through (materialize_grads=True
# fills those with zeros).
@overload
def grad(
    outputs: _Edges,
    inputs: _Edges,
    grad_outputs: _Seeds = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: Literal[False] | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor, ...]: ...
@overload
def grad(
    outputs: _Edges,
    inputs: _Edges,
    grad_outputs: _Seeds = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    *,
    materialize_grads: Literal[True],
) -> tuple[Tensor, ...]: ...
@overload
def grad(
    outputs: _Edges,
    inputs: _Edges,
    grad_outputs: _Seeds = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]: ...
@overload
def grad(
    outputs: _Edges,
    inputs: Mapping[_K, Tensor | GradientEdge],
    grad_outputs: _Seeds = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: Literal[False] | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> dict[_K, Tensor]: ...
@overload
def grad(
    outputs: _Edges,
    inputs: Mapping[_K, Tensor | GradientEdge],
    grad_outputs: _Seeds = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    *,
    materialize_grads: Literal[True],
) -> dict[_K, Tensor]: ...
@overload
def grad(
    outputs: _Edges,
    inputs: Mapping[_K, Tensor | GradientEdge],
    grad_outputs: _Seeds = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> dict[_K, Tensor | None]: ...
def grad(
    outputs: _Edges,
    inputs: _Edges | Mapping[Any, Tensor | GradientEdge],
    grad_outputs: _Seeds = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    is_grads_batched: bool = False,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...] | dict[Any, Any]:
    """The gradients of ``outputs`` with respect to ``inputs``, without touching ``.grad``.

    ``inputs`` may be tensors, ``GradientEdge`` objects (``graph.get_gradient_edge``), or a
    dict of either, which gives a dict of gradients; ``outputs`` may be tensors or
    ``GradientEdge`` objects (the gradient then enters the graph at that edge).

    >>> import ctxgrad
    >>> x = ctxgrad.tensor(3.0, requires_grad=True)
    >>> (dx,) = ctxgrad.autograd.grad(x * x, x, create_graph=True)
    >>> dx
    tensor(6., grad_fn=<AddBackward0>)
    >>> ctxgrad.autograd.grad(dx, x)
    (tensor(2.),)
    """
    from ctxgrad._tensor import _wrap

    if materialize_grads and allow_unused is False:
        raise ValueError(
            "Expected allow_unused to be True or not passed when materialize_grads=True, but got: allow_unused=False."
        )
    if is_grads_batched:
        return _grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)
    allow = bool(allow_unused) or materialize_grads
    keys: list[Any] | None = None
    if isinstance(inputs, Mapping):
        keys = list(inputs)
        in_list: tuple[Any, ...] = tuple(inputs.values())
    elif isinstance(inputs, GradientEdge):
        in_list = (inputs,)
    else:
        in_list = () if inputs is None else as_tuple(inputs)
    outs = (outputs,) if isinstance(outputs, GradientEdge) else (() if outputs is None else as_tuple(outputs))
    out_list = tuple(_edge_as_output(o) if isinstance(o, GradientEdge) else o for o in outs)
    if not in_list:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    level = _vmap_level_of((*out_list, *in_list))
    if level is not None:
        by_sample = _grad_in_vmap(
            level, out_list, in_list, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads
        )
        return dict(zip(keys, by_sample)) if keys is not None else by_sample
    _check_inputs(in_list)
    _check_outputs(out_list)
    for t in in_list:
        if not isinstance(t, GradientEdge) and not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    seeds = _make_seeds(out_list, (() if grad_outputs is None else as_tuple(grad_outputs)), create_graph)
    keep = create_graph if retain_graph is None else retain_graph
    with final_callbacks():
        result = run_backward(out_list, seeds, keep, create_graph, in_list, accumulate=False)
    for k, g in enumerate(result):
        if g is None:
            if not allow:
                raise RuntimeError(
                    f"The differentiated Tensor at index {k} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior."
                )
            if materialize_grads:
                t = in_list[k]
                if isinstance(t, GradientEdge):
                    raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
                zeros = _wrap(np.zeros(t._data.shape, dtype=t._data.dtype))
                zeros._requires_grad = create_graph  # (it may be differentiated again, as in torch)
                result[k] = zeros
        elif not create_graph and g._requires_grad:
            result[k] = g.detach()
    if keys is not None:
        return dict(zip(keys, result))
    return tuple(result)


def _vmap_level_of(tensors: tuple[Any, ...]) -> int | None:
    """The innermost vmap level among ``tensors`` that are batched, or None."""
    from ctxgrad.autograd._batched_tensor import BatchedTensor

    levels = [t.level for t in tensors if isinstance(t, BatchedTensor)]
    return max(levels) if levels else None


def _grad_in_vmap(
    level: int,
    outputs: tuple[Any, ...],
    inputs: tuple[Any, ...],
    grad_outputs: Any,
    retain_graph: bool | None,
    create_graph: bool,
    allow_unused: bool | None,
    materialize_grads: bool,
) -> tuple[Tensor | None, ...]:
    """``grad`` called inside vmap on batched tensors, as torch allows: each sample's gradient.

    The graph was recorded on the tensors that hold every sample (a batched tensor's
    ``value``), and vmap never mixes samples, so the gradient of those tensors is every
    sample's own gradient at once; a cotangent given for one sample serves every sample."""
    from ctxgrad.autograd._batched_tensor import BatchedTensor

    def at_level(t: Any) -> bool:
        return isinstance(t, BatchedTensor) and t.level == level

    unbatched = [k for k, t in enumerate(inputs) if not at_level(t)]
    if unbatched:
        raise RuntimeError(
            f"grad inside vmap: input {unbatched[0]} is not batched by this vmap, so it has one gradient per "
            "sample that grad cannot return as one tensor; pass it to vmap (in_dims) or compute the gradient "
            "with ctxgrad.func.grad"
        )
    cots = [None] * len(outputs) if grad_outputs is None else list(as_tuple(grad_outputs))
    values, seeds = [], []
    for out, cot in zip(outputs, cots):
        if not at_level(out):
            values.append(out)
            seeds.append(cot)
            continue
        values.append(out.value)
        if cot is None:
            if out.value[0].numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            seeds.append(out.value.new_ones(out.value.shape))
        else:
            seeds.append(cot.value if at_level(cot) else cot.expand(out.value.shape))
    result = grad(
        values,
        [t.value for t in inputs],
        seeds,
        retain_graph,
        create_graph,
        allow_unused=allow_unused,
        materialize_grads=materialize_grads,
    )
    return tuple(None if g is None else BatchedTensor(g, level) for g in result)


def tensor_backward(
    self: Tensor,
    gradient: Tensor | None = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Tensor | Sequence[Tensor] | None = None,
) -> None:
    """Accumulate the gradient of this tensor into the leaves' ``.grad``.

    ``gradient`` is required unless the tensor has a single element.
    """
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _grad_batched(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any,
    retain_graph: bool | None,
    create_graph: bool,
    allow_unused: bool | None,
    materialize_grads: bool,
) -> tuple[Tensor | None, ...] | dict[Any, Any]:
    """``grad(..., is_grads_batched=True)``: each ``grad_outputs`` holds a batch of
    cotangents in its first dimension, and each gradient a batch of results.  ctxgrad runs
    one backward per cotangent (the graph was built for one sample; torch runs its backward
    formulas under vmap) and stacks the results, keeping their history under ``create_graph``."""
    from ctxgrad.autograd._batched import stack_samples

    cots = () if grad_outputs is None else as_tuple(grad_outputs)
    if not cots or any(c is None for c in cots):
        raise RuntimeError("grad(..., is_grads_batched=True) needs a batched grad_output for every output")
    size = cots[0].shape[0]
    for c in cots:
        if c.shape[0] != size:
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                f"dimension. The sizes of the first dimension of the grad_outputs must all be equal, got {size} "
                f"and {c.shape[0]}"
            )
    rows = []
    for k in range(size):
        last = k == size - 1
        keep = (create_graph if retain_graph is None else retain_graph) if last else True
        rows.append(
            grad(
                outputs,
                inputs,
                tuple(c[k] for c in cots),
                keep,
                create_graph,
                allow_unused=allow_unused,
                materialize_grads=materialize_grads,
            )
        )
    if isinstance(rows[0], dict):
        return {key: None if rows[0][key] is None else stack_samples([r[key] for r in rows]) for key in rows[0]}
    return tuple(None if rows[0][i] is None else stack_samples([r[i] for r in rows]) for i in range(len(rows[0])))
