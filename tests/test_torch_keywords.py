"""Keywords torch's functions and classes take that a ported program passes, run side by side
with torch on the same code: the conversions' ``memory_format=``, ``DataLoader``'s worker
options, ``save``'s format switches, ``Module.modules(remove_duplicate=)``,
``register_forward_hook(always_call=)`` and the bound constraints' keyword names."""

from __future__ import annotations

import inspect
import io
import re
import warnings
from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

torch = pytest.importorskip("torch")

LIBS = (ctxgrad, torch)


def _error(call: Callable[[], Any]) -> tuple[str, str]:
    try:
        call()
    except Exception as exc:
        return type(exc).__name__, str(exc)
    raise AssertionError("no error")


# ------------------------------------------------------------------------------------ conversions
CONVERSIONS = ("bool", "byte", "cdouble", "cfloat", "cpu", "double", "float", "half", "int", "long")


@pytest.mark.parametrize("name", CONVERSIONS)
@pytest.mark.parametrize("fmt", ["preserve_format", "contiguous_format", "channels_last"])
def test_a_conversion_takes_memory_format_as_torch(name: str, fmt: str) -> None:
    seen = []
    for lib in LIBS:
        contiguous = lib.arange(24.0).reshape(1, 2, 3, 4)
        for x in (contiguous, contiguous.contiguous(memory_format=lib.channels_last), contiguous.permute(0, 2, 1, 3)):
            y = getattr(x, name)(memory_format=getattr(lib, fmt))
            seen.append((y is x, tuple(y.stride()), str(y.dtype).split(".")[-1], y.tolist() == x.tolist()))
    assert seen[:3] == seen[3:]


@pytest.mark.parametrize("name", ["float", "long", "cpu"])
def test_a_conversion_refuses_what_is_not_a_memory_format_as_torch(name: str) -> None:
    ours, theirs = (_error(lambda lib=lib: getattr(lib.zeros(2), name)(memory_format="x")) for lib in LIBS)
    assert ours[0] == theirs[0] == "TypeError"
    assert ours[1] == theirs[1].replace("torch.memory_format", "ctxgrad.memory_format")
    ours, theirs = (_error(lambda lib=lib: lib.zeros(2).float(lib.preserve_format)) for lib in LIBS)
    assert ours[0] == theirs[0] == "TypeError"  # (keyword only, in both)


def test_a_conversion_to_the_same_dtype_is_the_tensor_itself_whatever_the_format_as_torch() -> None:
    for lib in LIBS:
        x = lib.zeros(2, 3).t()
        assert x.float(memory_format=lib.contiguous_format) is x
        assert x.cpu(memory_format=lib.contiguous_format) is x


@pytest.mark.parametrize("fmt", ["preserve_format", "contiguous_format", "channels_last"])
@pytest.mark.parametrize("dtype", [None, "float32", "float64"])
def test_to_follows_the_conversions_rule_for_the_layout_as_torch(fmt: str, dtype: str | None) -> None:
    seen = []
    for lib in LIBS:
        contiguous = lib.arange(24.0).reshape(1, 2, 3, 4)
        tried = (
            contiguous,
            contiguous.contiguous(memory_format=lib.channels_last),
            contiguous.permute(0, 2, 1, 3),
            lib.zeros(2, 3).t(),
        )
        for x in tried:
            if fmt == "channels_last" and x.dim() != 4:
                continue
            args = () if dtype is None else (getattr(lib, dtype),)
            y = x.to(*args, memory_format=getattr(lib, fmt))
            seen.append((y is x, tuple(y.stride()), str(y.dtype).split(".")[-1], y.tolist() == x.tolist()))
    half = len(seen) // 2
    assert seen[:half] == seen[half:]


# ------------------------------------------------------------------------------------ DataLoader
@pytest.mark.parametrize(
    "options",
    [
        {"prefetch_factor": 2},
        {"persistent_workers": True},
        {"multiprocessing_context": "spawn"},
        {"num_workers": 2, "multiprocessing_context": "not-a-method"},
        {"num_workers": 2, "multiprocessing_context": 3},
        {"num_workers": 2, "prefetch_factor": -1},
    ],
    ids=[
        "prefetch-without-workers",
        "persistent-without-workers",
        "context-without-workers",
        "bad-method",
        "bad-context",
        "negative-prefetch",
    ],
)
def test_dataloader_refuses_worker_options_as_torch(options: dict[str, Any]) -> None:
    ours, theirs = (_error(lambda lib=lib: lib.utils.data.DataLoader(list(range(6)), **options)) for lib in LIBS)
    assert ours == theirs


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"num_workers": 2},
        {"num_workers": 2, "persistent_workers": True, "prefetch_factor": 4},
        {"num_workers": 2, "multiprocessing_context": "spawn"},
        {"pin_memory_device": "cuda", "in_order": False},
    ],
    ids=["default", "workers", "persistent", "context", "device-order"],
)
def test_dataloader_keeps_worker_options_as_torch_and_yields_the_same_batches(options: dict[str, Any]) -> None:
    seen = []
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(list(range(6)), batch_size=4, **options)
        context = loader.multiprocessing_context
        seen.append(
            (
                loader.prefetch_factor,
                loader.persistent_workers,
                loader.pin_memory_device,
                loader.in_order,
                None if context is None else context.get_start_method(),
                [batch.tolist() for batch in loader] if not options.get("num_workers") else None,
            )
        )
    assert seen[0] == seen[1]


