"""The runtime surface public torch code uses (torch-usage.tsv): dtypes and constants, the
CUDA and backend queries a CPU-only torch answers, random state, saving and loading, the data
utilities and ``testing``: the same program on ctxgrad and torch, what it returns compared."""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
import pytest
from _usage import check, random_like_torch, torch_names, values

import ctxgrad

DTYPES = ("float32", "float64", "float16", "float", "double", "half", "long", "int", "bool", "uint8", "int8")
DTYPES += ("int16", "int32", "int64", "complex64", "cfloat", "cdouble")


@torch_names(
    "torch.float32", "torch.float64", "torch.float16", "torch.float", "torch.double", "torch.half", "torch.long",
    "torch.int", "torch.bool", "torch.uint8", "torch.int8", "torch.int16", "torch.int32", "torch.int64",
    "torch.complex64", "torch.cfloat", "torch.cdouble", "torch.dtype",
)  # fmt: skip
def test_dtypes_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        found = []
        for name in DTYPES:
            dtype = getattr(m, name)
            t = m.zeros(2, dtype=dtype)
            found.append(
                (t.dtype, dtype.is_floating_point, dtype.is_complex, t.element_size(), isinstance(dtype, m.dtype))
            )
        return found

    check(run, torch)


@torch_names("torch.pi", "torch.inf", "torch.nan")
def test_constants_match_torch(torch: Any) -> None:
    check(lambda m: (m.pi, m.inf, m.tensor([m.nan, -m.inf]).isnan(), m.tensor(m.pi).cos()), torch)


@torch_names("torch.finfo")
def test_finfo_matches_torch(torch: Any) -> None:
    check(
        lambda m: [(m.finfo(d).eps, m.finfo(d).max, m.finfo(d).tiny) for d in (m.float32, m.float64, m.float16)], torch
    )


@torch_names("torch.get_default_dtype", "torch.set_default_dtype")
def test_default_dtype_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        before = m.get_default_dtype()
        m.set_default_dtype(m.float64)
        try:
            made = (m.tensor([1.5]), m.zeros(1), m.get_default_dtype(), m.tensor([1]))
        finally:
            m.set_default_dtype(before)
        return before, made, m.ones(1).dtype

    check(run, torch)


@torch_names("torch.set_default_device")
def test_set_default_device_cpu_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        m.set_default_device("cpu")
        try:
            return m.zeros(2).device, m.arange(3).device
        finally:
            m.set_default_device(None)

    check(run, torch)


@torch_names(
    "torch.cuda.is_available", "torch.cuda.device_count", "torch.cuda.manual_seed", "torch.cuda.manual_seed_all",
    "torch.cuda.empty_cache", "torch.cuda.memory_allocated", "torch.cuda.max_memory_allocated",
    "torch.cuda.is_bf16_supported", "torch.backends.mps.is_available",
)  # fmt: skip
def test_cuda_queries_answer_as_cpu_only_torch(torch: Any) -> None:
    if torch.cuda.is_available():
        pytest.skip("torch has a GPU here")

    def run(m: Any) -> Any:
        return (
            m.cuda.is_available(),
            m.cuda.device_count(),
            m.cuda.manual_seed(0),
            m.cuda.manual_seed_all(0),
            m.cuda.empty_cache(),
            m.cuda.memory_allocated(),
            m.cuda.max_memory_allocated(),
            m.cuda.is_bf16_supported(),
            m.backends.mps.is_available(),
            m.device("cuda" if m.cuda.is_available() else "cpu"),
        )

    check(run, torch)


@torch_names(
    "torch.backends.cudnn", "torch.backends.cudnn.benchmark", "torch.backends.cudnn.deterministic",
    "torch.backends.cudnn.allow_tf32", "torch.backends.cuda.matmul",
)  # fmt: skip
def test_backend_settings_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        cudnn, matmul = m.backends.cudnn, m.backends.cuda.matmul
        before = (cudnn.benchmark, cudnn.deterministic, cudnn.allow_tf32, matmul.allow_tf32)
        cudnn.benchmark, cudnn.deterministic, matmul.allow_tf32 = True, True, True
        after = (cudnn.benchmark, cudnn.deterministic, matmul.allow_tf32)
        cudnn.benchmark, cudnn.deterministic, matmul.allow_tf32 = before[0], before[1], before[3]
        return before, after

    check(run, torch)


@torch_names("torch.__version__")
def test_version_is_a_comparable_string_as_in_torch(torch: Any) -> None:
    for m in (ctxgrad, torch):
        version = m.__version__
        assert isinstance(version, str)
        assert all(part.isdigit() for part in version.split("+")[0].split(".")[:3])


@torch_names(
    "torch.manual_seed", "torch.get_rng_state", "torch.set_rng_state", "torch.random.manual_seed",
    "torch.random.fork_rng", "torch.Generator",
)  # fmt: skip
def test_random_state_replays_as_in_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        m.random.manual_seed(1)
        state = m.get_rng_state()
        first = m.rand(3)
        m.set_rng_state(state)
        replayed = m.rand(3)
        with m.random.fork_rng():
            m.rand(5)
        after_fork = m.rand(2)
        m.set_rng_state(state)
        m.rand(3)
        unforked = m.rand(2)
        g = m.Generator().manual_seed(7)
        a = m.randn(2, generator=g)
        g.manual_seed(7)
        b = m.randn(2, generator=g)
        return state.dtype, bool((first == replayed).all()), bool((after_fork == unforked).all()), bool((a == b).all())

    check(run, torch)


