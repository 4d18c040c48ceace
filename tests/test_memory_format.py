"""Memory formats against torch: ``clone`` and the ``*_like`` factories keep their input's
strides by default (``preserve_format``): exactly for a tensor without gaps or overlaps, as
dense strides in the same dimension order for any other; ``contiguous_format`` and
``channels_last`` as asked.  Each case runs the same code on both libraries and compares
``.stride()`` (and the values)."""

from __future__ import annotations

import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

BASE = np.arange(24.0).reshape(4, 6)

# (name, the layout made from a module m and the tensor m.tensor(BASE))
LAYOUTS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("transposed", lambda m, t: t.t()),
    ("step-2 columns", lambda m, t: t[:, ::2]),
    ("transposed, step-2 rows", lambda m, t: t.t()[::2]),
    ("expanded", lambda m, t: t.expand(2, 4, 6)),
    ("step-2 rows, transposed", lambda m, t: t[::2].t()),
    ("permuted 4-d", lambda m, t: t.reshape(1, 4, 2, 3).permute(0, 2, 3, 1)),
    ("length-1 dimension", lambda m, t: t[:1].t()),
    ("permuted, length-1 dimension", lambda m, t: t.reshape(4, 1, 6).transpose(0, 2)),
    ("permuted, sliced", lambda m, t: t.reshape(2, 3, 4).permute(2, 0, 1)[:, :, ::2]),
    ("step-2 vector", lambda m, t: t.reshape(-1)[::2]),
    ("contiguous", lambda m, t: t),
]

MAKERS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("clone", lambda m, x: x.clone()),
    ("torch.clone", lambda m, x: m.clone(x, memory_format=m.preserve_format)),
    ("empty_like", lambda m, x: m.empty_like(x)),
    ("zeros_like", lambda m, x: m.zeros_like(x)),
    ("ones_like", lambda m, x: m.ones_like(x, memory_format=m.preserve_format)),
    ("full_like", lambda m, x: m.full_like(x, 7.0)),
    ("rand_like", lambda m, x: m.rand_like(x)),
    ("randn_like", lambda m, x: m.randn_like(x)),
    ("randint_like", lambda m, x: m.randint_like(x, 5)),
    ("randint_like contiguous", lambda m, x: m.randint_like(x, 2, 5, memory_format=m.contiguous_format)),
    ("randint_like preserve", lambda m, x: m.randint_like(x, 5, memory_format=m.preserve_format)),
    ("contiguous_format", lambda m, x: x.clone(memory_format=m.contiguous_format)),
    ("zeros_like contiguous", lambda m, x: m.zeros_like(x, memory_format=m.contiguous_format)),
]


@pytest.mark.torch_names(
    "torch.clone",
    "Tensor.clone",
    "torch.empty_like",
    "torch.zeros_like",
    "torch.ones_like",
    "torch.full_like",
    "torch.rand_like",
    "torch.randn_like",
    "torch.randint_like",
    "torch.preserve_format",
    "torch.contiguous_format",
)
@pytest.mark.parametrize(("maker", "make"), MAKERS, ids=[m for m, _ in MAKERS])
@pytest.mark.parametrize(("layout", "lay_out"), LAYOUTS, ids=[name for name, _ in LAYOUTS])
def test_strides_as_torchs(layout: str, lay_out: Any, maker: str, make: Any) -> None:
    ours = lay_out(ctxgrad, ctxgrad.tensor(BASE))
    theirs = lay_out(torch, torch.tensor(BASE))
    assert ours.stride() == theirs.stride()  # the layouts the cases start from agree
    made, expected = make(ctxgrad, ours), make(torch, theirs)
    assert made.stride() == expected.stride(), (layout, maker)
    assert tuple(made.shape) == tuple(expected.shape)
    if maker in ("clone", "torch.clone", "contiguous_format", "full_like", "zeros_like"):
        np.testing.assert_array_equal(made.numpy(), expected.numpy())


@pytest.mark.torch_names("Tensor.clone", "torch.channels_last", "torch.channels_last_3d")
def test_channels_last_formats() -> None:
    values = np.arange(120.0).reshape(2, 3, 4, 5)
    for m in (ctxgrad, torch):
        x = m.tensor(values)
        assert x.clone(memory_format=m.channels_last).stride() == (60, 1, 15, 3)
        assert m.empty_like(x[None], memory_format=m.channels_last_3d).stride() == (120, 1, 40, 10, 2)
        np.testing.assert_array_equal(x.clone(memory_format=m.channels_last).numpy(), values)
        drawn = m.randint_like(x, 3, 10, memory_format=m.channels_last)
        assert drawn.stride() == (60, 1, 15, 3) and drawn.dtype == x.dtype
        assert 3 <= drawn.min().item() and drawn.max().item() < 10
    for m in (ctxgrad, torch):
        with pytest.raises(RuntimeError, match=r"^required rank 4 tensor to use channels_last format$"):
            m.zeros(2, 3).clone(memory_format=m.channels_last)
        with pytest.raises(RuntimeError, match=r"^required rank 4 tensor to use channels_last format$"):
            m.randint_like(m.zeros(2, 3), 5, memory_format=m.channels_last)


def test_a_memory_format_that_is_not_one_is_refused_as_torch_refuses_it() -> None:
    with pytest.raises(TypeError) as theirs:
        torch.zeros(2).clone(memory_format=3)
    assert str(theirs.value) == "clone(): argument 'memory_format' must be torch.memory_format, not int"
    with pytest.raises(
        TypeError, match=r"^clone\(\): argument 'memory_format' must be ctxgrad.memory_format, not int$"
    ):
        ctxgrad.zeros(2).clone(memory_format=3)
    with pytest.raises(TypeError, match=r"^zeros_like\(\): argument 'memory_format' must be ctxgrad.memory_format"):
        ctxgrad.zeros_like(ctxgrad.zeros(2), memory_format="preserve")
    with pytest.raises(TypeError, match=r"memory_format"):
        torch.randint_like(torch.zeros(2), 5, memory_format=3)
    with pytest.raises(
        TypeError, match=r"^randint_like\(\): argument 'memory_format' must be ctxgrad.memory_format, not int$"
    ):
        ctxgrad.randint_like(ctxgrad.zeros(2), 5, memory_format=3)


