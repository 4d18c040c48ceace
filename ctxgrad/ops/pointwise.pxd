# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside pointwise.py and never by Python: ``as_tensor``, which every forward here ends with,
# called as a C function (its ``cpdef`` declaration is in _tensor.pxd).

from ctxgrad._tensor cimport as_tensor