@torch_names("torch.save", "torch.load", "torch.load(map_location=)")
def test_save_and_load_round_trip_as_in_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        m.manual_seed(0)
        layer = m.nn.Linear(2, 3)
        state = {"model": layer.state_dict(), "step": 4, "lr": [0.1], "t": m.arange(4).reshape(2, 2)[:, 1]}
        buffer = io.BytesIO()
        m.save(state, buffer)
        buffer.seek(0)
        loaded = m.load(buffer, map_location="cpu")
        return (
            list(loaded),
            list(loaded["model"]),
            loaded["step"],
            loaded["lr"],
            loaded["t"],
        )

    check(run, torch)


@torch_names(
    "torch.utils.data", "torch.utils.data.DataLoader", "torch.utils.data.Dataset", "torch.utils.data.TensorDataset",
    "torch.utils.data.DataLoader(batch_size=)", "torch.utils.data.DataLoader(shuffle=)",
    "torch.utils.data.DataLoader(num_workers=)", "torch.utils.data.DataLoader(drop_last=)",
)  # fmt: skip
def test_data_loading_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        data = m.utils.data

        class Squares(data.Dataset):
            def __len__(self) -> int:
                return 5

            def __getitem__(self, i: int) -> Any:
                return m.tensor([float(i)]), {"square": i * i}

        pairs = data.TensorDataset(m.arange(6.0).reshape(3, 2), m.tensor([0, 1, 0]))
        plain = list(data.DataLoader(Squares(), batch_size=2, shuffle=False, num_workers=0))
        dropped = list(data.DataLoader(pairs, batch_size=2, drop_last=True))
        m.manual_seed(0)
        shuffled = [b[1].tolist() for b in data.DataLoader(pairs, batch_size=3, shuffle=True)]
        return plain, dropped, len(pairs), pairs[1], sorted(shuffled[0])

    check(run, torch)


@torch_names(
    "torch.utils.data.RandomSampler", "torch.utils.data.SequentialSampler", "torch.utils.data.Sampler",
    "torch.utils.data.Subset", "torch.utils.data.random_split", "torch.utils.data.ConcatDataset",
)  # fmt: skip
def test_samplers_and_dataset_views_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        data = m.utils.data
        base = data.TensorDataset(m.arange(10.0))

        class Evens(data.Sampler):
            def __iter__(self) -> Any:
                return iter(range(0, 10, 2))

            def __len__(self) -> int:
                return 5

        m.manual_seed(0)
        order = list(data.RandomSampler(base))
        parts = data.random_split(base, [7, 3])
        joined = data.ConcatDataset([data.Subset(base, [1, 3]), base])
        batches = list(data.DataLoader(base, batch_size=2, sampler=Evens()))
        return (
            list(data.SequentialSampler(base)),
            sorted(order),
            [len(p) for p in parts],
            sorted(int(i) for p in parts for i in p.indices),
            len(joined),
            joined[1],
            joined[2],
            batches,
        )

    check(run, torch)


@torch_names("torch.testing", "torch.testing.assert_close")
def test_assert_close_passes_and_fails_as_torch(torch: Any) -> None:
    for m in (ctxgrad, torch):
        m.testing.assert_close(m.tensor([1.0, 2.0]), m.tensor([1.0, 2.0 + 1e-7]))
    kinds = []
    for m in (ctxgrad, torch):
        with pytest.raises(AssertionError) as info:
            m.testing.assert_close(m.tensor([1.0, 2.0]), m.tensor([1.0, 2.5]))
        kinds.append("Mismatched elements: 1 / 2" in str(info.value))
    assert kinds == [True, True]


@torch_names("torch.autocast")
def test_autocast_disabled_on_the_cpu_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        a = m.tensor([[1.0, 2.0], [3.0, 4.0]])
        with m.autocast("cpu", enabled=False):
            return a @ a

    check(run, torch)


@torch_names("torch.distributions", "torch.distributions.Normal", "torch.distributions.Categorical")
def test_common_distributions_log_prob_and_entropy_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        loc = m.tensor([0.0, 1.0], dtype=m.float64, requires_grad=True)
        normal = m.distributions.Normal(loc, 2.0)
        lp = normal.log_prob(m.tensor([0.5, -1.0], dtype=m.float64)).sum()
        cat = m.distributions.Categorical(logits=m.tensor([0.1, 0.5, -1.0], dtype=m.float64))
        lp.backward()
        return lp, loc.grad, normal.entropy(), cat.log_prob(m.tensor(1)), cat.probs, cat.entropy()

    check(run, torch)
    random_like_torch(lambda m: m.distributions.Normal(m.zeros(3), 1.0).rsample(), torch)


@torch_names("torch.Generator")
def test_a_seeded_generator_gives_uniform_draws_in_range(torch: Any) -> None:
    g = ctxgrad.Generator().manual_seed(0)
    draws = values(ctxgrad.rand(2000, generator=g))
    assert 0 <= draws.min() and draws.max() < 1 and math.isclose(float(np.mean(draws)), 0.5, abs_tol=0.03)
    assert torch.Generator().manual_seed(0).initial_seed() == ctxgrad.Generator().manual_seed(0).initial_seed()
