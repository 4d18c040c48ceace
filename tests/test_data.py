"""ctxgrad.utils.data: datasets, samplers, collation and DataLoader, against torch.utils.data."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)

FEATURES = np.arange(30.0).reshape(10, 3)
LABELS = np.array([0, 1, 2, 0, 1, 2, 0, 1, 2, 0])
Point = namedtuple("Point", ["x", "label"])


def plain(obj: Any) -> Any:
    """A comparable form of a batch from either library: tensors become (dtype, values)."""
    if type(obj).__name__ == "Tensor":
        return ("tensor", str(obj.dtype).removeprefix("torch.").removeprefix("ctxgrad."), obj.detach().numpy().tolist())
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return (type(obj).__name__, [plain(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [plain(v) for v in obj])
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    return obj


class Records:
    """A dataset of mixed samples, built on either library's tensor factory."""

    def __init__(self, lib: Any) -> None:
        self.lib = lib

    def __getitem__(self, i: int) -> Any:
        return {
            "x": self.lib.tensor(FEATURES[i]),
            "label": int(LABELS[i]),
            "weight": float(i) / 2,
            "name": f"item{i}",
            "flag": i % 2 == 0,
            "pair": (np.float32(i), np.arange(2) + i),
            "point": Point(self.lib.tensor([i, i]), i),
        }

    def __len__(self) -> int:
        return len(LABELS)


@pytest.mark.parametrize(
    ("batch_size", "drop_last"), [(1, False), (3, False), (3, True), (5, True), (10, False), (12, False), (12, True)]
)
def test_tensor_dataset_batches_match_torch(torch: Any, batch_size: int, drop_last: bool) -> None:
    ours = DataLoader(
        TensorDataset(ctxgrad.tensor(FEATURES), ctxgrad.tensor(LABELS)), batch_size=batch_size, drop_last=drop_last
    )
    theirs = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(torch.tensor(FEATURES), torch.tensor(LABELS)),
        batch_size=batch_size,
        drop_last=drop_last,
    )
    assert len(ours) == len(theirs)
    assert [plain(b) for b in ours] == [plain(b) for b in theirs]


def test_mixed_samples_collate_like_torch(torch: Any) -> None:
    ours = [plain(b) for b in DataLoader(Records(ctxgrad), batch_size=4)]
    theirs = [plain(b) for b in torch.utils.data.DataLoader(Records(torch), batch_size=4)]
    assert ours == theirs
    first = next(iter(DataLoader(Records(ctxgrad), batch_size=4)))
    assert first["name"] == ["item0", "item1", "item2", "item3"]
    assert first["weight"].dtype == ctxgrad.float64 and first["label"].dtype == ctxgrad.int64
    assert first["flag"].dtype == ctxgrad.bool and first["pair"][0].dtype == ctxgrad.float32
    assert isinstance(first["point"], Point)


def test_lists_and_plain_numbers_collate_like_torch(torch: Any) -> None:
    data = [[1, 2.5], [3, 4.5], [5, 6.5]]
    ours = [plain(b) for b in DataLoader(data, batch_size=2)]
    theirs = [plain(b) for b in torch.utils.data.DataLoader(data, batch_size=2)]
    assert ours == theirs


def test_batch_size_none_yields_single_samples_like_torch(torch: Any) -> None:
    data = [(np.ones(2), 1), (np.zeros(2), 2)]
    ours = [plain(b) for b in DataLoader(data, batch_size=None)]
    theirs = [plain(b) for b in torch.utils.data.DataLoader(data, batch_size=None)]
    assert ours == theirs


def test_custom_collate_fn_and_batch_sampler() -> None:
    loader = DataLoader(range(7), batch_sampler=[[6, 0], [3]], collate_fn=lambda batch: sum(batch))
    assert list(loader) == [6, 3] and len(loader) == 2


def test_shuffle_is_a_fresh_permutation_each_epoch_and_seeded_by_manual_seed() -> None:
    loader = DataLoader(range(20), batch_size=4, shuffle=True)
    ctxgrad.manual_seed(0)
    epoch1 = [int(i) for b in loader for i in b]
    epoch2 = [int(i) for b in loader for i in b]
    assert sorted(epoch1) == list(range(20)) and sorted(epoch2) == list(range(20))
    assert epoch1 != epoch2 and epoch1 != list(range(20))
    ctxgrad.manual_seed(0)
    assert [int(i) for b in loader for i in b] == epoch1


