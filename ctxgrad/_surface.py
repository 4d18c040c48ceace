"""The public surface (L4): the Tensor methods, in-place variants, dunders and aliases of
every op, attached once from the op table (:data:`ctxgrad.ops.table.OPS`).

A frontend's first parameter is ``input``; set on the class, the same function object is
the method (``x.round()`` calls ``ops.pointwise.round(x)``; ``x.exp()`` the frontend the row
made from ``Exp``), so a method adds no call layer.  An in-place variant is a frontend too
(``exp_``: the op's Function made in place, see :mod:`ctxgrad.autograd.inplace`).
``ctxgrad/__init__.py`` imports the ``ctxgrad.*`` functions (written there by
``python -m ctxgrad._gen_methods``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ctxgrad import _construct, _device, _dlpack, _factories, _legacy, _numpy, _sampling, _storage
from ctxgrad._tensor import Tensor
from ctxgrad.autograd import _grad, hooks
from ctxgrad.ops._util import write_out
from ctxgrad.ops.table import OPS, OUT_VARIANTS, Op

__all__ = ["METHODS", "attach", "functions", "made_functions", "methods", "nn_functions", "with_out"]

#: Tensor methods that are not ops (no Function behind them), made by the layers below and
#: attached here with the ops' methods, so that ``Tensor`` (L1) imports none of them.
METHODS: dict[str, Callable[..., Any]] = {
    "backward": _grad.tensor_backward,
    "register_hook": hooks.register_hook,
    "register_post_accumulate_grad_hook": hooks.register_post_accumulate_grad_hook,
    "new_zeros": _factories.new_zeros,
    "new_ones": _factories.new_ones,
    "new_empty": _factories.new_empty,
    "new_full": _factories.new_full,
    "new_tensor": _factories.new_tensor,
    "new": _legacy.new,
    "new_empty_strided": _construct.new_empty_strided,
    "get_device": _device.get_device,
    "is_pinned": _device.is_pinned,
    "pin_memory": _device.pin_memory,
    "isclose": _factories.isclose,
    "allclose": _factories.allclose,
    "equal": _factories.equal,
    # random sampling (_sampling.py): the in-place samplers and the methods that draw
    "uniform_": _sampling.uniform_,
    "normal_": _sampling.normal_,
    "bernoulli_": _sampling.bernoulli_,
    "exponential_": _sampling.exponential_,
    "random_": _sampling.random_,
    "log_normal_": _sampling.log_normal_,
    "geometric_": _sampling.geometric_,
    "cauchy_": _sampling.cauchy_,
    "bernoulli": _sampling.bernoulli_method,
    "multinomial": _sampling.multinomial_method,
    # NumPy's dispatch: np.exp(t) runs ctxgrad.exp, np.sum(t, axis=0) ctxgrad.sum (_numpy.py)
    "__array_ufunc__": _numpy.array_ufunc,
    "__array_function__": _numpy.array_function,
    # DLPack: np.from_dlpack(t) and torch.from_dlpack(t) share the tensor's memory (_dlpack.py)
    "__dlpack__": _dlpack.dlpack,
    # storages and shared memory, as torch names them (_storage.py)
    "storage": _storage.storage,
    "untyped_storage": _storage.untyped_storage,
    "share_memory_": _storage.share_memory_,
    "is_shared": _storage.is_shared,
    "resize_as_": _storage.resize_as_,
    "__dlpack_device__": _dlpack.dlpack_device,
}


def methods(op: Op) -> Iterator[tuple[str, Callable[..., Any]]]:
    """The Tensor attributes that ``op`` makes: ``(name, function)``."""
    method = op.method_frontend or op.frontend
    if op.method:
        yield op.name, method
        for alias in op.aliases:
            yield alias, method
    for dunder in op.dunders:
        yield dunder, method
    if callable(op.inplace) and op.method:  # (``F.elu_`` is nn.functional's only: no Tensor.elu_)
        yield op.inplace.__name__, op.inplace
        for alias in op.aliases:  # (``arcsin_`` is ``asin_``, as ``arcsin`` is ``asin``)
            yield f"{alias}_", op.inplace
        for dunder in op.inplace_dunders:
            yield dunder, op.inplace


def functions(op: Op) -> Iterator[tuple[str, Callable[..., Any]]]:
    """The ``ctxgrad.*`` functions that ``op`` makes: ``(name, function)``."""
    if op.function:
        yield op.name, op.frontend
        for alias in op.aliases:
            yield alias, op.frontend
        if op.inplace_function and callable(op.inplace):
            yield op.inplace.__name__, op.inplace


def with_out(name: str, frontend: Callable[..., Any]) -> Callable[..., Any]:
    """``frontend`` with torch's ``out=`` keyword: without it, the frontend's own call (one call
    more, for the ``ctxgrad.<name>`` function only: methods and dunders stay the frontend);
    with it, the result written into ``out`` by :func:`ctxgrad.ops._util.write_out` (refused
    while an argument requires grad in grad mode, resized with torch's warning, cast checked).

    >>> import ctxgrad
    >>> out = ctxgrad.empty(2)
    >>> ctxgrad.sin(ctxgrad.tensor([0.0, 0.5]), out=out) is out, out
    (True, tensor([0.0000, 0.4794]))
    """

    @functools.wraps(frontend)
    def function(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:  # (the common call: no keywords to look through)
            return frontend(*args)
        out = kwargs.pop("out", None)
        if out is None:
            return frontend(*args, **kwargs)
        return write_out(name, out, (*args, *kwargs.values()), lambda: frontend(*args, **kwargs))

    signature = inspect.signature(frontend)
    params = list(signature.parameters.values())
    extra = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="Tensor | None")
    at = len(params) - (params[-1].kind is inspect.Parameter.VAR_KEYWORD if params else 0)
    setattr(function, "__signature__", signature.replace(parameters=[*params[:at], extra, *params[at:]]))  # noqa: B010
    return function


def add_out(namespace: dict[str, Any], names: Iterable[str]) -> None:
    """torch's ``out=`` keyword (:func:`with_out`) on each of ``names`` in ``namespace`` (a
    module's globals: ``ctxgrad.linalg``, ``fft``, ``special``) that has none of its own.  The
    names keep their own signatures for type checkers."""
    for name in names:
        function = namespace[name]
        if "out" not in inspect.signature(function).parameters:
            namespace[name] = with_out(name, function)


def made_functions() -> dict[str, Callable[..., Any]]:
    """The ``ctxgrad.*`` functions that are not imported as written: the frontends made from
    rows (``ctxgrad.sin``) or wrapped by them (``numpy_dims``: ``ctxgrad.sum``), and those of
    :data:`~ctxgrad.ops.table.OUT_VARIANTS` whose frontend has no ``out`` of its own, with it
    added.  The module ``ctxgrad._made_functions`` (written by ``python -m
    ctxgrad._gen_methods``) holds them, typed for type checkers."""
    made: dict[str, Callable[..., Any]] = {}
    for op in OPS:
        if op.name in OUT_VARIANTS and "out" not in inspect.signature(op.frontend).parameters:
            function = with_out(op.name, op.frontend)
        elif op.made_from is not None or op.numpy_dims:  # (made, or wrapped to take axis=/keepdims=)
            function = op.frontend
        else:
            continue
        made.update((name, function if fn is op.frontend else fn) for name, fn in functions(op))
    return made


def nn_functions() -> dict[str, Callable[..., Any]]:
    """The functions of ``ctxgrad.nn.functional`` that rows make (``nn_functional=True``):
    each row's ``nn_frontend`` (with torch's ``inplace=`` where the row says
    ``inplace_keyword``), and its in-place variant as ``<name>_`` where it says ``nn_inplace``
    (``F.elu_``).  ``ctxgrad.nn._made_functional`` holds them, typed for type checkers."""
    made: dict[str, Callable[..., Any]] = {}
    for op in OPS:
        if op.nn_frontend is not None:
            made[op.name] = op.nn_frontend
            if op.nn_inplace and callable(op.inplace):
                made[f"{op.name}_"] = op.inplace
    return made


def attach() -> None:
    """Set every op's methods (and :data:`METHODS`) on :class:`Tensor`, once, when ``ctxgrad``
    is imported.  A row with ``property=True`` (``T``) becomes a property."""
    for op in OPS:
        for name, fn in methods(op):
            setattr(Tensor, name, property(fn) if op.property else fn)
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)


attach()
