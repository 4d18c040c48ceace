"""Per op: forward + backward of every op table row on a small input, as a ratio to torch.

The inputs and the code are the op test kit's cases (``tests/_opcheck.py``: every case of every
op family, the ones ``tests/_torch_reference.py`` stores torch's numbers for), so no op is
listed here.  A case is ``fn(m, *inputs)``; one timed call builds float64 leaves that require
grad, runs ``fn`` and, when the output requires grad, ``(out * w).sum().backward()``
(``grads_of`` of the kit), on ctxgrad and on torch in turns; the time of a case is the
minimum over ``--repeat`` rounds of the mean of a batch of calls lasting about ``--budget``
seconds (the minimum: the machine's load only ever adds time).

A case runs the op table rows whose names (or aliases) its ``fn`` mentions, or when it names
none, the dunders of the Python operators it uses (``a + b`` runs ``__add__``).  A row's ratio is its *slowest*
case's (the cliffs are what this looks for); rows no case mentions are listed at the end.
Cases torch refuses (the kit's strict xfails) are left out.  The rows no case of the kit runs are
timed once each from :data:`ROWS_WITHOUT_CASES` (all but ``cuda``, which raises on a CPU build of
torch as in ctxgrad), so that every row has a ratio.

Two tables follow: the ``nn.functional`` ops and the sampler that have no op table row (so no
case of the kit: :data:`FUNCTIONAL` writes them once, for both libraries), and the special
functions' forward on 10^5 values against ``scipy.special`` (:data:`SPECIAL`, when SciPy imports).

Run: ``python benchmarks/per_op.py [--json FILE] [--only SUBSTRING] [--limit 10]``; the table is
sorted by ratio, the rows above ``--limit`` listed under it.
"""

from __future__ import annotations

import argparse
import dis
import functools
import importlib
import json
import statistics
import sys
import time
import types
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import ctxgrad
from ctxgrad.ops.table import OPS

TESTS = Path(__file__).resolve().parent.parent / "tests"

# The dunder each Python operator calls (``dis``'s spelling of the operator).
_OPERATOR_DUNDERS = {
    "+": "__add__", "-": "__sub__", "*": "__mul__", "/": "__truediv__", "//": "__floordiv__",
    "%": "__mod__", "**": "__pow__", "@": "__matmul__", "&": "__and__", "|": "__or__", "^": "__xor__",
    "<<": "__lshift__", ">>": "__rshift__", "==": "__eq__", "!=": "__ne__", "<": "__lt__",
    "<=": "__le__", ">": "__gt__", ">=": "__ge__",
}  # fmt: skip
_OPCODE_DUNDERS = {
    "BINARY_SUBSCR": "__getitem__", "STORE_SUBSCR": "__setitem__", "UNARY_INVERT": "__invert__",
    "UNARY_NEGATIVE": "__neg__",
}  # fmt: skip


def _names_in(code: types.CodeType, module_globals: dict[str, Any], seen: set[int]) -> Iterator[str]:
    """The attribute and global names ``code`` reads and the dunders of its operators, also of
    the code it nests and of the test module's functions it calls."""
    if id(code) in seen:
        return
    seen.add(id(code))
    for name in code.co_names:
        yield name
        helper = module_globals.get(name)
        if isinstance(helper, types.FunctionType) and helper.__module__ == module_globals.get("__name__"):
            yield from _names_in(helper.__code__, module_globals, seen)
    for instruction in dis.get_instructions(code):
        if instruction.opname in _OPCODE_DUNDERS:
            yield _OPCODE_DUNDERS[instruction.opname]
        elif instruction.opname in ("BINARY_OP", "COMPARE_OP"):
            symbol = instruction.argrepr
            if symbol not in _OPERATOR_DUNDERS and symbol.endswith("="):  # (``+=``: the in-place form)
                symbol = symbol[:-1]
            if symbol in _OPERATOR_DUNDERS:
                yield _OPERATOR_DUNDERS[symbol]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names_in(const, module_globals, seen)


