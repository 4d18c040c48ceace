"""ctxgrad.nn modules against torch: the Module API (registration, iteration order,
state_dict and load_state_dict with torch's messages, hooks, repr, train/eval), Parameter, the
containers, and each layer's values and gradients with weights copied from torch (float64)."""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn
from ctxgrad.nn import Parameter

RNG = np.random.default_rng(1)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def from_torch(t_module: Any, c_module: nn.Module) -> nn.Module:
    """Load ``t_module``'s state into ``c_module`` (which also tests load_state_dict)."""
    state = {k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_module.state_dict().items()}
    result = c_module.load_state_dict(state)
    assert result.missing_keys == [] and result.unexpected_keys == []
    return c_module


def compare_module(
    torch: Any, t_module: Any, c_module: nn.Module, *arrays: np.ndarray, rtol: float = 1e-9, backward: bool = True
) -> None:
    """Same output for the same inputs, and the same gradients for float inputs and for every parameter."""
    t_module = t_module.double()
    from_torch(t_module, c_module.double())
    c_in = [ctxgrad.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    t_in = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    c_out, t_out = c_module(*c_in), t_module(*t_in)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol, atol=1e-12)
    if not backward:
        return
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for i, (c, t) in enumerate(zip(c_in, t_in)):
        if t.requires_grad:
            np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=rtol, atol=1e-11, err_msg=f"input {i}")
    c_params = dict(c_module.named_parameters())
    for name, tp in t_module.named_parameters():
        if tp.grad is None:
            assert c_params[name].grad is None
            continue
        np.testing.assert_allclose(c_params[name].grad.numpy(), tp.grad.numpy(), rtol=rtol, atol=1e-11, err_msg=name)


# --------------------------------------------------------------------------- Parameter
def test_parameter_repr_and_defaults(torch: Any) -> None:
    p = Parameter(ctxgrad.tensor([1.0, 2.0]))
    assert repr(p) == repr(torch.nn.Parameter(torch.tensor([1.0, 2.0])))
    q = Parameter(ctxgrad.tensor([1.0]), requires_grad=False)
    assert repr(q) == repr(torch.nn.Parameter(torch.tensor([1.0]), requires_grad=False))
    assert p.requires_grad and p.is_leaf and isinstance(p, ctxgrad.Tensor)
    assert Parameter().shape == (0,)
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        Parameter(ctxgrad.tensor([1, 2]))
    assert not Parameter(ctxgrad.tensor([1, 2]), requires_grad=False).requires_grad


def test_parameter_shares_storage_with_its_data() -> None:
    data = ctxgrad.zeros(2)
    p = Parameter(data)
    data.add_(1.0)
    assert p.tolist() == [1.0, 1.0]


def test_ops_on_parameters_give_plain_tensors_and_gradients() -> None:
    p = Parameter(ctxgrad.tensor([[1.0, -2.0], [3.0, 0.5]]))
    results = [
        p * 2,
        p + p,
        p @ p,
        p.exp(),
        p.sum(),
        p[0],
        p.reshape(4),
        p.T,
        p.relu(),
        p.clone(),
        p.unsqueeze(0),
        p.softmax(1),
        p.abs(),
        p.mean(0),
        p.transpose(0, 1),
        p.pow(2),
        p.gather(1, ctxgrad.tensor([[0], [1]])),
    ]
    for r in results:
        assert type(r) is ctxgrad.Tensor, type(r)
        assert r.grad_fn is not None
    sum(r.sum() for r in results).backward()
    assert p.grad is not None and type(p.grad) is ctxgrad.Tensor


