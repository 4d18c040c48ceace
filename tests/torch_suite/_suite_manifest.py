"""What the suite ports from torch, what it leaves out, and what fails on ctxgrad.

``SOURCES``: each torch test file by its path in a pytorch checkout, with the pytorch commit
it was taken from and the SHA-256 of its text (``_suite.load`` refuses another version).
torch's test files are BSD-3-licensed (Copyright (c) 2016- Facebook, Inc. and the PyTorch
contributors; the full notice is torch's LICENSE): they are read from a checkout, not copied
here.

``LEFT_OUT``: per file, ``Class.test_name`` patterns (fnmatch) of the tests that are not
kept, with the one-line reason; such a test runs as a skip that gives it.

``XFAIL``: per file, the kept tests that fail on ctxgrad, as ``Class.test_name`` ->
``(category, reason)``.  On the ctxgrad backend each is ``xfail(strict=True)``, so a fix
shows as an XPASS that fails the run until its line here is removed.
"""

from __future__ import annotations

SOURCES: dict[str, tuple[str, str]] = {
    "test/autograd/test_functional.py": (
        "08151c601a35c69f341548eb3b43c52146e6c6f0",
        "98590dd3186d85cd2eecd94c3ff50ba0c9f62859400e0e1fc9d6034ca9630b0b",
    ),
    "test/autograd/test_complex.py": (
        "123527f6f7b16502625d521cba47169c7c675fa5",
        "97ecebcdc764a752b0964aede4e85b08371e60c0dc7f211dd592f5814fe237fd",
    ),
}

_LOGGING_TENSOR = (
    "LoggingTensor is a __torch_dispatch__ subclass from torch.testing._internal (dispatch modes, torch internals)"
)

LEFT_OUT: dict[str, dict[str, str]] = {
    "test/autograd/test_functional.py": {
        "*_logging_tensor": _LOGGING_TENSOR,
        "TestAutogradFunctional.test_construct_standard_basis_for_*": (
            "tests torch's private helper autograd.functional._construct_standard_basis_for (torch internals)"
        ),
        # (TestAutogradFunctionalDeviceType is instantiated for accelerators only: no test on the CPU.)
    },
    "test/autograd/test_complex.py": {},
}

# Categories, so that the figures group the failures by cause.
NAMES = "names in messages"

XFAIL: dict[str, dict[str, tuple[str, str]]] = {
    "test/autograd/test_functional.py": {
        "TestAutogradFunctional.test_vjp_err_check_base_tensor": (
            NAMES,
            "the message prints ctxgrad.Size([3]) where torch's prints torch.Size([3]) (docs/differences.md: "
            "messages that print a shape)",
        ),
        "TestAutogradFunctional.test_jvp_err_check_base_tensor": (
            NAMES,
            "the message prints ctxgrad.Size([4]) where torch's prints torch.Size([4]) (docs/differences.md: "
            "messages that print a shape)",
        ),
    },
    "test/autograd/test_complex.py": {},
}
