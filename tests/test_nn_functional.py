"""ctxgrad.nn.functional's layers and losses against torch: values and gradients (every
differentiable input) on the same float64 inputs, plus forward-mode and double-backward spot
checks and torch's errors for bad arguments."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad.autograd import forward_ad

RNG = np.random.default_rng(0)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def check(
    torch: Any,
    name: str,
    arrays: list[Any],
    *args: Any,
    grad: tuple[int, ...] | None = None,
    rtol: float = 1e-9,
    **kwargs: Any,
) -> None:
    """Run ``F.<name>`` on ctxgrad and torch with the same inputs (float arrays become tensors
    that require grad, int arrays index tensors); compare the output and every input gradient."""
    tf = getattr(torch.nn.functional, name)
    cf = getattr(F, name)
    c_in, t_in = [], []
    for i, a in enumerate(arrays):
        if a is None:
            c_in.append(None)
            t_in.append(None)
            continue
        a = np.asarray(a)
        diff = a.dtype.kind == "f" and (grad is None or i in grad)
        c_in.append(ctxgrad.tensor(a, requires_grad=diff))
        t_in.append(torch.tensor(a, requires_grad=diff))
    c_out = cf(*c_in, *args, **kwargs)
    t_out = tf(*t_in, *args, **kwargs)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol, atol=1e-12)
    if not t_out.requires_grad:
        return
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for i, (c, t) in enumerate(zip(c_in, t_in)):
        if t is not None and t.requires_grad:
            assert c.grad is not None, f"input {i} got no gradient"
            np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=1e-12, err_msg=f"input {i}")


# --------------------------------------------------------------------------- layers
def test_linear(torch: Any) -> None:
    check(torch, "linear", [randn(4, 3), randn(5, 3), randn(5)])
    check(torch, "linear", [randn(2, 4, 3), randn(5, 3), None])
    check(torch, "linear", [randn(3), randn(5, 3), randn(5)])


def test_linear_shape_mismatch_message(torch: Any) -> None:
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x3 and 2x5\)"):
        F.linear(ctxgrad.ones(4, 3), ctxgrad.ones(5, 2))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x3 and 2x5\)"):
        torch.nn.functional.linear(torch.ones(4, 3), torch.ones(5, 2))


LINEAR_RANKS = [
    ((), (5, 4), None),
    ((3, 4), (), None),
    ((3, 4), (4,), None),
    ((3, 4), (4,), (1,)),
    ((4,), (4,), None),
    ((4,), (4,), (1,)),
    ((2, 3, 4), (4,), (1,)),
    ((3, 4), (5, 4, 2), None),
    ((3, 4), (5, 4, 2), (2,)),
    ((4,), (5, 4), (5,)),
    ((2, 1, 3, 4), (5, 4), (5,)),
    ((2, 3, 4), (5, 4), None),
]


@pytest.mark.parametrize(("input_shape", "weight_shape", "bias_shape"), LINEAR_RANKS)
def test_linear_of_every_rank_as_torch(torch: Any, input_shape: Any, weight_shape: Any, bias_shape: Any) -> None:
    """``linear`` with inputs and weights of other ranks than two: the result's shape and
    node, or torch's error (a 0-d argument; a weight that ``t()`` or ``addmm`` refuses)."""
    seen = []
    for m in (ctxgrad, torch):
        weight = m.ones(weight_shape).requires_grad_()
        bias = None if bias_shape is None else m.ones(bias_shape)
        try:
            out = m.nn.functional.linear(m.ones(input_shape), weight, bias)
            seen.append((tuple(out.shape), type(out.grad_fn).__name__))
        except RuntimeError as exc:
            seen.append(str(exc))
    assert seen[0] == seen[1]


def test_bilinear(torch: Any) -> None:
    check(torch, "bilinear", [randn(4, 3), randn(4, 2), randn(5, 3, 2), randn(5)])


