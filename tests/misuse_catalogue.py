"""The misuse catalogue: mistakes people make with the Function / ctx / engine API, and what
each library says about them.

Every entry is a small program written against a module ``m``: the same code runs with
``m = ctxgrad`` and with ``m = torch``.  The entry records the exception torch raises, the
exception and message ctxgrad raises, and which words of ctxgrad's message name the
culprit (the Function, the argument and its index, what was expected and what came).

One table, three readers:

- ``tests/test_misuse.py`` runs every entry on both libraries and checks the table;
- ``docs/misuse.md`` is rendered from it (``python tests/misuse_catalogue.py --write``),
  and a test checks that the page is up to date;
- a reader looking up an error message finds the cause and the fix on that page.

A warning is caught as an exception of its category (the run turns that category into
errors), so an entry whose library only warns still has an exception type.  An entry
whose ``torch_exception`` is None records a misuse torch accepts silently; ``outcome`` is
then what the program returns on torch.
"""

from __future__ import annotations

import inspect
import re
import sys
import traceback
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ctxgrad.autograd import GradientTypeError, OnceDifferentiableError

__all__ = ["CATALOGUE", "PAGE", "Misuse", "Outcome", "message_pattern", "render_entry", "render_markdown", "run_misuse"]


# --------------------------------------------------------------------------- the table's row
@dataclass(frozen=True)
class Misuse:
    """One misuse, and what torch and ctxgrad do about it."""

    name: str
    """Short identifier (the test id and the page anchor)."""
    situation: str
    """What the user did, in words."""
    run: Callable[[Any], Any]
    """The misuse, written against the module it is given (ctxgrad or torch)."""
    torch_exception: type[BaseException] | None
    """What torch raises (None: torch accepts it silently)."""
    ctxgrad_exception: type[BaseException] | None
    """What ctxgrad raises: torch's type, or a subclass of it (see ``difference`` otherwise);
    None where both libraries accept the code, and ``outcome`` is what it returns on both."""
    message: str
    """ctxgrad's message; ``...`` stands for any text (as in a doctest)."""
    culprit: tuple[str, ...]
    """The parts of ``message`` that name the culprit."""
    fix: str
    """What to do instead."""
    torch_message: str | None = None
    """A part of torch's message (checked when torch is installed)."""
    outcome: str | None = None
    """When torch raises nothing: what ``run`` returns on torch (and on ctxgrad, when it
    raises nothing either)."""
    difference: str | None = None
    """Where ctxgrad deliberately differs from torch: the section of ``docs/differences.md``."""
    missing: tuple[str, ...] = ()
    """Culprit words ctxgrad's message should contain but does not yet (a known gap, tested
    as a strict xfail)."""
    check: Callable[[BaseException, list[warnings.WarningMessage]], None] | None = None
    """An extra check of the exception and the warnings caught, run for both libraries."""
    warns: tuple[type[Warning], ...] = field(default=())
    """Warning categories turned into errors while ``run`` runs."""


@dataclass
class Outcome:
    """What happened when a misuse ran on one library."""

    exception: BaseException | None
    returned: Any
    warnings: list[warnings.WarningMessage]


