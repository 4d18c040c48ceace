"""nn.functional, nn.init and nn.utils as public torch code uses them (torch-usage.tsv): the
same calls on ctxgrad and torch, values and gradients compared."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _usage import assert_same, check, grads, torch_names, values

import ctxgrad

X = np.random.default_rng(0).standard_normal((2, 3, 4, 4))
V = np.random.default_rng(1).standard_normal((3, 5))
T = np.random.default_rng(2).standard_normal((3, 5))
P = np.random.default_rng(3).uniform(0.05, 0.95, (3, 5))
Y = [4, 0, 2]

FUNCTIONS = [
    pytest.param(
        lambda m, x: m.nn.functional.softmax(x, dim=-1),
        V,
        marks=torch_names("torch.nn.functional.softmax", "torch.nn.functional"),
        id="softmax",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.log_softmax(x, dim=1),
        V,
        marks=torch_names("torch.nn.functional.log_softmax"),
        id="log_softmax",
    ),
    pytest.param(lambda m, x: m.nn.functional.relu(x), V, marks=torch_names("torch.nn.functional.relu"), id="relu"),
    pytest.param(
        lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
        V,
        marks=torch_names("torch.nn.functional.gelu"),
        id="gelu",
    ),
    pytest.param(lambda m, x: m.nn.functional.silu(x), V, marks=torch_names("torch.nn.functional.silu"), id="silu"),
    pytest.param(
        lambda m, x: m.nn.functional.elu(x, alpha=0.5), V, marks=torch_names("torch.nn.functional.elu"), id="elu"
    ),
    pytest.param(
        lambda m, x: m.nn.functional.leaky_relu(x, 0.1),
        V,
        marks=torch_names("torch.nn.functional.leaky_relu"),
        id="leaky_relu",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.softplus(x, beta=2),
        V,
        marks=torch_names("torch.nn.functional.softplus"),
        id="softplus",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.logsigmoid(x),
        V,
        marks=torch_names("torch.nn.functional.logsigmoid"),
        id="logsigmoid",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.glu(x[:, :4], dim=-1), V, marks=torch_names("torch.nn.functional.glu"), id="glu"
    ),
    pytest.param(
        lambda m, x: m.nn.functional.normalize(x, dim=1),
        V,
        marks=torch_names("torch.nn.functional.normalize"),
        id="normalize",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.pad(x, (1, 2), value=0.5),
        V,
        marks=torch_names("torch.nn.functional.pad"),
        id="pad",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.pad(x, (1, 1, 1, 1), mode="reflect"),
        X,
        marks=torch_names("torch.nn.functional.pad"),
        id="pad-reflect",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.linear(x, x[:2].T.T, x[0, :2]),
        V,
        marks=torch_names("torch.nn.functional.linear"),
        id="linear",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.cosine_similarity(x[:2], x[1:], dim=1),
        V,
        marks=torch_names("torch.nn.functional.cosine_similarity"),
        id="cosine_similarity",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
        X,
        marks=torch_names("torch.nn.functional.interpolate"),
        id="interpolate-bilinear",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.interpolate(x, size=(3, 5), mode="nearest"),
        X,
        marks=torch_names("torch.nn.functional.interpolate"),
        id="interpolate-nearest",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.max_pool2d(x, 2),
        X,
        marks=torch_names("torch.nn.functional.max_pool2d"),
        id="max_pool2d",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.avg_pool2d(x, 3, stride=1, padding=1),
        X,
        marks=torch_names("torch.nn.functional.avg_pool2d"),
        id="avg_pool2d",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.adaptive_avg_pool2d(x, 1),
        X,
        marks=torch_names("torch.nn.functional.adaptive_avg_pool2d"),
        id="adaptive_avg_pool2d",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.adaptive_max_pool2d(x, (2, 3)),
        X,
        marks=torch_names("torch.nn.functional.adaptive_max_pool2d"),
        id="adaptive_max_pool2d",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.max_pool3d(x.unsqueeze(0), 2),
        X,
        marks=torch_names("torch.nn.functional.max_pool3d"),
        id="max_pool3d",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.pixel_shuffle(x[:, :, :2], 1) + 0,
        X,
        marks=torch_names("torch.nn.functional.pixel_shuffle"),
        id="pixel_shuffle",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.pixel_shuffle(x.reshape(1, 4, 6, 4), 2),
        X,
        marks=torch_names("torch.nn.functional.pixel_shuffle"),
        id="pixel_shuffle-2",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.unfold(x, 2, stride=2),
        X,
        marks=torch_names("torch.nn.functional.unfold"),
        id="unfold",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.fold(m.nn.functional.unfold(x, 2), (4, 4), 2),
        X,
        marks=torch_names("torch.nn.functional.fold"),
        id="fold",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.layer_norm(x, (4,)),
        X,
        marks=torch_names("torch.nn.functional.layer_norm"),
        id="layer_norm",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.group_norm(x, 3),
        X,
        marks=torch_names("torch.nn.functional.group_norm"),
        id="group_norm",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.rms_norm(x, (4,), eps=1e-6),
        X,
        marks=torch_names("torch.nn.functional.rms_norm"),
        id="rms_norm",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.batch_norm(x, None, None, training=True),
        X,
        marks=torch_names("torch.nn.functional.batch_norm"),
        id="batch_norm",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.dropout(x, 0.5, training=False),
        V,
        marks=torch_names("torch.nn.functional.dropout"),
        id="dropout-eval",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.mse_loss(x, m.tensor(T)),
        V,
        marks=torch_names("torch.nn.functional.mse_loss"),
        id="mse_loss",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.l1_loss(x, m.tensor(T), reduction="sum"),
        V,
        marks=torch_names("torch.nn.functional.l1_loss"),
        id="l1_loss",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.smooth_l1_loss(x, m.tensor(T), beta=0.5),
        V,
        marks=torch_names("torch.nn.functional.smooth_l1_loss"),
        id="smooth_l1_loss",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.cross_entropy(x, m.tensor(Y)),
        V,
        marks=torch_names("torch.nn.functional.cross_entropy"),
        id="cross_entropy",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.cross_entropy(x, m.tensor(Y), reduction="none", ignore_index=0),
        V,
        marks=torch_names("torch.nn.functional.cross_entropy"),
        id="cross_entropy-ignore",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.nll_loss(x.log_softmax(1), m.tensor(Y)),
        V,
        marks=torch_names("torch.nn.functional.nll_loss"),
        id="nll_loss",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.binary_cross_entropy_with_logits(x, m.tensor(P)),
        V,
        marks=torch_names("torch.nn.functional.binary_cross_entropy_with_logits"),
        id="bce_with_logits",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.binary_cross_entropy(x.sigmoid(), m.tensor(P)),
        V,
        marks=torch_names("torch.nn.functional.binary_cross_entropy"),
        id="bce",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.kl_div(x.log_softmax(1), m.tensor(P).softmax(1), reduction="batchmean"),
        V,
        marks=torch_names("torch.nn.functional.kl_div"),
        id="kl_div",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.embedding(m.tensor([[0, 2], [1, 1]]), x),
        V,
        marks=torch_names("torch.nn.functional.embedding"),
        id="embedding",
    ),
    pytest.param(
        lambda m, x: m.nn.functional.scaled_dot_product_attention(x[None], x[None], x[None], is_causal=True),
        V,
        marks=torch_names("torch.nn.functional.scaled_dot_product_attention"),
        id="sdpa",
    ),
]


@pytest.mark.parametrize(("f", "data"), FUNCTIONS)
def test_functional_values_and_gradients_match_torch(torch: Any, f: Any, data: np.ndarray) -> None:
    check(lambda m: grads(m, lambda x: f(m, x), data), torch, 1e-7, 1e-9)


@torch_names("torch.nn.functional.one_hot")
def test_one_hot_matches_torch(torch: Any) -> None:
    check(lambda m: (m.nn.functional.one_hot(m.tensor([0, 2, 1])), m.nn.functional.one_hot(m.tensor([1]), 4)), torch)


@torch_names("torch.nn.functional.dropout")
def test_dropout_in_training_keeps_or_scales_as_torch(torch: Any) -> None:
    for m in (ctxgrad, torch):
        m.manual_seed(0)
        x = m.ones(2000, requires_grad=True)
        y = m.nn.functional.dropout(x, 0.25)
        kept = values(y)
        assert {round(float(v), 5) for v in np.unique(kept)} == {0.0, round(1 / 0.75, 5)}
        assert abs((kept == 0).mean() - 0.25) < 0.05
        y.sum().backward()
        np.testing.assert_allclose(values(x.grad), kept)


DETERMINISTIC_INIT = [
    pytest.param(
        lambda m, w: m.nn.init.constant_(w, 0.3),
        marks=torch_names("torch.nn.init.constant_", "torch.nn.init"),
        id="constant_",
    ),
    pytest.param(lambda m, w: m.nn.init.zeros_(w), marks=torch_names("torch.nn.init.zeros_"), id="zeros_"),
    pytest.param(lambda m, w: m.nn.init.ones_(w), marks=torch_names("torch.nn.init.ones_"), id="ones_"),
    pytest.param(
        lambda m, w: m.nn.init.dirac_(w.reshape(2, 2, 3)), marks=torch_names("torch.nn.init.dirac_"), id="dirac_"
    ),
    pytest.param(
        lambda m, w: (
            [float(m.nn.init.calculate_gain(g)) for g in ("relu", "tanh", "linear", "sigmoid", "selu")]
            + [m.nn.init.calculate_gain("leaky_relu", 0.2)]
        ),
        marks=torch_names("torch.nn.init.calculate_gain"),
        id="calculate_gain",
    ),
]


@pytest.mark.parametrize("f", DETERMINISTIC_INIT)
def test_deterministic_init_matches_torch(torch: Any, f: Any) -> None:
    def run(m: Any) -> Any:
        w = m.empty(4, 3)
        with m.no_grad():
            return f(m, w)

    check(run, torch)


RANDOM_INIT = [
    pytest.param(lambda m, w: m.nn.init.normal_(w, std=0.02), marks=torch_names("torch.nn.init.normal_"), id="normal_"),
    pytest.param(
        lambda m, w: m.nn.init.uniform_(w, -0.1, 0.1), marks=torch_names("torch.nn.init.uniform_"), id="uniform_"
    ),
    pytest.param(
        lambda m, w: m.nn.init.xavier_uniform_(w, gain=2.0),
        marks=torch_names("torch.nn.init.xavier_uniform_"),
        id="xavier_uniform_",
    ),
    pytest.param(
        lambda m, w: m.nn.init.xavier_normal_(w), marks=torch_names("torch.nn.init.xavier_normal_"), id="xavier_normal_"
    ),
    pytest.param(
        lambda m, w: m.nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"),
        marks=torch_names("torch.nn.init.kaiming_normal_"),
        id="kaiming_normal_",
    ),
    pytest.param(
        lambda m, w: m.nn.init.kaiming_uniform_(w, a=5**0.5),
        marks=torch_names("torch.nn.init.kaiming_uniform_"),
        id="kaiming_uniform_",
    ),
    pytest.param(
        lambda m, w: m.nn.init.trunc_normal_(w, std=0.5, a=-1.0, b=1.0),
        marks=torch_names("torch.nn.init.trunc_normal_"),
        id="trunc_normal_",
    ),
    pytest.param(
        lambda m, w: m.nn.init.orthogonal_(w), marks=torch_names("torch.nn.init.orthogonal_"), id="orthogonal_"
    ),
]


@pytest.mark.parametrize("f", RANDOM_INIT)
def test_random_init_has_torchs_distribution(torch: Any, f: Any) -> None:
    """The same spread and bounds as torch's draw on a large tensor (the streams differ)."""
    stats = []
    for m in (ctxgrad, torch):
        m.manual_seed(0)
        w = m.empty(300, 200, dtype=m.float64)
        out = f(m, w)
        assert out is w and not w.requires_grad
        a = values(w)
        stats.append((a.std(), np.abs(a).max(), a.mean()))
    (std, top, mean), (t_std, t_top, t_mean) = stats
    assert abs(std - t_std) < 0.03 * t_std
    assert abs(mean - t_mean) < 0.05 * t_std + 1e-12
    if t_top < 3 * t_std:  # a bounded draw (uniform, truncated): the same bound
        assert abs(top - t_top) < 0.02 * t_top


