"""Batching rules the op tables do not reach (backward-only Functions, fused paths), and
ops whose frontends used to read values before ``apply``: each checked under ``vmap``
against the same Function applied sample by sample (values and gradients), and against
``torch.func.vmap`` where torch has the op."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.func import vmap

RNG = np.random.default_rng(14)
#: torch.func warns where it falls back to its own loop (renorm): not what these tests check
pytestmark = pytest.mark.filterwarnings("ignore:There is a performance drop")


def _outputs(out: Any) -> list[Any]:
    return [o for o in (out if isinstance(out, tuple) else (out,)) if isinstance(o, ctxgrad.Tensor)]


def _backward(outs: list[Any], seed: int) -> None:
    floating = [o for o in outs if o.dtype.kind == "f" and o.requires_grad]
    if floating:
        rng = np.random.default_rng(seed)
        sum((o * ctxgrad.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in floating).backward()


def same_as_loop(fn: Callable[..., Any], *arrays: np.ndarray, in_dims: tuple[Any, ...] | None = None) -> None:
    """``vmap(fn)`` over the arrays (batched in dimension 0 where ``in_dims`` says 0) gives each
    sample's values, and each input the gradient of a loop of ordinary calls; no sample loop."""
    dims = in_dims if in_dims is not None else (0,) * len(arrays)
    size = next(a.shape[0] for a, d in zip(arrays, dims) if d == 0)
    leaves = [ctxgrad.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "vmap: .* has no batching rule")  # a fallback to vmap's loop: fail
        got = _outputs(vmap(fn, in_dims=dims)(*leaves))
    # the same gradient weights for the whole batch and for the stacked samples
    _backward(got, 0)
    rows = []
    loop_leaves = [ctxgrad.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    for i in range(size):
        rows.append(_outputs(fn(*[t[i] if d == 0 else t for t, d in zip(loop_leaves, dims)])))
    want = [ctxgrad.stack([r[k] for r in rows]) for k in range(len(rows[0]))]
    _backward(want, 0)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-10, atol=1e-12)
    for a, b in zip(leaves, loop_leaves):
        if b.grad is not None:
            assert a.grad is not None
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-12)


def as_torch(program: Callable[..., Any], *arrays: np.ndarray, in_dims: Any = 0, randomness: str = "error") -> None:
    """``vmap(program(lib))`` with ctxgrad and with torch.func on the same inputs: same values."""
    torch = pytest.importorskip("torch")
    got = vmap(program(ctxgrad), in_dims=in_dims, randomness=randomness)(*[ctxgrad.tensor(a) for a in arrays])
    want = torch.func.vmap(program(torch), in_dims=in_dims, randomness=randomness)(*[torch.tensor(a) for a in arrays])
    for g, w in zip(_outputs(got), [w for w in (want if isinstance(want, tuple) else (want,))]):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


def _ties(shape: tuple[int, ...]) -> np.ndarray:
    """Small integers as floats: medians and modes with ties, and a NaN in the first sample."""
    a = RNG.integers(0, 4, shape).astype(np.float64)
    a.reshape(-1)[1] = np.nan
    return a


# ----------------------------------------------------------------------------- medians, mode
@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x: x.median(),
        lambda lib: lambda x: x.nanmedian(),
        lambda lib: lambda x: x.nanmedian(1),
        lambda lib: lambda x: x.nanmedian(0, keepdim=True),
        lambda lib: lambda x: x.mode(1),
        lambda lib: lambda x: x.mode(0, keepdim=True),
        lambda lib: lambda x: x[0, 0].mode(),
        lambda lib: lambda x: x.median(0),
    ],
)
def test_medians_and_mode_batch_as_torch_and_as_a_loop(program: Any) -> None:
    x = _ties((4, 3, 5))
    as_torch(program, x)
    same_as_loop(program(ctxgrad), x)


def test_median_of_every_element_shares_its_gradient_among_each_samples_ties() -> None:
    x = ctxgrad.tensor([[1.0, 2.0, 2.0, 3.0], [5.0, 5.0, 5.0, 0.0]], requires_grad=True)
    vmap(lambda v: v.median())(x).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3, 0]])


def test_nested_vmap_of_nanmedian() -> None:
    x = _ties((2, 3, 4))
    got = vmap(vmap(lambda v: v.nanmedian()))(ctxgrad.tensor(x))
    want = [[ctxgrad.tensor(x[i, j]).nanmedian().item() for j in range(3)] for i in range(2)]
    np.testing.assert_allclose(got.numpy(), want)


# ----------------------------------------------------------------------------- shape and norm ops
@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x: x.renorm(2, 0, 1.0),
        lambda lib: lambda x: x.renorm(1, 1, 0.5),
        lambda lib: lambda x: x.renorm(float("inf"), -1, 0.3),
        lambda lib: lambda x: lib.block_diag(x, x[0], x[1, 1], x[:1, :2] * 2),
        lambda lib: lambda x: lib.block_diag(x[0].long(), x),
    ],
)
def test_shape_and_norm_ops_batch_as_torch_and_as_a_loop(program: Any) -> None:
    x = RNG.standard_normal((3, 2, 3))
    as_torch(program, x)
    same_as_loop(program(ctxgrad), x)


def test_block_diag_with_a_shared_block() -> None:
    as_torch(lambda lib: lambda x, y: lib.block_diag(x, y), RNG.standard_normal((3, 2)), np.eye(2), in_dims=(0, None))
    same_as_loop(lambda x, y: ctxgrad.block_diag(x, y), RNG.standard_normal((3, 2)), np.eye(2), in_dims=(0, None))


