"""``einsum``: torch's equation and sublist forms, planned once into contractions of
``Mm`` and sums (its Function, ``Einsum``, and ``EmbedDiagonal`` for repeated output
subscripts), with torch's errors."""

from __future__ import annotations

import functools
import string
from typing import Any

import numpy as np

from ctxgrad._dtypes import result_dtype, short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.saved import save_for_gradients
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import tangent_sum
from ctxgrad.ops.linalg import _not_for_bool

# --------------------------------------------------------------------------- einsum
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _stray_dot(operand: int) -> RuntimeError:
    return RuntimeError(f"einsum(): found '.' for operand {operand} that is not part of any ellipsis")


def _parse_subscripts(equation: str) -> tuple[list[list[str]], list[str] | None]:
    """The operands' subscripts (``"..."`` for an ellipsis) and the output's (None: implicit),
    with torch's errors for invalid characters and misplaced dots."""
    lhs, arrow, rhs = equation.partition("->")
    if arrow and "->" in rhs:
        raise RuntimeError(
            f"einsum(): invalid subscript given at index {len(lhs) + 2 + rhs.index('-')} in the equation "
            "string, subscripts must be in [a-zA-Z]"
        )

    def terms(text: str, offset: int, operand_base: int) -> list[list[str]]:
        out: list[list[str]] = [[]]
        dots = 0
        i = 0
        while i < len(text):
            c = text[i]
            if c == ",":
                if dots:
                    raise _stray_dot(operand_base + len(out) - 1)
                out.append([])
            elif c == ".":
                if "..." in out[-1] and dots == 0:
                    raise RuntimeError(
                        f"einsum(): found '.' for operand {operand_base + len(out) - 1} for which an ellipsis was "
                        "already found"
                    )
                dots += 1
                if dots == 3:
                    out[-1].append("...")
                    dots = 0
            elif c.isascii() and c.isalpha():
                if dots:
                    raise _stray_dot(operand_base + len(out) - 1)
                out[-1].append(c)
            elif c != " ":
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {offset + i} in the equation string, subscripts "
                    "must be in [a-zA-Z]"
                )
            i += 1
        if dots:
            raise _stray_dot(operand_base + len(out) - 1)
        return out

    inputs = terms(lhs, 0, 0)
    if not arrow:
        return inputs, None
    if "," in rhs:
        raise RuntimeError(
            f"einsum(): invalid subscript given at index {len(lhs) + 2 + rhs.index(',')} in the equation string, "
            "subscripts must be in [a-zA-Z]"
        )
    (output,) = terms(rhs, len(lhs) + 2, 0)
    return inputs, output


