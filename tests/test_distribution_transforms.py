"""``ctxgrad.distributions.transforms``, ``biject_to``/``transform_to`` and
``TransformedDistribution`` against torch's: values, inverses and log-Jacobians with their
gradients (float64), the transforms' constraints, flags and reprs, the inverse's caching, the
registries' entries and errors, and rsample gradients from the same base noise."""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import distributions as cd

torch = pytest.importorskip("torch")
td = torch.distributions

rng = np.random.default_rng(26)


@pytest.fixture(autouse=True)
def _rng_of_the_test(request: pytest.FixtureRequest) -> None:
    global rng
    rng = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def _shown(value: Any) -> str:
    return repr(value).replace("torch.", "ctxgrad.")


def _close(got: Any, expected: Any, rtol: float = 1e-10, what: str = "") -> None:
    assert tuple(got.shape) == tuple(expected.shape), what
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=rtol, atol=1e-12, err_msg=what)


def _grads_close(cp: list[Any], tp: list[Any], rtol: float = 1e-8) -> None:
    for i, (c, t) in enumerate(zip(cp, tp)):
        expected = np.zeros(c.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(c.shape) if c.grad is None else c.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=1e-10, err_msg=f"grad of input {i}")


def _leaves(*arrays: np.ndarray[Any, Any]) -> tuple[list[Any], list[Any]]:
    cp = [ctxgrad.tensor(a, dtype=ctxgrad.float64, requires_grad=True) for a in arrays]
    tp = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    return cp, tp


def _backward_both(out_c: Any, out_t: Any) -> None:
    assert out_c.requires_grad == out_t.requires_grad
    if not out_t.requires_grad:  # (a constant log-Jacobian)
        return
    weights = rng.normal(size=tuple(out_t.shape))
    (out_c * ctxgrad.tensor(weights)).sum().backward()
    (out_t * torch.tensor(weights)).sum().backward()


Make = Callable[[Any, list[Any]], Any]

#: (id, make(module, params), params, x in the domain)
TRANSFORMS: list[tuple[str, Make, list[np.ndarray[Any, Any]], np.ndarray[Any, Any]]] = [
    ("exp", lambda m, p: m.ExpTransform(), [], rng.normal(size=(2, 3))),
    ("sigmoid", lambda m, p: m.SigmoidTransform(), [], rng.normal(size=(2, 3)) * 3),
    ("tanh", lambda m, p: m.TanhTransform(), [], rng.normal(size=(2, 3))),
    ("softplus", lambda m, p: m.transforms.SoftplusTransform(), [], rng.normal(size=(2, 3))),
    ("abs", lambda m, p: m.transforms.AbsTransform(), [], rng.uniform(0.1, 2, (2, 3))),
    ("power", lambda m, p: m.transforms.PowerTransform(p[0]), [rng.uniform(0.5, 2, 3)], rng.uniform(0.5, 2, (2, 3))),
    ("power_number", lambda m, p: m.transforms.PowerTransform(-1.5), [], rng.uniform(0.5, 2, (2, 3))),
    ("affine", lambda m, p: m.AffineTransform(p[0], p[1]), [rng.normal(size=3), rng.uniform(0.5, 2, 3)],
     rng.normal(size=(2, 3))),
    ("affine_numbers", lambda m, p: m.transforms.AffineTransform(0.5, -2.0), [], rng.normal(size=(2, 3))),
    ("affine_event", lambda m, p: m.AffineTransform(p[0], p[1], event_dim=1), [rng.normal(size=3),
     rng.uniform(0.5, 2, 3)], rng.normal(size=(2, 3))),
    ("softmax", lambda m, p: m.transforms.SoftmaxTransform(), [], rng.normal(size=(2, 3))),
    ("stick_breaking", lambda m, p: m.transforms.StickBreakingTransform(), [], rng.normal(size=(2, 3))),
    ("lower_cholesky", lambda m, p: m.transforms.LowerCholeskyTransform(), [], rng.normal(size=(2, 3, 3))),
    ("positive_definite", lambda m, p: m.transforms.PositiveDefiniteTransform(), [], rng.normal(size=(2, 3, 3))),
    ("independent", lambda m, p: m.transforms.IndependentTransform(m.ExpTransform(), 1), [], rng.normal(size=(2, 3))),
    ("compose", lambda m, p: m.ComposeTransform([m.ExpTransform(), m.AffineTransform(p[0], 2.0)]),
     [rng.normal(size=3)], rng.normal(size=(2, 3))),
    ("compose_event", lambda m, p: m.ComposeTransform([m.AffineTransform(0.0, p[0]),
     m.transforms.StickBreakingTransform()]), [rng.uniform(0.5, 2, 3)], rng.normal(size=(2, 3))),
    ("identity", lambda m, p: m.transforms.identity_transform, [], rng.normal(size=(2, 3))),
    ("inverse_sigmoid", lambda m, p: m.SigmoidTransform().inv, [], rng.uniform(0.05, 0.95, (2, 3))),
    ("inverse_compose", lambda m, p: m.ComposeTransform([m.SigmoidTransform(), m.AffineTransform(1.0, p[0])]).inv,
     [rng.uniform(0.5, 2, 3)], 1 + rng.uniform(0.05, 0.45, (2, 3))),
    ("corr_cholesky", lambda m, p: m.transforms.CorrCholeskyTransform(), [], rng.normal(size=(2, 6))),
    ("stack", lambda m, p: m.transforms.StackTransform([m.ExpTransform(), m.AffineTransform(1.0, 3.0)], dim=1),
     [], rng.normal(size=(3, 2))),
    ("cat", lambda m, p: m.transforms.CatTransform([m.ExpTransform(), m.AffineTransform(1.0, p[0])], dim=1,
     lengths=[2, 1]), [rng.uniform(0.5, 2, 1)], rng.normal(size=(4, 3))),
    ("cat_event", lambda m, p: m.transforms.CatTransform([m.AffineTransform(0.0, 2.0, event_dim=1), m.ExpTransform()],
     dim=-1, lengths=[2, 3]), [], rng.normal(size=(4, 5))),
    ("reshape", lambda m, p: m.transforms.ReshapeTransform((2, 3), (3, 2)), [], rng.normal(size=(4, 2, 3))),
    ("cdf", lambda m, p: m.transforms.CumulativeDistributionTransform(m.Normal(p[0], 2.0)), [rng.normal(size=3)],
     rng.normal(size=(2, 3))),
]  # fmt: skip