@pytest.mark.parametrize(
    ("stride", "padding", "dilation", "groups"),
    [(1, 0, 1, 1), (2, 1, 1, 1), ((1, 2), (2, 0), (2, 1), 1), (1, "same", 2, 1), (1, "valid", 1, 2), (2, 1, 1, 2)],
)
def test_conv2d(torch: Any, stride: Any, padding: Any, dilation: Any, groups: int) -> None:
    check(
        torch,
        "conv2d",
        [randn(2, 4, 7, 6), randn(6, 4 // groups, 3, 2), randn(6)],
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
    )


def test_conv2d_unbatched_without_bias(torch: Any) -> None:
    check(torch, "conv2d", [randn(3, 5, 5), randn(2, 3, 3, 3)], padding=1)


@pytest.mark.filterwarnings("ignore:Using padding=.same. with even kernel lengths")
def test_conv2d_same_with_even_kernel_pads_after(torch: Any) -> None:
    check(torch, "conv2d", [randn(1, 2, 5, 6), randn(3, 2, 2, 4), randn(3)], padding="same")


def test_conv1d(torch: Any) -> None:
    check(torch, "conv1d", [randn(2, 3, 9), randn(4, 3, 3), randn(4)], stride=2, padding=1, dilation=2)
    check(torch, "conv1d", [randn(2, 4, 9), randn(4, 2, 2), None], padding="same", groups=2)


def test_conv2d_errors(torch: Any) -> None:
    x, w = ctxgrad.ones(1, 3, 5, 5), ctxgrad.ones(2, 2, 3, 3)
    with pytest.raises(RuntimeError, match="expected input\\[1, 3, 5, 5\\] to have 2 channels, but got 3 channels"):
        F.conv2d(x, w)
    with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
        F.conv2d(x, ctxgrad.ones(2, 3, 3, 3), stride=2, padding="same")


def test_conv2d_forward_mode_and_double_backward() -> None:
    x = ctxgrad.tensor(randn(1, 2, 5, 5), requires_grad=True)
    w = ctxgrad.tensor(randn(3, 2, 3, 3), requires_grad=True)
    tx, tw = ctxgrad.tensor(randn(1, 2, 5, 5)), ctxgrad.tensor(randn(3, 2, 3, 3))
    with forward_ad.dual_level():
        out = F.conv2d(forward_ad.make_dual(x, tx), forward_ad.make_dual(w, tw), padding=1)
        tangent = forward_ad.unpack_dual(out).tangent
    expected = F.conv2d(tx, w, padding=1) + F.conv2d(x, tw, padding=1)  # bilinear in (x, w)
    np.testing.assert_allclose(tangent.detach().numpy(), expected.detach().numpy(), rtol=1e-10)

    # d/dw of sum(grad_x²) exists and matches a finite difference along tw
    def g(weight: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (gx,) = ctxgrad.autograd.grad(F.conv2d(x, weight, padding=1).square().sum(), x, create_graph=True)
        return gx.square().sum()

    (gw,) = ctxgrad.autograd.grad(g(w), w)
    eps = 1e-6
    numeric = (g(w.detach() + eps * tw) - g(w.detach() - eps * tw)).item() / (2 * eps)
    assert abs((gw * tw).sum().item() - numeric) < 1e-5 * max(1.0, abs(numeric))


def test_unfold_fold(torch: Any) -> None:
    check(torch, "unfold", [randn(2, 3, 6, 5)], (3, 2), dilation=(1, 2), padding=1, stride=(2, 1))
    check(torch, "fold", [randn(2, 12, 12)], (5, 6), (2, 2), padding=1, stride=2)


@pytest.mark.parametrize(
    ("kernel", "stride", "padding", "dilation", "ceil_mode"),
    [(2, None, 0, 1, False), (3, 2, 1, 1, False), ((3, 2), (2, 1), (1, 0), (1, 2), False), (3, 2, 0, 1, True)],
)
def test_max_pool2d(torch: Any, kernel: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool) -> None:
    check(torch, "max_pool2d", [randn(2, 3, 7, 8)], kernel, stride, padding, dilation, ceil_mode)


def test_max_pool2d_return_indices(torch: Any) -> None:
    x = randn(2, 3, 6, 6)
    out, idx = F.max_pool2d(ctxgrad.tensor(x), 3, 2, 1, return_indices=True)
    t_out, t_idx = torch.nn.functional.max_pool2d(torch.tensor(x), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(idx.numpy(), t_idx.numpy())
    np.testing.assert_allclose(out.numpy(), t_out.numpy())


def test_max_pool2d_forward_mode() -> None:
    x, tx = ctxgrad.tensor(randn(1, 2, 4, 4)), ctxgrad.tensor(randn(1, 2, 4, 4))
    with forward_ad.dual_level():
        out = F.max_pool2d(forward_ad.make_dual(x, tx), 2)
        tangent = forward_ad.unpack_dual(out).tangent
    _, idx = F.max_pool2d(x, 2, return_indices=True)
    expected = np.take_along_axis(tx.numpy().reshape(1, 2, -1), idx.numpy().reshape(1, 2, -1), 2).reshape(1, 2, 2, 2)
    np.testing.assert_allclose(tangent.numpy(), expected)


@pytest.mark.parametrize(("padding", "count_include_pad"), [(0, True), (1, True), (1, False)])
def test_avg_pool2d(torch: Any, padding: int, count_include_pad: bool) -> None:
    check(torch, "avg_pool2d", [randn(2, 3, 7, 6)], 3, 2, padding, count_include_pad=count_include_pad)
    check(torch, "avg_pool2d", [randn(2, 3, 6, 6)], 2, divisor_override=3)
    check(torch, "avg_pool2d", [randn(2, 3, 7, 6)], 3, 2, padding, ceil_mode=True, count_include_pad=count_include_pad)
    check(torch, "avg_pool2d", [randn(1, 2, 5, 8)], (2, 3), (2, 3), ceil_mode=True, count_include_pad=count_include_pad)


def test_layer_norm(torch: Any) -> None:
    check(torch, "layer_norm", [randn(3, 4, 5)], (4, 5), None, None, 1e-5, rtol=1e-8)
    x, w, b = randn(3, 4, 5), randn(5), randn(5)
    c = [ctxgrad.tensor(a, requires_grad=True) for a in (x, w, b)]
    t = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    co, to = F.layer_norm(c[0], [5], c[1], c[2]), torch.nn.functional.layer_norm(t[0], [5], t[1], t[2])
    np.testing.assert_allclose(co.detach().numpy(), to.detach().numpy(), rtol=1e-8)
    up = randn(3, 4, 5)
    co.backward(ctxgrad.tensor(up))
    to.backward(torch.tensor(up))
    for ci, ti in zip(c, t):
        np.testing.assert_allclose(ci.grad.numpy(), ti.grad.numpy(), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 4)])
def test_batch_norm_training_updates_running_stats(torch: Any, shape: tuple[int, ...]) -> None:
    x, w, b = randn(*shape), randn(3), randn(3)
    c = [ctxgrad.tensor(a, requires_grad=True) for a in (x, w, b)]
    t = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    c_rm, c_rv = ctxgrad.zeros(3, dtype=ctxgrad.float64), ctxgrad.ones(3, dtype=ctxgrad.float64)
    t_rm, t_rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    co = F.batch_norm(c[0], c_rm, c_rv, c[1], c[2], training=True, momentum=0.3)
    to = torch.nn.functional.batch_norm(t[0], t_rm, t_rv, t[1], t[2], training=True, momentum=0.3)
    np.testing.assert_allclose(co.detach().numpy(), to.detach().numpy(), rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(c_rm.numpy(), t_rm.numpy(), rtol=1e-10)
    np.testing.assert_allclose(c_rv.numpy(), t_rv.numpy(), rtol=1e-10)
    up = randn(*shape)
    co.backward(ctxgrad.tensor(up))
    to.backward(torch.tensor(up))
    for ci, ti in zip(c, t):
        np.testing.assert_allclose(ci.grad.numpy(), ti.grad.numpy(), rtol=1e-7, atol=1e-10)


def test_batch_norm_eval_uses_running_stats(torch: Any) -> None:
    rm, rv = randn(3), np.abs(randn(3)) + 0.5
    check(torch, "batch_norm", [randn(4, 3, 2), rm, rv, randn(3), randn(3)], grad=(0, 3, 4))


def test_batch_norm_one_value_per_channel(torch: Any) -> None:
    msg = r"Expected more than 1 value per channel when training, got input size (ctxgrad|torch)\.Size\(\[1, 3\]\)"
    with pytest.raises(ValueError, match=msg):
        F.batch_norm(ctxgrad.ones(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match=msg):
        torch.nn.functional.batch_norm(torch.ones(1, 3), None, None, training=True)


def test_embedding_with_padding_idx(torch: Any) -> None:
    idx = np.array([[1, 0, 3], [3, 3, 0]])
    check(torch, "embedding", [idx, randn(5, 4)], padding_idx=0)
    check(torch, "embedding", [idx, randn(5, 4)])
    check(torch, "embedding", [idx, randn(5, 4) * 3], padding_idx=1, max_norm=1.5, scale_grad_by_freq=True)
    check(torch, "embedding", [idx, randn(5, 4) * 3], max_norm=2.0, norm_type=1.0)


def test_embedding_out_of_range(torch: Any) -> None:
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(ctxgrad.tensor([5]), ctxgrad.ones(5, 2))
    with pytest.raises(IndexError, match="index out of range in self"):
        torch.nn.functional.embedding(torch.tensor([5]), torch.ones(5, 2))


def test_one_hot(torch: Any) -> None:
    idx = np.array([[0, 2], [1, 4]])
    np.testing.assert_array_equal(
        F.one_hot(ctxgrad.tensor(idx)).numpy(), torch.nn.functional.one_hot(torch.tensor(idx)).numpy()
    )
    out = F.one_hot(ctxgrad.tensor(idx), 6)
    assert out.shape == (2, 2, 6) and out.dtype == ctxgrad.int64
    with pytest.raises(RuntimeError, match=r"Class values must be smaller than num_classes\."):
        F.one_hot(ctxgrad.tensor(idx), 3)


def test_pad(torch: Any) -> None:
    check(torch, "pad", [randn(2, 3, 4)], (1, 2, 0, 1), value=1.5)
    check(torch, "pad", [randn(2, 3, 4)], (-1, 2, 1, -1))


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
def test_pad_modes(torch: Any, mode: str) -> None:
    check(torch, "pad", [randn(2, 3, 5)], (2, 3), mode=mode)
    check(torch, "pad", [randn(2, 3, 4, 5)], (1, 2, 3, 0), mode=mode)
    check(torch, "pad", [randn(1, 2, 3, 4, 5)], (1, 1, 2, 0, 0, 2), mode=mode)


def test_pad_reflect_too_wide(torch: Any) -> None:
    msg = (
        r"Padding size should be less than the corresponding input dimension, but got: padding \(3, 3\) at dimension 2"
    )
    with pytest.raises(RuntimeError, match=msg):
        F.pad(ctxgrad.ones(1, 2, 3), (3, 3), mode="reflect")
    with pytest.raises(RuntimeError, match=msg):
        torch.nn.functional.pad(torch.ones(1, 2, 3), (3, 3), mode="reflect")


def test_dropout_is_seeded_and_scales() -> None:
    x = ctxgrad.ones(1000, dtype=ctxgrad.float64, requires_grad=True)
    ctxgrad.manual_seed(3)
    a = F.dropout(x, 0.25)
    ctxgrad.manual_seed(3)
    b = F.dropout(x, 0.25)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    values = set(np.unique(a.detach().numpy()).tolist())
    assert values == {0.0, 1 / 0.75}
    assert 0.18 < (a.detach().numpy() == 0).mean() < 0.32
    a.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), a.detach().numpy())
    assert F.dropout(x, 0.5, training=False) is x
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got 1\.5"):
        F.dropout(x, 1.5)


# --------------------------------------------------------------------------- losses
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_regression_losses(torch: Any, reduction: str) -> None:
    x, y = randn(4, 3), randn(4, 3)
    check(torch, "mse_loss", [x, y], reduction=reduction)
    check(torch, "l1_loss", [x, y], reduction=reduction)
    check(torch, "smooth_l1_loss", [x, y], reduction=reduction, beta=0.7)
    check(torch, "smooth_l1_loss", [x, y], reduction=reduction, beta=0.0)
    check(torch, "huber_loss", [x, y], reduction=reduction, delta=0.6)


def test_mse_loss_warns_about_broadcasting(torch: Any) -> None:
    with pytest.warns(UserWarning, match=r"Using a target size \(ctxgrad.Size\(\[3\]\)\) that is different"):
        F.mse_loss(ctxgrad.ones(2, 3), ctxgrad.ones(3))


def test_invalid_reduction() -> None:
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        F.mse_loss(ctxgrad.ones(2), ctxgrad.ones(2), reduction="avg")


def test_legacy_size_average_and_reduce(torch: Any) -> None:
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use reduction='sum'"):
        out = F.l1_loss(ctxgrad.ones(2), ctxgrad.zeros(2), size_average=False)
    assert out.item() == 2.0


CE_CASES = [
    dict(),
    dict(reduction="sum"),
    dict(reduction="none"),
    dict(weight=True),
    dict(weight=True, ignore_index=1),
    dict(ignore_index=2, reduction="none"),
    dict(label_smoothing=0.2),
    dict(label_smoothing=0.3, weight=True, ignore_index=0),
    dict(label_smoothing=0.3, weight=True, reduction="sum"),
    dict(label_smoothing=0.1, reduction="none", ignore_index=2),
]


@pytest.mark.parametrize("kwargs", CE_CASES)
def test_cross_entropy_class_indices(torch: Any, kwargs: dict[str, Any]) -> None:
    kwargs = dict(kwargs)
    weight = np.abs(randn(4)) + 0.1 if kwargs.pop("weight", False) else None
    target = np.array([0, 1, 2, 3, 2, 1])
    check(torch, "cross_entropy", [randn(6, 4), target, weight], grad=(0,), **kwargs)
    # spatial: (N, C, d) with (N, d) targets
    check(torch, "cross_entropy", [randn(2, 4, 3), target.reshape(2, 3), weight], grad=(0,), **kwargs)


@pytest.mark.parametrize("kwargs", [dict(), dict(reduction="none"), dict(weight=True, label_smoothing=0.25)])
def test_cross_entropy_class_probabilities(torch: Any, kwargs: dict[str, Any]) -> None:
    kwargs = dict(kwargs)
    weight = np.abs(randn(4)) + 0.1 if kwargs.pop("weight", False) else None
    probs = np.exp(randn(5, 4))
    probs /= probs.sum(1, keepdims=True)
    check(torch, "cross_entropy", [randn(5, 4), probs, weight], grad=(0,), **kwargs)


def test_cross_entropy_unbatched_and_stable(torch: Any) -> None:
    check(torch, "cross_entropy", [randn(5), np.array(2)])
    big = np.array([[1000.0, -1000.0, 0.0], [-800.0, 800.0, 799.0]])
    check(torch, "cross_entropy", [big, np.array([1, 2])])


def test_nll_loss(torch: Any) -> None:
    logp = np.log(np.abs(randn(5, 3)) + 0.1)
    check(torch, "nll_loss", [logp, np.array([0, 2, 1, 1, 0]), np.abs(randn(3))], grad=(0,), ignore_index=1)
    check(torch, "nll_loss", [logp, np.array([0, 2, 1, 1, 0])], reduction="sum")


def test_cross_entropy_with_every_target_ignored_is_nan(torch: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = F.cross_entropy(ctxgrad.zeros(2, 3), ctxgrad.tensor([-100, -100]))
    assert np.isnan(out.item())
    assert np.isnan(torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([-100, -100])).item())


def test_nll_loss_target_out_of_bounds(torch: Any) -> None:
    with pytest.raises(IndexError, match=r"Target 5 is out of bounds\."):
        F.nll_loss(ctxgrad.zeros(2, 3), ctxgrad.tensor([0, 5]))
    with pytest.raises(IndexError, match=r"Target 5 is out of bounds\."):
        torch.nn.functional.nll_loss(torch.zeros(2, 3), torch.tensor([0, 5]))


@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8"])
@pytest.mark.parametrize("bad", [-1, -101, 3, 127])
def test_a_target_out_of_bounds_on_either_side_is_refused_as_torch(torch: Any, loss: str, dtype: str, bad: int) -> None:
    """A negative target other than ``ignore_index``, or one past the last class, is torch's
    IndexError, for both dtypes torch takes for targets (int64, and uint8 for inputs of at most
    two dimensions; the check reads a signed target as unsigned, so one reduction finds both
    sides); a target of another integer dtype is torch's RuntimeError, before any bound."""
    targets = np.array([0, bad, 1]).astype(dtype)  # (uint8 wraps -1 to 255 and -101 to 155)
    bad = int(targets[1])
    if dtype in ("int64", "uint8"):
        error, message = IndexError, rf"Target {bad} is out of bounds\."
    else:
        error, message = RuntimeError, r"expected target dtype to be Long or Byte, but got (Int|Char)$"
    with pytest.raises(error, match=message):
        getattr(F, loss)(ctxgrad.zeros(3, 3, requires_grad=True), ctxgrad.from_numpy(targets))
    with pytest.raises(error, match=message):
        getattr(torch.nn.functional, loss)(torch.zeros(3, 3, requires_grad=True), torch.from_numpy(targets))


@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64"])
@pytest.mark.parametrize("input_shape", [(4,), (3, 4), (2, 4, 2), (2, 4, 2, 2)])
def test_the_dtypes_of_class_targets_are_torch_s(
    torch: Any, loss: str, dtype: str, input_shape: tuple[int, ...]
) -> None:
    """int64 targets, and uint8 ones for inputs of at most two dimensions (torch's ``nll_loss``
    kernel; larger inputs go through ``nll_loss2d``, which takes int64 only): anything else is
    torch's RuntimeError with torch's words, and an integer target shaped like the input is
    refused as class probabilities."""
    target_shape = input_shape[:1] + input_shape[2:] if len(input_shape) > 1 else ()
    targets = (np.arange(int(np.prod(target_shape))) % 3).reshape(target_shape).astype(dtype)
    logits = RNG.standard_normal(input_shape).astype(np.float32)

    def run(lib: Any) -> Any:
        try:
            return float(getattr(lib.nn.functional, loss)(lib.from_numpy(logits), lib.from_numpy(targets)))
        except (RuntimeError, IndexError) as exc:
            return type(exc), str(exc)

    expected, got = run(torch), run(ctxgrad)
    if isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-5)
    else:
        assert got == expected
    if loss == "cross_entropy" and dtype == "int64":
        same_shape = np.zeros(input_shape, dtype=np.int64)
        for lib in (torch, ctxgrad):
            with pytest.raises(
                RuntimeError, match=r"^Expected floating point type for target with class probabilities, got Long$"
            ):
                lib.nn.functional.cross_entropy(lib.from_numpy(logits), lib.from_numpy(same_shape))


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_binary_cross_entropy(torch: Any, reduction: str) -> None:
    p = 1 / (1 + np.exp(-randn(4, 3)))
    t = RNG.random((4, 3))
    check(torch, "binary_cross_entropy", [p, t, np.abs(randn(3))], grad=(0, 1), reduction=reduction)
    check(torch, "binary_cross_entropy", [np.array([0.0, 1.0, 0.5]), np.array([1.0, 0.0, 1.0])], grad=())


def test_binary_cross_entropy_checks_range_and_size(torch: Any) -> None:
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(ctxgrad.tensor([1.5]), ctxgrad.tensor([1.0]))
    with pytest.raises(ValueError, match="that is different to the input size"):
        F.binary_cross_entropy(ctxgrad.tensor([0.5]), ctxgrad.tensor([1.0, 0.0]))


@pytest.mark.parametrize("with_weights", [False, True])
def test_binary_cross_entropy_with_logits(torch: Any, with_weights: bool) -> None:
    x = randn(4, 3) * 30  # large logits: the stable formula must not overflow
    t = RNG.random((4, 3))
    w = np.abs(randn(3)) if with_weights else None
    check(torch, "binary_cross_entropy_with_logits", [x, t, w], grad=(0, 1), rtol=1e-7)


def test_binary_cross_entropy_with_logits_pos_weight(torch: Any) -> None:
    x, t, pw = randn(4, 3) * 30, RNG.random((4, 3)), np.abs(randn(3)) + 0.5
    cx, tx = ctxgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    cp, tp = ctxgrad.tensor(pw), torch.tensor(pw)
    co = F.binary_cross_entropy_with_logits(cx, ctxgrad.tensor(t), pos_weight=cp)
    to = torch.nn.functional.binary_cross_entropy_with_logits(tx, torch.tensor(t), pos_weight=tp)
    np.testing.assert_allclose(co.item(), to.item(), rtol=1e-10)
    co.backward()
    to.backward()
    np.testing.assert_allclose(cx.grad.numpy(), tx.grad.numpy(), rtol=1e-7)


@pytest.mark.parametrize(("reduction", "log_target"), [("batchmean", False), ("sum", True), ("none", False)])
def test_kl_div(torch: Any, reduction: str, log_target: bool) -> None:
    logp = np.log(RNG.dirichlet(np.ones(4), 3))
    q = RNG.dirichlet(np.ones(4), 3)
    q[0, 1] = 0.0  # a zero target contributes zero
    target = np.log(q + 1e-3) if log_target else q
    check(torch, "kl_div", [logp, target], grad=(0,), reduction=reduction, log_target=log_target)


def test_kl_div_mean_warns(torch: Any) -> None:
    with pytest.warns(UserWarning, match="reduction: 'mean' divides the total loss by both the batch size"):
        F.kl_div(ctxgrad.zeros(2, 2), ctxgrad.ones(2, 2) / 2)


def test_cross_entropy_forward_mode_matches_backward() -> None:
    x, tx = ctxgrad.tensor(randn(3, 4), requires_grad=True), ctxgrad.tensor(randn(3, 4))
    target = ctxgrad.tensor([0, 3, 1])
    with forward_ad.dual_level():
        out = F.cross_entropy(forward_ad.make_dual(x, tx), target, label_smoothing=0.1)
        jvp = forward_ad.unpack_dual(out).tangent.item()
    (g,) = ctxgrad.autograd.grad(F.cross_entropy(x, target, label_smoothing=0.1), x)
    assert abs(jvp - (g * tx).sum().item()) < 1e-10


def test_all_listed_names_exist() -> None:
    missing = [n for n in F.__all__ if not callable(getattr(F, n, None))]
    assert missing == []


# --------------------------------------------------------------------------- forward mode against reverse mode
def _conv(x: Any, w: Any, b: Any) -> Any:
    return F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2)


