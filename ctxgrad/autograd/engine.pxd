# Cython declarations for engine.py, read only by the optional compiled build.
cimport cython

@cython.locals(deps=dict, stack=list)
cpdef dict _count_dependencies(list roots)

@cython.locals(buffers=dict, deps=dict, ready=list, captures=dict, n=Py_ssize_t, run_it=bint)
cpdef _execute(run, bint keep_graph)
