"""The keyword forms used in at least four repositories of the corpus (the scanner's keyword
table, tools/torch-usage-kw.tsv) beyond those of tests/test_usage_keywords.py: each called with
the keyword on ctxgrad and torch, values (and gradients, for a differentiable op) compared."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from _usage import check, grads, torch_names

import ctxgrad

A = [[1.5, -2.0, 0.25, 0.7], [3.0, 0.5, -1.0, 0.1], [0.2, -0.3, 2.2, -1.4]]
IMG = np.random.default_rng(0).standard_normal((1, 2, 5, 5)).tolist()

DIFFERENTIABLE = [
    pytest.param(
        lambda m, x: x.clamp(max=0.5) + m.clamp(x, min=-1.0) + m.clamp(x, max=1.0),
        A,
        marks=torch_names("Tensor.clamp(max=)", "torch.clamp(min=)", "torch.clamp(max=)"),
        id="clamp",
    ),
    pytest.param(
        lambda m, x: x.clone().clamp_(max=1.0) + x.clone().clamp_(min=0.0),
        A,
        marks=torch_names("Tensor.clamp_(max=)", "Tensor.clamp_(min=)"),
        id="clamp_",
    ),
    pytest.param(
        lambda m, x: x.norm(p=1, dim=1, keepdim=True) + m.norm(x, p=2),
        A,
        marks=torch_names("Tensor.norm(keepdim=)", "Tensor.norm(p=)", "torch.norm(p=)"),
        id="norm",
    ),
    pytest.param(
        lambda m, x: m.cat(m.split(x, 2, dim=1)[::-1], axis=1) + m.cat(m.chunk(x, 2, dim=1), dim=1),
        A,
        marks=torch_names("torch.split(dim=)", "torch.cat(axis=)", "torch.chunk(dim=)"),
        id="split",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.pad(x, pad=(1, 1), mode="replicate"),
        A,
        marks=torch_names("torch.nn.functional.pad(mode=)", "torch.nn.functional.pad(pad=)"),
        id="pad",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.interpolate(x[None], scale_factor=2.0, mode="linear", align_corners=True),
        A,
        marks=torch_names(
            "torch.nn.functional.interpolate(scale_factor=)", "torch.nn.functional.interpolate(align_corners=)"
        ),
        id="interpolate-scale",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.interpolate(x[None], size=6, mode="nearest"),
        A,
        marks=torch_names("torch.nn.functional.interpolate(size=)"),
        id="interpolate-size",
    ),
    pytest.param(
        lambda m, x: m.topk(x, k=2, dim=0).values + x.topk(2, dim=1).values.sum(),
        A,
        marks=torch_names("torch.topk(dim=)", "torch.topk(k=)", "Tensor.topk(dim=)"),
        id="topk",
    ),
    pytest.param(
        lambda m, x: m.softmax(x, dim=1) + m.log_softmax(x, dim=0) + m.nn.Softmax(dim=0)(x),
        A,
        marks=torch_names("torch.softmax(dim=)", "torch.log_softmax(dim=)", "torch.nn.Softmax(dim=)"),
        id="softmax",
    ),
    pytest.param(
        lambda m, x: x.sum(axis=1) + x.mean(axis=1),
        A,
        marks=torch_names("Tensor.sum(axis=)", "Tensor.mean(axis=)"),
        id="axis",
    ),
    pytest.param(lambda m, x: m.stack([x, x], axis=0), A, marks=torch_names("torch.stack(axis=)"), id="stack-axis"),
    pytest.param(
        lambda m, x: m.nn.functional.dropout(x, p=0.4, training=False),
        A,
        marks=torch_names("torch.nn.functional.dropout(p=)", "torch.nn.functional.dropout(training=)"),
        id="dropout",
    ),
    pytest.param(
        lambda m, x: m.linalg.solve_triangular(x[:, :3].triu() + m.eye(3, dtype=m.float64) * 3, x, upper=True),
        A,
        marks=torch_names("torch.linalg.solve_triangular(upper=)"),
        id="solve_triangular",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.normalize(x, p=1, dim=0, eps=1e-6),
        A,
        marks=torch_names("torch.nn.functional.normalize(p=)", "torch.nn.functional.normalize(eps=)"),
        id="normalize",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.mse_loss(x, x.flip(0), reduction="sum") + m.nn.MSELoss(reduction="mean")(x, x * 2),
        A,
        marks=torch_names("torch.nn.functional.mse_loss(reduction=)", "torch.nn.MSELoss(reduction=)"),
        id="mse",
    ),
    pytest.param(
        lambda m, x: x[None].flatten(start_dim=1), A, marks=torch_names("Tensor.flatten(start_dim=)"), id="flatten"
    ),
    pytest.param(
        lambda m, x: m.min(x, dim=1).values + x.min(dim=1, keepdim=True).values + x.amin(dim=1),
        A,
        marks=torch_names("torch.min(dim=)", "Tensor.min(keepdim=)", "Tensor.amin(dim=)"),
        id="min",
    ),
    pytest.param(
        lambda m, x: x * m.argsort(x, dim=0) + x.argmax(dim=1, keepdim=True),
        A,
        marks=torch_names("torch.argsort(dim=)", "Tensor.argmax(keepdim=)"),
        id="argsort",
    ),
    pytest.param(
        lambda m, x: m.gather(x, dim=1, index=m.tensor([[0, 1], [3, 3], [2, 0]])),
        A,
        marks=torch_names("torch.gather(dim=)", "torch.gather(index=)"),
        id="gather",
    ),
    pytest.param(
        lambda m, x: x.repeat_interleave(2, dim=0) + 0 * m.repeat_interleave(x, repeats=2, dim=0),
        A,
        marks=torch_names(
            "Tensor.repeat_interleave(dim=)", "torch.repeat_interleave(dim=)", "torch.repeat_interleave(repeats=)"
        ),
        id="repeat_interleave",
    ),
    pytest.param(
        lambda m, x: x[None].squeeze(dim=0) + m.triu(x, diagonal=1) + m.tril(x, diagonal=-1),
        A,
        marks=torch_names("Tensor.squeeze(dim=)", "torch.triu(diagonal=)", "torch.tril(diagonal=)"),
        id="triu",
    ),
    pytest.param(
        lambda m, x: m.linalg.norm(x, dim=1) + m.std(x, dim=1) + m.var(x, dim=1),
        A,
        marks=torch_names("torch.linalg.norm(dim=)", "torch.std(dim=)", "torch.var(dim=)"),
        id="linalg.norm",
    ),
    pytest.param(lambda m, x: m.flip(x, dims=(0, 1)), A, marks=torch_names("torch.flip(dims=)"), id="flip"),
    pytest.param(
        lambda m, x: m.diagonal(x, dim1=0, dim2=1) + x.diagonal(dim1=1, dim2=0),
        A,
        marks=torch_names(
            "torch.diagonal(dim1=)", "torch.diagonal(dim2=)", "Tensor.diagonal(dim1=)", "Tensor.diagonal(dim2=)"
        ),
        id="diagonal",
    ),
    pytest.param(
        lambda m, x: m.sort(x, dim=1, descending=True).values,
        A,
        marks=torch_names("torch.sort(dim=)", "torch.sort(descending=)"),
        id="sort",
    ),
    pytest.param(
        lambda m, x: m.stack(x.unbind(dim=1)) + x.cumsum(dim=0).T + x.logsumexp(dim=1)[None],
        A,
        marks=torch_names("Tensor.unbind(dim=)", "Tensor.cumsum(dim=)", "Tensor.logsumexp(dim=)"),
        id="unbind",
    ),
    pytest.param(
        lambda m, x: x * m.all(x > -5, dim=1, keepdim=True) + x * m.any(x > 2, dim=0),
        A,
        marks=torch_names("torch.all(dim=)", "torch.any(dim=)"),
        id="all-any",
    ),
    pytest.param(
        lambda m, x: m.nan_to_num(x / (x > 0), nan=0.5, posinf=1.0, neginf=-1.0),
        A,
        marks=[torch_names("torch.nan_to_num(nan=)"), pytest.mark.filterwarnings("ignore::RuntimeWarning")],
        id="nan_to_num",
    ),
    pytest.param(
        lambda m, x: m.stack(m.meshgrid(x[0], x[1], indexing="ij")),
        A,
        marks=torch_names("torch.meshgrid(indexing=)"),
        id="meshgrid",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.kl_div(
            x.log_softmax(1), x.flip(0).log_softmax(1), reduction="batchmean", log_target=True
        ),
        A,
        marks=torch_names("torch.nn.functional.kl_div(reduction=)", "torch.nn.functional.kl_div(log_target=)"),
        id="kl_div",
    ),
    pytest.param(
        lambda m, x: (
            m.nn.functional.cross_entropy(x, m.tensor([0, 3, 1]), ignore_index=3, reduction="sum")
            + m.nn.CrossEntropyLoss(reduction="sum")(x, m.tensor([1, 1, 2]))
        ),
        A,
        marks=torch_names(
            "torch.nn.functional.cross_entropy(ignore_index=)",
            "torch.nn.functional.cross_entropy(reduction=)",
            "torch.nn.CrossEntropyLoss(reduction=)",
        ),
        id="cross_entropy",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.binary_cross_entropy_with_logits(x, x.sigmoid().detach(), reduction="none"),
        A,
        marks=torch_names("torch.nn.functional.binary_cross_entropy_with_logits(reduction=)"),
        id="bce",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.scaled_dot_product_attention(
            x[None], x[None], x[None], attn_mask=x[None, :, :3] > 0, dropout_p=0.0
        ),
        A,
        marks=torch_names(
            "torch.nn.functional.scaled_dot_product_attention(attn_mask=)",
            "torch.nn.functional.scaled_dot_product_attention(dropout_p=)",
        ),
        id="sdpa-mask",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.scaled_dot_product_attention(x[None], x[None], x[None], is_causal=True),
        A,
        marks=torch_names("torch.nn.functional.scaled_dot_product_attention(is_causal=)"),
        id="sdpa-causal",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.conv2d(
            x[None, None], x[None, None, :2, :2], bias=x[0, :1], stride=1, padding=1, groups=1
        ),
        A,
        marks=torch_names(
            "torch.nn.functional.conv2d(padding=)",
            "torch.nn.functional.conv2d(stride=)",
            "torch.nn.functional.conv2d(groups=)",
            "torch.nn.functional.conv2d(bias=)",
        ),
        id="conv2d",
    ),
    pytest.param(
        lambda m, x: (
            m.nn.functional.max_pool2d(x[None, None], kernel_size=2, stride=1, padding=1).sum()
            + m.nn.functional.avg_pool2d(x[None, None], kernel_size=2, stride=1).sum()
        ),
        A,
        marks=torch_names(
            "torch.nn.functional.max_pool2d(stride=)",
            "torch.nn.functional.max_pool2d(kernel_size=)",
            "torch.nn.functional.max_pool2d(padding=)",
            "torch.nn.functional.avg_pool2d(stride=)",
            "torch.nn.functional.avg_pool2d(kernel_size=)",
        ),
        id="pools",
    ),
]


@pytest.mark.parametrize(("f", "data"), DIFFERENTIABLE)
def test_keyword_forms_match_torch_with_gradients(torch: Any, f: Any, data: Any) -> None:
    check(lambda m: grads(m, lambda x: f(m, x), data), torch, 1e-6, 1e-7)


def layer_out(m: Any, make: Any, data: Any = IMG) -> Any:
    """A layer made with the keyword, torch's random initial values replaced by fixed ones."""
    m.manual_seed(0)
    layer = make(m).double()
    with m.no_grad():
        for i, p in enumerate(layer.parameters()):
            p.copy_(m.linspace(-1, 1, p.numel(), dtype=m.float64).reshape(p.shape) * (i + 1))
    x = m.tensor(data, dtype=m.float64, requires_grad=True)
    out = layer(x)
    out.sum().backward()
    return out, x.grad, [p.grad for p in layer.parameters()]


