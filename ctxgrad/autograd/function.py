"""``Function``: the one way an op enters the graph, and its ctx, which *is* the graph node.

Writing an op means subclassing :class:`Function`::

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):                # runs with grad mode off
            y = x.exp()
            ctx.save_for_backward(y)        # checked for in-place changes at unpack
            return y

        @staticmethod
        def backward(ctx, grad_y):          # one gradient per output of forward
            (y,) = ctx.saved_tensors
            return grad_y * y               # one gradient per argument of forward

    y = Exp.apply(x)

What ``apply`` does, in order:

1. binds keyword arguments to ``forward``'s parameters (a plan made once per class);
2. makes the ctx, an instance of the class ``ExpBackward`` generated for ``Exp``;
3. sets ``ctx.needs_input_grad`` (one bool per argument) and runs ``forward`` (and
   ``setup_context``, if the class defines it) with grad mode off;
4. if grad mode is on and some tensor argument requires grad, *records*: the ctx gets one
   edge per argument, each floating output gets ``grad_fn = ctx``, tensors passed to
   ``save_for_backward`` are packed with their versions, and the result is returned.

Otherwise the outputs come back untouched, which keeps calls in ``no_grad`` (and the ops
called inside ``forward`` and ``backward``) cheap.  The backward engine later calls
``ctx._run``, which runs ``backward`` and hands what it returns to
:func:`~ctxgrad.autograd._validate.check_grads`, the single place where every gradient any
op returns is checked and fitted to its input.

The pieces ``apply`` hands work to live beside this module: :mod:`._binding` (keyword
arguments), :mod:`._outputs` (outputs that are views, aliases or dirty inputs; saved
tensors), :mod:`._validate` (the gradients backward returns), :mod:`._dual` (forward
mode) and :mod:`ctxgrad.autograd.hooks` (node hooks).

Built-in ops in :mod:`ctxgrad.ops` are written exactly like this; read any of them as an
example.
"""

from __future__ import annotations

import functools
import inspect
import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Generic

import numpy as np
from typing_extensions import TypeVar

from ctxgrad._state import Modes, _state
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd._batched import NOT_BATCHED, apply_batched
from ctxgrad.autograd._binding import Plan
from ctxgrad.autograd._ctx_fields import CtxFields
from ctxgrad.autograd._dual import apply_dual
from ctxgrad.autograd._edges import NO_EDGE, edges_of
from ctxgrad.autograd._legacy_calls import LegacyCalls
from ctxgrad.autograd._node_api import saved_field_properties
from ctxgrad.autograd._outputs import (
    _METAS,
    _NEEDS,
    alias,
    finish_untracked,
    mark_view,
    meta_of,
    pack_saved,
    shared_needs,
    warn_tensor_attributes,
    wire_outputs,
)
from ctxgrad.autograd._readonly import explain_read_only
from ctxgrad.autograd._validate import GradientTypeError, check_all_tensors, check_grads, conjugate, has_complex
from ctxgrad.autograd.anomaly_mode import record_forward
from ctxgrad.autograd.errors import _FREED_MSG, OnceDifferentiableError, raiser
from ctxgrad.autograd.grad_mode import run_in_grad_mode
from ctxgrad.autograd.graph import Node, _accumulator_of, _sequence
from ctxgrad.autograd.hooks import run_posthooks, run_prehooks
from ctxgrad.autograd.saved import SavedTensor, unpack_saved
from ctxgrad.autograd.values import zero_of

__all__ = [
    "BackwardCFunction",
    "Function",
    "FunctionCtx",
    "GradientTypeError",
    "InplaceFunction",
    "NestedIOFunction",
    "once_differentiable",
]

_T = TypeVar("_T")
# What ``apply`` returns: ``class Exp(Function[Tensor])`` types ``Exp.apply(x)`` as a Tensor;
# a plain ``class F(Function)`` gives Any, as in torch.
_Out = TypeVar("_Out", default=Any)


# ctx attributes that belong to ctxgrad: the check for tensors stored on ctx skips them.
# The ctx attributes of a Function's first recorded calls are checked for tensors; by then
# a Function that stores one has shown it, and later calls skip the scan.
_CTX_ATTRIBUTE_CHECKS = 16


_FORWARD_MISSING = "You must implement the forward function for custom autograd.Function."
_BACKWARD_MISSING = (
    "You must implement either the backward or vjp method for your custom autograd.Function "
    "to use it with backward mode AD."
)


