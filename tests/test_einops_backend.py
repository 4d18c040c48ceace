"""einops on ctxgrad tensors: rearrange, reduce, repeat, einsum, pack, with gradients, the same
values and gradients as on torch (skipped without einops)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import ctxgrad

try:
    import einops
except ImportError:  # the tests that need it skip
    einops = None

needs_einops = pytest.mark.skipif(einops is None, reason="needs einops")

CALLS: dict[str, Any] = {
    "rearrange_merge": lambda x: einops.rearrange(x, "b c d -> b (c d)"),
    "rearrange_split": lambda x: einops.rearrange(x, "b c (d1 d2) -> b d1 c d2", d1=2),
    "rearrange_transpose": lambda x: einops.rearrange(x, "b c d -> d b c"),
    "reduce_mean": lambda x: einops.reduce(x, "b c d -> b", "mean"),
    "reduce_max": lambda x: einops.reduce(x, "b c d -> b d", "max"),
    "reduce_min": lambda x: einops.reduce(x, "b c d -> c", "min"),
    "reduce_sum": lambda x: einops.reduce(x, "b c d -> b c", "sum"),
    "reduce_prod": lambda x: einops.reduce(x, "b c d -> d", "prod"),
    "pool": lambda x: einops.reduce(x, "b c (d two) -> b c d", "max", two=2),
    "repeat_new_axis": lambda x: einops.repeat(x, "b c d -> b c d r", r=3),
    "repeat_tile": lambda x: einops.repeat(x, "b c d -> (r b) c d", r=2),
    "repeat_interleave": lambda x: einops.repeat(x, "b c d -> b (c r) d", r=2),
    "einsum": lambda x: einops.einsum(x, x, "b c d, b e d -> b c e"),
    "pack": lambda x: einops.pack([x, x[:, :, 0]], "b c *")[0],
}


def data() -> np.ndarray:
    return np.random.default_rng(0).standard_normal((2, 3, 4))


@needs_einops
@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
@needs_einops
def test_values_and_gradients_match_torch(torch: Any, call: Any) -> None:
    x = ctxgrad.tensor(data(), requires_grad=True)
    tx = torch.tensor(data(), requires_grad=True)
    ours, theirs = call(x), call(tx)
    assert isinstance(ours, ctxgrad.Tensor) and ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    weights = np.random.default_rng(1).standard_normal(ours.shape)
    (ours * ctxgrad.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


@needs_einops
def test_gradients_without_torch() -> None:
    x = ctxgrad.randn(2, 3, 4, requires_grad=True)
    einops.reduce(einops.rearrange(x, "b c d -> b (c d)"), "b n -> b", "mean").sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full((2, 3, 4), 1 / 12), rtol=1e-6)
    y = ctxgrad.ones(2, requires_grad=True)
    einops.repeat(y, "a -> a b", b=3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]


@needs_einops
def test_the_backend_is_ctxgrads() -> None:
    backend = einops._backends.get_backend(ctxgrad.zeros(1))
    assert backend.framework_name == "ctxgrad"
    assert repr(backend) == "<einops backend for ctxgrad>"
    unpacked = einops.unpack(ctxgrad.arange(8.0).reshape(2, 4), [(3,), ()], "b *")
    assert [t.shape for t in unpacked] == [(2, 3), (2,)]


@needs_einops
def test_integer_tensors_rearrange_and_refuse_a_mean_as_on_torch() -> None:
    x = ctxgrad.arange(6).reshape(2, 3)
    assert einops.rearrange(x, "a b -> b a").tolist() == [[0, 3], [1, 4], [2, 5]]
    with pytest.raises(NotImplementedError, match="reduce_mean is not available for non-floating tensors"):
        einops.reduce(x, "a b -> a", "mean")


def test_without_einops_ctxgrad_imports_and_the_backend_is_inert() -> None:
    code = (
        "import sys; sys.modules['einops'] = None\n"
        "import ctxgrad\n"
        "print(ctxgrad._einops.CtxgradBackend.__mro__[1].__name__, ctxgrad.ones(2).sum().item())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["object", "2.0"]