def test_the_formats_print_and_pickle_as_themselves() -> None:
    assert repr(ctxgrad.preserve_format) == "ctxgrad.preserve_format"
    assert repr(torch.preserve_format) == "torch.preserve_format"
    assert pickle.loads(pickle.dumps(ctxgrad.channels_last)) is ctxgrad.channels_last


def test_a_strided_clone_passes_its_gradient_as_torchs_does() -> None:
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor(BASE, requires_grad=True)
        y = x.t().clone()
        (y * m.tensor(BASE.T)).sum().backward()
        grads.append(x.grad.numpy())
        assert y.stride() == (1, 6) and y.grad_fn.name() == "CloneBackward0"
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[0], BASE)


# (name, a scalar whose gradient reaches the leaf x, from a module m)
GRADIENT_PATHS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("elementwise", lambda m, x: (x * 3.0).sum()),
    ("through a transpose", lambda m, x: (x.transpose(0, -1) * 3.0).sum()),
    ("through a copy of a transpose", lambda m, x: (x.transpose(0, -1).contiguous() * 3.0).sum()),
]


@pytest.mark.parametrize(("path", "loss"), GRADIENT_PATHS, ids=[p[0] for p in GRADIENT_PATHS])
@pytest.mark.parametrize(("layout", "lay_out"), LAYOUTS, ids=[lay[0] for lay in LAYOUTS])
def test_a_leafs_grad_has_the_leafs_layout_as_torchs(layout: str, lay_out: Any, path: str, loss: Any) -> None:
    """``.grad`` is laid out as its leaf where the leaf has no gaps or overlaps, row-major
    otherwise, whatever the layout of the gradient that reaches it (torch's
    ``clone_obey_contract``): a weight used through ``t()`` gets a row-major ``.grad``, so
    ``w.grad.view(-1)`` works; and the second backward adds into it in place.  (The strides
    of dimensions of length 1 are left out: torch keeps the incoming gradient's there when
    it can take that gradient as it is, and no view or reshape reads them.)"""

    def strides(t: Any) -> tuple[int, ...]:
        return tuple(s for s, n in zip(t.stride(), t.shape) if n != 1)

    seen = []
    for m in (ctxgrad, torch):
        x = lay_out(m, m.tensor(BASE)).detach().requires_grad_()
        loss(m, x).backward()
        first = strides(x.grad)
        loss(m, x).backward()
        seen.append((first, strides(x.grad), x.grad.tolist()))
    assert seen[0] == seen[1]


def test_a_weights_grad_is_row_major_and_flattens_as_torchs() -> None:
    """``nn.Linear`` uses its weight through ``t()``: its ``.grad`` is still row-major, so the
    usual flattening of every gradient (``torch.cat([p.grad.view(-1) ...])``) works, with or
    without ``create_graph``."""
    rng = np.random.default_rng(0)
    inputs, weight, bias = rng.standard_normal((5, 4)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    seen = []
    for m in (ctxgrad, torch):
        layer = m.nn.Linear(4, 3, dtype=m.float64)
        with m.no_grad():
            layer.weight.copy_(m.tensor(weight))
            layer.bias.copy_(m.tensor(bias))
        (layer(m.tensor(inputs)) ** 2).sum().backward(create_graph=True)
        strides = layer.weight.grad.stride()
        flat = m.cat([p.grad.view(-1) for p in layer.parameters()])
        layer.zero_grad()
        (layer(m.tensor(inputs)) ** 2).sum().backward()
        seen.append((strides, layer.weight.grad.stride(), flat.detach().numpy()))
    assert seen[0][:2] == seen[1][:2] == ((4, 1), (4, 1))
    np.testing.assert_allclose(seen[0][2], seen[1][2], rtol=1e-12)


EMPTY_MAKERS: list[tuple[str, Callable[[Any], Any]]] = [
    ("zeros(0, 3)", lambda m: m.zeros(0, 3)),
    ("zeros(3, 0)", lambda m: m.zeros(3, 0)),
    ("empty(2, 0, 3)", lambda m: m.empty(2, 0, 3)),
    ("tensor([])", lambda m: m.tensor([])),
    ("ones(0)", lambda m: m.ones(0)),
    ("zeros(0, 1, 5)", lambda m: m.zeros(0, 1, 5, dtype=m.float64)),
    ("empty rows of a matrix", lambda m: m.arange(12.0).reshape(4, 3)[:0]),
    ("clone of empty rows", lambda m: m.arange(12.0).reshape(4, 3)[:0].clone()),
]


@pytest.mark.parametrize(("name", "make"), EMPTY_MAKERS, ids=[n for n, _ in EMPTY_MAKERS])
def test_an_empty_tensor_has_torch_s_strides(name: str, make: Any) -> None:
    """NumPy 2 gives an empty array zero strides; torch gives a new empty tensor the strides of
    its shape with each size 0 counted as 1 (``zeros(0, 3).stride() == (3, 1)``)."""
    ours, theirs = make(ctxgrad), make(torch)
    assert ours.stride() == theirs.stride()
    assert [ours.stride(d) for d in range(-ours.dim(), ours.dim())] == [
        theirs.stride(d) for d in range(-theirs.dim(), theirs.dim())
    ]
