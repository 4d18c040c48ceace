"""Nothing the garbage collector runs may wait on a lock: reference cycles through ctx objects.

A Function whose ``forward`` keeps its ctx on itself (``ctx.me = ctx``) makes a reference
cycle; the cyclic collector frees it at whatever bytecode it happens to interrupt, in the
same thread.  When the collector interrupted ctxgrad while it held the lock of the saved
arrays' read-only table and a freed saved tensor's finaliser asked for the same lock, the
thread waited on itself forever (Python 3.12 and 3.13).  Each scenario runs in a child
process with a ``faulthandler`` deadline, so a hang fails the test with the stack that hung
instead of stalling the run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

DEADLINE_S = 60

PRELUDE = """
import faulthandler, gc, sys, threading
faulthandler.dump_traceback_later({deadline}, exit=True)
gc.set_threshold(50, 5, 5)  # collect often, so collections land inside ctxgrad's own code
import numpy as np
import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.autograd import _readonly as graph


class KeepsItsCtx(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.me = ctx  # a reference cycle through the ctx: only the cyclic collector frees it
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2


def all_released():
    gc.collect()
    return not graph._locks and not graph._pending_unlocks
"""

SCENARIOS = {
    "apply in a loop": """
x = ctxgrad.randn(3, requires_grad=True)
for _ in range(60_000):
    y = KeepsItsCtx.apply(x)
del y
assert all_released(), graph._locks
assert x.detach().numpy().flags.writeable
""",
    "apply and backward in a loop": """
x = ctxgrad.randn(3, dtype=ctxgrad.float64, requires_grad=True)
for _ in range(20_000):
    KeepsItsCtx.apply(x).exp().sum().backward()
assert all_released(), graph._locks
assert np.allclose(x.grad.numpy(), 20_000 * 2 * np.exp(2 * x.detach().numpy()))
""",
    "two threads": """
errors = []

def work():
    try:
        x = ctxgrad.randn(4, requires_grad=True)
        for _ in range(20_000):
            y = KeepsItsCtx.apply(x).tanh()
        del y
    except BaseException as e:  # reported by the main thread
        errors.append(e)

threads = [threading.Thread(target=work) for _ in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
assert all_released(), graph._locks
""",
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_reference_cycles_through_ctx_never_hang(name: str) -> None:
    code = textwrap.dedent(PRELUDE.format(deadline=DEADLINE_S)) + textwrap.dedent(SCENARIOS[name])
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE_S + 30, check=False
    )
    assert done.returncode == 0, f"{name!r} failed or hung:\n{done.stderr[-4000:]}"
