"""Every op of the op tables under ``vmap``, against the same op applied sample by sample.

For each ``Case`` of the op test tables, three samples of its inputs (made with three
seeds) are stacked; ``vmap`` of the op over the stack must equal the op applied to each
sample, in values and in the gradients that flow back to the stack.  Each case runs with
every input batched and with only the first one batched (the others shared).

Ops whose Function has no batching rule yet run through vmap's per-sample loop, with a
warning: :data:`LOOPED` lists those Functions, so the test fails both when a case newly
falls back to the loop and when a listed Function gets its rule (then drop it here).
"""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pytest
import test_binary_ops
import test_indexing_ops
import test_linalg_decompositions
import test_linalg_ops
import test_more_indexing_ops
import test_more_shape_ops
import test_ops
import test_reduction_ops
import test_shape_ops
import test_special
import test_statistics_ops
import test_torch_functions
from _opcheck import Case, make_inputs

import ctxgrad
from ctxgrad.func import vmap

TABLES = {
    "ops.ARITHMETIC": test_ops.ARITHMETIC,
    "ops.MATMUL": test_ops.MATMUL,
    "ops.REDUCTIONS": test_ops.REDUCTIONS,
    "ops.POINTWISE": test_ops.POINTWISE,
    "ops.SHAPE": test_ops.SHAPE,
    "ops.INDEXING": test_ops.INDEXING,
    "binary.CASES": test_binary_ops.CASES,
    "indexing.GETITEM": test_indexing_ops.GETITEM,
    "indexing.OPS": test_indexing_ops.OPS,
    "linalg.PRODUCTS": test_linalg_ops.PRODUCTS,
    "linalg.EINSUM": test_linalg_ops.EINSUM,
    "linalg.DECOMPOSITIONS": test_linalg_decompositions.CASES,
    "reduction": getattr(test_reduction_ops, "CASES", []),
    "shape": getattr(test_shape_ops, "CASES", []),
    "torch_functions": test_torch_functions.CASES,
    "special": test_special.CASES,
    "statistics": test_statistics_ops.CASES,
    "statistics.NOT_DIFFERENTIABLE": test_statistics_ops.NOT_DIFFERENTIABLE,
    "more_shape": test_more_shape_ops.CASES,
    "more_indexing": test_more_indexing_ops.CASES,
}

CASES = [(f"{name}:{c.id}", c) for name, table in TABLES.items() for c in table if isinstance(c, Case)]

#: The built-in Functions without a batching rule, each with the reason; vmap runs them once
#: per sample (with a warning).  ``test_every_built_in_function_has_a_batching_rule`` keeps
#: this list exact, so it can only shrink.
WITHOUT_RULE = {
    # machinery, not ops: a base class, legacy classes, nodes that only wrap a backward
    "_MatrixProduct": "the base of Mm and Bmm, never applied itself",
    "InplaceFunction": "torch's legacy base class",
    "NestedIOFunction": "torch's legacy base class",
    "DelayedError": "raises in backward; carries no values",
    "_BackwardHookNode": "a module's full backward hook",
    "_UndefinedGrad": "gradcheck's undefined-gradient probe",
    # data-dependent output shapes: torch refuses these under vmap too (so does ctxgrad, with torch's message)
    "Unique": "the number of unique values differs per sample",
    "UniqueConsecutive": "the number of unique values differs per sample (unique_consecutive's node)",
}

#: Functions the op-table cases below may still see fall back to the loop: those without a
#: rule, and masked_fill's rule when its 0-d value tensor is itself batched.
LOOPED = set(WITHOUT_RULE) | {"MaskedFillTensor", "Unfold"}  # (and unfold of a 0-d sample)

#: Op-table cases that torch.func refuses when every input is batched, with torch's message:
#: ctxgrad refuses them alike (``test_the_refusals_are_torchs_and_the_list_is_exact`` keeps
#: this list exact).  Every other case batches.
TORCH_REFUSES = {
    "cov-weights": "Batching rule not implemented for aten::equal. We could not generate a fallback.",
    "histogramdd": "Batching rule not implemented for aten::histogramdd.int_bins. We could not generate a fallback.",
}

_LOOP_WARNING = re.compile(r"vmap: (\w+) has no batching rule")


def _samples(case: Case) -> list[list[np.ndarray]]:
    return [make_inputs(case.inputs, case.seed + k) for k in range(3)]


def _run(case: Case, batched: list[bool]) -> tuple[list[np.ndarray], list[np.ndarray], set[str]]:
    samples = _samples(case)
    stacks = [ctxgrad.tensor(np.stack([s[i] for s in samples]), requires_grad=True) for i in range(len(samples[0]))]
    inputs = [
        st if b else ctxgrad.tensor(samples[0][i], requires_grad=True) for i, (st, b) in enumerate(zip(stacks, batched))
    ]
    in_dims = tuple(0 if b else None for b in batched)

    def f(*xs: Any) -> Any:
        return case.fn(ctxgrad, *xs)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = vmap(f, in_dims=in_dims)(*inputs)
    looped = {m.group(1) for w in caught if (m := _LOOP_WARNING.search(str(w.message)))}
    outs = list(out) if isinstance(out, tuple) else [out]
    floating = [o for o in outs if isinstance(o, ctxgrad.Tensor) and o.dtype.kind in "fc" and o.requires_grad]
    if floating:
        sum(o.abs().sum() if o.dtype.kind == "c" else o.sum() for o in floating).backward()
    values = [o.detach().numpy() for o in outs if isinstance(o, ctxgrad.Tensor)]
    grads = [x.grad.numpy() if x.grad is not None else np.zeros(x.shape) for x in inputs]
    return values, grads, looped


