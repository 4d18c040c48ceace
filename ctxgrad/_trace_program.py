"""A recorded trace lowered to one generated Python function of NumPy calls.

A fast replay (``ctxgrad.trace``) runs each recorded Function's ``forward`` on tensors, and
the ops each ``backward`` applies, one Function call per op: a ctx, argument checks and a
tensor for every value.  For a trace made only of elementwise arithmetic (``+ - * /`` and
the one-input ufunc ops such as ``tanh``, ``exp``, ``sin``) on real floating arrays, each of
those calls computes exactly one NumPy ufunc call.  This module writes those ufunc calls out
as the body of one Python function, compiled once, so that a replay is one call of it:

.. code-block:: python

    def forward(v0):
        v1 = multiply(v0, c0)
        v2 = add(v1, c1, v1)        # v1 is not read again: its array takes the result
        ...

A step is lowered only where its ufunc gives the same values, dtype and shape as its
Function's ``forward`` (:func:`ufunc_of`: both operands tensors of one floating dtype, or a
floating tensor with a Python ``float`` or ``int``, the cases in which the Function does no
promotion of its own); a program with any other step is not lowered, and the replay runs the
Functions as before.  An intermediate that nothing reads again, returns or keeps gives its
array to the next result of the same shape and dtype (the ufunc's ``out``), so a chain
allocates once; arrays passed in are never written.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ctxgrad.ops._util import _LEGACY_PROMOTION
from ctxgrad.ops.arithmetic import Add, Div, Mul, Neg, Sub
from ctxgrad.ops.pointwise import _Elementwise

__all__ = ["Const", "Instruction", "Meta", "Program", "lower", "ufunc_of"]

Meta = tuple[tuple[int, ...], np.dtype[Any]]  # (shape, dtype) of a value

# Functions whose forward is one ufunc call on the arrays ``ops._util.arrays`` returns
# (unchanged, in the cases :func:`ufunc_of` accepts).
_OWN_UFUNCS: dict[type, np.ufunc] = {
    Add: np.add,
    Sub: np.subtract,
    Mul: np.multiply,
    Div: np.true_divide,
    Neg: np.negative,
}


@dataclass(frozen=True)
class Const:
    """An argument of a step that is a Python value (a constant of the trace)."""

    value: Any


# One step: its Function, its arguments (a value number, or a Const), the number of its
# result and the result's (shape, dtype) as the trace recorded it.
Instruction = tuple[type, Sequence["int | Const"], int, Meta]


def _function_ufunc(cls: type) -> np.ufunc | None:
    own = _OWN_UFUNCS.get(cls)
    if own is not None:
        return own
    # an elementwise op that keeps _Elementwise's forward: ufunc(x), x floating, dtype kept
    if isinstance(cls, type) and issubclass(cls, _Elementwise) and cls.forward is _Elementwise.forward:
        ufunc = cls.__dict__.get("ufunc", getattr(cls, "ufunc", None))
        ufunc = getattr(ufunc, "__func__", ufunc)
        if isinstance(ufunc, np.ufunc) and ufunc.nin == 1 and ufunc.nout == 1:
            return ufunc
    return None


def ufunc_of(cls: type, args: Sequence[int | Const], metas: dict[int, Meta], out: Meta) -> np.ufunc | None:
    """The ufunc that computes ``cls.apply(*args)`` exactly, or None.  Accepted: every tensor
    argument real floating; two tensors of one dtype, or one tensor with a Python ``float``
    or ``int`` (not ``bool``); a result of the recorded dtype (the tensor's) and of the
    broadcast shape."""
    ufunc = _function_ufunc(cls)
    if ufunc is None or len(args) != ufunc.nin:
        return None
    tensors = [metas[a] for a in args if not isinstance(a, Const)]
    consts = [a.value for a in args if isinstance(a, Const)]
    if not tensors or any(m[1].kind != "f" for m in tensors) or len({m[1] for m in tensors}) != 1:
        return None
    if any(type(c) is not float and type(c) is not int for c in consts):
        return None
    if consts and _LEGACY_PROMOTION and tensors[0][0] == ():
        return None  # (NumPy 1 widens a 0-d float32 with a Python number; the Function does not)
    dtype = tensors[0][1]
    try:
        shape = np.broadcast_shapes(*(m[0] for m in tensors))
    except ValueError:
        return None
    if out != (shape, dtype):
        return None
    kinds = tuple(type(a.value) if isinstance(a, Const) else None for a in args)
    return ufunc if _result_dtype(ufunc, dtype, kinds) == dtype else None


@functools.lru_cache(maxsize=512)
def _result_dtype(ufunc: np.ufunc, dtype: np.dtype[Any], kinds: tuple[type | None, ...]) -> np.dtype[Any]:
    """The dtype ``ufunc`` gives on arrays of ``dtype`` and Python numbers of the types in
    ``kinds`` (None: an array), tried on one element."""
    with np.errstate(all="ignore"):
        return np.asarray(ufunc(*(np.ones(1, dtype) if k is None else k(1) for k in kinds))).dtype


@dataclass
class Program:
    """A generated function: ``fn(*arrays of params)`` returns the arrays of ``returns`` (None
    where a return is None) as a tuple.  ``source`` is its Python source."""

    fn: Callable[..., tuple[Any, ...]]
    source: str
    params: tuple[int, ...]
    returns: tuple[int | None, ...]


def lower(
    name: str,
    instructions: Sequence[Instruction],
    params: Sequence[int],
    metas: dict[int, Meta],
    returns: Sequence[int | None],
) -> Program | None:
    """The steps as one compiled function of ``params`` (value numbers whose arrays it is
    given) returning ``returns``; None if a step has no exact ufunc (:func:`ufunc_of`).
    ``metas`` gives the (shape, dtype) of each parameter."""
    metas = dict(metas)
    ufuncs: list[np.ufunc] = []
    for cls, args, out, meta in instructions:
        ufunc = ufunc_of(cls, args, metas, meta)
        if ufunc is None:
            return None
        ufuncs.append(ufunc)
        metas[out] = meta
    # the last step reading each value (a returned value is read after every step)
    last_read: dict[int, int] = {}
    for k, (_, args, _, _) in enumerate(instructions):
        for a in args:
            if not isinstance(a, Const):
                last_read[a] = k
    for r in returns:
        if r is not None:
            last_read[r] = len(instructions)
    owned: set[int] = set()  # values whose arrays this function made (and may write again)
    namespace: dict[str, Any] = {}
    constants: dict[tuple[type, str], str] = {}
    lines = [f"def {name}({', '.join(f'v{p}' for p in params)}):"]
    for k, ((_, args, out, meta), ufunc) in enumerate(zip(instructions, ufuncs)):
        namespace[ufunc.__name__] = ufunc
        operands = []
        for a in args:
            if isinstance(a, Const):
                key = (type(a.value), repr(a.value))
                if key not in constants:
                    constants[key] = f"c{len(constants)}"
                    namespace[constants[key]] = a.value
                operands.append(constants[key])
            else:
                operands.append(f"v{a}")
        # a dead array of this function's own, of the result's shape and dtype, takes the result
        # (a 0-d operand gives a NumPy scalar, which cannot)
        reuse = next(
            (a for a in args if not isinstance(a, Const) and a in owned and last_read[a] == k and metas[a] == meta),
            None,
        )
        if reuse is not None and meta[0] != ():
            operands.append(f"v{reuse}")
        lines.append(f"    v{out} = {ufunc.__name__}({', '.join(operands)})")
        owned.add(out)
    lines.append(f"    return ({''.join(('None' if r is None else f'v{r}') + ', ' for r in returns)})")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<ctxgrad.trace: {name}>", "exec"), namespace)  # our own generated code
    return Program(namespace[name], source, tuple(params), tuple(returns))
