"""torch's test/autograd/test_functional.py, ported by _suite.load (see tests/torch_suite/README.md)."""

from _suite import load

load("test/autograd/test_functional.py", globals())