@pytest.mark.torch_names(
    "torch.distributions.transforms",
    "torch.distributions.Transform",
    "torch.distributions.transforms.Transform",
    "torch.distributions.transforms.AffineTransform",
    "torch.distributions.AffineTransform",
    "torch.distributions.transforms.SigmoidTransform",
    "torch.distributions.transforms.ComposeTransform",
    "torch.distributions.transforms.ExpTransform",
    "torch.distributions.transforms.IndependentTransform",
    "torch.distributions.transforms.identity_transform",
    "torch.distributions.transforms._InverseTransform",
)
@pytest.mark.parametrize("case", TRANSFORMS, ids=[c[0] for c in TRANSFORMS])
def test_transform_values_inverses_and_jacobians_match_torch(case: Any) -> None:
    _, make, params, x = case
    for what in ("call", "inverse", "log_abs_det_jacobian"):
        cp, tp = _leaves(*params, x)
        tc, tt = make(cd, cp[:-1]), make(td, tp[:-1])
        xc, xt = cp[-1], tp[-1]
        if what == "call":
            out_c, out_t = tc(xc), tt(xt)
        elif what == "inverse":  # from y computed outside the graph, so only the inverse differentiates
            yc = ctxgrad.tensor(tt(xt).detach().numpy(), requires_grad=True)
            yt = tt(xt).detach().requires_grad_()
            cp, tp = cp[:-1] + [yc], tp[:-1] + [yt]
            out_c, out_t = tc.inv(yc), tt.inv(yt)
        else:
            if not tt.bijective and not isinstance(tt, td.transforms.StackTransform):
                with pytest.raises(NotImplementedError):
                    tc.log_abs_det_jacobian(xc, tc(xc))
                continue
            out_c, out_t = tc.log_abs_det_jacobian(xc, tc(xc)), tt.log_abs_det_jacobian(xt, tt(xt))
        _close(out_c, out_t, what=what)
        _backward_both(out_c, out_t)
        _grads_close(cp, tp)


