"""The C++ standard library's ``std::sort`` (libstdc++'s introsort), step for step, for the few
places where torch's result depends on how it orders elements a comparison cannot order.

``mode`` sorts ``(value, index)`` pairs by value with ``<`` and then counts runs of equal
values; with a NaN, ``<`` is false both ways, so where each element ends up (and so which
value and index ``mode`` reports) is whatever this algorithm does.  No sort of NumPy's does
the same, hence this port (run only on rows holding a NaN).  The loops that C++ leaves
unguarded stop at the ends of the list here, where C++ would read past them.

>>> nan = float("nan")
>>> values = [1.0, nan, 0.0]
>>> std_sort(list(range(3)), lambda i, j: values[i] < values[j])  # 0.0 jumps over the NaN
[2, 0, 1]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")

_THRESHOLD = 16  # libstdc++'s _S_threshold: shorter ranges are left to insertion sort


def std_sort(items: list[_T], less: Callable[[_T, _T], bool]) -> list[_T]:
    """``items`` in the order ``std::sort(begin, end, less)`` leaves them (a new list)."""
    out = list(items)
    n = len(out)
    if n > 1:
        _introsort_loop(out, 0, n, 2 * (n.bit_length() - 1), less)
        _final_insertion_sort(out, 0, n, less)
    return out


def _introsort_loop(a: list[_T], first: int, last: int, depth: int, less: Callable[[_T, _T], bool]) -> None:
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(a, first, last, less)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def _partition_pivot(a: list[_T], first: int, last: int, less: Callable[[_T, _T], bool]) -> int:
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _move_median_to_first(a: list[_T], result: int, x: int, y: int, z: int, less: Callable[[_T, _T], bool]) -> None:
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            pick = y
        elif less(a[x], a[z]):
            pick = z
        else:
            pick = x
    elif less(a[x], a[z]):
        pick = x
    elif less(a[y], a[z]):
        pick = z
    else:
        pick = y
    a[result], a[pick] = a[pick], a[result]


def _unguarded_partition(a: list[_T], first: int, last: int, pivot: int, less: Callable[[_T, _T], bool]) -> int:
    while True:
        while first < len(a) - 1 and less(a[first], a[pivot]):
            first += 1
        last -= 1
        while last > 0 and less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _final_insertion_sort(a: list[_T], first: int, last: int, less: Callable[[_T, _T], bool]) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _insertion_sort(a: list[_T], first: int, last: int, less: Callable[[_T, _T], bool]) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):  # smaller than the first: straight to the front
            a[first : i + 1] = [a[i], *a[first:i]]
        else:
            _unguarded_linear_insert(a, i, less)


def _unguarded_linear_insert(a: list[_T], last: int, less: Callable[[_T, _T], bool]) -> None:
    value = a[last]
    while last > 0 and less(value, a[last - 1]):
        a[last] = a[last - 1]
        last -= 1
    a[last] = value


# --------------------------------------------------------------------------- heap sort
# (std::partial_sort(first, last, last): make_heap, then pop_heap to the end, as libstdc++)
def _heap_sort(a: list[_T], first: int, last: int, less: Callable[[_T, _T], bool]) -> None:
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):
        _adjust_heap(a, first, parent, n, a[first + parent], less)
    while last - first > 1:
        last -= 1
        value = a[last]
        a[last] = a[first]
        _adjust_heap(a, first, 0, last - first, value, less)


def _adjust_heap(a: list[_T], first: int, hole: int, length: int, value: _T, less: Callable[[_T, _T], bool]) -> None:
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2  # push_heap
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value