@functools.lru_cache(maxsize=256)
def _plan(equation: str, shapes: tuple[tuple[int, ...], ...]) -> tuple[str, tuple[str, ...], str, tuple[int, ...]]:
    """``(numpy_equation, operand_subscripts, output_subscripts, label_sizes)``: the equation
    with every ellipsis spelled out in free letters, after torch's checks.

    ``label_sizes`` holds the broadcast size of each letter of ``_LETTERS`` (0 when unused)."""
    inputs, output = _parse_subscripts(equation)
    if len(inputs) > len(shapes):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(inputs) < len(shapes):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    used = {c for term in inputs for c in term} | set(output or ())
    free = [c for c in _LETTERS if c not in used]
    ell_ndim = 0
    for k, (term, shape) in enumerate(zip(inputs, shapes)):
        named = len(term) - term.count("...")
        if "..." in term:
            if named > len(shape):
                raise RuntimeError(
                    f"einsum(): the number of subscripts in the equation ({named}) is more than the number of "
                    f"dimensions ({len(shape)}) for operand {k}"
                )
            ell_ndim = max(ell_ndim, len(shape) - named)
        elif named != len(shape):
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({named}) does not match the number of "
                f"dimensions ({len(shape)}) for operand {k} and no ellipsis was given"
            )
    if ell_ndim > len(free):
        raise RuntimeError("einsum(): too many dimensions (more than 52 subscripts) for ctxgrad's einsum")
    ell = free[:ell_ndim]
    sizes = dict.fromkeys(_LETTERS, 0)
    ell_sizes = [1] * ell_ndim
    subs: list[str] = []
    for k, (term, shape) in enumerate(zip(inputs, shapes)):
        letters: list[str] = []
        for c in term:
            if c == "...":
                e = len(shape) - (len(term) - 1)
                letters.extend(ell[ell_ndim - e :])
            else:
                letters.append(c)
        seen: dict[str, int] = {}
        for pos, (c, n) in enumerate(zip(letters, shape)):
            if c in ell:
                j = ell.index(c)
                if n != 1 and ell_sizes[j] not in (1, n):
                    raise RuntimeError(
                        f"einsum(): dimension {pos} covered by ellipsis in operand {k}has size {n} which does not "
                        f"broadcast with previously seen ellipsis with size {ell_sizes[j]} for the respective dimension"
                    )
                ell_sizes[j] = max(ell_sizes[j], n)
            elif c in seen:
                if seen[c] != n:
                    raise RuntimeError(
                        f"einsum(): subscript {c} is repeated for operand {k} but the sizes don't match, "
                        f"{n} != {seen[c]}"
                    )
            else:
                seen[c] = n
        for c, n in seen.items():
            prev = sizes[c]
            if prev not in (0, 1) and n != 1 and n != prev:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {n} for operand {k} which does not broadcast with previously "
                    f"seen size {prev}"
                )
            if prev in (0, 1):
                sizes[c] = n
        subs.append("".join(letters))
    for c, n in zip(ell, ell_sizes):
        sizes[c] = n
    if output is None:
        counts: dict[str, int] = {}
        for term in inputs:
            for c in term:
                if c != "...":
                    counts[c] = counts.get(c, 0) + 1
        out = "".join(ell) + "".join(c for c in _LETTERS if counts.get(c) == 1)
    else:
        out_letters: list[str] = []
        for c in output:
            if c == "...":
                out_letters.extend(ell)
                continue
            if c in out_letters:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            if sizes[c] == 0:
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any input operand"
                )
            out_letters.append(c)
        out = "".join(out_letters)  # ellipsis dimensions missing from the output are summed over
    return ",".join(subs) + "->" + out, tuple(subs), out, tuple(sizes[c] for c in _LETTERS)


def _result_dtype(arrays: list[np.ndarray[Any, Any]], subs: tuple[str, ...], out_sub: str) -> np.dtype[Any]:
    """The dtype torch's einsum gives, or its error.

    torch multiplies the operands pairwise from the left.  A pair that sums over a letter both
    share is a batched matrix product, which needs one dtype ("expected scalar type Float but
    found Long"); any other pair is a broadcast product, which promotes as ``*`` does.
    """
    dtypes = [_summed_alone(a.dtype, k, subs, out_sub) for k, a in enumerate(arrays)]
    dtype = dtypes[0]
    letters = set(subs[0])
    for k in range(1, len(arrays)):
        later = set(out_sub).union(*subs[k + 1 :])
        if any(c not in later for c in letters & set(subs[k])):
            _not_for_bool(np.empty(0, dtype), "bmm")
            if dtypes[k] != dtype:
                raise RuntimeError(f"expected scalar type {short_name(dtype)} but found {short_name(dtypes[k])}")
        elif dtypes[k] != dtype:
            # torch's operands all have every letter by then: promote as tensors of one rank
            dtype = result_dtype(np.empty(1, dtype), np.empty(1, dtypes[k]))
        letters = (letters | set(subs[k])) & later
    return dtype


def _summed_alone(dtype: np.dtype[Any], k: int, subs: tuple[str, ...], out_sub: str) -> np.dtype[Any]:
    """Operand ``k``'s dtype after torch sums the letters no other operand or the output has:
    ``sum`` of booleans and integers gives int64."""
    elsewhere = set(out_sub).union(*(s for j, s in enumerate(subs) if j != k))
    if dtype.kind in "biu" and any(c not in elsewhere for c in subs[k]):
        return np.dtype(np.int64)
    return dtype


