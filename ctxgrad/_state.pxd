# The compiled core's declaration of Modes (_state.py): one thread's flags as members of an
# extension type, which the compiled modules that cimport it read at fixed offsets (apply's
# run and record steps read several per call).  Python never reads this file.

cdef class Modes:
    cdef public object _fw_levels
    cdef public object _inference
    cdef public object _recorder
    cdef public object _vmap_levels
    cdef public object allow_mutation
    cdef public object anomaly
    cdef public object anomaly_check_nan
    cdef public object anomaly_parent
    cdef public object backward_runs
    cdef public object func_transforms
    cdef public object fw_dual_tensors
    cdef public object fw_hidden
    cdef public object grad_enabled
    cdef public object lock_saved
    cdef public object node_runner
    cdef public object once_dropped
    cdef public object once_watch
    cdef public object saved_hooks
    cdef public object saved_hooks_disabled
    cdef public object special
    cdef public object tracer
    cdef public object transforming