JVP_CASES = [
    ("conv2d", _conv, [(2, 4, 6, 7), (4, 2, 3, 2), (4,)]),
    ("conv1d", lambda x, w: F.conv1d(x, w, padding="same"), [(2, 3, 8), (2, 3, 4)]),
    ("unfold", lambda x: F.unfold(x, 2, padding=1, stride=2), [(1, 2, 5, 4)]),
    ("fold", lambda x: F.fold(x, (4, 5), 2, padding=1), [(1, 8, 30)]),
    ("max_pool2d", lambda x: F.max_pool2d(x, 3, 2, 1, ceil_mode=True), [(2, 2, 6, 7)]),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False), [(2, 2, 6, 7)]),
    ("embedding", lambda w: F.embedding(ctxgrad.tensor([[0, 3, 3], [1, 2, 0]]), w), [(4, 3)]),
    ("pad", lambda x: F.pad(x, (1, -1, 2, 0), value=3.0), [(2, 3, 4)]),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
    ("batch_norm", lambda x: F.batch_norm(x, None, None, training=True), [(5, 3)]),
    ("bce_with_logits", lambda x, t: F.binary_cross_entropy_with_logits(x, t), [(3, 4), (3, 4)]),
]


@pytest.mark.parametrize(("name", "fn", "shapes"), JVP_CASES, ids=[c[0] for c in JVP_CASES])
def test_jvp_agrees_with_vjp(name: str, fn: Any, shapes: list[tuple[int, ...]]) -> None:
    """<jvp(t), u> == <t, vjp(u)> for random primal, tangent t and cotangent u."""
    primals = [ctxgrad.tensor(randn(*s), requires_grad=True) for s in shapes]
    tangents = [ctxgrad.tensor(randn(*s)) for s in shapes]
    out = fn(*primals)
    u = ctxgrad.tensor(randn(*out.shape))
    grads = ctxgrad.autograd.grad((out * u).sum(), primals)
    with forward_ad.dual_level():
        dual_out = fn(*[forward_ad.make_dual(p.detach(), t) for p, t in zip(primals, tangents)])
        jvp = forward_ad.unpack_dual(dual_out).tangent
    lhs = float((jvp * u).sum().item())
    rhs = sum(float((g * t).sum().item()) for g, t in zip(grads, tangents))
    assert lhs == pytest.approx(rhs, rel=1e-9, abs=1e-10)


