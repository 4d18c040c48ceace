"""W5: a very long chain of built-in ops, and the memory its graph holds.

W2's chain (``x = x * 1.0001 + 0.001``, ``tanh`` after every 10th step, from a float64
leaf of 16 elements that requires grad) made at least ``--length`` (100,000) ops long, then
``.sum().backward()``: a graph far larger than the caches, walked by the engine in one
backward.  Reported in seconds per forward + backward, median and min over ``--runs`` (5)
runs after ``--warmup`` (0) untimed ones (the check below runs every row once first), for
ctxgrad, torch and HIPS autograd running the same code, and the hand-written NumPy loop of
W2 (no graph), with the rows skipped, with a note, when torch or autograd cannot be
imported.  ``--length 1000000 --runs 1`` shows that a 10⁶-op chain runs (about five
minutes and 2.5 GB on 2 cores, most of it in the memory measurement and the check).

Before any timing, the graph memory per node: the bytes that one forward's graph holds
until backward, divided by the number of ops, measured

- for ctxgrad and HIPS autograd with ``tracemalloc`` (which sees every Python object and,
  since NumPy reports its buffers to it, every array the graph keeps);
- for torch as the growth of the process's resident set while the graph is held: its
  nodes and saved tensors live in C++ allocations that ``tracemalloc`` does not see, so
  this is an estimate (pages, the allocator's slack), measured first, on a fresh heap.

Then every row's output and gradient are checked against ctxgrad's, and under the tables
the Core v2 targets (forward + backward no slower than torch; a 10⁶-op chain runs; at
most about 480 bytes of graph per node) are checked, on the medians.

With ``--gc-share``, ctxgrad and torch also run with the cyclic garbage collector off (rows
``... gc off``), and the share of each one's time that the collector takes is printed: the
graph's nodes are Python objects that the collector walks while the forward builds them
(torch's live in C++, out of its sight); and ctxgrad's collections in one more run are
counted per generation, with their seconds.

Then (``--own-process``, on unless ``--no-own-process``) ctxgrad and torch are also timed
each in fresh processes that import no other library, and the target is checked on those
times too: in one process, the collector's full collections walk torch's Python objects as
well as ctxgrad's graph, which only ctxgrad pays for.

Run: ``python benchmarks/bench_long_chain.py [--length N] [--runs N] [--warmup N] [--gc-share]
[--no-own-process]``.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable

import numpy as np
from _harness import (
    Case,
    autograd_label,
    measure,
    ratio,
    target_line,
    timing_parser,
    torch_label,
    verify,
    versions,
)
from bench_builtin_chain import (
    N_ELEMENTS,
    TANH_EVERY,
    autograd_case,
    chain,
    ctxgrad_case,
    numpy_case,
    op_count,
    torch_case,
)

TARGET_VS_TORCH = 1.0
TARGET_LENGTH = 10**6
TARGET_BYTES_PER_NODE = 480
# A short chain built first, so that what a library allocates once is not counted per node.
WARM_UP_STEPS = 1000


def steps_for(ops: int) -> int:
    """The fewest steps of W2's chain that make at least ``ops`` ops."""
    steps = ops * TANH_EVERY // (2 * TANH_EVERY + 1)
    while op_count(steps) < ops:
        steps += 1
    return steps


def traced_bytes(build: Callable[[], object]) -> int:
    """The bytes ``tracemalloc`` sees allocated by ``build()`` and held by what it returns."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = build()
        held = tracemalloc.get_traced_memory()[0] - before
        del kept
    finally:
        tracemalloc.stop()
    return held


def resident_bytes() -> int | None:
    """The process's resident set, from ``/proc`` (None where there is none)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def resident_growth(build: Callable[[], object]) -> int | None:
    """How much the resident set grows while what ``build()`` returns is held."""
    gc.collect()
    before = resident_bytes()
    kept = build()
    after = resident_bytes()
    del kept
    return None if before is None or after is None else after - before


