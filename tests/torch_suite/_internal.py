"""Small stand-ins for the helpers of ``torch.testing._internal`` that torch's ported test
files import (``common_utils``, ``common_device_type``, ``logging_tensor``).

They need no torch: the backend's module (``_suite.backend()``) provides the tensors, and
they behave as torch's helpers do where the kept tests can tell (``assertEqual``'s
dtype-based tolerances, parametrized test names, ``gradcheck``'s defaults).  What torch's
helpers do for CUDA, TorchScript, dynamo or other devices has no stand-in here.
"""

from __future__ import annotations

import enum
import itertools
import unittest
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from _suite import backend

__all__ = [
    "HardwareClassification",
    "LoggingTensor",
    "TestCase",
    "gradcheck",
    "gradgradcheck",
    "instantiate_device_type_tests",
    "instantiate_parametrized_tests",
    "parametrize",
    "run_tests",
    "skipIfTorchDynamo",
    "subtest",
]

# torch.testing._internal.common_utils.TestCase's default (rtol, atol) by dtype: the larger of
# the two tensors' when their dtypes differ.
_TOLERANCES = {
    np.dtype(np.float16): (1e-3, 1e-5),
    np.dtype(np.float32): (1.3e-6, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
    np.dtype(np.complex64): (1.3e-6, 1e-5),
    np.dtype(np.complex128): (1e-7, 1e-7),
}


def _is_tensor(value: Any) -> bool:
    return isinstance(value, backend().Tensor)


def _as_array(tensor: Any) -> np.ndarray[Any, Any]:
    tensor = tensor.detach()
    # torch's lazy conjugate and negative bits are resolved before reading the memory.
    for resolve in ("resolve_conj", "resolve_neg"):
        if hasattr(tensor, resolve):
            tensor = getattr(tensor, resolve)()
    return np.asarray(tensor.cpu().numpy())


def _mismatch(actual: Any, expected: Any, rtol: float | None, atol: float | None, exact_dtype: bool) -> str | None:
    """Why ``actual`` and ``expected`` are not equal as torch's ``assertEqual`` sees them, or
    None when they are."""
    if _is_tensor(actual) or _is_tensor(expected):
        if not (_is_tensor(actual) and _is_tensor(expected)):
            tensor, number = (actual, expected) if _is_tensor(actual) else (expected, actual)
            if not isinstance(number, (bool, int, float, complex)) or tensor.numel() != 1:
                return f"cannot compare a tensor of shape {tuple(tensor.shape)} with {number!r}"
            return _mismatch_arrays(_as_array(tensor).reshape(()), np.asarray(number), rtol, atol)
        if exact_dtype and actual.dtype != expected.dtype:
            return f"dtypes differ: {actual.dtype} != {expected.dtype}"
        if tuple(actual.shape) != tuple(expected.shape):
            return f"shapes differ: {tuple(actual.shape)} != {tuple(expected.shape)}"
        return _mismatch_arrays(_as_array(actual), _as_array(expected), rtol, atol)
    if isinstance(actual, (bool, int, float, complex)) and isinstance(expected, (bool, int, float, complex)):
        return _mismatch_arrays(np.asarray(actual), np.asarray(expected), rtol, atol)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            return f"keys differ: {sorted(map(str, actual))} != {sorted(map(str, expected))}"
        for key in actual:
            why = _mismatch(actual[key], expected[key], rtol, atol, exact_dtype)
            if why is not None:
                return f"at key {key!r}: {why}"
        return None
    sequence = (list, tuple)
    if isinstance(actual, sequence) and isinstance(expected, sequence):
        if len(actual) != len(expected):
            return f"lengths differ: {len(actual)} != {len(expected)}"
        for index, (a, e) in enumerate(zip(actual, expected)):
            why = _mismatch(a, e, rtol, atol, exact_dtype)
            if why is not None:
                return f"at index {index}: {why}"
        return None
    return None if actual == expected else f"{actual!r} != {expected!r}"


def _mismatch_arrays(
    actual: np.ndarray[Any, Any], expected: np.ndarray[Any, Any], rtol: float | None, atol: float | None
) -> str | None:
    default_rtol, default_atol = 0.0, 0.0
    for dtype in (actual.dtype, expected.dtype):
        dtype_rtol, dtype_atol = _TOLERANCES.get(dtype, (0.0, 0.0))
        default_rtol, default_atol = max(default_rtol, dtype_rtol), max(default_atol, dtype_atol)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    if actual.dtype == np.bool_ or expected.dtype == np.bool_:
        same = np.array_equal(actual, expected)
    else:
        same = bool(np.all(np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)))
    if same:
        return None
    return f"values differ beyond rtol={rtol}, atol={atol}:\n{actual}\n!=\n{expected}"


class TestCase(unittest.TestCase):
    """torch's ``common_utils.TestCase``: ``assertEqual`` compares tensors, numbers and
    nested sequences with dtype-based tolerances (``exact_dtype`` by default)."""

    def assertEqual(  # type: ignore[override]
        self,
        x: Any,
        y: Any,
        msg: str | None = None,
        *,
        atol: float | None = None,
        rtol: float | None = None,
        exact_dtype: bool = True,
        **_: Any,
    ) -> None:
        why = _mismatch(x, y, rtol, atol, exact_dtype)
        if why is not None:
            raise self.failureException(f"{msg}: {why}" if msg else why)

    def assertNotEqual(  # type: ignore[override]
        self,
        x: Any,
        y: Any,
        msg: str | None = None,
        *,
        atol: float | None = None,
        rtol: float | None = None,
        **_: Any,
    ) -> None:
        if _mismatch(x, y, rtol, atol, exact_dtype=True) is None:
            raise self.failureException(msg or f"expected values that differ, got equal ones: {x!r}")


