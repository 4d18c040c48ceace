"""``ctxgrad.amp``: torch.amp's mixed-precision names as a CPU-only torch answers them.

* :class:`autocast` (also ``ctxgrad.autocast``) takes torch's arguments, checks them as torch
  does and reports its state to :func:`ctxgrad.is_autocast_enabled`; the ops inside compute
  in their inputs' dtypes (float32 where torch's CPU autocast would use bfloat16, which
  ctxgrad does not have: docs/differences.md).
* :func:`custom_fwd` and :func:`custom_bwd` decorate a Function's ``forward`` and
  ``backward`` as torch's do: with ``cast_inputs``, floating-point inputs are converted and
  ``forward`` runs with autocast off; ``backward`` runs under the autocast state ``forward``
  saw.
* :class:`GradScaler` is torch's loss scaler: on the CPU (``GradScaler("cpu")``) it scales
  the loss, unscales the gradients, skips a step whose gradients are not finite and grows or
  backs off its scale, as torch's; for ``"cuda"`` it warns and disables itself, as a
  CPU-only torch.

>>> import ctxgrad
>>> w = ctxgrad.nn.Parameter(ctxgrad.tensor([1.0, 2.0]))
>>> opt = ctxgrad.optim.SGD([w], lr=0.1)
>>> scaler = ctxgrad.amp.GradScaler("cpu", init_scale=4.0)
>>> scaler.scale((w * w).sum()).backward()
>>> w.grad  # scaled by 4
tensor([ 8., 16.])
>>> scaler.step(opt)  # unscales, then steps
>>> scaler.update()
>>> w.detach()
tensor([0.8000, 1.6000])
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterable
from enum import Enum
from typing import Any, TypeVar

from ctxgrad._device import DEVICE_TYPES
from ctxgrad._runtime import autocast, get_autocast_dtype, is_autocast_enabled
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.grad_mode import no_grad

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]

F = TypeVar("F", bound=Callable[..., Any])


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast accepts ``device_type`` (the CPU and CUDA, as torch)."""
    return device_type in ("cpu", "cuda")


def _check_device_type(device_type: Any) -> None:
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")


def _cast(value: Any, dtype: Any) -> Any:
    """Floating-point tensors in ``value`` (a tensor, or a container of them) converted to ``dtype``."""
    if isinstance(value, Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, dict):
        return {k: _cast(v, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    return value


def custom_fwd(fwd: F | None = None, *, device_type: str, cast_inputs: Any = None) -> Any:
    """Decorate a Function's ``forward`` (see the module's docstring)."""
    _check_device_type(device_type)
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)
    forward = fwd

    @functools.wraps(forward)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        ctx._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            ctx._fwd_used_autocast = is_autocast_enabled(device_type)
            return forward(*args, **kwargs)
        ctx._fwd_used_autocast = False
        if not is_autocast_enabled(device_type):
            return forward(*args, **kwargs)
        with autocast(device_type=device_type, enabled=False):
            return forward(*_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))

    return decorate_fwd


def custom_bwd(bwd: F | None = None, *, device_type: str) -> Any:
    """Decorate a Function's ``backward``: it runs under the autocast state ``forward`` saw."""
    _check_device_type(device_type)
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    backward = bwd

    @functools.wraps(backward)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        with autocast(device_type=device_type, enabled=ctx._fwd_used_autocast, dtype=ctx._dtype):
            return backward(*args, **kwargs)

    return decorate_bwd


class _Stage(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


class GradScaler:
    """torch's gradient scaler (``torch.amp.GradScaler``): see the module's docstring.

    The scale is a float32 tensor, as torch's, so that ``scale(loss)`` multiplies in float32;
    an optimizer's gradients are unscaled once per step, in place, and a step is skipped when
    one of them is infinite or NaN.
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        if device.split(":")[0] not in DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: {device}"
            )
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn(
                "ctxgrad.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2
            )
            self._enabled = False
        if self._enabled:
            if not growth_factor > 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if not backoff_factor < 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale: Tensor | None = None
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    # ----------------------------------------------------------------- scaling
    def _scale_tensor(self) -> Tensor:
        if self._scale is None:
            from ctxgrad._factories import full

            self._scale = full((), self._init_scale, dtype="float32")
        return self._scale

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or an iterable of them) multiplied by the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale_tensor()

        def scaled(value: Any) -> Any:
            if isinstance(value, Tensor):
                return value * self._scale_tensor()
            if isinstance(value, Iterable):
                iterator = map(scaled, value)
                return type(value)(iterator) if isinstance(value, (list, tuple)) else iterator
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return scaled(outputs)

    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _Stage.READY, "found_inf": None})

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place (once per step)."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] is _Stage.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # torch: the reciprocal in float64, then float32
        inverse = self._scale_tensor().double().reciprocal().float()
        found_inf, checked = False, 0
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inverse.to(p.grad.dtype))
                    found_inf = found_inf or not bool(p.grad.isfinite().all())
                    checked += 1
        state["found_inf"] = found_inf if checked else None
        state["stage"] = _Stage.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale the gradients (if :meth:`unscale_` was not called), then ``optimizer.step()``
        unless a gradient is infinite or NaN; returns what ``step`` returned (None if skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _Stage.READY:
            self.unscale_(optimizer)
        if state["found_inf"] is None:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _Stage.STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Set the scale for the next iteration: ``new_scale``, or the scale times
        ``backoff_factor`` if a step was skipped, times ``growth_factor`` after
        ``growth_interval`` steps in a row that were not."""
        if not self._enabled:
            return
        scale = self._scale_tensor()
        if new_scale is not None:
            value = float(new_scale.item() if isinstance(new_scale, Tensor) else new_scale)
            with no_grad():
                scale.fill_(value)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            with no_grad():
                if any(found):
                    scale.mul_(self._backoff_factor)
                    self._growth_tracker = 0
                else:
                    self._growth_tracker += 1
                    if self._growth_tracker == self._growth_interval:
                        grown = float(scale.item()) * self._growth_factor
                        if math.isfinite(grown):  # torch keeps the scale rather than overflow it
                            scale.fill_(grown)
                        self._growth_tracker = 0
        self._per_optimizer = {}

    # ----------------------------------------------------------------- settings and state
    def get_scale(self) -> float:
        """The scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def is_enabled(self) -> bool:
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """The scale and the settings (``{}`` when disabled), as torch's."""
        if not self._enabled:
            return {}
        return {
            "scale": self.get_scale(),
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take back what :meth:`state_dict` gave."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler."
            )
        self._init_scale = state_dict["scale"]
        self._scale = None
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
