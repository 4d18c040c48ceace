"""``vmap``'s ``randomness`` for the random ops whose input is shared by the samples (or that
have none): ``randperm``, the dropouts of a tensor made inside the mapped function,
``bernoulli(x, p)`` and ``rrelu``, each against ``torch.func.vmap`` running the same code.

The two libraries draw different numbers from the same seed, so what is compared is what
torch defines: the exception (type and message) where it refuses, else the result's shape
and dtype, whether the samples came out equal (``"same"``) or each its own
(``"different"``), and how the draws relate to the draws made outside vmap from the same
state of the generator (each library against itself).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

LIBS = [ctxgrad, torch]
BATCH = 4


def _refusal(run: Callable[[], Any]) -> tuple[type[BaseException], str] | None:
    try:
        run()
    except Exception as exc:  # (what it raised is compared with torch's)
        return type(exc), str(exc)
    return None


def _rows(out: Any) -> list[np.ndarray[Any, Any]]:
    values = np.asarray(out.detach().numpy())
    return [values[i] for i in range(values.shape[0])]


def _samples_relate(out: Any, randomness: str) -> bool:
    """``"same"``: every sample equals the first; ``"different"``: no two samples are equal."""
    rows = _rows(out)
    pairs = [(i, j) for i in range(len(rows)) for j in range(i + 1, len(rows))]
    equal = [np.array_equal(rows[i], rows[j]) for i, j in pairs]
    return all(equal) if randomness == "same" else not any(equal)


def _seeded(lib: Any, generator: Any) -> Callable[[], None]:
    """A function that puts the generator used (``generator`` or the default one) back to
    the state it has now."""
    if generator is not None:
        state = generator.get_state()
        return lambda: generator.set_state(state)
    state = lib.get_rng_state()
    return lambda: lib.set_rng_state(state)


# ----------------------------------------------------------------------------- randperm
@pytest.mark.parametrize("use_generator", [False, True])
def test_randperm_refuses_in_error_mode_as_torch(use_generator: bool) -> None:
    def run(lib: Any) -> Any:
        kwargs = {"generator": lib.Generator()} if use_generator else {}
        return _refusal(lambda: lib.func.vmap(lambda _: lib.randperm(10, **kwargs))(lib.zeros(BATCH)))

    got, want = run(ctxgrad), run(torch)
    assert want is not None and want[0] is RuntimeError
    assert got == want


def _randperm_draws(lib: Any, randomness: str, use_generator: bool) -> None:
    lib.manual_seed(7)
    generator = lib.Generator().manual_seed(3) if use_generator else None
    kwargs = {"generator": generator} if use_generator else {}
    restore = _seeded(lib, generator)
    out = lib.func.vmap(lambda _: lib.randperm(10, **kwargs), randomness=randomness)(lib.zeros(BATCH))
    restore()
    calls = BATCH if randomness == "different" else 1
    expected = [lib.randperm(10, **kwargs) for _ in range(calls)] * (BATCH // calls)
    assert tuple(out.shape) == (BATCH, 10) and out.dtype == lib.int64, lib.__name__
    assert all(out[i].tolist() == expected[i].tolist() for i in range(BATCH)), lib.__name__
    assert sorted(out[0].tolist()) == list(range(10))
    if randomness == "different":
        assert _samples_relate(out, "different"), lib.__name__


@pytest.mark.parametrize("use_generator", [False, True])
@pytest.mark.parametrize("randomness", ["same", "different"])
def test_randperm_draws_as_torch(randomness: str, use_generator: bool) -> None:
    """``"different"``: the samples get the permutations as many calls in a row would give;
    ``"same"``: every sample the one a single call gives (each library against itself)."""
    for lib in LIBS:
        _randperm_draws(lib, randomness, use_generator)


# ----------------------------------------------------------------------------- dropouts
DROPOUTS: dict[str, Callable[[Any, Any], Any]] = {
    "dropout": lambda lib, t: lib.nn.functional.dropout(t, 0.5, training=True),
    "alpha_dropout": lambda lib, t: lib.nn.functional.alpha_dropout(t, 0.5, training=True),
    "dropout1d": lambda lib, t: lib.nn.functional.dropout1d(t.flatten(1), 0.5, training=True),
    "dropout2d": lambda lib, t: lib.nn.functional.dropout2d(t, 0.5, training=True),
    "dropout3d": lambda lib, t: lib.nn.functional.dropout3d(t.unsqueeze(-1), 0.5, training=True),
    "feature_alpha_dropout": lambda lib, t: lib.nn.functional.feature_alpha_dropout(t, 0.5, training=True),
    "nn.Dropout": lambda lib, t: lib.nn.Dropout(0.5)(t),
}
#: a sample of (channels, height, width): 24 channels, so that two samples' channel masks
#: coincide with probability 2**-24
SAMPLE = (24, 4, 4)


def _dropout_run(lib: Any, name: str, randomness: str, where: str) -> Any:
    """The dropout of ``ones`` made inside the mapped function (``where="inside"``), or of
    the mapped input (``"batched"``), or of an input shared by the samples (``"shared"``)."""
    drop = DROPOUTS[name]
    if where == "inside":
        return lib.func.vmap(lambda _: drop(lib, lib.ones(SAMPLE)), randomness=randomness)(lib.zeros(BATCH))
    if where == "batched":
        return lib.func.vmap(lambda t: drop(lib, t), randomness=randomness)(lib.ones(BATCH, *SAMPLE))
    return lib.func.vmap(lambda t, _: drop(lib, t), in_dims=(None, 0), randomness=randomness)(
        lib.ones(SAMPLE), lib.zeros(BATCH)
    )


@pytest.mark.filterwarnings("ignore:dropout2d")
@pytest.mark.parametrize("where", ["inside", "batched", "shared"])
@pytest.mark.parametrize("name", list(DROPOUTS))
def test_dropout_refuses_in_error_mode_as_torch(name: str, where: str) -> None:
    got = _refusal(lambda: _dropout_run(ctxgrad, name, "error", where))
    want = _refusal(lambda: _dropout_run(torch, name, "error", where))
    assert want is not None and want[0] is RuntimeError
    assert got == want


@pytest.mark.filterwarnings("ignore:dropout2d")
@pytest.mark.parametrize("randomness", ["same", "different"])
@pytest.mark.parametrize("where", ["inside", "batched", "shared"])
@pytest.mark.parametrize("name", list(DROPOUTS))
def test_dropout_masks_follow_randomness_as_torch(name: str, where: str, randomness: str) -> None:
    """``"different"``: a mask per sample, also for a tensor the samples share;
    ``"same"``: one mask for every sample."""
    results = {}
    for lib in LIBS:
        out = _dropout_run(lib, name, randomness, where)
        results[lib.__name__] = (tuple(out.shape), str(out.dtype).split(".")[-1], _samples_relate(out, randomness))
    assert results["ctxgrad"] == results["torch"]
    assert results["torch"][2]


def test_dropout_of_a_shared_tensor_added_to_a_batched_one_as_torch() -> None:
    """A reduction of the dropout of an unbatched tensor, added to the mapped input."""

    def run(lib: Any, randomness: str) -> Any:
        x, y = lib.ones(3), lib.ones(1, 3)
        return lib.func.vmap(
            lambda a, b: a + lib.nn.functional.dropout(b, p=0.5).mean(1), in_dims=(0, None), randomness=randomness
        )(x, y)

    assert _refusal(lambda: run(ctxgrad, "error")) == _refusal(lambda: run(torch, "error")) is not None
    for randomness in ("same", "different"):
        got, want = run(ctxgrad, randomness), run(torch, randomness)
        assert tuple(got.shape) == tuple(want.shape) == (3, 1)


# ----------------------------------------------------------------------------- bernoulli(x, p)
def _bernoulli_outcome(lib: Any, randomness: str, batched: bool, use_generator: bool) -> Any:
    """What ``vmap`` of ``bernoulli(x, 0.5)`` raised, or its shape, dtype and how its samples
    relate, after checking its draws against those made outside vmap."""
    lib.manual_seed(11)
    generator = lib.Generator().manual_seed(5) if use_generator else None
    kwargs = {"generator": generator} if use_generator else {}
    x = lib.ones(BATCH, 6, 8) if batched else lib.ones(6, 8)
    in_dims = (0 if batched else None, 0)
    restore = _seeded(lib, generator)

    def run() -> Any:
        sample = lambda t, _: lib.bernoulli(t, 0.5, **kwargs)  # noqa: E731
        return lib.func.vmap(sample, in_dims=in_dims, randomness=randomness)(x, lib.zeros(BATCH))

    refused = _refusal(run)
    if refused is not None:
        return refused
    restore()
    out = run()
    restore()
    if randomness == "different":
        drawn = lib.bernoulli(x if batched else x.expand(BATCH, 6, 8), 0.5, **kwargs)
        expected = [drawn[i] for i in range(BATCH)]
    else:
        expected = [lib.bernoulli(x, 0.5, **kwargs)] * BATCH
    assert all(out[i].tolist() == expected[i].tolist() for i in range(BATCH)), lib.__name__
    return tuple(out.shape), str(out.dtype).split(".")[-1], _samples_relate(out, randomness)


@pytest.mark.parametrize("use_generator", [False, True])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("randomness", ["error", "same", "different"])
def test_bernoulli_with_a_number_p_follows_randomness_as_torch(
    randomness: str, batched: bool, use_generator: bool
) -> None:
    """``bernoulli(x, p)`` under ``"different"`` draws what ``bernoulli`` of the whole batch
    draws from the same generator state (a shared ``x`` counts as the batch of its copies);
    ``"same"`` refuses a batched ``x`` and draws once for a shared one."""
    got = _bernoulli_outcome(ctxgrad, randomness, batched, use_generator)
    want = _bernoulli_outcome(torch, randomness, batched, use_generator)
    assert got == want


def test_bernoulli_with_p_out_of_range_refuses_as_torch() -> None:
    got = _refusal(lambda: ctxgrad.bernoulli(ctxgrad.ones(3), 1.5))
    want = _refusal(lambda: torch.bernoulli(torch.ones(3), 1.5))
    assert want is not None and got == want


# ----------------------------------------------------------------------------- rrelu
@pytest.mark.parametrize("inplace", [False, True])
@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("randomness", ["error", "same", "different"])
def test_rrelu_in_training_refuses_under_vmap_as_torch(randomness: str, shared: bool, inplace: bool) -> None:
    def run(lib: Any) -> Any:
        def f(t: Any) -> Any:
            source = -lib.ones(5) if shared else -t.clone()
            return lib.nn.functional.rrelu(source, training=True, inplace=inplace)

        return _refusal(lambda: lib.func.vmap(f, randomness=randomness)(lib.ones(BATCH, 5)))

    got, want = run(ctxgrad), run(torch)
    assert want is not None and want[0] is RuntimeError
    assert got == want
