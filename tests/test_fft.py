"""``ctxgrad.fft`` against ``torch.fft``: values, dtypes, gradients for real and complex
inputs (every ``norm``, cropping and padding with ``n``/``s``), double backward, forward mode,
the helpers and the errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

rng = np.random.default_rng(17)


def _real(*shape: int) -> np.ndarray[Any, Any]:
    return rng.normal(size=shape)


def _complex(*shape: int) -> np.ndarray[Any, Any]:
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


Call = Callable[[Any, Any], Any]

#: (id, call(fft module, x), input array)
CASES: list[tuple[str, Call, np.ndarray[Any, Any]]] = [
    ("fft_real", lambda f, x: f.fft(x), _real(6)),
    ("fft_complex", lambda f, x: f.fft(x), _complex(2, 5)),
    ("fft_n_pad", lambda f, x: f.fft(x, n=8, dim=0), _complex(5, 3)),
    ("fft_n_crop_ortho", lambda f, x: f.fft(x, n=3, norm="ortho"), _real(2, 5)),
    ("fft_forward", lambda f, x: f.fft(x, norm="forward"), _complex(7)),
    ("ifft_real", lambda f, x: f.ifft(x), _real(4, 3)),
    ("ifft_complex_n", lambda f, x: f.ifft(x, n=6, norm="ortho"), _complex(4)),
    ("ifft_forward", lambda f, x: f.ifft(x, dim=0, norm="forward"), _complex(5, 2)),
    ("fft2", lambda f, x: f.fft2(x), _complex(3, 4, 5)),
    ("fft2_s", lambda f, x: f.fft2(x, s=(2, 6), norm="ortho"), _real(3, 4)),
    ("ifft2", lambda f, x: f.ifft2(x, dim=(0, 2)), _complex(3, 2, 4)),
    ("fftn_all", lambda f, x: f.fftn(x), _complex(2, 3, 4)),
    ("fftn_s_only", lambda f, x: f.fftn(x, s=(5, 3)), _real(2, 4, 4)),
    ("ifftn_forward", lambda f, x: f.ifftn(x, dim=(1,), norm="forward"), _complex(3, 4)),
    ("rfft", lambda f, x: f.rfft(x), _real(8)),
    ("rfft_odd", lambda f, x: f.rfft(x, dim=0), _real(7, 2)),
    ("rfft_n", lambda f, x: f.rfft(x, n=10, norm="ortho"), _real(3, 6)),
    ("rfft_forward", lambda f, x: f.rfft(x, n=4, norm="forward"), _real(6)),
    ("rfft2", lambda f, x: f.rfft2(x), _real(2, 4, 5)),
    ("rfftn", lambda f, x: f.rfftn(x, s=(4, -1), norm="ortho"), _real(3, 6)),
    ("irfft_even", lambda f, x: f.irfft(x), _complex(5)),
    ("irfft_odd_n", lambda f, x: f.irfft(x, n=9), _complex(2, 5)),
    ("irfft_crop", lambda f, x: f.irfft(x, n=4, norm="ortho"), _complex(6)),
    ("irfft_pad_forward", lambda f, x: f.irfft(x, n=12, dim=0, norm="forward"), _complex(4, 2)),
    ("irfft_real_input", lambda f, x: f.irfft(x), _real(5)),
    ("irfft2", lambda f, x: f.irfft2(x), _complex(4, 3)),
    ("irfftn_s", lambda f, x: f.irfftn(x, s=(3, 7), norm="ortho"), _complex(2, 4, 4)),
    ("hfft", lambda f, x: f.hfft(x), _complex(5)),
    ("hfft_n_ortho", lambda f, x: f.hfft(x, n=7, norm="ortho"), _complex(2, 4)),
    ("hfft_forward", lambda f, x: f.hfft(x, norm="forward"), _complex(6)),
    ("ihfft", lambda f, x: f.ihfft(x), _real(6)),
    ("ihfft_n_ortho", lambda f, x: f.ihfft(x, n=5, dim=0, norm="ortho"), _real(4, 3)),
    ("ihfft_forward", lambda f, x: f.ihfft(x, norm="forward"), _real(7)),
    ("hfft2", lambda f, x: f.hfft2(x), _complex(3, 4)),
    ("hfftn_s", lambda f, x: f.hfftn(x, s=(2, 5, 7), norm="ortho"), _complex(3, 4, 4)),
    ("hfftn_forward", lambda f, x: f.hfftn(x, dim=(0,), norm="forward"), _complex(5, 2)),
    ("ihfft2", lambda f, x: f.ihfft2(x), _real(3, 4)),
    ("ihfftn_s", lambda f, x: f.ihfftn(x, s=(4, 3, 6), norm="ortho"), _real(3, 4, 5)),
    ("ihfftn_forward", lambda f, x: f.ihfftn(x, norm="forward"), _real(2, 3, 5)),
    ("fftshift", lambda f, x: f.fftshift(x), _real(4, 5)),
    ("ifftshift_dim", lambda f, x: f.ifftshift(x, dim=1), _complex(3, 5)),
    ("fftshift_dims", lambda f, x: f.fftshift(x, dim=(0, -1)), _real(5, 2, 3)),
]


def _weights(shape: tuple[int, ...], is_complex: bool) -> np.ndarray[Any, Any]:
    return _complex(*shape) if is_complex else _real(*shape)


def _loss(out: Any, w: Any) -> Any:
    """A real loss that reads real and imaginary parts of ``out`` with different weights."""
    if out.is_complex():
        return (out * w).real.sum()
    return (out * w).sum()


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(case: Any) -> None:
    _, call, data = case
    x = ctxgrad.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    out, tout = call(ctxgrad.fft, x), call(torch.fft, tx)
    assert out.shape == tuple(tout.shape)
    assert str(out.dtype).split(".")[-1] == str(tout.dtype).split(".")[-1]
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().resolve_conj().numpy(), rtol=1e-10, atol=1e-12)
    w = _weights(tuple(tout.shape), tout.is_complex())
    _loss(out, ctxgrad.tensor(w)).backward()
    _loss(tout, torch.tensor(w)).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_float32_gives_complex64_as_torch(case: Any) -> None:
    _, call, data = case
    dt = np.complex64 if np.iscomplexobj(data) else np.float32
    out = call(ctxgrad.fft, ctxgrad.tensor(data.astype(dt)))
    tout = call(torch.fft, torch.tensor(data.astype(dt)))
    assert str(out.dtype).split(".")[-1] == str(tout.dtype).split(".")[-1]
    np.testing.assert_allclose(out.numpy(), tout.resolve_conj().numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if c[0] in ("fft_complex", "rfft_odd", "irfft_odd_n", "hfft_n_ortho", "ihfft", "rfftn",
                                  "hfftn_s", "ihfftn_s")],
    ids=lambda c: c[0],
)  # fmt: skip
def test_gradcheck_double_backward_and_forward_mode(case: Any) -> None:
    _, call, data = case
    x = ctxgrad.tensor(data, requires_grad=True)

    def fn(t: Any) -> Any:
        return call(ctxgrad.fft, t)

    assert gradcheck(fn, (x,), check_forward_ad=True)
    assert gradgradcheck(fn, (x,))


def test_double_backward_matches_torch() -> None:
    data = _real(6)
    x = ctxgrad.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    (g,) = ctxgrad.autograd.grad(ctxgrad.fft.rfft(x).abs().pow(2).sum(), x, create_graph=True)
    (tg,) = torch.autograd.grad(torch.fft.rfft(tx).abs().pow(2).sum(), tx, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-10)
    (g * g).sum().backward()
    (tg * tg).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.resolve_conj().numpy(), rtol=1e-10)


def test_node_names_match_torch() -> None:
    x = ctxgrad.tensor(_real(4), requires_grad=True)
    tx = torch.tensor(_real(4), requires_grad=True)
    for name in ("fft", "rfft", "ifft", "hfft", "irfft"):
        got = type(getattr(ctxgrad.fft, name)(x).grad_fn).__name__
        expected = type(getattr(torch.fft, name)(tx).grad_fn).__name__
        assert got == expected, name


def test_integer_input_uses_the_default_dtype() -> None:
    out = ctxgrad.fft.fft(ctxgrad.tensor([1, 2, 3]))
    tout = torch.fft.fft(torch.tensor([1, 2, 3]))
    assert out.dtype == ctxgrad.complex64
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "call",
    [
        lambda f, t: f.fftfreq(5),
        lambda f, t: f.fftfreq(4, 0.25, dtype=t.float64),
        lambda f, t: f.rfftfreq(5, 0.5),
        lambda f, t: f.rfftfreq(8),
    ],
)
def test_frequencies_match_torch(call: Any) -> None:
    out, tout = call(ctxgrad.fft, ctxgrad), call(torch.fft, torch)
    assert str(out.dtype).split(".")[-1] == str(tout.dtype).split(".")[-1]
    np.testing.assert_allclose(out.numpy(), tout.numpy())


def test_shift_round_trip_and_integers() -> None:
    x = ctxgrad.arange(7)
    assert ctxgrad.fft.fftshift(x).tolist() == torch.fft.fftshift(torch.arange(7)).tolist()
    assert ctxgrad.fft.ifftshift(ctxgrad.fft.fftshift(x)).tolist() == x.tolist()


@pytest.mark.parametrize(
    "misuse",
    [
        lambda f, t: f.fft(t(_real(4)), norm="bad"),
        lambda f, t: f.fft(t(_real(4)), n=0),
        lambda f, t: f.fftn(t(_real(4, 6)), dim=(0, 0)),
        lambda f, t: f.fftn(t(_real(4, 6)), s=(3,), dim=(0, 1)),
        lambda f, t: f.fftn(t(_real(4, 6)), s=(2, 3, 4)),
        lambda f, t: f.rfft(t(_complex(3))),
        lambda f, t: f.ihfft(t(_complex(3))),
        lambda f, t: f.ihfft2(t(_complex(3, 3))),
        lambda f, t: f.rfft2(t(_complex(3, 3))),
        lambda f, t: f.irfft(t(_complex(1))),
        lambda f, t: f.irfft(t(_complex(3)), n=0),
        lambda f, t: f.fft(t(_real(4, 6)), dim=2),
        lambda f, t: f.fft2(t(_real(3))),
        lambda f, t: f.fft(t(1.0)),
    ],
)
def test_errors_match_torch(misuse: Any) -> None:
    with pytest.raises(Exception) as expected:
        misuse(torch.fft, torch.tensor)
    with pytest.raises(Exception) as got:
        misuse(ctxgrad.fft, ctxgrad.tensor)
    assert got.type is expected.type
    assert str(got.value) == str(expected.value)


@pytest.mark.filterwarnings("ignore:There is a performance drop")  # torch's vmap of ihfftn loops
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_vmap_matches_a_loop_and_torch(case: Any) -> None:
    _, call, data = case
    batch = np.stack([data, 2 * data + 1, -data])
    got = ctxgrad.func.vmap(lambda t: call(ctxgrad.fft, t))(ctxgrad.tensor(batch))
    loop = np.stack([call(ctxgrad.fft, ctxgrad.tensor(b)).numpy() for b in batch])
    expected = torch.func.vmap(lambda t: call(torch.fft, t))(torch.tensor(batch))
    np.testing.assert_allclose(got.numpy(), loop, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got.numpy(), expected.resolve_conj().numpy(), rtol=1e-10, atol=1e-12)
