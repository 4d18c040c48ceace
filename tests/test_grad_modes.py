"""Grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode) and anomaly mode.

All modes are per thread in ctxgrad.  Torch's anomaly flag is process-wide; ctxgrad's is
per thread, and these tests check ctxgrad's behaviour there.
"""

from __future__ import annotations

import inspect
import sys
import threading
import warnings
from typing import Any

import pytest
from _support import import_torch, raised

import ctxgrad
from ctxgrad.autograd import Function


def _in_new_thread(fn: Any) -> Any:
    result: list[Any] = []
    t = threading.Thread(target=lambda: result.append(fn()))
    t.start()
    t.join()
    return result[0]


@pytest.fixture(autouse=True)
def _modes_restored() -> Any:
    """Every test must leave the thread's modes as it found them."""
    yield
    assert ctxgrad.is_grad_enabled()
    assert not ctxgrad.is_inference_mode_enabled()
    assert not ctxgrad.autograd.is_anomaly_enabled()


# --------------------------------------------------------------------------- no_grad / enable_grad / set_grad_enabled
def test_no_grad_context_records_nothing() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with ctxgrad.no_grad():
        assert not ctxgrad.is_grad_enabled()
        y = x * 2
    assert ctxgrad.is_grad_enabled()
    assert not y.requires_grad
    assert y.grad_fn is None


def test_no_grad_restores_the_mode_after_an_exception() -> None:
    with pytest.raises(KeyError):
        with ctxgrad.no_grad():
            raise KeyError("inside")
    assert ctxgrad.is_grad_enabled()


def test_enable_grad_inside_no_grad_records() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with ctxgrad.no_grad():
        with ctxgrad.enable_grad():
            assert ctxgrad.is_grad_enabled()
            y = x * 2
        assert not ctxgrad.is_grad_enabled()
    assert y.requires_grad
    assert y.grad_fn is not None


def test_set_grad_enabled_as_a_context_manager() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with ctxgrad.set_grad_enabled(False):
        y = x * 2
        with ctxgrad.set_grad_enabled(True):
            z = x * 2
        assert not ctxgrad.is_grad_enabled()
    assert ctxgrad.is_grad_enabled()
    assert not y.requires_grad
    assert z.requires_grad


def test_set_grad_enabled_as_a_plain_call() -> None:
    try:
        ctxgrad.set_grad_enabled(False)
        assert not ctxgrad.is_grad_enabled()
        assert not (ctxgrad.ones(1, requires_grad=True) * 2).requires_grad
    finally:
        ctxgrad.set_grad_enabled(True)
    assert ctxgrad.is_grad_enabled()


def test_set_grad_enabled_as_a_decorator_does_not_change_the_mode_when_applied() -> None:
    @ctxgrad.set_grad_enabled(False)
    def f() -> bool:
        """Doc of f."""
        return ctxgrad.is_grad_enabled()

    assert ctxgrad.is_grad_enabled()
    assert f() is False
    assert ctxgrad.is_grad_enabled()
    assert f.__name__ == "f"
    assert f.__doc__ == "Doc of f."


def test_no_grad_decorator_with_parentheses_keeps_name_and_doc() -> None:
    @ctxgrad.no_grad()
    def predict(x: Any) -> Any:
        """Run without a graph."""
        return x * 2

    y = predict(ctxgrad.ones(2, requires_grad=True))
    assert not y.requires_grad
    assert ctxgrad.is_grad_enabled()
    assert predict.__name__ == "predict"
    assert predict.__doc__ == "Run without a graph."


def test_no_grad_decorator_without_parentheses() -> None:
    @ctxgrad.no_grad
    def predict(x: Any) -> Any:
        """Run without a graph."""
        return x * 2, ctxgrad.is_grad_enabled()

    y, mode = predict(ctxgrad.ones(2, requires_grad=True))
    assert mode is False
    assert not y.requires_grad
    assert predict.__name__ == "predict"
    assert predict.__doc__ == "Run without a graph."


def test_enable_grad_decorator_with_and_without_parentheses() -> None:
    @ctxgrad.enable_grad
    def bare() -> bool:
        """Bare."""
        return ctxgrad.is_grad_enabled()

    @ctxgrad.enable_grad()
    def called() -> bool:
        """Called."""
        return ctxgrad.is_grad_enabled()

    with ctxgrad.no_grad():
        assert bare() is True
        assert called() is True
        assert not ctxgrad.is_grad_enabled()
    assert (bare.__name__, bare.__doc__) == ("bare", "Bare.")
    assert (called.__name__, called.__doc__) == ("called", "Called.")


def test_decorated_function_can_be_called_recursively() -> None:
    @ctxgrad.no_grad()
    def depth(n: int) -> list[bool]:
        here = [ctxgrad.is_grad_enabled()]
        return here if n == 0 else here + depth(n - 1)

    assert depth(3) == [False] * 4
    assert ctxgrad.is_grad_enabled()


