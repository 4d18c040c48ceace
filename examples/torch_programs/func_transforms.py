"""Function transforms as torch users write them: ``torch.func`` (``grad``, ``vmap``,
``jacrev``, ``jacfwd``, ``hessian``, per-sample gradients with ``functional_call``, in the
pattern of PyTorch's tutorial "Per-sample-gradients") and functorch's older spelling; no line
changed for ctxgrad.

Run it on ctxgrad: ``ctxgrad run examples/torch_programs/func_transforms.py``; under torch:
``python examples/torch_programs/func_transforms.py``. Each line it prints is a value both
compute the same; it asserts each against the formula or the plain autograd answer.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, grad, hessian, jacfwd, jacrev, vmap

import functorch

torch.set_default_dtype(torch.float64)


def f(x):
    return torch.sin(x).sum()


x = torch.linspace(0.0, 1.0, 5)
dfdx = grad(f)(x)
assert torch.allclose(dfdx, torch.cos(x))
print("grad of sum(sin x):", [round(v, 8) for v in dfdx.tolist()])

H = hessian(f)(x)
assert torch.allclose(H, torch.diag(-torch.sin(x)))
print("hessian diagonal:", [round(v, 8) for v in torch.diagonal(H).tolist()])


def g(x):
    return torch.tanh(x) * x.sum()


J_rev = jacrev(g)(x)
J_fwd = jacfwd(g)(x)
assert torch.allclose(J_rev, J_fwd)
print("jacobian row 0:", [round(v, 8) for v in J_rev[0].tolist()])

# Per-sample gradients of a model's loss, as the tutorial computes them.
model = nn.Linear(3, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.5, -1.0, 2.0]]))
    model.bias.fill_(0.1)
params = {k: v.detach() for k, v in model.named_parameters()}


def compute_loss(params, sample, target):
    batch = sample.unsqueeze(0)
    targets = target.unsqueeze(0)
    prediction = functional_call(model, params, (batch,))
    return F.mse_loss(prediction, targets)


data = torch.arange(12.0).reshape(4, 3) / 10
targets = torch.arange(4.0).reshape(4, 1)
per_sample_grads = vmap(grad(compute_loss), in_dims=(None, 0, 0))(params, data, targets)

for i in range(len(data)):  # the same with plain autograd, one sample at a time
    model.zero_grad()
    F.mse_loss(model(data[i : i + 1]), targets[i : i + 1]).backward()
    assert torch.allclose(per_sample_grads["weight"][i], model.weight.grad)
    assert torch.allclose(per_sample_grads["bias"][i], model.bias.grad)
print("per-sample weight grads:", [[round(v, 8) for v in row[0]] for row in per_sample_grads["weight"].tolist()])
print("per-sample bias grads:", [round(v, 8) for v in per_sample_grads["bias"].squeeze(1).tolist()])

# functorch's spelling, from before torch.func
batched_dot = functorch.vmap(torch.dot)
a, b = torch.arange(6.0).reshape(2, 3), torch.ones(2, 3)
print("functorch.vmap(torch.dot):", batched_dot(a, b).tolist())