@pytest.mark.torch_names(
    "torch.distributions.transforms.Transform",
    "torch.distributions.transforms._InverseTransform",
    "torch.distributions.transforms.ComposeTransform",
    "torch.distributions.transforms.IndependentTransform",
)
@pytest.mark.parametrize("case", TRANSFORMS, ids=[c[0] for c in TRANSFORMS])
def test_transform_constraints_flags_and_shapes_match_torch(case: Any) -> None:
    _, make, params, x = case
    tc = make(cd, [ctxgrad.tensor(p) for p in params])
    tt = make(td, [torch.tensor(p) for p in params])
    assert _shown(tc.domain) == _shown(tt.domain)
    assert _shown(tc.codomain) == _shown(tt.codomain)
    assert tc.bijective == tt.bijective
    assert repr(tc) == repr(tt) or type(tt).__name__ in ("StackTransform", "CumulativeDistributionTransform")
    for name in ("event_dim", "sign"):
        try:
            expected = getattr(tt, name)
        except (NotImplementedError, ValueError) as e:
            with pytest.raises(type(e)):
                getattr(tc, name)
            continue
        got = getattr(tc, name)
        assert (got.tolist() if hasattr(got, "tolist") else got) == (
            expected.tolist() if hasattr(expected, "tolist") else expected
        ), name
    assert tuple(tc.forward_shape(x.shape)) == tuple(tt.forward_shape(torch.Size(x.shape)))
    y_shape = tuple(tt(torch.tensor(x)).shape)
    assert tuple(tc.inverse_shape(y_shape)) == tuple(tt.inverse_shape(torch.Size(y_shape)))


@pytest.mark.torch_names("torch.distributions.transforms.SigmoidTransform", "torch.distributions.Transform")
def test_inv_is_made_once_and_the_cache_returns_the_same_tensor_as_torch() -> None:
    for m, tensor in ((cd, ctxgrad.tensor), (td, torch.tensor)):
        t = m.SigmoidTransform()
        assert t.inv is t.inv and t.inv.inv is t
        assert t.inv == m.SigmoidTransform().inv and t == m.SigmoidTransform() and t != m.ExpTransform()
        assert m.AffineTransform(1.0, 2.0) == m.AffineTransform(1.0, 2.0) != m.AffineTransform(1.0, 3.0)
        compose = m.ComposeTransform([m.ExpTransform(), t])
        assert compose.inv.inv is compose and compose.inv.parts[0] == t.inv
        x = tensor([0.5, -1.0], requires_grad=True)
        cached = t.with_cache(1)
        y = cached(x)
        assert cached.inv(y) is x and cached(x) is y  # the remembered pair, graph and all
        assert t.inv(t(x)) is not x  # no cache: recomputed
        with pytest.raises(TypeError, match="unhashable type: 'SigmoidTransform'"):
            hash(t)
        assert m.ExpTransform().with_cache(0).with_cache(1).inv.with_cache(0).inv._cache_size == 0
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        td.ExpTransform(cache_size=2)
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        cd.ExpTransform(cache_size=2)


@pytest.mark.torch_names("torch.distributions.transforms.IndependentTransform")
def test_independent_transform_sums_and_refuses_as_torch() -> None:
    for m, tensor in ((cd, ctxgrad.tensor), (td, torch.tensor)):
        t = m.transforms.IndependentTransform(m.ExpTransform(), 2)
        x = tensor(rng.normal(size=(4, 2, 3)))
        assert tuple(t.log_abs_det_jacobian(x, t(x)).shape) == (4,)
        assert t.event_dim == 2
    errors = []
    for m, tensor in ((cd, ctxgrad.tensor), (td, torch.tensor)):
        with pytest.raises(ValueError) as info:
            m.transforms.IndependentTransform(m.ExpTransform(), 2)(tensor([1.0]))
        errors.append(str(info.value))
    assert errors[0] == errors[1] == "Too few dimensions on input"


# ------------------------------------------------------------------------------ registries

CONSTRAINTS: list[tuple[str, Callable[[Any], Any], tuple[int, ...]]] = [
    ("real", lambda c: c.real, (2, 3)),
    ("positive", lambda c: c.positive, (2, 3)),
    ("nonnegative", lambda c: c.nonnegative, (2, 3)),
    ("greater_than", lambda c: c.greater_than(2.0), (2, 3)),
    ("greater_than_eq", lambda c: c.greater_than_eq(-1.0), (2, 3)),
    ("less_than", lambda c: c.less_than(3.0), (2, 3)),
    ("unit_interval", lambda c: c.unit_interval, (2, 3)),
    ("interval", lambda c: c.interval(-1.0, 3.0), (2, 3)),
    ("half_open_interval", lambda c: c.half_open_interval(0.0, 2.0), (2, 3)),
    ("simplex", lambda c: c.simplex, (2, 3)),
    ("real_vector", lambda c: c.real_vector, (2, 3)),
    ("independent", lambda c: c.independent(c.positive, 1), (2, 3)),
    ("lower_cholesky", lambda c: c.lower_cholesky, (2, 3, 3)),
    ("positive_definite", lambda c: c.positive_definite, (2, 3, 3)),
    ("stack", lambda c: c.stack([c.positive, c.unit_interval], 1), (3, 2)),
    ("corr_cholesky", lambda c: c.corr_cholesky, (2, 3)),
    ("cat", lambda c: c.cat([c.positive, c.interval(-1.0, 1.0)], 1, [2, 1]), (4, 3)),
]


