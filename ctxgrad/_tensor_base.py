"""``TensorBase``: the fields of a tensor that the autograd core reads on every op.

:class:`ctxgrad.Tensor` derives from it, as ``torch.Tensor`` derives from
``torch._C.TensorBase``.  In the pure-Python core it is a class of five slots.  The optional
compiled core (``tools/build_compiled.py``) builds it as an extension type from this file and
``_tensor_base.pxd``: the fields then sit at fixed offsets, and the compiled modules whose
``.pxd`` declares a local as a ``TensorBase`` read and write them as C struct members, where
any other attribute access is a lookup by name.  The fields:

* ``_data``: the NumPy array of the values (``Tensor.array``);
* ``_requires_grad``: a leaf's flag, or True for an output that a recorded op made;
* ``_grad_fn``: the node that made the tensor (None for a leaf);
* ``_output_nr``: which output of that node it is;
* ``_base``: the tensor it is a view of, or None.

The other fields of a tensor (``.grad``, the version counter, hooks, ...) are class defaults
of ``Tensor`` that an instance overrides in its ``__dict__`` only when set.
"""

from __future__ import annotations

__all__ = ["TensorBase"]


class TensorBase:
    """The base class of :class:`ctxgrad.Tensor`: its five autograd fields (module docstring).

    Make a tensor with ``Tensor.__new__`` or the factories.  In the compiled core, as with
    torch's ``TensorBase``, ``object.__new__(Tensor)`` is refused: an extension type's
    instances are made by its own ``__new__``.
    """

    __slots__ = ("_base", "_data", "_grad_fn", "_output_nr", "_requires_grad")
