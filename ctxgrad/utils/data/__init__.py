"""Datasets and batching, mirroring ``torch.utils.data``.

* A :class:`Dataset` is anything with ``__getitem__(index)`` and ``__len__``;
  :class:`TensorDataset` indexes several tensors along their first dimension at once.
* A *sampler* yields dataset indices: :class:`SequentialSampler` in order,
  :class:`RandomSampler` in a fresh random order each pass; :class:`BatchSampler` groups
  them into lists of ``batch_size``.
* :class:`DataLoader` runs a batch sampler, fetches each index's sample and merges the
  samples of a batch with ``collate_fn`` (:func:`default_collate` stacks tensors and numbers
  into tensors with a new first dimension, and recurses into tuples, lists and dicts).

Random orders come from NumPy generators: pass ``generator=numpy.random.default_rng(seed)``
(``ctxgrad.manual_seed`` returns one), or leave it out and seed the global generator with
``ctxgrad.manual_seed``. The orders are not torch's: torch's generator is a different one.

>>> import ctxgrad
>>> from ctxgrad.utils.data import DataLoader, TensorDataset
>>> xs = ctxgrad.arange(10.0).reshape(5, 2)
>>> ys = ctxgrad.tensor([0, 1, 0, 1, 1])
>>> for x, y in DataLoader(TensorDataset(xs, ys), batch_size=2):
...     print(list(x.shape), y)
[2, 2] tensor([0, 1])
[2, 2] tensor([0, 1])
[1, 2] tensor([1])
"""

from __future__ import annotations

import bisect
import collections.abc
import copy
import math
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._factories import randint, tensor
from ctxgrad._generator import Generator
from ctxgrad._made_functions import stack
from ctxgrad._tensor import Tensor, _wrap

__all__ = [
    "BatchSampler",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "TensorDataset",
    "default_collate",
    "random_split",
]

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


def _permutation(n: int, generator: np.random.Generator | None) -> np.ndarray[Any, Any]:
    """A random order of ``range(n)``: from ``generator``, or from a fresh generator seeded
    by the global one (so that ``ctxgrad.manual_seed`` makes it reproducible)."""
    if generator is None:
        seed = int(randint(0, 2**62, ()).item())
        generator = np.random.default_rng(seed)
    return generator.permutation(n)


# --------------------------------------------------------------------------- samplers
class Sampler(Generic[T]):
    """Base class of samplers: iterables of dataset indices (or of batches of them)."""

    def __iter__(self) -> Iterator[T]:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class SequentialSampler(Sampler[int]):
    """The indices ``0, 1, ..., len(data_source) - 1``, in order."""

    def __init__(self, data_source: Any) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """The indices in a new random order at each pass (each ``iter``).

    Args:
        data_source: the dataset.
        replacement: draw ``num_samples`` indices with replacement instead of permuting.
        num_samples: how many indices per pass (default ``len(data_source)``).
        generator: a NumPy generator; by default each pass seeds a fresh one from the global
            generator, which ``ctxgrad.manual_seed`` resets.
    """

    def __init__(
        self,
        data_source: Any,
        replacement: bool = False,
        num_samples: int | None = None,
        generator: np.random.Generator | Generator | None = None,
    ) -> None:
        if isinstance(generator, Generator):
            generator = generator.numpy_generator  # (draws from it move the ctxgrad.Generator)
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")
        if generator is not None and not isinstance(generator, np.random.Generator):
            raise TypeError(
                "generator must be a numpy.random.Generator (ctxgrad.manual_seed returns one) or a ctxgrad.Generator, "
                f"got {type(generator).__name__}"
            )

    @property
    def num_samples(self) -> int:
        """The number of indices per pass."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = np.random.default_rng(int(randint(0, 2**62, ()).item()))
        if self.replacement:
            yield from generator.integers(0, n, size=self.num_samples).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from generator.permutation(n).tolist()
        yield from generator.permutation(n).tolist()[: self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Group the indices of ``sampler`` into lists of ``batch_size``; the last list is shorter
    unless ``drop_last``, which drops it.

    >>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size


# --------------------------------------------------------------------------- collation
_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_collate(batch: Sequence[Any]) -> Any:
    """Merge a list of samples into a batch, as torch's ``default_collate``:

    * tensors are stacked along a new first dimension; NumPy arrays too (into a tensor);
    * Python floats become a float64 tensor, ints an int64 tensor, bools a bool tensor;
      NumPy scalars a tensor of their dtype;
    * strings are kept: the batch is returned as given (a list, or a tuple inside a tuple);
    * dicts are collated key by key, named tuples field by field, and tuples and lists
      position by position (a tuple of samples gives a *list* of batches, as in torch).

    >>> import ctxgrad
    >>> default_collate([(ctxgrad.ones(2), 1), (ctxgrad.zeros(2), 0)])
    [tensor([[1., 1.],
            [0., 0.]]), tensor([1, 0])]
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.hasobject or elem.dtype.kind in "SUV":
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return stack([_wrap(np.asarray(b)) for b in batch], 0)
    if isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_)):
        return _wrap(np.array(batch))
    if isinstance(elem, bool):
        return tensor(list(batch), dtype=_dtypes.bool_)
    if isinstance(elem, float):
        return tensor(list(batch), dtype=_dtypes.float64)
    if isinstance(elem, int):
        return tensor(list(batch), dtype=_dtypes.int64)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        if isinstance(elem, collections.abc.MutableMapping):
            try:
                clone = copy.copy(elem)
                clone.update(collated)
                return clone
            except TypeError:
                return collated
        return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(b) != size for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        return [default_collate(samples) for samples in transposed]
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


