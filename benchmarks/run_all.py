"""Run every ``bench_*.py`` in this folder, one after another, each in its own process.

Run: ``python benchmarks/run_all.py [--quick] [extra arguments passed to every benchmark]``.
``--quick`` stands for ``--runs 5`` (every script's own default is 30 timed runs, W5's 5):
the whole suite then takes about a minute and a half on 2 cores; arguments after it win.
Exits with 1 if any benchmark failed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

QUICK = ["--runs", "5"]


def main(argv: list[str]) -> int:
    if "--quick" in argv:
        argv = QUICK + [arg for arg in argv if arg != "--quick"]
    here = Path(__file__).resolve().parent
    failed = []
    for script in sorted(here.glob("bench_*.py")):
        print(f"=== {script.name} ===", flush=True)
        if subprocess.run([sys.executable, str(script), *argv]).returncode != 0:
            failed.append(script.name)
        print(flush=True)
    if failed:
        print(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