@pytest.mark.torch_names(
    "torch.distributions.biject_to",
    "torch.distributions.transform_to",
    "torch.distributions.constraints.real",
    "torch.distributions.constraints.positive",
    "torch.distributions.constraints.greater_than",
    "torch.distributions.constraints.less_than",
    "torch.distributions.constraints.unit_interval",
    "torch.distributions.constraints.interval",
    "torch.distributions.constraints.simplex",
    "torch.distributions.constraints.real_vector",
    "torch.distributions.constraints.independent",
    "torch.distributions.constraints.lower_cholesky",
    "torch.distributions.constraints.positive_definite",
)
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
@pytest.mark.parametrize("case", CONSTRAINTS, ids=[c[0] for c in CONSTRAINTS])
def test_registries_give_torchs_transforms(registry: str, case: Any) -> None:
    _, constraint_of, shape = case
    try:
        tt = getattr(td, registry)(constraint_of(td.constraints))
    except NotImplementedError as e:
        with pytest.raises(NotImplementedError) as info:
            getattr(cd, registry)(constraint_of(cd.constraints))
        assert str(info.value) == str(e)
        return
    tc = getattr(cd, registry)(constraint_of(cd.constraints))
    assert repr(tc) == repr(tt)
    assert _shown(tc.codomain) == _shown(tt.codomain)
    x = rng.normal(size=shape)
    (xc,), (xt,) = _leaves(x)
    yc, yt = tc(xc), tt(xt)
    _close(yc, yt, what="forward")
    assert bool(tc.codomain.check(yc).all())
    if tt.bijective:
        _close(tc.inv(yc), tt.inv(yt), rtol=1e-8, what="inverse")
        out_c, out_t = tc.log_abs_det_jacobian(xc, yc), tt.log_abs_det_jacobian(xt, yt)
        _close(out_c, out_t, what="log_abs_det_jacobian")
        out_c, out_t = out_c.sum() + yc.sum(), out_t.sum() + yt.sum()
    else:
        out_c, out_t = yc, yt
    _backward_both(out_c, out_t)
    _grads_close([xc], [xt])


@pytest.mark.torch_names("torch.distributions.biject_to", "torch.distributions.transform_to")
def test_registry_errors_and_registration_match_torch() -> None:
    calls: list[Callable[[Any], Any]] = [
        lambda m: m.biject_to(m.constraints.lower_cholesky),
        lambda m: m.biject_to(3),
        lambda m: m.transform_to.register(3)(lambda c: None),
    ]
    messages = []
    for m in (cd, td):
        got = []
        for call in calls:
            with pytest.raises((NotImplementedError, TypeError)) as info:
                call(m)
            got.append((info.type, str(info.value)))
        messages.append(got)
    assert messages[0] == messages[1]

    class Odd(cd.constraints.Constraint):
        def _check(self, x: Any) -> Any:
            return x % 2 == 1

    registry = cd.constraint_registry.ConstraintRegistry()

    @registry.register(Odd)
    def _to_odd(constraint: Any) -> Any:
        return cd.AffineTransform(1.0, 2.0)

    assert registry(Odd())(ctxgrad.tensor([0.0, 3.0])).tolist() == [1.0, 7.0]


# ------------------------------------------------------------------------------ TransformedDistribution