LAYERS = [
    pytest.param(
        lambda m: m.nn.MaxPool2d(kernel_size=3, stride=2, padding=1),
        marks=torch_names(
            "torch.nn.MaxPool2d(kernel_size=)", "torch.nn.MaxPool2d(stride=)", "torch.nn.MaxPool2d(padding=)"
        ),
        id="MaxPool2d",
    ),
    pytest.param(
        lambda m: m.nn.AvgPool2d(kernel_size=2, stride=1, padding=1),
        marks=torch_names(
            "torch.nn.AvgPool2d(kernel_size=)", "torch.nn.AvgPool2d(stride=)", "torch.nn.AvgPool2d(padding=)"
        ),
        id="AvgPool2d",
    ),
    pytest.param(
        lambda m: m.nn.ConvTranspose2d(2, 2, kernel_size=3, stride=2, padding=1),
        marks=torch_names(
            "torch.nn.ConvTranspose2d(kernel_size=)",
            "torch.nn.ConvTranspose2d(stride=)",
            "torch.nn.ConvTranspose2d(padding=)",
        ),
        id="ConvTranspose2d",
    ),
    pytest.param(
        lambda m: m.nn.Conv2d(in_channels=2, out_channels=4, kernel_size=3, groups=2, dilation=2),
        marks=torch_names(
            "torch.nn.Conv2d(in_channels=)",
            "torch.nn.Conv2d(out_channels=)",
            "torch.nn.Conv2d(groups=)",
            "torch.nn.Conv2d(dilation=)",
        ),
        id="Conv2d",
    ),
    pytest.param(
        lambda m: m.nn.LayerNorm(5, eps=1e-3, elementwise_affine=False),
        marks=torch_names("torch.nn.LayerNorm(eps=)", "torch.nn.LayerNorm(elementwise_affine=)"),
        id="LayerNorm",
    ),
    pytest.param(
        lambda m: m.nn.BatchNorm2d(2, eps=1e-3, momentum=0.2, affine=False),
        marks=torch_names(
            "torch.nn.BatchNorm2d(eps=)", "torch.nn.BatchNorm2d(momentum=)", "torch.nn.BatchNorm2d(affine=)"
        ),
        id="BatchNorm2d",
    ),
    pytest.param(
        lambda m: m.nn.Upsample(scale_factor=2, mode="bilinear"),
        marks=torch_names("torch.nn.Upsample(scale_factor=)", "torch.nn.Upsample(mode=)"),
        id="Upsample",
    ),
    pytest.param(
        lambda m: m.nn.Linear(in_features=5, out_features=3),
        marks=torch_names("torch.nn.Linear(in_features=)", "torch.nn.Linear(out_features=)"),
        id="Linear",
    ),
]