def _loop(case: Case, batched: list[bool]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    samples = _samples(case)
    inputs_per = [[ctxgrad.tensor(s[i], requires_grad=True) for i in range(len(s))] for s in samples]
    shared = [ctxgrad.tensor(samples[0][i], requires_grad=True) for i in range(len(samples[0]))]
    rows = []
    for k in range(3):
        xs = [inputs_per[k][i] if b else shared[i] for i, b in enumerate(batched)]
        out = case.fn(ctxgrad, *xs)
        outs = list(out) if isinstance(out, tuple) else [out]
        rows.append(outs)
        floating = [o for o in outs if isinstance(o, ctxgrad.Tensor) and o.dtype.kind in "fc" and o.requires_grad]
        if floating:
            sum(o.abs().sum() if o.dtype.kind == "c" else o.sum() for o in floating).backward()
    values = [
        np.stack([r[j].detach().numpy() for r in rows])
        for j in range(len(rows[0]))
        if isinstance(rows[0][j], ctxgrad.Tensor)
    ]
    grads = []
    for i, b in enumerate(batched):
        if b:
            grads.append(
                np.stack(
                    [
                        inputs_per[k][i].grad.numpy()
                        if inputs_per[k][i].grad is not None
                        else np.zeros(shared[i].shape)
                        for k in range(3)
                    ]
                )
            )
        else:
            grads.append(shared[i].grad.numpy() if shared[i].grad is not None else np.zeros(shared[i].shape))
    return values, grads


@pytest.mark.parametrize("which", ["all", "first"])
@pytest.mark.parametrize(("name", "case"), CASES, ids=[n for n, _ in CASES])
def test_vmap_equals_the_per_sample_loop(name: str, case: Case, which: str) -> None:
    n = len(case.inputs)
    batched = [True] * n if which == "all" else [True] + [False] * (n - 1)
    try:
        want_values, want_grads = _loop(case, batched)
    except Exception as exc:  # the op refuses these inputs itself: nothing to compare
        pytest.skip(f"the op refuses the samples: {exc}")
    try:
        values, grads, looped = _run(case, batched)
    except RuntimeError as exc:
        if (which == "all" or n == 1) and str(exc) == TORCH_REFUSES.get(case.id):  # (one input: "first" is "all")
            return  # torch refuses this one too, with the same message
        raise
    assert len(values) == len(want_values)
    for got, want in zip(values, want_values):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    for got, want in zip(grads, want_grads):
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    assert looped <= LOOPED, f"these Functions fell back to vmap's loop: {sorted(looped - LOOPED)}"


def _all_functions() -> set[type]:
    seen: set[type] = set()
    todo = [ctxgrad.autograd.Function]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.add(sub)
                todo.append(sub)
    # (ctxgrad.compat's Functions are the bases other systems' ops run on, not built-in ops.)
    return {
        c
        for c in seen
        if c.__module__.startswith("ctxgrad")
        and not c.__module__.startswith("ctxgrad.compat")
        and not c.__qualname__.startswith("in_place(")
    }


def test_every_built_in_function_has_a_batching_rule() -> None:
    from ctxgrad.autograd._batched import _rule_kind

    without = {c.__name__ for c in _all_functions() if _rule_kind(c) == "loop"}
    assert without == set(WITHOUT_RULE), (
        f"new Functions without a batching rule: {sorted(without - set(WITHOUT_RULE))}; "
        f"listed but now with one (remove them from WITHOUT_RULE): {sorted(set(WITHOUT_RULE) - without)}"
    )


@pytest.mark.parametrize("case_id", sorted(TORCH_REFUSES))
def test_the_refusals_are_torchs_and_the_list_is_exact(case_id: str) -> None:
    """Each listed case still refuses under vmap, with torch's message (so the list can only
    name real refusals), and torch.func refuses it so too."""
    (case,) = [c for _, c in CASES if c.id == case_id]
    batched = [True] * len(case.inputs)
    with pytest.raises(RuntimeError) as caught:
        _run(case, batched)
    assert str(caught.value) == TORCH_REFUSES[case_id]
    torch = pytest.importorskip("torch")
    samples = _samples(case)
    stacks = [torch.tensor(np.stack([s[i] for s in samples])) for i in range(len(samples[0]))]
    with pytest.raises(RuntimeError) as by_torch:
        torch.func.vmap(lambda *xs: case.fn(torch, *xs))(*stacks)
    assert str(by_torch.value) == TORCH_REFUSES[case_id]
