"""Every row of the op table against torch: each surface torch has for the op (the function,
the Tensor method, the in-place variant, ``out=``, aliases) exists here and takes torch's
keyword names.

torch's signatures are read from the stubs it ships (``tests/_torch_signatures.py``); a
surface ctxgrad leaves out on purpose is listed in :data:`EXCEPTIONS` with the section of
docs/differences.md that says why, and the list is kept exact: an entry that is no longer
needed fails too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _torch_signatures import LAYOUT_KEYWORDS, Overload, accepted_keywords, function_overloads, method_overloads

import ctxgrad
from ctxgrad.ops.table import OPS, Op

torch = pytest.importorskip("torch")

#: Keywords torch's stubs declare that no CPU build of torch 2.13 runs (``mm(out_dtype=)``
#: dispatches to CUDA kernels only; the CPU build raises NotImplementedError).
CUDA_ONLY_KEYWORDS = frozenset({"out_dtype"})

#: (surface, name) -> the section of docs/differences.md that says why ctxgrad leaves it out.
EXCEPTIONS: dict[tuple[str, str], str] = {
    # ``as_strided`` reads a copy in row-major order, so it has no in-place form.
    ("in-place", "as_strided_"): "§17",
    # Keywords torch takes only in its overloads for a Python number (``isin(x, test_element=3)``).
    ("function keyword", "isin(test_element=)"): "§35",
}

_DIFFERENCES = Path(__file__).resolve().parents[1] / "docs" / "differences.md"


def _union(overloads: list[Overload]) -> frozenset[str]:
    return frozenset().union(*(o.keywords for o in overloads)) - LAYOUT_KEYWORDS - CUDA_ONLY_KEYWORDS


def _names(op: Op) -> list[str]:
    return [op.name, *op.aliases]


def gaps(op: Op) -> list[tuple[str, str]]:
    """Each surface torch has for ``op`` that ctxgrad lacks, as (surface, name)."""
    found: list[tuple[str, str]] = []
    for name in _names(op):
        torch_function = function_overloads(torch, name) if op.function else None
        if torch_function is not None:
            ours = getattr(ctxgrad, name, None)
            if ours is None:
                found.append(("function", name))
            else:
                keywords = accepted_keywords(ours)
                if keywords is not None:
                    # (``self=`` is refused by torch's parser for functions: ``input`` is the name.)
                    for keyword in sorted(_union(torch_function) - keywords - {"self"}):
                        found.append(("function keyword", f"{name}({keyword}=)"))
        torch_method = method_overloads(torch, name) if op.method else None
        if torch_method is not None:
            ours = getattr(ctxgrad.Tensor, name, None)
            if ours is None:
                found.append(("method", name))
            elif not isinstance(ours, property):
                keywords = accepted_keywords(ours, method=True)
                if keywords is not None:
                    # (``out=`` on a method is in a few of torch's stubs, ``floor_divide``'s, but
                    # its parser refuses it: methods take no ``out``.)
                    for keyword in sorted(_union(torch_method) - keywords - {"out"}):
                        found.append(("method keyword", f"Tensor.{name}({keyword}=)"))
        if op.method and hasattr(torch.Tensor, f"{name}_") and not hasattr(ctxgrad.Tensor, f"{name}_"):
            found.append(("in-place", f"{name}_"))
        if op.nn_functional:
            found.extend(_nn_functional_gaps(name))
    return found


def _nn_functional_gaps(name: str) -> list[tuple[str, str]]:
    """What ``torch.nn.functional`` has for ``name`` (the function, its keywords, ``inplace=``,
    the in-place ``<name>_``) that ``ctxgrad.nn.functional`` lacks."""
    import ctxgrad.nn.functional as F

    found: list[tuple[str, str]] = []
    theirs = getattr(torch.nn.functional, name, None)
    if theirs is None:
        return found
    ours = getattr(F, name, None)
    if ours is None:
        return [("nn.functional", name)]
    torch_keywords, keywords = accepted_keywords(theirs), accepted_keywords(ours)
    if torch_keywords is not None and keywords is not None:
        for keyword in sorted(torch_keywords - keywords - {"self"}):
            found.append(("nn.functional keyword", f"F.{name}({keyword}=)"))
    if hasattr(torch.nn.functional, f"{name}_") and not hasattr(F, f"{name}_"):
        found.append(("nn.functional in-place", f"F.{name}_"))
    return found


def _row_id(op: Op) -> str:
    return op.name


@pytest.mark.parametrize("op", OPS, ids=_row_id)
def test_every_surface_torch_has_for_the_row_exists_with_torchs_keywords(op: Op) -> None:
    missing = [gap for gap in gaps(op) if gap not in EXCEPTIONS]
    assert missing == []


def test_the_exceptions_are_each_needed_and_cite_a_section_that_exists() -> None:
    found = {gap for op in OPS for gap in gaps(op)}
    assert sorted(set(EXCEPTIONS) - found) == []
    sections = set(re.findall(r"^## (\d+)\.", _DIFFERENCES.read_text(encoding="utf-8"), flags=re.M))
    assert sorted({where for where in EXCEPTIONS.values() if where.lstrip("§") not in sections}) == []


def test_the_reader_of_torchs_stubs_sees_what_torch_accepts() -> None:
    # The measure itself: a keyword the stubs declare is one torch's parser takes, and one
    # they do not declare is refused.
    assert "out" in _union(function_overloads(torch, "sin") or [])
    assert torch.sin(torch.zeros(1), out=torch.empty(1)).shape == (1,)
    assert "shape" in _union(method_overloads(torch, "reshape") or [])
    assert torch.zeros(6).reshape(shape=(2, 3)).shape == (2, 3)
    assert "indices_or_sections" not in _union(function_overloads(torch, "tensor_split") or [])
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        torch.tensor_split(torch.zeros(6), indices_or_sections=3)


@pytest.mark.parametrize("name", ["arcsin_", "arccos_", "arctan_", "arcsinh_", "arctanh_", "divide_", "true_divide_"])
def test_the_in_place_form_of_an_alias_is_the_ops_as_in_torch(name: str) -> None:
    def program(L: Any) -> list[Any]:
        # (torch has no gradient for the in-place inverse hyperbolic functions: differences §17)
        differentiable = name not in ("arcsinh_", "arctanh_")
        a = L.tensor([0.25, 0.5, 0.75], dtype=L.float64, requires_grad=differentiable)
        b = a * 1
        args = (L.tensor([2.0, 4.0, 8.0], dtype=L.float64),) if "divide" in name else ()
        returned = getattr(b, name)(*args)
        if differentiable:
            b.sum().backward()
        return [returned is b, b._version, b.tolist(), a.grad.tolist() if differentiable else []]

    ours, theirs = program(ctxgrad), program(torch)
    assert ours[:2] == theirs[:2]
    for k in (2, 3):  # the values, the gradient
        np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-12)


@pytest.mark.parametrize("name", ["not_equal_", "less_", "less_equal_", "greater_", "greater_equal_"])
def test_the_in_place_comparison_aliases_write_zeros_and_ones_as_in_torch(name: str) -> None:
    def program(L: Any) -> list[float]:
        a = L.tensor([1.0, 2.0, 3.0])
        getattr(a, name)(L.tensor([2.0, 2.0, 2.0]))
        return a.tolist()

    assert program(ctxgrad) == program(torch)