@pytest.mark.parametrize("make", LAYERS)
def test_layer_keyword_forms_match_torch(torch: Any, make: Any) -> None:
    check(lambda m: layer_out(m, make), torch, 1e-7, 1e-9)


@torch_names(
    "torch.nn.BatchNorm1d(eps=)", "torch.nn.BatchNorm1d(affine=)", "torch.nn.Conv1d(padding=)", "torch.nn.Conv1d(bias=)"
)
def test_one_dimensional_layer_keywords_match_torch(torch: Any) -> None:
    rows = np.random.default_rng(1).standard_normal((3, 2, 6)).tolist()
    check(lambda m: layer_out(m, lambda m: m.nn.BatchNorm1d(2, eps=1e-2, affine=False), rows), torch, 1e-7, 1e-9)
    check(lambda m: layer_out(m, lambda m: m.nn.Conv1d(2, 3, 3, padding=1, bias=False), rows), torch, 1e-7, 1e-9)


VALUES = [
    pytest.param(
        lambda m: m.nn.functional.one_hot(m.tensor([1, 0]), num_classes=3),
        marks=torch_names("torch.nn.functional.one_hot(num_classes=)"),
        id="one_hot",
    ),
    pytest.param(
        lambda m: (m.eye(2, dtype=m.int64), m.linspace(0, 1, steps=4), m.arange(start=1, end=7, step=2)),
        marks=torch_names("torch.eye(dtype=)", "torch.linspace(steps=)", "torch.arange(start=)", "torch.arange(end=)"),
        id="eye-linspace-arange",
    ),
    pytest.param(
        lambda m: (m.full((2,), fill_value=7), m.full_like(m.ones(2), fill_value=2.5)),
        marks=torch_names("torch.full(fill_value=)", "torch.full_like(fill_value=)"),
        id="fill_value",
    ),
    pytest.param(
        lambda m: (m.tensor([[0, 1], [2, 0]]).nonzero(as_tuple=True), m.tensor([0, 3]).nonzero(as_tuple=False)),
        marks=torch_names("Tensor.nonzero(as_tuple=)"),
        id="nonzero",
    ),
    pytest.param(
        lambda m: (
            m.allclose(m.tensor([100.0]), m.tensor([100.5]), rtol=1e-2),
            m.allclose(m.tensor([100.0]), m.tensor([100.5]), rtol=1e-4),
        ),
        marks=torch_names("torch.allclose(rtol=)"),
        id="allclose",
    ),
    pytest.param(
        lambda m: m.nn.utils.rnn.pad_sequence([m.ones(2), m.ones(3)], batch_first=True),
        marks=torch_names("torch.nn.utils.rnn.pad_sequence(batch_first=)"),
        id="pad_sequence",
    ),
    pytest.param(
        lambda m: m.ones(2).to("cpu", non_blocking=True),
        marks=torch_names("Tensor.to(non_blocking=)"),
        id="to-non_blocking",
    ),
    pytest.param(
        lambda m: m.distributions.Categorical(logits=m.tensor([0.0, 1.0, 2.0])).probs,
        marks=torch_names("torch.distributions.Categorical(logits=)"),
        id="Categorical",
    ),
    pytest.param(
        lambda m: m.distributions.Normal(loc=m.tensor(0.5), scale=m.tensor(2.0)).log_prob(m.tensor(1.0)),
        marks=torch_names("torch.distributions.Normal(loc=)", "torch.distributions.Normal(scale=)"),
        id="Normal",
    ),
    pytest.param(
        lambda m: m.distributions.MultivariateNormal(
            loc=m.zeros(2), covariance_matrix=m.tensor([[2.0, 0.5], [0.5, 1.0]])
        ).log_prob(m.ones(2)),
        marks=torch_names(
            "torch.distributions.MultivariateNormal(loc=)", "torch.distributions.MultivariateNormal(covariance_matrix=)"
        ),
        id="MultivariateNormal",
    ),
]