def test_custom_function_returning_a_parameter_input() -> None:
    class Same(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 3

    p = Parameter(ctxgrad.ones(2))
    out = Same.apply(p)
    assert out is not p and out.grad_fn is not None
    out.sum().backward()
    assert p.grad.tolist() == [3.0, 3.0]


def test_parameter_deepcopy_keeps_type() -> None:
    p = Parameter(ctxgrad.ones(2))
    q = copy.deepcopy(p)
    assert type(q) is Parameter and q.requires_grad and q.tolist() == [1.0, 1.0]
    q.data.add_(1.0)
    assert p.tolist() == [1.0, 1.0]


# --------------------------------------------------------------------------- Module API
def build_net(lib: Any) -> Any:
    """The same small network class, built on ``lib.nn.Module`` (ctxgrad's or torch's)."""

    class Net(lib.nn.Module):  # type: ignore[name-defined,misc]
        def __init__(self) -> None:
            super().__init__()
            self.conv = lib.nn.Conv2d(1, 2, 3)
            self.bn = lib.nn.BatchNorm2d(2)
            self.head = lib.nn.Sequential(lib.nn.Flatten(), lib.nn.Linear(8, 3), lib.nn.ReLU())
            self.scale = lib.nn.Parameter(lib.ones(3))
            self.register_buffer("steps", lib.zeros(()))
            self.register_buffer("cache", lib.zeros(2), persistent=False)

        def forward(self, x: Any) -> Any:
            return self.head(self.bn(self.conv(x))) * self.scale

    return Net()


def make_nets(torch: Any) -> tuple[Any, Any]:
    return build_net(torch), build_net(ctxgrad)


def test_names_and_order_match_torch(torch: Any) -> None:
    t_net, c_net = make_nets(torch)
    assert list(c_net.state_dict()) == list(t_net.state_dict())
    assert [n for n, _ in c_net.named_parameters()] == [n for n, _ in t_net.named_parameters()]
    assert [n for n, _ in c_net.named_buffers()] == [n for n, _ in t_net.named_buffers()]
    assert [n for n, _ in c_net.named_modules()] == [n for n, _ in t_net.named_modules()]
    assert [n for n, _ in c_net.named_children()] == [n for n, _ in t_net.named_children()]
    assert len(list(c_net.parameters())) == len(list(t_net.parameters())) == 7
    assert len(list(c_net.modules())) == len(list(t_net.modules()))
    assert "cache" not in c_net.state_dict()


def test_repr_matches_torch(torch: Any) -> None:
    t_net, c_net = make_nets(torch)
    assert repr(c_net) == repr(t_net)


LAYER_ARGS = [
    ("Linear", (3, 4), {}),
    ("Linear", (3, 4), {"bias": False}),
    ("Bilinear", (2, 3, 4), {}),
    ("Conv2d", (3, 8, 3), {}),
    ("Conv2d", (4, 8, (3, 2)), {"stride": 2, "padding": 1, "dilation": 2, "groups": 2, "bias": False}),
    ("Conv2d", (3, 8, 3), {"padding": "same"}),
    ("Conv1d", (3, 8, 5), {"stride": 2, "padding": 1}),
    ("MaxPool2d", (2,), {}),
    ("MaxPool2d", (3, 2, 1), {"ceil_mode": True}),
    ("AvgPool2d", (3,), {"stride": 1, "padding": 1}),
    ("BatchNorm1d", (4,), {"momentum": None, "affine": False}),
    ("BatchNorm2d", (4,), {"eps": 1e-3, "track_running_stats": False}),
    ("LayerNorm", ((4, 5),), {"elementwise_affine": False}),
    ("LayerNorm", (4,), {}),
    ("Embedding", (10, 3), {"padding_idx": -1}),
    ("Dropout", (0.2,), {}),
    ("Flatten", (), {}),
    ("Identity", (), {}),
    ("ReLU", (), {}),
    ("ReLU", (), {"inplace": True}),
    ("Tanh", (), {}),
    ("Sigmoid", (), {}),
    ("GELU", (), {"approximate": "tanh"}),
    ("SiLU", (), {}),
    ("ELU", (0.5,), {}),
    ("LeakyReLU", (0.2,), {}),
    ("Softplus", (2.0,), {}),
    ("Softmax", (1,), {}),
    ("LogSoftmax", (-1,), {}),
    ("MSELoss", (), {}),
    ("CrossEntropyLoss", (), {"label_smoothing": 0.1}),
    ("BCEWithLogitsLoss", (), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), LAYER_ARGS)
def test_layer_repr_and_state_keys_match_torch(
    torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    c_layer = getattr(nn, name)(*args, **kwargs)
    t_layer = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(c_layer) == repr(t_layer)
    assert list(c_layer.state_dict()) == list(t_layer.state_dict())
    for (cn, cp), (tn, tp) in zip(c_layer.named_parameters(), t_layer.named_parameters()):
        assert cn == tn and cp.shape == tuple(tp.shape) and cp.dtype == ctxgrad.float32


def test_container_reprs_match_torch(torch: Any) -> None:
    def build(lib: Any) -> Any:
        return lib.nn.ModuleDict(
            {
                "blocks": lib.nn.ModuleList([lib.nn.Linear(2, 2) for _ in range(3)] + [lib.nn.ReLU()]),
                "empty": lib.nn.ModuleList(),
                "seq": lib.nn.Sequential(OrderedDict([("fc", lib.nn.Linear(2, 1)), ("act", lib.nn.Sigmoid())])),
            }
        )

    assert repr(build(ctxgrad)) == repr(build(torch))


def test_load_state_dict_errors_match_torch(torch: Any) -> None:
    t_lin, c_lin = torch.nn.Linear(2, 2), nn.Linear(2, 2)
    bad = {"weight": np.ones((3, 2)), "foo": np.ones(1)}
    with pytest.raises(RuntimeError) as c_err:
        c_lin.load_state_dict({k: ctxgrad.tensor(v) for k, v in bad.items()})
    with pytest.raises(RuntimeError) as t_err:
        t_lin.load_state_dict({k: torch.tensor(v) for k, v in bad.items()})
    assert str(c_err.value).replace("ctxgrad", "torch") == str(t_err.value)
    assert '\n\tMissing key(s) in state_dict: "bias". ' in str(c_err.value)
    assert "size mismatch for weight: copying a param with shape ctxgrad.Size([3, 2])" in str(c_err.value)


def test_load_state_dict_nested_unexpected_and_missing(torch: Any) -> None:
    t_net, c_net = make_nets(torch)
    state = {k: v for k, v in t_net.state_dict().items() if k != "bn.running_var"}
    state["head.1.extra"] = torch.ones(1)
    with pytest.raises(RuntimeError) as t_err:
        t_net.load_state_dict(state)
    with pytest.raises(RuntimeError) as c_err:
        c_net.load_state_dict({k: ctxgrad.tensor(v.numpy()) for k, v in state.items()})
    assert str(c_err.value) == str(t_err.value)


def test_load_state_dict_non_strict_returns_keys(torch: Any) -> None:
    lin = nn.Linear(2, 2)
    result = lin.load_state_dict({"weight": ctxgrad.full((2, 2), 3.0), "foo": ctxgrad.ones(1)}, strict=False)
    t_result = torch.nn.Linear(2, 2).load_state_dict({"weight": torch.ones(2, 2), "foo": torch.ones(1)}, strict=False)
    assert result.missing_keys == t_result.missing_keys == ["bias"]
    assert result.unexpected_keys == t_result.unexpected_keys == ["foo"]
    assert repr(result) == repr(t_result)
    assert lin.weight.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert repr(lin.load_state_dict(lin.state_dict())) == "<All keys matched successfully>"


def test_state_dict_shares_storage_and_is_detached() -> None:
    lin = nn.Linear(2, 2)
    sd = lin.state_dict()
    assert not sd["weight"].requires_grad and type(sd["weight"]) is ctxgrad.Tensor
    with ctxgrad.no_grad():
        lin.weight.fill_(7.0)
    assert sd["weight"].tolist() == [[7.0, 7.0], [7.0, 7.0]]
    assert lin.state_dict(keep_vars=True)["weight"] is lin.weight


def test_load_state_dict_keeps_the_parameter_objects() -> None:
    lin = nn.Linear(2, 2)
    weight = lin.weight
    lin.load_state_dict({"weight": ctxgrad.zeros(2, 2), "bias": ctxgrad.ones(2)})
    assert lin.weight is weight and weight.requires_grad and weight.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_hooks_run_in_order_and_can_replace(torch: Any) -> None:
    calls: list[str] = []
    lin = nn.Linear(2, 2)

    def pre(module: Any, args: Any) -> Any:
        calls.append("pre")
        return args[0] * 0.0  # a single value is wrapped into the args tuple

    def post(module: Any, args: Any, output: Any) -> Any:
        calls.append("post")
        assert module is lin and args[0].tolist() == [0.0, 0.0]
        return output + 1.0

    h1 = lin.register_forward_pre_hook(pre)
    h2 = lin.register_forward_hook(post)
    out = lin(ctxgrad.ones(2))
    assert calls == ["pre", "post"]
    np.testing.assert_allclose(out.detach().numpy(), lin.bias.detach().numpy() + 1.0)
    h1.remove()
    h2.remove()
    calls.clear()
    lin(ctxgrad.ones(2))
    assert calls == []


def test_train_eval_propagate() -> None:
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Dropout(), nn.BatchNorm1d(2)))
    assert net.training and all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        net.train("yes")  # type: ignore[arg-type]