def run_misuse(misuse: Misuse, module: ModuleType) -> Outcome:
    """Run ``misuse`` on ``module``; warnings of its ``warns`` categories are raised, others recorded."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for category in misuse.warns:
            warnings.simplefilter("error", category)
        try:
            returned = misuse.run(module)
        except Exception as exc:
            return Outcome(exc, None, list(caught))
    return Outcome(None, returned, list(caught))


def message_pattern(message: str) -> re.Pattern[str]:
    """The regular expression of a table message: literal text, ``...`` for any text."""
    return re.compile(".*".join(re.escape(part) for part in message.split("...")), re.DOTALL)


# --------------------------------------------------------------------------- helpers for the programs
def _leaf(m: Any, *values: float) -> Any:
    """A float64 leaf that requires grad."""
    return m.tensor(list(values), dtype=m.float64, requires_grad=True)


def _function(m: Any, name: str, forward: Callable[..., Any], backward: Callable[..., Any], **extra: Any) -> Any:
    """A Function subclass of ``m`` named ``name`` (so its node is ``<name>Backward``)."""
    namespace: dict[str, Any] = {"forward": staticmethod(forward), "backward": staticmethod(backward)}
    namespace.update({k: staticmethod(v) if callable(v) else v for k, v in extra.items()})
    return type(name, (m.autograd.Function,), namespace)


def _double(ctx: Any, x: Any) -> Any:
    return x * 2


def _pass(ctx: Any, g: Any) -> Any:
    return g


def _save_input(ctx: Any, x: Any) -> Any:
    ctx.save_for_backward(x)
    return x * x


def _square_grad(ctx: Any, g: Any) -> Any:
    (x,) = ctx.saved_tensors
    return 2 * x * g


def _save_output(ctx: Any, x: Any) -> Any:
    y = x.exp()
    ctx.save_for_backward(y)
    return y


def _exp_grad(ctx: Any, g: Any) -> Any:
    (y,) = ctx.saved_tensors
    return g * y


# --------------------------------------------------------------------------- the misuses
# Gradients returned by backward.
def wrong_number_of_gradients(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        return g, g  # forward has one argument

    two_grads = _function(m, "TwoGrads", _double, backward)
    two_grads.apply(_leaf(m, 1.0, 2.0)).sum().backward()


def gradient_shape_does_not_broadcast(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        return m.ones(4, dtype=m.float64)  # x has shape [3]

    bad_shape = _function(m, "BadShape", _double, backward)
    bad_shape.apply(_leaf(m, 1.0, 2.0, 3.0)).sum().backward()


def gradient_is_a_float(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        return 2.0

    float_grad = _function(m, "FloatGrad", _double, backward)
    float_grad.apply(_leaf(m, 1.0)).sum().backward()


def gradient_is_a_numpy_array(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        return g.detach().numpy() * 2

    array_grad = _function(m, "ArrayGrad", _double, backward)
    array_grad.apply(_leaf(m, 1.0)).sum().backward()


def gradient_for_a_non_tensor_argument(m: Any) -> Any:
    def forward(ctx: Any, x: Any, scale: float) -> Any:
        return x * scale

    def backward(ctx: Any, g: Any) -> Any:
        return g * 2, g.sum()  # scale is a float: its gradient must be None

    scaled = _function(m, "Scaled", forward, backward)
    scaled.apply(_leaf(m, 1.0, 2.0), 2.0).sum().backward()


def gradient_is_complex_for_a_real_input(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        return g * m.tensor(1j)

    complex_grad = _function(m, "ComplexGrad", _double, backward)
    complex_grad.apply(_leaf(m, 1.0)).sum().backward()


def backward_with_too_few_parameters(m: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2, x * 3

    def backward(ctx: Any, g: Any) -> Any:  # two outputs: backward gets two gradients
        return g

    two_outputs = _function(m, "TwoOutputs", forward, backward)
    a, b = two_outputs.apply(_leaf(m, 1.0))
    (a + b).sum().backward()


def backward_raises(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        raise ValueError("my backward failed")

    broken = _function(m, "Broken", _double, backward)
    broken.apply(_leaf(m, 1.0)).sum().backward()


def _raised_in_users_backward(exc: BaseException, caught: list[warnings.WarningMessage]) -> None:
    frames = [frame.name for frame in traceback.extract_tb(exc.__traceback__)]
    assert frames and frames[-1] == "backward", f"the user's backward is not the innermost frame: {frames}"


def missing_backward(m: Any) -> Any:
    no_backward: Any = type("NoBackward", (m.autograd.Function,), {"forward": staticmethod(_double)})
    no_backward.apply(_leaf(m, 1.0)).sum().backward()


# Saved tensors and the graph's lifetime.
def saved_tensors_read_after_backward(m: Any) -> Any:
    square = _function(m, "Square", _save_input, _square_grad)
    y = square.apply(_leaf(m, 1.0, 2.0) * 1)
    y.sum().backward()
    return y.grad_fn.saved_tensors


def backward_twice_without_retain_graph(m: Any) -> Any:
    exp = _function(m, "Exp", _save_output, _exp_grad)
    loss = exp.apply(_leaf(m, 1.0, 2.0)).sum()
    loss.backward()
    loss.backward()


def saved_tensors_read_twice_when_cleared_on_access(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        (x,) = ctx.saved_tensors
        return 2 * x * g

    once = _function(m, "ReadOnce", _save_input, backward, clear_saved_tensors_on_access=True)
    once.apply(_leaf(m, 1.0)).sum().backward()


def saved_input_modified_in_place(m: Any) -> Any:
    square = _function(m, "Square", _save_input, _square_grad)
    a = _leaf(m, 1.0, 2.0) * 1
    y = square.apply(a)
    a.add_(1)
    y.sum().backward()


def saved_output_modified_in_place(m: Any) -> Any:
    exp = _function(m, "Exp", _save_output, _exp_grad)
    y = exp.apply(_leaf(m, 1.0, 2.0))
    y.mul_(2)
    y.sum().backward()


def saved_tensor_modified_through_a_view(m: Any) -> Any:
    square = _function(m, "Square", _save_input, _square_grad)
    a = _leaf(m, 1.0, 2.0, 3.0) * 1
    y = square.apply(a)
    a[1:].mul_(2)
    y.sum().backward()


def saved_tensor_of_a_built_in_op_modified_in_place(m: Any) -> Any:
    a = _leaf(m, 1.0, 2.0) * 1
    y = a.sin()  # SinBackward0 saves its input
    a.zero_()
    y.sum().backward()


def in_place_on_a_leaf_that_requires_grad(m: Any) -> Any:
    x = _leaf(m, 1.0, 2.0)
    x.add_(1)


def in_place_on_a_view_of_a_leaf(m: Any) -> Any:
    x = _leaf(m, 1.0, 2.0)
    x[:1].mul_(2)


# The ctx API inside forward.
def mark_dirty_on_a_leaf_that_requires_grad(m: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    add_one = _function(m, "AddOne_", forward, _pass)
    add_one.apply(_leaf(m, 1.0))


def mark_dirty_on_a_tensor_not_returned(m: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        x.add_(1)
        ctx.mark_dirty(x)
        return x * 2

    forgets = _function(m, "ForgetsDirty", forward, _pass)
    forgets.apply(_leaf(m, 1.0) * 1)


def mark_dirty_on_a_tensor_that_is_not_an_input(m: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        made = x * 2
        made.add_(1)
        ctx.mark_dirty(made)
        return made

    marks_new = _function(m, "MarksNew", forward, _pass)
    marks_new.apply(_leaf(m, 1.0))


def mark_dirty_with_a_non_tensor(m: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        ctx.mark_dirty(3)
        return x * 2

    _function(m, "DirtyInt", forward, _pass).apply(_leaf(m, 1.0))


def save_for_backward_with_a_non_tensor(m: Any) -> Any:
    def forward(ctx: Any, x: Any, power: int) -> Any:
        ctx.save_for_backward(x, power)
        return x**power

    _function(m, "Power", forward, _pass).apply(_leaf(m, 1.0), 3)


def save_for_forward_with_a_non_tensor(m: Any) -> Any:
    def forward(ctx: Any, x: Any, power: int) -> Any:
        ctx.save_for_forward(x, power)
        return x**power

    _function(m, "PowerFw", forward, _pass).apply(_leaf(m, 1.0), 3)


def mark_non_differentiable_with_a_non_tensor(m: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        ctx.mark_non_differentiable("index")
        return x * 2

    _function(m, "NonDiffStr", forward, _pass).apply(_leaf(m, 1.0))


def mark_non_differentiable_on_a_non_output(m: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        ctx.mark_non_differentiable(x)  # x is an input, not an output
        return x * 2

    out = _function(m, "NonDiffInput", forward, _pass).apply(_leaf(m, 1.0))
    return f"output requires_grad={out.requires_grad}"


# Using the Function class itself.
def calling_forward_directly(m: Any) -> Any:
    mul2 = _function(m, "Mul2", lambda x: x * 2, _pass, setup_context=lambda ctx, inputs, output: None)
    y = mul2.forward(_leaf(m, 1.0))  # runs the code, makes no Mul2Backward node
    return f"grad_fn={y.grad_fn.name()}"


def instantiating_a_function_with_arguments(m: Any) -> Any:
    double = _function(m, "Double", _double, _pass)
    made = double(_leaf(m, 1.0))  # meant: double.apply(...)
    return f"returned a {type(made).__name__} instance"


def calling_a_function_instance(m: Any) -> Any:
    double = _function(m, "Double", _double, _pass)
    double()(_leaf(m, 1.0))  # Double() only warns (DeprecationWarning); the call raises


def forward_returns_a_list(m: Any) -> Any:
    def forward(ctx: Any, x: Any) -> Any:
        return [x * 2, x * 3]

    out = _function(m, "ListOut", forward, _pass).apply(_leaf(m, 1.0))
    return f"requires_grad={[o.requires_grad for o in out]}"


def apply_with_an_unknown_keyword(m: Any) -> Any:
    def forward(ctx: Any, x: Any, scale: float = 2.0) -> Any:
        return x * scale

    _function(m, "Scale", forward, _pass).apply(_leaf(m, 1.0), scal=3.0)


# The engine: backward and grad.
def implicit_gradient_for_a_non_scalar(m: Any) -> Any:
    y = _leaf(m, 1.0, 2.0) * 2
    y.backward()


def backward_on_a_tensor_that_does_not_require_grad(m: Any) -> Any:
    m.ones(2).sum().backward()


def grad_of_an_unused_tensor_without_allow_unused(m: Any) -> Any:
    x, unused = _leaf(m, 1.0), _leaf(m, 2.0)
    m.autograd.grad((x * 2).sum(), [x, unused])


def grad_outputs_of_the_wrong_shape(m: Any) -> Any:
    x = _leaf(m, 1.0, 2.0)
    m.autograd.grad(x * 2, x, grad_outputs=m.ones(3, dtype=m.float64))


def backward_gradient_of_the_wrong_shape(m: Any) -> Any:
    x = _leaf(m, 1.0, 2.0)
    (x * 2).backward(m.ones(2, 1, dtype=m.float64))


def once_differentiable_twice_through_backward(m: Any) -> Any:
    x = _leaf(m, 3.0)
    seed = m.ones((), dtype=m.float64, requires_grad=True)  # torch raises its error only then
    (dx,) = m.autograd.grad(_numpy_square(m).apply(x).sum(), x, grad_outputs=seed, create_graph=True)
    dx.sum().backward()


def once_differentiable_twice_through_grad(m: Any) -> Any:
    x = _leaf(m, 3.0)
    (dx,) = m.autograd.grad(_numpy_square(m).apply(x).sum(), x, create_graph=True)
    m.autograd.grad(dx.sum(), x)


def _numpy_square(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return m.tensor(2 * x.numpy() * g.numpy())

    return _function(m, "NumpySquare", _save_input, m.autograd.function.once_differentiable(backward))


# Hooks.
def tensor_hook_returns_the_wrong_shape(m: Any) -> Any:
    def first_only(grad: Any) -> Any:
        return grad[:1]

    x = _leaf(m, 1.0, 2.0)
    x.register_hook(first_only)
    (x * 2).sum().backward()


def tensor_hook_returns_a_non_tensor(m: Any) -> Any:
    def as_list(grad: Any) -> Any:
        return grad.tolist()

    x = _leaf(m, 1.0, 2.0)
    x.register_hook(as_list)
    (x * 2).sum().backward()


def node_hook_returns_the_wrong_number_of_gradients(m: Any) -> Any:
    def doubled(grad_inputs: Any, grad_outputs: Any) -> Any:
        return grad_inputs + grad_inputs

    x = _leaf(m, 1.0, 2.0)
    y = x * x
    y.grad_fn.register_hook(doubled)
    y.sum().backward()


def hook_on_a_tensor_that_does_not_require_grad(m: Any) -> Any:
    m.ones(2).register_hook(lambda g: g)


# Anomaly mode.
def nan_gradient_under_anomaly_mode(m: Any) -> Any:
    def backward(ctx: Any, g: Any) -> Any:
        return g * float("nan")

    nan_grad = _function(m, "NanGrad", _double, backward)
    with m.autograd.detect_anomaly():
        x = _leaf(m, 1.0)
        y = nan_grad.apply(x)  # the line anomaly mode reports
        y.sum().backward()


def _forward_stack_reported(exc: BaseException, caught: list[warnings.WarningMessage]) -> None:
    reports = [str(w.message) for w in caught if "Error detected in NanGradBackward" in str(w.message)]
    assert reports, [str(w.message) for w in caught]
    assert "nan_grad.apply(x)" in reports[0], reports[0]


# Tensors.
def requires_grad_on_an_integer_tensor(m: Any) -> Any:
    m.tensor([1, 2], requires_grad=True)


def requires_grad_on_an_integer_tensor_in_place(m: Any) -> Any:
    m.tensor([1, 2]).requires_grad_()


def numpy_on_a_tensor_that_requires_grad(m: Any) -> Any:
    _leaf(m, 1.0, 2.0).numpy()


def view_of_a_non_contiguous_layout(m: Any) -> Any:
    m.zeros(2, 3).t().view(6)


def make_dual_outside_a_dual_level(m: Any) -> Any:
    m.autograd.forward_ad.make_dual(m.zeros(2), m.ones(2))


def make_dual_with_a_tangent_of_another_shape(m: Any) -> Any:
    with m.autograd.forward_ad.dual_level():
        m.autograd.forward_ad.make_dual(m.zeros(2), m.ones(3))


# --------------------------------------------------------------------------- the table
_VERSION_ERROR = "one of the variables needed for gradient computation has been modified by an inplace operation: "
_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed)..."
)

CATALOGUE: tuple[Misuse, ...] = (
    # Gradients returned by backward.
    Misuse(
        "wrong_number_of_gradients",
        "`backward` returns more gradients than `forward` has arguments",
        wrong_number_of_gradients,
        RuntimeError,
        RuntimeError,
        "function TwoGradsBackward returned an incorrect number of gradients (expected 1, got 2); forward "
        "takes (x), so backward must return one gradient (or None) for each",
        ("TwoGradsBackward", "expected 1, got 2", "forward takes (x)"),
        "Return one gradient per argument of `forward`, None for an argument that needs none.",
        torch_message="function TwoGradsBackward returned an incorrect number of gradients (expected 1, got 2)",
    ),
    Misuse(
        "gradient_shape_does_not_broadcast",
        "`backward` returns a gradient whose shape is neither the input's nor one that sums down to it",
        gradient_shape_does_not_broadcast,
        RuntimeError,
        RuntimeError,
        "Function BadShapeBackward returned an invalid gradient at index 0 - got [4] but expected shape "
        "compatible with [3] (argument 'x' (index 0) of BadShape.forward has shape [3]; ...)",
        ("BadShapeBackward", "got [4]", "compatible with [3]", "argument 'x' (index 0)"),
        "Return a gradient of the input's shape, or of a shape the input broadcasts to.",
        torch_message="Function BadShapeBackward returned an invalid gradient at index 0 - got [4] but expected "
        "shape compatible with [3]",
    ),
    Misuse(
        "gradient_is_a_float",
        "`backward` returns a Python float as a gradient",
        gradient_is_a_float,
        RuntimeError,
        GradientTypeError,
        "expected Variable or None (got float): function FloatGradBackward returned it as the gradient of "
        "argument 'x' (index 0); wrap it with ctxgrad.tensor or return None",
        ("got float", "FloatGradBackward", "argument 'x' (index 0)"),
        "Return a tensor (`ctxgrad.tensor(value)`) or None.",
        torch_message="expected Variable or None (got float)",
        difference="4 (`GradientTypeError` is a `TypeError` and a `RuntimeError`)",
    ),
    Misuse(
        "gradient_is_a_numpy_array",
        "`backward` returns a NumPy array as a gradient",
        gradient_is_a_numpy_array,
        RuntimeError,
        GradientTypeError,
        "expected Variable or None (got ndarray): function ArrayGradBackward returned it as the gradient of "
        "argument 'x' (index 0); ...",
        ("got ndarray", "ArrayGradBackward", "argument 'x' (index 0)"),
        "Wrap the array: `ctxgrad.tensor(array)`.",
        torch_message="expected Variable or None (got numpy.ndarray)",
        difference="4 (`GradientTypeError` is a `TypeError` and a `RuntimeError`)",
    ),
    Misuse(
        "gradient_for_a_non_tensor_argument",
        "`backward` returns a gradient, not None, for an argument that is not a tensor",
        gradient_for_a_non_tensor_argument,
        RuntimeError,
        GradientTypeError,
        "function ScaledBackward returned a gradient different than None at position 2, but the corresponding "
        "forward input was not a Variable (argument 'scale' (index 1) is not a tensor; return None for it)",
        ("ScaledBackward", "position 2", "argument 'scale' (index 1)"),
        "Return None in that argument's place.",
        torch_message="function ScaledBackward returned a gradient different than None at position 2, but the "
        "corresponding forward input was not a Variable",
        difference="4 (`GradientTypeError` is a `TypeError` and a `RuntimeError`)",
    ),
    Misuse(
        "gradient_is_complex_for_a_real_input",
        "`backward` returns a complex gradient for a real input",
        gradient_is_complex_for_a_real_input,
        RuntimeError,
        RuntimeError,
        "Function ComplexGradBackward returned a complex gradient for argument 'x' (index 0), which is real "
        "(float64); return the real part or make the input complex",
        ("ComplexGradBackward", "argument 'x' (index 0)", "real (float64)"),
        "Return the real part (`g.real`), or make the input complex.",
        torch_message="Expected isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex)",
    ),
    Misuse(
        "backward_with_too_few_parameters",
        "`backward` takes fewer gradients than `forward` has outputs",
        backward_with_too_few_parameters,
        TypeError,
        TypeError,
        "...backward() takes 2 positional arguments but 3 were given",
        ("backward()", "takes 2 positional arguments but 3 were given"),
        "`backward(ctx, *grads)` gets one gradient per output of `forward` (None for a non-tensor output).",
        torch_message="backward() takes 2 positional arguments but 3 were given",
    ),
    Misuse(
        "backward_raises",
        "the user's `backward` raises",
        backward_raises,
        ValueError,
        ValueError,
        "my backward failed",
        ("my backward failed",),
        "Nothing to fix in the engine: the exception is yours, unchanged, and its traceback ends in your `backward`.",
        torch_message="my backward failed",
        check=_raised_in_users_backward,
    ),
    Misuse(
        "missing_backward",
        "a Function without `backward` is differentiated",
        missing_backward,
        NotImplementedError,
        NotImplementedError,
        "You must implement either the backward or vjp method for your custom autograd.Function to use it "
        "with backward mode AD. (NoBackward defines neither.)",
        ("backward or vjp", "NoBackward"),
        "Define `backward` (or `vjp`) as a staticmethod.",
        torch_message="You must implement either the backward or vjp method",
    ),
    # Saved tensors and the graph's lifetime.
    Misuse(
        "saved_tensors_read_after_backward",
        "`grad_fn.saved_tensors` read after a backward without `retain_graph` freed them",
        saved_tensors_read_after_backward,
        RuntimeError,
        RuntimeError,
        _FREED,
        ("saved tensors after they have already been freed", "retain_graph=True", "SquareBackward"),
        "Pass `retain_graph=True` to the first backward, or read the tensors before it.",
        torch_message="Trying to backward through the graph a second time",
    ),
    Misuse(
        "backward_twice_without_retain_graph",
        "a second backward through a graph whose saved tensors the first one freed",
        backward_twice_without_retain_graph,
        RuntimeError,
        RuntimeError,
        _FREED,
        ("a second time", "retain_graph=True", "ExpBackward"),
        "Pass `retain_graph=True` to every backward but the last, or recompute the forward.",
        torch_message="Trying to backward through the graph a second time",
    ),
    Misuse(
        "saved_tensors_read_twice_when_cleared_on_access",
        "`saved_tensors` read twice by a Function with `clear_saved_tensors_on_access = True`",
        saved_tensors_read_twice_when_cleared_on_access,
        RuntimeError,
        RuntimeError,
        "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True is set on the "
        "autograd.Function. ...",
        ("clear_saved_tensors_on_access=True", "ReadOnceBackward"),
        "Read `saved_tensors` once into local names.",
        torch_message="saved_tensors can only be accessed once",
    ),
    Misuse(
        "saved_input_modified_in_place",
        "an input saved for backward is changed in place before the backward",
        saved_input_modified_in_place,
        RuntimeError,
        RuntimeError,
        _VERSION_ERROR + "[ctxgrad.DoubleTensor [2]], which is output 0 of Add, is at version 1; "
        "expected version 0 instead. It was saved for backward by SquareBackward as saved_tensors[0]." + "...",
        (
            "[ctxgrad.DoubleTensor [2]]",
            "output 0 of Add,",
            "version 1",
            "version 0",
            "SquareBackward",
            "saved_tensors[0]",
        ),
        "Change a copy (`a = a.clone()`) or change it after the backward.",
        torch_message="which is output 0 of Add, is at version 1; expected version 0 instead",
    ),
    Misuse(
        "saved_output_modified_in_place",
        "an output saved for backward is changed in place before the backward",
        saved_output_modified_in_place,
        RuntimeError,
        RuntimeError,
        _VERSION_ERROR + "[ctxgrad.DoubleTensor [2]], which is output 0 of Exp, is at version 1; "
        "expected version 0 instead. It was saved for backward by ExpBackward as saved_tensors[0]." + "...",
        ("output 0 of Exp,", "version 1", "saved for backward by ExpBackward", "saved_tensors[0]"),
        "Use an out-of-place op on the output (`y = y * 2`).",
        torch_message="which is output 0 of Exp, is at version 1; expected version 0 instead",
    ),
    Misuse(
        "saved_tensor_modified_through_a_view",
        "a tensor saved for backward is changed in place through a view of it",
        saved_tensor_modified_through_a_view,
        RuntimeError,
        RuntimeError,
        _VERSION_ERROR + "[ctxgrad.DoubleTensor [3]], which is output 0 of CopySlices, is at version 1; "
        "expected version 0 instead. It was saved for backward by SquareBackward as saved_tensors[0]." + "...",
        ("CopySlices", "version 1", "SquareBackward", "saved_tensors[0]"),
        "A view shares its base's storage and version: change a clone.",
        torch_message="which is output 0 of torch::autograd::CopySlices, is at version 1",
    ),
    Misuse(
        "saved_tensor_of_a_built_in_op_modified_in_place",
        "an input a built-in op saved (`sin` saves its input) is changed in place",
        saved_tensor_of_a_built_in_op_modified_in_place,
        RuntimeError,
        RuntimeError,
        _VERSION_ERROR + "[ctxgrad.DoubleTensor [2]], which is output 0 of Zero, is at version 1; "
        "expected version 0 instead. It was saved for backward by SinBackward0 as saved_tensors[0]." + "...",
        ("output 0 of Zero,", "SinBackward0", "saved_tensors[0]"),
        "Change a clone, or change it after the backward.",
        torch_message="which is output 0 of Zero, is at version 1; expected version 0 instead",
    ),
    Misuse(
        "in_place_on_a_leaf_that_requires_grad",
        "an in-place op on a leaf that requires grad",
        in_place_on_a_leaf_that_requires_grad,
        RuntimeError,
        RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation.",
        ("leaf Variable that requires grad",),
        "Change it under `ctxgrad.no_grad()` (an optimizer step), or use an out-of-place op.",
        torch_message="a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    Misuse(
        "in_place_on_a_view_of_a_leaf",
        "an in-place op on a view of a leaf that requires grad",
        in_place_on_a_view_of_a_leaf,
        RuntimeError,
        RuntimeError,
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        ("view of a leaf Variable",),
        "Clone the leaf first (`x.clone()[:1].mul_(2)`), or work under `no_grad`.",
        torch_message="a view of a leaf Variable that requires grad is being used in an in-place operation.",
    ),
    # The ctx API inside forward.
    Misuse(
        "mark_dirty_on_a_leaf_that_requires_grad",
        "`forward` changes a leaf that requires grad in place and marks it dirty",
        mark_dirty_on_a_leaf_that_requires_grad,
        RuntimeError,
        RuntimeError,
        "a leaf Variable that requires grad has been used in an in-place operation (marked dirty in AddOne_.forward).",
        ("leaf Variable", "AddOne_.forward"),
        "Pass a non-leaf (`x.clone()`), or do not change the input.",
        torch_message="a leaf Variable that requires grad has been used in an in-place operation.",
    ),
    Misuse(
        "mark_dirty_on_a_tensor_not_returned",
        "`forward` marks an input dirty but does not return it",
        mark_dirty_on_a_tensor_not_returned,
        RuntimeError,
        RuntimeError,
        "Some elements marked as dirty during the forward method were not returned as output. The inputs that "
        "are modified inplace must all be outputs of the Function (ForgetsDirty).",
        ("(ForgetsDirty)",),
        "Return every tensor you mark dirty.",
        torch_message="Some elements marked as dirty during the forward method were not returned as output.",
    ),
    Misuse(
        "mark_dirty_on_a_tensor_that_is_not_an_input",
        "`forward` marks dirty a tensor it made itself",
        mark_dirty_on_a_tensor_that_is_not_an_input,
        UserWarning,
        UserWarning,
        "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been mutated "
        "should be passed to ctx.mark_dirty() (in MarksNew.forward).",
        ("not an input", "MarksNew.forward"),
        "Mark only inputs that `forward` changed in place.",
        torch_message="ctx.mark_dirty() received a tensor that was not an input.",
        warns=(UserWarning,),
    ),
    Misuse(
        "mark_dirty_with_a_non_tensor",
        "`ctx.mark_dirty` is given something that is not a tensor",
        mark_dirty_with_a_non_tensor,
        RuntimeError,
        GradientTypeError,
        "mark_dirty only accepts Tensors, but argument 0 is of type int (in DirtyInt.forward)",
        ("argument 0 is of type int", "DirtyInt.forward"),
        "Pass the input tensors you changed in place.",
        torch_message="mark_dirty can only accept variables",
        difference="4 (`GradientTypeError` is a `TypeError` and a `RuntimeError`)",
    ),
    Misuse(
        "save_for_backward_with_a_non_tensor",
        "`ctx.save_for_backward` is given something that is not a tensor",
        save_for_backward_with_a_non_tensor,
        TypeError,
        TypeError,
        "save_for_backward can only save variables, but argument 1 is of type int (in Power.forward). Save "
        "non-tensors as attributes of ctx instead.",
        ("argument 1 is of type int", "Power.forward"),
        "Keep a non-tensor as a ctx attribute: `ctx.power = power`.",
        torch_message="save_for_backward can only save variables, but argument 1 is of type int",
    ),
    Misuse(
        "save_for_forward_with_a_non_tensor",
        "`ctx.save_for_forward` is given something that is not a tensor",
        save_for_forward_with_a_non_tensor,
        AssertionError,
        TypeError,
        "save_for_forward expects all arguments to be tensors, but argument 1 is of type int (in PowerFw); "
        "save non-tensors as attributes on ctx.",
        ("argument 1 is of type int", "PowerFw"),
        "Keep a non-tensor as a ctx attribute.",
        torch_message="save_for_forward expects all arguments to be tensors",
        difference="torch raises a bare `AssertionError`, ctxgrad a `TypeError` (not yet in differences.md)",
    ),
    Misuse(
        "mark_non_differentiable_with_a_non_tensor",
        "`ctx.mark_non_differentiable` is given something that is not a tensor",
        mark_non_differentiable_with_a_non_tensor,
        RuntimeError,
        GradientTypeError,
        "mark_non_differentiable only accepts Tensors, but argument 0 is of type str (in NonDiffStr.forward)",
        ("argument 0 is of type str", "NonDiffStr.forward"),
        "Pass the output tensors that have no gradient.",
        torch_message="mark_non_differentiable only accepts variable arguments",
        difference="4 (`GradientTypeError` is a `TypeError` and a `RuntimeError`)",
    ),
    Misuse(
        "mark_non_differentiable_on_a_non_output",
        "`ctx.mark_non_differentiable` is given an input, not an output",
        mark_non_differentiable_on_a_non_output,
        None,
        None,
        "",
        (),
        "Mark the outputs that have no gradient; a tensor that is not an output is ignored, in both libraries.",
        outcome="output requires_grad=True",
    ),
    # Using the Function class itself.
    Misuse(
        "calling_forward_directly",
        "`F.forward(x)` called instead of `F.apply(x)`",
        calling_forward_directly,
        None,
        None,
        "",
        (),
        "Call `F.apply(x)`: calling `forward` runs its code and records the ops inside it, not `F`.",
        outcome="grad_fn=MulBackward0",
    ),
    Misuse(
        "instantiating_a_function_with_arguments",
        "`F(x)`, meaning `F.apply(x)`",
        instantiating_a_function_with_arguments,
        None,
        RuntimeError,
        "Double should not be instantiated: Functions are used through their class. Call Double.apply(...) "
        "with these arguments instead.",
        ("Double should not be instantiated", "Double.apply(...)"),
        "Call `F.apply(x)`.",
        outcome="returned a Double instance",
        difference="7",
    ),
    Misuse(
        "calling_a_function_instance",
        "`F()(x)`: an instance called like a legacy Function",
        calling_a_function_instance,
        RuntimeError,
        RuntimeError,
        "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
        "function with static forward method: call Double.apply(...). (For instance-style forward(self, ...)/"
        "backward(self, ...) called as F()(x), as in MegEngine or torch before 0.4, subclass "
        "ctxgrad.compat.megengine.Function instead.)",
        ("Double.apply(...)", "ctxgrad.compat.megengine.Function"),
        "Call `F.apply(x)` on the class.",
        torch_message="Legacy autograd function with non-static forward method is deprecated.",
    ),
    Misuse(
        "forward_returns_a_list",
        "`forward` returns a list of tensors",
        forward_returns_a_list,
        None,
        TypeError,
        "ListOut.forward returned a list of tensors; return the tensors as elements of a tuple instead ...",
        ("ListOut.forward", "a list of tensors"),
        "Return a tuple: only a tuple is split into outputs.",
        outcome="requires_grad=[False, False]",
        difference="1",
    ),
    Misuse(
        "apply_with_an_unknown_keyword",
        "`apply` is given a keyword that `forward` does not have",
        apply_with_an_unknown_keyword,
        TypeError,
        TypeError,
        "Scale.forward() got an unexpected keyword argument 'scal'",
        ("Scale.forward()", "'scal'"),
        "Use `forward`'s parameter names.",
        torch_message="forward() got an unexpected keyword argument 'scal'",
    ),
    # The engine.
    Misuse(
        "implicit_gradient_for_a_non_scalar",
        "`y.backward()` without a gradient, for a `y` with more than one element",
        implicit_gradient_for_a_non_scalar,
        RuntimeError,
        RuntimeError,
        "grad can be implicitly created only for scalar outputs (this output has shape [2]: ...)",
        ("only for scalar outputs", "[2]"),
        "Reduce first (`y.sum().backward()`) or pass the gradient (`y.backward(ctxgrad.ones_like(y))`).",
        torch_message="grad can be implicitly created only for scalar outputs",
    ),
    Misuse(
        "backward_on_a_tensor_that_does_not_require_grad",
        "backward from a tensor that has no graph",
        backward_on_a_tensor_that_does_not_require_grad,
        RuntimeError,
        RuntimeError,
        "element 0 of tensors does not require grad and does not have a grad_fn",
        ("element 0",),
        "Make the leaves require grad before computing, and compute outside `no_grad`.",
        torch_message="element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    Misuse(
        "grad_of_an_unused_tensor_without_allow_unused",
        "`autograd.grad` asked for the gradient of a tensor the output does not depend on",
        grad_of_an_unused_tensor_without_allow_unused,
        RuntimeError,
        RuntimeError,
        "The differentiated Tensor at index 1 appears to not have been used in the graph. Set allow_unused=True "
        "if this is the desired behavior.",
        ("index 1",),
        "Pass `allow_unused=True` (its gradient is then None) or `materialize_grads=True` (zeros).",
        torch_message="The differentiated Tensor at index 1 appears to not have been used in the graph.",
    ),
    Misuse(
        "grad_outputs_of_the_wrong_shape",
        "`autograd.grad` given `grad_outputs` whose shape is not the output's",
        grad_outputs_of_the_wrong_shape,
        RuntimeError,
        RuntimeError,
        "Mismatch in shape: grad_output[0] has a shape of ctxgrad.Size([3]) and output[0] has a shape of "
        "ctxgrad.Size([2]).",
        ("grad_output[0]", "Size([3])", "Size([2])"),
        "Give one gradient per output, of that output's shape.",
        torch_message="Mismatch in shape: grad_output[0] has a shape of torch.Size([3])",
    ),
    Misuse(
        "backward_gradient_of_the_wrong_shape",
        "`y.backward(gradient)` with a gradient whose shape is not `y`'s (even one that broadcasts)",
        backward_gradient_of_the_wrong_shape,
        RuntimeError,
        RuntimeError,
        "Mismatch in shape: grad_output[0] has a shape of ctxgrad.Size([2, 1]) and output[0] has a shape of "
        "ctxgrad.Size([2]).",
        ("grad_output[0]", "Size([2, 1])", "Size([2])"),
        "Pass a gradient of `y`'s shape.",
        torch_message="Mismatch in shape: grad_output[0] has a shape of torch.Size([2, 1])",
    ),
    Misuse(
        "once_differentiable_twice_through_backward",
        "the gradient of a `once_differentiable` backward is differentiated with `.backward()`",
        once_differentiable_twice_through_backward,
        RuntimeError,
        OnceDifferentiableError,
        "trying to differentiate twice a function that was marked with @once_differentiable (NumpySquareBackward); ...",
        ("NumpySquareBackward",),
        "Write the backward in differentiable ctxgrad ops and drop `@once_differentiable`.",
        torch_message="trying to differentiate twice a function that was marked with @once_differentiable",
    ),
    Misuse(
        "once_differentiable_twice_through_grad",
        "the gradient of a `once_differentiable` backward is differentiated with `autograd.grad`",
        once_differentiable_twice_through_grad,
        RuntimeError,
        OnceDifferentiableError,
        "element 0 of tensors does not require grad and does not have a grad_fn (the last backward, run with "
        "create_graph=True, went through NumpySquareBackward, whose backward is marked @once_differentiable: ...",
        ("NumpySquareBackward",),
        "Write the backward in differentiable ctxgrad ops and drop `@once_differentiable`.",
        torch_message="element 0 of tensors does not require grad and does not have a grad_fn",
    ),
    # Hooks.
    Misuse(
        "tensor_hook_returns_the_wrong_shape",
        "a tensor hook returns a gradient of another shape",
        tensor_hook_returns_the_wrong_shape,
        RuntimeError,
        RuntimeError,
        "hook 'first_only' has changed the size of value (from [2] to [1])",
        ("hook 'first_only'", "[1]", "[2]"),
        "Return a gradient of the same shape, or None to keep it.",
        torch_message="hook 'first_only' has changed the size of value",
    ),
    Misuse(
        "tensor_hook_returns_a_non_tensor",
        "a tensor hook returns something that is not a tensor",
        tensor_hook_returns_a_non_tensor,
        TypeError,
        TypeError,
        "expected Variable, but hook returned 'list' (hook 'as_list')",
        ("hook returned 'list'", "as_list"),
        "Return a tensor, or None to keep the gradient.",
        torch_message="expected Variable, but hook returned 'list'",
    ),
    Misuse(
        "node_hook_returns_the_wrong_number_of_gradients",
        "a node post-hook returns more gradients than the node has inputs",
        node_hook_returns_the_wrong_number_of_gradients,
        RuntimeError,
        RuntimeError,
        "hook 'doubled' has returned an incorrect number of values (got 4, but expected 2)",
        ("hook 'doubled'", "got 4, but expected 2"),
        "Return a tuple with one gradient per input (`len(grad_inputs)`), or None.",
        torch_message="hook 'doubled' has returned an incorrect number of values (got 4, but expected 2)",
    ),
    Misuse(
        "hook_on_a_tensor_that_does_not_require_grad",
        "`register_hook` on a tensor that does not require grad",
        hook_on_a_tensor_that_does_not_require_grad,
        RuntimeError,
        RuntimeError,
        "cannot register a hook on a tensor that doesn't require gradient",
        ("doesn't require gradient",),
        "Register hooks on tensors that take part in a graph.",
        torch_message="cannot register a hook on a tensor that doesn't require gradient",
    ),
    # Anomaly mode.
    Misuse(
        "nan_gradient_under_anomaly_mode",
        "a backward returns NaN while anomaly mode is on",
        nan_gradient_under_anomaly_mode,
        RuntimeError,
        RuntimeError,
        "Function 'NanGradBackward' returned nan values in its 0th output.",
        ("'NanGradBackward'", "0th output"),
        "Look at the forward line in the warning (`Error detected in NanGradBackward. Traceback of forward "
        "call that caused the error: ...`) and at the backward of that Function.",
        torch_message="Function 'NanGradBackward' returned nan values in its 0th output.",
        check=_forward_stack_reported,
    ),
    # Tensors.
    Misuse(
        "requires_grad_on_an_integer_tensor",
        "an integer tensor made with `requires_grad=True`",
        requires_grad_on_an_integer_tensor,
        RuntimeError,
        RuntimeError,
        "Only Tensors of floating point and complex dtype can require gradients (this tensor is ctxgrad.int64)",
        ("floating point and complex dtype", "int64"),
        "Make it floating point: `ctxgrad.tensor([1, 2], dtype=ctxgrad.float32, requires_grad=True)`.",
        torch_message="Only Tensors of floating point and complex dtype can require gradients",
    ),
    Misuse(
        "requires_grad_on_an_integer_tensor_in_place",
        "`requires_grad_()` on an integer tensor",
        requires_grad_on_an_integer_tensor_in_place,
        RuntimeError,
        RuntimeError,
        "only Tensors of floating point dtype can require gradients (this tensor is ctxgrad.int64)",
        ("floating point dtype", "int64"),
        "Convert first: `t.double().requires_grad_()`.",
        torch_message="only Tensors of floating point dtype can require gradients",
    ),
    Misuse(
        "numpy_on_a_tensor_that_requires_grad",
        "`.numpy()` on a tensor that requires grad, with grad mode on",
        numpy_on_a_tensor_that_requires_grad,
        RuntimeError,
        RuntimeError,
        "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
        ("requires grad", "detach()"),
        "`t.detach().numpy()`.",
        torch_message="Can't call numpy() on Tensor that requires grad.",
    ),
    Misuse(
        "view_of_a_non_contiguous_layout",
        "`view` of a transposed tensor to a shape its strides cannot express",
        view_of_a_non_contiguous_layout,
        RuntimeError,
        RuntimeError,
        "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
        "two contiguous subspaces). Use .reshape(...) instead. (A view of shape [3, 2] with strides [1, 3] as [6].)",
        ("Use .reshape(...)", "[3, 2]", "[6]"),
        "`reshape` (it copies when it must) or `.contiguous().view(...)`.",
        torch_message="view size is not compatible with input tensor's size and stride",
    ),
    # Forward mode.
    Misuse(
        "make_dual_outside_a_dual_level",
        "`forward_ad.make_dual` outside a `dual_level` block",
        make_dual_outside_a_dual_level,
        RuntimeError,
        RuntimeError,
        "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first.",
        ("no level exists",),
        "Wrap the code in `with forward_ad.dual_level():`.",
        torch_message="Trying to create a dual Tensor for forward AD but no level exists",
    ),
    Misuse(
        "make_dual_with_a_tangent_of_another_shape",
        "`forward_ad.make_dual` with a tangent whose shape is not the primal's",
        make_dual_with_a_tangent_of_another_shape,
        RuntimeError,
        RuntimeError,
        "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
        "not supported. Tensor is of size [2] while the given forward gradient is of size [3].",
        ("size [2]", "size [3]"),
        "Give a tangent of the primal's shape.",
        torch_message="Tensor is of size [2] while the given forward gradient is of size [3].",
    ),
)


# --------------------------------------------------------------------------- the docs page
_HELPERS = (_leaf, _function, _double, _pass, _save_input, _square_grad, _save_output, _exp_grad, _numpy_square)

PAGE = Path(__file__).resolve().parent.parent / "docs" / "misuse.md"

_INTRO = """\
# Misuse catalogue

