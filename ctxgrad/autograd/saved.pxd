# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside saved.py and never by Python.  A saved tensor is made for every tensor an op saves and
# read by every backward that saves: as extension types, its fields are set and read at fixed
# offsets, and a locked one's finaliser (``__del__``) is a C slot, not a Python method found by
# name when it is freed.  (A field not yet set reads None here where the .py's slot would raise
# AttributeError: the code sets each field before it reads it.)

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

cdef class LockedSavedTensor(SavedTensor):
    pass

cdef class SavedValue(LockedSavedTensor):
    cdef public object value

# (the lock of every saved tensor's array, taken and given back: C calls)
from ctxgrad.autograd._readonly cimport lock_array, unlock_array
