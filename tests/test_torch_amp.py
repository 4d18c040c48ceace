"""torch.amp as a CPU-only torch 2.13 answers it, against torch: ``autocast`` and its state,
``custom_fwd``/``custom_bwd``, ``GradScaler`` (enabled on the CPU, disabled for CUDA), and
``torch.cuda.amp``'s deprecated spellings."""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

LIBS = [ctxgrad, torch]


def _name(lib: Any) -> str:
    return lib.__name__


# --------------------------------------------------------------------------- autocast
@pytest.mark.torch_names("torch.amp.autocast", "torch.autocast", "torch.is_autocast_enabled", "torch.amp")
@pytest.mark.parametrize(
    ("kwargs", "inside"),
    [({}, True), ({"dtype": "bfloat16"}, True), ({"enabled": False}, False), ({"dtype": "float16"}, True)],
)
def test_cpu_autocast_reports_its_state_as_torch(kwargs: dict[str, Any], inside: bool) -> None:
    for lib in LIBS:
        args = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        assert not lib.is_autocast_enabled("cpu")
        with lib.amp.autocast("cpu", **args):
            assert lib.is_autocast_enabled("cpu") is inside
            assert lib.is_autocast_enabled() is False  # without a device type: CUDA's
            assert repr(lib.get_autocast_dtype("cpu")).split(".")[-1] == kwargs.get("dtype", "bfloat16")
        assert not lib.is_autocast_enabled("cpu")
        with lib.autocast("cpu", **args):
            assert lib.is_autocast_enabled("cpu") is inside


@pytest.mark.torch_names("torch.amp.autocast", "torch.autocast")
def test_cpu_autocast_with_float32_warns_and_disables_itself_as_torch() -> None:
    messages = []
    for lib in LIBS:
        with pytest.warns(UserWarning) as record:
            block = lib.amp.autocast("cpu", dtype=lib.float32)
        with block:
            assert not lib.is_autocast_enabled("cpu")
        messages.append(str(record[0].message).replace("ctxgrad", "torch"))
    assert messages[0] == messages[1]


@pytest.mark.torch_names("torch.amp.autocast", "torch.amp.autocast(enabled=)", "torch.amp.autocast(device_type=)")
def test_autocast_keeps_float32_values_as_a_no_op_when_disabled_and_as_a_decorator() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)
    results = []
    for lib in LIBS:

        @lib.amp.autocast(device_type="cpu", enabled=False)
        def product(x: Any, y: Any) -> Any:
            return x @ y

        x = lib.tensor(a, requires_grad=True)
        out = product(x, lib.tensor(b))
        out.sum().backward()
        assert str(out.dtype).endswith("float32")
        results.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


@pytest.mark.torch_names("torch.amp.autocast")
def test_bfloat16_autocast_computes_in_float32_where_torch_uses_bfloat16() -> None:
    a = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        theirs = torch.tensor(a) @ torch.tensor(a.T)
    with ctxgrad.autocast("cpu", dtype=ctxgrad.bfloat16):
        ours = ctxgrad.tensor(a) @ ctxgrad.tensor(a.T)
    assert theirs.dtype == torch.bfloat16 and ours.dtype == ctxgrad.float32  # docs/differences.md
    np.testing.assert_allclose(ours.numpy(), theirs.float().numpy(), rtol=2e-2, atol=2e-2)


@pytest.mark.torch_names("torch.is_autocast_cpu_enabled", "torch.is_autocast_enabled")
def test_is_autocast_cpu_enabled_is_deprecated_as_torch() -> None:
    for lib in LIBS:
        with pytest.warns(DeprecationWarning, match="is_autocast_cpu_enabled"):
            assert lib.is_autocast_cpu_enabled() is False
        with lib.autocast("cpu"), pytest.warns(DeprecationWarning):
            assert lib.is_autocast_cpu_enabled() is True


@pytest.mark.torch_names("torch.amp.autocast")
def test_autocast_refuses_a_device_type_that_is_not_a_string_as_torch() -> None:
    errors = []
    for lib in LIBS:
        with pytest.raises(ValueError) as info:
            lib.amp.autocast(3)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