@pytest.mark.parametrize("fn", VALUES)
def test_value_keyword_forms_match_torch(torch: Any, fn: Any) -> None:
    check(fn, torch)


@torch_names(
    "torch.autograd.grad(allow_unused=)", "torch.autograd.grad(grad_outputs=)", "Tensor.backward(retain_graph=)"
)
def test_autograd_keywords_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.tensor([1.0, 2.0], requires_grad=True)
        unused = m.tensor([3.0], requires_grad=True)
        y = x**2
        g, none = m.autograd.grad(
            y, [x, unused], grad_outputs=m.tensor([1.0, -1.0]), allow_unused=True, retain_graph=True
        )
        y.sum().backward(retain_graph=True)
        y.sum().backward()
        return g, none, x.grad

    check(run, torch)


@torch_names(
    "torch.randint(low=)", "torch.randint(high=)", "torch.multinomial(num_samples=)", "torch.multinomial(replacement=)"
)
def test_random_keyword_forms_match_torch_in_kind(torch: Any) -> None:
    def run(m: Any) -> Any:
        m.manual_seed(0)
        a = m.randint(low=2, high=5, size=(200,))
        b = m.multinomial(m.tensor([0.2, 0.8]), num_samples=5, replacement=True)
        c = m.multinomial(m.tensor([0.2, 0.3, 0.5]), num_samples=3, replacement=False)
        return a.dtype, sorted(set(a.tolist())), b.shape, sorted(c.tolist())

    check(run, torch)