def _fit(x: np.ndarray[Any, Any], sub: str, sizes: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """``x`` with its size-1 dimensions broadcast to their letters' sizes (a view)."""
    target = tuple(sizes[_LETTERS.index(c)] for c in sub)
    return x if target == x.shape else np.broadcast_to(x, target)


class Einsum(Function[Tensor]):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)``, ``einsum("ij,jk", [a, b])``, sublists.

    The Function runs an equation already checked and spelled out by :func:`_plan` (the
    frontend's argument handler, :func:`einsum_args`, plans it).  The gradient of operand
    ``k`` is itself an einsum: the output's gradient with the other operands, summed to
    ``k``'s distinct letters.  Letters that only ``k`` has are broadcast back, and a letter
    repeated within ``k`` (a diagonal) is written back onto the diagonal (:class:`EmbedDiagonal`).
    """

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], plan: Any, *operands: Tensor) -> tuple[Any, Any]:
        # the batch gets a letter of its own, in each batched operand and in the output
        _, subs, out_sub, _ = plan
        used = set("".join(subs) + out_sub)
        b = next(c for c in string.ascii_letters if c not in used)
        new_subs = [b + s if d == 0 else s for s, d in zip(subs, in_dims[1:])]
        equation = ",".join(new_subs) + "->" + b + out_sub
        return cls.apply(_plan(equation, tuple(tuple(t.shape) for t in operands)), *operands), 0

    node_name = "EinsumBackward0"
    holomorphic = True
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, plan: tuple[str, tuple[str, ...], str, tuple[int, ...]], *operands: Tensor) -> Tensor:
        equation, subs, out_sub, sizes = plan
        arrays = [_fit(t.array, s, sizes) for t, s in zip(operands, subs)]
        dtype = _result_dtype(arrays, subs, out_sub)
        arrays = [a if a.dtype == dtype else a.astype(dtype) for a in arrays]
        ctx.plan = plan
        # Operand k is read by the gradients of the others (argument j + 1: the plan is first).
        save_for_gradients(
            ctx, operands, tuple(tuple(j + 1 for j in range(len(operands)) if j != k) for k in range(len(operands)))
        )
        out = np.einsum(equation, *arrays, optimize=len(arrays) > 2)
        if type(out) is not np.ndarray or (out.base is not None and not out.flags.writeable):
            out = np.array(out)  # a read-only view of a broadcast operand: copy it
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        _, subs, out_sub, sizes = ctx.plan
        operands = ctx.saved_tensors
        needs = ctx.needs_input_grad[1:]
        grads: list[Tensor | None] = [None]
        for k, sub in enumerate(subs):
            if not needs[k]:
                grads.append(None)
                continue
            # an integer operand of a promoted product meets the gradient in the result's dtype
            others = [
                (s, t if t.dtype == grad.dtype else t.to(grad.dtype))
                for j, (s, t) in enumerate(zip(subs, operands))
                if j != k
            ]
            available = set(out_sub).union(*(s for s, _ in others))
            distinct = "".join(dict.fromkeys(sub))
            target = "".join(c for c in distinct if c in available)
            g_subs = [out_sub, *(s for s, _ in others)]
            g = _einsum_planned(
                ",".join(g_subs) + "->" + target, tuple(g_subs), target, sizes, grad, *(t for _, t in others)
            )
            if target != distinct:
                full = tuple(sizes[_LETTERS.index(c)] for c in distinct)
                g = g.reshape(*(n if c in available else 1 for c, n in zip(distinct, full))).expand(*full)
            if distinct != sub:
                g = EmbedDiagonal.apply(g, sub, tuple(sizes[_LETTERS.index(c)] for c in sub))
            grads.append(g)
        return tuple(grads)

    @staticmethod
    def jvp(ctx: Any, _: None, *tangents: Tensor) -> Tensor:
        plan = ctx.plan
        operands = ctx.saved_tensors
        terms = []
        for k, t in enumerate(tangents):
            args = list(operands)
            args[k] = t
            terms.append(Einsum.apply(plan, *args))
        return tangent_sum(*terms)


def _einsum_planned(
    equation: str, subs: tuple[str, ...], out: str, sizes: tuple[int, ...], *operands: Tensor
) -> Tensor:
    return Einsum.apply((equation, subs, out, sizes), *operands)


class EmbedDiagonal(Function[Tensor]):
    """Zeros of ``shape`` with ``g`` written on the generalised diagonal that ``sub`` names
    (``"ii"``: the diagonal of a matrix); the adjoint of einsum's ``"ii->i"``."""

    node_name = "EmbedDiagonalBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, g: Tensor, sub: str, shape: tuple[int, ...]) -> Tensor:
        distinct = "".join(dict.fromkeys(sub))
        values = g.array
        out = np.zeros(shape, dtype=values.dtype)
        strides = [sum(st for c2, st in zip(sub, out.strides) if c2 == c) for c in distinct]
        diag = np.lib.stride_tricks.as_strided(out, shape=values.shape, strides=strides)
        diag[...] = values
        ctx.sub, ctx.distinct, ctx.shape = sub, distinct, shape
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        sub, distinct = ctx.sub, ctx.distinct
        sizes = [0] * len(_LETTERS)
        for c, n in zip(sub, grad.array.shape):
            sizes[_LETTERS.index(c)] = n
        return _einsum_planned(f"{sub}->{distinct}", (sub,), distinct, tuple(sizes), grad), None, None

    @staticmethod
    def jvp(ctx: Any, tg: Tensor, *_: None) -> Tensor:
        return EmbedDiagonal.apply(tg, ctx.sub, ctx.shape)

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], g: Tensor, sub: str, shape: tuple[int, ...]) -> tuple[Tensor, int]:
        """The batch is one more letter, in front, that is not repeated."""
        letter = next(c for c in _LETTERS if c not in sub)
        return EmbedDiagonal.apply(g, letter + sub, (g.shape[0], *shape)), 0