def rows_of(fn: Callable[..., Any], row_names: dict[str, str]) -> set[str]:
    """The op table rows (their names) a case's ``fn`` runs: the rows it names, or, when it
    names none, the dunders of its operators (``a * w`` in an ``i0`` case is not ``__mul__``'s cliff)."""
    rows = {row_names[name] for name in _names_in(fn.__code__, fn.__globals__, set()) if name in row_names}
    named = {row for row in rows if not row.startswith("__")}
    return named or rows


def _timed(call: Callable[[], object], budget: float, repeat: int) -> float:
    """Seconds per call: the minimum over ``repeat`` rounds of a batch lasting about ``budget``."""
    start = time.perf_counter()
    call()
    once = max(time.perf_counter() - start, 1e-7)
    batch = max(1, min(10_000, int(budget / once)))
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(batch):
            call()
        best = min(best, (time.perf_counter() - start) / batch)
    return best


def measure_cases(only: str | None, budget: float, repeat: int) -> list[dict[str, Any]]:
    """Each case's ctxgrad and torch seconds per forward + backward, and the rows it runs."""
    import torch

    sys.path.insert(0, str(TESTS))
    from _opcheck import grads_of, make_inputs
    from _torch_reference import families

    torch.set_num_threads(1)
    row_names = {}
    for op in OPS:
        for name in (op.name, *op.aliases, *op.dunders):
            row_names.setdefault(name, op.name)
    results = []
    for family in families():
        for case in family.cases:  # type: ignore[attr-defined]
            label = f"{family.__name__}::{case.id}"
            rows = rows_of(case.fn, row_names)
            if only is not None and only not in label and not any(only in r for r in rows):
                continue
            if "torch" in case.bugs or "all" in case.bugs:
                continue
            arrays = make_inputs(case.inputs, case.seed)
            try:
                grads_of(torch, case.fn, arrays, "float64", case.seed)
                grads_of(ctxgrad, case.fn, arrays, "float64", case.seed)
            except Exception:  # (a case the kit expects to raise is not timed)
                continue
            ours = _timed(functools.partial(grads_of, ctxgrad, case.fn, arrays, "float64", case.seed), budget, repeat)
            theirs = _timed(functools.partial(grads_of, torch, case.fn, arrays, "float64", case.seed), budget, repeat)
            results.append({"case": label, "rows": sorted(rows), "ctxgrad_s": ours, "torch_s": theirs,
                            "ratio": ours / theirs})  # fmt: skip
    return results