def test_block_diag_refuses_a_sample_of_three_dimensions() -> None:
    with pytest.raises(RuntimeError, match="Input 1 has 3 dimensions"):
        vmap(lambda x: ctxgrad.block_diag(x[0], x))(ctxgrad.ones(2, 1, 2, 2))


# ----------------------------------------------------------------------------- backward-only Functions
def test_embed_diagonal_batches() -> None:
    from ctxgrad.ops.einsum import EmbedDiagonal

    same_as_loop(lambda g: EmbedDiagonal.apply(g, "iji", (3, 2, 3)), RNG.standard_normal((4, 3, 2)))


def test_minors_adjoint_batches() -> None:
    from ctxgrad.ops.linalg import MinorsAdjoint

    same_as_loop(lambda g: MinorsAdjoint.apply(g, (2, 3, 3)), RNG.standard_normal((4, 2, 3, 3, 2, 2)))


def test_col2im_batches() -> None:
    from ctxgrad.ops.convolution import Col2Im

    cols = RNG.standard_normal((3, 2, 2 * 4, 9))  # 3 samples of (N=2, C*kh*kw=2*2*2, L=3*3)
    same_as_loop(lambda c: Col2Im.apply(c, (4, 4), (2, 2), (1, 1), (0, 0, 0, 0), (1, 1)), cols)


def test_zero_second_order_batches_with_either_argument_batched() -> None:
    from ctxgrad.ops.convolution import ZeroSecondOrder

    g, x = RNG.standard_normal((3, 2, 2)), RNG.standard_normal((3, 4))
    for dims in [(0, 0), (0, None), (None, 0)]:
        same_as_loop(lambda a, b: ZeroSecondOrder.apply(a, b), g, x, in_dims=dims)


@pytest.mark.parametrize("mean", [True, False])
def test_cross_entropy_with_indices_batches(mean: bool) -> None:
    from ctxgrad.ops.losses import CrossEntropyWithIndices

    target = np.array([2, 0, 1, 1])
    keep = np.array([True, False, True, True])
    same_as_loop(lambda x: CrossEntropyWithIndices.apply(x, target, keep, mean), RNG.standard_normal((3, 4, 3)))


def test_cross_entropy_with_every_row_ignored_is_nan_with_a_zero_gradient() -> None:
    from ctxgrad.ops.losses import CrossEntropyWithIndices

    x = ctxgrad.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    keep = np.zeros(3, bool)
    out = vmap(lambda v: CrossEntropyWithIndices.apply(v, np.zeros(3, np.intp), keep, True))(x)
    assert np.isnan(out.detach().numpy()).all()
    out.sum().backward()
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.numpy(), 0.0)


# ----------------------------------------------------------------------------- random ops
RANDOM_OPS = {
    "normal(batched mean)": lambda lib: lambda m: lib.normal(m, 1.0),
    "normal(batched std)": lambda lib: lambda m: lib.normal(1.0, m.abs() + 1),
    "normal(two tensors)": lambda lib: lambda m: lib.normal(m, lib.ones(2, 1, dtype=lib.float64)),
    "normal(shared mean)": lambda lib: lambda m: lib.normal(lib.zeros(64, dtype=lib.float64), 1.0) + m,
    "normal(numbers)": lambda lib: lambda m: lib.normal(0.0, 1.0, (64,), dtype=lib.float64) + m,
    "bernoulli": lambda lib: lambda m: lib.bernoulli(m * 0 + 0.5),
    "bernoulli(p=)": lambda lib: lambda m: lib.bernoulli(m, 0.5),
    "poisson": lambda lib: lambda m: lib.poisson(m.abs() + 1),
    "multinomial": lambda lib: lambda m: lib.multinomial(m.abs() + 0.1, 3),
    "multinomial(shared weights)": lambda lib: lambda m: lib.multinomial(lib.ones(2, 50), 3) + m.long().sum(),
    "bernoulli_(batched p)": lambda lib: lambda m: m.clone().bernoulli_(m * 0 + 0.5),
    "bernoulli_(batched p, 2-d)": lambda lib: lambda m: m.clone().reshape(8, 8).bernoulli_(m[:8] * 0 + 0.5),
    "bernoulli_(batched p) of a shared tensor": lambda lib: lambda m: lib.zeros(64).bernoulli_(m * 0 + 0.5),
    "bernoulli_(shared p)": lambda lib: lambda m: m.clone().bernoulli_(lib.full((64,), 0.5, dtype=lib.float64)),
    "uniform_": lambda lib: lambda m: m.clone().uniform_(),
    "normal_": lambda lib: lambda m: m.clone().normal_(),
    "exponential_": lambda lib: lambda m: m.clone().exponential_(),
    "uniform_ of a shared tensor": lambda lib: lambda m: lib.zeros(64, dtype=lib.float64).uniform_() + m,
}


def _run_random(lib: Any, name: str, randomness: str) -> Any:
    func = pytest.importorskip("torch").func if lib is not ctxgrad else ctxgrad.func
    x = lib.zeros(3, 64, dtype=lib.float64)  # (64 draws per sample: two samples alike are unlikely)
    try:
        return func.vmap(RANDOM_OPS[name](lib), randomness=randomness)(x)
    except RuntimeError as exc:
        return exc