class BackwardCFunction(CtxFields, Node):
    """The ctx handed to ``forward``/``setup_context``/``backward``, and the graph node.

    Each ``Function`` subclass ``F`` gets a subclass ``FBackward`` of this class; one
    instance is made per ``F.apply`` call and becomes ``grad_fn`` of the outputs.
    Attributes you set on it (``ctx.scale = 2``) are kept until the node is freed.  torch's
    field names (``ctx.dirty_tensors``, ``ctx.non_differentiable``, ``ctx.saved_for_forward``)
    come from :class:`~ctxgrad.autograd._ctx_fields.CtxFields`.

    ``ctx.forward_cls`` is ``F``, the Function whose call this ctx records, so that one
    ``forward`` can serve subclasses that only change a class attribute (the built-in
    ``MaxDim`` and ``MinDim`` share a ``forward`` that calls ``ctx.forward_cls.pick``).  It
    is a class attribute, so a ``ctx.forward_cls = ...`` of your own only hides it, for
    that ctx.
    """

    # The fields every call sets or every backward reads are slots, set when the ctx is made
    # (``_run``; ``__init__`` for a ctx made elsewhere); ``__dict__`` (Node's) holds only what
    # a Function sets itself (``ctx.scale = 2``) and the rarely set fields below.
    __slots__ = ("_hooks", "_needs", "_out_meta", "_saved")

    forward_cls: ClassVar[type[Function]]
    _forward_cls: ClassVar[type[Function]]  # the same, for the core: a ctx attribute cannot hide it
    _needs: tuple[bool, ...]
    _saved: tuple[SavedTensor | None, ...] | None  # () when nothing was saved, None once freed

    # Defaults for what the ctx API sets; an instance stores only what was set.
    to_save: tuple[Tensor | None, ...] | None = None
    _dirty: tuple[Tensor, ...] | None = None
    _non_diff: tuple[Tensor, ...] | None = None
    _materialize: bool = True
    _fw_saved: tuple[Tensor | None, ...] | None = None
    _cleared_on_access: bool = False
    _marked: bool = False  # (a mark or save_for_forward was set: recording takes the general path)

    def __init__(self) -> None:
        self._saved, self._hooks = (), None

    if TYPE_CHECKING:  # a user's ctx attributes (ctx.scale = 2), for type checkers: any name, Any

        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...

    # ------------------------------------------------------------------ the ctx API
    def save_for_backward(self, *tensors: Tensor | None) -> None:
        """Keep tensors (inputs, outputs, intermediates or None) for ``backward``.

        Read them back with ``ctx.saved_tensors``; an in-place change made to one of them
        in between raises there instead of giving a wrong gradient.  (The arguments are
        checked when the call is recorded, so that calls that record nothing stay cheap.)
        """
        self.to_save = tensors

    def save_for_forward(self, *tensors: Tensor | None) -> None:
        """Keep tensors for ``jvp``; inside ``jvp``, ``ctx.saved_tensors`` returns these."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_forward expects all arguments to be tensors, but argument {i} is of "
                    f"type {type(t).__name__} (in {self._forward_cls.__name__}); save non-tensors as "
                    "attributes on ctx."
                )
        self._fw_saved, self._marked = tensors, True

    @property
    def saved_tensors(self) -> tuple[Tensor, ...]:
        """The tensors given to ``save_for_backward``, checked for in-place changes.

        Empty inside ``forward``; after a backward without ``retain_graph`` it raises.  A
        ``None`` saved comes back as None (typed as torch types it: tensors, so that a
        backward need not check each one).
        """
        saved = self._saved
        if saved is None:
            if not self._cleared_on_access:
                raise RuntimeError(f"{_FREED_MSG} ({self.name()}'s saved tensors were freed by an earlier backward.)")
            raise RuntimeError(
                "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is "
                "set on the autograd.Function. Either access saved_tensors only once, or set "
                f"clear_saved_tensors_on_access=False. ({self.name()} read them a second time.)"
            )
        if not saved:
            return ()
        out = unpack_saved(self, saved)
        if self._forward_cls.clear_saved_tensors_on_access:
            self._saved = None
            self._cleared_on_access = True
        return out  # (the Nones saved come back typed as tensors: see above)

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare the inputs that ``forward`` changed in place; they must be returned.

        The returned tensor is the same object, its version is bumped, and its history
        now goes through this node.  A leaf that requires grad cannot be changed in place.
        """
        check_all_tensors(self, "mark_dirty", tensors)
        self._dirty, self._marked = tensors, True

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that have no gradient: they do not require grad, and
        ``backward`` receives zeros (or None without materialisation) for them."""
        check_all_tensors(self, "mark_non_differentiable", tensors)
        self._non_diff, self._marked = tensors, True

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` gets None instead of zeros for outputs that got no gradient."""
        self._materialize = bool(value)

    def maybe_clear_saved_tensors(self) -> None:
        """Free the saved tensors now (used by code that manages memory itself)."""
        self._saved = None

    if TYPE_CHECKING:

        @property
        def needs_input_grad(self) -> tuple[bool, ...]: ...

    else:  # (read by nearly every backward: an attrgetter property runs no Python code)
        needs_input_grad = property(
            operator.attrgetter("_needs"),
            doc="One bool per forward argument: is it a tensor that requires grad?  Fixed when "
            "``apply`` is called, whatever the grad mode, as in torch.",
        )

    @property
    def requires_grad(self) -> bool:
        """True when some argument of the forward call requires grad."""
        return any(self.needs_input_grad)

    # ------------------------------------------------------------------ node behaviour
    def _num_outputs(self) -> int:
        return len(self._out_meta)

    def _release(self) -> None:
        self._saved = None

    def _run(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        """Run the user's backward on one gradient per output and check what it returns."""
        cls = self._forward_cls
        hooks = self._hooks
        if hooks is not None and hooks.pre:
            grads = run_prehooks(hooks.pre, grads)
        for g in grads:
            if g is None and self._materialize:  # zeros for the outputs that got no gradient
                grads = [zero_of(m) if g is None and m else g for g, m in zip(grads, self._out_meta)]
                break
        if cls.holomorphic and has_complex(grads):
            result = conjugate(cls._backward_impl(self, *conjugate(tuple(grads))))
        else:
            result = cls._backward_impl(self, grads) if cls.boxed_grads_call else cls._backward_impl(self, *grads)
        checked = check_grads(self, result)
        if hooks is not None and hooks.post:
            checked = run_posthooks(self, hooks.post, checked, grads)
        return checked


FunctionCtx = BackwardCFunction
_new_ctx = object.__new__  # a ctx without its __init__ call: ``_run`` sets its slots


def _overrides(cls: type, name: str) -> bool:
    """True when ``cls`` defines ``name`` itself rather than inheriting Function's."""
    if "Function" not in globals():
        return False  # Function itself is being made
    mine = inspect.getattr_static(cls, name, None)
    return mine is not None and mine is not Function.__dict__.get(name)


class FunctionMeta(type):
    """Gives each Function subclass its node class ``<Name>Backward`` and a binding plan."""

    _backward_cls: type[BackwardCFunction]
    node_name: str
    _plan: Plan
    _setup_style: bool
    _min_args: int
    _backward_impl: Callable[..., Any]
    _ctx_checks_left: int
    _has_jvp: bool

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
        super().__init__(name, bases, namespace)
        node_name = namespace.get("node_name") or f"{name}Backward"  # (declared by this class, not inherited)
        cls.node_name = node_name
        cls._backward_cls = type(
            node_name,
            (BackwardCFunction,),
            {
                "_forward_cls": cls,
                "skips_without_gradient": getattr(cls, "skips_without_gradient", False),
                "__module__": cls.__module__,
                "__doc__": f"Backward node of {name}.",
                **saved_field_properties(cls, node_name),  # grad_fn._saved_self, ...
            },
        )
        cls._backward_cls.forward_cls = cls  # type: ignore[assignment]  # public; the core reads _forward_cls
        cls._plan = plan = Plan(cls, _overrides(cls, "setup_context"))
        cls._setup_style = plan.setup_style
        cls._min_args = plan.min_args
        cls._ctx_checks_left = _CTX_ATTRIBUTE_CHECKS
        cls._has_jvp = _overrides(cls, "jvp")
        has_backward = _overrides(cls, "backward")
        has_vjp = _overrides(cls, "vjp")
        if has_backward and has_vjp:
            cls._backward_impl = raiser(
                RuntimeError,
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                "only implement one of them.",
            )
        elif has_vjp:
            cls._backward_impl = cls.vjp  # type: ignore[attr-defined]
        elif has_backward:
            cls._backward_impl = cls.backward  # type: ignore[attr-defined]
        else:
            cls._backward_impl = raiser(NotImplementedError, f"{_BACKWARD_MISSING} ({name} defines neither.)")


class Function(LegacyCalls, Generic[_Out], metaclass=FunctionMeta):
    """Base class for differentiable operations; subclass it and call ``apply``.

    >>> import ctxgrad
    >>> class Square(ctxgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x * x
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return 2 * x * grad
    >>> x = ctxgrad.tensor([3.0], requires_grad=True)
    >>> y = Square.apply(x)
    >>> y
    tensor([9.], grad_fn=<SquareBackward>)
    >>> y.sum().backward()
    >>> x.grad
    tensor([6.])
    """

    clear_saved_tensors_on_access: ClassVar[bool] = False
    boxed_grads_call: ClassVar[bool] = False
    #: ``backward`` is the derivative of a holomorphic function written as for real numbers
    #: (``grad * f'(x)``).  With complex gradients the engine then runs it on the conjugated
    #: gradients and conjugates what it returns, ``conj(f'(z)) * grad``: torch's convention
    #: (the conjugate Wirtinger derivative), with one formula for real and complex.
    holomorphic: ClassVar[bool] = False
    #: ``forward`` returns views of its inputs on purpose (a view op: ``x[0]``, ``reshape``),
    #: changed in place like any view.  A view a Function returns without this (``x.view_as(x)``,
    #: an input returned as-is) may not be changed in place, as in torch: the view's history
    #: would bypass the Function's own backward.
    returns_views: ClassVar[bool] = False
    #: When no gradient reaches any output, backward is not run and no input gets one (the
    #: built-in ops, as torch's formulas pass "undefined" on); a Function without it runs on
    #: zeros, as in torch.
    skips_without_gradient: ClassVar[bool] = False
    generate_vmap_rule: ClassVar[bool] = False
    #: The name of the node ``apply`` records: ``type(y.grad_fn).__name__`` and
    #: ``y.grad_fn.name()``.  A class that does not declare one (a subclass neither: it is not
    #: inherited) records ``<ClassName>Backward``, as torch names a custom Function's node; the
    #: built-in ops declare torch's (``node_name = "SinBackward0"``), and an overload that torch
    #: names apart is a subclass that declares its own (``remainder(tensor, number)``).
    node_name: ClassVar[str]
    #: ``forward`` writes into its first argument (and marks it dirty), as an in-place twin made
    #: by :func:`ctxgrad.autograd.in_place` does: under ``vmap`` an unbatched first argument
    #: with a batched other one is refused, as torch refuses it.
    writes_first_input: ClassVar[bool] = False

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """Compute the outputs; gets ``ctx`` first unless the class defines ``setup_context``."""
        raise NotImplementedError(_FORWARD_MISSING)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        """Fill the ctx from the inputs and output, for a ``forward`` that takes no ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    # The methods a subclass defines take ``*args: Any, **kwargs: Any`` here, so that a type
    # checker accepts any signature a subclass gives them (pyright checks overrides).
    @staticmethod
    def backward(*args: Any, **kwargs: Any) -> Any:
        """``backward(ctx, *grad_outputs)``: gradients of the inputs, one per forward
        argument, from one per output."""
        raise NotImplementedError(_BACKWARD_MISSING)

    @staticmethod
    def vjp(*args: Any, **kwargs: Any) -> Any:
        """``vjp(ctx, *grad_outputs)``: another name for ``backward``; define one of the two."""
        raise NotImplementedError(_BACKWARD_MISSING)

    @staticmethod
    def jvp(*args: Any, **kwargs: Any) -> Any:
        """``jvp(ctx, *grad_inputs)``: the forward-mode derivative, one tangent per output
        from one per input."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @staticmethod
    def vmap(*args: Any, **kwargs: Any) -> Any:
        """``vmap(info, in_dims, *args)``: the batching rule under ``ctxgrad.func.vmap``; this
        default means none: ``apply`` then generates one or loops over the samples."""
        raise NotImplementedError("vmap is not implemented for this Function")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> _Out:
        """Run ``forward`` on the arguments and, when grad is needed, record the call."""
        if kwargs or len(args) < cls._min_args:
            args = cls._plan.bind(cls, args, kwargs)
        modes = _state.modes  # (the thread's flags, fetched once per call)
        if modes.special:  # (one flag for the four modes: a trace, vmap, forward mode, inference)
            if modes.recorder is not None:
                return modes.recorder(cls, args)  # type: ignore[no-any-return]  # (inside ctxgrad.trace)
            if modes.vmap_levels and (batched := apply_batched(cls, args)) is not NOT_BATCHED:
                return batched  # type: ignore[no-any-return]  # (inside vmap: the batching rule)
            if modes.fw_levels:
                dual: _Out = apply_dual(cls, args, _run)
                return dual
        try:
            out: _Out = _run(cls, _new_ctx(cls._backward_cls), args, modes)
        except ValueError as exc:  # (NumPy's error for a write into a read-only array)
            explain_read_only(cls, args, exc)
            raise
        return out


def _run(cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], state: Modes | None = None) -> Any:
    """The body of ``apply``: forward (with grad mode off, as in torch), then record the
    call if grad mode was on and some input requires grad.  ``state``: the thread's modes."""
    if state is None:
        state = _state.modes
    for a in args:  # (a view whose base was changed in place is re-read: .requires_grad)
        if not isinstance(a, Tensor):
            continue
        t = a  # (a name for tensors only: the compiled core reads its fields at fixed offsets, function.pxd)
        if t._requires_grad or t._base is not None:
            # (a view's requires_grad re-reads its base: the property, only for views; a loop, as a
            # comprehension is a call of its own before Python 3.12)
            key = 1  # (needs_input_grad as bits after a leading 1: nodes share its tuple, shared_needs)
            for b in args:
                key += key
                if isinstance(b, Tensor):
                    t = b
                    key += t._requires_grad if t._base is None else t.requires_grad
            needs = _NEEDS.get(key) or shared_needs(key)
            break
    else:  # nothing requires grad, as for most ops inside forward and backward: all False
        needs = (False,) * len(args)
    ctx._needs, ctx._saved, ctx._hooks = needs, (), None  # (its __init__, inline)
    grad_enabled = state.grad_enabled
    if grad_enabled:
        state.grad_enabled = False  # (ops inside forward record nothing)
    try:
        if cls._setup_style:
            out = cls.forward(*args)
            cls.setup_context(ctx, args, out)
        else:
            out = cls.forward(ctx, *args)
    finally:
        if grad_enabled:
            state.grad_enabled = True
    # (inference mode records nothing; it is one of the special modes, so a plain call reads one flag)
    if grad_enabled and True in needs and not (state.special and state.inference):
        return _record(cls, ctx, args, out, state)
    # Nothing recorded: a fresh tensor result goes back as it is.
    if type(out) is Tensor:
        t = out
        if (
            t._data.base is None
            and ctx._dirty is None
            and not t._requires_grad
            and not state.special  # (inference mode marks its outputs)
        ):
            for a in args:
                if a is out:
                    break
            else:
                return out
    return finish_untracked(ctx, args, out, grad_enabled and not (state.special and state.inference))