def test_zero_grad_and_requires_grad() -> None:
    lin = nn.Linear(2, 2)
    lin(ctxgrad.ones(2)).sum().backward()
    assert lin.weight.grad is not None
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    lin.zero_grad()
    assert lin.weight.grad is None and lin.bias.grad is None
    lin.requires_grad_(False)
    assert not any(p.requires_grad for p in lin.parameters())


def test_apply_visits_children_first() -> None:
    net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.ReLU()))
    seen: list[str] = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]


def test_attribute_registration_rules() -> None:
    m = nn.Module()
    m.w = Parameter(ctxgrad.ones(1))
    m.sub = nn.Linear(1, 1)
    m.plain = ctxgrad.ones(1)  # a plain tensor attribute is neither a parameter nor a buffer
    assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"] and list(m._buffers) == []
    with pytest.raises(TypeError, match=r"cannot assign 'ctxgrad.*Tensor' as parameter 'w'"):
        m.w = ctxgrad.ones(1)
    m.w = None
    assert m.w is None and list(m.parameters()) == list(m.sub.parameters())
    del m.sub
    assert not hasattr(m, "sub")
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'missing'"):
        _ = m.missing
    with pytest.raises(KeyError, match="attribute 'plain' already exists"):
        m.register_buffer("plain", ctxgrad.ones(1))
    with pytest.raises(KeyError, match=r'buffer name can.*t contain "\."'):
        m.register_buffer("a.b", ctxgrad.ones(1))
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        m(ctxgrad.ones(1))