def by_row(cases: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each row's slowest case, and the median ratio over its cases."""
    rows: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        for row in case["rows"]:
            rows.setdefault(row, []).append(case)
    summary = {}
    for row, its_cases in rows.items():
        worst = max(its_cases, key=lambda c: c["ratio"])
        summary[row] = {
            "ratio": worst["ratio"],
            "case": worst["case"],
            "ctxgrad_us": worst["ctxgrad_s"] * 1e6,
            "torch_us": worst["torch_s"] * 1e6,
            "median_ratio": statistics.median(c["ratio"] for c in its_cases),
            "cases": len(its_cases),
        }
    return summary


# The ``nn.functional`` ops and the sampler that have no op table row (so no case of the kit),
# written once for both libraries: ``(name, inputs, fn(m, *tensors))``, the inputs as in the
# kit (``(shape, domain)``; the float ones require grad), an ``int:<high>`` domain for indices.
FUNCTIONAL: list[tuple[str, list[tuple[tuple[int, ...], str]], Callable[..., Any]]] = [
    ("conv3d", [((2, 3, 6, 6, 6), "any"), ((4, 3, 3, 3, 3), "any")],
     lambda m, x, w: m.nn.functional.conv3d(x, w, padding=1)),
    ("max_pool3d", [((2, 3, 8, 8, 8), "distinct")], lambda m, x: m.nn.functional.max_pool3d(x, 2)),
    ("adaptive_max_pool2d", [((2, 3, 10, 10), "distinct")], lambda m, x: m.nn.functional.adaptive_max_pool2d(x, 4)),
    ("embedding_bag(max)", [((4, 5), "int:20"), ((20, 8), "any")],
     lambda m, i, w: m.nn.functional.embedding_bag(i, w, mode="max")),
    ("cdist", [((10, 5), "any"), ((12, 5), "any")], lambda m, a, b: m.cdist(a, b)),
    ("interpolate(bilinear)", [((2, 3, 8, 8), "any")],
     lambda m, x: m.nn.functional.interpolate(x, size=(16, 16), mode="bilinear", align_corners=False)),
    ("ctc_loss(T=64)", [((64, 4, 10), "any"), ((4, 12), "int:9")],
     lambda m, x, t: m.nn.functional.ctc_loss(x.log_softmax(-1), t + 1, [64, 60, 50, 64], [12, 10, 8, 5])),
    ("Gamma.rsample", [((100,), "pos"), ((100,), "pos")],
     lambda m, c, r: m.distributions.Gamma(c, r).rsample()),
]  # fmt: skip


# The op table rows that no case of the kit runs (their cases test errors, dtypes or values
# without a gradient, or a row is reached only through another name), each timed once here,
# written once for both libraries as FUNCTIONAL is: ``(row, inputs, fn(m, *tensors))``, with a
# ``bool`` domain too.  The backward runs when the output requires grad.  ``cuda`` is left out:
# it raises on a CPU build of torch as it does in ctxgrad.
ROWS_WITHOUT_CASES: list[tuple[str, list[tuple[tuple[int, ...], str]], Callable[..., Any]]] = [
    ("__eq__", [((4, 5), "any"), ((4, 5), "any")], lambda m, a, b: a == b),
    ("ne", [((4, 5), "any"), ((4, 5), "any")], lambda m, a, b: m.ne(a, b)),
    ("ge", [((4, 5), "any"), ((4, 5), "any")], lambda m, a, b: m.ge(a, b)),
    ("le", [((4, 5), "any"), ((4, 5), "any")], lambda m, a, b: m.le(a, b)),
    ("lt", [((4, 5), "any"), ((4, 5), "any")], lambda m, a, b: m.lt(a, b)),
    ("__invert__", [((4, 5), "bool")], lambda m, b: ~b),
    ("__rand__", [((4, 5), "int:8")], lambda m, i: 3 & i),
    ("__ror__", [((4, 5), "int:8")], lambda m, i: 3 | i),
    ("__rxor__", [((4, 5), "int:8")], lambda m, i: 3 ^ i),
    ("__rlshift__", [((4, 5), "int:8")], lambda m, i: 3 << i),
    ("__rrshift__", [((4, 5), "int:8")], lambda m, i: 300 >> i),
    ("__rfloordiv__", [((4, 5), "pos")], lambda m, x: 3.0 // x.detach()),
    ("__rmod__", [((4, 5), "pos")], lambda m, x: 3.0 % x.detach()),
    ("__rpow__", [((4, 5), "any")], lambda m, x: 2.0**x),
    ("__rsub__", [((4, 5), "any")], lambda m, x: 2.0 - x),
    ("__rtruediv__", [((4, 5), "nz")], lambda m, x: 2.0 / x),
    ("__rmatmul__", [((4, 5), "any")], lambda m, x: m.ones(3, 4, dtype=m.float64).__matmul__(x)),
    ("bitwise_and", [((4, 5), "int:8"), ((4, 5), "int:8")], lambda m, i, j: m.bitwise_and(i, j)),
    ("bitwise_or", [((4, 5), "int:8"), ((4, 5), "int:8")], lambda m, i, j: m.bitwise_or(i, j)),
    ("bitwise_xor", [((4, 5), "int:8"), ((4, 5), "int:8")], lambda m, i, j: m.bitwise_xor(i, j)),
    ("bitwise_not", [((4, 5), "int:8")], lambda m, i: m.bitwise_not(i)),
    ("bitwise_left_shift", [((4, 5), "int:8"), ((4, 5), "int:4")], lambda m, i, j: m.bitwise_left_shift(i, j)),
    ("bitwise_right_shift", [((4, 5), "int:64"), ((4, 5), "int:4")], lambda m, i, j: m.bitwise_right_shift(i, j)),
    ("gcd", [((4, 5), "int:64"), ((4, 5), "int:64")], lambda m, i, j: m.gcd(i, j)),
    ("lcm", [((4, 5), "int:64"), ((4, 5), "int:64")], lambda m, i, j: m.lcm(i, j)),
    ("argsort", [((4, 5), "distinct")], lambda m, x: m.argsort(x, dim=1)),
    ("bincount", [((20,), "int:8")], lambda m, i: m.bincount(i)),
    ("bucketize", [((4, 5), "any")], lambda m, x: m.bucketize(x, m.linspace(-2, 2, 9, dtype=m.float64))),
    ("searchsorted", [((4, 5), "any")], lambda m, x: m.searchsorted(m.linspace(-2, 2, 9, dtype=m.float64), x)),
    ("histc", [((40,), "any")], lambda m, x: m.histc(x.detach(), bins=8, min=-2, max=2)),
    ("histogram", [((40,), "any")], lambda m, x: m.histogram(x.detach(), bins=8).hist),
    ("histogramdd", [((40, 2), "any")], lambda m, x: m.histogramdd(x.detach(), bins=[4, 4]).hist),
    ("isin", [((4, 5), "int:8"), ((6,), "int:8")], lambda m, i, j: m.isin(i, j)),
    ("isneginf", [((4, 5), "any")], lambda m, x: m.isneginf(x)),
    ("isposinf", [((4, 5), "any")], lambda m, x: m.isposinf(x)),
    ("signbit", [((4, 5), "any")], lambda m, x: m.signbit(x)),
    ("sign", [((4, 5), "any")], lambda m, x: m.sign(x)),
    ("heaviside", [((4, 5), "any"), ((4, 5), "any")], lambda m, a, b: m.heaviside(a.detach(), b.detach())),
    ("ceil", [((4, 5), "any")], lambda m, x: m.ceil(x)),
    ("floor", [((4, 5), "any")], lambda m, x: m.floor(x)),
    ("trunc", [((4, 5), "any")], lambda m, x: m.trunc(x)),
    ("frac", [((4, 5), "any")], lambda m, x: m.frac(x)),
    ("floor_divide", [((4, 5), "any"), ((4, 5), "nz")], lambda m, a, b: m.floor_divide(a.detach(), b.detach())),
    ("relu", [((4, 5), "any")], lambda m, x: m.relu(x)),
    ("celu", [((4, 5), "any")], lambda m, x: m.celu(x)),
    ("selu", [((4, 5), "any")], lambda m, x: m.selu(x)),
    ("mish", [((4, 5), "any")], lambda m, x: m.nn.functional.mish(x)),
    ("hardsigmoid", [((4, 5), "any")], lambda m, x: m.nn.functional.hardsigmoid(x)),
    ("hardswish", [((4, 5), "any")], lambda m, x: m.nn.functional.hardswish(x)),
    ("hardtanh", [((4, 5), "any")], lambda m, x: m.nn.functional.hardtanh(x)),
    ("cross_entropy", [((8, 5), "any"), ((8,), "int:5")], lambda m, x, t: m.nn.functional.cross_entropy(x, t)),
    ("nll_loss", [((8, 5), "any"), ((8,), "int:5")],
     lambda m, x, t: m.nn.functional.nll_loss(x.log_softmax(1), t)),
    ("embedding", [((4, 5), "int:10"), ((10, 3), "any")], lambda m, i, w: m.nn.functional.embedding(i, w)),
    ("igamma", [((4, 5), "pos"), ((4, 5), "pos")], lambda m, a, x: m.igamma(a.detach(), x)),
    ("igammac", [((4, 5), "pos"), ((4, 5), "pos")], lambda m, a, x: m.igammac(a.detach(), x)),
    ("polar", [((4, 5), "pos"), ((4, 5), "any")], lambda m, r, t: m.view_as_real(m.polar(r, t))),
    ("complex", [((4, 5), "any"), ((4, 5), "any")], lambda m, a, b: m.view_as_real(m.complex(a, b))),
    ("view_as_complex", [((4, 5, 2), "any")], lambda m, x: m.view_as_real(m.view_as_complex(x) * 2)),
    ("cfloat", [((4, 5), "any")], lambda m, x: m.view_as_real(x.cfloat())),
    ("is_conj", [((4, 5), "any")], lambda m, x: x * float(x.is_conj())),
    ("is_neg", [((4, 5), "any")], lambda m, x: x * float(x.is_neg())),
    ("resolve_neg", [((4, 5), "any")], lambda m, x: x.resolve_neg()),
    ("bool", [((4, 5), "any")], lambda m, x: x.bool()),
    ("byte", [((4, 5), "pos")], lambda m, x: x.byte()),
    ("half", [((4, 5), "any")], lambda m, x: x.half()),
    ("broadcast_shapes", [((4, 5), "any")], lambda m, x: x.expand(m.broadcast_shapes((1, 5), (4, 1)))),
    ("as_strided_scatter", [((4, 5), "any"), ((2, 2), "any")],
     lambda m, x, y: m.as_strided_scatter(x, y, (2, 2), (5, 1))),
    ("fill_", [((4, 5), "any")], lambda m, x: (x * 1).fill_(2.0)),
    ("fill_diagonal_", [((5, 5), "any")], lambda m, x: (x * 1).fill_diagonal_(2.0)),
    ("zero_", [((4, 5), "any")], lambda m, x: (x * 1).zero_()),
    ("mode", [((4, 5), "int:3")], lambda m, i: m.mode(i, 1).values),
    ("unique", [((20,), "int:6")], lambda m, i: m.unique(i)),
    ("unique_consecutive", [((20,), "int:3")], lambda m, i: m.unique_consecutive(i)),
    ("unravel_index", [((6,), "int:20")], lambda m, i: m.stack(m.unravel_index(i, (4, 5)))),
    ("nonzero_static", [((4, 5), "int:2")], lambda m, i: m.nonzero_static(i, size=8)),
    ("tril_indices", [((4, 5), "any")], lambda m, x: x[tuple(m.tril_indices(4, 5))]),
    ("triu_indices", [((4, 5), "any")], lambda m, x: x[tuple(m.triu_indices(4, 5))]),
    ("hash_tensor", [((4, 5), "int:8")], lambda m, i: m.hash_tensor(i)),
    ("geqrf", [((4, 4), "wellcond")], lambda m, x: m.geqrf(x.detach())[0]),
    ("orgqr", [((4, 4), "wellcond")], lambda m, x: m.orgqr(*m.geqrf(x.detach()))),
    ("ormqr", [((4, 4), "wellcond"), ((4, 3), "any")],
     lambda m, x, c: m.ormqr(*m.geqrf(x.detach()), c.detach())),
    ("lu_unpack", [((4, 4), "wellcond")], lambda m, x: m.lu_unpack(*m.linalg.lu_factor(x))[1]),
]  # fmt: skip


def _functional_inputs(m: Any, specs: list[tuple[tuple[int, ...], str]]) -> list[Any]:
    sys.path.insert(0, str(TESTS))
    from _opcheck import make_inputs

    rng = np.random.default_rng(0)
    made = []
    for shape, domain in specs:
        if domain.startswith("int:"):
            made.append(m.tensor(rng.integers(0, int(domain[4:]), shape)))
        elif domain == "bool":
            made.append(m.tensor(rng.integers(0, 2, shape).astype(bool)))
        else:
            (array,) = make_inputs([(shape, domain)], 0)
            made.append(m.tensor(array, requires_grad=True))
    return made


def _table_step(m: Any, fn: Callable[..., Any], specs: list[tuple[tuple[int, ...], str]]) -> None:
    """One call of a FUNCTIONAL or ROWS_WITHOUT_CASES entry, and its backward when the output
    requires grad."""
    out = fn(m, *_functional_inputs(m, specs))
    if out.requires_grad:
        (out * m.ones_like(out)).sum().backward()


def measure_table(
    table: list[tuple[str, list[tuple[tuple[int, ...], str]], Callable[..., Any]]],
    only: str | None,
    budget: float,
    repeat: int,
) -> dict[str, dict[str, Any]]:
    """Each entry of ``table`` (FUNCTIONAL or ROWS_WITHOUT_CASES) on both libraries."""
    import torch

    rows = {}
    for name, specs, fn in table:
        if only is not None and only not in name:
            continue
        ours = _timed(functools.partial(_table_step, ctxgrad, fn, specs), budget, repeat)
        theirs = _timed(functools.partial(_table_step, torch, fn, specs), budget, repeat)
        rows[name] = {"ratio": ours / theirs, "ctxgrad_us": ours * 1e6, "torch_us": theirs * 1e6}
    return rows


# The special functions against scipy.special on 10^5 float64 values (forward only): ``(name,
# ctxgrad's, scipy.special's, domain)``.
SPECIAL: list[tuple[str, Callable[[Any], Any], str, tuple[float, float]]] = [
    ("erf", lambda t: ctxgrad.erf(t), "erf", (-5, 5)),
    ("erfc", lambda t: ctxgrad.erfc(t), "erfc", (-5, 20)),
    ("lgamma", lambda t: ctxgrad.lgamma(t), "gammaln", (-20, 50)),
    ("digamma", lambda t: ctxgrad.digamma(t), "psi", (-20, 50)),
    ("polygamma(1)", lambda t: ctxgrad.polygamma(1, t), "polygamma1", (-20, 50)),
    ("erfinv", lambda t: ctxgrad.erfinv(t), "erfinv", (-1, 1)),
    ("i0", lambda t: ctxgrad.i0(t), "i0", (-30, 30)),
    ("i1e", lambda t: ctxgrad.special.i1e(t), "i1e", (-30, 30)),
    ("log_ndtr", lambda t: ctxgrad.special.log_ndtr(t), "log_ndtr", (-40, 10)),
    ("ndtri", lambda t: ctxgrad.special.ndtri(t), "ndtri", (0, 1)),
    ("gelu (exact)", lambda t: ctxgrad.nn.functional.gelu(t), "", (-5, 5)),
]  # fmt: skip


def measure_special(budget: float, repeat: int) -> dict[str, dict[str, Any]]:
    try:
        special = importlib.import_module("scipy.special")
    except ImportError:
        return {}
    rows = {}
    for name, ours_fn, theirs_name, (lo, hi) in SPECIAL:
        values = np.random.default_rng(0).uniform(lo, hi, 100_000)
        tensor = ctxgrad.tensor(values)
        if theirs_name == "polygamma1":
            theirs_call: Callable[[], object] = functools.partial(special.polygamma, 1, values)
        elif theirs_name:
            theirs_call = functools.partial(getattr(special, theirs_name), values)
        else:  # gelu: x Phi(x), as SciPy would compute it
            theirs_call = functools.partial(lambda v: v * 0.5 * (1 + special.erf(v * 0.7071067811865476)), values)
        ours = _timed(functools.partial(ours_fn, tensor), budget * 5, repeat)
        theirs = _timed(theirs_call, budget * 5, repeat)
        rows[name] = {"ratio": ours / theirs, "ctxgrad_us": ours * 1e6, "scipy_us": theirs * 1e6}
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--json", metavar="FILE", help="also write the per-case and per-row results as JSON")
    parser.add_argument("--only", help="only the cases (and FUNCTIONAL ops) whose id or rows contain this")
    parser.add_argument("--special", action="store_true", help="with --only: the special functions' table too")
    parser.add_argument("--no-cases", action="store_true", help="only the FUNCTIONAL and special-function tables")
    parser.add_argument("--limit", type=float, default=10.0, help="list the rows above this ratio (default 10)")
    parser.add_argument("--budget", type=float, default=0.01, help="seconds per timed batch (default 0.01)")
    parser.add_argument("--repeat", type=int, default=3, help="timed batches per case and library (default 3)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")  # (the cases' deprecation and casting warnings, torch's and ours)
    try:
        import torch
    except ImportError:
        print("per_op.py measures against torch, which cannot be imported")
        return 1
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, ctxgrad {ctxgrad.__version__}, "
          f"torch {torch.__version__} (1 thread), float64")  # fmt: skip
    cases = [] if args.no_cases else measure_cases(args.only, args.budget, args.repeat)
    rows = by_row(cases)
    if not args.no_cases:  # (each entry of ROWS_WITHOUT_CASES a row of one case)
        for name, row in measure_table(ROWS_WITHOUT_CASES, args.only, args.budget, args.repeat).items():
            row.update(median_ratio=row["ratio"], case="per_op.py ROWS_WITHOUT_CASES", cases=1)
            rows.setdefault(name, row)
    print(f"{'row':28} {'ratio':>8} {'median':>7} {'ctxgrad us':>11} {'torch us':>9}  slowest case (of n)")
    for name, row in sorted(rows.items(), key=lambda item: item[1]["ratio"]):
        print(f"{name:28} {row['ratio']:8.1f} {row['median_ratio']:7.1f} {row['ctxgrad_us']:11.1f} "
              f"{row['torch_us']:9.1f}  {row['case']} ({row['cases']})")  # fmt: skip
    ratios = [row["ratio"] for row in rows.values()]
    above = sorted((name for name, row in rows.items() if row["ratio"] > args.limit), key=lambda n: -rows[n]["ratio"])
    if ratios:
        print(f"\n{len(cases)} cases, {len(rows)} rows; median of the rows' slowest-case ratios "
              f"{statistics.median(ratios):.2f}x")  # fmt: skip
    print(
        f"rows above {args.limit:g}x torch: {len(above)}" + "".join(f"\n  {n} {rows[n]['ratio']:.1f}x" for n in above)
    )
    if args.only is None and not args.no_cases:
        missing = sorted({op.name for op in OPS} - rows.keys())
        print(f"rows no timed case runs ({len(missing)}): {' '.join(missing)}")
    functional = measure_table(FUNCTIONAL, args.only, args.budget, args.repeat)
    print("\nwithout an op table row (benchmarks/per_op.py FUNCTIONAL):")
    print(f"{'op':28} {'ratio':>8} {'ctxgrad us':>11} {'torch us':>9}")
    for name, row in sorted(functional.items(), key=lambda item: item[1]["ratio"]):
        print(f"{name:28} {row['ratio']:8.1f} {row['ctxgrad_us']:11.1f} {row['torch_us']:9.1f}")
    special = measure_special(args.budget, args.repeat) if args.only is None or args.special else {}
    if special:
        print("\nspecial functions, forward on 10^5 float64 values, against scipy.special:")
        print(f"{'function':28} {'ratio':>8} {'ctxgrad us':>11} {'scipy us':>9}")
        for name, row in special.items():
            print(f"{name:28} {row['ratio']:8.2f} {row['ctxgrad_us']:11.1f} {row['scipy_us']:9.1f}")
        print(f"special functions above 3x scipy.special: {[n for n, r in special.items() if r['ratio'] > 3]}")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"cases": cases, "rows": rows, "functional": functional, "special": special}, indent=1),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
