"""ctxgrad.trace replays what depends on the inputs' values, and every random draw.

A replay on new inputs gives what running ``fn`` on them gives: the integer and bool tensors
that a frontend reads in Python (labels, indices, masks, counts, pooling indices) are inputs
of the replay, and random ops draw from the generator again (``ctxgrad._replayed``).  The
fuzzer at the end draws small programs over those ops and compares replay with eager.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from _fuzz import fuzz_settings
from hypothesis import given, note
from hypothesis import strategies as st

import ctxgrad
from ctxgrad.compat import loupe
from ctxgrad.compat.megengine import Function as MegEngineFunction
from ctxgrad.trace import TracerWarning


# --------------------------------------------------------------------------- inputs
def batch(lib: Any, seed: int) -> dict[str, Any]:
    """One batch: float64 ``x`` (requires grad), labels ``t``, a permutation ``p``, a mask ``m``
    with six true elements, and counts ``r`` that add up to 4 (so shapes do not depend on them)."""
    rng = np.random.default_rng(seed)
    mask = np.zeros(12, dtype=bool)
    mask[rng.permutation(12)[:6]] = True
    arrays = {
        "x": rng.normal(size=(4, 3)),
        "t": rng.integers(0, 3, size=4),
        "p": rng.permutation(4),
        "m": mask.reshape(4, 3),
        "r": rng.permutation([0, 1, 1, 2]),
    }
    out = {k: lib.tensor(v) for k, v in arrays.items()}
    out["x"].requires_grad_(True)
    return out


def set_rows(lib: Any, x: Any, p: Any) -> Any:
    y = x * 1.0
    y[p[:2]] = x[0] * 2.0
    return y


def set_mask(lib: Any, x: Any, m: Any) -> Any:
    y = x * 1.0
    y[m] = 0.5
    return y


def pooled_with_indices(lib: Any, x: Any) -> Any:
    values, indices = lib.nn.functional.max_pool1d(x[None], 2, return_indices=True)
    return values * indices.to(x.dtype)


def picked_by_nonzero(lib: Any, x: Any, m: Any) -> Any:
    rows_cols = m.nonzero()
    return x[rows_cols[:, 0], rows_cols[:, 1]]


# Each case runs the same code on ctxgrad and on torch: (lib, batch) -> a float64 tensor.
CASES: dict[str, Callable[[Any, dict[str, Any]], Any]] = {
    "cross_entropy targets": lambda lib, b: lib.nn.functional.cross_entropy(b["x"], b["t"]),
    "nll_loss targets": lambda lib, b: lib.nn.functional.nll_loss(b["x"].log_softmax(1), b["t"], reduction="none"),
    "one_hot": lambda lib, b: lib.nn.functional.one_hot(b["t"], 3).to(b["x"].dtype) * b["x"],
    "y[i] = v": lambda lib, b: set_rows(lib, b["x"], b["p"]),
    "y[mask] = v": lambda lib, b: set_mask(lib, b["x"], b["m"]),
    "index_put(accumulate=True)": lambda lib, b: b["x"].index_put((b["t"],), b["x"] * 2.0, accumulate=True),
    "max-pool indices": lambda lib, b: pooled_with_indices(lib, b["x"]),
    "nonzero": lambda lib, b: picked_by_nonzero(lib, b["x"], b["m"]),
    "where(cond)": lambda lib, b: b["x"][lib.where(b["m"])],
    "repeat_interleave counts": lambda lib, b: b["x"].repeat_interleave(b["r"], dim=0),
    "x[index tensor]": lambda lib, b: b["x"][b["p"]] * b["x"][b["t"]],
    "x[mask]": lambda lib, b: b["x"][b["m"]],
    "index_add": lambda lib, b: b["x"].index_add(0, b["t"], b["x"]),
    "scatter_reduce": lambda lib, b: b["x"].scatter_reduce(1, b["t"][:, None], b["x"][:, :1], "amax"),
    "argsort": lambda lib, b: b["x"][b["x"][:, 0].argsort()],
    "detach": lambda lib, b: b["x"] * b["x"].detach().softmax(0),
}


@pytest.fixture
def torch64() -> Iterator[Any]:
    """torch with float64 as its default dtype for one test (restored after it)."""
    torch = pytest.importorskip("torch")
    previous = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        yield torch
    finally:
        torch.set_default_dtype(previous)


@pytest.mark.parametrize("name", list(CASES))
def test_a_replay_on_new_inputs_equals_eager_and_torch(name: str, torch64: Any) -> None:
    torch = torch64
    case = CASES[name]
    first, second = batch(ctxgrad, 1), batch(ctxgrad, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TracerWarning)  # (nothing is frozen: no warning)
        traced = ctxgrad.trace(lambda **b: case(ctxgrad, b), **first)
        replayed = traced(**second)
    weights = np.arange(1.0, 1.0 + replayed.numel()).reshape(tuple(replayed.shape))
    (replayed * ctxgrad.tensor(weights)).sum().backward()
    replay_grad = second["x"].grad
    second["x"].grad = None
    eager = case(ctxgrad, second)
    (eager * ctxgrad.tensor(weights)).sum().backward()
    assert second["x"].grad is not None and replay_grad is not None
    np.testing.assert_array_equal(replayed.detach().numpy(), eager.detach().numpy())
    np.testing.assert_array_equal(replay_grad.numpy(), second["x"].grad.numpy())
    theirs = batch(torch, 2)
    expected = case(torch, theirs)
    (expected * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(replayed.detach().numpy(), expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(replay_grad.numpy(), theirs["x"].grad.numpy(), rtol=1e-12, atol=1e-12)


def test_a_frontend_that_reads_values_is_one_step_of_the_graph() -> None:
    first = batch(ctxgrad, 1)
    traced = ctxgrad.trace(lambda x, t: ctxgrad.nn.functional.cross_entropy(x, t), first["x"], first["t"])
    assert traced.graph is not None
    listing = str(traced.graph).splitlines()
    assert listing[3].split() == ["%2", "=", "cross_entropy(%0,", "%1)", "float64[]"]
    assert listing[-1].strip() == "return %2"


def test_a_replay_whose_value_dependent_shape_changed_warns_and_is_right() -> None:
    def f(x: ctxgrad.Tensor, m: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x[m] * 2.0

    x = ctxgrad.tensor([1.0, 2.0, 3.0])
    traced = ctxgrad.trace(f, x, ctxgrad.tensor([True, False, True]))
    with pytest.warns(TracerWarning, match=r"gave a result of shape \[1\] in this replay of f, but of shape \[2\]"):
        got = traced(x, ctxgrad.tensor([False, True, False]))
    assert got.tolist() == [4.0]


def test_a_random_draw_outside_any_replayed_op_warns() -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        noise = ctxgrad.empty(2)
        ctxgrad.nn.init.normal_(noise)  # (an initialiser: not an op a replay runs)
        return x + noise

    with pytest.warns(TracerWarning, match=r"init\(\) drew random numbers while f was traced"):
        ctxgrad.trace(f, ctxgrad.zeros(2))


def test_a_built_in_function_given_a_numpy_array_while_tracing_warns() -> None:
    # (the net under the frontends: one that computes an array and is not replayed whole)
    from ctxgrad.ops.indexing import Index, numpy_index

    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return Index.apply(x, numpy_index(np.array([1, 0]), (2,)))

    message = "Index got an integer or bool NumPy array that its frontend computed while f was traced"
    with pytest.warns(TracerWarning, match=message):
        traced = ctxgrad.trace(f, ctxgrad.tensor([1.0, 2.0]))
    assert traced(ctxgrad.tensor([3.0, 4.0])).tolist() == [4.0, 3.0]


# --------------------------------------------------------------------------- randomness
RANDOM_OPS: dict[str, Callable[[ctxgrad.Tensor], ctxgrad.Tensor]] = {
    "dropout": lambda x: ctxgrad.nn.functional.dropout(x, 0.5),
    "nn.Dropout": lambda x: ctxgrad.nn.Dropout(0.5)(x),
    "randn": lambda x: x + ctxgrad.randn(8, dtype=x.dtype),
    "rand_like": lambda x: x * ctxgrad.rand_like(x),
    "bernoulli": lambda x: x * ctxgrad.bernoulli(ctxgrad.full_like(x, 0.5)),
    "normal": lambda x: ctxgrad.normal(x, 1.0),
    "uniform_": lambda x: x + ctxgrad.empty_like(x).uniform_(),
    "randint": lambda x: x * ctxgrad.randint(0, 5, (8,)),
    "randperm": lambda x: x[ctxgrad.randperm(8)],
    "multinomial": lambda x: x[x.detach().softmax(0).multinomial(8, replacement=True)],
    "Normal.rsample": lambda x: ctxgrad.distributions.Normal(x, 1.0, validate_args=False).rsample(),
}


@pytest.mark.parametrize("name", list(RANDOM_OPS))
def test_each_replay_draws_anew_and_a_seed_gives_the_eager_sequence(name: str) -> None:
    op = RANDOM_OPS[name]
    x = ctxgrad.linspace(-1.0, 1.0, 8, dtype=ctxgrad.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TracerWarning)
        traced = ctxgrad.trace(op, x)
    ctxgrad.manual_seed(7)
    replays = [traced(x) for _ in range(3)]
    ctxgrad.manual_seed(7)
    eagers = [op(x) for _ in range(3)]
    for replayed, eager in zip(replays, eagers):
        np.testing.assert_array_equal(replayed.detach().numpy(), eager.detach().numpy())
    assert not np.array_equal(replays[0].detach().numpy(), replays[1].detach().numpy())
    # and the gradient of each replay is that of its own draw
    replays[1].sum().backward()
    replay_grad = x.grad
    x.grad = None
    eagers[1].sum().backward()
    assert replay_grad is not None and x.grad is not None
    np.testing.assert_array_equal(replay_grad.numpy(), x.grad.numpy())


def test_dropout_masks_differ_per_replay_as_in_torch_jit_trace() -> None:
    torch = pytest.importorskip("torch")
    ours = ctxgrad.trace(lambda x: ctxgrad.nn.functional.dropout(x, 0.5), ctxgrad.ones(64))
    theirs = torch.jit.trace(lambda x: torch.nn.functional.dropout(x, 0.5), torch.ones(64), check_trace=False)
    for traced, ones in ((ours, ctxgrad.ones(64)), (theirs, torch.ones(64))):
        masks = [traced(ones).numpy() for _ in range(2)]
        assert set(np.unique(masks[0])) <= {0.0, 2.0}
        assert not np.array_equal(masks[0], masks[1])


# --------------------------------------------------------------------------- instance-style Functions
class ScaledSigmoid(MegEngineFunction):
    def __init__(self, k: float) -> None:
        self.k = k

    def forward(self, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        self.y = 1 / (1 + ctxgrad.exp(-x * self.k))
        return self.y

    def backward(self, dy: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return dy * self.y * (1 - self.y) * self.k


class Expc(loupe.Function):
    def __init__(self, x: Any) -> None:
        self.input = loupe.asarray(x)
        super().__init__(self.input)

    def forward(self) -> Any:
        result = np.exp(1j * self.input.getdata())
        self.cache_for_backward(result)
        return result

    def backward(self, grad: Any) -> None:
        (result,) = self.cache
        self.input.backward(np.imag(grad * np.conj(result)))


@pytest.mark.parametrize(
    "fn, derivative",
    [
        (lambda x: ScaledSigmoid(2.0)(x), lambda s: 2.0 * s * (1 - s)),
        (lambda x: Expc(x).tensor.imag, None),
    ],
    ids=["megengine", "loupe"],
)
def test_instance_style_functions_replay_like_any_other(fn: Any, derivative: Any) -> None:
    traced = ctxgrad.trace(fn, ctxgrad.tensor([0.0, 2.0], dtype=ctxgrad.float64, requires_grad=True))
    xs = [ctxgrad.tensor(v, dtype=ctxgrad.float64, requires_grad=True) for v in ([0.5, -1.0], [1.5, 3.0])]
    outs = [traced(x) for x in xs]  # two replays alive at once: each keeps its own state
    for x, out in zip(reversed(xs), reversed(outs)):
        out.sum().backward()
        values = fn(x.detach()).numpy()
        np.testing.assert_allclose(out.detach().numpy(), values, rtol=1e-12)
        want = np.cos(x.detach().numpy()) if derivative is None else derivative(values)
        assert x.grad is not None
        np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)


# --------------------------------------------------------------------------- the fuzzer
def _set_rows(h: ctxgrad.Tensor, d: dict[str, Any]) -> ctxgrad.Tensor:
    y = h * 1.0
    y[d["p"][:2]] = h[0] * 2.0
    return y


def _set_mask(h: ctxgrad.Tensor, d: dict[str, Any]) -> ctxgrad.Tensor:
    y = h * 1.0
    y[d["m"]] = 0.5
    return y


def _pool(h: ctxgrad.Tensor, d: dict[str, Any]) -> ctxgrad.Tensor:
    values, indices = ctxgrad.nn.functional.max_pool1d(h[None], 2, return_indices=True)
    return h + (values * indices.to(h.dtype)).sum()


F = ctxgrad.nn.functional
# Each stage maps a (4, 4) float64 tensor to another, reading the batch's ints and bools or
# drawing random numbers: labels t (0..3), a permutation p, a mask m, counts r adding up to 4.
STAGES: dict[str, Callable[[ctxgrad.Tensor, dict[str, Any]], ctxgrad.Tensor]] = {
    "tanh": lambda h, d: h.tanh(),
    "cross_entropy": lambda h, d: h + F.cross_entropy(h, d["t"]),
    "nll_loss": lambda h, d: h * F.nll_loss(h.log_softmax(1), d["t"]),
    "one_hot": lambda h, d: h * F.one_hot(d["t"], 4).to(h.dtype),
    "set_rows": _set_rows,
    "set_mask": _set_mask,
    "index_put": lambda h, d: h.index_put((d["t"],), h * 0.5, accumulate=True),
    "rows": lambda h, d: h[d["t"]],
    "where": lambda h, d: ctxgrad.where(d["m"], h, -h),
    "masked_fill": lambda h, d: h.masked_fill(d["m"], 1.0),
    "repeat_interleave": lambda h, d: h.repeat_interleave(d["r"], dim=0),
    "index_add": lambda h, d: h.index_add(0, d["t"], h),
    "scatter_add": lambda h, d: h.scatter_add(1, d["t"][:, None], h[:, :1]),
    "argsort": lambda h, d: h[h[:, 0].argsort()],
    "max_pool_indices": _pool,
    "detach": lambda h, d: h * h.detach().sigmoid(),
    "dropout": lambda h, d: F.dropout(h, 0.3),
    "rand_like": lambda h, d: h + ctxgrad.rand_like(h),
    "randn": lambda h, d: h * ctxgrad.randn(4, 4, dtype=h.dtype),
    "bernoulli": lambda h, d: h * ctxgrad.bernoulli(ctxgrad.full_like(h, 0.5)),
    "uniform_": lambda h, d: h + ctxgrad.empty_like(h).uniform_(),
    "randperm": lambda h, d: h[ctxgrad.randperm(4)],
}


def _fuzz_batch(seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    return {
        "x": ctxgrad.tensor(rng.normal(size=(4, 4)), requires_grad=True),
        "t": ctxgrad.tensor(rng.integers(0, 4, size=4)),
        "p": ctxgrad.tensor(rng.permutation(4)),
        "m": ctxgrad.tensor(rng.random((4, 4)) < 0.5),
        "r": ctxgrad.tensor(rng.multinomial(4, [0.25] * 4)),
    }


def _program(stages: list[str]) -> Callable[..., ctxgrad.Tensor]:
    def run(x: ctxgrad.Tensor, t: ctxgrad.Tensor, p: ctxgrad.Tensor, m: ctxgrad.Tensor, r: ctxgrad.Tensor) -> Any:
        d = {"t": t, "p": p, "m": m, "r": r}
        h = x
        for name in stages:
            h = STAGES[name](h, d)
        return (h * ctxgrad.arange(1.0, 17.0, dtype=h.dtype).reshape(4, 4)).sum()

    return run


@given(
    stages=st.lists(st.sampled_from(sorted(STAGES)), min_size=1, max_size=5),
    seeds=st.tuples(*[st.integers(0, 2**32 - 1)] * 3),
    fast=st.booleans(),
)
@fuzz_settings()
def test_random_programs_replay_as_they_run_eagerly(stages: list[str], seeds: tuple[int, int, int], fast: bool) -> None:
    note(f"stages={stages}")
    program = _program(stages)
    traced_on, replayed_on, seed = seeds
    with warnings.catch_warnings():
        warnings.simplefilter("error", TracerWarning)
        ctxgrad.manual_seed(seed + 1)
        traced = ctxgrad.trace(program, fast=fast, **_fuzz_batch(traced_on))
        inputs = _fuzz_batch(replayed_on)
        ctxgrad.manual_seed(seed)
        replayed = traced(**inputs)
    replayed.backward()
    replay_grad = inputs["x"].grad
    inputs["x"].grad = None
    ctxgrad.manual_seed(seed)
    eager = program(**inputs)
    eager.backward()
    assert replay_grad is not None and inputs["x"].grad is not None
    np.testing.assert_array_equal(replayed.detach().numpy(), eager.detach().numpy())
    np.testing.assert_array_equal(replay_grad.numpy(), inputs["x"].grad.numpy())
