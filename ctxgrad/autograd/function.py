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
``ctx._run``, which runs ``backward`` and hands what it returns to :func:`_check_grads`,
the single place where every gradient any op returns is checked and fitted to its input.

Built-in ops in :mod:`ctxgrad.ops` are written exactly like this; read any of them as an
example.
"""

from __future__ import annotations

import functools
import inspect
import traceback
import warnings
from collections.abc import Callable
from typing import Any, ClassVar, Generic

import numpy as np
from typing_extensions import TypeVar

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd.graph import _FREED_MSG, Node, SavedTensor, _accumulator_of, _locks, _sequence

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


class GradientTypeError(TypeError, RuntimeError):
    """A value of the wrong type where autograd needs a tensor: a backward that returns a
    float, a list or an array as a gradient, or ``ctx.mark_dirty(3)``.

    It is a ``TypeError`` and, because torch raises ``RuntimeError`` for the same misuse, a
    ``RuntimeError`` too, so ``except RuntimeError`` in ported code still catches it.
    """


# ctx attributes that belong to ctxgrad: the check for tensors stored on ctx skips them.
# The ctx attributes of a Function's first recorded calls are checked for tensors; by then
# a Function that stores one has shown it, and later calls skip the scan.
_CTX_ATTRIBUTE_CHECKS = 16


_INTERNAL_ATTRS = frozenset({"_saved", "_materialize", "_saved_forward", "_cleared_on_access", "to_save"})
_FORWARD_MISSING = "You must implement the forward function for custom autograd.Function."
_BACKWARD_MISSING = (
    "You must implement either the backward or vjp method for your custom autograd.Function "
    "to use it with backward mode AD."
)


class BackwardCFunction(Node):
    """The ctx handed to ``forward``/``setup_context``/``backward``, and the graph node.

    Each ``Function`` subclass ``F`` gets a subclass ``FBackward`` of this class; one
    instance is made per ``F.apply`` call and becomes ``grad_fn`` of the outputs.
    Attributes you set on it (``ctx.scale = 2``) are kept until the node is freed.
    """

    __slots__ = ("__dict__", "_needs", "_out_meta")

    _forward_cls: ClassVar[type[Function]]
    _needs: tuple[bool, ...]

    # Defaults for what the ctx API sets; an instance stores only what was set.
    to_save: tuple[Tensor | None, ...] | None = None
    _dirty: tuple[Tensor, ...] | None = None
    _non_diff: tuple[Tensor, ...] | None = None
    _materialize: bool = True
    _saved_forward: tuple[Tensor | None, ...] | None = None
    _saved: tuple[SavedTensor | None, ...] | None = ()
    _cleared_on_access: bool = False

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
        self._saved_forward = tensors

    @property
    def saved_tensors(self) -> tuple[Tensor | None, ...]:
        """The tensors given to ``save_for_backward``, checked for in-place changes.

        Empty inside ``forward``; after a backward without ``retain_graph`` it raises.
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
        out = tuple(None if s is None else s.unpack(self, i) for i, s in enumerate(saved))
        if saved and self._forward_cls.clear_saved_tensors_on_access:
            self._saved = None
            self._cleared_on_access = True
        return out

    @property
    def saved_variables(self) -> tuple[Tensor | None, ...]:
        """Deprecated alias of ``saved_tensors``."""
        warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def mark_dirty(self, *tensors: Tensor) -> None:
        """Declare the inputs that ``forward`` changed in place; they must be returned.

        The returned tensor is the same object, its version is bumped, and its history
        now goes through this node.  A leaf that requires grad cannot be changed in place.
        """
        _check_all_tensors(self, "mark_dirty", tensors)
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Declare outputs that have no gradient: they do not require grad, and
        ``backward`` receives zeros (or None without materialisation) for them."""
        _check_all_tensors(self, "mark_non_differentiable", tensors)
        self._non_diff = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """With False, ``backward`` gets None instead of zeros for outputs that got no gradient."""
        self._materialize = bool(value)

    def mark_shared_storage(self, *pairs: Any) -> None:
        """Removed from torch long ago; kept so old code gets a clear message."""
        raise RuntimeError("mark_shared_storage is deprecated. Tensors with shared storages are automatically tracked.")

    def maybe_clear_saved_tensors(self) -> None:
        """Free the saved tensors now (used by code that manages memory itself)."""
        self._saved = None

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """One bool per forward argument: is it a tensor that requires grad?

        Fixed when ``apply`` is called, whatever the grad mode, as in torch.
        """
        return self._needs

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
            grads = _run_prehooks(hooks.pre, grads)
        if self._materialize:
            for i, g in enumerate(grads):
                if g is None:
                    m = self._out_meta[i]
                    if m is not None:
                        grads[i] = _wrap(np.zeros(m[0], dtype=m[1]))
        backward = cls._backward_impl
        if cls.boxed_grads_call:
            result = backward(self, grads)
        else:
            result = backward(self, *grads)
        checked = _check_grads(self, result)
        if hooks is not None and hooks.post:
            checked = _run_posthooks(self, hooks.post, checked, grads)
        return checked


FunctionCtx = BackwardCFunction


def _check_all_tensors(ctx: BackwardCFunction, what: str, tensors: tuple[Any, ...]) -> None:
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise GradientTypeError(
                f"{what} only accepts Tensors, but argument {i} is of type {type(t).__name__} "
                f"(in {ctx._forward_cls.__name__}.forward)"
            )


def _run_prehooks(hooks: list[Callable[..., Any]], grads: list[Tensor | None]) -> list[Tensor | None]:
    for hook in tuple(hooks):
        new = hook(tuple(grads))
        if new is None:
            continue
        if not isinstance(new, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
        if len(new) != len(grads):
            raise RuntimeError(
                f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of values "
                f"(got {len(new)}, but expected {len(grads)})"
            )
        grads = list(new)
    return grads


def _run_posthooks(
    node: BackwardCFunction, hooks: list[Callable[..., Any]], checked: list[Tensor | None], grads: list[Tensor | None]
) -> list[Tensor | None]:
    # Hooks see one gradient per tensor argument, as next_functions lists them.
    slots = [i for i, e in enumerate(node._edges) if e is not None]
    grad_inputs = tuple(checked[i] for i in slots)
    for hook in tuple(hooks):
        new = hook(grad_inputs, tuple(grads))
        if new is None:
            continue
        if not isinstance(new, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
        if len(new) != len(grad_inputs):
            raise RuntimeError(
                f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of values "
                f"(got {len(new)}, but expected {len(grad_inputs)})"
            )
        for old, g in zip(grad_inputs, new):
            if g is not None and old is not None and g._data.shape != old._data.shape:
                raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has changed the size of value")
        grad_inputs = new
    checked = list(checked)
    for i, g in zip(slots, grad_inputs):
        checked[i] = g
    return checked


# --------------------------------------------------------------------------- checking gradients
def _expandable(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """True when ``shape`` broadcasts to ``target`` (so a gradient of ``target`` sums down)."""
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


def _check_grads(node: BackwardCFunction, result: Any) -> list[Tensor | None]:
    """Check what a backward returned, one gradient per forward argument, and fit each one.

    This is the one place where gradients are validated: the count (extra trailing Nones
    are allowed), the type, the shape (a gradient of a broadcast shape is summed down to
    the input's shape, anything else is an error naming the argument), and the dtype
    (cast to the input's, as torch does).  Gradients for tensors that do not require grad
    are checked too, then dropped.
    """
    edges = node._edges
    if type(result) is not tuple:
        if len(edges) == 1 and type(result) is Tensor:
            # The common case, one argument: check it without building tuples.
            e = edges[0]
            data = result._data
            if e is not None and data.shape == e[2] and data.dtype == e[3]:
                return [result if e[0] is not None else None]
        result = (result,)
    n = len(edges)
    if len(result) != n:
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]
        else:
            raise RuntimeError(
                f"function {node.name()} returned an incorrect number of gradients (expected {n}, "
                f"got {len(result)}){_signature_hint(node)}"
            )
    out: list[Tensor | None] = []
    for i in range(n):
        g = result[i]
        if g is None:
            out.append(None)
            continue
        e = edges[i]
        if e is None:
            raise GradientTypeError(
                f"function {node.name()} returned a gradient different than None at position {i + 1}, "
                "but the corresponding forward input was not a Variable "
                f"(argument {_arg_label(node, i)} is not a tensor; return None for it)"
            )
        if not isinstance(g, Tensor):
            raise GradientTypeError(
                f"expected Variable or None (got {type(g).__name__}): function {node.name()} returned "
                f"it as the gradient of argument {_arg_label(node, i)}; wrap it with ctxgrad.tensor or return None"
            )
        data = g._data
        if data.shape != e[2]:
            g = _fit_shape(node, i, g, e[2])
        if data.dtype != e[3]:
            g = _fit_dtype(node, i, g, e[3])
        out.append(g if e[0] is not None else None)
    return out


def _fit_shape(node: BackwardCFunction, i: int, g: Tensor, shape: tuple[int, ...]) -> Tensor:
    if _expandable(shape, g._data.shape):
        from ctxgrad.ops.reduction import SumToSize

        return SumToSize.apply(g, shape)
    raise RuntimeError(
        f"Function {node.name()} returned an invalid gradient at index {i} - got {list(g._data.shape)} "
        f"but expected shape compatible with {list(shape)} (argument {_arg_label(node, i)} of "
        f"{node._forward_cls.__name__}.forward has shape {list(shape)}; a gradient must have the "
        "argument's shape or a shape it broadcasts to)"
    )


def _fit_dtype(node: BackwardCFunction, i: int, g: Tensor, dtype: np.dtype[Any]) -> Tensor:
    if g._data.dtype.kind == "c" and dtype.kind != "c":
        raise RuntimeError(
            f"Function {node.name()} returned a complex gradient for argument {_arg_label(node, i)}, "
            f"which is real ({dtype.name}); return the real part or make the input complex"
        )
    return g.to(dtype)


def _arg_label(node: BackwardCFunction, i: int) -> str:
    return _arg_label_of(node._forward_cls, i)


def _signature_hint(node: BackwardCFunction) -> str:
    names = node._forward_cls._plan.slot_names
    if names and len(names) == len(node._edges):
        return f"; forward takes ({', '.join(names)}), so backward must return one gradient (or None) for each"
    return ""


# --------------------------------------------------------------------------- binding arguments
class _Plan:
    """How ``apply``'s arguments map onto ``forward``'s parameters; made once per class."""

    __slots__ = ("defaults", "kwonly", "min_args", "setup_style", "slot_names", "var_keyword", "var_positional")

    def __init__(self, cls: type[Function]) -> None:
        self.setup_style = _overrides(cls, "setup_context")
        params: list[inspect.Parameter] = []
        try:
            params = list(inspect.signature(cls.forward).parameters.values())
        except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
            params = []
        if (
            not self.setup_style
            and params
            and params[0].kind
            in (
                inspect.Parameter.POSITIONAL_ONLY,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
            )
        ):
            params = params[1:]  # the ctx
        positional = [
            p for p in params if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        ]
        self.slot_names = tuple(p.name for p in positional)
        self.defaults = {p.name: p.default for p in positional if p.default is not inspect.Parameter.empty}
        self.var_positional = any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params)
        self.var_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
        self.kwonly = tuple(p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY)
        # setup_context sees every parameter, defaults filled in, as torch's does.
        self.min_args = len(self.slot_names) if self.setup_style else 0

    def bind(self, cls: type[Function], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        """Place keyword arguments in their slots and fill skipped parameters with defaults."""
        names = self.slot_names
        where = f"{cls.__name__}.forward()"
        for key in kwargs:
            if key in names[: len(args)]:
                raise TypeError(f"{where} got multiple values for argument '{key}'")
            if key not in names:
                if key in self.kwonly:
                    raise TypeError(
                        f"{where}: keyword-only parameter '{key}' is not supported by apply; make it an "
                        "ordinary parameter (before any *) so it gets an input slot"
                    )
                raise TypeError(f"{where} got an unexpected keyword argument '{key}'")
        bound = list(args)
        for pos in range(len(args), len(names)):
            name = names[pos]
            if name in kwargs:
                bound.append(kwargs[name])
            elif name in self.defaults:
                bound.append(self.defaults[name])
            else:
                missing = [n for n in names[pos:] if n not in kwargs and n not in self.defaults]
                raise TypeError(
                    f"{where} missing {len(missing)} required argument{'s' if len(missing) > 1 else ''}: "
                    + ", ".join(f"'{m}'" for m in missing)
                )
        return tuple(bound)


def _overrides(cls: type, name: str) -> bool:
    """True when ``cls`` defines ``name`` itself rather than inheriting Function's."""
    if "Function" not in globals():
        return False  # Function itself is being made
    mine = inspect.getattr_static(cls, name, None)
    return mine is not None and mine is not Function.__dict__.get(name)


class FunctionMeta(type):
    """Gives each Function subclass its node class ``<Name>Backward`` and a binding plan."""

    _backward_cls: type[BackwardCFunction]
    _plan: _Plan
    _setup_style: bool
    _min_args: int
    _backward_impl: Callable[..., Any]
    _ctx_checks_left: int
    _has_jvp: bool

    def __init__(cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> None:
        super().__init__(name, bases, namespace)
        node_name = namespace.get("_backward_name") or f"{name}Backward"
        cls._backward_cls = type(
            node_name,
            (BackwardCFunction,),
            {"_forward_cls": cls, "__module__": cls.__module__, "__doc__": f"Backward node of {name}."},
        )
        cls._plan = plan = _Plan(cls)  # type: ignore[arg-type]
        cls._setup_style = plan.setup_style
        cls._min_args = plan.min_args
        cls._ctx_checks_left = _CTX_ATTRIBUTE_CHECKS
        cls._has_jvp = _overrides(cls, "jvp")
        has_backward = _overrides(cls, "backward")
        has_vjp = _overrides(cls, "vjp")
        if has_backward and has_vjp:
            cls._backward_impl = _raiser(
                RuntimeError,
                "Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                "only implement one of them.",
            )
        elif has_vjp:
            cls._backward_impl = cls.vjp  # type: ignore[attr-defined]
        elif has_backward:
            cls._backward_impl = cls.backward  # type: ignore[attr-defined]
        else:
            cls._backward_impl = _raiser(NotImplementedError, f"{_BACKWARD_MISSING} ({name} defines neither.)")


def _raiser(exc: type[Exception], msg: str) -> Callable[..., Any]:
    def raise_(*args: Any) -> Any:
        raise exc(msg)

    return raise_


class Function(Generic[_Out], metaclass=FunctionMeta):
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
    generate_vmap_rule: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        if args or kwargs:
            raise RuntimeError(
                f"{cls.__name__} should not be instantiated: Functions are used through their class. "
                f"Call {cls.__name__}.apply(...) with these arguments instead."
            )
        warnings.warn(
            f"{cls} should not be instantiated. Methods on autograd functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autograd function will raise an "
            "error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            f"new-style autograd function with static forward method: call {type(self).__name__}.apply(...)."
        )

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """Compute the outputs; gets ``ctx`` first unless the class defines ``setup_context``."""
        raise NotImplementedError(_FORWARD_MISSING)

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        """Fill the ctx from the inputs and output, for a ``forward`` that takes no ctx."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Gradients of the inputs, one per forward argument, from one per output."""
        raise NotImplementedError(_BACKWARD_MISSING)

    @staticmethod
    def vjp(ctx: Any, *grad_outputs: Any) -> Any:
        """Another name for ``backward``; define one of the two."""
        raise NotImplementedError(_BACKWARD_MISSING)

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward-mode derivative: one tangent per output from one per input."""
        raise NotImplementedError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
        )

    @staticmethod
    def vmap(info: Any, in_dims: Any, *args: Any) -> Any:
        """Batching rule (used by function transforms, which ctxgrad does not have yet)."""
        raise NotImplementedError("vmap is not implemented for this Function")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> _Out:
        """Run ``forward`` on the arguments and, when grad is needed, record the call."""
        if kwargs or len(args) < cls._min_args:
            args = cls._plan.bind(cls, args, kwargs)
        if _state.fw_levels:
            dual: _Out = _apply_dual(cls, args)
            return dual
        ctx = cls._backward_cls()
        ctx._hooks = None
        ctx._metadata = None
        try:
            out: _Out = _run(cls, ctx, args)
        except ValueError as exc:
            if "read-only" in str(exc):
                _explain_read_only(cls, args, exc)
            raise
        return out


def _explain_read_only(cls: type[Function], args: tuple[Any, ...], exc: ValueError) -> None:
    """NumPy refused a write into an argument's array that a graph holds for backward (read-only
    while saved): say which, and what to do instead."""
    for i, a in enumerate(args):
        if isinstance(a, Tensor) and (id(a._data) in _locks or id(a._data.base) in _locks):
            raise RuntimeError(
                f"{cls.__name__}.forward wrote into the array of argument {_arg_label_of(cls, i)} with NumPy, "
                "but a graph has saved that tensor for backward, so its array is read-only while it is saved "
                "(a NumPy write there would make that backward silently wrong; torch finds out only at "
                "backward, with a version error). Change it with ctxgrad's in-place ops (x.mul_(2), "
                "x[...] = v: the version counter tracks them) and ctx.mark_dirty, or work on a clone."
            ) from exc


def _arg_label_of(cls: type[Function], i: int) -> str:
    names = cls._plan.slot_names
    name = names[i] if i < len(names) else f"args[{i - len(names)}]"
    return f"'{name}' (index {i})"


def _run(cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...]) -> Any:
    """The body of ``apply``: forward, then record the call if some input requires grad."""
    setup_style = cls._setup_style
    state = _state
    out: Any
    ctx._needs = needs = tuple([isinstance(a, Tensor) and a._requires_grad for a in args])
    grad_enabled = state.grad_enabled
    if grad_enabled:
        # forward runs with grad mode off, as in torch.
        state.grad_enabled = False
        try:
            if setup_style:
                out = cls.forward(*args)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args)
        finally:
            state.grad_enabled = True
        if True in needs:
            return _record(cls, ctx, args, out)
    elif setup_style:
        out = cls.forward(*args)
        cls.setup_context(ctx, args, out)
    else:
        out = cls.forward(ctx, *args)
    # Nothing recorded: a fresh tensor result goes back as it is.
    if (
        type(out) is Tensor
        and out._data.base is None
        and ctx._dirty is None
        and not out._requires_grad
        and not state.inference
    ):
        for a in args:
            if a is out:
                break
        else:
            return out
    return _finish_untracked(ctx, args, out, grad_enabled)


class InplaceFunction(Function):
    """Kept for torch compatibility: a Function with an ``inplace`` flag."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    """Legacy torch base class; ctxgrad does not support nested-output functions."""


# --------------------------------------------------------------------------- output processing
def _reject_container(cls: type[Function], out: Any, index: int | None = None) -> None:
    """A list or dict holding tensors, returned by forward (or as output ``index`` of its
    tuple), is an error: its tensors would get no gradient, as they silently do in torch."""
    if isinstance(out, (list, dict)):
        values = out.values() if isinstance(out, dict) else out
        if any(isinstance(v, Tensor) for v in values):
            where = "" if index is None else f" as output {index}"
            raise TypeError(
                f"{cls.__name__}.forward returned a {type(out).__name__} of tensors{where}; return the "
                "tensors as elements of a tuple instead (torch silently drops the gradients of tensors "
                "inside a list or dict)"
            )


def _alias(t: Tensor) -> Tensor:
    """A new tensor object sharing ``t``'s storage and version: an input returned as-is."""
    out = _wrap(t._data)
    out._vc = vc = t._get_vc()
    out._base = t._base if t._base is not None else t
    out._view_made_in_function = True
    out._view_version = vc.value
    return out


def _finish_untracked(ctx: BackwardCFunction, args: tuple[Any, ...], out: Any, grad_enabled: bool) -> Any:
    """Outputs of a call that records nothing: aliases for inputs returned as-is, dirty
    inputs version-bumped, inference tensors marked."""
    cls = ctx._forward_cls
    is_tuple = type(out) is tuple
    outs = list(out) if is_tuple else [out]
    if not is_tuple:
        _reject_container(cls, out)
    dirty = ctx._dirty
    inference = _state.inference
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            if is_tuple:
                _reject_container(cls, o, i)
            continue
        if dirty is not None and any(o is d for d in dirty):
            o._bump_version()
        elif any(o is a for a in args):
            outs[i] = o = _alias(o)
        else:
            if o._requires_grad:
                # forward built history with enable_grad; nothing is recorded, so drop it.
                outs[i] = o = o.detach()
            base_arr = o._data.base
            if base_arr is not None and o._base is None:
                _link_view(o, base_arr, args)
        if inference:
            o._inference = True
    if dirty is not None:
        _check_dirty_returned(cls, ctx, args, dirty, outs)
    return tuple(outs) if is_tuple else outs[0]


def _check_dirty_returned(
    cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], dirty: tuple[Tensor, ...], outs: list[Any]
) -> None:
    for d in dirty:
        if not any(d is o for o in outs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as output. "
                f"The inputs that are modified inplace must all be outputs of the Function ({cls.__name__})."
            )
        if not any(d is a for a in args):
            warnings.warn(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
                f"been mutated should be passed to ctx.mark_dirty() (in {cls.__name__}.forward).",
                UserWarning,
                stacklevel=4,
            )


def _record(cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], out: Any) -> Any:
    """Make ``ctx`` the node of this call: edges to the inputs, ``grad_fn`` on the outputs,
    saved tensors packed with their versions."""
    edges: list[Any] = []
    for a in args:
        if isinstance(a, Tensor):
            data = a._data
            if a._base is not None:
                a._history()
            if a._requires_grad:
                fn = a._grad_fn
                if fn is None:
                    edges.append((_accumulator_of(a), 0, data.shape, data.dtype))
                else:
                    edges.append((fn, a._output_nr, data.shape, data.dtype))
            else:
                edges.append((None, 0, data.shape, data.dtype))
        else:
            edges.append(None)
    ctx._edges = tuple(edges)
    ctx._seq = next(_sequence)

    dirty = ctx._dirty
    non_diff = ctx._non_diff
    result: Any
    if type(out) is Tensor and dirty is None and non_diff is None and out._data.base is None:
        # The common case, one fresh output: wired here without the general loop.
        for a in args:
            if a is out:
                out = _alias(out)
                break
        data = out._data
        if data.dtype.kind in "fc":
            out._grad_fn = ctx
            out._output_nr = 0
            out._requires_grad = True
        ctx._out_meta = ((data.shape, data.dtype),)
        result = out
    elif type(out) is tuple:
        outs = list(out)
        meta: list[tuple[tuple[int, ...], np.dtype[Any]] | None] = []
        for i, o in enumerate(outs):
            if isinstance(o, Tensor):
                outs[i] = o = _wire_output(ctx, args, o, i, dirty, non_diff)
                meta.append((o._data.shape, o._data.dtype))
            else:
                _reject_container(cls, o, i)
                meta.append(None)
        ctx._out_meta = tuple(meta)
        result = tuple(outs)
        _finish_marks(cls, ctx, args, dirty, non_diff, outs)
    elif isinstance(out, Tensor):
        result = _wire_output(ctx, args, out, 0, dirty, non_diff)
        ctx._out_meta = ((result._data.shape, result._data.dtype),)
        _finish_marks(cls, ctx, args, dirty, non_diff, [result])
    else:
        _reject_container(cls, out)
        ctx._out_meta = (None,)
        result = out
        _finish_marks(cls, ctx, args, dirty, non_diff, [out])

    if dirty is not None:
        for d in dirty:
            if d._base is not None and d._grad_fn is ctx:
                _rebase_view_base(d)
    to_save = ctx.to_save
    if to_save is not None:
        _pack_saved(cls, ctx, to_save)
    attrs = ctx.__dict__
    if attrs and cls._ctx_checks_left:
        _warn_tensor_attributes(cls, attrs)
    if _state.anomaly:
        ctx.metadata["traceback_"] = traceback.format_stack()[:-2]
    return result