#: (id, make(module, params), params, value)
TRANSFORMED: list[tuple[str, Make, list[np.ndarray[Any, Any]], np.ndarray[Any, Any]]] = [
    ("logistic", lambda m, p: m.TransformedDistribution(m.Uniform(0.0, 1.0),
     [m.SigmoidTransform().inv, m.AffineTransform(p[0], p[1])]), [rng.normal(size=3), rng.uniform(0.5, 2, 3)],
     rng.normal(size=(2, 3))),
    ("exp_affine", lambda m, p: m.TransformedDistribution(m.Normal(p[0], p[1]),
     [m.ExpTransform(), m.AffineTransform(1.0, 2.0)]), [rng.normal(size=3), rng.uniform(0.5, 2, 3)],
     1 + rng.uniform(0.5, 3, (2, 3))),
    ("decreasing", lambda m, p: m.TransformedDistribution(m.Normal(p[0], p[1]), m.AffineTransform(1.0, -2.0)),
     [rng.normal(size=3), rng.uniform(0.5, 2, 3)], rng.normal(size=(2, 3))),
    ("tanh_squash", lambda m, p: m.TransformedDistribution(m.Normal(p[0], p[1]), [m.TanhTransform()]),
     [rng.normal(size=3), rng.uniform(0.5, 2, 3)], rng.uniform(-0.9, 0.9, (2, 3))),
    ("event_affine", lambda m, p: m.TransformedDistribution(m.Normal(p[0], p[1]),
     [m.AffineTransform(0.5, p[1], event_dim=1)]), [rng.normal(size=3), rng.uniform(0.5, 2, 3)],
     rng.normal(size=(2, 3))),
    ("stick_breaking", lambda m, p: m.TransformedDistribution(m.Normal(p[0], p[1]),
     [m.transforms.StickBreakingTransform()]), [rng.normal(size=(2, 3)), rng.uniform(0.5, 2, (2, 3))],
     rng.dirichlet(np.ones(4), (2,))),
    ("mvn_exp", lambda m, p: m.TransformedDistribution(m.MultivariateNormal(p[0], scale_tril=p[1]),
     [m.ExpTransform()]), [rng.normal(size=2), np.array([[1.0, 0.0], [0.3, 0.8]])], rng.uniform(0.5, 2, (3, 2))),
]  # fmt: skip


@pytest.mark.torch_names("torch.distributions.TransformedDistribution")
@pytest.mark.parametrize("case", TRANSFORMED, ids=[c[0] for c in TRANSFORMED])
def test_transformed_distribution_matches_torch(case: Any) -> None:
    _, make, params, value = case
    for method in ("log_prob", "cdf", "icdf"):
        cp, tp = _leaves(*params)
        dc, dt = make(cd, cp), make(td, tp)
        assert tuple(dc.batch_shape) == tuple(dt.batch_shape) and tuple(dc.event_shape) == tuple(dt.event_shape)
        v = rng.uniform(0.1, 0.9, value.shape) if method == "icdf" else value
        try:
            out_t = getattr(dt, method)(torch.tensor(v))
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                getattr(dc, method)(ctxgrad.tensor(v, dtype=ctxgrad.float64))
            continue
        out_c = getattr(dc, method)(ctxgrad.tensor(v, dtype=ctxgrad.float64))
        _close(out_c, out_t, what=method)
        _backward_both(out_c, out_t)
        _grads_close(cp, tp)
    dc, dt = make(cd, [ctxgrad.tensor(p) for p in params]), make(td, [torch.tensor(p) for p in params])
    assert _shown(dc.support) == _shown(dt.support)
    assert dc.has_rsample == dt.has_rsample
    sample = dc.sample((5,))
    assert tuple(sample.shape) == tuple(dt.sample((5,)).shape) and sample.dtype == ctxgrad.float64
    assert not sample.requires_grad
    expanded, texpanded = dc.expand((4, *dc.batch_shape)), dt.expand((4, *dt.batch_shape))
    assert tuple(expanded.batch_shape) == tuple(texpanded.batch_shape)
    assert tuple(expanded.rsample().shape) == tuple(texpanded.rsample().shape)


@pytest.mark.torch_names(
    "torch.distributions.TransformedDistribution",
    "torch.distributions.transforms.SigmoidTransform",
    "torch.distributions.transforms.AffineTransform",
)
def test_transformed_rsample_gradient_matches_torch_from_the_same_noise() -> None:
    loc0, scale0 = rng.normal(size=3), rng.uniform(0.5, 2, 3)
    (loc, scale), (tloc, tscale) = _leaves(loc0, scale0)

    def transforms(m: Any) -> list[Any]:
        return [m.SigmoidTransform(), m.AffineTransform(-1.0, 2.0), m.TanhTransform().inv]

    ctxgrad.manual_seed(4)
    x = cd.TransformedDistribution(cd.Normal(loc, scale), transforms(cd)).rsample((5,))
    ctxgrad.manual_seed(4)
    eps = torch.tensor(ctxgrad.randn(5, 3, dtype=ctxgrad.float64).numpy())  # Normal.rsample's noise
    xt = tloc + tscale * eps
    for t in transforms(td):
        xt = t(xt)
    _close(x, xt)
    _backward_both(x, xt)
    _grads_close([loc, scale], [tloc, tscale])