def test_shared_parameters_are_listed_once(torch: Any) -> None:
    lin = nn.Linear(2, 2)
    net = nn.Sequential(lin, lin)
    assert len(list(net.parameters())) == 2
    assert list(net.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]


def test_module_to_double() -> None:
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)).double()
    assert all(p.dtype == ctxgrad.float64 for p in net.parameters())
    assert net[1].running_mean.dtype == ctxgrad.float64 and net[1].num_batches_tracked.dtype == ctxgrad.int64
    assert isinstance(net[0].weight, Parameter)


def test_deepcopy_of_a_module_is_independent() -> None:
    net = nn.Sequential(nn.Linear(2, 2))
    twin = copy.deepcopy(net)
    with ctxgrad.no_grad():
        twin[0].weight.fill_(0.0)
    assert net[0].weight.abs().sum().item() > 0
    assert isinstance(twin[0].weight, Parameter)


# --------------------------------------------------------------------------- containers
def test_sequential_indexing_and_editing() -> None:
    a, b, c = nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)
    seq = nn.Sequential(a, b)
    assert len(seq) == 2 and seq[0] is a and seq[-1] is b and list(seq) == [a, b]
    seq.append(c)
    assert seq[2] is c and list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    tail = seq[1:]
    assert isinstance(tail, nn.Sequential) and list(tail) == [b, c]
    assert list(tail._modules) == ["1", "2"]  # torch keeps the names of a slice
    del seq[1]
    assert list(seq._modules) == ["0", "1"] and seq[1] is c
    with pytest.raises(IndexError, match="index 5 is out of range"):
        seq[5]
    x = ctxgrad.ones(4, 2)
    np.testing.assert_allclose(seq(x).detach().numpy(), c(a(x)).detach().numpy())


