# Typed declarations for the optional compiled core (tools/build_compiled.py), read by Cython
# beside engine.py and never by Python: the dicts and lists the engine makes and owns, whose
# get, pop and append are then C calls, not method lookups.

import cython

@cython.locals(deps=dict, stack=list)
cpdef _count_dependencies(roots)

@cython.locals(buffers=dict, deps=dict, ready=list, captures=dict, visit=set, runnable=set, edges=tuple, i=Py_ssize_t)
cpdef _execute(run, keep_graph)
