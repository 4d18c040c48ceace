"""Samplers, mirroring ``torch.utils.data.sampler``: iterables of dataset indices (or of
batches of them) that a :class:`~ctxgrad.utils.data.DataLoader` reads."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from ctxgrad._factories import randint
from ctxgrad._generator import Generator

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


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


class SubsetRandomSampler(Sampler[int]):
    """The given ``indices``, in a new random order at each pass (a train/validation split of
    one dataset).  ``generator`` is as :class:`RandomSampler`'s."""

    def __init__(self, indices: Sequence[int], generator: np.random.Generator | Generator | None = None) -> None:
        if isinstance(generator, Generator):
            generator = generator.numpy_generator
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        generator = self.generator
        if generator is None:
            generator = np.random.default_rng(int(randint(0, 2**62, ()).item()))
        for i in generator.permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


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
