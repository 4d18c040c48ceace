"""The ``ctxgrad.nn.functional`` functions the op rows make (``nn_functional=True``), with
torch's ``inplace=`` keyword where a row says ``inplace_keyword``.

Written by ``python -m ctxgrad._gen_methods`` from the op rows: do not edit.  Type checkers
read the stubs; at run time the module holds the functions ``ctxgrad._surface.nn_functions``
makes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from typing import Any

    from ctxgrad._tensor import Tensor

    def conv1d(
        input: Tensor,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
    ) -> Tensor: ...

    def conv2d(
        input: Tensor,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
    ) -> Tensor: ...

    def conv3d(
        input: Tensor,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
    ) -> Tensor: ...

    def conv_transpose1d(
        input: Tensor,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
    ) -> Tensor: ...

    def conv_transpose2d(
        input: Tensor,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
    ) -> Tensor: ...

    def cross_entropy(
        input: Tensor,
        target: Tensor,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> Tensor: ...

    def nll_loss(
        input: Tensor,
        target: Tensor,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> Tensor: ...

    def sigmoid(input: Tensor) -> Tensor: ...

    def tanh(input: Tensor) -> Tensor: ...
else:
    from ctxgrad._surface import nn_functions

    globals().update(nn_functions())

__all__ = [
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "cross_entropy",
    "nll_loss",
    "sigmoid",
    "tanh",
]