def test_shuffle_with_a_generator_is_reproducible() -> None:
    def order(seed: int) -> list[int]:
        loader = DataLoader(range(10), batch_size=3, shuffle=True, generator=np.random.default_rng(seed))
        return [int(i) for b in loader for i in b]

    assert order(5) == order(5) != order(6)
    ctxgrad.manual_seed(1)
    first = order(5)
    ctxgrad.manual_seed(2)
    assert order(5) == first  # the global seed does not matter when a generator is given


def test_shuffle_with_drop_last_keeps_full_batches() -> None:
    batches = list(DataLoader(range(10), batch_size=4, shuffle=True, drop_last=True))
    assert [len(b) for b in batches] == [4, 4]
    assert len(set(int(i) for b in batches for i in b)) == 8


def test_samplers() -> None:
    assert list(SequentialSampler(range(3))) == [0, 1, 2]
    sampler = RandomSampler(range(5), generator=np.random.default_rng(0))
    assert sorted(sampler) == [0, 1, 2, 3, 4] and len(sampler) == 5
    with_replacement = list(
        RandomSampler(range(3), replacement=True, num_samples=50, generator=np.random.default_rng(0))
    )
    assert len(with_replacement) == 50 and set(with_replacement) == {0, 1, 2}
    more = list(RandomSampler(range(3), num_samples=7, generator=np.random.default_rng(0)))
    assert len(more) == 7 and sorted(more[:6]) == [0, 0, 1, 1, 2, 2]
    assert list(BatchSampler(range(5), 2, drop_last=True)) == [[0, 1], [2, 3]]
    assert len(BatchSampler(range(5), 2, drop_last=False)) == 3


def test_datasets() -> None:
    class Squares(Dataset[int]):
        def __getitem__(self, i: int) -> int:
            return i * i

        def __len__(self) -> int:
            return 4

    both = Squares() + Subset(Squares(), [3, 1])
    assert len(both) == 6 and [both[i] for i in range(6)] == [0, 1, 4, 9, 9, 1] and both[-1] == 1
    ds = TensorDataset(ctxgrad.tensor(FEATURES), ctxgrad.tensor(LABELS))
    x, y = ds[2]
    assert x.tolist() == [6.0, 7.0, 8.0] and y.item() == 2 and len(ds) == 10


@pytest.mark.parametrize("lengths", [[0.5, 0.5], [0.33, 0.33, 0.34], [0.1, 0.2, 0.7], [3, 7], [0.25, 0.75]])
def test_random_split_sizes_match_torch(torch: Any, lengths: list[Any]) -> None:
    ours = random_split(range(10), lengths, generator=np.random.default_rng(0))
    theirs = torch.utils.data.random_split(range(10), lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s) == list(range(10))


def test_random_split_is_reproducible() -> None:
    ctxgrad.manual_seed(3)
    a = [list(s) for s in random_split(range(10), [5, 5])]
    ctxgrad.manual_seed(3)
    assert [list(s) for s in random_split(range(10), [5, 5])] == a


def test_errors(torch: Any) -> None:
    with pytest.raises(ValueError, match=r"Size mismatch between tensors: first dimensions are \[3, 2\]"):
        TensorDataset(ctxgrad.ones(3), ctxgrad.ones(2))
    with pytest.raises(ValueError, match="tensor 0 is 0-d"):
        TensorDataset(ctxgrad.tensor(1.0))
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        DataLoader(range(3), batch_size=0)
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(range(3), sampler=[0, 1], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(range(3), batch_sampler=[[0]], batch_size=2)
    with pytest.raises(ValueError, match="mutually exclusive with drop_last"):
        DataLoader(range(3), batch_size=None, drop_last=True)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(range(3), num_workers=-1)
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        list(DataLoader([(1, 2), (3,)], batch_size=2))
    with pytest.raises(
        TypeError,
        match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found <class",
    ):
        default_collate([object()])
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 1 is not between 0 and 1"):
        random_split(range(10), [0.5, 1.5, -1.0])
    with pytest.raises(TypeError, match=r"generator must be a numpy\.random\.Generator"):
        RandomSampler(range(3), generator=torch.Generator())