def test_transformed_distribution_refuses_as_torch() -> None:
    calls: list[Callable[[Any, Any], Any]] = [
        lambda m, t: m.TransformedDistribution(m.Normal(0.0, 1.0), [m.ExpTransform(), 3]),
        lambda m, t: m.TransformedDistribution(m.Normal(0.0, 1.0), "exp"),
        lambda m, t: m.TransformedDistribution(m.Normal(0.0, 1.0), [m.transforms.StickBreakingTransform()]),
        lambda m, t: m.TransformedDistribution(m.Normal(0.0, 1.0), [m.ExpTransform()]).log_prob(t(-1.0)),
    ]
    outcomes = []
    for m, tensor in ((cd, ctxgrad.tensor), (td, torch.tensor)):
        got = []
        for call in calls:
            with pytest.raises(ValueError) as info:
                call(m, tensor)
            got.append(str(info.value).replace("torch.", "ctxgrad."))
        outcomes.append(got)
    assert outcomes[0][:3] == outcomes[1][:3]
    assert outcomes[0][3].startswith("Expected value argument (Tensor of shape ())") and "GreaterThan" in outcomes[0][3]
    assert outcomes[0][3].split("of the distribution")[0] == outcomes[1][3].split("of the distribution")[0]


def test_sampled_transformed_distribution_has_the_pushed_forward_moments() -> None:
    # exp of a normal: the log-normal's mean exp(mu + s^2 / 2)
    ctxgrad.manual_seed(9)
    d = cd.TransformedDistribution(cd.Normal(ctxgrad.tensor([0.0, 0.5]), 0.5), [cd.ExpTransform()])
    sample = d.sample((40_000,)).numpy()
    expected = np.exp(np.array([0.0, 0.5]) + 0.125)
    np.testing.assert_allclose(sample.mean(0), expected, rtol=0.02)
    assert math.isclose(float(np.log(sample).std(0)[0]), 0.5, rel_tol=0.02)


@pytest.mark.torch_names("torch.distributions.TransformedDistribution", "torch.distributions.Transform")
def test_a_tanh_squashed_policy_scores_its_own_sample_through_the_cache_as_torch() -> None:
    """A squashed Gaussian policy's pattern: ``rsample`` an action, then ``log_prob`` of that
    action.  With ``cache_size=1`` the inverse is the remembered pre-tanh value, so an action
    that rounds to 1 in float32 still has a finite score; torch from the same noise agrees."""
    mu0, log_std0 = np.array([0.5, 14.0, -0.3]), np.array([-0.5, 0.0, 0.2])
    mu, log_std = (ctxgrad.tensor(a, dtype=ctxgrad.float32, requires_grad=True) for a in (mu0, log_std0))
    tmu, tlog_std = (torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in (mu0, log_std0))
    ctxgrad.manual_seed(2)
    policy = cd.TransformedDistribution(cd.Normal(mu, log_std.exp()), [cd.TanhTransform(cache_size=1)])
    action = policy.rsample()
    log_prob = policy.log_prob(action)
    ctxgrad.manual_seed(2)
    eps = torch.tensor(ctxgrad.randn(3).numpy())
    tanh = td.TanhTransform(cache_size=1)
    taction = tanh(tmu + tlog_std.exp() * eps)
    tlog_prob = td.TransformedDistribution(td.Normal(tmu, tlog_std.exp()), [tanh]).log_prob(taction)
    assert action.tolist()[1] == 1.0 and bool(log_prob.isfinite().all())
    np.testing.assert_allclose(action.detach().numpy(), taction.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(log_prob.detach().numpy(), tlog_prob.detach().numpy(), rtol=1e-5)
    (log_prob.sum() - action.pow(2).sum()).backward()
    (tlog_prob.sum() - taction.pow(2).sum()).backward()
    np.testing.assert_allclose(mu.grad.numpy(), tmu.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(log_std.grad.numpy(), tlog_std.grad.numpy(), rtol=1e-5, atol=1e-6)
    # without the cache the action that rounded to 1 has no finite pre-image, in both
    plain = cd.TransformedDistribution(cd.Normal(mu, log_std.exp()), [cd.TanhTransform()])
    tplain = td.TransformedDistribution(td.Normal(tmu, tlog_std.exp()), [td.TanhTransform()])
    with np.errstate(all="ignore"):
        got = plain.log_prob(action.detach()).isfinite().tolist()
    assert got == tplain.log_prob(taction.detach()).isfinite().tolist()
