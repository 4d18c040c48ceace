"""Datasets and batching, mirroring ``torch.utils.data`` and its modules ``dataset``, ``sampler``
and ``dataloader``.

* A :class:`Dataset` is anything with ``__getitem__(index)`` and ``__len__``;
  :class:`TensorDataset` indexes several tensors along their first dimension at once; an
  :class:`IterableDataset` is iterated instead (a stream).
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

from ctxgrad.utils.data import dataloader, dataset, sampler
from ctxgrad.utils.data.dataloader import DataLoader, default_collate, get_worker_info
from ctxgrad.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from ctxgrad.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "dataloader",
    "dataset",
    "default_collate",
    "get_worker_info",
    "random_split",
    "sampler",
]
