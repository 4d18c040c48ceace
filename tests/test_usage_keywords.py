"""The keyword forms public torch code passes to the names it uses most (torch-usage.md's table
of the most used ``(name, keyword)`` pairs, and the forms issue 26 names: ``size=``, ``dtype=``,
``device=``, ``out=``, ``inplace=``, ``dim``/``keepdim``, ``generator=``, ``requires_grad=``,
``pin_memory=``): each called with the keyword on ctxgrad and torch, the results compared.
Each case's marker names its pairs as ``"torch.zeros(device=)"``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _usage import check, grads, torch_names, values

import ctxgrad

A = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]]


def t(m: Any, data: Any = A, **kw: Any) -> Any:
    return m.tensor(data, dtype=m.float64, **kw)


TOP = [
    pytest.param(lambda m: m.cat([t(m), t(m)], dim=1), marks=torch_names("torch.cat(dim=)"), id="cat-dim"),
    pytest.param(
        lambda m: (m.tensor([1, 2], device="cpu"), m.tensor([1, 2], dtype=m.float16)),
        marks=torch_names("torch.tensor(device=)", "torch.tensor(dtype=)"),
        id="tensor",
    ),
    pytest.param(
        lambda m: (m.zeros(2, device="cpu"), m.zeros(2, dtype=m.int32)),
        marks=torch_names("torch.zeros(device=)", "torch.zeros(dtype=)"),
        id="zeros",
    ),
    pytest.param(
        lambda m: (m.ones(2, device=m.device("cpu")), m.ones(2, dtype=m.bool)),
        marks=torch_names("torch.ones(device=)", "torch.ones(dtype=)"),
        id="ones",
    ),
    pytest.param(
        lambda m: (m.arange(3, dtype=m.float32), m.arange(0, 1, 0.5, device="cpu")),
        marks=torch_names("torch.arange(dtype=)", "torch.arange(device=)"),
        id="arange",
    ),
    pytest.param(lambda m: m.stack([t(m), t(m)], dim=-1), marks=torch_names("torch.stack(dim=)"), id="stack"),
    pytest.param(
        lambda m: (m.full((2,), 3, dtype=m.float64), m.full((1,), 1.0, device="cpu")),
        marks=torch_names("torch.full(dtype=)", "torch.full(device=)"),
        id="full",
    ),
    pytest.param(
        lambda m: (m.eye(2, device="cpu"), m.empty(2, dtype=m.int8).dtype, m.empty(2, device="cpu").device),
        marks=torch_names("torch.eye(device=)", "torch.empty(dtype=)", "torch.empty(device=)"),
        id="eye-empty",
    ),
    pytest.param(
        lambda m: (t(m).to(dtype=m.float32), t(m).to(device="cpu")),
        marks=torch_names("Tensor.to(dtype=)", "Tensor.to(device=)"),
        id="to",
    ),
    pytest.param(
        lambda m: (m.allclose(t(m), t(m) + 1e-4, atol=1e-3), m.allclose(t(m), t(m) + 1e-2, atol=1e-3)),
        marks=torch_names("torch.allclose(atol=)"),
        id="allclose-atol",
    ),
    pytest.param(
        lambda m: m.nn.Parameter(m.ones(2), requires_grad=False),
        marks=torch_names("torch.nn.Parameter(requires_grad=)"),
        id="Parameter",
    ),
]


@pytest.mark.parametrize("fn", TOP)
def test_top_keyword_forms_match_torch(torch: Any, fn: Any) -> None:
    check(fn, torch)


DIFFERENTIABLE = [
    pytest.param(
        lambda m, x: x.mean(dim=1, keepdim=True),
        marks=torch_names("Tensor.mean(dim=)", "Tensor.mean(keepdim=)"),
        id="mean",
    ),
    pytest.param(
        lambda m, x: x.sum(dim=0, keepdim=True), marks=torch_names("Tensor.sum(dim=)", "Tensor.sum(keepdim=)"), id="sum"
    ),
    pytest.param(
        lambda m, x: m.sum(x, dim=1) + m.mean(x, dim=1),
        marks=torch_names("torch.sum(dim=)", "torch.mean(dim=)"),
        id="torch.sum",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.softmax(x, dim=0),
        marks=torch_names("torch.nn.functional.softmax(dim=)"),
        id="softmax",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.log_softmax(x, dim=1),
        marks=torch_names("torch.nn.functional.log_softmax(dim=)"),
        id="log_softmax",
    ),
    pytest.param(lambda m, x: x.softmax(dim=-1), marks=torch_names("Tensor.softmax(dim=)"), id="Tensor.softmax"),
    pytest.param(lambda m, x: x.clamp(min=0.3) + x.clamp(max=0.0), marks=torch_names("Tensor.clamp(min=)"), id="clamp"),
    pytest.param(
        lambda m, x: m.cat(x.chunk(3, dim=1)[::-1], dim=1), marks=torch_names("Tensor.chunk(dim=)"), id="chunk"
    ),
    pytest.param(
        lambda m, x: x.clone().add_(x * x, alpha=-0.5), marks=torch_names("Tensor.add_(alpha=)"), id="add_-alpha"
    ),
    pytest.param(
        lambda m, x: m.nn.functional.pad(x, (1, 1), value=2.0),
        marks=torch_names("torch.nn.functional.pad(value=)"),
        id="pad-value",
    ),
    pytest.param(lambda m, x: x.norm(dim=1), marks=torch_names("Tensor.norm(dim=)"), id="norm"),
    pytest.param(
        lambda m, x: x.max(dim=1).values + x.max(dim=0, keepdim=True).values.sum(),
        marks=torch_names("Tensor.max(dim=)", "Tensor.max(keepdim=)"),
        id="max",
    ),
    pytest.param(
        lambda m, x: x * x.argmax(dim=1, keepdim=True),
        marks=torch_names("Tensor.argmax(dim=)", "torch.argmax(keepdim=)"),
        id="argmax",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.interpolate(x[None], scale_factor=2, mode="linear"),
        marks=torch_names("torch.nn.functional.interpolate(mode=)"),
        id="interpolate",
    ),
    pytest.param(lambda m, x: x.sum(dtype=m.float32), marks=torch_names("Tensor.sum(dtype=)"), id="sum-dtype"),
    pytest.param(
        lambda m, x: m.nn.functional.softmax(x, dim=1, dtype=m.float32),
        marks=torch_names("torch.nn.functional.softmax(dtype=)"),
        id="softmax-dtype",
    ),
    pytest.param(
        lambda m, x: m.max(x, dim=1).values + x.amax(dim=0).sum() + x.min(dim=0).values.sum(),
        marks=torch_names("torch.max(dim=)", "Tensor.amax(dim=)", "Tensor.min(dim=)"),
        id="max-dims",
    ),
    pytest.param(
        lambda m, x: m.norm(x, dim=1, keepdim=True) + x.std(dim=1, keepdim=True),
        marks=torch_names("torch.norm(dim=)", "torch.norm(keepdim=)", "Tensor.std(dim=)", "Tensor.std(keepdim=)"),
        id="norm-std",
    ),
    pytest.param(
        lambda m, x: m.logsumexp(x, dim=1, keepdim=True) + x.var(dim=1, keepdim=True) + x.amax(dim=1, keepdim=True),
        marks=torch_names(
            "torch.logsumexp(dim=)", "torch.logsumexp(keepdim=)", "Tensor.var(keepdim=)", "Tensor.amax(keepdim=)"
        ),
        id="logsumexp",
    ),
    pytest.param(
        lambda m, x: x * (x > 0).any(dim=1, keepdim=True) + (x > -5).all(dim=0),
        marks=torch_names("Tensor.any(dim=)", "Tensor.all(dim=)"),
        id="any-all",
    ),
    pytest.param(
        lambda m, x: m.argmax(x, dim=0) * x + m.mean(x, dim=0, keepdim=True) + m.sum(x, dim=1, keepdim=True),
        marks=torch_names("torch.argmax(dim=)", "torch.mean(keepdim=)", "torch.sum(keepdim=)"),
        id="argmax-fn",
    ),
    pytest.param(
        lambda m, x: (
            m.nn.functional.normalize(x, dim=0) + m.nn.functional.cosine_similarity(x, x.flip(0), dim=1)[:, None]
        ),
        marks=torch_names("torch.nn.functional.normalize(dim=)", "torch.nn.functional.cosine_similarity(dim=)"),
        id="normalize",
    ),
    pytest.param(
        lambda m, x: m.cumsum(x, dim=1) + m.squeeze(x[:, None], dim=1) + x.unsqueeze(dim=0)[0],
        marks=torch_names("torch.cumsum(dim=)", "torch.squeeze(dim=)", "Tensor.unsqueeze(dim=)"),
        id="cumsum",
    ),
]


@pytest.mark.parametrize("f", DIFFERENTIABLE)
def test_keyword_forms_of_differentiable_ops_match_torch(torch: Any, f: Any) -> None:
    check(lambda m: grads(m, lambda x: f(m, x), A), torch, 1e-6, 1e-7)


OUT = [
    pytest.param(lambda m, o: m.cat([t(m), t(m)], out=o), marks=torch_names("torch.cat(out=)"), id="cat"),
    pytest.param(lambda m, o: m.stack([t(m), t(m)], out=o), marks=torch_names("torch.stack(out=)"), id="stack"),
    pytest.param(lambda m, o: m.matmul(t(m), t(m).T, out=o), marks=torch_names("torch.matmul(out=)"), id="matmul"),
    pytest.param(lambda m, o: m.mm(t(m), t(m).T, out=o), marks=torch_names("torch.mm(out=)"), id="mm"),
    pytest.param(lambda m, o: m.bmm(t(m)[None], t(m).T[None], out=o), marks=torch_names("torch.bmm(out=)"), id="bmm"),
    pytest.param(lambda m, o: m.add(t(m), 1.0, out=o), marks=torch_names("torch.add(out=)"), id="add"),
    pytest.param(lambda m, o: m.mul(t(m), t(m), out=o), marks=torch_names("torch.mul(out=)"), id="mul"),
    pytest.param(lambda m, o: m.clamp(t(m), min=0.0, out=o), marks=torch_names("torch.clamp(out=)"), id="clamp"),
    pytest.param(lambda m, o: m.sum(t(m), 1, out=o), marks=torch_names("torch.sum(out=)"), id="sum"),
    pytest.param(
        lambda m, o: m.max(t(m), 1, out=(o, m.empty(0, dtype=m.int64)))[1],
        marks=torch_names("torch.max(out=)"),
        id="max",
    ),
]


@pytest.mark.parametrize("f", OUT)
def test_out_forms_write_as_torch(torch: Any, f: Any) -> None:
    def run(m: Any) -> Any:
        out = m.empty(0, dtype=m.float64)
        result = f(m, out)
        return result, out, result is out or result.dtype == m.int64

    check(run, torch)


@torch_names(
    "torch.nn.ReLU(inplace=)", "torch.nn.LeakyReLU(inplace=)", "torch.nn.ELU(inplace=)", "torch.nn.SiLU(inplace=)",
    "torch.nn.Hardswish(inplace=)", "torch.nn.ReLU6(inplace=)", "torch.nn.Dropout(inplace=)",
    "torch.nn.functional.relu(inplace=)", "torch.nn.functional.leaky_relu(inplace=)",
    "torch.nn.functional.elu(inplace=)", "torch.nn.functional.silu(inplace=)", "torch.nn.functional.dropout(inplace=)",
)  # fmt: skip
@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.nn.ReLU(inplace=True),
        lambda m: m.nn.LeakyReLU(0.1, inplace=True),
        lambda m: m.nn.ELU(inplace=True),
        lambda m: m.nn.SiLU(inplace=True),
        lambda m: m.nn.Hardswish(inplace=True),
        lambda m: m.nn.ReLU6(inplace=True),
        lambda m: m.nn.Dropout(0.5, inplace=True).eval(),
        lambda m: lambda x: m.nn.functional.relu(x, inplace=True),
        lambda m: lambda x: m.nn.functional.leaky_relu(x, 0.2, inplace=True),
        lambda m: lambda x: m.nn.functional.elu(x, inplace=True),
        lambda m: lambda x: m.nn.functional.silu(x, inplace=True),
        lambda m: lambda x: m.nn.functional.dropout(x, 0.5, training=False, inplace=True),
    ],
)
def test_inplace_activations_write_their_input_as_torch(torch: Any, make: Any) -> None:
    def run(m: Any) -> Any:
        leaf = t(m, requires_grad=True)
        x = leaf * 2
        y = make(m)(x)
        y.sum().backward()
        return y is x, x, leaf.grad

    check(run, torch)


@torch_names(
    "torch.nn.Conv2d(kernel_size=)", "torch.nn.Conv2d(padding=)", "torch.nn.Conv2d(stride=)", "torch.nn.Conv2d(bias=)",
    "torch.nn.Linear(bias=)", "torch.nn.Dropout(p=)", "torch.nn.Linear(device=)",
)  # fmt: skip
def test_layer_keywords_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        conv = m.nn.Conv2d(2, 3, kernel_size=3, stride=2, padding=1, bias=False)
        linear = m.nn.Linear(4, 2, bias=False, device="cpu")
        drop = m.nn.Dropout(p=0.3)
        return (
            tuple(conv.weight.shape), conv.bias, conv.stride, conv.padding, conv(m.zeros(1, 2, 5, 5)).shape,
            linear.bias, linear.weight.device, drop.p,
        )  # fmt: skip

    check(run, torch)


@torch_names("torch.nn.init.normal_(std=)")
def test_init_normal_std_matches_torch_spread(torch: Any) -> None:
    spreads = []
    for m in (ctxgrad, torch):
        m.manual_seed(0)
        spreads.append(float(values(m.nn.init.normal_(m.empty(200, 200), std=0.02)).std()))
    assert abs(spreads[0] - spreads[1]) < 0.02 * 0.03


FACTORY_KEYWORDS = [
    pytest.param(
        lambda m: (m.zeros(size=(2, 3)), m.ones(size=[2]), m.full(size=(2,), fill_value=1.5)),
        marks=torch_names("torch.zeros(size=)", "torch.ones(size=)", "torch.full(size=)"),
        id="size",
    ),
    pytest.param(
        lambda m: (m.empty(size=(2, 3)).shape, m.randn(size=(2,)).shape, m.rand(size=(3,)).dtype),
        marks=torch_names("torch.empty(size=)", "torch.randn(size=)", "torch.rand(size=)"),
        id="size-random",
    ),
    pytest.param(
        lambda m: (m.randint(0, 4, size=(5,)).shape, m.normal(0.0, 1.0, size=(2, 2)).shape),
        marks=torch_names("torch.randint(size=)", "torch.normal(size=)"),
        id="size-randint",
    ),
    pytest.param(
        lambda m: (
            m.randn(2, dtype=m.float64).dtype,
            m.rand(2, dtype=m.float16).dtype,
            m.randint(0, 3, (2,), dtype=m.int32).dtype,
        ),
        marks=torch_names("torch.randn(dtype=)", "torch.rand(dtype=)", "torch.randint(dtype=)"),
        id="dtype-random",
    ),
    pytest.param(
        lambda m: (
            m.linspace(0, 1, 3, dtype=m.float64),
            m.zeros_like(t(m), dtype=m.int64),
            m.ones_like(t(m), dtype=m.bool),
        ),
        marks=torch_names("torch.linspace(dtype=)", "torch.zeros_like(dtype=)", "torch.ones_like(dtype=)"),
        id="dtype-like",
    ),
    pytest.param(
        lambda m: (m.as_tensor([1, 2], dtype=m.float32), m.full_like(t(m), 2, dtype=m.int16)),
        marks=torch_names("torch.as_tensor(dtype=)", "torch.full_like(dtype=)"),
        id="dtype-as_tensor",
    ),
    pytest.param(
        lambda m: (
            m.linspace(0, 1, 2, device="cpu"),
            m.zeros_like(t(m), device="cpu"),
            m.randperm(3, device="cpu").shape,
        ),
        marks=torch_names("torch.linspace(device=)", "torch.zeros_like(device=)", "torch.randperm(device=)"),
        id="device",
    ),
    pytest.param(
        lambda m: (
            m.as_tensor([1.0], device="cpu"),
            m.empty_like(t(m), device="cpu").device,
            m.ones_like(t(m), device="cpu"),
            m.randn_like(t(m), device="cpu").shape,
        ),
        marks=torch_names(
            "torch.as_tensor(device=)",
            "torch.empty_like(device=)",
            "torch.ones_like(device=)",
            "torch.randn_like(device=)",
        ),
        id="device-like",
    ),
    pytest.param(
        lambda m: (
            m.randn(2, device="cpu").device,
            m.rand(2, device="cpu").device,
            m.randint(0, 2, (2,), device="cpu").device,
        ),
        marks=torch_names("torch.randn(device=)", "torch.rand(device=)", "torch.randint(device=)"),
        id="device-random",
    ),
    pytest.param(
        lambda m: (
            m.tensor([1.0], requires_grad=True),
            m.zeros(2, requires_grad=True),
            m.ones(1, requires_grad=True),
            m.full((1,), 2.0, requires_grad=True),
        ),
        marks=torch_names(
            "torch.tensor(requires_grad=)",
            "torch.zeros(requires_grad=)",
            "torch.ones(requires_grad=)",
            "torch.full(requires_grad=)",
        ),
        id="requires_grad",
    ),
    pytest.param(
        lambda m: (
            m.randn(2, requires_grad=True).requires_grad,
            m.rand(2, requires_grad=True).requires_grad,
            m.empty(2, requires_grad=True).requires_grad,
        ),
        marks=torch_names("torch.randn(requires_grad=)", "torch.rand(requires_grad=)", "torch.empty(requires_grad=)"),
        id="requires_grad-random",
    ),
    pytest.param(
        lambda m: (
            m.arange(3.0, requires_grad=True),
            m.linspace(0, 1, 3, requires_grad=True),
            m.eye(2, requires_grad=True),
            m.zeros_like(t(m), requires_grad=True),
            m.ones_like(t(m), requires_grad=True),
        ),
        marks=torch_names(
            "torch.arange(requires_grad=)",
            "torch.linspace(requires_grad=)",
            "torch.eye(requires_grad=)",
            "torch.zeros_like(requires_grad=)",
            "torch.ones_like(requires_grad=)",
        ),
        id="requires_grad-more",
    ),
]


@pytest.mark.parametrize("fn", FACTORY_KEYWORDS)
def test_factory_keywords_match_torch(torch: Any, fn: Any) -> None:
    check(fn, torch)


GENERATED = [
    pytest.param(lambda m, g: m.randn(3, generator=g), marks=torch_names("torch.randn(generator=)"), id="randn"),
    pytest.param(lambda m, g: m.rand(3, generator=g), marks=torch_names("torch.rand(generator=)"), id="rand"),
    pytest.param(
        lambda m, g: m.randint(0, 9, (3,), generator=g), marks=torch_names("torch.randint(generator=)"), id="randint"
    ),
    pytest.param(
        lambda m, g: m.randperm(5, generator=g), marks=torch_names("torch.randperm(generator=)"), id="randperm"
    ),
    pytest.param(
        lambda m, g: m.multinomial(m.ones(4), 2, generator=g),
        marks=torch_names("torch.multinomial(generator=)"),
        id="multinomial",
    ),
    pytest.param(
        lambda m, g: m.normal(m.zeros(3), 1.0, generator=g), marks=torch_names("torch.normal(generator=)"), id="normal"
    ),
    pytest.param(
        lambda m, g: m.bernoulli(m.full((4,), 0.5), generator=g),
        marks=torch_names("torch.bernoulli(generator=)"),
        id="bernoulli",
    ),
    pytest.param(
        lambda m, g: m.empty(3).normal_(generator=g), marks=torch_names("Tensor.normal_(generator=)"), id="normal_"
    ),
    pytest.param(
        lambda m, g: m.empty(3).uniform_(generator=g), marks=torch_names("Tensor.uniform_(generator=)"), id="uniform_"
    ),
    pytest.param(
        lambda m, g: m.nn.init.normal_(m.empty(3), generator=g),
        marks=torch_names("torch.nn.init.normal_(generator=)"),
        id="init.normal_",
    ),
    pytest.param(
        lambda m, g: m.tensor(list(m.utils.data.RandomSampler(range(6), generator=g))),
        marks=torch_names("torch.utils.data.RandomSampler(generator=)"),
        id="RandomSampler",
    ),
    pytest.param(
        lambda m, g: m.tensor(m.utils.data.random_split(range(6), [4, 2], generator=g)[0].indices),
        marks=torch_names("torch.utils.data.random_split(generator=)"),
        id="random_split",
    ),
    pytest.param(
        lambda m, g: m.cat(list(m.utils.data.DataLoader(m.arange(6), batch_size=3, shuffle=True, generator=g))),
        marks=torch_names("torch.utils.data.DataLoader(generator=)"),
        id="DataLoader",
    ),
]


@pytest.mark.parametrize("f", GENERATED)
def test_generator_keyword_replays_and_matches_torch_in_kind(torch: Any, f: Any) -> None:
    """The same generator seed gives the same draw again, whatever the global seed; the draw has
    torch's shape and dtype (each library its own stream)."""
    results = []
    for m in (ctxgrad, torch):
        m.manual_seed(1)
        first = f(m, m.Generator().manual_seed(5))
        m.manual_seed(2)
        again = f(m, m.Generator().manual_seed(5))
        np.testing.assert_array_equal(values(first), values(again))
        results.append(first)
    assert tuple(results[0].shape) == tuple(results[1].shape)
    assert str(results[0].dtype).split(".")[-1] == str(results[1].dtype).split(".")[-1]


@torch_names("torch.utils.data.DataLoader(pin_memory=)")
def test_data_loader_pin_memory_on_the_cpu_matches_torch(torch: Any) -> None:
    check(lambda m: list(m.utils.data.DataLoader(m.arange(4.0), batch_size=2, pin_memory=False)), torch)
