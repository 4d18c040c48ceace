"""User code that ``mypy --strict`` checks (tests/test_op_table.py): the op table's methods,
attached at run time, are typed through the stubs ``python -m ctxgrad._gen_methods`` writes.

The last line is a deliberate type error; the test asserts that mypy reports it, and only it.
"""

from __future__ import annotations

import ctxgrad
from ctxgrad import Tensor

x = ctxgrad.tensor([0.5, 1.5])
y: Tensor = x.exp().tanh().clamp(min=0.0, max=1.0)
z: Tensor = ctxgrad.maximum(y.sigmoid(), x.atan2(y))
w: Tensor = z.relu_().lerp(x, 0.5)
where_result = ctxgrad.where(x > 0, x, y)
m = ctxgrad.ones(2, 2)
t: Tensor = m.T @ m.mT
first: Tensor = m[0]
m[0] = first * 2.0
m += 1.0
m.mul_(2.0).zero_()
fresh: Tensor = x.new_zeros(2)
close: bool = x.allclose(fresh)
ctxgrad.ones(2).requires_grad_().register_hook(lambda g: g * 2.0).remove()
buffer = ctxgrad.empty(2)
sines: Tensor = ctxgrad.sin(x, out=buffer)  # out= of a row's out=True (typed in ctxgrad/_made_functions.py)
arcsines: Tensor = ctxgrad.arcsin(x, out=None)
largest: Tensor = ctxgrad.amax(m, 0, out=buffer)
joined: Tensor = ctxgrad.cat([x, x], out=ctxgrad.empty(4))
count: int = x.exp()  # deliberate error: a method of the table returns a Tensor
