"""The private-but-imported corners of torch that libraries written for torch use:
``torch.nn.modules.utils`` (``_pair``, ...), ``torch.nn.common_types`` and ``torch.compiler``'s
markers; each compared with torch."""

from __future__ import annotations

from collections import OrderedDict

import pytest

import ctxgrad
from ctxgrad.nn import common_types
from ctxgrad.nn.modules import utils as module_utils

torch = pytest.importorskip("torch")
import torch.nn.common_types as torch_common_types  # noqa: E402
import torch.nn.modules.utils as torch_module_utils  # noqa: E402


@pytest.mark.parametrize("name", ["_single", "_pair", "_triple", "_quadruple"])
@pytest.mark.parametrize("value", [3, (1, 2), [4, 5, 6], "ab", 0.5])
def test_ntuple_parsers_match_torch(name: str, value: object) -> None:
    ours, theirs = getattr(module_utils, name), getattr(torch_module_utils, name)
    assert ours(value) == theirs(value)
    assert ours.__name__ == theirs.__name__


def test_reverse_repeat_tuple_matches_torch() -> None:
    for t, n in [((1, 2, 3), 2), ((4,), 3), ((), 2)]:
        assert module_utils._reverse_repeat_tuple(t, n) == torch_module_utils._reverse_repeat_tuple(t, n)


def test_consume_prefix_strips_keys_and_metadata_as_torch() -> None:
    states = []
    for consume in (
        module_utils.consume_prefix_in_state_dict_if_present,
        torch_module_utils.consume_prefix_in_state_dict_if_present,
    ):
        state: OrderedDict[str, int] = OrderedDict([("module.a", 1), ("module.b.c", 2), ("other", 3)])
        state._metadata = OrderedDict([("", {}), ("module", {"v": 1}), ("module.b", {"v": 2})])  # type: ignore[attr-defined]
        consume(state, "module.")
        states.append((list(state.items()), list(state._metadata.items())))  # type: ignore[attr-defined]
    assert states[0] == states[1]
    assert states[0][0] == [("other", 3), ("a", 1), ("b.c", 2)]


def test_common_types_has_torchs_aliases() -> None:
    theirs = {n for n in dir(torch_common_types) if n.startswith("_") and n.endswith("_t")}
    assert theirs <= set(dir(common_types))


@pytest.mark.torch_names("torch.compiler.disable", "torch.compiler.is_compiling")
def test_compiler_markers_leave_the_function_and_say_not_compiling() -> None:
    def double(x: object) -> object:
        return x

    for m in (ctxgrad, torch):
        assert m.compiler.is_compiling() is False
        assert m.compiler.is_dynamo_compiling() is False
        disabled = m.compiler.disable(double)
        assert disabled(3) == 3
        assert m.compiler.disable(recursive=False)(double)(4) == 4
    assert ctxgrad.compiler.disable(double) is double
