# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside _outputs.py and never by Python: the thread's Modes read at fixed offsets where a
# call's saved tensors are packed.

from ctxgrad._state cimport Modes

cpdef pack_saved(cls, ctx, to_save, Modes modes=*)

# (every recorded view op marks its output: a C call from function.py's _record)
cpdef mark_view(cls, o, i, several, args, grad_enabled)
