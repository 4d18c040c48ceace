"""auto_diff's own tests of its seed era, run on ``ctxgrad.compat.auto_diff``.

``toy_auto_diff_tests/`` is the ``tests/`` folder of CyberZHG/toy-auto-diff at commit fcbb508
(the API its gh-pages documentation describes: ``Operation`` and the ``Op*`` classes,
``Session``, ``simplify``), with only the imports changed (``auto_diff`` became
``ctxgrad.compat.auto_diff``); its MIT licence is in that folder. This script runs all of them
with ``unittest``: forward values and shapes, names, and every gradient, which is an operation
(``w.gradient.forward(feed_dict)``), checked against central differences.

Run it: ``python examples/seeds/auto_diff_seed_tests.py`` (exits non-zero if a test fails).
"""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main() -> int:
    # The tests draw their inputs from NumPy's global generator and check gradients by central
    # differences with a step of 1e-8 under np.allclose's default tolerance. When a drawn input
    # is near 1e-4, the difference's rounding error alone exceeds that tolerance (about one run in
    # 1,500 of test_op_dot, with the exact gradient). A fixed seed keeps the run reproducible.
    np.random.seed(0)
    suite = unittest.defaultTestLoader.discover(
        str(HERE / "toy_auto_diff_tests"), pattern="test*.py", top_level_dir=str(HERE)
    )
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=1).run(suite)
    print(
        f"auto_diff's seed-era tests: {result.testsRun} run, {len(result.failures)} failed, {len(result.errors)} errors"
    )
    return 0 if result.wasSuccessful() and result.testsRun == 92 else 1


if __name__ == "__main__":
    sys.exit(main())