@torch_names(
    "torch.nn.utils.clip_grad_norm_",
    "torch.nn.utils.clip_grad_value_",
    "torch.nn.utils",
    "torch.nn.utils.clip_grad.clip_grad_norm_",
)
def test_gradient_clipping_matches_torch(torch: Any) -> None:
    def run(m: Any, clip: Any) -> Any:
        a = m.nn.Parameter(m.tensor([3.0, -4.0]))
        b = m.nn.Parameter(m.tensor([[12.0]]))
        (a * m.tensor([1.0, 2.0])).sum().backward()
        (b * 5).sum().backward()
        total = clip(m, [a, b])
        return total, a.grad, b.grad

    check(lambda m: run(m, lambda m, ps: m.nn.utils.clip_grad_norm_(ps, 1.0)), torch)
    check(lambda m: run(m, lambda m, ps: m.nn.utils.clip_grad_norm_(ps, 2.0, norm_type=float("inf"))), torch)
    check(lambda m: run(m, lambda m, ps: m.nn.utils.clip_grad.clip_grad_norm_(ps, 0.5)), torch)
    check(lambda m: run(m, lambda m, ps: m.nn.utils.clip_grad_value_(ps, 1.5)), torch)


@torch_names("torch.nn.utils.parameters_to_vector", "torch.nn.utils.vector_to_parameters")
def test_parameters_to_vector_and_back_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        ps = [m.nn.Parameter(m.tensor([[1.0, 2.0]])), m.nn.Parameter(m.tensor([3.0]))]
        v = m.nn.utils.parameters_to_vector(ps)
        m.nn.utils.vector_to_parameters(v * 2, ps)
        return v, [p.detach() for p in ps]

    check(run, torch)