@pytest.mark.parametrize("randomness", ["error", "same", "different"])
@pytest.mark.parametrize("name", list(RANDOM_OPS))
def test_random_ops_follow_vmaps_randomness_as_torch(name: str, randomness: str) -> None:
    torch = pytest.importorskip("torch")
    got, want = _run_random(ctxgrad, name, randomness), _run_random(torch, name, randomness)
    if isinstance(want, Exception):
        assert isinstance(got, RuntimeError), f"torch refuses ({want}); ctxgrad gave {got}"
        assert str(got) == str(want)
        return
    assert not isinstance(got, Exception), got
    assert tuple(got.shape) == tuple(want.shape)
    rows_equal = [bool(np.array_equal(got[0].numpy(), got[i].numpy())) for i in range(1, 3)]
    assert rows_equal == [randomness == "same"] * 2  # same: one draw for all; different: each its own


def test_different_randomness_draws_independent_samples_from_their_own_parameters() -> None:
    _ = ctxgrad.manual_seed(0)
    means = ctxgrad.tensor([[0.0] * 2000, [10.0] * 2000], dtype=ctxgrad.float64)
    out = vmap(lambda m: ctxgrad.normal(m, 1.0), randomness="different")(means).numpy()
    np.testing.assert_allclose(out.mean(1), [0.0, 10.0], atol=0.1)
    np.testing.assert_allclose(out.std(1), [1.0, 1.0], atol=0.1)
    assert abs(np.corrcoef(out[0], out[1])[0, 1]) < 0.1


def test_a_random_op_in_vmap_gives_its_sources_a_zero_gradient() -> None:
    m = ctxgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    out = vmap(lambda v: ctxgrad.normal(v, 1.0) * v, randomness="different")(m)
    assert out.grad_fn is not None
    out.sum().backward()
    assert m.grad is not None
    # d(sample * v)/dv is the sample alone: the sample's own gradient is zero
    np.testing.assert_allclose(m.grad.numpy(), out.detach().numpy() / m.detach().numpy(), rtol=1e-8)


def test_a_random_ops_value_checks_still_run_under_vmap() -> None:
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        vmap(lambda v: ctxgrad.poisson(v), randomness="different")(-ctxgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match=r"normal expects all elements of std >= 0\.0"):
        vmap(lambda v: ctxgrad.normal(0.0, v), randomness="different")(-ctxgrad.ones(2, 2))


# ----------------------------------------------------------------------------- writes at flat positions
def _scatter_add(lib: Any, x: Any, index: Any, src: Any) -> Any:
    """``scatter(reduce="add")`` with a tensor source; torch's side is the same sum written
    as ``scatter_reduce``, since torch warns of that deprecated form once per process (and a
    test of the warning runs later)."""
    if lib is ctxgrad:
        return x.scatter(0, index, src, reduce="add")
    return x.scatter_reduce(0, index, src, "sum")


INDEX = np.array([2, 0, 2])
ROWS = [[0, 1, 0, 2]] * 3


@pytest.mark.parametrize(
    ("program", "in_dims"),
    [
        (lambda lib: lambda x, s: x.index_add(0, lib.tensor(INDEX), s), (0, 0)),
        (lambda lib: lambda x, s: x.index_add(1, lib.tensor(INDEX), s[:, :3], alpha=2.0), (0, None)),
        (lambda lib: lambda x, s: x.index_copy(0, lib.tensor([2, 0, 1]), s), (None, 0)),
        (lambda lib: lambda x, s: x.index_fill(1, lib.tensor([0, 3]), -1.0) + s.sum(), (0, 0)),
        (lambda lib: lambda x, s: x.index_put((lib.tensor(INDEX),), s, accumulate=True), (0, 0)),
        (lambda lib: lambda x, s: x.put(lib.tensor([1, 5, 1]), s[0, :3], accumulate=True), (0, 0)),
        (lambda lib: lambda x, s: x.masked_scatter(lib.tensor([[True, False] * 2] * 3), s), (0, 0)),
        (lambda lib: lambda x, s: x.scatter_reduce(0, lib.tensor(ROWS), s, "amax"), (0, 0)),
        (lambda lib: lambda x, s: x.scatter_reduce(0, lib.tensor(ROWS), s, "prod"), (None, 0)),
        (
            lambda lib: lambda x, s: x.scatter_reduce(1, lib.tensor(ROWS), s, "mean", include_self=False),
            (0, 0),
        ),
        (
            lambda lib: lambda x, s: _scatter_add(lib, x.detach(), lib.tensor(ROWS), s.detach()),
            (0, 0),
        ),
        (lambda lib: lambda x, s: x.clone().index_add_(0, lib.tensor(INDEX), s), (0, 0)),
        (lambda lib: lambda x, s: lib.select_scatter(x, s[0], 0, 1), (0, 0)),
        (lambda lib: lambda x, s: lib.slice_scatter(x, s[:2], 0, 1), (0, 0)),
    ],
)
def test_writes_at_flat_positions_batch_as_torch_and_as_a_loop(program: Any, in_dims: tuple[Any, ...]) -> None:
    x, s = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 3, 4))
    args = [a if d == 0 else a[0] for a, d in zip((x, s), in_dims)]
    as_torch(program, *args, in_dims=in_dims)
    same_as_loop(program(ctxgrad), *args, in_dims=in_dims)