def _sublist_letter(n: Any) -> str:
    if n is Ellipsis:
        return "..."
    if isinstance(n, (int, np.integer)) and 0 <= n < 52:
        return _LETTERS[int(n)]
    raise ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")


def _equation_and_operands(args: tuple[Any, ...]) -> tuple[str, tuple[Tensor, ...]]:
    """The equation and operands of any of torch's call forms: ``(equation, *operands)``,
    ``(equation, [operands])`` and ``(op1, sublist1, op2, sublist2, ..., [out_sublist])``."""
    if not args:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least one operand "
            "and its subscripts list"
        )
    if isinstance(args[0], str):
        equation = args[0]
        operands = args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    else:
        pairs = len(args) // 2
        terms = ["".join(_sublist_letter(n) for n in args[2 * i + 1]) for i in range(pairs)]
        equation = ",".join(terms)
        if len(args) % 2:
            equation += "->" + "".join(_sublist_letter(n) for n in args[-1])
        operands = tuple(args[2 * i] for i in range(pairs))
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}")
    return equation, operands


def einsum_args(name: str, *args: Any) -> tuple[Any, ...]:
    """``Einsum``'s arguments for any of torch's call forms: ``einsum("ij,jk->ik", a, b)``,
    ``einsum("ij,jk", [a, b])`` or the sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    Supports ``...``, implicit output (the letters that appear once, in alphabetical order),
    repeated letters within an operand (diagonals, traces) and torch's broadcasting of
    size-1 dimensions.
    """
    equation, operands = _equation_and_operands(args)
    shapes = tuple(tuple(t.array.shape) for t in operands)
    return (_plan(equation, shapes), *operands)


ROWS: list[Op] = [Op("einsum", Einsum, args=einsum_args, method=False)]
