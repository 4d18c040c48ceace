"""Tensor keeps its hot autograd fields in slots; a tensor still takes users' attributes, weak
references, pickling and copying, and subclasses (with their own ``__new__``, ``__init__`` or
``__slots__``) keep working and give the same gradients."""

from __future__ import annotations

import copy
import pickle
import threading
import weakref

import numpy as np
import pytest

import ctxgrad
from ctxgrad._state import _state


def test_a_tensor_takes_attributes_weak_references_pickling_and_copies() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    x.note = "kept"
    assert x.note == "kept"
    assert vars(x) == {"note": "kept"}
    assert weakref.ref(x)() is x
    back = pickle.loads(pickle.dumps(x))
    assert back.requires_grad and back.grad_fn is None
    np.testing.assert_array_equal(back.numpy(force=True), [1.0, 2.0])
    (x * x).sum().backward()
    twin = copy.deepcopy(x)
    np.testing.assert_array_equal(twin.grad.numpy(), [2.0, 4.0])
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'missing'"):
        _ = x.missing


class WithNew(ctxgrad.Tensor):
    def __new__(cls, data: list[float]) -> WithNew:
        return super().__new__(cls)

    def __init__(self, data: list[float]) -> None:
        super().__init__(data)
        self.tag = "mine"


class WithSlots(ctxgrad.Tensor):
    __slots__ = ("extra",)


@pytest.mark.parametrize("cls", [WithNew, WithSlots, ctxgrad.nn.Parameter])
def test_subclasses_are_fresh_leaves_and_give_the_same_gradients(cls: type[ctxgrad.Tensor]) -> None:
    t = cls([1.0, -2.0, 3.0]) if cls is not ctxgrad.nn.Parameter else cls(ctxgrad.tensor([1.0, -2.0, 3.0]))
    assert t.grad_fn is None and t.is_leaf
    t.requires_grad_()
    (t * t * 3.0).sum().backward()
    np.testing.assert_array_equal(t.grad.numpy(), [6.0, -12.0, 18.0])
    assert type(t) is cls
    if cls is WithNew:
        assert t.tag == "mine"


def test_each_thread_has_its_own_modes_object() -> None:
    seen: list[object] = []

    def record() -> None:
        with ctxgrad.no_grad():
            seen.append((_state.modes, _state.modes.grad_enabled))

    worker = threading.Thread(target=record)
    worker.start()
    worker.join()
    assert seen[0][0] is not _state.modes
    assert seen[0][1] is False
    assert _state.modes.grad_enabled is True
