# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside arithmetic.py and never by Python: the operators' NumPy shortcut reads the thread's
# Modes at fixed offsets.

import cython
from ctxgrad._state cimport Modes

@cython.locals(modes=Modes)
cpdef _untracked(ufunc, a, b)
