"""Names torch programs use that ctxgrad lacked, each against torch: ``torch.binomial``,
``torch._standard_gamma``, ``torch.clamp_min_``/``clamp_max_``, the random factories' ``out=``,
``torch.func.replace_all_batch_norm_modules_`` and functorch's ``make_functional``,
``make_functional_with_buffers``, ``combine_state_for_ensemble`` and
``functorch.experimental.chunk_vmap`` (through the torch alias, as a program imports them).

Random values differ between the libraries (ctxgrad draws from NumPy's generator), so draws
are compared by what does not depend on the stream: shapes, dtypes, ranges, the identity of
the returned tensor, gradients given the draw, and errors."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad._torch_alias import torch_alias

torch = pytest.importorskip("torch")
functorch = pytest.importorskip("functorch")
functorch_experimental = pytest.importorskip("functorch.experimental")

LIBS = (ctxgrad, torch)


def _error(call: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(Exception) as info:
        call()
    return type(info.value).__name__, str(info.value)


def _same_error(program: Callable[[Any], Any]) -> tuple[str, str]:
    got, want = (_error(lambda lib=lib: program(lib)) for lib in LIBS)
    assert got == want
    return want


# ----------------------------------------------------------------------------- binomial
@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_binomial_draws_whole_counts_within_their_trials_broadcast_in_the_input_dtype() -> None:
    for lib in LIBS:
        count = lib.tensor([[10.0], [4.0], [0.0]], dtype=lib.float64)
        prob = lib.tensor([0.0, 0.5, 1.0], dtype=lib.float64)
        draw = lib.binomial(count, prob)
        values = draw.numpy()
        assert draw.dtype == lib.float64 and tuple(draw.shape) == (3, 3)
        assert np.all(values == np.floor(values)) and np.all((values >= 0) & (values <= count.numpy()))
        np.testing.assert_array_equal(values[:, 0], [0.0, 0.0, 0.0])  # probability 0
        np.testing.assert_array_equal(values[:, 2], [10.0, 4.0, 0.0])  # probability 1


def test_binomial_mean_is_count_times_probability() -> None:
    ctxgrad.manual_seed(0)
    draws = ctxgrad.binomial(ctxgrad.full((20000,), 8.0), ctxgrad.full((20000,), 0.25))
    assert abs(float(draws.mean()) - 2.0) < 0.05


def test_binomial_with_a_generator_repeats_its_draw() -> None:
    for lib in LIBS:
        count, prob = lib.full((5,), 20.0), lib.full((5,), 0.5)
        first = lib.binomial(count, prob, generator=lib.Generator().manual_seed(3))
        again = lib.binomial(count, prob, generator=lib.Generator().manual_seed(3))
        np.testing.assert_array_equal(first.numpy(), again.numpy())


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.binomial(lib.tensor([10.0]), 0.5),
        lambda lib: lib.binomial(lib.tensor([10]), lib.tensor([0.5])),
        lambda lib: lib.binomial(lib.tensor([10.0]), lib.tensor([0.5], dtype=lib.float64)),
        lambda lib: lib.binomial(lib.tensor([10.0], dtype=lib.float16), lib.tensor([0.5], dtype=lib.float16)),
        lambda lib: lib.binomial(lib.tensor([10.0, 2.0]), lib.tensor([0.5, 0.5, 0.5])),
    ],
    ids=["number-prob", "integer-count", "mixed-dtypes", "half", "shapes"],
)
def test_binomial_refuses_as_torch(program: Callable[[Any], Any]) -> None:
    kind, message = _same_error(program)
    assert kind in ("TypeError", "ValueError", "RuntimeError", "NotImplementedError") and message


def test_a_binomial_draw_has_torchs_history_whose_backward_refuses() -> None:
    for lib in LIBS:
        prob = lib.tensor([0.5, 0.25], requires_grad=True)
        draw = lib.binomial(lib.tensor([3.0, 4.0]), prob)
        assert draw.requires_grad and type(draw.grad_fn).__name__ == "NotImplemented"
    _same_error(lambda lib: lib.binomial(lib.tensor([3.0]), lib.tensor([0.5], requires_grad=True)).sum().backward())


@pytest.mark.parametrize("count, prob", [(2.5, 0.5), (-1.0, 0.5), (10.0, 1.5), (10.0, float("nan"))])
def test_binomial_refuses_counts_and_probabilities_torch_draws_garbage_from(count: float, prob: float) -> None:
    # torch returns a number for these (0 trials for 2.5, NaN for a NaN probability); ctxgrad
    # refuses them (docs/differences.md).
    torch.binomial(torch.tensor([count]), torch.tensor([prob]))
    with pytest.raises(RuntimeError, match=r"binomial\(\): expected (count|prob)"):
        ctxgrad.binomial(ctxgrad.tensor([count]), ctxgrad.tensor([prob]))


@pytest.mark.filterwarnings("ignore:An output with one or more elements was resized")
def test_binomial_under_vmap_follows_randomness_as_torch() -> None:
    for lib in LIBS:
        probs = lib.full((64,), 0.5)
        draws = lib.func.vmap(lambda p, lib=lib: lib.binomial(lib.tensor(100.0), p), randomness="different")(probs)
        assert tuple(draws.shape) == (64,) and len(set(draws.tolist())) > 1
    _same_error(lambda lib: lib.func.vmap(lambda p: lib.binomial(lib.tensor(10.0), p))(lib.full((3,), 0.5)))


# ----------------------------------------------------------------------------- _standard_gamma
def test_standard_gamma_draws_positive_samples_with_torchs_implicit_gradient() -> None:
    # Given the same draw, the gradient is torch's _standard_gamma_grad of it.  Both are
    # approximations, which differ by up to about 1.5e-4 relative for some draws (about one
    # draw in forty): a fixed seed keeps the test to draws where they agree within 1e-4.
    ctxgrad.manual_seed(0)
    alpha = ctxgrad.tensor([0.5, 1.0, 3.0], dtype=ctxgrad.float64, requires_grad=True)
    sample = ctxgrad._standard_gamma(alpha)
    assert sample.dtype == ctxgrad.float64 and bool((sample > 0).all())
    assert type(sample.grad_fn).__name__ == "StandardGammaBackward0"
    sample.sum().backward()
    want = torch._standard_gamma_grad(torch.tensor(alpha.detach().numpy()), torch.tensor(sample.detach().numpy()))
    np.testing.assert_allclose(alpha.grad.numpy(), want.numpy(), rtol=1e-4)
    torch_sample = torch._standard_gamma(torch.tensor([0.5, 1.0], requires_grad=True))
    assert type(torch_sample.grad_fn).__name__ == "StandardGammaBackward0"


def test_standard_gamma_mean_is_its_shape_and_a_generator_repeats_it() -> None:
    ctxgrad.manual_seed(1)
    assert abs(float(ctxgrad._standard_gamma(ctxgrad.full((20000,), 3.0)).mean()) - 3.0) < 0.06
    for lib in LIBS:
        alpha = lib.full((4,), 2.0)
        first = lib._standard_gamma(alpha, generator=lib.Generator().manual_seed(5))
        again = lib._standard_gamma(alpha, generator=lib.Generator().manual_seed(5))
        np.testing.assert_array_equal(first.numpy(), again.numpy())


@pytest.mark.parametrize("dtype", ["int64", "float16"])
def test_standard_gamma_refuses_dtypes_as_torch(dtype: str) -> None:
    _same_error(lambda lib: lib._standard_gamma(lib.tensor([1.0, 2.0]).to(getattr(lib, dtype))))


# ----------------------------------------------------------------------------- clamp_min_, clamp_max_
@pytest.mark.parametrize("name", ["clamp_min_", "clamp_max_"])
@pytest.mark.parametrize("bound", ["number", "tensor"])
@pytest.mark.parametrize("form", ["function", "method"])
def test_clamp_min_and_max_in_place_as_torch(name: str, bound: str, form: str) -> None:
    results = []
    for lib in LIBS:
        leaf = lib.tensor([-2.0, 0.5, 3.0], requires_grad=True)
        x = leaf * 1
        limit = 0.25 if bound == "number" else lib.tensor([0.0, 1.0, 2.0])
        out = getattr(lib, name)(x, limit) if form == "function" else getattr(x, name)(limit)
        assert out is x and x._version == 1
        (x * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        results.append((x.detach().numpy(), leaf.grad.numpy(), type(x.grad_fn).__name__))
    (gx, gg, gname), (wx, wg, wname) = results
    np.testing.assert_array_equal(gx, wx)
    np.testing.assert_array_equal(gg, wg)
    assert gname == wname


def test_clamp_min_in_place_on_a_leaf_that_requires_grad_is_refused_as_torch() -> None:
    _same_error(lambda lib: lib.clamp_min_(lib.ones(2, requires_grad=True), 0.0))


# ----------------------------------------------------------------------------- out= of random factories
RANDOM_FACTORIES: dict[str, Callable[[Any, Any], Any]] = {
    "randn": lambda lib, out: lib.randn(2, 3, out=out),
    "rand": lambda lib, out: lib.rand(2, 3, out=out),
    "randint": lambda lib, out: lib.randint(0, 5, (2, 3), out=out),
    "randperm": lambda lib, out: lib.randperm(6, out=out.view(-1)),
}


@pytest.mark.parametrize("name", sorted(RANDOM_FACTORIES))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_a_random_factory_writes_into_out_in_its_dtype_as_torch(name: str, dtype: str) -> None:
    outcomes = []
    for lib in LIBS:
        out = lib.zeros(2, 3, dtype=getattr(lib, dtype))
        try:
            made = RANDOM_FACTORIES[name](lib, out)
        except Exception as exc:  # rand and randn of an integer dtype: compared below
            outcomes.append((type(exc).__name__, str(exc)))
            continue
        assert made is out or made._base is out
        outcomes.append((str(made.dtype).split(".")[-1], tuple(made.shape)))
    assert outcomes[0] == outcomes[1]


def test_randn_out_is_resized_draws_what_dtype_draws_and_takes_requires_grad() -> None:
    for lib in LIBS:
        out = lib.empty(2)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (a factory resizes out= without torch's warning)
            assert lib.randn(3, 4, out=out) is out and tuple(out.shape) == (3, 4)
        assert lib.randn(3, out=lib.empty(3), requires_grad=True).requires_grad
    ctxgrad.manual_seed(4)
    want = ctxgrad.randn(2, 3, dtype=ctxgrad.float64)
    ctxgrad.manual_seed(4)
    got = ctxgrad.randn(2, 3, out=ctxgrad.empty(2, 3, dtype=ctxgrad.float64))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize(
    "program",
    [
        lambda lib: lib.randn(2, out=lib.empty(2, requires_grad=True)),
        lambda lib: lib.randn(2, out=lib.empty(2, dtype=lib.float64), dtype=lib.float32),
        lambda lib: lib.randint(3, (2,), out=lib.empty(2, dtype=lib.float64), dtype=lib.float32),
    ],
    ids=["requires-grad", "dtype-mismatch", "randint-dtype-mismatch"],
)
def test_random_factory_out_refusals_as_torch(program: Callable[[Any], Any]) -> None:
    _same_error(program)


# ----------------------------------------------------------------------------- replace_all_batch_norm_modules_
def _net(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Sequential(nn.ReLU(), nn.BatchNorm1d(4)))


def test_replace_all_batch_norm_modules_as_torch() -> None:
    states = []
    for lib in LIBS:
        net = _net(lib)
        assert lib.func.replace_all_batch_norm_modules_(net) is net
        bns = [m for m in net.modules() if isinstance(m, lib.nn.BatchNorm1d)]
        states.append(
            [(m.track_running_stats, m.running_mean, m.running_var, m.num_batches_tracked) for m in bns]
            + [sorted(dict(net.named_buffers()))]
        )
    assert states[0] == states[1]
    assert states[1][0] == (False, None, None, None)


def test_batch_norm_after_replace_runs_under_vmap_with_batch_statistics_as_torch() -> None:
    outs = []
    data = np.random.default_rng(0).standard_normal((2, 5, 3)).astype(np.float32)
    for lib in LIBS:
        net = lib.func.replace_all_batch_norm_modules_(lib.nn.Sequential(lib.nn.BatchNorm1d(3)))
        outs.append(lib.func.vmap(net)(lib.tensor(data)).detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-5)


def test_functorch_experimental_names_through_the_alias() -> None:
    with torch_alias(replace_installed=True):
        import functorch as aliased
        from functorch.experimental import chunk_vmap, replace_all_batch_norm_modules_

        assert chunk_vmap is ctxgrad.func.experimental.chunk_vmap
        assert replace_all_batch_norm_modules_ is ctxgrad.func.replace_all_batch_norm_modules_
        assert aliased.make_functional is ctxgrad.func.make_functional
        assert aliased.combine_state_for_ensemble is ctxgrad.func.combine_state_for_ensemble


# ----------------------------------------------------------------------------- make_functional & co
@pytest.fixture
def deprecations() -> Iterator[list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught


def _functorch_of(lib: Any) -> Any:
    return functorch if lib is torch else ctxgrad.func


def _copy_weights(source: Any, target: Any) -> None:
    with torch.no_grad():
        for (_, s), (_, t) in zip(source.named_parameters(), target.named_parameters()):
            t.copy_(torch.tensor(s.detach().numpy()))


def test_make_functional_as_torch(deprecations: list[warnings.WarningMessage]) -> None:
    x = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    results = []
    mine = ctxgrad.nn.Sequential(ctxgrad.nn.Linear(3, 2), ctxgrad.nn.Tanh(), ctxgrad.nn.Linear(2, 1))
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
    _copy_weights(mine, theirs)
    for lib, model in ((ctxgrad, mine), (torch, theirs)):
        fmodel, params = _functorch_of(lib).make_functional(model)
        assert isinstance(fmodel, lib.nn.Module) and isinstance(params, tuple)
        assert all(p.requires_grad for p in params) and params[0] is not model[0].weight
        out = fmodel(params, lib.tensor(x))
        np.testing.assert_allclose(out.detach().numpy(), model(lib.tensor(x)).detach().numpy(), rtol=1e-6)
        grads = lib.func.grad(lambda ps, v, fmodel=fmodel: fmodel(ps, v).sum())(params, lib.tensor(x))
        # (a gradient that depends on the parameters stays differentiable with respect to them)
        flags = [g.requires_grad for g in grads]
        results.append(
            ([tuple(p.shape) for p in params], [g.detach().numpy() for g in grads], fmodel.param_names, flags)
        )
    assert results[0][0] == results[1][0] and results[0][2] == tuple(results[1][2]) and results[0][3] == results[1][3]
    for g, w in zip(results[0][1], results[1][1]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    messages = [str(w.message) for w in deprecations if w.category is FutureWarning]
    assert (
        len(messages) == 2 and messages[0] == messages[1] and "`functorch.make_functional` is deprecated" in messages[0]
    )


def test_make_functional_detaches_with_disable_autograd_tracking_and_keeps_tied_weights_once(
    deprecations: list[warnings.WarningMessage],
) -> None:
    seen = []
    for lib in LIBS:

        class Tied(lib.nn.Module):  # type: ignore[name-defined,misc]
            def __init__(self, nn: Any = lib.nn) -> None:
                super().__init__()
                self.a = nn.Linear(2, 2)
                self.b = self.a

            def forward(self, x: Any) -> Any:
                return self.b(self.a(x))

        fmodel, params = _functorch_of(lib).make_functional(Tied(), disable_autograd_tracking=True)
        seen.append((len(params), [p.requires_grad for p in params], tuple(fmodel.param_names)))
    assert seen[0] == seen[1] == (2, [False, False], ("a.weight", "a.bias"))


def test_make_functional_refuses_a_model_with_buffers_as_torch(deprecations: list[warnings.WarningMessage]) -> None:
    _same_error(lambda lib: _functorch_of(lib).make_functional(lib.nn.BatchNorm1d(2)))


def test_make_functional_with_buffers_updates_the_buffers_given_as_torch(
    deprecations: list[warnings.WarningMessage],
) -> None:
    x = np.random.default_rng(2).standard_normal((6, 2)).astype(np.float32)
    seen = []
    for lib in LIBS:
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.BatchNorm1d(2))
        fmodel, params, buffers = _functorch_of(lib).make_functional_with_buffers(model)
        assert tuple(fmodel.buffer_names) == ("1.running_mean", "1.running_var", "1.num_batches_tracked")
        before = model[1].running_mean.clone()
        fmodel(params, buffers, lib.tensor(x))
        assert int(buffers[2]) == 1 and np.array_equal(model[1].running_mean.numpy(), before.numpy())
        seen.append(([tuple(b.shape) for b in buffers], [p.requires_grad for p in params]))
    assert seen[0] == seen[1]


def test_combine_state_for_ensemble_as_torch(deprecations: list[warnings.WarningMessage]) -> None:
    x = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)
    mine = [ctxgrad.nn.Linear(3, 2) for _ in range(4)]
    theirs = [torch.nn.Linear(3, 2) for _ in range(4)]
    for m, t in zip(mine, theirs):
        _copy_weights(m, t)
    outs = []
    for lib, models in ((ctxgrad, mine), (torch, theirs)):
        fmodel, params, buffers = _functorch_of(lib).combine_state_for_ensemble(models)
        assert type(fmodel).__name__ == "FunctionalModuleWithBuffers" and buffers == ()
        assert [tuple(p.shape) for p in params] == [(4, 2, 3), (4, 2)]
        assert all(p.is_leaf and not p.requires_grad for p in params)
        outs.append(lib.func.vmap(fmodel, (0, 0, None))(params, buffers, lib.tensor(x)).numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
    assert "`functorch.combine_state_for_ensemble` is deprecated" in str(deprecations[0].message)


@pytest.mark.parametrize("case", ["empty", "classes", "modes"])
def test_combine_state_for_ensemble_refuses_as_torch(case: str, deprecations: list[warnings.WarningMessage]) -> None:
    def program(lib: Any) -> Any:
        models = {
            "empty": [],
            "classes": [lib.nn.Linear(1, 1), lib.nn.Tanh()],
            "modes": [lib.nn.Linear(1, 1), lib.nn.Linear(1, 1).eval()],
        }[case]
        return _functorch_of(lib).combine_state_for_ensemble(models)

    assert _same_error(program)[0] == "RuntimeError"


# ----------------------------------------------------------------------------- chunk_vmap
def _chunk_vmap(lib: Any) -> Any:
    return (functorch_experimental if lib is torch else ctxgrad.func.experimental).chunk_vmap


@pytest.mark.parametrize("chunks", [1, 2, 3, 7])
def test_chunk_vmap_equals_vmap_as_torch(chunks: int) -> None:
    a = np.arange(30.0, dtype=np.float32).reshape(5, 6)
    b = np.linspace(-1, 1, 6, dtype=np.float32)
    outs = []
    for lib in LIBS:

        def f(x: Any, y: Any) -> Any:
            return (x * y).sum(), x.sin()

        total, sines = _chunk_vmap(lib)(f, in_dims=(0, None), out_dims=(0, 1), chunks=chunks)(
            lib.tensor(a), lib.tensor(b)
        )
        outs.append((total.numpy(), sines.numpy()))
    for got, want in zip(*outs):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_chunk_vmap_same_randomness_repeats_the_draw_in_every_chunk_as_torch() -> None:
    for lib in LIBS:
        lib.manual_seed(0)
        draws = _chunk_vmap(lib)(lambda x, lib=lib: x + lib.rand(()), randomness="same", chunks=3)(lib.zeros(6))
        assert len(set(draws.tolist())) == 1


def test_chunk_vmap_refusals_as_torch() -> None:
    _same_error(lambda lib: _chunk_vmap(lib)(lib.sin, randomness="sometimes"))
    _same_error(lambda lib: _chunk_vmap(lib)(lambda x: x + lib.rand(()), chunks=2)(lib.zeros(4)))