def test_sequential_from_ordered_dict() -> None:
    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert [n for n, _ in seq.named_children()] == ["fc", "act"]
    assert isinstance(seq.fc, nn.Linear)


def test_module_list_and_dict() -> None:
    layers = nn.ModuleList([nn.Linear(1, 1) for _ in range(2)])
    layers.append(nn.ReLU())
    layers.extend([nn.Tanh()])
    layers.insert(0, nn.Sigmoid())
    assert [type(m).__name__ for m in layers] == ["Sigmoid", "Linear", "Linear", "ReLU", "Tanh"]
    assert len(list(layers.parameters())) == 4 and isinstance(layers[1:3], nn.ModuleList)
    d = nn.ModuleDict({"a": nn.Linear(1, 1)})
    d["b"] = nn.ReLU()
    assert list(d.keys()) == ["a", "b"] and "b" in d and len(d) == 2
    assert [n for n, _ in d.named_parameters()] == ["a.weight", "a.bias"]
    assert isinstance(d.pop("b"), nn.ReLU) and list(d) == ["a"]


# --------------------------------------------------------------------------- layers against torch
def test_linear_layers(torch: Any) -> None:
    compare_module(torch, torch.nn.Linear(3, 4), nn.Linear(3, 4), randn(5, 3))
    compare_module(torch, torch.nn.Linear(3, 4, bias=False), nn.Linear(3, 4, bias=False), randn(2, 5, 3))
    compare_module(torch, torch.nn.Bilinear(3, 2, 4), nn.Bilinear(3, 2, 4), randn(5, 3), randn(5, 2))
    compare_module(torch, torch.nn.Identity(), nn.Identity(), randn(2, 3))
    compare_module(torch, torch.nn.Flatten(), nn.Flatten(), randn(2, 3, 4))


def test_conv_layers(torch: Any) -> None:
    kw = {"stride": 2, "padding": 1, "dilation": (1, 2), "groups": 2}
    compare_module(torch, torch.nn.Conv2d(4, 6, 3, **kw), nn.Conv2d(4, 6, 3, **kw), randn(2, 4, 8, 7))
    compare_module(
        torch, torch.nn.Conv2d(3, 2, 3, padding="same"), nn.Conv2d(3, 2, 3, padding="same"), randn(1, 3, 5, 5)
    )
    compare_module(torch, torch.nn.Conv1d(3, 4, 3, padding=2), nn.Conv1d(3, 4, 3, padding=2), randn(2, 3, 9))


def test_pooling_layers(torch: Any) -> None:
    compare_module(torch, torch.nn.MaxPool2d(3, 2, 1), nn.MaxPool2d(3, 2, 1), randn(2, 3, 7, 7))
    compare_module(torch, torch.nn.AvgPool2d(2), nn.AvgPool2d(2), randn(2, 3, 6, 6))


@pytest.mark.parametrize("momentum", [0.1, None])
def test_batch_norm_layers_train_then_eval(torch: Any, momentum: float | None) -> None:
    t_bn, c_bn = torch.nn.BatchNorm2d(3, momentum=momentum).double(), nn.BatchNorm2d(3, momentum=momentum)
    with torch.no_grad():
        t_bn.weight.uniform_(0.5, 1.5)
        t_bn.bias.uniform_(-1, 1)
    from_torch(t_bn, c_bn)
    for _ in range(3):
        compare_module(torch, t_bn, c_bn, randn(4, 3, 2, 2) * 2 + 1, rtol=1e-8)
        t_bn.zero_grad()
        c_bn.zero_grad()
    for name, tb in t_bn.named_buffers():
        np.testing.assert_allclose(getattr(c_bn, name).numpy(), tb.numpy(), rtol=1e-10, err_msg=name)
    assert c_bn.num_batches_tracked.item() == 3
    t_bn.eval()
    c_bn.eval()
    compare_module(torch, t_bn, c_bn, randn(4, 3, 2, 2), rtol=1e-8)


