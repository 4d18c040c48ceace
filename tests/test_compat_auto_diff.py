"""ctxgrad.compat.auto_diff: auto_diff's define-then-run graph, run by ctxgrad.trace."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.compat.auto_diff import OpConstant, Operation, OpPlaceholder, OpVariable

RNG = np.random.default_rng(1)
X = RNG.normal(size=(20, 3))
Y = X @ np.array([[1.5], [-2.0], [0.5]]) + 0.25 + 0.01 * RNG.normal(size=(20, 1))
W0 = RNG.normal(size=(3, 1))


def test_linear_regression_reaches_the_weights_of_eager_ctxgrad() -> None:
    x, y = OpPlaceholder((None, 3), name="x"), OpPlaceholder((None, 1), name="y")
    w, b = OpVariable(W0), OpVariable(lambda shape: np.zeros(shape), shape=(1,))
    diff = x.dot(w) + b - y
    loss = (diff * diff).sum() / len(X)
    for _ in range(200):
        loss.forward({x: X, "y": Y})
        loss.backward()
        assert w.gradient is not None and b.gradient is not None
        w.update(w.value - 0.1 * w.gradient)
        b.update(b.value - 0.1 * b.gradient)
    assert loss._traced is not None and len(loss._traced.graphs) == 1  # traced once, replayed 199 times

    ew = ctxgrad.tensor(W0, requires_grad=True)
    eb = ctxgrad.zeros(1, dtype=ctxgrad.float64, requires_grad=True)
    ex, ey = ctxgrad.tensor(X), ctxgrad.tensor(Y)
    for _ in range(200):
        ed = ex @ ew + eb - ey
        eloss = (ed * ed).sum() / len(X)
        ew.grad = eb.grad = None
        eloss.backward()
        with ctxgrad.no_grad():
            ew -= 0.1 * ew.grad  # type: ignore[operator]
            eb -= 0.1 * eb.grad  # type: ignore[operator]
    np.testing.assert_allclose(w.value, ew.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.value, eb.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.value.ravel(), [1.5, -2.0, 0.5], atol=0.02)  # (it did learn)


def test_forward_and_backward_values_by_hand() -> None:
    x = OpPlaceholder((2, 2), name="x")
    w = OpVariable(np.array([[1.0, 2.0], [3.0, 4.0]]))
    c = OpConstant([10.0, 20.0])
    out = ((x * w + c) / 2 - x.transpose()).sum(axis=0)
    feed = np.array([[1.0, 2.0], [3.0, 4.0]])
    value = out.forward({x: feed})
    expected = ((feed * w.value + [10.0, 20.0]) / 2 - feed.T).sum(axis=0)
    np.testing.assert_allclose(value, expected)
    assert out.shape == (2,) == value.shape
    out.backward(np.array([1.0, -1.0]))
    np.testing.assert_allclose(w.gradient, feed * np.array([1.0, -1.0]) / 2)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("build", "shape", "numpy"),
    [
        (lambda a: a.reshape((3, 2)), (3, 2), lambda v: v.reshape(3, 2)),
        (lambda a: a.reshape([-1]), (6,), lambda v: v.reshape(-1)),
        (lambda a: a.flatten(), (6,), lambda v: v.ravel()),
        (lambda a: a.expand_dims(1), (2, 1, 3), lambda v: np.expand_dims(v, 1)),
        (lambda a: a.expand_dims(-1), (2, 3, 1), lambda v: np.expand_dims(v, -1)),
        (lambda a: a.transpose((1, 0)), (3, 2), lambda v: v.T),
        (lambda a: a.sum(axis=1, keepdims=True), (2, 1), lambda v: v.sum(axis=1, keepdims=True)),
        (lambda a: a.sum(keepdims=True), (1, 1), lambda v: v.sum(keepdims=True)),
        (lambda a: a.sum(axis=(0, 1)), (), lambda v: v.sum()),
        (lambda a: 1 - a, (2, 3), lambda v: 1 - v),
        (lambda a: 2 / a, (2, 3), lambda v: 2 / v),
        (lambda a: -a * 3, (2, 3), lambda v: -v * 3),
        (lambda a: a.dot(np.ones(3)), (2,), lambda v: v @ np.ones(3)),
    ],
)
def test_each_operation_infers_its_shape_and_computes_as_numpy(build: Any, shape: Any, numpy: Any) -> None:
    v = OpVariable(np.arange(1.0, 7.0).reshape(2, 3))
    op = build(v)
    assert op.shape == shape
    np.testing.assert_allclose(op.forward(), numpy(v.value))
    op.backward()
    assert v.gradient is not None and v.gradient.shape == (2, 3)


def test_gradients_match_torch() -> None:
    torch = pytest.importorskip("torch")
    x = OpPlaceholder((None, 3))
    w = OpVariable(W0)
    loss = (x.dot(w) * x.dot(w)).sum() / 4.0
    loss.forward({x: X})
    loss.backward()
    tw = torch.tensor(W0, requires_grad=True)
    tx = torch.tensor(X)
    ((tx @ tw) * (tx @ tw)).sum().div(4.0).backward()
    np.testing.assert_allclose(w.gradient, tw.grad.numpy(), rtol=1e-12)  # type: ignore[arg-type]


def test_a_shape_mismatch_raises_at_construction_naming_the_op_and_both_shapes() -> None:
    a, b = OpVariable(np.ones((2, 3))), OpVariable(np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"^OpAdd: shapes \(2, 3\) and \(4, 3\) cannot be broadcast together$"):
        _ = a + b
    with pytest.raises(ValueError, match=r"^OpDot: shapes \(2, 3\) and \(4, 3\) are not aligned: 3 \(dim 1"):
        a.dot(b)
    with pytest.raises(ValueError, match=r"^OpReshape: cannot reshape \(2, 3\) \(6 values\) to \(4,\)$"):
        a.reshape((4,))
    with pytest.raises(ValueError, match=r"OpTranspose: axes \(0, 0\) are not a permutation"):
        a.transpose((0, 0))
    with pytest.raises(ValueError, match="OpSum: axis 2 is out of range for 2 dimensions"):
        a.sum(axis=2)
    with pytest.raises(ValueError, match="OpExpandDims: axis 3 is out of range"):
        a.expand_dims(3)


def test_feed_errors_name_the_placeholder() -> None:
    x = OpPlaceholder((None, 2), name="x")
    y = OpPlaceholder((3,), name="y")
    out = (x.sum(axis=0) + 1).sum() + y.sum()
    with pytest.raises(KeyError, match="OpPlaceholder 'y' \\(shape \\(3,\\)\\) is not fed"):
        out.forward({x: np.ones((5, 2))})
    with pytest.raises(ValueError, match=r"^OpPlaceholder 'x': fed an array of shape \(5, 3\), expected \(None, 2\)$"):
        out.forward({"x": np.ones((5, 3)), "y": np.ones(3)})
    with pytest.raises(TypeError, match="OpPlaceholder 'y': expected an array of numbers, got str"):
        out.forward({"x": np.ones((5, 2)), "y": "abc"})
    same = OpPlaceholder((2,), name="x") + OpPlaceholder((2,), name="x")
    with pytest.raises(ValueError, match="two placeholders of this graph are named 'x'"):
        same.forward({"x": np.ones(2)})


def test_backward_before_forward_and_bad_variables_raise() -> None:
    w = OpVariable(np.ones(2), name="w")
    out = w * 2
    with pytest.raises(RuntimeError, match="call forward\\(feed_dict\\) before backward\\(\\)"):
        out.backward()
    with pytest.raises(ValueError, match="an initializer function needs the shape"):
        OpVariable(lambda shape: np.zeros(shape))
    with pytest.raises(ValueError, match=r"initial value has shape \(2,\), but shape \(3,\) was given"):
        OpVariable(np.ones(2), shape=(3,))
    with pytest.raises(ValueError, match=r"OpVariable.update: 'w' has shape \(2,\), got \(3,\)"):
        w.update(np.ones(3))
    out.forward()
    with pytest.raises(ValueError, match=r"gradient of shape \(3,\) for a value of shape \(2,\)"):
        out.backward(np.ones(3))


def test_a_variable_the_value_does_not_depend_on_gets_zeros_and_repr() -> None:
    w, v = OpVariable(np.ones(2)), OpVariable(np.ones(3), name="v")
    out = (w * 3).sum() + (v * 0).sum()
    out.forward()
    out.backward()
    assert w.gradient.tolist() == [3.0, 3.0]  # type: ignore[union-attr]
    assert v.gradient.tolist() == [0.0, 0.0, 0.0]  # type: ignore[union-attr]
    assert repr(v) == "OpVariable(name='v', shape=(3,))"
    assert isinstance(out, Operation)
