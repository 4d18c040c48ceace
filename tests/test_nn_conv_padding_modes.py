"""``nn.Conv1d/2d/3d(padding_mode=...)``: the input padded with ``F.pad``'s mode, then convolved
without padding, as torch does; values and gradients against torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn

torch = pytest.importorskip("torch")

CASES = [
    (1, (2, 3, 7), {"kernel_size": 3, "padding": 2}),
    (1, (2, 3, 7), {"kernel_size": 4, "padding": "same", "dilation": 2}),
    (2, (2, 3, 6, 5), {"kernel_size": 3, "padding": (1, 2), "stride": 2}),
    (2, (1, 4, 5, 6), {"kernel_size": (2, 3), "padding": "same", "groups": 2}),
    (2, (1, 3, 5, 5), {"kernel_size": 3, "padding": "valid", "bias": False}),
    (3, (1, 2, 4, 5, 3), {"kernel_size": 2, "padding": (1, 2, 1)}),
]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("dims,shape,kwargs", CASES)
def test_conv_padding_mode_matches_torch(mode: str, dims: int, shape: tuple[int, ...], kwargs: dict[str, Any]) -> None:
    def run(lib: Any) -> Any:
        lib.manual_seed(0)
        rng = np.random.default_rng(0)
        cls = getattr(lib.nn, f"Conv{dims}d")
        in_channels = shape[1]
        out_channels = 4 if kwargs.get("groups", 1) == 2 else 3
        conv = cls(in_channels, out_channels, padding_mode=mode, dtype=lib.float64, **kwargs)
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(rng.standard_normal(tuple(conv.weight.shape))))
            if conv.bias is not None:
                conv.bias.copy_(lib.tensor(rng.standard_normal(tuple(conv.bias.shape))))
        x = lib.tensor(rng.standard_normal(shape), requires_grad=True)
        out = conv(x)
        (out * lib.tensor(rng.standard_normal(tuple(out.shape)))).sum().backward()
        grads = [x.grad, conv.weight.grad] + ([] if conv.bias is None else [conv.bias.grad])
        return repr(conv), out.detach().numpy(), [g.numpy() for g in grads]

    (text, out, grads), (want_text, want_out, want_grads) = run(ctxgrad), run(torch)
    assert text == want_text
    np.testing.assert_allclose(out, want_out, rtol=1e-10, atol=1e-12)
    assert len(grads) == len(want_grads)
    for g, w in zip(grads, want_grads):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("lib", [ctxgrad, torch], ids=["ctxgrad", "torch"])
def test_an_unknown_padding_mode_is_refused(lib: Any) -> None:
    with pytest.raises(ValueError, match=r"padding_mode must be one of \{.*\}, but got padding_mode='mirror'"):
        lib.nn.Conv2d(1, 1, 3, padding_mode="mirror")


def test_reflect_padding_wider_than_the_input_is_refused_as_torch() -> None:
    errors = []
    for lib in (ctxgrad, torch):
        conv = lib.nn.Conv1d(1, 1, 3, padding=4, padding_mode="reflect")
        with pytest.raises(RuntimeError) as info:
            conv(lib.ones(1, 1, 3))
        errors.append(str(info.value))
    assert "Padding size should be less than the corresponding input dimension" in errors[1]
    assert "Padding size should be less than the corresponding input dimension" in errors[0]


def test_padding_mode_module_keeps_its_mode_in_the_state() -> None:
    conv = nn.Conv2d(2, 2, 3, padding=1, padding_mode="circular")
    assert conv.padding_mode == "circular"
    assert conv(ctxgrad.ones(1, 2, 4, 4)).shape == (1, 2, 4, 4)