def test_batch_norm1d_and_layer_norm(torch: Any) -> None:
    compare_module(torch, torch.nn.BatchNorm1d(3), nn.BatchNorm1d(3), randn(5, 3), rtol=1e-8)
    compare_module(
        torch, torch.nn.BatchNorm1d(3, affine=False), nn.BatchNorm1d(3, affine=False), randn(5, 3, 4), rtol=1e-8
    )
    compare_module(torch, torch.nn.LayerNorm((3, 4)), nn.LayerNorm((3, 4)), randn(2, 3, 4), rtol=1e-7)
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        nn.BatchNorm1d(3)(ctxgrad.ones(2, 3, 1, 1))


def test_embedding_layer(torch: Any) -> None:
    idx = np.array([[0, 2, 2], [4, 0, 1]])
    compare_module(torch, torch.nn.Embedding(5, 3, padding_idx=2), nn.Embedding(5, 3, padding_idx=2), idx)
    emb = nn.Embedding(5, 3, padding_idx=2)
    assert emb.weight[2].tolist() == [0.0, 0.0, 0.0]
    frozen = nn.Embedding.from_pretrained(ctxgrad.ones(4, 2))
    assert not frozen.weight.requires_grad and frozen(ctxgrad.tensor([3])).tolist() == [[1.0, 1.0]]


ACTIVATIONS = [
    ("ReLU", ()),
    ("Tanh", ()),
    ("Sigmoid", ()),
    ("GELU", ()),
    ("SiLU", ()),
    ("ELU", (0.7,)),
    ("LeakyReLU", (0.1,)),
    ("Softplus", (2.0, 5.0)),
    ("Softmax", (1,)),
    ("LogSoftmax", (0,)),
]


@pytest.mark.parametrize(("name", "args"), ACTIVATIONS)
def test_activation_modules(torch: Any, name: str, args: tuple[Any, ...]) -> None:
    compare_module(torch, getattr(torch.nn, name)(*args), getattr(nn, name)(*args), randn(4, 5) * 3)


def test_dropout_module_train_and_eval() -> None:
    drop = nn.Dropout(0.5)
    x = ctxgrad.ones(200)
    out = drop(x).numpy()
    assert set(np.unique(out).tolist()) == {0.0, 2.0}
    drop.eval()
    assert drop(x) is x
    with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got -0\.1"):
        nn.Dropout(-0.1)


LOSSES = [
    ("MSELoss", {}, "regression"),
    ("L1Loss", {"reduction": "sum"}, "regression"),
    ("SmoothL1Loss", {"beta": 0.5}, "regression"),
    ("HuberLoss", {"delta": 0.5, "reduction": "none"}, "regression"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "ignore_index": 1}, "classes"),
    ("CrossEntropyLoss", {"weight": True}, "classes"),
    ("NLLLoss", {}, "classes"),
    ("BCELoss", {}, "probabilities"),
    ("BCEWithLogitsLoss", {"pos_weight": True}, "binary"),
    ("KLDivLoss", {"reduction": "batchmean"}, "distributions"),
]