def _finish_marks(
    cls: type[Function],
    ctx: BackwardCFunction,
    args: tuple[Any, ...],
    dirty: tuple[Tensor, ...] | None,
    non_diff: tuple[Tensor, ...] | None,
    outs: list[Any],
) -> None:
    """Check that dirty tensors were returned, then drop the marks (they are consumed)."""
    if dirty is not None:
        _check_dirty_returned(cls, ctx, args, dirty, outs)
        del ctx._dirty
    if non_diff is not None and "_dual" not in ctx.__dict__:
        del ctx._non_diff  # (forward mode reads it after the call: see _apply_dual)


def _pack_saved(cls: type[Function], ctx: BackwardCFunction, to_save: tuple[Any, ...]) -> None:
    """Turn what ``save_for_backward`` got into SavedTensors that remember their versions."""
    for i, t in enumerate(to_save):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(
                f"save_for_backward can only save variables, but argument {i} is of type "
                f"{type(t).__name__} (in {cls.__name__}.forward). Save non-tensors as attributes "
                "of ctx instead."
            )
        if t is not None and t._inference:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                "inference mode in computation tracked by autograd. To work around this, you can make a "
                "clone to get a normal tensor and use it in autograd, or use ctxgrad.no_grad() instead of "
                f"ctxgrad.inference_mode() ({cls.__name__} saves one as saved_tensors[{i}])."
            )
    ctx._saved = tuple([None if t is None else SavedTensor(t, ctx) for t in to_save])
    del ctx.to_save