@torch_names(
    "torch.nn.init.normal_(mean=)", "Tensor.normal_(mean=)", "Tensor.normal_(std=)", "torch.nn.init.trunc_normal_(std=)"
)
@torch_names("torch.nn.init.kaiming_normal_(mode=)", "torch.nn.init.kaiming_normal_(nonlinearity=)")
def test_init_keyword_forms_draw_torchs_distribution(torch: Any) -> None:
    fills = (
        lambda m, w: m.nn.init.normal_(w, mean=3.0, std=0.5),
        lambda m, w: w.normal_(mean=-1.0, std=2.0),
        lambda m, w: m.nn.init.trunc_normal_(w, std=0.1),
        lambda m, w: m.nn.init.kaiming_normal_(w, mode="fan_in", nonlinearity="leaky_relu"),
    )
    draws: list[Any] = []
    for m in (ctxgrad, torch):
        m.manual_seed(0)
        w = m.empty(400, 100, dtype=m.float64)
        draws.append(np.array([(a.mean(), a.std()) for a in (fill(m, w).numpy() for fill in fills)]))
    np.testing.assert_allclose(draws[0], draws[1], rtol=0.05, atol=0.01)


@torch_names("torch.optim.AdamW(betas=)", "torch.optim.AdamW(weight_decay=)", "torch.optim.SGD(momentum=)")
@torch_names(
    "torch.optim.SGD(weight_decay=)", "torch.optim.Adam(eps=)", "torch.optim.Optimizer.zero_grad(set_to_none=)"
)
@torch_names(
    "torch.optim.lr_scheduler.ReduceLROnPlateau(patience=)", "torch.optim.lr_scheduler.ReduceLROnPlateau(factor=)"
)
@torch_names("torch.optim.lr_scheduler.ExponentialLR(gamma=)")
def test_optimizer_keyword_forms_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        found = []
        for make in (
            lambda ps: m.optim.AdamW(ps, lr=0.1, betas=(0.8, 0.9), weight_decay=0.05),
            lambda ps: m.optim.SGD(ps, lr=0.1, momentum=0.5, weight_decay=0.01),
            lambda ps: m.optim.Adam(ps, lr=0.1, eps=1e-3),
        ):
            w = m.nn.Parameter(m.tensor([1.0, -2.0], dtype=m.float64))
            opt = make([w])
            plateau = m.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0, factor=0.5)
            decay = m.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
            for _ in range(3):
                opt.zero_grad(set_to_none=False)
                (w**2).sum().backward()
                opt.step()
                decay.step()
                plateau.step(1.0)
            opt.zero_grad(set_to_none=True)
            found.append((w.detach(), w.grad, opt.param_groups[0]["lr"]))
        return found

    check(run, torch, 1e-9, 1e-12)