def _generator_scenario(L: Any) -> list[bool]:
    @L.no_grad()
    def gen() -> Any:
        yield L.is_grad_enabled()
        yield L.is_grad_enabled()

    return list(gen()) + [L.is_grad_enabled()]


def test_no_grad_decorator_on_a_generator_function() -> None:
    assert _generator_scenario(ctxgrad) == [False, False, True]


def test_torch_parity_no_grad_decorator_on_a_generator_function() -> None:
    torch = import_torch()
    assert _generator_scenario(torch) == [False, False, True]


def test_factory_with_requires_grad_inside_no_grad_still_requires_grad() -> None:
    with ctxgrad.no_grad():
        w = ctxgrad.ones(3, requires_grad=True)
        t = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
        inside = w * 2
    assert w.requires_grad and w.is_leaf
    assert t.requires_grad
    assert not inside.requires_grad
    (w * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


def test_custom_function_under_no_grad_records_nothing() -> None:
    class Double(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    x = ctxgrad.ones(2, requires_grad=True)
    with ctxgrad.no_grad():
        y = Double.apply(x)
    assert not y.requires_grad
    assert y.grad_fn is None
    assert Double.apply(x).grad_fn is not None


def test_torch_parity_grad_mode_forms() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        out: list[Any] = []

        @L.no_grad
        def bare() -> bool:
            """D."""
            return L.is_grad_enabled()

        @L.set_grad_enabled(False)
        def deco() -> bool:
            return L.is_grad_enabled()

        out += [bare(), bare.__name__, bare.__doc__, L.is_grad_enabled(), deco(), L.is_grad_enabled()]
        L.set_grad_enabled(False)
        out.append(L.is_grad_enabled())
        L.set_grad_enabled(True)
        with L.no_grad():
            w = L.ones(2, requires_grad=True)
            out += [w.requires_grad, (w * 2).requires_grad]
            with L.enable_grad():
                out.append((w * 2).requires_grad)
            out.append(_in_new_thread(L.is_grad_enabled))
        return out

    assert scenario(ctxgrad) == scenario(torch)


# --------------------------------------------------------------------------- threads
def test_no_grad_in_the_main_thread_does_not_affect_a_new_thread() -> None:
    with ctxgrad.no_grad():
        assert _in_new_thread(ctxgrad.is_grad_enabled) is True
        assert not ctxgrad.is_grad_enabled()


def test_no_grad_in_another_thread_does_not_affect_this_one() -> None:
    def worker() -> bool:
        ctxgrad.set_grad_enabled(False)
        return ctxgrad.is_grad_enabled()

    assert _in_new_thread(worker) is False
    assert ctxgrad.is_grad_enabled()


def test_inference_mode_is_per_thread() -> None:
    with ctxgrad.inference_mode():
        assert _in_new_thread(ctxgrad.is_inference_mode_enabled) is False
        assert _in_new_thread(lambda: ctxgrad.ones(1).is_inference()) is False


def test_two_threads_run_forward_and_backward_on_separate_graphs_at_the_same_time() -> None:
    class Checked(Function):
        """y = k * x**2; checks the grad mode it runs in."""

        @staticmethod
        def forward(ctx: Any, x: Any, k: float, create_graph: bool) -> Any:
            assert not ctxgrad.is_grad_enabled()
            ctx.save_for_backward(x)
            ctx.k = k
            ctx.create_graph = create_graph
            return x * x * k

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            assert ctxgrad.is_grad_enabled() is ctx.create_graph
            (x,) = ctx.saved_tensors
            return g * 2 * ctx.k * x, None, None

    iterations = 300
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []
    results: dict[int, list[Any]] = {0: [], 1: []}

    def worker(k: int) -> None:
        try:
            barrier.wait()
            for i in range(iterations):
                x = ctxgrad.tensor([1.0, float(i)], requires_grad=True)
                if k == 0:
                    # Thread 0 also toggles no_grad and builds double-backward graphs.
                    with ctxgrad.no_grad():
                        assert not (x * 2).requires_grad
                    y = Checked.apply(x, 1.0, True).sum()
                    (g,) = ctxgrad.autograd.grad(y, x, create_graph=True)
                    (gg,) = ctxgrad.autograd.grad(g.sum(), x)
                    results[0].append((g.tolist(), gg.tolist()))
                else:
                    y = Checked.apply(x, 3.0, False).sum()
                    assert y.requires_grad
                    y.backward()
                    results[1].append(x.grad.tolist())
        except BaseException as exc:  # reported in the main thread
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(k,)) for k in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    assert results[0] == [([2.0, 2.0 * i], [2.0, 2.0]) for i in range(iterations)]
    assert results[1] == [[6.0, 6.0 * i] for i in range(iterations)]


# --------------------------------------------------------------------------- inference mode
def test_inference_mode_context_disables_grad_and_marks_tensors() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with ctxgrad.inference_mode():
        assert ctxgrad.is_inference_mode_enabled()
        assert not ctxgrad.is_grad_enabled()
        made = ctxgrad.ones(2)
        computed = x * 2
    assert made.is_inference()
    assert computed.is_inference()
    assert not computed.requires_grad
    assert not x.is_inference()
    assert not ctxgrad.ones(2).is_inference()


def test_inference_mode_decorators_keep_name_and_doc() -> None:
    @ctxgrad.inference_mode
    def bare() -> bool:
        """Bare."""
        return ctxgrad.is_inference_mode_enabled()

    @ctxgrad.inference_mode()
    def called() -> bool:
        """Called."""
        return ctxgrad.is_inference_mode_enabled()

    assert bare() is True
    assert called() is True
    assert (bare.__name__, bare.__doc__) == ("bare", "Bare.")
    assert (called.__name__, called.__doc__) == ("called", "Called.")


def test_inference_tensor_in_a_recorded_op_laterraised() -> None:
    with ctxgrad.inference_mode():
        i = ctxgrad.ones(2) * 2
    x = ctxgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward") as info:
        x * i
    assert "use ctxgrad.no_grad() instead of ctxgrad.inference_mode()" in str(info.value)
    # Computation that records nothing is fine.
    assert (i * 2).tolist() == [4.0, 4.0]
    with ctxgrad.no_grad():
        assert (x * i).tolist() == [2.0, 2.0]


def test_inference_tensor_saved_by_a_custom_functionraised() -> None:
    class SaveBoth(Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            a, b = ctx.saved_tensors
            return g * b, g * a

    with ctxgrad.inference_mode():
        i = ctxgrad.ones(2)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        SaveBoth.apply(ctxgrad.ones(2, requires_grad=True), i)


def test_requires_grad_on_an_inference_tensor_outside_inference_moderaised() -> None:
    with ctxgrad.inference_mode():
        i = ctxgrad.ones(2)
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        i.requires_grad_()
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor outside InferenceMode"):
        i.requires_grad = True


def test_custom_function_inside_inference_mode() -> None:
    seen: list[bool] = []

    class Probe(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            seen.append(ctxgrad.is_inference_mode_enabled())
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    x = ctxgrad.ones(2, requires_grad=True)
    with ctxgrad.inference_mode():
        y = Probe.apply(x)
    assert seen == [True]
    assert y.is_inference()
    assert not y.requires_grad


def test_torch_parity_inference_mode() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        x = L.ones(2, requires_grad=True)
        with L.inference_mode():
            i = L.ones(2)
            c = x * 2
            flags = [L.is_inference_mode_enabled(), L.is_grad_enabled()]
        out: list[Any] = [*flags, i.is_inference(), c.is_inference(), c.requires_grad, x.is_inference()]
        kind, msg = raised(lambda: x * i, L)
        out += [kind, msg.split(". ")[0]]  # ctxgrad adds the op and argument at the end
        out.append(raised(lambda: i.requires_grad_(), L))
        out.append((i * 2).tolist())
        return out

    assert scenario(ctxgrad) == scenario(torch)


def _inference_in_op_that_saves_nothing(L: Any) -> list[float]:
    with L.inference_mode():
        i = L.ones(2)
    x = L.ones(2, requires_grad=True)
    (x + i).sum().backward()
    return x.grad.tolist()


def test_inference_tensor_in_an_op_that_saves_nothing_is_allowed() -> None:
    assert _inference_in_op_that_saves_nothing(ctxgrad) == [1.0, 1.0]


def test_torch_parity_inference_tensor_in_an_op_that_saves_nothing() -> None:
    torch = import_torch()
    assert _inference_in_op_that_saves_nothing(torch) == [1.0, 1.0]


def _inference_false_scenario(L: Any) -> list[bool]:
    with L.inference_mode():
        with L.inference_mode(False):
            inner = [L.is_inference_mode_enabled(), L.is_grad_enabled(), L.ones(1).is_inference()]
        after = [L.is_inference_mode_enabled(), L.is_grad_enabled()]
    return inner + after


def test_inference_mode_false_inside_inference_mode_leaves_it() -> None:
    assert _inference_false_scenario(ctxgrad) == [False, True, False, True, False]


def test_torch_parity_inference_mode_false() -> None:
    torch = import_torch()
    assert _inference_false_scenario(torch) == [False, True, False, True, False]


# --------------------------------------------------------------------------- anomaly mode
class F(Function):
    """Named F so that its node is FBackward; its backward returns NaN."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return g * float("nan")


def _messages(caught: list[warnings.WarningMessage], category: type[Warning] = UserWarning) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, category)]


def test_detect_anomaly_warns_when_entered_and_restores_the_flag() -> None:
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with ctxgrad.autograd.detect_anomaly():
            assert ctxgrad.autograd.is_anomaly_enabled()
            assert ctxgrad.autograd.is_anomaly_check_nan_enabled()
    assert not ctxgrad.autograd.is_anomaly_enabled()


def test_set_detect_anomaly_warns_and_works_as_call_and_context() -> None:
    try:
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            ctxgrad.autograd.set_detect_anomaly(True)
        assert ctxgrad.autograd.is_anomaly_enabled()
    finally:
        ctxgrad.autograd.set_detect_anomaly(False)
    assert not ctxgrad.autograd.is_anomaly_enabled()
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with ctxgrad.autograd.set_detect_anomaly(True):
            assert ctxgrad.autograd.is_anomaly_enabled()
    assert not ctxgrad.autograd.is_anomaly_enabled()


def test_detect_anomaly_as_a_decorator() -> None:
    @ctxgrad.autograd.detect_anomaly()
    def probe() -> bool:
        """Doc."""
        return ctxgrad.autograd.is_anomaly_enabled()

    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        assert probe() is True
    assert probe.__name__ == "probe"
    assert not ctxgrad.autograd.is_anomaly_enabled()


def test_anomaly_nan_in_backward_raises_with_forward_traceback() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ctxgrad.autograd.detect_anomaly():
            forward_line = inspect.currentframe().f_lineno + 1  # type: ignore[union-attr]
            y = F.apply(x)
            with pytest.raises(RuntimeError) as info:
                y.sum().backward()
    assert str(info.value) == "Function 'FBackward' returned nan values in its 0th output."
    tb = info.value.forward_traceback  # type: ignore[attr-defined]
    assert __file__ in tb
    assert f"line {forward_line}" in tb
    assert "y = F.apply(x)" in tb
    warned = [m for m in _messages(caught) if m.startswith("Error detected in FBackward")]
    assert len(warned) == 1
    assert "Traceback of forward call that caused the error" in warned[0]
    assert f"line {forward_line}" in warned[0]


def test_anomaly_only_during_backward_has_no_forward_information() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    y = F.apply(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ctxgrad.autograd.detect_anomaly():
            with pytest.raises(RuntimeError, match="Function 'FBackward' returned nan values in its 0th output"):
                y.sum().backward()
    assert any(
        m.startswith("Error detected in FBackward. No forward pass information available") for m in _messages(caught)
    )


def test_without_anomaly_mode_nan_passes_silently() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.apply(x).sum().backward()
    assert [v != v for v in x.grad.tolist()] == [True, True]


def test_anomaly_only_during_forward_does_not_check_nan_in_backward() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with ctxgrad.autograd.detect_anomaly():
            y = F.apply(x)
    assert "traceback_" in y.grad_fn.metadata
    y.sum().backward()
    assert [v != v for v in x.grad.tolist()] == [True, True]


def test_anomaly_check_nan_false_lets_nan_through() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with ctxgrad.autograd.detect_anomaly(check_nan=False):
            assert not ctxgrad.autograd.is_anomaly_check_nan_enabled()
            F.apply(x).sum().backward()
    assert [v != v for v in x.grad.tolist()] == [True, True]
    assert ctxgrad.autograd.is_anomaly_check_nan_enabled()


def test_anomaly_keeps_the_type_of_a_user_exception_and_reports_it() -> None:
    class Boom(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 1

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            raise KeyError("from backward")

    x = ctxgrad.ones(1, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with ctxgrad.autograd.detect_anomaly():
            y = Boom.apply(x)
            with pytest.raises(KeyError, match="from backward") as info:
                y.sum().backward()
    assert "Boom.apply(x)" in info.value.forward_traceback  # type: ignore[attr-defined]
    assert any(m.startswith("Error detected in BoomBackward") for m in _messages(caught))


def test_anomaly_mode_is_per_thread_in_ctxgrad() -> None:
    # Unlike torch (process-wide), ctxgrad's anomaly flag is thread-local.
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        with ctxgrad.autograd.detect_anomaly():
            assert _in_new_thread(ctxgrad.autograd.is_anomaly_enabled) is False
            assert ctxgrad.autograd.is_anomaly_enabled()


def test_torch_parity_anomaly_nan_message_and_warnings() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * float("nan")

        x = L.ones(2, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with L.autograd.detect_anomaly():
                y = F.apply(x)
                err = raised(lambda: y.sum().backward(), L)
        messages = [m.split(".")[0] for m in _messages(caught)]
        F.apply(x).sum().backward()  # silent without anomaly mode
        return [err, messages, [v != v for v in x.grad.tolist()]]

    assert scenario(ctxgrad) == scenario(torch)