def test_dataloader_with_workers_yields_the_batches_in_this_process() -> None:
    loader = ctxgrad.utils.data.DataLoader(list(range(6)), batch_size=4, num_workers=2, persistent_workers=True)
    assert [batch.tolist() for batch in loader] == [[0, 1, 2, 3], [4, 5]]


# ------------------------------------------------------------------------------------ save
@pytest.mark.parametrize("zipfile", [True, False])
def test_save_takes_torchs_format_switches(zipfile: bool) -> None:
    for lib in LIBS:
        buffer = io.BytesIO()
        lib.save(
            {"w": lib.tensor([1.0, 2.0])},
            buffer,
            _use_new_zipfile_serialization=zipfile,
            _disable_byteorder_record=not zipfile,
        )
        buffer.seek(0)
        assert lib.load(buffer)["w"].tolist() == [1.0, 2.0]


# ------------------------------------------------------------------------------------ modules
def test_modules_remove_duplicate_as_torch() -> None:
    seen = []
    for lib in LIBS:
        shared = lib.nn.Linear(2, 2)
        net = lib.nn.Sequential(shared, lib.nn.ReLU(), shared)
        seen.append(
            (
                [type(m).__name__ for m in net.modules()],
                [type(m).__name__ for m in net.modules(remove_duplicate=False)],
            )
        )
    assert seen[0] == seen[1]
    assert seen[0][1] == ["Sequential", "Linear", "ReLU", "Linear"]


# ------------------------------------------------------------------------------------ always_call
class _Fails:
    """A module whose forward raises, made for each library."""

    @staticmethod
    def make(lib: Any) -> Any:
        class Failing(lib.nn.Module):  # type: ignore[misc,name-defined]
            def forward(self, x: Any) -> Any:
                raise ValueError("forward failed")

        return Failing()


def test_forward_hook_always_call_runs_when_forward_raises_as_torch() -> None:
    logs = []
    for lib in LIBS:
        log: list[Any] = []
        module = _Fails.make(lib)
        module.register_forward_hook(lambda m, args, out, log=log: log.append(("plain", out)))
        module.register_forward_hook(lambda m, args, out, log=log: log.append(("always", out)), always_call=True)
        module.register_forward_hook(
            lambda m, args, kwargs, out, log=log: log.append(("always-kwargs", sorted(kwargs), out)),
            with_kwargs=True,
            always_call=True,
        )
        with pytest.raises(ValueError, match="forward failed"):
            module(lib.zeros(1))
        logs.append(log)
    assert logs[0] == logs[1] == [("always", None), ("always-kwargs", [], None)]


def test_an_always_call_hook_that_raises_in_turn_is_a_warning_as_torch() -> None:
    messages = []
    for lib in LIBS:
        module = _Fails.make(lib)

        def broken(m: Any, args: Any, out: Any) -> None:
            raise RuntimeError("hook failed too")

        module.register_forward_hook(broken, always_call=True)
        with warnings.catch_warnings(record=True) as caught, pytest.raises(ValueError, match="forward failed"):
            warnings.simplefilter("always")
            module(lib.zeros(1))
        messages.append([str(w.message) for w in caught])
    assert (
        messages[0]
        == messages[1]
        == [
            "module forward hook with ``always_call=True`` raised an exception that was silenced as another error "
            "was raised in forward: hook failed too"
        ]
    )


def test_always_call_hooks_run_once_when_a_later_hook_raises() -> None:
    logs = []
    for lib in LIBS:
        log: list[str] = []
        module = lib.nn.Identity()
        module.register_forward_hook(lambda m, a, o, log=log: log.append("always"), always_call=True)

        def failing(m: Any, a: Any, o: Any) -> None:
            raise KeyError("late")

        module.register_forward_hook(failing)
        with pytest.raises(KeyError):
            module(lib.zeros(1))
        logs.append(log)
    assert logs[0] == logs[1] == ["always"]


# ------------------------------------------------------------------------------------ constraints
@pytest.mark.parametrize(
    "make",
    [
        lambda c: c.less_than(upper_bound=1.0),
        lambda c: c.greater_than(lower_bound=0.5),
        lambda c: c.greater_than_eq(lower_bound=0.5),
    ],
    ids=["less_than", "greater_than", "greater_than_eq"],
)
def test_bound_constraints_take_torchs_keyword_names(make: Callable[[Any], Any]) -> None:
    checks = []
    for lib in LIBS:
        constraint = make(lib.distributions.constraints)
        checks.append(constraint.check(lib.tensor([0.0, 0.5, 2.0])).tolist())
    assert checks[0] == checks[1]


