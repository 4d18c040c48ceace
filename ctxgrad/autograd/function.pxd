# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside function.py and never by Python.  Each ``t`` (and ``o``, an output) below holds a
# tensor and ``state`` the thread's Modes: declared as the extension types TensorBase and Modes,
# their fields are read and written at fixed offsets instead of by name (assigning anything but
# a tensor or None to ``t`` would raise TypeError, so the code assigns only those to it).

import cython
from ctxgrad._state cimport Modes
from ctxgrad._tensor_base cimport TensorBase

# (dicts: their get() is a C call, not a method lookup)
cdef dict _METAS
cdef dict _NEEDS

@cython.locals(t=TensorBase)
cpdef _run(cls, ctx, args, Modes state=*)

@cython.locals(t=TensorBase, o=TensorBase)
cpdef _record(cls, ctx, args, out, Modes state)

# (compiled functions of other modules that every recorded call or backward calls: C calls)
from ctxgrad.autograd._outputs cimport mark_view, pack_saved
from ctxgrad.autograd._validate cimport check_grads, has_complex
