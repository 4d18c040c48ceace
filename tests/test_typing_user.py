"""tests/typing/user_function.py, a user's typed Functions: the program runs and computes what
its types say.  Its types are checked in CI (.ci/run, the torch leg): ``mypy --strict`` and
pyright in strict mode (tests/typing/pyrightconfig.json), with no error, and its
``assert_type`` lines hold only while ``apply``, ``autograd.grad``, ``item``, ``tolist`` and
``max`` keep their precise types."""

from __future__ import annotations

import runpy
from pathlib import Path

import numpy as np
import pytest

import ctxgrad

USER_FILE = Path(__file__).resolve().parent / "typing" / "user_function.py"


def test_the_typed_user_file_runs_and_its_values_are_what_its_types_say() -> None:
    user = runpy.run_path(str(USER_FILE), run_name="user_function")
    x0 = np.array([0.5, 1.0, 1.5, 2.0])
    # loss = sum(3 * exp(x_low) ** 2) + sum(exp(x_high))
    expected_grad = np.concatenate([6.0 * np.exp(2.0 * x0[:2]), np.exp(x0[2:])])
    y = user["y"]
    assert isinstance(y, ctxgrad.Tensor) and y.grad_fn is not None and y.grad_fn.name() == "ExpBackward"
    np.testing.assert_allclose(user["grad_x"].numpy(), expected_grad, rtol=1e-6)
    np.testing.assert_allclose(user["named"]["x"].numpy(), expected_grad, rtol=1e-6)
    np.testing.assert_allclose(user["x"].grad.numpy(), expected_grad, rtol=1e-6)
    grad_x, grad_y = user["maybe_grads"]
    np.testing.assert_allclose(grad_x.numpy(), expected_grad, rtol=1e-6)
    np.testing.assert_allclose(grad_y.numpy(), [6.0 * np.exp(0.5), 6.0 * np.exp(1.0), 1.0, 1.0], rtol=1e-6)
    assert isinstance(user["value"], float)
    assert user["value"] == user["total"]
    np.testing.assert_allclose(user["value"], (3 * np.exp(2 * x0[:2])).sum() + np.exp(x0[2:]).sum(), rtol=1e-6)
    assert user["largest"].values.item() == 2.0 and user["largest"].indices.item() == 3


def test_an_unused_input_is_none_only_where_allow_unused_lets_it_through() -> None:
    """What the overloads of ``autograd.grad`` promise: tensors, unless ``allow_unused=True``
    (and then zeros with ``materialize_grads=True``)."""
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    unused = ctxgrad.tensor([3.0], requires_grad=True)
    loss = (x * x).sum()
    assert ctxgrad.autograd.grad(loss, [x, unused], retain_graph=True, allow_unused=True)[1] is None
    filled = ctxgrad.autograd.grad(loss, {"x": x, "unused": unused}, retain_graph=True, materialize_grads=True)
    assert filled["unused"].tolist() == [0.0]
    with pytest.raises(RuntimeError, match="index 1 appears to not have been used in the graph"):
        ctxgrad.autograd.grad(loss, [x, unused])