# ------------------------------------------------------------------------------------ out= of linalg, fft, special
def _documented_keywords(fn: Any, module: str, name: str) -> set[str]:
    """The keywords of the signature lines of torch's docstring for ``module.name``."""
    found: set[str] = set()
    for line in (fn.__doc__ or "").splitlines()[:8]:
        if re.match(rf"\s*((torch\.)?{module}\.)?{name}\(", line):
            found |= set(re.findall(r"(\w+)=", line))
    return found


@pytest.mark.parametrize("module", ["linalg", "fft", "special"])
def test_every_function_of_linalg_fft_and_special_takes_torchs_keywords(module: str) -> None:
    theirs, ours = getattr(torch, module), getattr(ctxgrad, module)
    lacking = {}
    for name in dir(theirs):
        fn, mine = getattr(theirs, name), getattr(ours, name, None)
        if name.startswith("_") or mine is None or not callable(fn) or inspect.isclass(fn):
            continue
        missing = _documented_keywords(fn, module, name) - set(inspect.signature(mine).parameters)
        if missing:
            lacking[name] = sorted(missing)
    assert lacking == {}


OUT_CALLS: dict[str, Callable[[Any, Any], Any]] = {
    "linalg.inv": lambda lib, out: lib.linalg.inv(lib.tensor([[2.0, 1.0], [1.0, 3.0]]), out=out),
    "linalg.det": lambda lib, out: lib.linalg.det(lib.tensor([[2.0, 1.0], [1.0, 3.0]]), out=out),
    "linalg.vector_norm": lambda lib, out: lib.linalg.vector_norm(lib.tensor([3.0, 4.0]), out=out),
    "linalg.matrix_power": lambda lib, out: lib.linalg.matrix_power(lib.tensor([[1.0, 1.0], [0.0, 1.0]]), 3, out=out),
    "fft.rfft": lambda lib, out: lib.fft.rfft(lib.tensor([1.0, 2.0, 3.0, 4.0]), out=out),
    "fft.irfft": lambda lib, out: lib.fft.irfft(lib.tensor([10.0, -2.0, -2.0]), out=out),
    "fft.fftfreq": lambda lib, out: lib.fft.fftfreq(4, out=out),
    "special.erf": lambda lib, out: lib.special.erf(lib.tensor([0.0, 0.5]), out=out),
    "special.ndtr": lambda lib, out: lib.special.ndtr(lib.tensor([0.0, 1.0]), out=out),
    "special.xlog1py": lambda lib, out: lib.special.xlog1py(lib.tensor([1.0, 2.0]), lib.tensor([0.5, 1.0]), out=out),
    "special.logsumexp": lambda lib, out: lib.special.logsumexp(lib.tensor([[1.0, 2.0]]), 1, out=out),
    "special.multigammaln": lambda lib, out: lib.special.multigammaln(lib.tensor([2.0, 3.0]), 2, out=out),
}


@pytest.mark.parametrize("name", sorted(OUT_CALLS))
def test_out_of_linalg_fft_and_special_is_written_and_returned_as_torch(name: str) -> None:
    got = []
    for lib in LIBS:
        complex_result = name in ("fft.rfft",)
        out = lib.empty(0, dtype=lib.complex64 if complex_result else lib.float32)
        made = OUT_CALLS[name](lib, out)
        assert made is out
        got.append((tuple(out.shape), str(out.dtype).split(".")[-1], out.numpy().round(5).tolist()))
    assert got[0] == got[1]


def test_out_of_a_linalg_function_with_several_results_is_a_tuple_as_torch() -> None:
    got = []
    for lib in LIBS:
        outs = (lib.empty(0), lib.empty(0))
        result = lib.linalg.qr(lib.tensor([[3.0, 1.0], [4.0, 2.0]]), out=outs)
        assert result[0] is outs[0] and result[1] is outs[1]
        got.append((type(result).__name__, [o.abs().numpy().round(5).tolist() for o in outs]))
    assert got[0] == got[1]


@pytest.mark.parametrize("name", ["linalg.inv", "special.erf", "fft.rfft"])
def test_out_of_linalg_fft_and_special_refuses_grad_as_torch(name: str) -> None:
    kinds = []
    for lib in LIBS:
        out = lib.empty(0, dtype=lib.complex64 if name == "fft.rfft" else lib.float32, requires_grad=True)
        with pytest.raises(RuntimeError) as caught:
            OUT_CALLS[name](lib, out)
        kinds.append(str(caught.value).split("(): ", 1)[1])
    assert kinds[0] == kinds[1]