def _wire_output(
    ctx: BackwardCFunction,
    args: tuple[Any, ...],
    o: Tensor,
    i: int,
    dirty: tuple[Tensor, ...] | None,
    non_diff: tuple[Tensor, ...] | None,
) -> Tensor:
    """Make output ``i`` of a recorded call point at ``ctx``."""
    differentiable = o._data.dtype.kind in "fc" and (non_diff is None or not any(o is t for t in non_diff))
    if dirty is not None and any(o is d for d in dirty):
        if o._grad_fn is None and o._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation "
                f"(marked dirty in {ctx._forward_cls.__name__}.forward)."
            )
        if o._base is not None and o._base._grad_fn is None and o._base._requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation "
                f"(marked dirty in {ctx._forward_cls.__name__}.forward)."
            )
        o._bump_version()
    else:
        for a in args:
            if a is o:
                o = _alias(o)
                break
        else:
            base_arr = o._data.base
            if base_arr is not None and o._base is None:
                _link_view(o, base_arr, args)
    if differentiable:
        o._grad_fn = ctx
        o._output_nr = i
        o._requires_grad = True
    else:
        o._grad_fn = None
        o._requires_grad = False
    return o


def _rebase_view_base(view: Tensor) -> None:
    """A view changed in place by a recorded Function: its base's history now goes through
    the change (``CopySlices``, as for the built-in in-place ops), and the view is re-read
    from the new base.  The write itself was already counted in the version."""
    from ctxgrad.ops.inplace import CopySlices, _reread, view_positions

    base = view._base
    assert base is not None
    positions = view_positions(view._data, base._data)
    vc = view._get_vc()
    version = view._view_version = vc.value  # its grad_fn (this node) is current: no re-read
    CopySlices.apply(base, view, positions, None)
    vc.value = version
    _reread(view, base, positions)