# ----------------------------------------------------------------------------- as_strided
@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x: x.as_strided((2, 2), (1, 2)),
        lambda lib: lambda x: x.as_strided((3, 2), (1, 1), 2) * 2,
        lambda lib: lambda x: x.as_strided((2,), (3,), 1),
    ],
)
def test_as_strided_reads_each_samples_own_storage_as_torch(program: Any) -> None:
    x = RNG.standard_normal((3, 6))
    as_torch(program, x)
    same_as_loop(program(ctxgrad), x)


def test_per_sample_gradient_through_as_strided_as_torch() -> None:
    # the gradient of as_strided (StorageMap) runs under vmap here
    as_torch(
        lambda lib: _func(lib).grad(lambda v: (v.as_strided((3, 2), (1, 1), 1) ** 2).sum()), RNG.standard_normal((3, 6))
    )


def _func(lib: Any) -> Any:
    return ctxgrad.func if lib is ctxgrad else pytest.importorskip("torch").func


# ----------------------------------------------------------------------------- writes through views
POSITIONS = np.array([[4, 0], [5, 1]])


@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 0)])
def test_the_view_write_functions_batch(in_dims: tuple[Any, ...]) -> None:
    from ctxgrad.autograd._views import AddFlat, CopySlices, ReplaceFlat, TakeFlat

    b, v = RNG.standard_normal((3, 2, 3)), RNG.standard_normal((3, 2))
    args = [a if d == 0 else a[0] for a, d in zip((b, v), in_dims)]
    same_as_loop(lambda x, s: TakeFlat.apply(x, POSITIONS) * s.sum(), *args, in_dims=in_dims)
    same_as_loop(lambda x, s: ReplaceFlat.apply(x, POSITIONS, s), *args, in_dims=in_dims)
    same_as_loop(lambda x, s: ReplaceFlat.apply(x, POSITIONS, 2.5) * s.sum(), *args, in_dims=in_dims)
    repeated = np.array([[4, 0], [4, 4]])  # the scatter-add adds where a position repeats
    same_as_loop(lambda x, s: AddFlat.apply(x, repeated, s), *args, in_dims=in_dims)
    if in_dims[0] == 0:
        same_as_loop(lambda x, s: CopySlices.apply(x * 1, s, POSITIONS, None), *args, in_dims=in_dims)


def test_a_write_through_a_view_of_a_shared_tensor_refuses_batched_values() -> None:
    from ctxgrad.autograd._views import CopySlices

    with pytest.raises(
        RuntimeError, match="is not possible because there exists a Tensor in extra_args that is batched"
    ):
        vmap(lambda s: CopySlices.apply(ctxgrad.zeros(2, 3), s, POSITIONS, None))(ctxgrad.ones(4, 2))


@pytest.mark.parametrize("transform", ["vmap", "vmap(vmap)", "jacrev", "vmap(grad)"])
def test_in_place_writes_through_views_inside_transforms_as_torch(transform: str) -> None:
    torch = pytest.importorskip("torch")

    def program(lib: Any) -> Any:
        def f(x: Any) -> Any:
            y = x * 1
            v = y[1:]
            v.mul_(2)
            y[0] = v[0] * 3
            return (y * y).sum() if transform == "vmap(grad)" else y * y

        fn = ctxgrad.func if lib is ctxgrad else torch.func
        return {"vmap": fn.vmap(f), "vmap(vmap)": fn.vmap(fn.vmap(f)), "jacrev": fn.jacrev(f)}.get(
            transform, fn.vmap(fn.grad(f))
        )

    x = RNG.standard_normal((2, 3, 4) if transform == "vmap(vmap)" else (3, 4) if transform != "jacrev" else (4,))
    got = program(ctxgrad)(ctxgrad.tensor(x))
    want = program(torch)(torch.tensor(x))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)


# ----------------------------------------------------------------------------- data-dependent shapes
def test_masked_select_with_a_shared_mask_batches_as_torch() -> None:
    mask = np.array([[True, False, True], [False, False, True]])
    as_torch(lambda lib: lambda x, m: x.masked_select(m), RNG.standard_normal((4, 2, 3)), mask, in_dims=(0, None))
    as_torch(lambda lib: lambda x, m: x.masked_select(m), RNG.standard_normal((4, 3)), mask, in_dims=(0, None))
    same_as_loop(lambda x, m: x.masked_select(m), RNG.standard_normal((4, 3)), mask, in_dims=(0, None))


def _torch_error(program: Callable[[Any], Any], *arrays: np.ndarray, in_dims: Any = 0) -> str:
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as caught:
        torch.func.vmap(program(torch), in_dims=in_dims)(*[torch.tensor(a) for a in arrays])
    return str(caught.value)


@pytest.mark.parametrize(
    ("program", "in_dims"),
    [
        (lambda lib: lambda x, m: x.masked_select(m), (0, 0)),
        (lambda lib: lambda x, m: lib.unique(x), (0, None)),
        (lambda lib: lambda x, m: lib.unique(x, dim=0, return_counts=True)[1], (0, None)),
        (lambda lib: lambda x, m: lib.unique_consecutive(x), (0, None)),
        (lambda lib: lambda x, m: x.nonzero(), (0, None)),
        (lambda lib: lambda x, m: x.nonzero(as_tuple=True)[0], (0, None)),
    ],
)
def test_ops_with_data_dependent_shapes_refuse_with_torchs_message(program: Any, in_dims: Any) -> None:
    x, m = np.array([[1.0, 0.0, 1.0], [2.0, 2.0, 0.0]]), np.array([[True, False, True]] * 2)
    want = _torch_error(program, x, m, in_dims=in_dims)
    with pytest.raises(RuntimeError) as caught:
        vmap(program(ctxgrad), in_dims=in_dims)(ctxgrad.tensor(x), ctxgrad.tensor(m))
    assert str(caught.value) == want