class InplaceFunction(Function):
    """Kept for torch compatibility: a Function with an ``inplace`` flag."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Legacy torch base class; ctxgrad does not support nested-output functions."""


def _record(cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], out: Any, state: Modes) -> Any:
    """Make ``ctx`` the node of this call: edges to the inputs, ``grad_fn`` on the outputs,
    saved tensors packed with their versions."""
    edges: list[Any] = []  # (flat, four entries per argument: node, output_nr, shape, dtype; _edges.py)
    for a in args:
        if isinstance(a, Tensor):
            t = a  # (typed in the compiled core: function.pxd)
            if t._base is not None:
                t._history()
            data = t._data
            meta = _METAS.get(data.shape)  # (meta_of without its call, as the common case)
            if meta is None or meta[0][1] is not data.dtype:
                meta = meta_of(data)
            shape, dtype = meta[0]
            if not t._requires_grad:
                edges.extend((None, 0, shape, dtype))
            elif (fn := t._grad_fn) is None:
                edges.extend((_accumulator_of(t), 0, shape, dtype))
            else:
                edges.extend((fn, t._output_nr, shape, dtype))
        else:
            edges.extend(NO_EDGE)
    ctx._edges = tuple(edges)
    ctx._seq = next(_sequence)

    o = out if type(out) is Tensor else None  # (the output, typed as ``t`` is: function.pxd)
    if o is not None and not ctx._marked:
        # The common case, one output: its grad_fn is this node.
        for a in args:
            if a is out:
                out = o = alias(out, cls)
                break
        else:
            if o._data.base is not None:  # (a view of an input shares its version counter)
                mark_view(cls, o, 0, False, args, True)
        data = o._data
        meta = _METAS.get(data.shape)  # ((shape, dtype),), shared between nodes (meta_of, inline)
        if meta is None or meta[0][1] is not data.dtype:
            meta = meta_of(data)
        ctx._out_meta = meta
        if meta[0][1].kind in "fc":  # a floating or complex output is differentiable
            o._grad_fn = ctx
            o._output_nr = 0
            o._requires_grad = True
    else:
        out = wire_outputs(cls, ctx, args, out, ctx._dirty, ctx._non_diff)
    to_save = ctx.to_save
    if to_save is not None:
        pack_saved(cls, ctx, to_save, state)
    if cls._ctx_checks_left:  # (a Function's first calls only: reading __dict__ makes one)
        warn_tensor_attributes(cls, ctx.__dict__)
    if state.anomaly:
        record_forward(ctx)
    return out


