"""Datasets, mirroring ``torch.utils.data.dataset``: map-style (:class:`Dataset`, indexed) and
iterable-style (:class:`IterableDataset`, iterated), and the ways to combine and split them."""

from __future__ import annotations

import bisect
import math
import warnings
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from ctxgrad._generator import Generator
from ctxgrad._tensor import Tensor
from ctxgrad.utils.data.sampler import _permutation

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


# --------------------------------------------------------------------------- datasets
class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__(index)`` and usually ``__len__``.

    ``a + b`` concatenates two datasets (a :class:`ConcatDataset`).
    """

    def __getitem__(self, index: int) -> T_co:
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """An iterable-style dataset: subclasses define ``__iter__``, yielding samples (a stream,
    a file read line by line); a :class:`~ctxgrad.utils.data.DataLoader` batches them in the
    order they come.  ``a + b`` chains two of them (a :class:`ChainDataset`).

    >>> class Squares(IterableDataset):
    ...     def __iter__(self):
    ...         return iter([0, 1, 4])
    >>> list(Squares() + Squares())
    [0, 1, 4, 0, 1, 4]
    """

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other: Dataset[T_co]) -> ChainDataset[T_co]:  # type: ignore[override]
        return ChainDataset([self, other])


class ChainDataset(IterableDataset[T_co]):
    """The samples of several iterable datasets, one dataset after the other."""

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Iterator[T_co]:
        for dataset in self.datasets:
            if not isinstance(dataset, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from dataset

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self.datasets)  # type: ignore[arg-type, misc]


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples made of one row (index along the first dimension) of each tensor.

    >>> import ctxgrad
    >>> ds = TensorDataset(ctxgrad.tensor([[1, 2], [3, 4]]), ctxgrad.tensor([5, 6]))
    >>> len(ds), ds[1]
    (2, (tensor([3, 4]), tensor(6)))
    """

    tensors: tuple[Tensor, ...]

    def __init__(self, *tensors: Tensor) -> None:
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset: argument {i} must be a Tensor, got {type(t).__name__}")
            if t.dim() == 0:
                raise ValueError(f"TensorDataset: tensor {i} is 0-d; each tensor needs a first dimension to index")
        sizes = [t.size(0) for t in tensors]
        if any(s != sizes[0] for s in sizes):
            raise ValueError(f"Size mismatch between tensors: first dimensions are {sizes}")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].size(0) if self.tensors else 0


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Any, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


class ConcatDataset(Dataset[T_co]):
    """Several datasets, one after the other."""

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("datasets should not be an empty iterable")
        self.cumulative_sizes: list[int] = []
        total = 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index = len(self) + index
        which = bisect.bisect_right(self.cumulative_sizes, index)
        offset = index - (self.cumulative_sizes[which - 1] if which > 0 else 0)
        return self.datasets[which][offset]


def random_split(
    dataset: Any, lengths: Sequence[int | float], generator: np.random.Generator | Generator | None = None
) -> list[Subset[Any]]:
    """Split ``dataset`` at random into non-overlapping :class:`Subset` s of the given lengths.

    ``lengths`` are sizes that add up to ``len(dataset)``, or fractions that add up to 1 (the
    sizes are rounded down, and the remainder handed out one by one from the first split,
    as torch does). ``generator`` is a NumPy generator; by default one seeded from the
    global generator (``ctxgrad.manual_seed``).

    >>> import numpy as np
    >>> parts = random_split(range(10), [0.5, 0.3, 0.2], generator=np.random.default_rng(0))
    >>> [len(p) for p in parts], sorted(i for p in parts for i in p)
    ([5, 3, 2], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    """
    n = len(dataset)
    sizes: list[int]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(math.floor(n * frac))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        for i, size in enumerate(sizes):
            if size == 0:
                warnings.warn(
                    f"Length of split at index {i} is 0. This might result in an empty dataset.", stacklevel=2
                )
    else:
        sizes = [int(length) for length in lengths]
    if sum(sizes) != n:
        raise ValueError(f"Sum of input lengths does not equal the length of the input dataset! ({sum(sizes)} != {n})")
    if isinstance(generator, Generator):
        generator = generator.numpy_generator
    indices = _permutation(n, generator).tolist()
    subsets: list[Subset[Any]] = []
    offset = 0
    for size in sizes:
        subsets.append(Subset(dataset, indices[offset : offset + size]))
        offset += size
    return subsets
