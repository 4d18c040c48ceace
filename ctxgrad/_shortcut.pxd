# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside _shortcut.py and never by Python: the operands ``t`` and ``u`` are TensorBase and the
# thread's flags a Modes, whose fields are then read at fixed offsets.

import cython
from ctxgrad._state cimport Modes
from ctxgrad._tensor_base cimport TensorBase

@cython.locals(modes=Modes, t=TensorBase, u=TensorBase)
cpdef untracked(ufunc, a, b)
