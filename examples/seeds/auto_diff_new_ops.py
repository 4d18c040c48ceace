"""auto_diff's way to add an op: subclass ``Operation`` with ``_forward`` and ``_backward``.

The two classes below are auto_diff's own ``OpExp`` (CyberZHG/toy-auto-diff,
``auto_diff/op/op_exp.py`` at commit 1117034) and ``OpLog`` (``auto_diff/op/op_log.py`` at
commit 19d8077), as written there (MIT licence, Copyright (c) 2018 Zhao HG; quotes and line
breaks in this project's format, and type comments for its checks); only the imports
changed (``from .operation import Operation`` and ``from .op_placeholder import
OpPlaceholder`` became imports from ``ctxgrad.compat.auto_diff``). Their ``_backward`` builds
gradient *operations* (``OpExp(x) * gradient``, ``gradient / x``) and hands them to the input;
on ctxgrad each becomes a Function (``OpExpBackward``, ``OpLogBackward``) whose backward
evaluates those operations, and the gradients come from ctxgrad's one engine. Then the example
of auto_diff's documentation (``manuals/op/index``: ``import auto_diff as np``) runs.

Run it: ``python examples/seeds/auto_diff_new_ops.py`` (exits non-zero if a check fails).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Union

import numpy as np

import ctxgrad.compat.auto_diff as ad
from ctxgrad.compat.auto_diff import Operation, OpPlaceholder


# ---- auto_diff/op/op_exp.py (commit 1117034), imports changed
class OpExp(Operation):
    """Element-wise exp."""

    def __init__(self, x: Operation, **kwargs):  # type: ignore[no-untyped-def]
        self.inputs = [x]
        self.shape = x.shape
        super(OpExp, self).__init__(**kwargs)  # noqa: UP008

    def _get_name(self) -> str:
        return "exp(%s)" % self.inputs[0].name  # noqa: UP031

    def _get_op_name(self) -> str:
        return "exp(%s)" % self.inputs[0]._op_name  # noqa: UP031

    def _forward(self, feed_dict: Mapping[Union[str, OpPlaceholder], np.ndarray]) -> np.ndarray:  # noqa: UP007
        return np.exp(self.inputs[0].forward(feed_dict))

    def _backward(self, gradient: Operation) -> None:
        self.gradient = OpExp(self.inputs[0]) * gradient
        self.inputs[0].backward(self.gradient)


# ---- auto_diff/op/op_log.py (commit 19d8077), imports changed
class OpLog(Operation):
    """Element-wise log (ln)."""

    def __init__(self, x: Operation, **kwargs):  # type: ignore[no-untyped-def]
        self.inputs = [x]
        self.shape = x.shape
        super(OpLog, self).__init__(**kwargs)  # noqa: UP008

    def _get_name(self) -> str:
        return "log(%s)" % self.inputs[0].name  # noqa: UP031

    def _get_op_name(self) -> str:
        return "log(%s)" % self.inputs[0]._op_name  # noqa: UP031

    def _forward(self, feed_dict: Mapping[Union[str, OpPlaceholder], np.ndarray]) -> np.ndarray:  # noqa: UP007
        return np.log(self.inputs[0].forward(feed_dict))

    def _backward(self, gradient: Operation) -> None:
        self.gradient = gradient / self.inputs[0]
        self.inputs[0].backward(self.gradient)


def numeric_gradient(func: Operation, feed: dict, w: ad.OpVariable, eps: float = 1e-6) -> np.ndarray:  # type: ignore[type-arg]
    """Central differences of sum(func) in each element of ``w`` (as auto_diff's tests check)."""
    values = w.value
    out = np.zeros_like(values)
    for i in np.ndindex(values.shape):
        shifted = values.copy()
        shifted[i] += eps
        w.update(shifted)
        up = np.sum(func.forward(feed))
        shifted[i] -= 2 * eps
        w.update(shifted)
        down = np.sum(func.forward(feed))
        out[i] = (up - down) / (2 * eps)
    w.update(values)
    return out


def main() -> None:
    rng = np.random.default_rng(0)
    x = ad.placeholder(shape=(None, 3), name="X")
    w = ad.variable(rng.random((3,)) + 0.5, name="W")
    # x * w through exp, then log of a positive value: the new ops in a graph with built-in ones
    y = (OpLog(OpExp(x * w) + 1.0) * w).sum()
    print("graph:", y)
    feed = {x: rng.random((4, 3))}
    xv, wv = feed[x], w.value
    expect = np.sum(np.log(np.exp(xv * wv) + 1.0) * wv)
    assert np.allclose(y.forward(feed), expect), (y.forward(feed), expect)
    y.backward()
    grad = w.gradient.forward(feed)
    print("gradient of", w, "is the operation", w.gradient, "=", grad.round(4))
    sig = 1 / (1 + np.exp(-xv * wv))
    assert np.allclose(grad, np.sum(sig * xv * wv + np.log(np.exp(xv * wv) + 1.0), axis=0))
    assert np.allclose(grad, numeric_gradient(y, feed, w), atol=1e-6)
    print("the gradient equals the analytic one and central differences: True")

    # auto_diff's documentation (manuals/op/index.rst), ``import auto_diff as np``:
    import ctxgrad.compat.auto_diff as np_ad

    x = np_ad.array([[1, 2], [3, 4]])
    y = np_ad.array([[5, 6], [7, 8]])
    z = np_ad.dot(x, y)
    print(z)
    print(z.forward())
    assert str(z) == "dot(C(2, 2), C(2, 2))"
    assert z.forward().tolist() == [[19.0, 22.0], [43.0, 50.0]]


if __name__ == "__main__":
    main()