# --------------------------------------------------------------------------- once_differentiable
class DelayedError(Function):
    """Stands in the graph where a once-differentiable backward's results were used;
    differentiating through it raises."""

    node_name = "Error"  # torch's name for this node
    returns_views = True

    @staticmethod
    def forward(ctx: Any, message: str, n_grads: int, *tensors: Tensor) -> Any:
        ctx.message = message
        outs = tuple(_wrap(t._data) for t in tensors[:n_grads])
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise OnceDifferentiableError(ctx.message)


def _phantom(edge: Any) -> Tensor:
    """A data-less stand-in tensor whose history is ``edge``: lets DelayedError link to it."""
    node, nr, shape, dtype = edge
    if isinstance(node, Node) and node.name() == "AccumulateGrad":
        return node.variable  # type: ignore[attr-defined,no-any-return]
    t = _wrap(np.broadcast_to(np.zeros((), dtype=dtype), shape))
    t._grad_fn = node
    t._output_nr = nr
    t._requires_grad = True
    return t


def once_differentiable_message(name: str) -> str:
    """The error for differentiating what the ``once_differentiable`` backward of ``name`` gave."""
    return (
        f"trying to differentiate twice a function that was marked with @once_differentiable ({name}); "
        "write its backward in differentiable ctxgrad operations to allow higher-order gradients"
    )


