# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside _util.py and never by Python: the helpers every binary op's forward calls, declared
# cpdef so that the compiled ops (arithmetic.pxd) call them as C functions, without a Python
# call.  (A cpdef function takes no keyword-only parameter: ``read_by`` is positional too.)

cpdef arrays(a, b, refuse=*)
cpdef save_operands(ctx, a, b, out=*, read_by=*)
