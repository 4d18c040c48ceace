"""ctxgrad.compat.auto_diff: auto_diff's seed-era define-then-run API on ctxgrad's engine.

auto_diff's own tests of that era run as ``examples/seeds/auto_diff_seed_tests.py``; these
check what they leave out: gradients against torch, a value used twice, operations written by
subclassing ``Operation``, the additions (``None`` sizes, feeds by name) and the errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.compat.auto_diff as ad
from ctxgrad.compat.auto_diff import OpConstant, Operation, OpGradient, OpPlaceholder, OpVariable

RNG = np.random.default_rng(1)
X = RNG.normal(size=(20, 3))
Y = X @ np.array([[1.5], [-2.0], [0.5]]) + 0.25 + 0.01 * RNG.normal(size=(20, 1))
W0 = RNG.normal(size=(3, 1))


class Cube(Operation):
    """An operation of one's own, auto_diff's way: ``_forward`` in NumPy, ``_backward`` handing
    the input its gradient operation."""

    def __init__(self, x: Operation, **kwargs: Any) -> None:
        self.inputs = [x]
        self.shape = x.shape
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return f"cube({self.inputs[0].name})"

    def _get_op_name(self) -> str:
        return f"cube({self.inputs[0]._op_name})"

    def _forward(self, feed_dict: Mapping[Any, Any]) -> Any:
        return self.inputs[0].forward(feed_dict) ** 3

    def _backward(self, gradient: Operation) -> None:
        x = self.inputs[0]
        self.inputs[0].backward(3.0 * ad.square(x) * gradient)


def test_gradients_are_operations_that_match_torch() -> None:
    torch = pytest.importorskip("torch")
    x = OpPlaceholder((None, 3), name="x")
    w = OpVariable(W0, name="w")
    loss = (x.dot(w) * x.dot(w)).sum() / 4.0
    loss.backward()
    assert isinstance(w.gradient, OpGradient) and w.gradient.shape == (3, 1)
    grad = w.gradient.forward({x: X})
    tw = torch.tensor(W0, requires_grad=True)
    ((torch.tensor(X) @ tw) ** 2).sum().div(4.0).backward()
    np.testing.assert_allclose(grad, tw.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(loss.forward({"x": X}), [((X @ W0) ** 2).sum() / 4.0])  # (fed by name)


def test_a_value_used_twice_gets_the_gradients_of_both_uses() -> None:
    torch = pytest.importorskip("torch")
    w = ad.variable(np.array([1.0, -2.0, 3.0]), name="W")
    y = (w * w + ad.square(w) * w).sum()
    y.backward()
    tw = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    (tw * tw + tw**3).sum().backward()
    np.testing.assert_allclose(w.gradient.forward(), tw.grad.numpy())


def test_an_operation_of_ones_own_runs_through_the_engine() -> None:
    w = ad.variable(np.array([1.0, 2.0]), name="W")
    y = (Cube(w) * w).sum()  # w^4: 4 w^3
    assert str(y) == "sum(cube(W) * W)"
    np.testing.assert_allclose(y.forward(), [17.0])
    y.backward()
    np.testing.assert_allclose(w.gradient.forward(), [4.0, 32.0])
    root = Cube(Cube(w))  # w^9 at the root: its _backward runs there too
    root.backward()
    np.testing.assert_allclose(w.gradient.forward(), 9 * np.array([1.0, 2.0]) ** 8)
    from ctxgrad.compat.auto_diff import _evaluate

    out, _ = _evaluate(Cube(w), {}, wrt=w)
    assert type(out.grad_fn).__name__ == "CubeBackward"  # one Function per subclass, named as it


def test_an_operation_without_its_rules_raises_as_auto_diffs() -> None:
    class NoRules(Operation):
        def __init__(self, x: Operation) -> None:
            self.inputs = [x]
            self.shape = x.shape
            super().__init__()

        def _get_name(self) -> str:
            return "norules"

        def _get_op_name(self) -> str:
            return "norules"

    op = NoRules(ad.variable([1.0]))
    with pytest.raises(NotImplementedError, match=r"^Forward operation not implemented$"):
        op.forward()
    with pytest.raises(NotImplementedError, match=r"^Backward operation not implemented$"):
        op.backward()

    class NoBackward(NoRules):
        def _forward(self, feed_dict: Mapping[Any, Any]) -> Any:
            return self.inputs[0].forward(feed_dict) * 2

    w = OpVariable([1.0])
    z = (NoBackward(w) * 2).sum()
    np.testing.assert_allclose(z.forward(), [4.0])
    z.backward()  # the rule is asked for when the gradient is run
    with pytest.raises(NotImplementedError, match=r"^Backward operation not implemented$"):
        w.gradient.forward()  # type: ignore[union-attr]


def test_linear_regression_by_gradient_operations_reaches_eager_ctxgrads_weights() -> None:
    x, y = ad.placeholder((None, 3), name="x"), ad.placeholder((None, 1), name="y")
    w, b = ad.variable(W0), ad.variable(lambda shape: np.zeros(shape), shape=(1,))
    diff = x.dot(w) + b - y
    loss = (diff * diff).sum() / len(X)
    loss.backward()
    sess = ad.Session()
    for _ in range(200):
        sess.prepare()
        feed = {x: X, y: Y}
        gw, gb = sess.run([w.gradient, b.gradient], feed_dict=feed)
        w.update(w.value - 0.1 * gw)
        b.update(b.value - 0.1 * gb)
    ew = ctxgrad.tensor(W0, requires_grad=True)
    eb = ctxgrad.zeros(1, dtype=ctxgrad.float64, requires_grad=True)
    for _ in range(200):
        ed = ctxgrad.tensor(X) @ ew + eb - ctxgrad.tensor(Y)
        ew.grad = eb.grad = None
        ((ed * ed).sum() / len(X)).backward()
        with ctxgrad.no_grad():
            ew -= 0.1 * ew.grad  # type: ignore[operator]
            eb -= 0.1 * eb.grad  # type: ignore[operator]
    np.testing.assert_allclose(w.value, ew.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.value, eb.detach().numpy(), rtol=1e-12)


def test_the_step_key_computes_an_operation_once_per_step() -> None:
    calls = []

    class Counted(Cube):
        def _forward(self, feed_dict: Mapping[Any, Any]) -> Any:
            calls.append(1)
            return super()._forward(feed_dict)

    c = Counted(ad.variable([2.0]))
    sess = ad.Session()
    assert sess.run({"a": c, "b": c}) == {"a": [8.0], "b": [8.0]}
    assert len(calls) == 1 and Operation.STEP_KEY == "__step__"
    sess.prepare()
    sess.run(c)
    assert len(calls) == 2
    with pytest.raises(NotImplementedError, match="Unknown type of fetches"):
        sess.run({c})


@pytest.mark.parametrize(
    ("build", "shape", "numpy"),
    [
        (lambda a: a.reshape((3, 2), name="r"), (3, 2), lambda v: v.reshape(3, 2)),
        (lambda a: a.reshape([-1]), (6,), lambda v: v.reshape(-1)),
        (lambda a: a.flatten(), (6,), lambda v: v.ravel()),
        (lambda a: a.expand_dims(), (2, 3, 1), lambda v: np.expand_dims(v, -1)),
        (lambda a: a.expand_dims(axis=1), (2, 1, 3), lambda v: np.expand_dims(v, 1)),
        (lambda a: a.transpose(), (3, 2), lambda v: v.T),
        (lambda a: a.sum(axis=1, keepdims=True), (2, 1), lambda v: v.sum(axis=1, keepdims=True)),
        (lambda a: a.sum(), (1,), lambda v: v.sum(keepdims=True).reshape(1)),
        (lambda a: 2 / a, (2, 3), lambda v: 2 / v),
        (lambda a: ad.dot(a, np.ones((4, 3, 5))), (2, 4, 5), lambda v: np.dot(v, np.ones((4, 3, 5)))),
        (lambda a: ad.dot(np.ones(2), a), (3,), lambda v: np.dot(np.ones(2), v)),
    ],
)
def test_each_operation_infers_its_shape_and_computes_as_numpy(build: Any, shape: Any, numpy: Any) -> None:
    v = ad.variable(np.arange(1.0, 7.0).reshape(2, 3))
    op = build(v)
    assert op.shape == shape and op.dim == len(shape)
    np.testing.assert_allclose(op.forward(), numpy(v.value))
    op.backward()
    assert v.gradient is not None and v.gradient.forward().shape == (2, 3)


def test_name_keyword_on_methods_and_shortcuts() -> None:
    w = ad.variable(np.ones((2, 3)), name="W")
    assert str(w.transpose(name="T")) == "T"
    assert str(ad.sum(w, axis=0, name="S")) == "S"
    assert str(w.dot(np.ones(3), name="D")) == "D"


def test_backward_on_a_leaf_before_any_forward_does_nothing() -> None:
    c, p = OpConstant(np.array([1.0, 2.0])), OpPlaceholder((2,))
    c.backward()
    p.backward()
    assert c.gradient is not None and c.gradient.forward().tolist() == [1.0, 1.0]


def test_a_shape_mismatch_raises_at_construction() -> None:
    a, b = ad.variable(np.ones((2, 3))), ad.variable(np.ones((4, 3)))
    with pytest.raises(ValueError, match=r"^OpAdd: cannot broadcast with shape \(2, 3\) and \(4, 3\)$"):
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
    with pytest.raises(ValueError, match=r"OpSqueeze: cannot squeeze axis 0 of shape \(2, 3\)"):
        a.squeeze(0)


def test_feed_and_value_errors_name_the_operation() -> None:
    x = OpPlaceholder((None, 2), name="x")
    out = x.sum()
    with pytest.raises(KeyError, match=r"OpPlaceholder 'x' \(shape \(None, 2\)\) is not fed"):
        out.forward({})
    with pytest.raises(ValueError, match=r"^OpPlaceholder 'x': fed an array of shape \(5, 3\), expected \(None, 2\)$"):
        out.forward({"x": np.ones((5, 3))})
    with pytest.raises(TypeError, match="OpPlaceholder 'x': expected an array of numbers, got str"):
        out.forward({"x": "ab"})
    w = ad.variable(np.ones(2), name="w")
    with pytest.raises(ValueError, match=r"The shape of two tensors should be equal, got \(2,\) and \(3,\)"):
        w.update(np.ones(3))
    with pytest.raises(ValueError, match="an initializer function needs the shape"):
        ad.variable(lambda shape: np.zeros(shape))
    with pytest.raises(TypeError, match=r"backward: the gradient must be an Operation .* got ndarray"):
        w.backward(np.ones(2))  # type: ignore[arg-type]


def test_a_variable_the_value_does_not_depend_on_gets_zeros() -> None:
    w, v = ad.variable(np.ones(2)), ad.variable(np.ones(3), name="v")
    out = (w * 3).sum() + (v * 0).sum()
    out.backward()
    assert w.gradient.forward().tolist() == [3.0, 3.0]  # type: ignore[union-attr]
    assert v.gradient.forward().tolist() == [0.0, 0.0, 0.0]  # type: ignore[union-attr]
    assert str(ad.simplify(ad.array(np.arange(6.0)).reshape((2, 3)) * 2)) == "C(2, 3)"