@torch_names("torch.nn.utils.rnn", "torch.nn.utils.rnn.pad_sequence", "torch.nn.utils.rnn.pack_padded_sequence")
def test_rnn_padding_and_packing_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        seqs = [m.tensor([1.0, 2.0, 3.0]), m.tensor([4.0]), m.tensor([5.0, 6.0])]
        padded = m.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=-1.0)
        packed = m.nn.utils.rnn.pack_padded_sequence(padded, [3, 1, 2], batch_first=True, enforce_sorted=False)
        unpacked, lengths = m.nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)
        return padded, packed.data, packed.batch_sizes, unpacked, lengths

    check(run, torch)


@torch_names("torch.nn.utils.weight_norm")
@pytest.mark.filterwarnings("ignore:.*weight_norm. is deprecated")
def test_weight_norm_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        m.manual_seed(0)
        layer = m.nn.Linear(3, 2).double()
        with m.no_grad():
            layer.weight.copy_(m.tensor([[1.0, -2.0, 0.5], [0.3, 0.2, 1.0]], dtype=m.float64))
            layer.bias.zero_()
        layer = m.nn.utils.weight_norm(layer)
        out = layer(m.tensor([[1.0, 2.0, 3.0]], dtype=m.float64))
        out.sum().backward()
        return out, layer.weight_g.grad, layer.weight_v.grad, sorted(n for n, _ in layer.named_parameters())

    check(run, torch)


def test_module_and_torch_functional_paths_are_torchs(torch: Any) -> None:
    assert_same(
        ctxgrad.nn.functional.relu(ctxgrad.tensor([-1.0, 1.0])), torch.nn.functional.relu(torch.tensor([-1.0, 1.0]))
    )
