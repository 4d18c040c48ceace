"""The harness of the ported suite, without torch's files: the port of the imports, the
stand-ins' test names and comparisons, and the left-out tests."""

from __future__ import annotations

from typing import Any

import pytest
from _internal import TestCase, instantiate_device_type_tests, instantiate_parametrized_tests, parametrize, subtest
from _suite import backend, left_out_reason, port, resolve, without_header


def test_port_rewrites_only_torchs_imports_and_keeps_line_numbers() -> None:
    source = (
        "import io\n"
        "import torch\n"
        "import torch.autograd.functional as autogradF\n"
        "from torch.testing._internal.common_utils import (\n"
        "    TestCase,\n"
        "    run_tests,\n"
        ")\n"
        "from torch.autograd import Function, grad as g\n"
        "x = torch.ones(2)\n"
    )
    ported = port(source).splitlines()
    assert ported == [
        "import io",
        "pass",
        "autogradF = _suite_resolve('torch.autograd.functional')",
        "from _internal import TestCase, run_tests",
        "",
        "",
        "",
        "Function = _suite_resolve('torch.autograd').Function; g = _suite_resolve('torch.autograd').grad",
        "x = torch.ones(2)",
    ]


def test_resolve_maps_torchs_modules_to_the_backends() -> None:
    lib = backend()
    assert resolve("torch.autograd.functional") is lib.autograd.functional
    assert resolve("torch") is lib
    with pytest.raises(ValueError, match=r"resolve: expected a name under torch, got 'numpy\.linalg'"):
        resolve("numpy.linalg")


def test_parametrized_tests_take_torchs_names() -> None:
    class Cases(TestCase):
        @parametrize("vectorize", [True, False])
        @parametrize("ctors", [subtest(1, name="base_tensor"), subtest(2, name="other")])
        def test_a(self, vectorize: bool, ctors: int) -> None:
            self.seen = (vectorize, ctors)

        @parametrize("x,y", [subtest((1, 2), name="pair"), (3.5, None)])
        def test_b(self, x: Any, y: Any) -> None:
            self.seen = (x, y)

    instantiate_parametrized_tests(Cases)
    names = sorted(n for n in vars(Cases) if n.startswith("test"))
    assert names == [
        "test_a_vectorize_False_base_tensor",
        "test_a_vectorize_False_other",
        "test_a_vectorize_True_base_tensor",
        "test_a_vectorize_True_other",
        "test_b_pair",
        "test_b_x_3_5_y_None",
    ]
    case = Cases("test_a_vectorize_False_other")
    case.test_a_vectorize_False_other()  # type: ignore[attr-defined]
    assert case.seen == (False, 2)


def test_device_type_tests_are_made_for_the_cpu_unless_it_is_excluded() -> None:
    class Devices(TestCase):
        def test_where(self, device: str) -> None:
            self.device = device

    scope: dict[str, Any] = {"Devices": Devices}
    instantiate_device_type_tests(Devices, scope)
    made = scope["DevicesCPU"]
    assert "Devices" not in scope
    case = made("test_where_cpu")
    case.test_where_cpu()
    assert case.device == "cpu"
    assert made.test_where is None  # (the generic test, which takes a device, is not collected)
    scope = {"Devices": Devices}
    instantiate_device_type_tests(Devices, scope, except_for="cpu")
    assert scope == {}


def test_assert_equal_uses_torchs_tolerances_and_exact_dtypes() -> None:
    lib = backend()
    case = TestCase()
    a = lib.tensor([1.0, 2.0])
    case.assertEqual(a, a + 5e-6)  # within float32's atol of 1e-5
    with pytest.raises(AssertionError, match=r"values differ beyond rtol=1\.3e-06, atol=1e-05"):
        case.assertEqual(a, a + 1e-3)
    with pytest.raises(AssertionError, match="dtypes differ"):
        case.assertEqual(a, a.double())
    case.assertEqual(a.sum(), 3.0)
    case.assertEqual((a, [a.size()]), (a.clone(), [(2,)]))
    with pytest.raises(AssertionError, match="at index 1: lengths differ: 1 != 2"):
        case.assertEqual((a, [a]), (a, [a, a]))
    case.assertNotEqual(a, lib.zeros(2))
    with pytest.raises(AssertionError, match="expected values that differ"):
        case.assertNotEqual(a, a.clone())


def test_left_out_tests_are_found_by_pattern() -> None:
    reason = left_out_reason(
        "test/autograd/test_functional.py", "TestAutogradFunctional.test_vjp_output_logging_tensor"
    )
    assert reason is not None and reason.startswith("LoggingTensor is a __torch_dispatch__ subclass")
    assert (
        left_out_reason("test/autograd/test_functional.py", "TestAutogradFunctional.test_vjp_output_base_tensor")
        is None
    )


def test_a_copys_header_lines_are_not_part_of_torchs_text() -> None:
    body = "import torch\n# torch_suite: not a header here\n"
    header = "# torch_suite: BSD-3-Clause, (c) the PyTorch contributors\n# torch_suite: pytorch 0123abc\n"
    assert without_header(header + body) == body
    assert without_header(body) == body