# --------------------------------------------------------------------------- the loader
class DataLoader(Generic[T_co]):
    """Iterate over a dataset in batches, as ``torch.utils.data.DataLoader``.

    Args:
        dataset: the dataset (``__getitem__`` and ``__len__``).
        batch_size: samples per batch (default 1); None yields single samples, uncollated
            into a batch (``collate_fn`` still applies).
        shuffle: a new random order at each pass (default False).
        sampler: an iterable of indices to use instead of ``shuffle``.
        batch_sampler: an iterable of index lists, instead of ``batch_size``, ``shuffle``,
            ``sampler`` and ``drop_last``.
        num_workers: accepted for torch compatibility; samples are always loaded in the
            calling process.
        collate_fn: merges a list of samples into a batch (default :func:`default_collate`).
        pin_memory: accepted; ignored (there is only the CPU).
        drop_last: drop the last batch when it is smaller than ``batch_size``.
        generator: a NumPy generator for ``shuffle`` (see :class:`RandomSampler`).
    """

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = 1,
        shuffle: bool | None = None,
        sampler: Iterable[Any] | None = None,
        batch_sampler: Iterable[list[Any]] | None = None,
        num_workers: int = 0,
        collate_fn: Callable[[list[Any]], Any] | None = None,
        pin_memory: bool = False,
        drop_last: bool = False,
        timeout: float = 0,
        worker_init_fn: Callable[[int], None] | None = None,
        generator: np.random.Generator | Generator | None = None,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self._auto_collation = batch_sampler is not None
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else _convert
        self.collate_fn = collate_fn

    def __iter__(self) -> Iterator[Any]:
        if self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        else:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)  # type: ignore[arg-type]
        return len(self.sampler)  # type: ignore[arg-type]


def _convert(sample: Any) -> Any:
    """Without batching (``batch_size=None``): NumPy arrays become tensors, the rest is kept."""
    if isinstance(sample, np.ndarray) and not sample.dtype.hasobject:
        return _wrap(sample)
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):
        return type(sample)(*(_convert(s) for s in sample))
    if isinstance(sample, tuple):
        return [_convert(s) for s in sample]
    if isinstance(sample, list):
        return [_convert(s) for s in sample]
    if isinstance(sample, dict):
        return {k: _convert(v) for k, v in sample.items()}
    return sample
