"""The value protocol: what the engine needs to know about a kind of gradient.

The engine never looks inside a gradient.  It needs three things from each kind of value
that flows backward, and nothing else:

* **zero**: the gradient of an output that no gradient reached (what ``backward``
  receives for it unless ``ctx.set_materialize_grads(False)``);
* **add**: the sum of two gradients of one value (a value used twice gets both), written
  ``a + b``: the engine adds the gradients arriving at a node, and ``.grad`` accumulates,
  with the value's own ``+``;
* **check**: whether what a ``backward`` returned for an argument is a gradient of that
  argument's kind (:func:`~ctxgrad.autograd._validate.check_grads` asks, and raises
  naming the Function, the argument and both kinds when it is not).

:class:`~ctxgrad.Tensor` is the first value type, and the engine's first branch: its zero
is an array of zeros of the output's shape and dtype, its add is array addition, and its
check compares shapes and dtypes.  A graph node already keeps the ``(shape, dtype)`` of
each input (its edges) and of each output (``_out_meta``); that pair is how the engine
tells the kinds apart, so other kinds cost the array path nothing.

Another kind of value (text whose gradients are written feedback, in
:mod:`ctxgrad.compat.afnio`) is a subclass of ``Tensor`` whose array is 0-d and holds one
Python object, with a dtype made by :func:`register_value_type`: an object dtype that
carries the :class:`ValueType` in its ``metadata``.  The subclass defines ``__add__`` (the
protocol's add), and registers the zero; the check is that a gradient is an instance of
the registered class.  A toy value type, a word counter whose gradients are sets of
words::

    >>> import numpy as np
    >>> import ctxgrad
    >>> from ctxgrad.autograd.values import register_value_type
    >>> class Words(ctxgrad.Tensor):
    ...     def __init__(self, words=(), requires_grad=False):
    ...         self._data = np.empty((), dtype=WORDS)
    ...         self._data[()] = frozenset(words)
    ...         self._requires_grad = requires_grad
    ...     def __add__(self, other):       # the protocol's add: the union of the two sets
    ...         return Words(self._data[()] | other._data[()])
    ...     def __repr__(self):
    ...         return f"Words({sorted(self._data[()])})"
    >>> WORDS = register_value_type(Words, zero=Words)
    >>> class Shout(ctxgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, w):
    ...         return Words(s.upper() for s in w._data[()])
    ...     @staticmethod
    ...     def backward(ctx, g):           # the feedback on the output is the input's
    ...         return Words(s.lower() for s in g._data[()])
    >>> w = Words(["a", "b"], requires_grad=True)
    >>> Shout.apply(w).backward(Words(["B"]))
    >>> Shout.apply(w).backward(Words(["A"]))
    >>> w.grad                               # accumulated with Words.__add__
    Words(['a', 'b'])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, _new_tensor

__all__ = ["ValueType", "is_value_dtype", "register_value_type", "value_type_of", "wrap_like", "zero_of"]

_KEY = "ctxgrad_value_type"


class ValueType:
    """A registered kind of non-array value: its class (what a gradient of it must be an
    instance of) and how to make its zero."""

    __slots__ = ("cls", "dtype", "zero")

    def __init__(self, cls: type[Tensor], zero: Callable[[], Tensor]) -> None:
        self.cls = cls
        self.zero = zero
        self.dtype: np.dtype[Any] = np.dtype(object, metadata={_KEY: self})

    @property
    def name(self) -> str:
        """The class name, as error messages give it (``Variable``)."""
        return self.cls.__name__

    def accepts(self, g: Any) -> bool:
        """The protocol's check: ``g`` is a gradient of this kind."""
        return isinstance(g, self.cls) and value_type_of(g._data.dtype) is self

    def __repr__(self) -> str:
        return f"<value type {self.name}>"


def register_value_type(cls: type[Tensor], zero: Callable[[], Tensor]) -> np.dtype[Any]:
    """Make ``cls`` (a ``Tensor`` subclass) a kind of value the engine carries, and return
    the dtype its instances' 0-d arrays must have.  ``zero()`` makes the gradient of an
    output no gradient reached; ``cls.__add__`` sums two gradients."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)) or cls is Tensor:
        raise TypeError(f"register_value_type: cls must be a subclass of ctxgrad.Tensor, got {cls!r}")
    if not callable(zero):
        raise TypeError(f"register_value_type: zero must be callable, got {type(zero).__name__}")
    return ValueType(cls, zero).dtype


def value_type_of(dtype: np.dtype[Any]) -> ValueType | None:
    """The :class:`ValueType` an edge's or an output's dtype names, or None for an array."""
    metadata = dtype.metadata
    if metadata is None:
        return None
    vt = metadata.get(_KEY)
    return vt if isinstance(vt, ValueType) else None


def is_value_dtype(dtype: np.dtype[Any]) -> bool:
    """True for the dtype of a registered value type (not an array of numbers)."""
    return value_type_of(dtype) is not None


def zero_of(meta: tuple[tuple[int, ...], np.dtype[Any]]) -> Tensor:
    """The protocol's zero for an output of ``(shape, dtype)`` ``meta``: zeros for an array,
    the value type's own zero otherwise."""
    vt = value_type_of(meta[1])
    if vt is None:
        out = _new_tensor(Tensor)
        out._data = np.zeros(meta[0], meta[1])
        return out
    return vt.zero()


def wrap_like(arr: np.ndarray[Any, Any]) -> Tensor:
    """A new leaf around ``arr`` of the class its dtype names (``Tensor`` for an array):
    how a saved output of a value type is rebuilt with its class."""
    vt = value_type_of(arr.dtype)
    t = _new_tensor(Tensor if vt is None else vt.cls)
    t._data = arr
    return t