@pytest.mark.parametrize(("name", "kwargs", "kind"), LOSSES)
def test_loss_modules(torch: Any, name: str, kwargs: dict[str, Any], kind: str) -> None:
    c_kwargs, t_kwargs = dict(kwargs), dict(kwargs)
    for key in ("weight", "pos_weight"):
        if key in kwargs:
            w = np.abs(randn(4)) + 0.5
            c_kwargs[key], t_kwargs[key] = ctxgrad.tensor(w), torch.tensor(w)
    x = randn(6, 4)
    if kind == "regression":
        target = randn(6, 4)
    elif kind == "classes":
        target = RNG.integers(0, 4, 6)
    elif kind == "probabilities":
        x, target = 1 / (1 + np.exp(-x)), RNG.random((6, 4))
    elif kind == "binary":
        target = RNG.random((6, 4))
    else:
        x, target = np.log(RNG.dirichlet(np.ones(4), 6)), RNG.dirichlet(np.ones(4), 6)
    c_loss, t_loss = getattr(nn, name)(**c_kwargs), getattr(torch.nn, name)(**t_kwargs)
    cx, tx = ctxgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    c_out, t_out = c_loss(cx, ctxgrad.tensor(target)), t_loss(tx, torch.tensor(target))
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-9)
    c_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(cx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    assert list(c_loss.state_dict()) == list(t_loss.state_dict())


def test_training_step_reduces_the_loss() -> None:
    ctxgrad.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16, 3))
    x = ctxgrad.randn(8, 1, 4, 4)
    y = ctxgrad.tensor([0, 1, 2, 0, 1, 2, 0, 1])
    loss_fn = nn.CrossEntropyLoss()
    first = loss_fn(net(x), y).item()
    for _ in range(20):
        net.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        with ctxgrad.no_grad():
            for p in net.parameters():
                p.sub_(p.grad * 0.1)
    assert loss_fn(net(x), y).item() < first


def test_hooks_with_kwargs_and_prepend(torch: Any) -> None:
    calls: list[str] = []

    class Scale(nn.Module):
        def forward(self, x: Any, *, factor: float = 1.0) -> Any:
            return x * factor

    m = Scale()
    m.register_forward_pre_hook(lambda mod, args: calls.append("second"))
    m.register_forward_pre_hook(lambda mod, args: calls.append("first"), prepend=True)

    def double_factor(mod: Any, args: Any, kwargs: Any) -> Any:
        return args, {**kwargs, "factor": kwargs["factor"] * 2}

    m.register_forward_pre_hook(double_factor, with_kwargs=True)
    m.register_forward_hook(lambda mod, args, kwargs, out: out + kwargs["factor"], with_kwargs=True)
    out = m(ctxgrad.tensor([1.0]), factor=3.0)
    assert calls == ["first", "second"]
    assert out.tolist() == [12.0]  # 1 * 6, plus the doubled factor 6


def test_module_to_without_a_dtype_changes_nothing() -> None:
    lin = nn.Linear(2, 2)
    weight = lin.weight
    assert lin.to("cpu") is lin and lin.weight is weight and weight.dtype == ctxgrad.float32
    lin.to(ctxgrad.zeros(1, dtype=ctxgrad.float64))
    assert lin.weight is weight and weight.dtype == ctxgrad.float64
    with pytest.raises(TypeError, match=r"nn\.Module\.to only accepts floating point or complex dtypes"):
        lin.to(ctxgrad.int64)


def test_load_state_dict_assign_replaces_the_tensors() -> None:
    lin = nn.Linear(2, 2)
    lin.weight.requires_grad_(False)
    new_weight = ctxgrad.zeros(2, 2)
    lin.load_state_dict({"weight": new_weight, "bias": ctxgrad.ones(2)}, assign=True)
    assert isinstance(lin.weight, Parameter) and not lin.weight.requires_grad and lin.bias.requires_grad
    new_weight.add_(5.0)
    assert lin.weight.tolist() == [[5.0, 5.0], [5.0, 5.0]]  # the module now holds that storage


def test_in_place_change_of_a_parameter_needs_no_grad() -> None:
    p = Parameter(ctxgrad.ones(2))
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        p.add_(1.0)
    with ctxgrad.no_grad():
        p.add_(1.0)
    assert p.tolist() == [2.0, 2.0] and p.is_leaf


def test_dropout_module_inplace() -> None:
    x = ctxgrad.ones(50)
    assert nn.Dropout(0.5, inplace=True)(x) is x