@torch_names("torch.nn.Module.register_buffer(persistent=)", "torch.nn.Module.named_parameters(recurse=)")
def test_module_keyword_forms_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        outer = m.nn.Sequential(m.nn.Linear(2, 2))
        outer.register_buffer("kept", m.ones(1))
        outer.register_buffer("scratch", m.zeros(1), persistent=False)
        outer.register_parameter("own", m.nn.Parameter(m.ones(1)))
        return list(outer.state_dict()), [n for n, _ in outer.named_parameters(recurse=False)]

    check(run, torch)


@torch_names("torch.load(weights_only=)", "torch.testing.assert_close(atol=)", "torch.testing.assert_close(rtol=)")
@torch_names(
    "torch.utils.data.DataLoader(sampler=)",
    "torch.utils.data.DataLoader(collate_fn=)",
    "torch.utils.data.DataLoader(dataset=)",
)
def test_loading_and_testing_keyword_forms_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        buffer = io.BytesIO()
        m.save({"w": m.arange(3.0)}, buffer)
        buffer.seek(0)
        loaded = m.load(buffer, weights_only=True)
        m.testing.assert_close(m.tensor([1.0]), m.tensor([1.05]), atol=0.1, rtol=0.0)
        loader = m.utils.data.DataLoader(
            dataset=m.arange(6.0),
            batch_size=2,
            sampler=[5, 3, 1, 0],
            collate_fn=lambda items: m.stack(items) * 10,
        )
        return loaded, list(loader)

    check(run, torch)