# --------------------------------------------------------------------------- bfloat16
@pytest.mark.torch_names("torch.bfloat16")
def test_bfloat16_is_a_name_whose_tensors_are_refused_naming_why() -> None:
    assert torch.ones(2).to(torch.bfloat16).dtype == torch.bfloat16
    assert repr(ctxgrad.bfloat16) == "ctxgrad.bfloat16" and ctxgrad.bfloat16.is_floating_point
    assert ctxgrad.bfloat16.itemsize == torch.bfloat16.itemsize == 2
    for make in (lambda: ctxgrad.ones(2).to(ctxgrad.bfloat16), lambda: ctxgrad.zeros(2, dtype=ctxgrad.bfloat16)):
        with pytest.raises(TypeError, match=r"ctxgrad has no bfloat16 tensors: NumPy has no bfloat16 type.*float32"):
            make()


# --------------------------------------------------------------------------- custom_fwd / custom_bwd
def _scaled_exp(lib: Any, **fwd_kwargs: Any) -> Any:
    seen: dict[str, Any] = {}

    class ScaledExp(lib.autograd.Function):
        @staticmethod
        @lib.amp.custom_fwd(device_type="cpu", **fwd_kwargs)
        def forward(ctx: Any, x: Any) -> Any:
            seen["forward"] = (lib.is_autocast_enabled("cpu"), str(x.dtype).split(".")[-1])
            out = x.exp()
            ctx.save_for_backward(out)
            return out * 2

        @staticmethod
        @lib.amp.custom_bwd(device_type="cpu")
        def backward(ctx: Any, grad: Any) -> Any:
            seen["backward"] = lib.is_autocast_enabled("cpu")
            (out,) = ctx.saved_tensors
            return grad * out * 2

    return ScaledExp, seen


@pytest.mark.torch_names("torch.amp.custom_fwd", "torch.amp.custom_bwd")
@pytest.mark.parametrize("under_autocast", [False, True])
@pytest.mark.parametrize("cast", [None, "float64"])
def test_custom_fwd_and_bwd_see_the_autocast_state_as_torch(under_autocast: bool, cast: str | None) -> None:
    results = []
    for lib in LIBS:
        kwargs = {} if cast is None else {"cast_inputs": getattr(lib, cast)}
        function, seen = _scaled_exp(lib, **kwargs)
        x = lib.tensor([0.5, -1.0], requires_grad=True)
        with lib.autocast("cpu", enabled=under_autocast):
            out = function.apply(x)
        out.sum().backward()
        results.append((seen, str(out.dtype).split(".")[-1], out.detach().numpy(), x.grad.numpy()))
    assert results[0][0] == results[1][0]
    assert results[0][1] == results[1][1]
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-6)
    np.testing.assert_allclose(results[0][3], results[1][3], rtol=1e-6)


@pytest.mark.torch_names("torch.amp.custom_fwd")
def test_custom_fwd_needs_a_device_type_as_torch() -> None:
    for lib in LIBS:
        with pytest.raises(TypeError, match="device_type"):
            lib.amp.custom_fwd(lambda ctx, x: x)
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.amp.custom_fwd(device_type=1)


# --------------------------------------------------------------------------- GradScaler
def _train(lib: Any, scaler: Any, losses: list[float], steps_with_inf: set[int]) -> dict[str, Any]:
    w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
    opt = lib.optim.SGD([w], lr=0.1)
    scales, stepped = [], []
    for i, factor in enumerate(losses):
        opt.zero_grad()
        loss = (w * w).sum() * factor
        if i in steps_with_inf:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        before = w.detach().clone()
        scaler.step(opt)
        scaler.update()
        stepped.append(not bool((w.detach() == before).all()))
        scales.append(scaler.get_scale())
    return {"w": w.detach().numpy().tolist(), "scales": scales, "stepped": stepped, "state": scaler.state_dict()}


@pytest.mark.torch_names("torch.amp.GradScaler", "torch.cuda.amp.GradScaler")
@pytest.mark.parametrize("inf_steps", [set(), {1}, {0, 3}])
def test_an_enabled_cpu_grad_scaler_trains_as_torchs(inf_steps: set[int]) -> None:
    runs = [
        _train(lib, lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2), [1.0, 0.5, 2.0, 1.0, 1.0], inf_steps)
        for lib in LIBS
    ]
    assert runs[0]["scales"] == runs[1]["scales"]
    assert runs[0]["stepped"] == runs[1]["stepped"]
    assert runs[0]["state"] == runs[1]["state"]
    np.testing.assert_allclose(runs[0]["w"], runs[1]["w"], rtol=1e-6)