# ----------------------------------------------------------------------------- searching and counting
SEQ = np.array([[0.0, 1.0, 2.0, 3.0], [-1.0, 0.5, 0.7, 4.0]])
COUNTED = np.array([[1, 0, 3, 3], [2, 2, 1, 0]])


@pytest.mark.parametrize(
    ("program", "in_dims"),
    [
        (lambda lib: lambda s, v: lib.searchsorted(s, v), (0, 0)),
        (lambda lib: lambda s, v: lib.searchsorted(s, v, right=True), (None, 0)),
        (lambda lib: lambda s, v: lib.searchsorted(s, v[:2]), (0, None)),
        (lambda lib: lambda s, v: lib.searchsorted(s.reshape(2, 2), v.reshape(2, 2), side="right"), (0, 0)),
        (lambda lib: lambda s, v: lib.searchsorted(s, v, sorter=lib.tensor([0, 1, 2, 3])), (0, 0)),
        (lambda lib: lambda s, v: lib.searchsorted(s, v[0]), (0, 0)),
        (lambda lib: lambda s, v: lib.bucketize(v, s), (0, 0)),
        (lambda lib: lambda s, v: lib.bucketize(v, s, right=True), (None, 0)),
        (lambda lib: lambda s, v: lib.histc(v, 3), (None, 0)),
        (lambda lib: lambda s, v: lib.histc(v, 4, -1, 3), (None, 0)),
    ],
)
def test_searching_and_histograms_batch_as_torch(program: Any, in_dims: tuple[Any, ...]) -> None:
    values = np.array([[0.5, 2.0, 2.0, -3.0], [0.6, 0.7, 5.0, 0.0]])
    as_torch(program, *[a if d == 0 else a[0] for a, d in zip((SEQ, values), in_dims)], in_dims=in_dims)


@pytest.mark.parametrize(
    ("program", "in_dims"),
    [
        (lambda lib: lambda i, w: lib.bincount(i, minlength=5), (0, None)),
        (lambda lib: lambda i, w: lib.bincount(i, w, minlength=4), (0, 0)),
        (lambda lib: lambda i, w: lib.bincount(i, w, minlength=4), (0, None)),
        (lambda lib: lambda i, w: lib.bincount(i, w, minlength=4), (None, 0)),
    ],
)
def test_bincount_batches_as_torch(program: Any, in_dims: tuple[Any, ...]) -> None:
    as_torch(program, *[a if d == 0 else a[0] for a, d in zip((COUNTED, SEQ), in_dims)], in_dims=in_dims)


def test_counts_of_different_lengths_refuse_as_torch() -> None:
    want = _torch_error(lambda lib: lambda i: lib.bincount(i), COUNTED)
    with pytest.raises(RuntimeError) as caught:
        vmap(ctxgrad.bincount)(ctxgrad.tensor(COUNTED))
    assert str(caught.value) == want


# ----------------------------------------------------------------------------- batched indices
PER_SAMPLE_INDEX = np.array([[2, 0], [1, 1], [0, 2]])


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x, i: x.index_add(0, i, x[:2] * 2),
        lambda lib: lambda x, i: x.index_add(1, i, x[:, :2], alpha=3),
        lambda lib: lambda x, i: x.index_copy(0, i[:1], x[1:2] * 2),
        lambda lib: lambda x, i: x.index_fill(1, i, -1.0),
        lambda lib: lambda x, i: x.index_reduce(0, i, x[:2] * 2, "prod"),
        lambda lib: lambda x, i: x.index_reduce(0, i, x[:2] * 2, "amax", include_self=False),
        lambda lib: lambda x, i: x.put(i, x[0, :2], accumulate=True),
        lambda lib: lambda x, i: x.put(i - 3, x[1, :2]),
        lambda lib: lambda x, i: x.clone().index_add_(0, i, x[:2]),
    ],
)
def test_an_index_batched_with_the_input_batches_as_torch_and_as_a_loop(program: Any) -> None:
    x = RNG.standard_normal((3, 3, 4))
    as_torch(program, x, PER_SAMPLE_INDEX)
    same_as_loop(program(ctxgrad), x, PER_SAMPLE_INDEX)
    as_torch(program, x, np.array([0, 2]), in_dims=(0, None))
    try:  # a shared input: torch refuses the in-place write of a batched result into it
        _torch_error(program, x[0], PER_SAMPLE_INDEX, in_dims=(None, 0))
    except pytest.fail.Exception:
        as_torch(program, x[0], PER_SAMPLE_INDEX, in_dims=(None, 0))
    else:
        with pytest.raises(RuntimeError, match="is not possible because there exists a Tensor in extra_args"):
            vmap(program(ctxgrad), in_dims=(None, 0))(ctxgrad.tensor(x[0]), ctxgrad.tensor(PER_SAMPLE_INDEX))


def test_a_batched_index_out_of_bounds_refuses_as_for_one_sample() -> None:
    bad = ctxgrad.tensor([[0, 1], [0, 7]])
    with pytest.raises(RuntimeError, match="index 7 is out of bounds for dimension 0 with size 3"):
        vmap(lambda x, i: x.index_add(0, i, x[:2]))(ctxgrad.ones(2, 3, 4), bad)
    with pytest.raises(IndexError, match="out of range: tried to access index 17 on a tensor of 12 elements"):
        vmap(lambda x, i: x.put(i, x[0, :2]))(ctxgrad.ones(2, 3, 4), bad + 10)