def run_tests() -> None:
    unittest.main()


def gradcheck(fn: Callable[..., Any], inputs: Any, **kwargs: Any) -> bool:
    """torch's test wrapper: ``check_batched_grad`` and ``fast_mode`` on unless given."""
    for key in ("check_batched_grad", "fast_mode"):
        if kwargs.get(key) is None:
            kwargs[key] = True
    result: bool = backend().autograd.gradcheck(fn, inputs, **kwargs)
    return result


def gradgradcheck(fn: Callable[..., Any], inputs: Any, grad_outputs: Any = None, **kwargs: Any) -> bool:
    """torch's test wrapper: ``check_batched_grad`` and ``fast_mode`` on unless given."""
    for key in ("check_batched_grad", "fast_mode"):
        if kwargs.get(key) is None:
            kwargs[key] = True
    result: bool = backend().autograd.gradgradcheck(fn, inputs, grad_outputs, **kwargs)
    return result


def skipIfTorchDynamo(msg: str = "test doesn't currently work with dynamo") -> Callable[[Any], Any]:
    """The ported tests never run under dynamo: nothing to skip."""
    return lambda fn: fn


class HardwareClassification(enum.Enum):
    GENERIC = "generic"
    ACCELERATOR = "accelerator"


def LoggingTensor(*args: Any, **kwargs: Any) -> Any:
    raise NotImplementedError("LoggingTensor is a __torch_dispatch__ subclass of torch's: no stand-in")


class subtest:
    """One case of :func:`parametrize`, with its own name and decorators."""

    def __init__(self, arg_values: Any, name: str | None = None, decorators: Sequence[Any] | None = None) -> None:
        self.arg_values = arg_values
        self.name = name
        self.decorators = list(decorators or [])


def _value_name(arg_name: str, value: Any, index: int) -> str:
    if isinstance(value, (bool, int, float, str, type(None))):
        return f"{arg_name}_{str(value).replace('.', '_')}"
    return f"{arg_name}{index}"


# (test, name suffix, keyword arguments, decorators) for each case of a parametrized test.
_Case = tuple[str, dict[str, Any], list[Any]]


class parametrize:
    """torch's ``@parametrize("a,b", [...])``: :func:`instantiate_parametrized_tests` makes
    one test per case, named ``test_x_<outer>_<inner>`` when decorators are stacked."""

    def __init__(self, arg_str: str, arg_values: Sequence[Any], name_fn: Callable[..., str] | None = None) -> None:
        self.arg_names = [name.strip() for name in arg_str.split(",") if name.strip()]
        self.arg_values = list(arg_values)
        self.name_fn = name_fn

    def cases(self) -> Iterator[_Case]:
        for index, raw in enumerate(self.arg_values):
            case = raw if isinstance(raw, subtest) else subtest(raw)
            values = case.arg_values if len(self.arg_names) > 1 else (case.arg_values,)
            kwargs = dict(zip(self.arg_names, values))
            if case.name:
                name = case.name
            elif self.name_fn is not None:
                name = self.name_fn(*values)
            else:
                name = "_".join(_value_name(a, v, index) for a, v in kwargs.items())
            yield name, kwargs, case.decorators

    def __call__(self, fn: Any) -> Any:
        inner: list[parametrize] = getattr(fn, "_parametrizations", [])
        fn._parametrizations = [self, *inner]
        return fn


def instantiate_parametrized_tests(cls: type) -> type:
    for attr, fn in list(vars(cls).items()):
        layers: list[parametrize] | None = getattr(fn, "_parametrizations", None)
        if not layers:
            continue
        delattr(cls, attr)
        for combination in itertools.product(*(list(layer.cases()) for layer in layers)):
            suffix = "_".join(name for name, _, _ in combination if name)
            kwargs = {k: v for _, case_kwargs, _ in combination for k, v in case_kwargs.items()}

            def instantiated(self: Any, _test: Any = fn, _kwargs: dict[str, Any] = kwargs) -> Any:
                return _test(self, **_kwargs)

            for _, _, decorators in combination:
                for decorator in decorators:
                    instantiated = decorator(instantiated)
            name = f"{attr}_{suffix}" if suffix else attr
            instantiated.__name__ = instantiated.__qualname__ = name
            setattr(cls, name, instantiated)
    return cls


def instantiate_device_type_tests(
    generic: type,
    scope: dict[str, Any],
    except_for: str | Sequence[str] | None = None,
    only_for: str | Sequence[str] | None = None,
    **_: Any,
) -> None:
    """The CPU, the one device here: ``<Class>CPU`` with ``test_x_cpu`` tests, unless the
    CPU is excluded; the generic class leaves the scope, as torch's helper does."""
    scope.pop(generic.__name__, None)
    excluded = {except_for} if isinstance(except_for, str) else set(except_for or ())
    wanted = {only_for} if isinstance(only_for, str) else set(only_for or ("cpu",))
    if "cpu" in excluded or "cpu" not in wanted:
        return
    instantiate_parametrized_tests(generic)
    members: dict[str, Any] = {}
    for attr, fn in vars(generic).items():
        if attr.startswith("test") and callable(fn):

            def on_cpu(self: Any, _fn: Any = fn) -> Any:
                return _fn(self, "cpu")

            on_cpu.__name__ = f"{attr}_cpu"
            members[f"{attr}_cpu"] = on_cpu
            # The generic test takes a device: not a test of the CPU class itself.
            members[attr] = None
    name = f"{generic.__name__}CPU"
    scope[name] = type(name, (generic,), members)
