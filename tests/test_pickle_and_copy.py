"""Pickling and deep-copying tensors, as torch does them: values and ``requires_grad`` travel,
the graph and ``.grad`` do not (pickle); a leaf deep-copies with its ``.grad``, a non-leaf
refuses (deepcopy)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn


def pickled(t: Any) -> Any:
    return pickle.loads(pickle.dumps(t))


def facts(t: Any) -> tuple[list[float], bool, bool, Any]:
    return t.tolist(), t.requires_grad, t.grad_fn is None, None if t.grad is None else t.grad.tolist()


def pickle_cases(m: Any) -> dict[str, Any]:
    """What comes back from pickling a leaf used in an op, a leaf with ``.grad``, a non-leaf,
    and a view."""
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2  # x is now in a graph (a weak reference to it is held by its accumulator)
    y.sum().backward()
    view = m.tensor([1.0, 2.0, 3.0])[1:]
    return {name: facts(pickled(t)) for name, t in {"leaf": x, "non-leaf": y, "view": view}.items()}


def test_pickle_keeps_values_and_requires_grad_but_not_the_graph_or_grad() -> None:
    cases = pickle_cases(ctxgrad)
    assert cases["leaf"] == ([1.0, 2.0], True, True, None)
    assert cases["non-leaf"] == ([2.0, 4.0], True, True, None)  # comes back a leaf
    assert cases["view"] == ([2.0, 3.0], False, True, None)


def test_pickle_matches_torch(torch: Any) -> None:
    assert pickle_cases(ctxgrad) == pickle_cases(torch)


def test_a_pickled_tensor_owns_its_values() -> None:
    base = ctxgrad.tensor([1.0, 2.0, 3.0])
    back = pickled(base[1:])
    base.zero_()
    assert back.tolist() == [2.0, 3.0]


def test_pickle_keeps_the_dtype_and_the_class() -> None:
    t = pickled(ctxgrad.tensor([1, 2], dtype=ctxgrad.int32))
    assert t.dtype == ctxgrad.int32 and type(t) is ctxgrad.Tensor
    p = pickled(nn.Parameter(ctxgrad.ones(2)))
    assert type(p) is nn.Parameter and p.requires_grad


def deepcopy_leaf(m: Any) -> tuple[Any, ...]:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    c = copy.deepcopy(x)
    x.detach().zero_()  # the copy has storage of its own
    return facts(c)


def test_deepcopy_of_a_leaf_copies_values_requires_grad_and_grad() -> None:
    assert deepcopy_leaf(ctxgrad) == ([1.0, 2.0], True, True, [3.0, 3.0])


def test_deepcopy_of_a_leaf_matches_torch(torch: Any) -> None:
    assert deepcopy_leaf(ctxgrad) == deepcopy_leaf(torch)


def test_deepcopy_keeps_shared_tensors_shared() -> None:
    x = ctxgrad.tensor([1.0])
    a, b = copy.deepcopy([x, x])
    assert a is b and a is not x


@pytest.mark.parametrize("lib", ["ctxgrad", "torch"])
def test_deepcopy_of_a_non_leaf_refuses(lib: str) -> None:
    m: Any = ctxgrad if lib == "ctxgrad" else pytest.importorskip("torch")
    y = m.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"Only Tensors created explicitly by the user \(graph leaves\) support"):
        copy.deepcopy(y)


def test_deepcopy_of_a_non_leaf_names_its_node() -> None:
    y = ctxgrad.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"output of MulBackward0: deep-copy its .detach"):
        copy.deepcopy(y)


def test_deepcopy_of_a_module_copies_its_parameters() -> None:
    layer = nn.Linear(2, 3)
    twin = copy.deepcopy(layer)
    assert type(twin.weight) is nn.Parameter and twin.weight is not layer.weight
    np.testing.assert_array_equal(twin.weight.detach().numpy(), layer.weight.detach().numpy())


# --- the NumPy boundary --------------------------------------------------------------------


@pytest.mark.parametrize("lib", ["ctxgrad", "torch"])
def test_np_asarray_of_a_tensor_that_requires_grad_refuses(lib: str) -> None:
    m: Any = ctxgrad if lib == "ctxgrad" else pytest.importorskip("torch")
    x = m.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        np.asarray(x)
    with m.no_grad():
        assert np.asarray(x).tolist() == [1.0, 2.0]
    assert np.asarray(x.detach()).tolist() == [1.0, 2.0]