@pytest.mark.parametrize("counts", [[[1, 0, 2, 1], [0, 0, 2, 2]], [[2], [1]], [[1, 0, 2, 1], [0, 0, 2, 3]]])
@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x, r: x.repeat_interleave(r),
        lambda lib: lambda x, r: x.reshape(2, 2).repeat_interleave(r[:2], dim=1) if r.shape[0] > 1 else x,
        lambda lib: lambda x, r: lib.repeat_interleave(r) + x.long().sum(),
    ],
)
def test_repeat_interleave_with_each_samples_own_counts_as_torch(program: Any, counts: list[list[int]]) -> None:
    x, reps = RNG.standard_normal((2, 4)), np.array(counts)
    try:
        want = _torch_error(program, x, reps)
    except pytest.fail.Exception:  # torch batches it (the totals agree)
        as_torch(program, x, reps)
        same_as_loop(program(ctxgrad), x, reps)
    else:  # the samples' totals differ: torch's per-sample run cannot stack them
        with pytest.raises(RuntimeError) as caught:
            vmap(program(ctxgrad))(ctxgrad.tensor(x), ctxgrad.tensor(reps))
        assert str(caught.value) == want


def test_index_put_still_refuses_values_wider_than_the_indexed_shape_as_torch() -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as want:
        torch.zeros(3).index_put((torch.tensor([0]),), torch.ones(3))
    with pytest.raises(RuntimeError) as got:
        ctxgrad.zeros(3).index_put((ctxgrad.tensor([0]),), ctxgrad.ones(3))
    assert str(got.value) == str(want.value)


SCATTER_INDEX = np.array([[[0, 1, 0, 2]] * 3, [[2, 2, 1, 0]] * 3])


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x, i: x.scatter_reduce(0, i, x * 2, "sum"),
        lambda lib: lambda x, i: x.scatter_reduce(0, i, x * 2, "mean", include_self=False),
        lambda lib: lambda x, i: x.scatter_reduce(1, i[:, :3], x[:, :3] * 2, "amax", include_self=False),
        lambda lib: lambda x, i: x.scatter_reduce(0, i, x + 1, "prod"),
        lambda lib: lambda x, i: _scatter_add(lib, x.detach(), i, x.detach()),
        lambda lib: lambda x, i: x.detach().scatter(0, i, 2.0, reduce="multiply"),
    ],
)
def test_scatter_with_an_index_batched_with_the_input_as_torch_and_as_a_loop(program: Any) -> None:
    x = RNG.standard_normal((2, 3, 4))
    as_torch(program, x, SCATTER_INDEX)
    same_as_loop(program(ctxgrad), x, SCATTER_INDEX)
    as_torch(program, x[0], SCATTER_INDEX, in_dims=(None, 0))


def test_a_batched_scatter_index_out_of_bounds_refuses() -> None:
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        vmap(lambda x, i: x.scatter_reduce(0, i + 1, x, "sum"))(ctxgrad.ones(2, 3, 4), ctxgrad.tensor(SCATTER_INDEX))


MASKS = np.array([[[True, False, True, False]] * 3, [[False, False, True, True]] * 3])


@pytest.mark.parametrize("in_dims", [(0, 0, 0), (0, 0, None), (None, 0, 0)])
@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x, m, s: x.masked_scatter(m, s),
        lambda lib: lambda x, m, s: x.masked_scatter(m[0], s * 2),
    ],
)
def test_masked_scatter_with_each_samples_own_mask_as_torch_and_as_a_loop(program: Any, in_dims: Any) -> None:
    x, s = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 3, 4))
    args = [a if d == 0 else a[0] for a, d in zip((x, MASKS, s), in_dims)]
    as_torch(program, *args, in_dims=in_dims)
    same_as_loop(program(ctxgrad), *args, in_dims=in_dims)


def test_masked_scatter_with_too_few_source_elements_for_a_sample_refuses() -> None:
    with pytest.raises(RuntimeError, match="Number of elements of source < number of ones in mask"):
        vmap(lambda x, m: x.masked_scatter(m, ctxgrad.ones(3)))(ctxgrad.zeros(2, 3, 4), ctxgrad.tensor(MASKS))


@pytest.mark.parametrize(
    ("program", "in_dims"),
    [
        (lambda lib: lambda x, w: lib.histogram(x, 4), (0, None)),
        (lambda lib: lambda x, w: lib.histogram(x, lib.tensor([-1.0, 0.0, 0.5, 2.0], dtype=lib.float64)), (0, None)),
        (lambda lib: lambda x, w: lib.histogram(x, 3, range=(-2.0, 2.0), weight=w, density=True), (0, 0)),
        (lambda lib: lambda x, w: lib.histogram(x, 3, range=(-2.0, 2.0), weight=w), (None, 0)),
        (lambda lib: lambda x, w: lib.histogram(x.reshape(2, 2), 2, weight=w.reshape(2, 2)), (0, 0)),
    ],
)
def test_histogram_batches_as_torch(program: Any, in_dims: tuple[Any, ...]) -> None:
    # (a generator of its own: values drawn after other tests could fall on a bin edge, where
    # ctxgrad's and torch's edges differ in the last bit)
    rng = np.random.default_rng(20261129)
    x, w = np.round(rng.standard_normal((3, 4)) * 2, 1), rng.random((3, 4))
    as_torch(program, *[a if d == 0 else a[0] for a, d in zip((x, w), in_dims)], in_dims=in_dims)


