"""The factories' ``pin_memory=`` (False is accepted; True refused as a CPU-only torch refuses
it) and the ``memory_format=`` keyword forms of ``empty``, ``contiguous``, ``clone``, ``to`` and
the ``*_like`` factories, on ctxgrad and torch: values, dtypes, strides and errors compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _usage import torch_names

import ctxgrad

torch = pytest.importorskip("torch")

FACTORIES = [
    pytest.param(
        lambda m, pin: m.zeros(2, 3, pin_memory=pin), marks=torch_names("torch.zeros(pin_memory=)"), id="zeros"
    ),
    pytest.param(lambda m, pin: m.ones(2, pin_memory=pin), marks=torch_names("torch.ones(pin_memory=)"), id="ones"),
    pytest.param(
        lambda m, pin: m.empty(2, pin_memory=pin).fill_(1.5), marks=torch_names("torch.empty(pin_memory=)"), id="empty"
    ),
    pytest.param(
        lambda m, pin: m.tensor([1.0, 2.0], pin_memory=pin), marks=torch_names("torch.tensor(pin_memory=)"), id="tensor"
    ),
    pytest.param(
        lambda m, pin: m.randn(3, pin_memory=pin) * 0, marks=torch_names("torch.randn(pin_memory=)"), id="randn"
    ),
    pytest.param(lambda m, pin: m.rand(3, pin_memory=pin) * 0, id="rand"),
    pytest.param(lambda m, pin: m.full((2,), 7.0, pin_memory=pin), id="full"),
    pytest.param(lambda m, pin: m.arange(4, pin_memory=pin), id="arange"),
]


def _outcome(make: Any) -> tuple[str, Any]:
    try:
        result = make()
    except Exception as error:  # the type and message are the outcome compared
        return type(error).__name__, str(error)
    return str(result.dtype).rsplit(".", 1)[-1], result.tolist()


@pytest.mark.parametrize("make", FACTORIES)
@pytest.mark.parametrize("pin", [False, True])
def test_pin_memory_is_accepted_false_and_refused_true_as_on_a_cpu_only_torch(make: Any, pin: bool) -> None:
    ours, theirs = _outcome(lambda: make(ctxgrad, pin)), _outcome(lambda: make(torch, pin))
    assert ours == theirs
    assert (ours[0] == "RuntimeError") == pin


@torch_names("torch.empty(memory_format=)")
@pytest.mark.parametrize(
    ("shape", "fmt"),
    [((1, 2, 3, 4), "channels_last"), ((1, 2, 3, 4, 5), "channels_last_3d"), ((2, 3), "contiguous_format")],
)
def test_empty_in_a_memory_format_has_torchs_strides(shape: tuple[int, ...], fmt: str) -> None:
    ours = ctxgrad.empty(*shape, memory_format=getattr(ctxgrad, fmt))
    theirs = torch.empty(*shape, memory_format=getattr(torch, fmt))
    assert ours.stride() == theirs.stride()
    assert ours.is_contiguous(memory_format=getattr(ctxgrad, fmt))


@torch_names("torch.empty(memory_format=)")
@pytest.mark.parametrize(("shape", "fmt"), [((2, 3), "preserve_format"), ((2, 3), "channels_last")])
def test_empty_refuses_what_torch_refuses(shape: tuple[int, ...], fmt: str) -> None:
    ours = _outcome(lambda: ctxgrad.empty(*shape, memory_format=getattr(ctxgrad, fmt)))
    theirs = _outcome(lambda: torch.empty(*shape, memory_format=getattr(torch, fmt)))
    assert ours == theirs and ours[0] == "RuntimeError"


LAYOUTS = [
    pytest.param(
        lambda m, x: x.contiguous(memory_format=m.channels_last),
        marks=torch_names("Tensor.contiguous(memory_format=)"),
        id="contiguous",
    ),
    pytest.param(
        lambda m, x: x.clone(memory_format=m.channels_last),
        marks=torch_names("Tensor.clone(memory_format=)"),
        id="clone",
    ),
    pytest.param(
        lambda m, x: x.to(memory_format=m.channels_last), marks=torch_names("Tensor.to(memory_format=)"), id="to"
    ),
    pytest.param(
        lambda m, x: m.zeros_like(x, memory_format=m.channels_last),
        marks=torch_names("torch.zeros_like(memory_format=)"),
        id="zeros_like",
    ),
    pytest.param(
        lambda m, x: m.empty_like(x, memory_format=m.channels_last).fill_(2.0),
        marks=torch_names("torch.empty_like(memory_format=)"),
        id="empty_like",
    ),
    pytest.param(lambda m, x: x.permute(0, 2, 3, 1).clone().permute(0, 3, 1, 2).clone(), id="clone-preserves"),
]


@pytest.mark.parametrize("make", LAYOUTS)
def test_memory_format_keywords_give_torchs_values_and_strides(make: Any) -> None:
    values = np.arange(24.0).reshape(1, 2, 3, 4)
    ours, theirs = make(ctxgrad, ctxgrad.tensor(values)), make(torch, torch.tensor(values))
    assert ours.stride() == theirs.stride()
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@torch_names("Tensor.to(memory_format=)")
def test_a_gradient_flows_through_a_change_of_layout_as_in_torch() -> None:
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor(np.arange(24.0).reshape(1, 2, 3, 4), requires_grad=True)
        y = x.to(memory_format=m.channels_last)
        (y * m.arange(24.0).reshape(1, 2, 3, 4)).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])