def _link_view(o: Tensor, base_arr: Any, args: tuple[Any, ...]) -> None:
    """An output whose array is a view of an input's array shares that input's version."""
    for a in args:
        if isinstance(a, Tensor):
            arr = a._data
            if base_arr is arr or (arr.base is not None and base_arr is arr.base):
                o._vc = vc = a._get_vc()
                o._base = a._base if a._base is not None else a
                o._view_made_in_function = True
                o._view_version = vc.value
                return


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, Tensor) for v in value)
    if isinstance(value, dict):
        return any(isinstance(v, Tensor) for v in value.values())
    return False


def _warn_tensor_attributes(cls: type[Function], attrs: dict[str, Any]) -> None:
    cls._ctx_checks_left -= 1
    for key, value in attrs.items():
        if key not in _INTERNAL_ATTRS and _holds_tensor(value):
            cls._ctx_checks_left = 0
            warnings.warn(
                f"{cls.__name__} stores a Tensor as ctx.{key}. A tensor kept as a ctx attribute skips the "
                "in-place version check (a later in-place change gives a silently wrong gradient) and can "
                "keep the graph alive (a reference cycle when it is an output). Pass it to "
                "ctx.save_for_backward(...) and read it from ctx.saved_tensors instead. (Warned once per "
                "Function class.)",
                UserWarning,
                stacklevel=4,
            )
            return


