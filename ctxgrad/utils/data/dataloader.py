"""The loader, mirroring ``torch.utils.data.dataloader``: :class:`DataLoader`, the collation
of samples into batches (:func:`default_collate`) and :func:`get_worker_info`."""

from __future__ import annotations

import collections.abc
import copy
import itertools
import multiprocessing
import multiprocessing.context
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._factories import tensor
from ctxgrad._generator import Generator
from ctxgrad._made_functions import stack
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.utils.data.dataset import IterableDataset
from ctxgrad.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler

T_co = TypeVar("T_co", covariant=True)
T = TypeVar("T")


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
            calling process.  ``prefetch_factor``, ``persistent_workers`` and
            ``multiprocessing_context`` are checked against it as torch checks them, and kept.
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
        multiprocessing_context: Any = None,
        generator: np.random.Generator | Generator | None = None,
        *,
        prefetch_factor: int | None = None,
        persistent_workers: bool = False,
        pin_memory_device: str = "",
        in_order: bool = True,
    ) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        # The worker options are checked as torch checks them, and kept; the samples are
        # loaded in the calling process whatever they say.
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None."
            )
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            multiprocessing_context = _start_context(multiprocessing_context, num_workers)
        iterable = isinstance(dataset, IterableDataset)
        if iterable:
            # a stream has no indices: samplers and shuffling mean nothing for it (torch's errors)
            for option, value in (("shuffle", shuffle), ("sampler", sampler), ("batch_sampler", batch_sampler)):
                if value is not None and value is not False:
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {option} option, "
                        f"but got {option}={value}"
                    )
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
        if sampler is None and not iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)  # type: ignore[arg-type]
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
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order
        self.multiprocessing_context = multiprocessing_context
        self._iterable = iterable
        self._auto_collation = batch_sampler is not None or (iterable and batch_size is not None)
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else _convert
        self.collate_fn = collate_fn

    def __iter__(self) -> Iterator[Any]:
        if self._iterable:
            yield from self._iterate_stream()
        elif self.batch_sampler is not None:
            for indices in self.batch_sampler:
                yield self.collate_fn([self.dataset[i] for i in indices])
        elif self.sampler is not None:
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])

    def _iterate_stream(self) -> Iterator[Any]:
        """An IterableDataset's samples in the order they come, ``batch_size`` at a time."""
        samples = iter(self.dataset)
        if self.batch_size is None:
            for sample in samples:
                yield self.collate_fn(sample)
            return
        while batch := list(itertools.islice(samples, self.batch_size)):
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:  # the stream's own length, if it has one (else torch's TypeError)
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self.batch_sampler is not None:
            return len(self.batch_sampler)  # type: ignore[arg-type]
        return len(self.sampler)  # type: ignore[arg-type]


def _start_context(context: Any, num_workers: int) -> Any:
    """``multiprocessing_context``, checked as torch checks it: a start method's name (made
    its context) or a context, and only with ``num_workers > 0``."""
    if num_workers == 0:
        raise ValueError(
            "multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
            f"but got num_workers={num_workers}"
        )
    if isinstance(context, str):
        methods = multiprocessing.get_all_start_methods()
        if context not in methods:
            raise ValueError(
                f"multiprocessing_context option should specify a valid start method in {methods!r}, "
                f"but got multiprocessing_context={context!r}"
            )
        context = multiprocessing.get_context(context)
    if not isinstance(context, multiprocessing.context.BaseContext):
        raise TypeError(
            "multiprocessing_context option should be a valid context object or a string specifying the start "
            f"method, but got multiprocessing_context={context}"
        )
    return context


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


def get_worker_info() -> None:
    """None: ctxgrad's :class:`DataLoader` loads every sample in the calling process (what
    torch answers in its main process), so there is no worker to describe."""
    return None
