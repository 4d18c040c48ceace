"""The inputs :mod:`ctxgrad.checks` runs a Function on: :class:`CheckedInputs`, a fresh copy
of them for each check; and, when the Function gives none of its own, two ways to make them,
both said in the report:

* a spec, ``"3x4,float64;4,float64"`` (the command line's ``--inputs``): one tensor per
  ``;``-separated item, its shape (``3x4``, ``3 4``, ``(3, 4)``; ``()`` or empty for a
  0-d tensor) and dtype, filled with seeded random values in ``[0.5, 1.5)``;
* a guess from ``forward``'s signature: a parameter with a default gets its default, every
  other one a random ``3 x 3`` tensor (square, so that elementwise ops, matrix products and
  transposes all run on it).

And the strided copies the checker runs beside the contiguous inputs: the same values in a
transposed (or, for a vector, a step-2 sliced) view, or laid out as the caller gave them when
an input of ``inputs=`` was not C-contiguous.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ctxgrad._memory_format import copy_in_format, empty_in_format, preserve_format
from ctxgrad._tensor import Tensor, _wrap

__all__ = ["GUESSED_SHAPE", "CheckedInputs", "Strided", "guess_arguments", "inputs_from_spec", "strided_leaf"]

#: The shape of a tensor guessed for a parameter without a default.
GUESSED_SHAPE = (3, 3)


def _random(shape: tuple[int, ...], dtype: np.dtype[Any], rng: np.random.Generator) -> Tensor:
    values: np.ndarray[Any, Any] = rng.uniform(0.5, 1.5, shape)
    if dtype.kind == "c":
        values = values + 1j * rng.uniform(-0.5, 0.5, shape)
    elif dtype.kind in "iu":
        values = rng.integers(0, 3, shape)
    elif dtype.kind == "b":
        values = rng.integers(0, 2, shape)
    return _wrap(np.asarray(values).astype(dtype))


def _shape(text: str, item: str) -> tuple[int, ...]:
    stripped = text.strip().strip("()[]").strip()
    if not stripped:
        return ()
    parts = [p for p in re.split(r"[x\s]+", stripped) if p]
    if not all(p.isdigit() for p in parts):
        raise ValueError(
            f"cannot read the shape {text.strip()!r} in {item!r}: write it as sizes joined by 'x' (3x4), "
            "or () for a 0-d tensor"
        )
    return tuple(int(p) for p in parts)


def inputs_from_spec(spec: str, seed: int = 0) -> tuple[Tensor, ...]:
    """The tensors ``spec`` describes: ``"shape,dtype"`` items separated by ``;``.

    >>> [(tuple(t.shape), str(t.dtype)) for t in inputs_from_spec("2x3,float64; 3,int64; (),float32")]
    [((2, 3), 'ctxgrad.float64'), ((3,), 'ctxgrad.int64'), ((), 'ctxgrad.float32')]
    """
    rng = np.random.default_rng(seed)
    tensors = []
    for item in (i.strip() for i in spec.split(";")):
        if not item:
            continue
        shape_text, comma, dtype_text = item.rpartition(",")
        if not comma:
            shape_text, dtype_text = item, "float64"
        try:
            dtype = np.dtype(dtype_text.strip())
        except TypeError as exc:
            raise ValueError(f"cannot read the dtype {dtype_text.strip()!r} in {item!r}: {exc}") from exc
        tensors.append(_random(_shape(shape_text, item), dtype, rng))
    if not tensors:
        raise ValueError(f"no input in {spec!r}: give 'shape,dtype' items separated by ';', as in '3x4,float64;4'")
    return tuple(tensors)


def guess_arguments(cls: Any, dtype: np.dtype[Any], seed: int = 0) -> tuple[tuple[Any, ...], str]:
    """Arguments for ``cls.apply`` guessed from ``forward``'s parameters, and what was guessed
    (``"x: [3, 3] float64, scale=2.0"``)."""
    rng = np.random.default_rng(seed)
    plan = cls._plan
    args: list[Any] = []
    said: list[str] = []
    for name in plan.slot_names:
        if name in plan.defaults:
            args.append(plan.defaults[name])
            said.append(f"{name}={plan.defaults[name]!r}")
        else:
            args.append(_random(GUESSED_SHAPE, dtype, rng))
            said.append(f"{name}: {list(GUESSED_SHAPE)} {dtype.name}")
    return tuple(args), ", ".join(said) or "no arguments"


class CheckedInputs:
    """Makes fresh copies of the example inputs: every check gets its own, so that one
    check (a forward that writes its input, a finite difference) cannot disturb another."""

    def __init__(self, args: tuple[Any, ...], dtype: np.dtype[Any]) -> None:
        self.arrays: list[np.ndarray[Any, Any] | None] = []
        # A real input becomes complex under a complex dtype; a complex input stays complex.
        kinds = "fc" if dtype.kind == "c" else "f"
        complex_dtype = np.result_type(dtype, np.complex64)
        rng = np.random.default_rng(0)
        for a in args:
            if isinstance(a, Tensor) and a._data.dtype.kind == "f" and dtype.kind == "c":
                # Real values made complex get an imaginary part: at a real point the conjugate
                # of a holomorphic derivative equals it, and a missing conj would go unseen.
                shift = 1j * rng.uniform(-0.5, 0.5, a._data.shape)
                self.arrays.append(np.array(a._data + shift, dtype=dtype, order="C", copy=True))
            elif isinstance(a, Tensor) and a._data.dtype.kind in kinds:
                self.arrays.append(np.array(a._data, dtype=dtype, order="C", copy=True))
            elif isinstance(a, Tensor) and a._data.dtype.kind == "c":
                self.arrays.append(np.array(a._data, dtype=complex_dtype, order="C", copy=True))
            else:
                self.arrays.append(None)
        self.args = args
        self.checked = [i for i, arr in enumerate(self.arrays) if arr is not None]
        # An input given non-contiguous (a transposed tensor in inputs=) keeps its layout for
        # the strided check; the other checks run on the C-contiguous copy.
        # (A clone keeps a layout without gaps; a step-2 slice becomes contiguous, and gets
        # the checker's own strided view.)
        self.given: dict[int, np.ndarray[Any, Any]] = {}
        for i, arr in enumerate(self.arrays):
            if arr is not None and not args[i]._data.flags.c_contiguous:
                laid_out = empty_in_format(args[i]._data, preserve_format, arr.dtype)
                laid_out[...] = arr
                if not laid_out.flags.c_contiguous:
                    self.given[i] = laid_out

    def fresh(self, requires_grad: Callable[[int], bool] = lambda i: True) -> tuple[Any, ...]:
        out: list[Any] = []
        for i, (a, arr) in enumerate(zip(self.args, self.arrays)):
            if arr is None:
                out.append(a)
            else:
                t = _wrap(np.array(arr, copy=True))
                out.append(t.requires_grad_() if requires_grad(i) else t)
        return tuple(out)

    @property
    def complex(self) -> bool:
        return any(arr is not None and arr.dtype.kind == "c" for arr in self.arrays)


class Strided(NamedTuple):
    """A strided input for the checker: ``leaf`` requires grad, ``arg`` (made from it) has
    the same values as the contiguous input but is not C-contiguous, ``how`` says how it was
    made, and ``grad_of`` reads ``arg``'s gradient back from ``leaf``'s."""

    leaf: Tensor
    arg: Tensor
    how: str
    grad_of: Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]


def _same(grad: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return grad


def strided_leaf(values: np.ndarray[Any, Any], given: np.ndarray[Any, Any] | None = None) -> Strided | None:
    """The strided copy of the input ``values`` (C-contiguous) the checker runs beside it;
    None for a tensor of fewer than two elements.

    ``given``, the input as the caller gave it when that was not C-contiguous (a transposed
    tensor in ``inputs=``), is used as it is laid out: the argument is a clone of a leaf with
    its strides, and ``Tensor.clone`` keeps them (``preserve_format``).  Otherwise the
    argument is a transposed view (for a vector, a step-2 slice) of a clone of a leaf (a view
    of a leaf could not be written in place by a forward that marks it dirty).
    """
    if values.size < 2:
        return None
    if given is not None:
        leaf = _wrap(copy_in_format(given, preserve_format)).requires_grad_()
        strides = leaf.stride()
        return Strided(leaf, leaf.clone(), f"as given (strides {strides})", _same)
    if values.ndim >= 2:
        leaf = _wrap(np.ascontiguousarray(np.swapaxes(values, -1, -2))).requires_grad_()
        return Strided(leaf, leaf.clone().transpose(-1, -2), "a transposed view", lambda g: np.swapaxes(g, -1, -2))
    leaf = _wrap(np.repeat(values, 2)).requires_grad_()
    return Strided(leaf, leaf.clone()[::2], "a step-2 slice", lambda g: g[::2])
