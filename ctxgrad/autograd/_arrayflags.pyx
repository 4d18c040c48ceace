# cython: language_level=3
"""The compiled core's version of ``_arrayflags.py`` (tools/build_compiled.py builds this file in
its place: the one module of the compiled core written in Cython, because its point is NumPy's C
structure, which the pure-Python mode cannot name).  The same three functions, on the array's
flag bits through NumPy's own inline accessors (numpy/ndarraytypes.h: no NumPy C-API table, so
no ``import_array``); ``_arrayflags.py`` stays the reference, and tests/test_saved_arrays.py
runs the same checks on whichever is built.
"""

from numpy import ndarray

cdef extern from *:
    """
    #define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
    """

cdef extern from "numpy/ndarraytypes.h":
    ctypedef struct PyArrayObject:
        pass
    int NPY_ARRAY_WRITEABLE
    int PyArray_FLAGS(PyArrayObject *arr)
    void PyArray_ENABLEFLAGS(PyArrayObject *arr, int flags)
    void PyArray_CLEARFLAGS(PyArrayObject *arr, int flags)
    void *PyArray_BASE(PyArrayObject *arr)

__all__ = ["is_writeable", "set_read_only", "set_writeable", "setflags"]

# (as in _arrayflags.py: with NumPy's checks, for views)
setflags = ndarray.setflags


cdef inline PyArrayObject *_array(object arr) except NULL:
    # (a cast to NumPy's structure only after the check that it is one)
    if not isinstance(arr, ndarray):
        raise TypeError(f"expected a numpy.ndarray, got {type(arr).__name__}")
    return <PyArrayObject *>arr


def is_writeable(arr):
    """NumPy's write flag of ``arr``."""
    return (PyArray_FLAGS(_array(arr)) & NPY_ARRAY_WRITEABLE) != 0


def set_read_only(arr):
    """Clear the write flag of ``arr``."""
    PyArray_CLEARFLAGS(_array(arr), NPY_ARRAY_WRITEABLE)


def set_writeable(arr):
    """Set the write flag of ``arr``; a ValueError where NumPy refuses it (memory that ``arr``
    does not own, whose owner does not say that it may be written)."""
    cdef PyArrayObject *a = _array(arr)
    if PyArray_BASE(a) == NULL:  # (its own memory: NumPy allows it without asking anyone)
        PyArray_ENABLEFLAGS(a, NPY_ARRAY_WRITEABLE)
    else:
        setflags(arr, True)
