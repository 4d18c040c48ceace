# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside _validate.py and never by Python: ``g``, a gradient (a tensor or None), read as a
# TensorBase, whose fields are at fixed offsets.

import cython
from ctxgrad._tensor_base cimport TensorBase

@cython.locals(g=TensorBase)
cpdef has_complex(grads)

@cython.locals(edges=tuple, n=Py_ssize_t, i=Py_ssize_t, k=Py_ssize_t)
cpdef check_grads(node, result)