def graph_memory(steps: int) -> dict[str, tuple[str, float] | str]:
    """Bytes per node of one forward's graph, with how each was measured, or a note, by row."""
    ops = op_count(steps)
    rows: dict[str, tuple[str, float] | str] = {}
    torch_forward = torch_case(steps)
    if isinstance(torch_forward, str):
        rows[torch_label("ops")] = torch_forward
    else:
        warm_up = torch_case(WARM_UP_STEPS)
        assert not isinstance(warm_up, str)
        warm_up[0]()
        grown = resident_growth(torch_forward[0])
        rows[torch_label("ops")] = (
            ("resident set growth, approximate", grown / ops)
            if grown is not None
            else "not measured: no /proc/self/statm here, and tracemalloc does not see torch's C++ allocations"
        )
    ctxgrad_forward = ctxgrad_case(steps)
    assert not isinstance(ctxgrad_forward, str)
    ctxgrad_case(WARM_UP_STEPS)[0]()
    rows["ctxgrad ops"] = ("tracemalloc", traced_bytes(ctxgrad_forward[0]) / ops)
    try:
        import autograd
        import autograd.numpy as anp
    except ImportError as exc:
        rows[autograd_label("ops")] = f"autograd not importable ({exc}); skipped"
    else:
        x = np.ones(N_ELEMENTS)
        autograd.make_vjp(chain(anp.tanh, WARM_UP_STEPS))(x)
        trace = autograd.make_vjp(chain(anp.tanh, steps))
        rows[autograd_label("ops")] = ("tracemalloc", traced_bytes(lambda: trace(x)) / ops)
    return rows


GC_OFF = ", gc off"


def without_gc(case: Case) -> Case:
    """``case`` run with the cyclic garbage collector off (a note stays a note)."""
    if isinstance(case, str):
        return case
    forward, forward_backward = case

    def run() -> object:
        was_on = gc.isenabled()
        gc.disable()
        try:
            return forward_backward()
        finally:
            if was_on:
                gc.enable()

    return forward, run


