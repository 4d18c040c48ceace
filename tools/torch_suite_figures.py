"""How much of torch's own test suite passes on ctxgrad: the figures of tests/torch_suite.

Runs tests/torch_suite twice, on torch and on ctxgrad (``CTXGRAD_SUITE_BACKEND``), and
prints for each of torch's test files: the tests kept (those not left out), how many pass
on torch, how many on ctxgrad (and the percentage), the expected failures grouped by
category, and the tests left out grouped by reason.  It exits with 1 when a kept test fails
on torch, or when a test fails or passes unexpectedly on ctxgrad.

    python tools/torch_suite_figures.py            # both backends
    python tools/torch_suite_figures.py --no-torch # ctxgrad only (torch not installed)
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "tests" / "torch_suite"


def run(backend: str) -> list[dict[str, Any]]:
    """Each ported test's outcome on ``backend`` (what tests/torch_suite/conftest.py records)."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.jsonl"
        env = dict(os.environ, CTXGRAD_SUITE_BACKEND=backend, CTXGRAD_SUITE_REPORT=str(report))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(SUITE.relative_to(ROOT))]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        if not report.exists():
            print(done.stdout[-3000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
            return []
        return [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-torch", action="store_true", help="run on ctxgrad only")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(SUITE))
    from _suite_manifest import SOURCES, XFAIL  # type: ignore[import-not-found]  # (tests/torch_suite)

    results = {"ctxgrad": run("ctxgrad")}
    if args.no_torch:
        pass
    elif importlib.util.find_spec("torch") is None:
        print("torch is not installed: the figures of ctxgrad only")
    else:
        results["torch"] = run("torch")
    bad = False
    totals: Counter[str] = Counter()
    for source in SOURCES:
        by_backend = {b: [r for r in rs if r["source"] == source] for b, rs in results.items()}
        ours = by_backend["ctxgrad"]
        if not ours:
            print(f"{source}: not run (torch's file is not in tests/torch_suite/upstream/, nor CTXGRAD_TORCH_TESTS)")
            continue
        left_out = [r for r in ours if r["outcome"] == "skipped" and r["reason"].startswith("left out: ")]
        kept = [r for r in ours if r not in left_out]
        outcomes = Counter(r["outcome"] for r in kept)
        print(f"{source} (pytorch {SOURCES[source][0][:12]})")
        print(f"  kept {len(kept)} (left out {len(left_out)})")
        totals["kept"] += len(kept)
        if "torch" in by_backend:
            on_torch = Counter(r["outcome"] for r in by_backend["torch"] if not r["reason"].startswith("left out: "))
            print(f"  passed on torch   {on_torch['passed']} of {len(kept)}")
            totals["torch"] += on_torch["passed"]
            if on_torch["passed"] != len(kept):
                bad = True
                failing = [r["test"] for r in by_backend["torch"] if r["outcome"] not in ("passed", "skipped")]
                print(f"  NOT PASSING ON TORCH: {', '.join(failing)}")
        share = 100.0 * outcomes["passed"] / len(kept) if kept else 0.0
        print(f"  passed on ctxgrad {outcomes['passed']} of {len(kept)} ({share:.1f}%)")
        totals["ctxgrad"] += outcomes["passed"]
        expected = XFAIL.get(source, {})
        by_category: dict[str, list[str]] = defaultdict(list)
        for r in kept:
            if r["outcome"] == "xfailed":
                by_category[expected.get(r["test"], ("?", ""))[0]].append(r["test"])
        print(f"  xfailed on ctxgrad {outcomes['xfailed']}")
        for category, tests in sorted(by_category.items(), key=lambda kv: -len(kv[1])):
            print(f"    {len(tests):3d}  {category}")
            for test in tests:
                print(f"           {test}: {expected[test][1]}")
        for outcome in ("failed", "xpassed", "skipped"):
            odd = [r["test"] for r in kept if r["outcome"] == outcome]
            if odd:
                bad = bad or outcome != "skipped"
                print(f"  {outcome.upper()} on ctxgrad {len(odd)}: {', '.join(odd)}")
        reasons = Counter(r["reason"].removeprefix("left out: ") for r in left_out)
        for reason, count in reasons.most_common():
            print(f"  left out {count:3d}: {reason}")
    if totals["kept"]:
        share = 100.0 * totals["ctxgrad"] / totals["kept"]
        line = f"all: kept {totals['kept']}, passed on ctxgrad {totals['ctxgrad']} ({share:.1f}%)"
        if "torch" in results:
            line += f", passed on torch {totals['torch']}"
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