# --------------------------------------------------------------------------- nn.utils
@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_clip_grad_norm_matches_torch(torch: Any, norm_type: float) -> None:
    grads = [randn(3, 2) * 4, randn(5) * 4]
    c_params = [Parameter(ctxgrad.zeros(*g.shape, dtype=ctxgrad.float64)) for g in grads]
    t_params = [torch.nn.Parameter(torch.zeros(*g.shape, dtype=torch.float64)) for g in grads]
    for cp, tp, g in zip(c_params, t_params, grads):
        cp.grad, tp.grad = ctxgrad.tensor(g), torch.tensor(g)
    c_total = nn.utils.clip_grad_norm_(c_params, 1.5, norm_type)
    t_total = torch.nn.utils.clip_grad_norm_(t_params, 1.5, norm_type)
    assert c_total.item() == pytest.approx(t_total.item(), rel=1e-12)
    for cp, tp in zip(c_params, t_params):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-12)


def test_clip_grad_norm_nonfinite_and_value() -> None:
    p = Parameter(ctxgrad.zeros(2, dtype=ctxgrad.float64))
    p.grad = ctxgrad.tensor([float("inf"), 1.0], dtype=ctxgrad.float64)
    with pytest.raises(
        RuntimeError, match=r"The total norm of order 2\.0 for gradients from `parameters` is non-finite"
    ):
        nn.utils.clip_grad_norm_(p, 1.0, error_if_nonfinite=True)
    p.grad = ctxgrad.tensor([-3.0, 0.5], dtype=ctxgrad.float64)
    nn.utils.clip_grad_value_([p], 1.0)
    assert p.grad.tolist() == [-1.0, 0.5]
    assert nn.utils.clip_grad_norm_([Parameter(ctxgrad.ones(1))], 1.0).item() == 0.0  # no gradients yet


def test_parameters_to_vector_round_trip() -> None:
    lin = nn.Linear(3, 2)
    vec = nn.utils.parameters_to_vector(lin.parameters())
    assert vec.tolist() == lin.weight.reshape(-1).tolist() + lin.bias.tolist()
    nn.utils.vector_to_parameters(ctxgrad.arange(8.0), lin.parameters())
    assert lin.bias.tolist() == [6.0, 7.0] and isinstance(lin.weight, Parameter) and lin.weight.requires_grad


# --------------------------------------------------------------------------- backward hooks
def _backward_hook_log(lib: Any) -> list[Any]:
    lin = lib.nn.Linear(3, 2).double()
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(np.arange(6.0).reshape(2, 3) / 5))
        lin.bias.copy_(lib.tensor([0.1, 0.2]))
    log: list[Any] = []

    def pre(module: Any, grad_output: Any) -> Any:
        log.append(("pre", [g.tolist() for g in grad_output]))
        return (grad_output[0] * 2,)

    def full(module: Any, grad_input: Any, grad_output: Any) -> Any:
        log.append(("full", [None if g is None else g.tolist() for g in grad_input], [g.tolist() for g in grad_output]))
        return None if grad_input[0] is None else (grad_input[0] + 1,)

    lin.register_full_backward_pre_hook(pre)
    lin.register_full_backward_hook(full)
    x = lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64, requires_grad=True)
    lin(x).sum().backward()
    log.append(("grads", x.grad.tolist(), lin.weight.grad.tolist()))
    lin(lib.tensor([[1.0, 2.0, 3.0]], dtype=lib.float64)).sum().backward()  # no input requires grad
    return log


def test_full_backward_hooks_match_torch(torch: Any) -> None:
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are computed"):
        ours = _backward_hook_log(ctxgrad)
    with pytest.warns(UserWarning, match="Full backward hook is firing when gradients are computed"):
        theirs = _backward_hook_log(torch)
    assert ours == theirs
    assert ours[2][1] == [[2.2, 3.0, 3.8]]  # the pre hook doubled grad_output, the full hook added 1


def test_backward_hook_wrong_count() -> None:
    lin = nn.Linear(2, 2)
    lin.register_full_backward_hook(lambda m, gi, go: (gi[0], gi[0]))
    with pytest.raises(
        RuntimeError, match="Backward hook returned an invalid number of grad_input, got 2, but expected 1"
    ):
        lin(ctxgrad.ones(1, 2, requires_grad=True)).sum().backward()