def collections_during(run: Callable[[], object]) -> dict[int, tuple[int, float]]:
    """Per generation, how many collections the cyclic garbage collector made while ``run``
    ran once, and the seconds they took (from ``gc.callbacks``)."""
    found: dict[int, tuple[int, float]] = {}
    started = [0.0]

    def note(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            count, seconds = found.get(info["generation"], (0, 0.0))
            found[info["generation"]] = (count + 1, seconds + time.perf_counter() - started[0])

    gc.callbacks.append(note)
    try:
        run()
    finally:
        gc.callbacks.remove(note)
    return found


OWN_PROCESS = ", own process"
MAKERS = {"ctxgrad": ctxgrad_case, "torch": torch_case}


def own_process_runs(length: int, runs: int) -> dict[str, list[float]]:
    """Seconds per forward + backward of ctxgrad and of torch, each timed in fresh processes
    that import no other library: two processes per library, taking turns, each running the
    workload once untimed and then ``runs`` / 2 times timed.

    In one process, the full collections of the cyclic garbage collector, which a graph of
    Python objects sets off as it grows, walk every object the process holds: torch's own
    (about 145,000 once it is imported) as well as ctxgrad's.  torch's graph, in C++, sets off
    none; so in one process only ctxgrad pays for the other library being loaded."""
    seconds: dict[str, list[float]] = {name: [] for name in MAKERS}
    per_process = str(max(1, (runs + 1) // 2))
    for _ in range(2):
        for name in MAKERS:
            child = [sys.executable, __file__, "--child", name, "--length", str(length), "--runs", per_process]
            done = subprocess.run(child, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise RuntimeError(f"{name}'s own process failed: {done.stderr.strip()[-500:]}")
            seconds[name].extend(float(line) for line in done.stdout.split())
    return seconds


def child_run(name: str, steps: int, runs: int) -> int:
    """(In a child process) one untimed run, then ``runs`` timed; prints their seconds."""
    case = MAKERS[name](steps)
    if isinstance(case, str):
        raise SystemExit(case)
    case[1]()
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        case[1]()
        print(time.perf_counter() - start)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = timing_parser(__doc__, runs=5, warmup=0)
    parser.add_argument("--length", type=int, default=100_000, help="ops in the chain, at least (default 100000)")
    parser.add_argument(
        "--gc-share", action="store_true", help="also time ctxgrad and torch with the cyclic garbage collector off"
    )
    parser.add_argument(
        "--own-process",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also time ctxgrad and torch each in processes of their own, which import no other library (default: on)",
    )
    parser.add_argument("--child", choices=sorted(MAKERS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_run(args.child, steps_for(args.length), args.runs)
    gc_share = args.gc_share
    runs, warmup = args.runs, args.warmup
    steps = steps_for(args.length)
    ops = op_count(steps)
    print(
        f"W5: W2's chain of {steps} steps x = x * 1.0001 + 0.001, tanh every {TANH_EVERY} ({ops} built-in ops) "
        f"on {N_ELEMENTS} float64 elements\n{runs} timed runs after {warmup} warm-up; seconds per forward + backward, "
        f"median (min); ratios of medians (of mins)\n{versions()}",
        flush=True,
    )
    memory = graph_memory(steps)
    cases: dict[str, Case] = {
        "ctxgrad ops": ctxgrad_case(steps),
        torch_label("ops"): torch_case(steps),
        autograd_label("ops"): autograd_case(steps),
        "numpy loop": numpy_case(steps),
    }
    if gc_share:
        cases["ctxgrad ops" + GC_OFF] = without_gc(cases["ctxgrad ops"])
        cases[torch_label("ops") + GC_OFF] = without_gc(cases[torch_label("ops")])
    verify(cases, "ctxgrad ops")
    ready = {name: case[1] for name, case in cases.items() if not isinstance(case, str)}
    microseconds = measure(list(ready.values()), 1, runs, warmup)
    timed = {name: (med / 1e6, low / 1e6) for name, (med, low) in zip(ready, microseconds)}

    print(f"\n{'':30} {'forward + backward, s':>22}")
    for name, timing in timed.items():
        print(f"{name:30} {f'{timing[0]:.3f} ({timing[1]:.3f})':>22}")
    mine = timed["ctxgrad ops"]
    for name, timing in timed.items():
        if name != "ctxgrad ops" and not name.endswith(GC_OFF):
            print(f"{'ratio ctxgrad/' + name.split()[0]:30} {ratio(mine, timing):>22}")
    for name, timing in timed.items():
        if name.endswith(GC_OFF):  # the collector's share: 1 - time without it / time with it
            on = timed[name[: -len(GC_OFF)]]
            share = f"{1 - timing[0] / on[0]:.0%} ({1 - timing[1] / on[1]:.0%})"
            print(f"{'gc share, ' + name.split()[0]:30} {share:>22}")
    if gc_share:  # where ctxgrad's share goes: one more run, its collections per generation
        found = collections_during(ready["ctxgrad ops"])
        print("collections in one ctxgrad forward + backward, per generation (count, seconds):")
        print("   " + ", ".join(f"gen {g}: {n}, {s:.3f} s" for g, (n, s) in sorted(found.items())))
    by_short = {name.split()[0]: timing for name, timing in timed.items() if not name.endswith(GC_OFF)}
    print(target_line("W5 forward + backward", "torch", TARGET_VS_TORCH, mine, by_short.get("torch")))
    if args.own_process and not isinstance(cases[torch_label("ops")], str):
        alone = {name: (statistics.median(ts), min(ts)) for name, ts in own_process_runs(args.length, runs).items()}
        print(f"\n{'each in its own process':30} {'forward + backward, s':>22}")
        for name, timing in alone.items():
            print(f"{name + ' ops' + OWN_PROCESS:30} {f'{timing[0]:.3f} ({timing[1]:.3f})':>22}")
        print(f"{'ratio ctxgrad/torch':30} {ratio(alone['ctxgrad'], alone['torch']):>22}")
        what = "W5 forward + backward, each in its own process"
        print(target_line(what, "torch", TARGET_VS_TORCH, alone["ctxgrad"], alone["torch"]))
    long_enough = ops >= TARGET_LENGTH
    print(
        f"target W5, a {TARGET_LENGTH}-op chain runs: "
        + (f"met (this {ops}-op chain ran)" if long_enough else f"not checked here (run with --length {TARGET_LENGTH})")
    )

    print(f"\n{'graph memory before backward':30} {'bytes per node':>22}   measured by")
    for name, row in memory.items():
        if not isinstance(row, str):
            print(f"{name:30} {row[1]:>22.0f}   {row[0]}")
    ours = memory["ctxgrad ops"]
    assert not isinstance(ours, str)
    verdict = "met" if ours[1] <= TARGET_BYTES_PER_NODE else "missed"
    print(f"target graph memory, ctxgrad <= about {TARGET_BYTES_PER_NODE} bytes per node: {ours[1]:.0f} -> {verdict}")
    for name, case in cases.items():
        if isinstance(case, str):
            print(f"note: {name}: {case}")
    for name, row in memory.items():
        if isinstance(row, str) and not isinstance(cases.get(name), str):
            print(f"note: {name} memory: {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