@pytest.mark.parametrize("name", ["max_pool2d", "embedding", "pad", "unfold"])
def test_double_backward_of_linear_ops_is_the_op_again(name: str) -> None:
    """Each of these ops is linear in its input (given the pooling positions), so the
    gradient of the gradient with respect to the upstream gradient is the op itself."""
    fn, shapes = {c[0]: (c[1], c[2]) for c in JVP_CASES}[name]
    x = ctxgrad.tensor(randn(*shapes[0]), requires_grad=True)
    out = fn(x)
    u = ctxgrad.tensor(randn(*out.shape), requires_grad=True)
    (gx,) = ctxgrad.autograd.grad((out * u).sum(), x, create_graph=True)
    v = ctxgrad.tensor(randn(*x.shape))
    (gu,) = ctxgrad.autograd.grad((gx * v).sum(), u)
    with forward_ad.dual_level():
        expected = forward_ad.unpack_dual(fn(forward_ad.make_dual(x.detach(), v))).tangent
    np.testing.assert_allclose(gu.numpy(), expected.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_embedding_padding_idx_affects_only_reverse_mode(torch: Any) -> None:
    """As in torch: the padding row gets no gradient, but its tangent still flows forward."""
    w, t = randn(4, 3), np.ones((4, 3))
    with forward_ad.dual_level():
        out = F.embedding(ctxgrad.tensor([0, 2]), forward_ad.make_dual(ctxgrad.tensor(w), ctxgrad.tensor(t)), 2)
        ours = forward_ad.unpack_dual(out).tangent
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(torch.tensor(w), torch.tensor(t))
        theirs = torch.autograd.forward_ad.unpack_dual(
            torch.nn.functional.embedding(torch.tensor([0, 2]), dual, padding_idx=2)
        ).tangent
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.numpy())


