# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside _readonly.py and never by Python: every saved tensor locks its array when it is made
# and unlocks it when it is freed, so these are C functions, which saved.py's compiled module
# calls as such (saved.pxd cimports them), and unlock_array calls _release so.

cpdef lock_array(arr)
cpdef unlock_array(arr)
cpdef _release(arr)
