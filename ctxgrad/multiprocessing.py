"""``ctxgrad.multiprocessing``: Python's :mod:`multiprocessing` with torch's additions, as
``torch.multiprocessing`` is: :func:`spawn` (run ``fn(i, *args)`` in ``nprocs`` processes and
raise a child's error in the parent) and the sharing-strategy names.

Tensors cross processes by pickling (their values are copied): ctxgrad's tensors hold NumPy
arrays, not shared storages, so torch's shared-memory reductions have no counterpart here
(``Tensor.share_memory_`` is accepted and shares nothing: docs/differences.md).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import traceback
import warnings
from multiprocessing import *  # noqa: F403 - torch.multiprocessing is multiprocessing with more names
from typing import Any

__all__ = [  # torch's additions (multiprocessing's own names are here too, documented by Python)
    "ProcessContext",
    "ProcessException",
    "ProcessExitedException",
    "ProcessRaisedException",
    "get_all_sharing_strategies",
    "get_sharing_strategy",
    "set_sharing_strategy",
    "spawn",
    "start_processes",
]

_SHARING_STRATEGIES = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def get_all_sharing_strategies() -> set[str]:
    """torch's two strategies for sharing tensors' memory (names only here)."""
    return set(_SHARING_STRATEGIES)


def get_sharing_strategy() -> str:
    """The strategy :func:`set_sharing_strategy` set (``"file_descriptor"`` at first, as torch on Linux)."""
    return _sharing_strategy


def set_sharing_strategy(new_strategy: str) -> None:
    """Record the strategy (tensors are copied between processes whatever it is)."""
    global _sharing_strategy
    if new_strategy not in _SHARING_STRATEGIES:
        raise AssertionError(f"{new_strategy} is not a sharing strategy")
    _sharing_strategy = new_strategy


class ProcessException(Exception):
    """A process that :func:`spawn` started failed."""

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, error_pid

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A process raised an exception; the message holds its traceback."""


class ProcessExitedException(ProcessException):
    """A process exited with a nonzero code (or was killed by a signal)."""

    def __init__(
        self, msg: str, error_index: int, error_pid: int, exit_code: int, signal_name: str | None = None
    ) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self) -> Any:
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code, self.signal_name)


def _wrap(fn: Any, i: int, args: tuple[Any, ...], errors: Any) -> None:
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        errors.put((i, traceback.format_exc()))
        sys.exit(1)


class ProcessContext:
    """The processes :func:`spawn` started (``join=False``): :meth:`join` waits for them."""

    def __init__(self, processes: list[Any], errors: Any) -> None:
        self.processes, self._errors = processes, errors

    def pids(self) -> list[int]:
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: float | None = None, grace_period: float | None = None) -> bool:
        """Wait until every process has ended (True), or ``timeout`` seconds (False if some
        still run); a failed process ends the others and raises its error here."""
        running = [p for p in self.processes if p.exitcode is None]
        if running:
            multiprocessing.connection.wait([p.sentinel for p in running], timeout=timeout)
        # (one reading of the exit codes: a process that ends between two readings would
        # otherwise be neither failed nor running, and its error lost)
        codes = [p.exitcode for p in self.processes]
        failed = next((i for i, code in enumerate(codes) if code not in (None, 0)), None)
        if failed is None:
            return all(code is not None for code in codes)
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        process = self.processes[failed]
        if not self._errors.empty():
            index, text = self._errors.get()
            message = f"\n\n-- Process {index} terminated with the following error:\n{text}"
            raise ProcessRaisedException(message, index, int(self.processes[index].pid))
        code = int(process.exitcode)
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(
                f"process {failed} terminated with signal {name}", failed, int(process.pid), code, name
            )
        raise ProcessExitedException(
            f"process {failed} terminated with exit code {code}", failed, int(process.pid), code
        )


def start_processes(
    fn: Any, args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:  # fmt: skip
    """Run ``fn(i, *args)`` for ``i`` in ``range(nprocs)``, each in a process started with
    ``start_method``; with ``join``, wait for them (None), else return their context."""
    context: Any = multiprocessing.get_context(start_method)  # (each method's context has Process)
    errors = context.SimpleQueue()
    processes = []
    for i in range(nprocs):
        process = context.Process(target=_wrap, args=(fn, i, args, errors), daemon=daemon)
        process.start()
        processes.append(process)
    together = ProcessContext(processes, errors)
    if not join:
        return together
    while not together.join():
        pass
    return None


def spawn(
    fn: Any, args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True, daemon: bool = False,
    start_method: str = "spawn",
) -> ProcessContext | None:  # fmt: skip
    """:func:`start_processes` with the ``"spawn"`` start method, torch's usual entry point
    (another method warns and is not used, as in torch)."""
    if start_method != "spawn":
        warnings.warn(
            f"This method only supports start_method=spawn (got: {start_method}).\n"
            "To use a different start_method use:\n\t\t ctxgrad.multiprocessing.start_processes(...)",
            FutureWarning,
            stacklevel=2,
        )
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