def test_dropout_inplace() -> None:
    x = ctxgrad.ones(100, dtype=ctxgrad.float64)
    out = F.dropout(x, 0.5, inplace=True)
    assert out is x and set(np.unique(x.numpy()).tolist()) <= {0.0, 2.0}


# --------------------------------------------------------------------------- numerical gradient checks
def _t(*shape: int) -> ctxgrad.Tensor:
    return ctxgrad.tensor(randn(*shape), requires_grad=True)


GRADCHECK_CASES = [
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=2), [(1, 4, 5, 5), (4, 2, 3, 3), (4,)]),
    ("conv1d", lambda x, w: F.conv1d(x, w, padding="same", dilation=2), [(1, 2, 6), (3, 2, 3)]),
    ("max_pool2d", lambda x: F.max_pool2d(x, 2, 1, ceil_mode=True), [(1, 2, 4, 5)]),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [(1, 2, 5, 6)]),
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (3,), w, b), [(2, 3), (3,), (3,)]),
    ("batch_norm", lambda x, w: F.batch_norm(x, None, None, w, training=True), [(4, 3), (3,)]),
    ("embedding", lambda w: F.embedding(ctxgrad.tensor([0, 2, 2]), w, scale_grad_by_freq=False), [(3, 2)]),
    ("pad_reflect", lambda x: F.pad(x, (2, 1), mode="reflect"), [(1, 2, 4)]),
    ("bilinear", lambda a, b, w: F.bilinear(a, b, w), [(2, 3), (2, 2), (4, 3, 2)]),
    ("cross_entropy", lambda x: F.cross_entropy(x, ctxgrad.tensor([0, 2]), label_smoothing=0.2), [(2, 3)]),
    ("bce_with_logits", lambda x: F.binary_cross_entropy_with_logits(x, ctxgrad.tensor([[0.2, 1.0]])), [(1, 2)]),
    ("smooth_l1", lambda x, y: F.smooth_l1_loss(x, y, beta=0.5), [(3,), (3,)]),
]