The mistakes people make with `Function`, its `ctx` and the engine, what torch 2.13 says
about each, and what ctxgrad says. ctxgrad raises the exception type torch raises (or a
subclass of it: `GradientTypeError` is both a `TypeError` and a `RuntimeError`), with a
message worded like torch's, so that searching for torch's message finds the same cause,
and that names the culprit: the Function, the argument and its index, what was expected
and what came. Where ctxgrad departs from torch on purpose, the entry points to the section
of [differences.md](differences.md) that explains why.

Every entry is a program written against a module `m`; `tests/test_misuse.py` runs it with
`m = ctxgrad` and with `m = torch` and checks what this page says. The page is generated
from the table in `tests/misuse_catalogue.py` (`python tests/misuse_catalogue.py --write`);
a test fails when it is out of date. In a message, `...` stands for text left out.

| # | misuse | torch | ctxgrad |
| --- | --- | --- | --- |
"""


def _type_name(exc: type[BaseException] | None) -> str:
    if exc is None:
        return "no error"
    if exc.__module__ == "builtins":
        return exc.__name__
    return f"ctxgrad.autograd.{exc.__name__}" if exc.__module__.startswith("ctxgrad") else exc.__qualname__


def _code(misuse: Misuse) -> str:
    return inspect.getsource(misuse.run).rstrip()


def render_entry(number: int, misuse: Misuse) -> str:
    """The section of the page for one entry."""
    title = misuse.situation[0].upper() + misuse.situation[1:]
    lines = [f'<a id="{misuse.name}"></a>', "", f"## {number}. {title}", ""]
    if misuse.torch_exception is None:
        lines.append(f"- **torch:** no error; the program returns `{misuse.outcome}`.")
    else:
        said = f": `{misuse.torch_message}`" if misuse.torch_message else ""
        lines.append(f"- **torch:** `{_type_name(misuse.torch_exception)}`{said}")
    if misuse.ctxgrad_exception is None:
        lines.append(f"- **ctxgrad:** no error either; the program returns `{misuse.outcome}`.")
    else:
        lines += [f"- **ctxgrad:** `{_type_name(misuse.ctxgrad_exception)}`:", "", "  ```text"]
        lines += [f"  {line}" for line in misuse.message.splitlines()]
        lines.append("  ```")
        lines.append("")
    if misuse.culprit:
        lines.append("- **names the culprit:** " + ", ".join(f"`{part}`" for part in misuse.culprit))
    if misuse.missing:
        lines.append(
            "- **known gap:** the message does not name " + ", ".join(f"`{part}`" for part in misuse.missing) + " yet."
        )
    if misuse.difference and misuse.difference[0].isdigit():
        where = f"[differences.md](differences.md) §{misuse.difference}"
        lines.append(f"- **differs from torch on purpose:** {where}")
    elif misuse.difference:
        lines.append(f"- **differs from torch on purpose:** {misuse.difference}")
    lines += [f"- **fix:** {misuse.fix}", "", "```python", _code(misuse), "```", ""]
    return "\n".join(lines)


def render_markdown() -> str:
    """The whole page ``docs/misuse.md``."""
    rows = [
        f"| {i} | [{m.situation}](#{m.name}) | {_type_name(m.torch_exception)} | {_type_name(m.ctxgrad_exception)} |"
        for i, m in enumerate(CATALOGUE, 1)
    ]
    sections = [render_entry(i, m) for i, m in enumerate(CATALOGUE, 1)]
    helpers = "\n\n".join(inspect.getsource(f).rstrip() for f in _HELPERS)
    return (
        _INTRO
        + "\n".join(rows)
        + "\n\n## The helpers the programs use\n\n```python\n"
        + helpers
        + "\n```\n\n"
        + "\n".join(sections)
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        PAGE.write_text(render_markdown())
        print(f"wrote {PAGE}")
    else:
        print(render_markdown())
