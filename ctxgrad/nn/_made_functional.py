"""The ``ctxgrad.nn.functional`` functions the op rows make (``nn_functional=True``), with
torch's ``inplace=`` keyword where a row says ``inplace_keyword``.

Written by ``python -m ctxgrad._gen_methods`` from the op rows: do not edit.  Type checkers
read the stubs; at run time the module holds the functions ``ctxgrad._surface.nn_functions``
makes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor

    def sigmoid(input: Tensor) -> Tensor: ...

    def tanh(input: Tensor) -> Tensor: ...
else:
    from ctxgrad._surface import nn_functions

    globals().update(nn_functions())

__all__ = [
    "sigmoid",
    "tanh",
]
