# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside _tensor.py and never by Python: the new tensor ``t`` is a TensorBase, whose fields are
# then written at fixed offsets.

import cython
from ctxgrad._tensor_base cimport TensorBase

@cython.locals(t=TensorBase)
cpdef as_tensor(data, dtype=*, device=*)

@cython.locals(t=TensorBase)
cpdef _wrap(arr)
