"""What a batched tensor tells about itself inside ``vmap`` (shape, dimensions, strides,
contiguity, storage offset), ``F.one_hot`` of a batched tensor, and indexing with tensors
batched by ``vmap`` (reads and writes, the index anywhere in the index tuple), each against
``torch.func.vmap`` running the same code; where torch's vmap is wrong, against torch applied
to each sample in a loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

VALUES = np.arange(60.0).reshape(3, 4, 5)
ROWS = np.array([[0, 1], [2, 3], [1, 1]])  # one row of indices per sample (3 samples)


def _refusal_or(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except Exception as exc:  # (what it raised is compared with torch's)
        return type(exc), str(exc)


def _seen_inside(lib: Any, look: Callable[[Any], Any], in_dims: int) -> Any:
    """What ``look`` returns for the batched tensor inside ``vmap`` (or what it raised)."""
    seen = []

    def f(t: Any) -> Any:
        seen.append(look(t))
        return t

    outcome = _refusal_or(lambda: lib.func.vmap(f, in_dims=in_dims)(lib.tensor(VALUES)))
    return seen[0] if seen else outcome


LOOKS: dict[str, Callable[[Any], Any]] = {
    "shape, dim, ndim, numel, size(-1), len": lambda t: (
        tuple(t.shape),
        t.dim(),
        t.ndim,
        t.numel(),
        t.size(-1),
        len(t),
    ),
    "stride()": lambda t: t.stride(),
    "stride(0), stride(-1)": lambda t: (t.stride(0), t.stride(-1)),
    "is_contiguous()": lambda t: t.is_contiguous(),
    "storage_offset()": lambda t: t.storage_offset(),
    "a transpose's strides and contiguity": lambda t: (t.t().stride(), t.t().is_contiguous()),
    "permute's strides": lambda t: t.permute(1, 0).stride(),
    "a slice's strides and offset": lambda t: (t[1:].stride(), t[1:].storage_offset(), t[:, ::2].stride()),
    "unsqueeze's strides": lambda t: t.unsqueeze(1).stride(),
    "expand's strides": lambda t: t[0].expand(2, t.shape[1]).stride(),
    "contiguous()'s strides": lambda t: (t.contiguous().stride(), t.t().contiguous().is_contiguous()),
}


@pytest.mark.parametrize("in_dims", [0, 1, 2, -1])
@pytest.mark.parametrize("name", list(LOOKS))
def test_what_a_batched_tensor_tells_about_itself_as_torch(name: str, in_dims: int) -> None:
    got = _seen_inside(ctxgrad, LOOKS[name], in_dims)
    want = _seen_inside(torch, LOOKS[name], in_dims)
    assert got == want


@pytest.mark.parametrize("in_dims", [0, 1, 2, -1])
@pytest.mark.parametrize("transposed", [False, True])
def test_a_view_of_a_batched_tensor_needs_its_layout_as_torch(transposed: bool, in_dims: int) -> None:
    """``view`` works where the sample's own layout allows it, and refuses with torch's error
    (ctxgrad's message adds the shape and strides it could not view) elsewhere."""

    def look(t: Any) -> Any:
        return tuple((t.t() if transposed else t).view(-1).shape)

    got, want = _seen_inside(ctxgrad, look, in_dims), _seen_inside(torch, look, in_dims)
    if isinstance(want, tuple) and want and want[0] is RuntimeError:
        assert got[0] is RuntimeError and got[1].startswith(want[1])
    else:
        assert got == want


# ----------------------------------------------------------------------------- one_hot
CLASSES = np.array([[0, 2, 1], [1, 1, 0], [2, 0, 0]])

ONE_HOTS: dict[str, Callable[[Any], Any]] = {
    "3 classes": lambda lib: lib.func.vmap(lambda t: lib.nn.functional.one_hot(t, 3))(lib.tensor(CLASSES)),
    "5 classes, in_dims=1": lambda lib: lib.func.vmap(lambda t: lib.nn.functional.one_hot(t, 5), in_dims=1)(
        lib.tensor(CLASSES)
    ),
    "a 0-d sample": lambda lib: lib.func.vmap(lambda t: lib.nn.functional.one_hot(t, 3))(lib.tensor([0, 2, 1])),
    "nested": lambda lib: lib.func.vmap(lib.func.vmap(lambda t: lib.nn.functional.one_hot(t, 3)))(lib.tensor(CLASSES)),
    "a shared tensor": lambda lib: lib.func.vmap(lambda t: lib.nn.functional.one_hot(lib.tensor([0, 2])) + t)(
        lib.ones(2, 1, dtype=lib.int64)
    ),
    "no num_classes": lambda lib: lib.func.vmap(lambda t: lib.nn.functional.one_hot(t))(lib.tensor(CLASSES)),
    "num_classes=0": lambda lib: lib.func.vmap(lambda t: lib.nn.functional.one_hot(t, 0))(lib.tensor(CLASSES)),
    "a float sample": lambda lib: lib.func.vmap(lambda t: lib.nn.functional.one_hot(t, 3))(lib.ones(2, 3)),
    "an int32 sample": lambda lib: lib.func.vmap(lambda t: lib.nn.functional.one_hot(t, 3))(
        lib.ones(2, 3, dtype=lib.int32)
    ),
    "an int32 tensor outside vmap": lambda lib: lib.nn.functional.one_hot(lib.ones(3, dtype=lib.int32), 3),
}


@pytest.mark.parametrize("name", list(ONE_HOTS))
def test_one_hot_of_a_batched_tensor_as_torch(name: str) -> None:
    def run(lib: Any) -> Any:
        out = ONE_HOTS[name](lib)
        return tuple(out.shape), str(out.dtype).split(".")[-1], out.tolist()

    assert _refusal_or(lambda: run(ctxgrad)) == _refusal_or(lambda: run(torch))


@pytest.mark.parametrize(("classes", "message"), [(2, "smaller than num_classes"), (3, "non-negative")])
def test_one_hot_checks_every_samples_values_under_vmap(classes: int, message: str) -> None:
    """As outside vmap (torch's vmap gives such values a row of zeros: docs/differences.md)."""
    values = ctxgrad.tensor(CLASSES - (classes == 3))
    with pytest.raises(RuntimeError, match=f"Class values must be {message}"):
        ctxgrad.func.vmap(lambda t: ctxgrad.nn.functional.one_hot(t, classes))(values)
    with pytest.raises(RuntimeError, match=f"Class values must be {message}"):
        ctxgrad.nn.functional.one_hot(values, classes)


# ----------------------------------------------------------------------------- indexing
READS: dict[str, tuple[Callable[..., Any], Any]] = {
    "x[i], i shared": (lambda lib, t: t[lib.tensor([0, 2])], 0),
    "x[:, i], i shared": (lambda lib, t: t[:, lib.tensor([0, 2])], 0),
    "x[i, i], i shared": (lambda lib, t: t[lib.tensor([0, 2]), lib.tensor([1, 3])], 0),
    "x[i, 1:3], i shared": (lambda lib, t: t[lib.tensor([0, 2]), 1:3], 0),
    "x[..., i], i shared": (lambda lib, t: t[..., lib.tensor([0, 2])], 0),
    "x[None, i], i shared": (lambda lib, t: t[None, lib.tensor([0, 2])], 0),
    "x[2-d i], i shared": (lambda lib, t: t[lib.tensor([[0, 1], [3, 2]])], 0),
    "x[mask], mask shared": (lambda lib, t: t[lib.tensor([True, False, True, False])], 0),
    "x[i]": (lambda lib, t, i: t[i], (0, 0)),
    "x[:, i]": (lambda lib, t, i: t[:, i], (0, 0)),
    "x[i, i]": (lambda lib, t, i: t[i, i], (0, 0)),
    "x[i, 1:3]": (lambda lib, t, i: t[i, 1:3], (0, 0)),
    "x[1, i]": (lambda lib, t, i: t[1, i], (0, 0)),
    "x[..., i]": (lambda lib, t, i: t[..., i], (0, 0)),
    "x[i, None, :]": (lambda lib, t, i: t[i, None, :], (0, 0)),
    "x[i, :, i] (too many)": (lambda lib, t, i: t[i, :, i], (0, 0)),
    "x shared, x[i]": (lambda lib, t, i: t[i], (None, 0)),
    "x shared, x[:, i]": (lambda lib, t, i: t[:, i], (None, 0)),
    "x shared, x[i, 2:]": (lambda lib, t, i: t[i, 2:], (None, 0)),
    "x[i], i batched in dimension 1": (lambda lib, t, i: t[:, i], (0, 1)),
}


def _read(lib: Any, name: str) -> Any:
    fn, in_dims = READS[name]
    x = lib.tensor(VALUES)
    if in_dims == 0:
        out = lib.func.vmap(lambda t: fn(lib, t))(x)
    else:
        rows = lib.tensor(ROWS if in_dims[1] == 0 else ROWS.T.copy())
        out = lib.func.vmap(lambda t, i: fn(lib, t, i), in_dims=in_dims)(x if in_dims[0] == 0 else x[0], rows)
    return tuple(out.shape), out.tolist()


@pytest.mark.parametrize("name", list(READS))
def test_indexing_with_shared_and_batched_tensors_as_torch(name: str) -> None:
    assert _refusal_or(lambda: _read(ctxgrad, name)) == _refusal_or(lambda: _read(torch, name))


@pytest.mark.parametrize("index", ["0-d", "[:, 0-d]"])
def test_indexing_with_a_batched_0d_index_as_torch(index: str) -> None:
    def run(lib: Any) -> Any:
        pick = (lambda t, i: t[i]) if index == "0-d" else (lambda t, i: t[:, i])
        out = lib.func.vmap(pick)(lib.tensor(VALUES), lib.tensor([0, 3, 1]))
        return tuple(out.shape), out.tolist()

    assert run(ctxgrad) == run(torch)


def test_gradient_through_a_batched_index_in_the_second_place_as_torch() -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor(VALUES, requires_grad=True)
        out = lib.func.vmap(lambda t, i: t[:, i] * t[:, i])(x, lib.tensor(ROWS))
        out.sum().backward()
        return x.grad.tolist()

    assert run(ctxgrad) == run(torch)


def test_nested_vmap_index_into_an_outer_batch_as_torch() -> None:
    def run(lib: Any) -> Any:
        table = lib.arange(28.0).reshape(7, 4)
        out = lib.func.vmap(lambda i: lib.func.vmap(lambda row: row[i], in_dims=1)(table))(
            lib.tensor([0, 1]).view(2, 1)
        )
        return tuple(out.shape), out.tolist()

    assert run(ctxgrad) == run(torch)


def test_a_batched_boolean_mask_refuses_as_torch() -> None:
    def run(lib: Any) -> Any:
        masks = lib.tensor(VALUES[:, :, 0] > 20)
        return lib.func.vmap(lambda t, m: t[:, m])(lib.tensor(VALUES).transpose(1, 2), masks)

    got, want = _refusal_or(lambda: run(ctxgrad)), _refusal_or(lambda: run(torch))
    assert got == want and want[0] is RuntimeError


WRITES: dict[str, Callable[..., Any]] = {
    "y[:, i] = 0": lambda lib, y, i, v: y.__setitem__((slice(None), i), 0.0),
    "y[:, i] = v": lambda lib, y, i, v: y.__setitem__((slice(None), i), v),
    "y[i, 2:] = 5": lambda lib, y, i, v: y.__setitem__((i, slice(2, None)), 5.0),
    "y[1, i] = v[0]": lambda lib, y, i, v: y.__setitem__((1, i), v[0]),
    "y[..., i] += v": lambda lib, y, i, v: y.__setitem__((Ellipsis, i), y[..., i] + v),
}


def _write(lib: Any, name: str, loop: bool) -> Any:
    """The write into a copy of each sample, by vmap or (``loop``) one sample at a time."""

    def f(t: Any, i: Any, v: Any) -> Any:
        y = t.clone()
        WRITES[name](lib, y, i, v)
        return y

    x, rows, values = lib.tensor(VALUES), lib.tensor(ROWS), lib.tensor(np.arange(24.0).reshape(3, 4, 2) / 10)
    if loop:
        out = lib.stack([f(x[b], rows[b], values[b]) for b in range(3)])
    else:
        out = lib.func.vmap(f)(x, rows, values)
    return tuple(out.shape), out.tolist()


@pytest.mark.parametrize("name", list(WRITES))
def test_writing_at_a_batched_index_as_torch_sample_by_sample(name: str) -> None:
    """Against torch on each sample (torch's vmap mixes the batch into the indexed shape when
    the batched index is not first: docs/differences.md)."""
    assert _write(ctxgrad, name, loop=False) == _write(torch, name, loop=True) == _write(ctxgrad, name, loop=True)


def test_writing_at_a_batched_index_where_torchs_vmap_is_right_as_torch() -> None:
    assert _write(ctxgrad, "y[:, i] = 0", loop=False) == _write(torch, "y[:, i] = 0", loop=False)


@pytest.mark.parametrize("batched", ["index", "value"])
def test_writing_batched_values_into_a_shared_tensor_refuses_as_torch(batched: str) -> None:
    def run(lib: Any) -> Any:
        def f(t: Any, i: Any, v: Any) -> Any:
            t[:, i] = v
            return t

        shared, rows, values = lib.zeros(4, 5), lib.tensor(ROWS), lib.ones(3, 4, 2)
        in_dims = (None, 0, None) if batched == "index" else (None, None, 0)
        return lib.func.vmap(f, in_dims=in_dims)(
            shared, rows if batched == "index" else rows[0], values[0] if batched == "index" else values
        )

    got, want = _refusal_or(lambda: run(ctxgrad)), _refusal_or(lambda: run(torch))
    assert got == want and want[0] is RuntimeError
