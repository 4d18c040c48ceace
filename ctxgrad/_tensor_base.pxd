# The compiled core's declaration of TensorBase (_tensor_base.py): its fields as members of an
# extension type, read at fixed offsets by the compiled modules that cimport it.  Python never
# reads this file; Cython reads it beside the .py (tools/build_compiled.py).

cdef class TensorBase:
    cdef public object _base
    cdef public object _data
    cdef public object _grad_fn
    cdef public object _output_nr
    cdef public object _requires_grad
