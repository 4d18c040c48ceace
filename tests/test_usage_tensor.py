"""The Tensor surface and the tensor-making functions that public torch code uses most
(torch-usage.tsv), each run on ctxgrad and on torch and compared: values, dtypes, gradients."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _support import assert_matches_torch, raised
from _usage import check, grads, random_like_torch, torch_names, values

import ctxgrad
from ctxgrad.autograd.errors import ReshapeSizeError

M = [[1.5, -2.0, 0.25], [3.0, 0.5, -1.0]]

ATTRIBUTES = [
    pytest.param(lambda m: m.tensor([2.5]).item(), marks=torch_names("Tensor.item"), id="item"),
    pytest.param(lambda m: m.zeros(2, 3).shape, marks=torch_names("Tensor.shape", "torch.Size"), id="shape"),
    pytest.param(lambda m: (m.zeros(2, 3).size(), m.zeros(2, 3).size(-1)), marks=torch_names("Tensor.size"), id="size"),
    pytest.param(lambda m: m.zeros(2).device, marks=torch_names("Tensor.device", "torch.device"), id="device"),
    pytest.param(lambda m: m.tensor(M).float().dtype, marks=torch_names("Tensor.float", "Tensor.dtype"), id="float"),
    pytest.param(lambda m: m.tensor([1, 2]).half(), marks=torch_names("Tensor.half"), id="half"),
    pytest.param(lambda m: m.tensor([1.7, -0.2]).int(), marks=torch_names("Tensor.int"), id="int"),
    pytest.param(lambda m: m.tensor([0.0, 2.0]).bool(), marks=torch_names("Tensor.bool"), id="bool"),
    pytest.param(lambda m: m.tensor([3.0, 255.0]).byte(), marks=torch_names("Tensor.byte"), id="byte"),
    pytest.param(lambda m: m.tensor(M).tolist(), marks=torch_names("Tensor.tolist"), id="tolist"),
    pytest.param(lambda m: m.tensor(M).numpy(), marks=torch_names("Tensor.numpy"), id="numpy"),
    pytest.param(
        lambda m: (m.zeros(2, 3).numel(), m.numel(m.zeros(4))),
        marks=torch_names("Tensor.numel", "torch.numel"),
        id="numel",
    ),
    pytest.param(lambda m: m.zeros(2, 3).nelement(), marks=torch_names("Tensor.nelement"), id="nelement"),
    pytest.param(
        lambda m: (m.zeros(2, 3).dim(), m.zeros(2, 3).ndim, m.zeros(2).ndimension()),
        marks=torch_names("Tensor.dim", "Tensor.ndim", "Tensor.ndimension"),
        id="dim",
    ),
    pytest.param(
        lambda m: (m.zeros(2, 3).stride(), m.zeros(2, 3).t().stride(0)), marks=torch_names("Tensor.stride"), id="stride"
    ),
    pytest.param(
        lambda m: (m.zeros(2, 3).is_contiguous(), m.zeros(2, 3).t().is_contiguous()),
        marks=torch_names("Tensor.is_contiguous"),
        id="is_contiguous",
    ),
    pytest.param(
        lambda m: (m.zeros(2).is_cuda, m.zeros(2).get_device()),
        marks=torch_names("Tensor.is_cuda", "Tensor.get_device"),
        id="is_cuda",
    ),
    pytest.param(
        lambda m: (
            m.zeros(2).is_floating_point(),
            m.zeros(2, dtype=m.long).is_floating_point(),
            m.is_floating_point(m.ones(1)),
        ),
        marks=torch_names("Tensor.is_floating_point", "torch.is_floating_point"),
        id="is_floating_point",
    ),
    pytest.param(
        lambda m: (m.zeros(2).is_sparse, m.is_complex(m.zeros(1)), m.is_tensor(m.zeros(1)), m.is_tensor([1])),
        marks=torch_names("Tensor.is_sparse", "torch.is_complex", "torch.is_tensor"),
        id="is_sparse",
    ),
    pytest.param(
        lambda m: (m.zeros(2, 3).element_size(), m.zeros(2, 3, dtype=m.float64).itemsize, m.zeros(2, 3).nbytes),
        marks=torch_names("Tensor.element_size", "Tensor.itemsize", "Tensor.nbytes"),
        id="element_size",
    ),
    pytest.param(lambda m: m.tensor(M).T, marks=torch_names("Tensor.T"), id="T"),
    pytest.param(lambda m: m.arange(12.0).reshape(2, 2, 3).mT, marks=torch_names("Tensor.mT"), id="mT"),
    pytest.param(
        lambda m: (m.tensor(M).equal(m.tensor(M)), m.equal(m.tensor(M), m.zeros(2, 3))),
        marks=torch_names("Tensor.equal", "torch.equal"),
        id="equal",
    ),
    pytest.param(lambda m: m.tensor(M).trace(), marks=torch_names("Tensor.trace"), id="trace"),
]


@pytest.mark.parametrize("fn", ATTRIBUTES)
def test_attributes_and_conversions_match_torch(torch: Any, fn: Any) -> None:
    check(fn, torch)


@torch_names("Tensor.data_ptr")
def test_data_ptr_is_shared_by_a_view_as_in_torch(torch: Any) -> None:
    for m in (ctxgrad, torch):
        x = m.zeros(4)
        assert x.data_ptr() == x[:2].data_ptr()
        assert x.data_ptr() != x.clone().data_ptr()
        assert x[1:].data_ptr() - x.data_ptr() == x.element_size()


POINTWISE = [
    pytest.param(lambda m, x: x.floor(), marks=torch_names("Tensor.floor"), id="floor"),
    pytest.param(lambda m, x: m.floor(x), marks=torch_names("torch.floor"), id="torch.floor"),
    pytest.param(lambda m, x: x.ceil() + m.ceil(x), marks=torch_names("Tensor.ceil", "torch.ceil"), id="ceil"),
    pytest.param(lambda m, x: x.sign() * m.sign(x) * x, marks=torch_names("Tensor.sign", "torch.sign"), id="sign"),
    pytest.param(lambda m, x: x.relu() + m.relu(x), marks=torch_names("Tensor.relu", "torch.relu"), id="relu"),
    pytest.param(
        lambda m, x: x * (x.gt(0.3).double() + x.lt(0.3).double() * 2),
        marks=torch_names("Tensor.gt", "Tensor.lt"),
        id="gt-lt",
    ),
    pytest.param(
        lambda m, x: x * (x.ge(0.5).double() - x.le(-1.0).double() + x.ne(0.5).double()),
        marks=torch_names("Tensor.ge", "Tensor.le", "Tensor.ne"),
        id="ge-le-ne",
    ),
    pytest.param(
        lambda m, x: x * (m.ge(x, 0.5).double() + m.gt(x, 0.5).double() - m.ne(x, 0.5).double()),
        marks=torch_names("torch.ge", "torch.gt", "torch.ne"),
        id="torch.ge",
    ),
    pytest.param(lambda m, x: x.t() @ x + 0 * x.trace(), marks=torch_names("Tensor.trace"), id="trace-grad"),
]


@pytest.mark.parametrize("f", POINTWISE)
def test_pointwise_values_and_gradients_match_torch(torch: Any, f: Any) -> None:
    x = [[1.5, -2.25, 0.5], [0.3, 3.7, -1.0], [-0.6, 2.0, 0.9]]
    check(lambda m: grads(m, lambda t: f(m, t), x), torch)


IN_PLACE = [
    pytest.param(lambda m, x: x.fill_(2.5), marks=torch_names("Tensor.fill_"), id="fill_"),
    pytest.param(lambda m, x: x.zero_(), marks=torch_names("Tensor.zero_"), id="zero_"),
    pytest.param(lambda m, x: x.floor_(), marks=torch_names("Tensor.floor_"), id="floor_"),
    pytest.param(lambda m, x: x.relu_(), marks=torch_names("Tensor.relu_"), id="relu_"),
    pytest.param(lambda m, x: x.fill_diagonal_(7.0), marks=torch_names("Tensor.fill_diagonal_"), id="fill_diagonal_"),
]


@pytest.mark.parametrize("f", IN_PLACE)
def test_in_place_writes_and_gradients_match_torch(torch: Any, f: Any) -> None:
    def run(m: Any) -> Any:
        leaf = m.tensor(M, dtype=m.float64, requires_grad=True)
        x = leaf * 1.0
        out = f(m, x)
        assert out is x
        (out * m.arange(6.0, dtype=m.float64).reshape(2, 3)).sum().backward()
        return x, leaf.grad

    check(run, torch)


def test_detach_data_and_requires_grad_match_torch(torch: Any) -> None:
    @torch_names("Tensor.detach", "Tensor.data", "Tensor.requires_grad", "Tensor.requires_grad_", "Tensor.detach_")
    def run(m: Any) -> Any:
        x = m.tensor([1.0, 2.0]).requires_grad_()
        y = x * 3
        d = y.detach()
        z = x * 2
        z.detach_()
        return y.requires_grad, d.requires_grad, x.data.requires_grad, z.requires_grad, z.is_leaf, d, x.data

    check(run, torch)


@torch_names("Tensor.backward", "Tensor.grad", "Tensor.grad_fn", "Tensor.is_leaf", "Tensor.register_hook")
def test_backward_grad_and_hooks_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
        seen = []
        y = x * x
        y.register_hook(lambda g: seen.append(g.clone()) or g * 2)
        y.sum().backward()
        first = x.grad.clone()
        (x**3).sum().backward()
        return first, x.grad, seen, x.is_leaf, y.is_leaf, x.grad_fn is None, y.grad_fn is not None

    check(run, torch)


@torch_names("Tensor.cuda")
def test_cuda_without_a_gpu_fails_as_torch_on_the_cpu_build(torch: Any) -> None:
    if torch.cuda.is_available():
        pytest.skip("torch has a GPU here")
    for m in (ctxgrad, torch):  # (torch's message: "Torch not compiled with CUDA enabled")
        with pytest.raises(AssertionError, match="CUDA"):
            m.zeros(2).cuda()


NEW = [
    pytest.param(
        lambda m: m.ones(2, dtype=m.float64).new_zeros(3), marks=torch_names("Tensor.new_zeros"), id="new_zeros"
    ),
    pytest.param(
        lambda m: m.ones(2, dtype=m.int32).new_ones((2, 2)), marks=torch_names("Tensor.new_ones"), id="new_ones"
    ),
    pytest.param(
        lambda m: m.ones(2, dtype=m.float64).new_full((2,), 3.5), marks=torch_names("Tensor.new_full"), id="new_full"
    ),
    pytest.param(
        lambda m: m.ones(2, dtype=m.float64).new_tensor([1, 2]), marks=torch_names("Tensor.new_tensor"), id="new_tensor"
    ),
    pytest.param(
        lambda m: m.ones(2, dtype=m.float16).new_empty(4).shape, marks=torch_names("Tensor.new_empty"), id="new_empty"
    ),
    pytest.param(
        lambda m: (m.ones(2, dtype=m.float64).new(3).shape, m.ones(2).new([1.0, 2.0])),
        marks=torch_names("Tensor.new"),
        id="new",
    ),
]


@pytest.mark.parametrize("fn", NEW)
def test_new_tensors_match_torch(torch: Any, fn: Any) -> None:
    check(fn, torch)


@torch_names("Tensor.resize_")
def test_resize_matches_torch(torch: Any) -> None:
    check(lambda m: m.arange(6.0).resize_(2, 3), torch)
    check(lambda m: m.arange(6.0).resize_(4).shape, torch)


@torch_names("Tensor.unique", "torch.unique", "torch.unique_consecutive", "Tensor.argsort", "torch.argsort")
def test_unique_and_argsort_match_torch(torch: Any) -> None:
    data = [3, 1, 3, 2, 1, 1, 5]
    check(lambda m: m.tensor(data).unique(), torch)
    check(lambda m: m.unique(m.tensor(data), return_inverse=True, return_counts=True), torch)
    check(lambda m: m.unique_consecutive(m.tensor(data), return_counts=True), torch)
    check(lambda m: (m.tensor([3.0, 1.0, 2.0]).argsort(), m.argsort(m.tensor([3.0, 1.0, 2.0]), descending=True)), torch)


FACTORIES = [
    pytest.param(lambda m: m.zeros(2, 3), marks=torch_names("torch.zeros"), id="zeros"),
    pytest.param(lambda m: m.ones((2,), dtype=m.int64), marks=torch_names("torch.ones"), id="ones"),
    pytest.param(lambda m: m.tensor([[1, 2], [3, 4]]), marks=torch_names("torch.tensor"), id="tensor-int"),
    pytest.param(
        lambda m: m.tensor([1.0, 2.0], requires_grad=True), marks=torch_names("torch.tensor"), id="tensor-grad"
    ),
    pytest.param(lambda m: m.tensor(True), marks=torch_names("torch.tensor"), id="tensor-bool"),
    pytest.param(
        lambda m: (m.Tensor([[1.0, 2.0]]), m.Tensor(2, 3).shape), marks=torch_names("torch.Tensor"), id="Tensor"
    ),
    pytest.param(
        lambda m: (m.arange(5), m.arange(1, 2, 0.25), m.arange(3.0)), marks=torch_names("torch.arange"), id="arange"
    ),
    pytest.param(lambda m: m.linspace(0, 1, 5), marks=torch_names("torch.linspace"), id="linspace"),
    pytest.param(lambda m: m.eye(2, 3), marks=torch_names("torch.eye"), id="eye"),
    pytest.param(lambda m: m.full((2, 2), 7), marks=torch_names("torch.full"), id="full-int"),
    pytest.param(lambda m: m.full((2,), 1.5), marks=torch_names("torch.full"), id="full-float"),
    pytest.param(lambda m: m.zeros_like(m.tensor(M)), marks=torch_names("torch.zeros_like"), id="zeros_like"),
    pytest.param(lambda m: m.ones_like(m.tensor([1, 2])), marks=torch_names("torch.ones_like"), id="ones_like"),
    pytest.param(lambda m: m.full_like(m.tensor(M), 4), marks=torch_names("torch.full_like"), id="full_like"),
    pytest.param(lambda m: m.empty(2, 3).shape, marks=torch_names("torch.empty"), id="empty"),
    pytest.param(
        lambda m: (m.empty_like(m.ones(2, dtype=m.int16)).dtype, m.empty_like(m.ones(3)).shape),
        marks=torch_names("torch.empty_like"),
        id="empty_like",
    ),
    pytest.param(
        lambda m: m.from_numpy(np.arange(4, dtype=np.int32)), marks=torch_names("torch.from_numpy"), id="from_numpy"
    ),
    pytest.param(
        lambda m: (m.as_tensor([1.5, 2.0]), m.as_tensor(np.ones(2, dtype=np.float16))),
        marks=torch_names("torch.as_tensor"),
        id="as_tensor",
    ),
    pytest.param(
        lambda m: (m.asarray([1, 2]), m.asarray(np.ones(2), dtype=m.float32)),
        marks=torch_names("torch.asarray"),
        id="asarray",
    ),
    pytest.param(
        lambda m: (m.LongTensor([1, 2]), m.FloatTensor([1, 2]), m.DoubleTensor(2).shape),
        marks=torch_names("torch.LongTensor", "torch.FloatTensor", "torch.DoubleTensor"),
        id="typed-tensors",
    ),
    pytest.param(
        lambda m: (m.BoolTensor([1, 0]), m.ByteTensor([1, 2]), m.IntTensor([3])),
        marks=torch_names("torch.BoolTensor", "torch.ByteTensor", "torch.IntTensor"),
        id="typed-tensors-2",
    ),
    pytest.param(lambda m: m.tril_indices(3, 3), marks=torch_names("torch.tril_indices"), id="tril_indices"),
    pytest.param(
        lambda m: m.broadcast_shapes((2, 1), (1, 3)), marks=torch_names("torch.broadcast_shapes"), id="broadcast_shapes"
    ),
    pytest.param(
        lambda m: m.promote_types(m.int32, m.float32), marks=torch_names("torch.promote_types"), id="promote_types"
    ),
    pytest.param(
        lambda m: (
            m.allclose(m.tensor([1.0]), m.tensor([1.0 + 1e-9])),
            m.isclose(m.tensor([1.0, 2.0]), m.tensor([1.0, 2.1])),
        ),
        marks=torch_names("torch.allclose", "torch.isclose"),
        id="allclose",
    ),
    pytest.param(
        lambda m: m.searchsorted(m.tensor([1.0, 3.0, 5.0]), m.tensor([0.0, 3.0, 4.0]), right=True),
        marks=torch_names("torch.searchsorted"),
        id="searchsorted",
    ),
    pytest.param(
        lambda m: m.bucketize(m.tensor([0.5, 3.0, 9.0]), m.tensor([1.0, 3.0, 5.0])),
        marks=torch_names("torch.bucketize"),
        id="bucketize",
    ),
    pytest.param(lambda m: m.bincount(m.tensor([0, 1, 1, 4])), marks=torch_names("torch.bincount"), id="bincount"),
    pytest.param(
        lambda m: m.bitwise_and(m.tensor([12, 10]), m.tensor([10, 6])),
        marks=torch_names("torch.bitwise_and"),
        id="bitwise_and",
    ),
    pytest.param(
        lambda m: m.complex(m.tensor([1.0]), m.tensor([2.0])), marks=torch_names("torch.complex"), id="complex"
    ),
    pytest.param(
        lambda m: m.view_as_complex(m.tensor([[1.0, 2.0], [3.0, -1.0]])),
        marks=torch_names("torch.view_as_complex"),
        id="view_as_complex",
    ),
]


@pytest.mark.parametrize("fn", FACTORIES)
def test_factories_and_helpers_match_torch(torch: Any, fn: Any) -> None:
    check(fn, torch)


RANDOM = [
    pytest.param(lambda m: m.randn(2, 3), marks=torch_names("torch.randn", "torch.manual_seed"), id="randn"),
    pytest.param(lambda m: m.rand(4, dtype=m.float64), marks=torch_names("torch.rand"), id="rand"),
    pytest.param(lambda m: m.randint(0, 5, (3,)), marks=torch_names("torch.randint"), id="randint"),
    pytest.param(lambda m: m.randperm(6), marks=torch_names("torch.randperm"), id="randperm"),
    pytest.param(
        lambda m: m.randn_like(m.ones(2, dtype=m.float64)), marks=torch_names("torch.randn_like"), id="randn_like"
    ),
    pytest.param(lambda m: m.rand_like(m.ones(3)), marks=torch_names("torch.rand_like"), id="rand_like"),
    pytest.param(lambda m: m.randint_like(m.ones(3), 10), marks=torch_names("torch.randint_like"), id="randint_like"),
    pytest.param(
        lambda m: m.multinomial(m.tensor([0.1, 0.5, 0.4]), 5, replacement=True),
        marks=torch_names("torch.multinomial"),
        id="multinomial",
    ),
    pytest.param(lambda m: m.bernoulli(m.full((4,), 0.5)), marks=torch_names("torch.bernoulli"), id="bernoulli"),
    pytest.param(lambda m: m.normal(m.zeros(3), m.ones(3)), marks=torch_names("torch.normal"), id="normal"),
    pytest.param(lambda m: m.poisson(m.full((3,), 2.0)), marks=torch_names("torch.poisson"), id="poisson"),
    pytest.param(lambda m: m.empty(3).uniform_(-1, 1), marks=torch_names("Tensor.uniform_"), id="uniform_"),
    pytest.param(lambda m: m.empty(3).normal_(0, 2), marks=torch_names("Tensor.normal_"), id="normal_"),
    pytest.param(lambda m: m.empty(3).bernoulli_(0.3), marks=torch_names("Tensor.bernoulli_"), id="bernoulli_"),
    pytest.param(lambda m: m.empty(3).exponential_(), marks=torch_names("Tensor.exponential_"), id="exponential_"),
    pytest.param(lambda m: m.empty(3).random_(0, 4), marks=torch_names("Tensor.random_"), id="random_"),
]


@pytest.mark.parametrize("fn", RANDOM)
def test_random_draws_match_torch_in_kind(torch: Any, fn: Any) -> None:
    random_like_torch(fn, torch)


@torch_names("Tensor.uniform_", "Tensor.random_", "torch.randint")
def test_random_draws_stay_in_torchs_ranges(torch: Any) -> None:
    ctxgrad.manual_seed(0)
    a = values(ctxgrad.empty(1000).uniform_(-1, 1))
    assert a.min() >= -1 and a.max() < 1 and abs(a.mean()) < 0.1
    b = values(ctxgrad.empty(1000).random_(0, 4))
    assert set(np.unique(b)) == {0.0, 1.0, 2.0, 3.0}
    c = values(ctxgrad.randint(2, 5, (1000,)))
    assert set(np.unique(c)) == {2, 3, 4}


@pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")
@torch_names("torch.slogdet", "torch.lu_unpack", "Tensor.cholesky")
def test_decompositions_match_torch(torch: Any) -> None:
    a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]]
    check(lambda m: grads(m, lambda x: m.stack(m.slogdet(x)), a), torch)
    check(lambda m: grads(m, lambda x: x.cholesky(), a), torch)
    check(lambda m: m.lu_unpack(*m.linalg.lu_factor(m.tensor(a, dtype=m.float64))), torch)


@torch_names("torch.tensor")
@pytest.mark.parametrize("data", [[[1, 2], [3]], [[1.0, 2.0], 3.0], [[[1], [2]], [[3]]], [[1], [2, 3]]])
def test_ragged_data_fails_as_torch(torch: Any, data: Any) -> None:
    assert_matches_torch(raised(lambda: ctxgrad.tensor(data), ctxgrad), raised(lambda: torch.tensor(data), torch))


@torch_names("torch.cat", "Tensor.view", "Tensor.item", "torch.nn.Linear", "torch.stack", "torch.matmul")
@pytest.mark.parametrize(
    "fn",
    [
        lambda m: m.cat([m.zeros(2, 3), m.zeros(2, 4)]),
        lambda m: m.zeros(2, 3).view(4),
        lambda m: m.zeros(2).item(),
        lambda m: m.nn.Linear(3, 2)(m.zeros(1, 4)),
        lambda m: m.stack([m.zeros(2), m.zeros(3)]),
        lambda m: m.matmul(m.zeros(2, 3), m.zeros(2, 3)),
        lambda m: m.zeros(2, requires_grad=True).mul(2).backward(),
        lambda m: m.zeros(2).unsqueeze(3),
        lambda m: m.zeros(2, 3).sum(3),
        lambda m: m.tensor([1, 2]).requires_grad_(),
    ],
)
def test_common_mistakes_fail_as_torch(torch: Any, fn: Any) -> None:
    """torch's exception type and message (ctxgrad's may add a detail after it)."""
    ours, theirs = raised(lambda: fn(ctxgrad), ctxgrad), raised(lambda: fn(torch), torch)
    if ours[0] == "ReshapeSizeError":  # ctxgrad's RuntimeError for a size that does not fit
        assert issubclass(ReshapeSizeError, RuntimeError)
        ours = ("RuntimeError", ours[1])
    assert_matches_torch(ours, theirs)