@pytest.mark.parametrize(("name", "fn", "shapes"), GRADCHECK_CASES, ids=[c[0] for c in GRADCHECK_CASES])
def test_gradcheck_and_gradgradcheck(name: str, fn: Any, shapes: list[tuple[int, ...]]) -> None:
    from ctxgrad.autograd import gradcheck, gradgradcheck

    inputs = tuple(_t(*s) for s in shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("ignore", [False, True], ids=["all-kept", "one-ignored"])
def test_fused_cross_entropy_matches_torch_to_second_order_and_forward_mode(
    torch: Any, reduction: str, ignore: bool
) -> None:
    """The common case (logits (N, C), class indices) runs as one Function: its value,
    gradient, second derivative and tangent equal torch's."""
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((5, 4)) * 3
    target = np.array([0, 3, 1, 1, 2])
    if ignore:
        target[2] = -100
    v = rng.standard_normal((5, 4))
    results = []
    for m in (ctxgrad, torch):
        x = m.tensor(logits, requires_grad=True)
        t = m.tensor(target)
        loss = m.nn.functional.cross_entropy(x, t, reduction=reduction)
        (g,) = m.autograd.grad(loss, x, create_graph=True)
        (gg,) = m.autograd.grad((g * m.tensor(v)).sum(), x)
        fw = m.autograd.forward_ad
        with fw.dual_level():
            dual = fw.make_dual(m.tensor(logits), m.tensor(v))
            tangent = fw.unpack_dual(m.nn.functional.cross_entropy(dual, t, reduction=reduction)).tangent
        results.append([np.asarray(r.detach().numpy()) for r in (loss, g, gg, tangent)])
    for c, t_ in zip(*results):
        np.testing.assert_allclose(c, t_, rtol=1e-10, atol=1e-12)
    assert (
        ctxgrad.nn.functional.cross_entropy(
            ctxgrad.tensor(logits, requires_grad=True), ctxgrad.tensor(target)
        ).grad_fn.name()
        == "NllLossBackward0"
    )


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
@pytest.mark.parametrize("ignore", [False, True], ids=["all-kept", "two-ignored"])
def test_fused_cross_entropy_backward_on_arrays_equals_the_recorded_one(dtype: str, ignore: bool) -> None:
    """The backward on arrays (from the softmax its forward kept; half precision computes it
    again in float) gives what the backward written with ctxgrad ops gives under create_graph,
    bit for bit, and gives it again when a retained graph runs twice."""
    rng = np.random.default_rng(5)
    logits = (rng.standard_normal((6, 5)) * 3).astype(dtype)
    target = np.array([0, 4, 1, 1, 2, 3])
    if ignore:
        target[[1, 4]] = -100
    x = ctxgrad.tensor(logits, requires_grad=True)
    loss = ctxgrad.nn.functional.cross_entropy(x, ctxgrad.tensor(target))
    (first,) = ctxgrad.autograd.grad(loss, x, retain_graph=True)
    (second,) = ctxgrad.autograd.grad(loss, x, retain_graph=True)
    (recorded,) = ctxgrad.autograd.grad(loss, x, create_graph=True)
    assert first.dtype == x.dtype and recorded.requires_grad and not first.requires_grad
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    np.testing.assert_array_equal(first.numpy(), recorded.detach().numpy())
    if ignore:
        assert not first.numpy()[[1, 4]].any()  # (an ignored row gets no gradient)


def test_fused_cross_entropy_gradient_is_for_the_targets_of_its_forward() -> None:
    """A label buffer that the caller fills with the next batch before ``backward`` (NumPy
    writes, which no version counter sees) does not change the gradient: the loss keeps its
    own copy of the targets.  (torch reads the buffer at backward, and gives the gradient of
    a loss it never computed.)"""
    rng = np.random.default_rng(7)
    logits = rng.standard_normal((4, 3))
    labels = np.array([0, 2, 1, 1])
    x = ctxgrad.tensor(logits, requires_grad=True)
    loss = ctxgrad.nn.functional.cross_entropy(x, ctxgrad.from_numpy(labels))
    labels[:] = [2, 0, 0, 2]  # (the next batch, written into the same buffer)
    loss.backward()
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    p[np.arange(4), [0, 2, 1, 1]] -= 1
    np.testing.assert_allclose(x.grad.numpy(), p / 4, rtol=1e-12)


# --- silent NaNs and gradient penalties (the correctness issue) ------------------------------


def bce_at_saturation(m: Any) -> tuple[float, float, list[float]]:
    z = m.tensor([20.0], requires_grad=True)  # float32: sigmoid(20.) is exactly 1.0
    p = m.sigmoid(z)
    loss = m.nn.functional.binary_cross_entropy(p, m.tensor([1.0]))
    loss.backward()
    return p[0].item(), loss.item(), z.grad.tolist()


def test_binary_cross_entropy_at_a_saturated_probability_has_a_zero_gradient() -> None:
    p, loss, grad = bce_at_saturation(ctxgrad)
    assert p == 1.0 and loss == 0.0
    assert grad == [0.0]  # (x - t) / max(x (1 - x), 1e-12) = 0, not 0 * inf


def test_binary_cross_entropy_at_a_saturated_probability_matches_torch(torch: Any) -> None:
    assert bce_at_saturation(ctxgrad) == bce_at_saturation(torch)


def test_binary_cross_entropy_gradients_match_torch_for_input_and_target(torch: Any) -> None:
    values = ([0.1, 0.5, 0.999, 1e-13], [0.0, 0.3, 1.0, 1.0])
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor(values[0], dtype=m.float64, requires_grad=True)
        t = m.tensor(values[1], dtype=m.float64, requires_grad=True)
        m.nn.functional.binary_cross_entropy(x, t, reduction="sum").backward()
        grads.append((x.grad.tolist(), t.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def all_targets_ignored(m: Any, loss: str) -> tuple[float, list[list[float]]]:
    x = m.tensor([[1.0, 2.0], [0.5, 0.1]], requires_grad=True)
    target = m.tensor([-100, -100])
    if loss == "cross_entropy":
        out = m.nn.functional.cross_entropy(x, target)
    else:
        out = m.nn.functional.nll_loss(x.log_softmax(1), target)
    out.backward()
    return out.item(), x.grad.tolist()


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_every_target_ignored_gives_a_nan_mean_and_zero_gradients(loss: str) -> None:
    value, grad = all_targets_ignored(ctxgrad, loss)
    assert np.isnan(value)
    assert grad == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_every_target_ignored_matches_torch(torch: Any, loss: str) -> None:
    ours, theirs = all_targets_ignored(ctxgrad, loss), all_targets_ignored(torch, loss)
    assert np.isnan(ours[0]) and np.isnan(theirs[0])
    assert ours[1] == theirs[1]


GRID = [[[[1.0, 2.0, 0.5, 3.0], [0.2, 0.1, 4.0, 1.0], [1.0, 1.5, 2.5, 0.3], [0.7, 0.2, 0.9, 1.1]]]]
PENALTY_OPS = {
    "max_pool2d": lambda m, x: m.nn.functional.max_pool2d(x, 2).sum(),
    "avg_pool2d": lambda m, x: m.nn.functional.avg_pool2d(x, 2).sum(),
    "conv2d": lambda m, x: m.nn.functional.conv2d(x, m.ones(1, 1, 2, 2, dtype=m.float64)).sum(),
    "nll_loss": lambda m, x: m.nn.functional.nll_loss(x.reshape(4, 4), m.tensor([0, 1, 2, 3])),
}


def gradient_penalty(m: Any, op: str) -> list[float] | None:
    """A gradient penalty through one op whose gradient does not depend on its input."""
    x = m.tensor(GRID, dtype=m.float64, requires_grad=True)
    (g,) = m.autograd.grad(PENALTY_OPS[op](m, x), x, create_graph=True)
    assert g.requires_grad
    (g * g).sum().backward()
    return None if x.grad is None else x.grad.flatten().tolist()


@pytest.mark.parametrize("op", PENALTY_OPS)
def test_a_gradient_penalty_through_one_op_alone_gives_zeros(op: str) -> None:
    assert gradient_penalty(ctxgrad, op) == [0.0] * 16


@pytest.mark.parametrize("op", PENALTY_OPS)
def test_a_gradient_penalty_through_one_op_alone_matches_torch(torch: Any, op: str) -> None:
    theirs = gradient_penalty(torch, op)
    if op == "conv2d":
        assert theirs is None  # torch's graph of g never reaches x: x.grad stays None; ctxgrad's gives zeros
        theirs = [0.0] * 16
    assert gradient_penalty(ctxgrad, op) == theirs