# --------------------------------------------------------------------------- once_differentiable
class DelayedError(Function):
    """Stands in the graph where a once-differentiable backward's results were used;
    differentiating through it raises."""

    _backward_name = "DelayedErrorBackward"

    @staticmethod
    def forward(ctx: Any, message: str, n_grads: int, *tensors: Tensor) -> Any:
        ctx.message = message
        outs = tuple(_wrap(t._data) for t in tensors[:n_grads])
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise RuntimeError(ctx.message)


def _phantom(edge: Any) -> Tensor:
    """A data-less stand-in tensor whose history is ``edge``: lets DelayedError link to it."""
    node, nr, shape, dtype = edge
    t = _wrap(np.broadcast_to(np.zeros((), dtype=dtype), shape))
    if isinstance(node, Node) and node.name() == "AccumulateGrad":
        return node.variable  # type: ignore[attr-defined,no-any-return]
    t._grad_fn = node
    t._output_nr = nr
    t._requires_grad = True
    return t


def once_differentiable(fn: Callable[..., _T]) -> Callable[..., _T]:
    """Mark a ``backward`` that cannot itself be differentiated (NumPy inside, say).

    It runs under ``no_grad``.  When a graph of the backward is being built
    (``create_graph=True``), its results are linked to the node's inputs through a
    ``DelayedErrorBackward`` node, so any later attempt to differentiate them, through
    ``.backward()`` or through ``autograd.grad``, raises ``trying to differentiate twice a
    function that was marked with @once_differentiable`` instead of giving zeros.
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        prev = _state.grad_enabled
        _state.grad_enabled = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _state.grad_enabled = prev
        if not prev:
            return outputs
        is_tuple = isinstance(outputs, tuple)
        outs: list[Any] = list(outputs) if isinstance(outputs, tuple) else [outputs]
        positions = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
        if not positions:
            return outputs
        links = [_phantom(e) for e in getattr(ctx, "_edges", ()) if e is not None and e[0] is not None]
        links += [g for g in args if isinstance(g, Tensor) and g._requires_grad]
        if not links:
            return outputs
        message = (
            "trying to differentiate twice a function that was marked with @once_differentiable "
            f"({ctx.name()}); write its backward in differentiable ctxgrad operations to allow "
            "higher-order gradients"
        )
        made = DelayedError.apply(message, len(positions), *(outs[i] for i in positions), *links)
        for i, t in zip(positions, made):
            outs[i] = t
        return tuple(outs) if is_tuple else outs[0]

    wrapper._once_differentiable = True  # type: ignore[attr-defined]
    return wrapper


# --------------------------------------------------------------------------- forward mode
class _SavedAsIs:
    """A saved slot that hands back its tensor unchanged: what ``saved_tensors`` reads
    inside ``jvp`` (the tensors of ``save_for_forward``, or of an unrecorded call)."""

    __slots__ = ("tensor",)

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor

    def unpack(self, ctx: Any, index: int) -> Tensor:
        return self.tensor


def _apply_dual(cls: type[Function], args: tuple[Any, ...]) -> Any:
    """``apply`` while a dual level is open: forward (with the levels whose tangents it
    computes switched off, so that it sees plain values), then ``jvp`` once per level at
    which an argument has a tangent."""
    levels = _state.fw_levels
    per_level = [(lv, ts) for lv in levels if (ts := forward_ad.tangents_of(args, lv)) is not None]
    ctx = cls._backward_cls()
    ctx._hooks = None
    ctx._metadata = None
    if not per_level:
        return _run(cls, ctx, args)
    active = {lv for lv, _ in per_level}
    _state.fw_levels = tuple(lv for lv in levels if lv not in active)
    ctx.__dict__["_dual"] = True  # keeps ctx._non_diff for the tangents below
    try:
        out = _run(cls, ctx, args)
    finally:
        _state.fw_levels = levels
        del ctx.__dict__["_dual"]
    non_diff = ctx.__dict__.pop("_non_diff", None) or ()  # (a recorded node must not keep its outputs)
    saved_forward = ctx._saved_forward
    if saved_forward is not None:
        view: tuple[Any, ...] | None = saved_forward
    elif "to_save" in ctx.__dict__:
        view = ctx.to_save  # not recorded: the tensors as given
    else:
        view = None  # recorded: saved_tensors unpacks the packed ones
    outs = out if type(out) is tuple else (out,)
    if not any(
        isinstance(o, Tensor) and o._data.dtype.kind in "fc" and not any(o is n for n in non_diff) for o in outs
    ):
        return out  # integer, bool or non-differentiable results (comparisons, indices) carry no tangent
    for lv, tangents in per_level:
        full = tuple(
            (t if t is not None else _wrap(np.zeros_like(a._data))) if isinstance(a, Tensor) else None
            for a, t in zip(args, tangents)
        )
        _state.fw_levels = tuple(x for x in levels if x != lv)
        had_saved = "_saved" in ctx.__dict__
        old_saved = ctx._saved
        if view is not None:
            ctx._saved = tuple(None if t is None else _SavedAsIs(t) for t in view)  # type: ignore[misc]
        try:
            if cls._has_jvp:
                result = cls.jvp(ctx, *full)
            else:
                derived = _jvp_from_backward(cls, ctx, args, outs, full)
                result = tuple(None if any(o is n for n in non_diff) else t for o, t in zip(outs, derived))
        finally:
            _state.fw_levels = levels
            if view is not None:
                if had_saved:
                    ctx._saved = old_saved
                else:
                    del ctx._saved
        _attach_tangents(cls, outs, result, lv, non_diff)
    saved = ctx._saved
    if saved:
        # A saved output is rebuilt from its array when unpacked; give it its tangents back,
        # so that a backward built with create_graph carries them (forward over reverse).
        for s in saved:
            if s is not None and s._tensor is None and s._data is not None:
                for o in outs:
                    if isinstance(o, Tensor) and o._data is s._data and o._fw is not None:
                        s._fw = o._fw
    return out


def _jvp_from_backward(
    cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], outs: tuple[Any, ...], tangents: tuple[Any, ...]
) -> tuple[Tensor | None, ...]:
    """The tangents of a Function that has no ``jvp``, derived from its ``backward``.

    ``backward`` computes ``u -> Jᵀu``, linear in the output gradients ``u``.  Then
    ``<Jᵀu, v> = <u, Jv>``, so the gradient of ``<backward(u), v>`` with respect to ``u`` is
    ``Jv``: the tangent.  This needs a ``backward`` written in differentiable ops (not
    ``once_differentiable``, not raw NumPy); otherwise the error says to add a ``jvp``.
    """
    from ctxgrad.autograd import grad as autograd_grad

    if getattr(cls._backward_impl, "_once_differentiable", False):
        raise NotImplementedError(_no_jvp_message(cls))
    # Ones, not zeros: backward is linear in its gradients, so any value gives the same
    # derivative, but a backward that ignores them (NumPy inside) then shows as nonzero.
    probes = [
        _wrap(np.ones_like(o._data)).requires_grad_() if isinstance(o, Tensor) and o._data.dtype.kind in "fc" else None
        for o in outs
    ]
    seeds = [
        p if p is not None else (_wrap(np.zeros_like(o._data)) if isinstance(o, Tensor) else None)
        for p, o in zip(probes, outs)
    ]
    grad_mode = _state.grad_enabled
    needs = ctx._needs
    # The inputs with a tangent are the ones whose gradient backward must produce.
    ctx._needs = tuple(
        t is not None and isinstance(a, Tensor) and a._data.dtype.kind in "fc" for a, t in zip(args, tangents)
    )
    _state.grad_enabled = True
    try:
        result = cls._backward_impl(ctx, *seeds)
        grads = result if type(result) is tuple else (result,)
        total: Tensor | None = None
        for g, t in zip(grads, tangents):
            if isinstance(g, Tensor) and t is not None:
                term = (g * t).sum()
                total = term if total is None else total + term
    finally:
        _state.grad_enabled = grad_mode
        ctx._needs = needs
    used = [p for p in probes if p is not None]
    if total is None or not total._requires_grad:
        if total is None or not total._data.any():
            return tuple(None if p is None else _wrap(np.zeros_like(p._data)) for p in probes)
        raise NotImplementedError(_no_jvp_message(cls))
    found = autograd_grad(total, used, allow_unused=True, create_graph=grad_mode)
    by_probe = iter(found)
    out: list[Tensor | None] = []
    for p in probes:
        if p is None:
            out.append(None)
        else:
            g = next(by_probe)
            out.append(_wrap(np.zeros_like(p._data)) if g is None else g)
    return tuple(out)


def _no_jvp_message(cls: type[Function]) -> str:
    return (
        f"{cls.__name__} has no jvp, and its backward cannot be differentiated (it is once_differentiable "
        "or computes outside ctxgrad ops), so forward mode cannot derive the tangents from it. Add a "
        "staticmethod jvp(ctx, *tangents) returning one tangent per output (with ctx.save_for_forward(...) "
        "in forward for the tensors it needs)."
    )


def _attach_tangents(
    cls: type[Function], outs: tuple[Any, ...], result: Any, level: int, non_diff: tuple[Tensor, ...]
) -> None:
    """Check ``jvp``'s tangents (one per output) and attach them to the differentiable outputs."""
    tangents = result if type(result) is tuple else (result,)
    if len(tangents) != len(outs):
        raise RuntimeError(
            f"function {cls.__name__}.jvp returned an incorrect number of tangents (expected {len(outs)}, "
            f"got {len(tangents)})"
        )
    for i, (o, t) in enumerate(zip(outs, tangents)):
        if t is None:
            continue
        if not isinstance(o, Tensor) or o._data.dtype.kind not in "fc" or any(o is n for n in non_diff):
            raise RuntimeError(
                f"function {cls.__name__}.jvp returned a tangent at position {i}, but the corresponding forward "
                "output is not a differentiable Tensor (not floating point, or marked non-differentiable). You "
                "should return None at that position instead."
            )
        if not isinstance(t, Tensor):
            raise TypeError(
                f"function {cls.__name__}.jvp returned a {type(t).__name__} as tangent {i}; expected a Tensor or None"
            )
        if t._data.shape != o._data.shape:
            raise RuntimeError(
                f"function {cls.__name__}.jvp returned an invalid tangent at index {i} - got "
                f"{list(t._data.shape)} but expected shape compatible with {list(o._data.shape)}"
            )
        if t._data.dtype != o._data.dtype:
            t = t.to(o._data.dtype)
        forward_ad.set_tangent(o, level, t)


from ctxgrad.autograd import forward_ad  # noqa: E402