def once_differentiable(fn: Callable[..., _T]) -> Callable[..., _T]:
    """Mark a ``backward`` that cannot itself be differentiated (NumPy inside, say).

    It runs under ``no_grad``.  As in torch, when a graph of the backward is being built
    (``create_graph=True``) and a gradient it gets requires grad, its results are linked to
    those through an ``Error`` node (torch's name), so differentiating them raises ``trying
    to differentiate twice a function that was marked with @once_differentiable``; otherwise
    they do not require grad (``x.grad`` after ``backward(create_graph=True)``).  Where the
    node's inputs require grad, the node is noted (``_state.modes.once_dropped``): differentiating
    such a gradient names it; and where the library differentiates the derivative again
    itself (:func:`~ctxgrad.autograd._grad.differentiated_again`: the functional API's
    Hessians, nested ``ctxgrad.func`` transforms), the results are linked to the node's
    inputs, so that this raises rather than give zeros (torch's silent answer).
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        outputs = run_in_grad_mode(False, fn, ctx, *args)
        if not _state.modes.grad_enabled:
            return outputs
        is_tuple = isinstance(outputs, tuple)
        outs: list[Any] = list(outputs) if isinstance(outputs, tuple) else [outputs]
        positions = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        if not positions:
            return outputs
        links = [g for g in args if isinstance(g, Tensor) and g._requires_grad]
        inputs = [e for e in edges_of(ctx) if e is not None and e[0] is not None]
        if not links and inputs:
            _state.modes.once_dropped = ctx.name()
            watch = _state.modes.once_watch
            if watch is not None:  # (the library differentiates this derivative again)
                watch.append(ctx.name())
                links = [_phantom(e) for e in inputs]
        if not links:
            return outputs
        message = once_differentiable_message(ctx.name())
        made = DelayedError.apply(message, len(positions), *(outs[i] for i in positions), *links)
        for i, t in zip(positions, made):
            outs[i] = t
        return tuple(outs) if is_tuple else outs[0]

    wrapper._once_differentiable = True  # type: ignore[attr-defined]
    return wrapper
