"""``_state.special_modes``: the threads with a special mode on (a trace, vmap, forward mode,
inference), which ``as_tensor`` consults before it reads the thread's own flags.

Its promise: a thread's entry is there whenever that thread's ``modes.special`` is True, and
gone once no special mode is on in it, or once the thread's flags are freed.  ``as_tensor`` in
one thread must not see another thread's inference mode, and must see its own.
"""

from __future__ import annotations

import gc
import threading
from typing import Any

import numpy as np

import ctxgrad
import ctxgrad.autograd.forward_ad as fwAD
from ctxgrad._state import _state, special_modes


def test_no_special_mode_no_entry() -> None:
    assert id(_state.modes) not in special_modes
    assert _state.modes.special is False


def test_inference_mode_registers_and_unregisters_the_thread() -> None:
    with ctxgrad.inference_mode():
        assert id(_state.modes) in special_modes
        assert ctxgrad.as_tensor(np.ones(2)).is_inference() is True
    assert id(_state.modes) not in special_modes
    assert ctxgrad.as_tensor(np.ones(2)).is_inference() is False


def test_nested_modes_keep_the_entry_until_the_last_one_ends() -> None:
    with ctxgrad.inference_mode():
        with fwAD.dual_level():
            assert id(_state.modes) in special_modes
        assert id(_state.modes) in special_modes  # (inference mode is still on)
        assert ctxgrad.as_tensor(np.ones(2)).is_inference() is True
    assert id(_state.modes) not in special_modes


def test_another_threads_inference_mode_is_not_this_threads() -> None:
    inside, done = threading.Event(), threading.Event()
    seen: dict[str, Any] = {}

    def in_inference_mode() -> None:
        with ctxgrad.inference_mode():
            seen["inner"] = ctxgrad.as_tensor(np.ones(2)).is_inference()
            seen["modes"] = id(_state.modes)
            inside.set()
            done.wait(10)

    worker = threading.Thread(target=in_inference_mode)
    worker.start()
    assert inside.wait(10)
    try:
        assert seen["modes"] in special_modes  # the worker's entry, not this thread's
        assert id(_state.modes) not in special_modes
        assert _state.modes.special is False
        assert ctxgrad.as_tensor(np.ones(2)).is_inference() is False
    finally:
        done.set()
        worker.join()
    assert seen["inner"] is True
    assert seen["modes"] not in special_modes


def test_a_thread_that_ends_inside_a_mode_leaves_no_entry() -> None:
    seen: dict[str, Any] = {}

    def enter_and_end() -> None:
        _state.modes.inference = True  # (left on: the thread ends with it)
        seen["modes"] = id(_state.modes)
        seen["registered"] = seen["modes"] in special_modes

    worker = threading.Thread(target=enter_and_end)
    worker.start()
    worker.join()
    gc.collect()
    assert seen["registered"] is True
    assert seen["modes"] not in special_modes
    assert ctxgrad.as_tensor(np.ones(2)).is_inference() is False
