# Cython declarations for function.py, read only by the optional compiled build.
cimport cython

@cython.locals(grad_enabled=bint, needs=tuple)
cpdef _run(cls, ctx, tuple args)

@cython.locals(edges=list)
cpdef _record(cls, ctx, tuple args, out)
