"""autograd/ holds the mechanism only: no op's knowledge.

The rule: the code under ``ctxgrad/autograd/`` (every identifier, attribute, imported name and
string constant; docstrings and comments are prose and may use an op as an example) names no
Function that is defined elsewhere in ctxgrad (under ``ctxgrad/ops``, ``ctxgrad/nn``,
``ctxgrad/fft.py``, ``ctxgrad/linalg.py``, ...), and declares no batching rule named after an
op.  The Functions autograd/ defines itself are the mechanism's own, listed below: an op's
batching rule is its Function's ``vmap`` (a staticmethod, or a classmethod to keep a
subclass's node), beside the op, as a user's Function declares one.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path

import ctxgrad
from ctxgrad.autograd.function import Function

AUTOGRAD = Path(ctxgrad.__file__).parent / "autograd"

#: The Functions of the mechanism itself, each with what it is for.
MECHANISM = {
    "CopySlices": "an in-place write into a view, recorded on its base (autograd/_views.py)",
    "TakeFlat": "a view read at flat positions of its base (autograd/_views.py)",
    "ReplaceFlat": "a write at flat positions of a base (autograd/_views.py)",
    "AddFlat": "the adjoint of TakeFlat: a scatter-add at flat positions (autograd/_views.py)",
    "RealPairs": "a complex base or view in its real layout, for a view that changes the dtype's kind (_views.py)",
    "ComplexFromPairs": "RealPairs undone (autograd/_views.py)",
    "InplaceFunction": "torch's base class of in-place Functions",
    "NestedIOFunction": "torch's legacy base class",
    "DelayedError": "torch's Function that raises at backward",
    "_UndefinedGrad": "gradcheck's undefined gradient",
    "StackSamples": "vmap's loop of last resort, stacking the samples (autograd/_batched.py)",
}


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _all_functions() -> list[type]:
    for module in pkgutil.walk_packages(ctxgrad.__path__, "ctxgrad."):
        # (__main__ runs the command line; ctxgrad.as_torch installs the torch alias)
        if not module.name.endswith("__main__") and module.name != "ctxgrad.as_torch":
            importlib.import_module(module.name)
    ctxgrad.autograd._batched.stack_samples([ctxgrad.zeros(1)])  # (made on first use)
    return list(_subclasses(Function))


def _code_names(path: Path) -> set[str]:
    """The names ``path``'s code uses: identifiers, attributes, imports and string constants
    other than docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.alias):
            names.update(n for n in (node.name.split(".")[-1], node.asname) if n)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            names.add(node.value)
    return names


def test_the_functions_autograd_defines_are_the_mechanisms_own() -> None:
    defined = {
        cls.__name__
        for cls in _all_functions()
        if cls.__module__.startswith("ctxgrad.autograd") and not cls.__qualname__.endswith(".vmapped")
    }
    assert defined == set(MECHANISM)


def test_no_op_function_is_named_in_autograd() -> None:
    op_classes = {
        cls.__name__
        for cls in _all_functions()
        if cls.__module__.startswith("ctxgrad.")
        and not cls.__module__.startswith(("ctxgrad.autograd", "ctxgrad.compat"))
    } - set(MECHANISM)  # (an op may subclass CopySlices under its own node name)
    # (ctxgrad.compat's Functions are other systems' ops under their own names, such as loupe's
    # ``add`` and ``sum`` and afnio's ``Function``: code written for those systems, not ops)
    assert {"Sin", "MatMul", "Convolution", "Roll", "Gather", "Permute", "SumToSize"} <= op_classes
    found = {
        f"{path.relative_to(AUTOGRAD)}: {name}"
        for path in sorted(AUTOGRAD.rglob("*.py"))
        for name in _code_names(path) & op_classes
    }
    assert found == set()


def test_no_batching_rule_in_autograd_is_named_after_an_op() -> None:
    import ctxgrad.nn.functional as F

    rules = {
        name
        for path in AUTOGRAD.rglob("*.py")
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        for name in (
            [node.name]
            if isinstance(node, ast.FunctionDef)
            else [t.id for t in node.targets if isinstance(t, ast.Name)]
            if isinstance(node, ast.Assign)
            else []
        )
        if name.endswith("_rule")
    }
    assert {"elementwise_rule", "dims_rule", "unary_rule"} <= rules
    ops = {name.lstrip("_").removesuffix("_rule") for name in rules}
    named_after_ops = {op for op in ops if hasattr(ctxgrad, op) or hasattr(ctxgrad.Tensor, op) or hasattr(F, op)}
    assert named_after_ops == set()