@pytest.mark.torch_names("torch.amp.GradScaler")
def test_grad_scaler_scale_unscale_and_errors_as_torch() -> None:
    seen = []
    for lib in LIBS:
        scaler = lib.amp.GradScaler("cpu", init_scale=8.0)
        w = lib.nn.Parameter(lib.tensor([1.0, 3.0]))
        opt = lib.optim.SGD([w], lr=0.1)
        scaled = scaler.scale((w * w).sum())
        nested = scaler.scale([lib.tensor(1.0), (lib.tensor(2.0),)])
        scaled.backward()
        grad_scaled = w.grad.tolist()
        scaler.unscale_(opt)
        errors = []
        for call in (functools.partial(scaler.unscale_, opt), functools.partial(scaler.scale, 3.0)):
            with pytest.raises((RuntimeError, ValueError)) as info:
                call()
            errors.append((type(info.value).__name__, str(info.value)))
        scaler.step(opt)
        with pytest.raises(RuntimeError) as info:
            scaler.step(opt)
        errors.append((type(info.value).__name__, str(info.value)))
        scaler.update(new_scale=2.0)
        seen.append(
            (scaled.item(), [nested[0].item(), nested[1][0].item()], grad_scaled, w.grad.tolist(), errors)
            + (scaler.get_scale(), w.detach().tolist())
        )
    assert seen[0] == seen[1]


@pytest.mark.torch_names("torch.amp.GradScaler")
def test_a_disabled_grad_scaler_passes_everything_through_as_torch() -> None:
    seen = []
    for lib in LIBS:
        scaler = lib.amp.GradScaler("cpu", enabled=False)
        w = lib.nn.Parameter(lib.tensor([1.0, 2.0]))
        opt = lib.optim.SGD([w], lr=0.1)
        loss = (w * w).sum()
        assert scaler.scale(loss) is loss
        loss.backward()
        seen.append((scaler.step(opt), scaler.update(), scaler.unscale_(opt), scaler.get_scale()))
        seen.append((scaler.state_dict(), scaler.is_enabled(), w.detach().tolist()))
    assert seen[0] == seen[2] and seen[1] == seen[3]


@pytest.mark.torch_names("torch.amp.GradScaler", "torch.cuda.amp.GradScaler")
def test_a_cuda_grad_scaler_warns_and_disables_itself_as_a_cpu_only_torch() -> None:
    messages = []
    for lib in LIBS:
        with pytest.warns(UserWarning) as record:
            scaler = lib.amp.GradScaler()
        messages.append(str(record[-1].message).replace("ctxgrad", "torch"))
        assert not scaler.is_enabled() and scaler.get_scale() == 1.0
        with pytest.warns(FutureWarning, match="GradScaler"), warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            assert not lib.cuda.amp.GradScaler().is_enabled()
    assert messages[0] == messages[1]


@pytest.mark.torch_names("torch.amp.GradScaler")
def test_grad_scaler_state_dict_round_trips_and_refuses_an_empty_one_as_torch() -> None:
    for lib in LIBS:
        source = lib.amp.GradScaler("cpu", init_scale=16.0, growth_interval=7)
        target = lib.amp.GradScaler("cpu")
        target.load_state_dict(source.state_dict())
        assert target.state_dict() == source.state_dict()
        with pytest.raises(RuntimeError, match="The source state dict is empty"):
            target.load_state_dict({})


@pytest.mark.torch_names("torch.cuda.amp.autocast")
def test_cuda_amp_autocast_is_deprecated_and_disabled_as_torch() -> None:
    for lib in LIBS:
        with pytest.warns(FutureWarning, match=r"cuda\.amp\.autocast\(args...\)` is deprecated"):
            with pytest.warns(UserWarning, match="CUDA is not available"):
                block = lib.cuda.amp.autocast()
        with block:
            assert lib.is_autocast_enabled() is False
        assert isinstance(block, lib.amp.autocast)


@pytest.mark.torch_names("torch.amp.autocast")
def test_amp_is_autocast_available_as_torch() -> None:
    for device_type in ("cpu", "cuda"):
        assert ctxgrad.amp.is_autocast_available(device_type) == torch.amp.is_autocast_available(device_type)
