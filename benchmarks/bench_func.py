"""W6: function transforms (``ctxgrad.func``) beside ``torch.func``, a Python loop, and NumPy.

Three workloads, float64, each timed as one call (reported in milliseconds), median and min
over ``--runs`` runs after ``--warmup`` untimed ones:

- **vmap**: ``f(x) = tanh(x @ W + b).sum()`` for a batch of 256 samples ``x`` of 64 features
  (``W`` 64x64): ``vmap(f)`` against a Python loop of ``f`` over the samples (ctxgrad), against
  ``torch.func.vmap``, and against NumPy on the whole batch (the floor).  Target: vmap at least
  10x faster than the loop.
- **jacrev**: the 64x64 Jacobian of ``g(x) = tanh(W2 @ tanh(W1 @ x))``: ``jacrev(g)`` against
  ``torch.func.jacrev`` and against the Jacobian written by hand in NumPy.  Target: within 2x of
  torch.func.
- **per-sample gradients**: the gradient of a small MLP's squared error (64 -> 32 -> 1) for each
  of 128 samples: ``vmap(grad(loss), in_dims=(None, 0, 0))`` against ``torch.func``, against a
  Python loop of ordinary ``backward`` calls (ctxgrad), and against NumPy by hand.  Target:
  within 2x of torch.func.

Before timing, every row's result is checked against ctxgrad's.

Run: ``python benchmarks/bench_func.py [--runs N] [--warmup N]``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _harness import measure, timing_parser, versions

import ctxgrad
from ctxgrad.func import grad, jacrev, vmap

RNG = np.random.default_rng(0)
FEATURES, BATCH, SAMPLES, HIDDEN = 64, 256, 128, 32
W = RNG.standard_normal((FEATURES, FEATURES)) / 8
B = RNG.standard_normal(FEATURES)
XS = RNG.standard_normal((BATCH, FEATURES))
W1 = RNG.standard_normal((FEATURES, FEATURES)) / 8
W2 = RNG.standard_normal((FEATURES, FEATURES)) / 8
X0 = RNG.standard_normal(FEATURES)
P1 = RNG.standard_normal((FEATURES, HIDDEN)) / 8
P2 = RNG.standard_normal((HIDDEN, 1)) / 4
DATA = RNG.standard_normal((SAMPLES, FEATURES))
TARGETS = RNG.standard_normal((SAMPLES, 1))

Row = Callable[[], Any]


def _torch() -> Any:
    try:
        import torch
        import torch.func
    except ImportError:
        return None
    return torch


def _array(value: Any) -> np.ndarray:
    if isinstance(value, (tuple, list)):
        return np.concatenate([_array(v).ravel() for v in value])
    if isinstance(value, dict):
        return np.concatenate([_array(value[k]).ravel() for k in sorted(value)])
    if hasattr(value, "detach"):
        value = value.detach()
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def vmap_rows() -> dict[str, Row]:
    w, b, xs = ctxgrad.tensor(W), ctxgrad.tensor(B), ctxgrad.tensor(XS)

    def f(x: Any) -> Any:
        return (x @ w + b).tanh().sum()

    rows: dict[str, Row] = {
        "ctxgrad vmap": lambda: vmap(f)(xs),
        "ctxgrad Python loop": lambda: ctxgrad.stack([f(xs[i]) for i in range(BATCH)]),
        "NumPy (whole batch)": lambda: np.tanh(XS @ W + B).sum(1),
    }
    torch = _torch()
    if torch is not None:
        tw, tb, txs = torch.tensor(W), torch.tensor(B), torch.tensor(XS)
        rows["torch.func.vmap"] = lambda: torch.func.vmap(lambda x: (x @ tw + tb).tanh().sum())(txs)
    return rows


def jacrev_rows() -> dict[str, Row]:
    w1, w2, x0 = ctxgrad.tensor(W1), ctxgrad.tensor(W2), ctxgrad.tensor(X0)

    def g(x: Any) -> Any:
        return (w2 @ (w1 @ x).tanh()).tanh()

    def by_hand() -> np.ndarray:
        h = np.tanh(W1 @ X0)
        y = np.tanh(W2 @ h)
        return (1 - y**2)[:, None] * W2 @ ((1 - h**2)[:, None] * W1)

    rows: dict[str, Row] = {"ctxgrad jacrev": lambda: jacrev(g)(x0), "NumPy (by hand)": by_hand}
    torch = _torch()
    if torch is not None:
        tw1, tw2, tx0 = torch.tensor(W1), torch.tensor(W2), torch.tensor(X0)
        rows["torch.func.jacrev"] = lambda: torch.func.jacrev(lambda x: (tw2 @ (tw1 @ x).tanh()).tanh())(tx0)
    return rows


def per_sample_rows() -> dict[str, Row]:
    params = (ctxgrad.tensor(P1), ctxgrad.tensor(P2))
    data, targets = ctxgrad.tensor(DATA), ctxgrad.tensor(TARGETS)

    def loss(p: tuple[Any, Any], x: Any, t: Any) -> Any:
        return (((x @ p[0]).tanh() @ p[1] - t) ** 2).sum()

    def loop() -> Any:
        leaves = [ctxgrad.tensor(P1, requires_grad=True), ctxgrad.tensor(P2, requires_grad=True)]
        out = []
        for i in range(SAMPLES):
            for leaf in leaves:
                leaf.grad = None
            loss((leaves[0], leaves[1]), data[i], targets[i]).backward()
            out.append([leaf.grad for leaf in leaves])
        return [ctxgrad.stack([o[0] for o in out]), ctxgrad.stack([o[1] for o in out])]

    def by_hand() -> list[np.ndarray]:
        h = np.tanh(DATA @ P1)
        r = 2 * (h @ P2 - TARGETS)  # (S, 1)
        g2 = h[:, :, None] * r[:, None, :]
        dh = (r @ P2.T) * (1 - h**2)
        g1 = DATA[:, :, None] * dh[:, None, :]
        return [g1, g2]

    rows: dict[str, Row] = {
        "ctxgrad vmap(grad)": lambda: vmap(grad(loss), in_dims=(None, 0, 0))(params, data, targets),
        "ctxgrad loop of backward": loop,
        "NumPy (by hand)": by_hand,
    }
    torch = _torch()
    if torch is not None:
        tparams = (torch.tensor(P1), torch.tensor(P2))
        tdata, ttargets = torch.tensor(DATA), torch.tensor(TARGETS)

        def tloss(p: Any, x: Any, t: Any) -> Any:
            return (((x @ p[0]).tanh() @ p[1] - t) ** 2).sum()

        rows["torch.func vmap(grad)"] = lambda: torch.func.vmap(torch.func.grad(tloss), in_dims=(None, 0, 0))(
            tparams, tdata, ttargets
        )
    return rows


def run(title: str, rows: dict[str, Row], ours: str, runs: int, warmup: int) -> dict[str, tuple[float, float]]:
    want = _array(rows[ours]())
    for name, fn in rows.items():
        got = _array(fn())
        if got.shape != want.shape or not np.allclose(got, want, rtol=1e-9, atol=1e-12):
            raise SystemExit(f"{title}: {name} computes something else than {ours}")
    names = list(rows)
    timings = measure([rows[n] for n in names], 1, runs, warmup)
    results = {n: (t[0] / 1000, t[1] / 1000) for n, t in zip(names, timings)}  # ms per call
    print(f"\n{title}")
    print(f"  {'row':<28}{'median ms':>12}{'min ms':>10}{'ctxgrad / row':>16}")
    mine = results[ours][0]
    for n in names:
        med, low = results[n]
        print(f"  {n:<28}{med:>12.3f}{low:>10.3f}{mine / med:>15.2f}x")
    return results


def main(argv: list[str]) -> int:
    args = timing_parser(__doc__, runs=10, warmup=2).parse_args(argv)
    print(f"W6 function transforms ({versions()})")
    v = run("vmap over 256 samples", vmap_rows(), "ctxgrad vmap", args.runs, args.warmup)
    j = run("jacrev of a 64 -> 64 function", jacrev_rows(), "ctxgrad jacrev", args.runs, args.warmup)
    p = run("per-sample gradients, MLP, 128 samples", per_sample_rows(), "ctxgrad vmap(grad)", args.runs, args.warmup)
    print("\ntargets:")
    speedup = v["ctxgrad Python loop"][0] / v["ctxgrad vmap"][0]
    print(f"  vmap at least 10x faster than the loop: {speedup:.1f}x  {'met' if speedup >= 10 else 'NOT met'}")
    for label, res, mine, theirs in (
        ("jacrev within 2x of torch.func", j, "ctxgrad jacrev", "torch.func.jacrev"),
        ("per-sample gradients within 2x of torch.func", p, "ctxgrad vmap(grad)", "torch.func vmap(grad)"),
    ):
        if theirs in res:
            r = res[mine][0] / res[theirs][0]
            print(f"  {label}: {r:.2f}x  {'met' if r <= 2 else 'NOT met'}")
        else:
            print(f"  {label}: torch not importable, not measured")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
