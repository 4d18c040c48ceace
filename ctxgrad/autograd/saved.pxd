# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside saved.py and never by Python: SavedTensor as an extension type, whose methods set and
# read its fields at fixed offsets.  Its subclasses stay Python classes.  (``ctx._saved`` may
# also hold forward mode's stand-ins, which are no SavedTensors: nothing outside the class is
# typed by it.)

cdef class SavedTensor:
    cdef public object _accumulator
    cdef public object _base
    cdef public object _data
    cdef public object _fw
    cdef public object _grad_fn
    cdef public object _locked
    cdef public object _output_nr
    cdef public object _packed
    cdef public object _requires_grad
    cdef public object _tensor
    cdef public object _unpack
    cdef public object _vc
    cdef public object _version