# ----------------------------------------------------------------------------- x[i] with a batched index
ROWS_I, COLS_J = np.array([[2, 0], [1, 1], [0, -1]]), np.array([[3, 0], [1, -1], [2, 2]])


@pytest.mark.parametrize("in_dims", [(0, 0, 0), (None, 0, 0), (0, None, 0), (0, 0, None)])
@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x, i, j: x[i],
        lambda lib: lambda x, i, j: x[i, j] * 2,
        lambda lib: lambda x, i, j: x[lib.stack([i, i])],
        lambda lib: lambda x, i, j: x.index_put((i,), x[:2] * 2, accumulate=True),
        lambda lib: lambda x, i, j: x.index_put((i, j), x[0, :2] * 3),
    ],
)
def test_integer_indices_batched_by_vmap_as_torch_and_as_a_loop(program: Any, in_dims: tuple[Any, ...]) -> None:
    x = RNG.standard_normal((3, 3, 4))
    args = [a if d == 0 else a[0] for a, d in zip((x, ROWS_I, COLS_J), in_dims)]
    as_torch(program, *args, in_dims=in_dims)
    same_as_loop(program(ctxgrad), *args, in_dims=in_dims)


def test_a_batched_integer_index_out_of_bounds_refuses_as_for_one_sample() -> None:
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 3"):
        vmap(lambda x, i: x[i])(ctxgrad.ones(2, 3, 4), ctxgrad.tensor([[0, 1], [4, 0]]))


def test_setitem_with_batched_integer_indices_as_torch() -> None:
    def program(lib: Any) -> Any:
        def f(x: Any, i: Any, j: Any) -> Any:
            y = x * 1
            y[i, j] = 7.0
            y[i] = y[i] * 0 + 1
            return y

        return f

    as_torch(program, RNG.standard_normal((3, 3, 4)), ROWS_I, COLS_J)
    torch = pytest.importorskip("torch")
    refusals = []
    for lib in (ctxgrad, torch):  # a batched mask: each sample would select its own number of elements
        with pytest.raises(RuntimeError) as caught:
            lib.func.vmap(lambda x, m: x.__setitem__(m, 0.0))(lib.ones(2, 3), lib.tensor([[True, False, True]] * 2))
        refusals.append(str(caught.value))
    assert refusals[0] == refusals[1]
    assert "Attempting to batch over indexing with a boolean mask" in refusals[0]


# ----------------------------------------------------------------------------- isin, hash_tensor, nonzero_static
#: small integers as floats (so that isin finds some), zeros (for nonzero_static), a NaN, a -0.0
SMALL = np.array([[1.0, 0.0, 3.0, 3.0], [2.0, -0.0, np.nan, 0.0], [0.0, 2.0, 2.0, 1.0]])
TESTS = np.array([[3.0, np.nan], [0.0, 2.0], [7.0, 1.0]])


def exactly_as_torch(program: Callable[..., Any], *arrays: np.ndarray, in_dims: Any = 0) -> None:
    """``vmap(program(lib))`` with ctxgrad and with torch.func: the same values exactly (as
    lists, so that a uint64 hash is compared bit for bit), shapes and dtypes, and no sample loop
    on ctxgrad's side."""
    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # vmap's warning about a loop over the samples
        got = vmap(program(ctxgrad), in_dims=in_dims)(*[ctxgrad.tensor(a) for a in arrays])
    want = torch.func.vmap(program(torch), in_dims=in_dims)(*[torch.tensor(a) for a in arrays])
    assert str(got.dtype) == str(want.dtype).replace("torch.", "ctxgrad.")
    assert tuple(got.shape) == tuple(want.shape)
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize(
    ("program", "in_dims"),
    [
        (lambda lib: lambda x, t: lib.isin(x, t), (0, 0)),
        (lambda lib: lambda x, t: lib.isin(x, t), (0, None)),
        (lambda lib: lambda x, t: lib.isin(x, t), (None, 0)),
        (lambda lib: lambda x, t: lib.isin(x, t, invert=True), (0, 0)),
        (lambda lib: lambda x, t: lib.isin(x, t, invert=True), (None, 0)),
        (lambda lib: lambda x, t: lib.isin(x.reshape(2, 2), t[:1]), (0, 0)),
        (lambda lib: lambda x, t: lib.isin(x.nan_to_num().long(), t), (0, 0)),
        (lambda lib: lambda x, t: lib.isin(x, x[0]), (0, None)),
        (lambda lib: lambda x, t: lib.isin(2.0, t), (None, 0)),
        (lambda lib: lambda x, t: lib.isin(x, 2), (0, None)),
        (lambda lib: lambda x, t: lib.isin(x[0], t), (0, 0)),
    ],
)
def test_isin_batches_as_torch(program: Any, in_dims: tuple[Any, ...]) -> None:
    exactly_as_torch(program, *[a if d == 0 else a[0] for a, d in zip((SMALL, TESTS), in_dims)], in_dims=in_dims)


