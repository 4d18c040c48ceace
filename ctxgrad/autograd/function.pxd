# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside function.py and never by Python.  Each ``t`` below holds a tensor: declared a
# TensorBase, its autograd fields are read and written at fixed offsets instead of by name
# (assigning a non-tensor to it would raise TypeError, so the code assigns only tensors).

import cython
from ctxgrad._tensor_base cimport TensorBase

@cython.locals(t=TensorBase)
cpdef _run(cls, ctx, args, state=*)

@cython.locals(t=TensorBase)
cpdef _record(cls, ctx, args, out, state)
