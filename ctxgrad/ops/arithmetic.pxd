# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside arithmetic.py and never by Python: the compiled functions of other modules that the
# operators and their forwards call on every op, called as C functions (their ``cpdef``
# declarations are in those modules' .pxd files).  The Python imports in arithmetic.py stay:
# the pure-Python core uses them.

from ctxgrad._shortcut cimport untracked
from ctxgrad._tensor cimport as_tensor
from ctxgrad.ops._util cimport arrays, save_operands