def test_isin_under_nested_vmap_pairs_each_sample_with_its_tests() -> None:
    torch = pytest.importorskip("torch")
    x, t = SMALL[:2].reshape(2, 2, 2), TESTS[:2].reshape(2, 2, 1)
    got = vmap(vmap(ctxgrad.isin))(ctxgrad.tensor(x), ctxgrad.tensor(t))
    assert got.tolist() == torch.func.vmap(torch.func.vmap(torch.isin))(torch.tensor(x), torch.tensor(t)).tolist()


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lambda x: lib.hash_tensor(x),
        lambda lib: lambda x: lib.hash_tensor(x.reshape(2, 2), 1, keepdim=True),
        lambda lib: lambda x: lib.hash_tensor(x.reshape(2, 2), (0, 1)),
        lambda lib: lambda x: lib.hash_tensor(x.reshape(2, 2), ()),
        lambda lib: lambda x: lib.hash_tensor(x.nan_to_num().long(), 0),
        lambda lib: lambda x: lib.hash_tensor(x[0]),
        lambda lib: lambda x: lib.nonzero_static(x, size=2),
        lambda lib: lambda x: lib.nonzero_static(x.reshape(2, 2), size=5, fill_value=7),
        lambda lib: lambda x: lib.nonzero_static(x[1], size=2),
        lambda lib: lambda x: lib.nonzero_static(x[:0], size=1),
    ],
)
def test_hash_tensor_and_nonzero_static_batch_as_torch(program: Any) -> None:
    exactly_as_torch(program, SMALL)


@pytest.mark.parametrize(
    ("program", "in_dims"),
    [
        (lambda lib: lambda x, w: lib.histogramdd(x, 2), (0, None)),
        (lambda lib: lambda x, w: lib.histogramdd(x, [2, 3]), (0, None)),
        (lambda lib: lambda x, w: lib.histogramdd(x, [lib.tensor([0.0, 1.0]), lib.tensor([0.0, 2.0])]), (0, None)),
        (lambda lib: lambda x, w: lib.histogramdd(x, 2, weight=w), (None, 0)),
        (lambda lib: lambda x, w: lib.histogramdd(x.reshape(-1), 2), (0, None)),
    ],
)
def test_histogramdd_refuses_as_torch(program: Any, in_dims: tuple[Any, ...]) -> None:
    """torch.func has neither a rule nor its loop for histogramdd: both refuse, whatever is batched."""
    x, w = SMALL[:, :, None].repeat(2, axis=2), np.ones((3, 4))
    arrays = [a if d == 0 else a[0] for a, d in zip((x, w), in_dims)]
    want = _torch_error(program, *arrays, in_dims=in_dims)
    with pytest.raises(RuntimeError) as caught:
        vmap(program(ctxgrad), in_dims=in_dims)(*[ctxgrad.tensor(a) for a in arrays])
    assert str(caught.value) == want


@pytest.mark.parametrize("in_dims", [(0, 0), (0, None), (None, 0)])
def test_as_strided_scatter_batches_where_torch_refuses(in_dims: tuple[Any, ...]) -> None:
    """torch.func refuses as_strided_scatter ("requires special handling"); ctxgrad batches it
    (each sample scatters into its own storage), equal to a loop over the samples
    (docs/differences.md, section 34)."""
    program = lambda lib: lambda x, s: lib.as_strided_scatter(x, s, (2,), (4,), 1)  # noqa: E731
    x, s = np.arange(18.0).reshape(2, 3, 3), np.array([[-1.0, -2.0], [-3.0, -4.0]])
    arrays = [a if d == 0 else a[0] for a, d in zip((x, s), in_dims)]
    assert "requires special handling" in _torch_error(program, *arrays, in_dims=in_dims)
    got = vmap(program(ctxgrad), in_dims=in_dims)(*[ctxgrad.tensor(a) for a in arrays])
    samples = [[a[k] if d == 0 else a for a, d in zip(arrays, in_dims)] for k in range(2)]
    want = np.stack([program(ctxgrad)(*[ctxgrad.tensor(a) for a in sample]).numpy() for sample in samples])
    np.testing.assert_array_equal(got.numpy(), want)


_DECOMPOSITIONS: list[Callable[[Any], Any]] = [
    lambda lib: lib.linalg.qr,
    lambda lib: lib.linalg.svd,
    lambda lib: lib.linalg.svdvals,
    lambda lib: lib.linalg.eigh,
    lambda lib: lib.linalg.eigvalsh,
    lambda lib: lib.linalg.eig,
    lambda lib: lib.linalg.eigvals,
    lambda lib: lib.linalg.cholesky,
    lambda lib: lib.linalg.cholesky_ex,
    lambda lib: lib.linalg.lu_factor,
    lambda lib: lib.linalg.lu_factor_ex,
    lambda lib: lib.linalg.lu,
    lambda lib: lib.linalg.det,
    lambda lib: lib.linalg.slogdet,
    lambda lib: lib.geqrf,
]


@pytest.mark.parametrize(
    ("program", "shape"),
    [(p, (3, 4)) for p in _DECOMPOSITIONS]
    + [
        (lambda lib: lib.func.vmap(lib.linalg.lu_factor), (2, 3, 4)),  # torch prints the inner batch's shape
        (lambda lib: lib.func.vmap(lib.linalg.qr), (2, 3, 4)),
    ],
)
def test_a_decomposition_of_a_1d_sample_refuses_as_torch(program: Any, shape: tuple[int, ...]) -> None:
    """The forward sees the whole batch, where a 1-D sample looks like a matrix: the rule
    refuses it first, with torch's message (some of which print the batch's shape)."""
    x = RNG.standard_normal(shape)
    want = _torch_error(program, x)
    with pytest.raises(RuntimeError) as caught:
        vmap(program(ctxgrad))(ctxgrad.tensor(x))
    assert str(caught.value) == want
