"""The same Function under torch and under ctxgrad: :func:`compare_with_torch`
(``ctxgrad check --against-torch ops.py::Name``).

:func:`~ctxgrad.checks.check_function` says whether a Function is right by ctxgrad's own
measure (finite differences, ...).  This says whether it gives the same in torch: it runs
the Function on the same inputs in both libraries, with the same random grad_outputs,
and compares every output and every input gradient, naming the first difference (which
output or gradient, at which index, both values).  The torch side is

* the torch Function given as ``torch_function`` (the command line takes the one of the same
  name from the file run with the real torch, when the file imports torch: a Function
  written for torch and checked through ctxgrad's ``torch`` alias); or
* ``ctxgrad.bridge.to_torch(fn_cls)``: the ctxgrad Function run inside torch's autograd, as a
  torch model would use it.

torch is optional: it is imported when a comparison runs, and an ImportError says how to
install it.

    >>> import ctxgrad
    >>> from ctxgrad.autograd import Function
    >>> from ctxgrad.checks_torch import compare_with_torch
    >>> class Cube(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         (x,) = ctx.saved_tensors
    ...         return 3 * x * x * grad
    >>> report = compare_with_torch(Cube, (ctxgrad.tensor([0.5, -1.0]),))  # doctest: +SKIP
    >>> [(c.name, c.status) for c in report.checks]  # doctest: +SKIP
    [('torch-outputs', 'pass'), ('torch-gradients', 'pass')]
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxgrad._check_inputs import CheckedInputs, guess_arguments
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd._grad import as_tuple
from ctxgrad.autograd.function import Function
from ctxgrad.checks import (
    _TOLERANCES,
    CheckReport,
    Finding,
    _arg_name,
    _example_arguments,
    _Stop,
    _where,
)

__all__ = ["compare_with_torch", "torch_counterpart"]

_IMPORTS_TORCH = re.compile(r"^\s*(import torch\b|from torch\b)", re.MULTILINE)


def _import_torch() -> Any:
    from ctxgrad.bridge import _import_torch as import_torch

    return import_torch("ctxgrad check --against-torch")


def torch_counterpart(path: str, name: str) -> Any:
    """The torch Function called ``name`` that the file ``path`` defines when run with the
    real torch, or None when the file does not import torch or defines no such torch
    Function there (a ctxgrad Function: it is compared through the bridge).  A file that
    does not run with torch is a RuntimeError that says where it failed."""
    with open(path, encoding="utf-8") as file:
        source = file.read()
    if not _IMPORTS_TORCH.search(source):
        return None
    torch = _import_torch()
    namespace: dict[str, Any] = {"__name__": "_ctxgrad_against_torch", "__file__": path}
    try:
        exec(compile(source, path, "exec", dont_inherit=True), namespace)
    except Exception as exc:
        in_file = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
        where = f", at line {in_file[-1].lineno}" if in_file else ""
        raise RuntimeError(
            f"{path} imports torch, but running it with torch raised {type(exc).__name__}: {exc}{where}, so there "
            "is no torch Function to compare with"
        ) from exc
    found = namespace.get(name)
    if isinstance(found, type) and issubclass(found, torch.autograd.Function):
        return found
    return None


def _first_difference(got: np.ndarray[Any, Any], want: np.ndarray[Any, Any], rtol: float, atol: float) -> str | None:
    """How ``got`` (ctxgrad's) differs from ``want`` (torch's): shape, dtype kind, or the
    first element off by more than the tolerance; None when they agree."""
    if got.shape != want.shape:
        return f"shape {list(got.shape)} in ctxgrad, {list(want.shape)} in torch"
    if (got.dtype.kind == "c") != (want.dtype.kind == "c") or (got.dtype.kind in "fc") != (want.dtype.kind in "fc"):
        return f"dtype {got.dtype.name} in ctxgrad, {want.dtype.name} in torch"
    if got.dtype.kind not in "fc":
        off = got != want
    else:
        off = ~np.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
    if not off.any():
        return None
    index = tuple(int(i) for i in np.argwhere(off)[0])
    largest = float(np.abs(got.astype(np.complex128) - want.astype(np.complex128)).max())
    return (
        f"at index {list(index)}: ctxgrad {got[index].item()!r}, torch {want[index].item()!r} "
        f"({int(off.sum())} of {off.size} elements differ, the largest by {largest:.4g})"
    )


def compare_with_torch(
    fn_cls: type[Function],
    inputs: Sequence[Any] | None = None,
    *,
    torch_function: Any = None,
    dtype: str = "float64",
    seed: int = 0,
    guess_inputs: bool = False,
    report: CheckReport | None = None,
) -> CheckReport:
    """Run ``fn_cls`` under ctxgrad and under torch on the same inputs and compare.

    Args:
        fn_cls: a ctxgrad :class:`~ctxgrad.autograd.Function` subclass.
        inputs: the arguments of ``fn_cls.apply``; by default its example inputs (as
            :func:`~ctxgrad.checks.check_function` takes them).
        torch_function: the torch ``autograd.Function`` to compare with; by default
            ``ctxgrad.bridge.to_torch(fn_cls)``.
        dtype: the dtype the floating-point inputs are cast to (float64, float32,
            complex128, complex64).
        seed: the seed of the random ``grad_output`` values, the same in both libraries.
        guess_inputs: without example inputs, use those :func:`~ctxgrad.checks.check_function`
            guesses from ``forward``'s signature (the same ones, for the same seed).
        report: a report to add the two checks (``torch-outputs``, ``torch-gradients``) and
            their findings to (the command line adds them to the Function's); by default a
            new one.

    Returns:
        The report: a difference is the finding ``differs-from-torch`` (an output or a
        gradient, naming the first element that differs and both values); a side that
        raises, ``torch-raises`` or ``forward-raises``.
    """
    if not (isinstance(fn_cls, type) and issubclass(fn_cls, Function)):
        raise TypeError(f"compare_with_torch expects a ctxgrad Function subclass, but got {fn_cls!r}")
    torch = _import_torch()
    if torch_function is None:
        from ctxgrad.bridge import to_torch

        torch_function, against = to_torch(fn_cls), f"{fn_cls.__name__} through ctxgrad.bridge.to_torch"
    elif isinstance(torch_function, type) and issubclass(torch_function, torch.autograd.Function):
        against = f"the torch Function {torch_function.__qualname__}"
    else:
        raise TypeError(f"compare_with_torch: torch_function must be a torch.autograd.Function, not {torch_function!r}")
    np_dtype = np.dtype(dtype)
    report = CheckReport(fn_cls.__name__) if report is None else report
    name = fn_cls.__name__
    try:
        args = _example_arguments(fn_cls, inputs)
    except _Stop as exc:
        if guess_inputs:
            args = guess_arguments(fn_cls, np_dtype, seed)[0]
        else:
            return _no_inputs(report, str(exc))
    made = CheckedInputs(args, np_dtype)
    names = [n or f"args[{i}]" for i, n in enumerate(list(fn_cls._plan.slot_names) + [""] * len(args))][: len(args)]
    rtol, atol = _TOLERANCES.get(np.finfo(np_dtype).dtype.name, _TOLERANCES["float64"])[1:]

    # ctxgrad
    from ctxgrad.autograd import grad

    ours_in = made.fresh()
    try:
        ours = as_tuple(fn_cls.apply(*ours_in))
    except Exception as exc:
        return _raised(report, "ctxgrad", "forward-raises", f"{name}.apply", exc)
    rng = np.random.default_rng(seed)
    seeds = [
        rng.standard_normal(o._data.shape).astype(o._data.dtype) if isinstance(o, Tensor) and o._requires_grad else None
        for o in ours
    ]
    pairs = [(o, s) for o, s in zip(ours, seeds) if s is not None]
    checked = [ours_in[p] for p in made.checked]
    ours_grads: list[Any] = [None] * len(checked)
    if pairs:
        ours_grads = list(grad([o for o, _ in pairs], checked, [_wrap(s) for _, s in pairs], allow_unused=True))

    # torch, on the same values
    def as_torch(value: Any) -> Any:
        if not isinstance(value, Tensor):
            return value
        return torch.from_numpy(np.array(value._data, copy=True)).requires_grad_(value._requires_grad)

    theirs_in = [as_torch(a) for a in made.fresh()]
    try:
        theirs = as_tuple(torch_function.apply(*theirs_in))
        wanted = [(o, torch.from_numpy(s)) for o, s in zip(theirs, seeds) if s is not None]
        differentiable = [(o, s) for o, s in wanted if isinstance(o, torch.Tensor) and o.requires_grad]
        theirs_grads: list[Any] = [None] * len(checked)
        if differentiable:
            outs, grads_out = zip(*differentiable)
            theirs_grads = list(
                torch.autograd.grad(outs, [theirs_in[p] for p in made.checked], grads_out, allow_unused=True)
            )
    except Exception as exc:
        return _raised(report, "torch", "torch-raises", against, exc)

    # outputs: count, then each
    difference = None
    if len(ours) != len(theirs):
        difference = f"{name} returns {len(ours)} outputs in ctxgrad, {len(theirs)} in torch"
    else:
        for q, (a, b) in enumerate(zip(ours, theirs)):
            if isinstance(a, Tensor) != isinstance(b, torch.Tensor):
                difference = f"output {q} is a {type(a).__name__} in ctxgrad, a {type(b).__name__} in torch"
            elif isinstance(a, Tensor):
                how = _first_difference(a._data, b.detach().cpu().numpy(), rtol, atol)
                if how is None and a._requires_grad != b.requires_grad:
                    how = f"it requires grad in {'ctxgrad' if a._requires_grad else 'torch'} only"
                difference = None if how is None else f"output {q} differs {how}"
            if difference:
                break
    if difference:
        report._add("torch-outputs", "fail", difference)
        report._add("torch-gradients", "skip", "the outputs differ; fix that first")
        report.findings.append(_differs(name, against, difference))
        return report
    report._add("torch-outputs", "pass", f"the same {len(ours)} output{'s' * (len(ours) != 1)} under torch ({against})")
    for p, a, b in zip(made.checked, ours_grads, theirs_grads):
        a_array = None if a is None else a._data
        b_array = None if b is None else b.detach().cpu().numpy()
        if a_array is None and b_array is None:
            continue
        which = f"the gradient of {_arg_name(names, p)}"
        if a_array is None or b_array is None:
            difference = f"{which} is None in {'ctxgrad' if a_array is None else 'torch'} only"
        else:
            how = _first_difference(a_array, b_array, rtol, atol)
            difference = None if how is None else f"{which} differs {how}"
        if difference:
            break
    if difference:
        report._add("torch-gradients", "fail", difference)
        report.findings.append(_differs(name, against, difference))
        return report
    n = len(made.checked)
    report._add("torch-gradients", "pass", f"the same gradient{'s' * (n != 1)} for {n} input{'s' * (n != 1)}")
    return report


def _no_inputs(report: CheckReport, why: str) -> CheckReport:
    report._add("torch-outputs", "skip", "no example inputs")
    report._add("torch-gradients", "skip", "no example inputs")
    if report.finding("no-example-inputs") is None:
        report.findings.append(Finding("no-example-inputs", "error", why, "give example inputs"))
    return report


def _differs(name: str, against: str, difference: str) -> Finding:
    return Finding(
        "differs-from-torch",
        "error",
        f"{name} under ctxgrad and {against} under torch differ on the same inputs and grad_outputs: {difference}",
        "find which library's rule the op relies on (dtype promotion, memory layout, an op that differs: "
        "docs/differences.md) and write the op so that it does not",
    )


def _raised(report: CheckReport, side: str, finding: str, what: str, exc: BaseException) -> CheckReport:
    report._add("torch-outputs", "fail", f"{type(exc).__name__} under {side}")
    report._add("torch-gradients", "skip", f"{side} raised")
    report.findings.append(
        Finding(
            finding,
            "error",
            f"{what} raised {type(exc).__name__} under {side}: {exc}, in {_where(exc)}",
            f"make {what} run under {side}, or compare another Function",
        )
    )
    return report
