"""Dtypes, the default float dtype, and torch's type-promotion rules.

A ctxgrad dtype (``ctxgrad.float32`` and friends, what ``Tensor.dtype`` returns) is a
:class:`dtype`: a thin object around one NumPy dtype that answers torch's questions
(``is_floating_point``, ``is_complex``, ``is_signed``, ``itemsize``, ``to_real()``,
``to_complex()``) and prints as torch prints (``ctxgrad.float32``).  NumPy does not let its
dtypes be subclassed, so the object instead *stands for* its NumPy dtype: it compares equal
to it and hashes like it, and NumPy accepts it wherever it takes a dtype (NumPy reads the
``.dtype`` attribute), so ``t.dtype == np.float32``, ``np.zeros(3, dtype=t.dtype)`` and
``arr.astype(t.dtype)`` all work.  What differs from NumPy is promotion: torch keeps a float32
tensor float32 when it meets a Python float or a 0-d float64 tensor, and turns an integer
tensor combined with a Python float into the *default* float dtype (float32), where NumPy
would give float64.  :func:`promote_operands` applies torch's rule before NumPy computes, so
every binary op gets torch's result dtype from one place.
"""

from __future__ import annotations

import builtins
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

if TYPE_CHECKING:  # to a type checker a ctxgrad dtype is a NumPy dtype, as it is to NumPy
    _DTypeBase = np.dtype[Any]
else:
    _DTypeBase = object


class dtype(_DTypeBase):  # type: ignore[misc]  # (np.dtype is final to the type checker)
    """A tensor's element type, as torch's ``torch.dtype``; one object per NumPy dtype.

    >>> import numpy as np
    >>> import ctxgrad
    >>> ctxgrad.float32
    ctxgrad.float32
    >>> ctxgrad.float32.is_floating_point, ctxgrad.int64.is_signed, ctxgrad.complex64.itemsize
    (True, True, 8)
    >>> ctxgrad.complex64.to_real(), ctxgrad.float64.to_complex()
    (ctxgrad.float32, ctxgrad.complex128)
    >>> ctxgrad.ones(2).dtype == np.float32, np.zeros(2, dtype=ctxgrad.float64).dtype
    (True, dtype('float64'))

    The NumPy dtype itself is ``.dtype``; its other attributes (``kind``, ``name``,
    ``char``, ``type``, ...) are answered too.
    """

    __slots__ = ("_hash", "char", "dtype", "itemsize", "kind", "name", "type")

    dtype: np.dtype[Any]  # the NumPy dtype (NumPy reads this attribute)

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError("cannot create 'ctxgrad.dtype' instances")

    @classmethod
    def _of(cls, np_dtype: np.dtype[Any]) -> DType:
        self = object.__new__(cls)
        for name in ("kind", "name", "char", "type", "itemsize"):
            object.__setattr__(self, name, getattr(np_dtype, name))
        object.__setattr__(self, "dtype", np_dtype)
        object.__setattr__(self, "_hash", hash(np_dtype))
        return self

    def __getattr__(self, name: str) -> Any:  # the rest of NumPy's dtype attributes
        return getattr(self.dtype, name)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"attribute '{name}' of 'ctxgrad.dtype' objects is not writable")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is dtype:
            return self is other or self.dtype == other.dtype
        if other is None:  # (to NumPy, None means float64)
            return False
        try:
            return bool(self.dtype == other)
        except TypeError:
            return False

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return self._hash  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"ctxgrad.{'bool' if self.kind == 'b' else self.name}"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return as_dtype, (self.dtype.str,)

    @property
    def is_floating_point(self) -> bool:
        """True for the floating dtypes (float16, float32, float64)."""
        return self.kind == "f"

    @property
    def is_complex(self) -> bool:
        """True for the complex dtypes."""
        return self.kind == "c"

    @property
    def is_signed(self) -> bool:
        """True unless the dtype is unsigned (``uint8``) or ``bool``."""
        return self.kind not in "ub"

    def to_real(self) -> DType:
        """The real dtype of a complex one (``complex64`` gives ``float32``); others are
        returned unchanged."""
        return as_dtype(np.empty(0, self.dtype).real.dtype) if self.kind == "c" else self

    def to_complex(self) -> DType:
        """The complex dtype of a floating one (``float32`` gives ``complex64``); complex
        dtypes are returned unchanged.  float16 has none in NumPy (torch's ``complex32``)."""
        if self.kind == "c":
            return self
        if self.kind == "f":
            if self.itemsize < 4:
                raise RuntimeError("ctxgrad.float16 has no complex dtype: NumPy has no complex32")
            return as_dtype(np.result_type(self.dtype, np.complex64))
        raise RuntimeError(f"Unknown Complex ScalarType for {short_name(self)}")


DType = dtype  # (the class's name, for annotations inside it, where ``dtype`` is the slot)
_BY_NUMPY: dict[np.dtype[Any], dtype] = {}


def as_dtype(d: Any) -> dtype:
    """The ctxgrad :class:`dtype` of a NumPy dtype (or anything ``np.dtype`` accepts)."""
    try:
        return _BY_NUMPY[d]
    except (KeyError, TypeError):
        np_dtype: np.dtype[Any] = np.dtype(d)
        found = _BY_NUMPY.get(np_dtype)
        if found is None:
            found = _BY_NUMPY[np_dtype] = dtype._of(np_dtype)
        return found


float16 = half = as_dtype(np.float16)
float32 = as_dtype(np.float32)
float64 = double = as_dtype(np.float64)
complex64 = cfloat = as_dtype(np.complex64)
complex128 = cdouble = as_dtype(np.complex128)
uint8 = as_dtype(np.uint8)
int8 = as_dtype(np.int8)
int16 = short = as_dtype(np.int16)
int32 = as_dtype(np.int32)
int64 = long = as_dtype(np.int64)
bool_ = as_dtype(np.bool_)


class _NoArrayDtype:
    """A torch dtype that NumPy has no type for (``bfloat16``): a name ported code can pass
    where the dtype is only named (``autocast(dtype=...)``, comparisons, ``is_floating_point``),
    and a ``TypeError`` saying why wherever a tensor of it would be made."""

    __slots__ = ("name", "reason")
    is_floating_point, is_complex, is_signed, itemsize = True, False, True, 2

    def __init__(self, name: str, reason: str) -> None:
        self.name, self.reason = name, reason

    def __repr__(self) -> str:
        return f"ctxgrad.{self.name}"

    def refusal(self) -> TypeError:
        """The error for making a tensor of this dtype."""
        return TypeError(f"ctxgrad has no {self.name} tensors: {self.reason}")


#: Measured: with the ``ml_dtypes`` package, NumPy's bfloat16 matmul runs without BLAS, about
#: 150 times slower than float32 (256 x 256); ctxgrad keeps float32 (docs/differences.md).
bfloat16 = _NoArrayDtype(
    "bfloat16",
    "NumPy has no bfloat16 type (the ml_dtypes package adds one, but NumPy computes in it without BLAS, about "
    "150 times slower than float32), so ctxgrad computes in float32: use ctxgrad.float32 (autocast's "
    "bfloat16 computes in float32 too)",
)

_default_dtype: np.dtype[Any] = float32

# Torch's names for dtypes, used in reprs and messages ("torch.FloatTensor" style).
_TENSOR_TYPE_NAMES: dict[np.dtype[Any], str] = {
    float16: "HalfTensor",
    float32: "FloatTensor",
    float64: "DoubleTensor",
    complex64: "ComplexFloatTensor",
    complex128: "ComplexDoubleTensor",
    uint8: "ByteTensor",
    int8: "CharTensor",
    int16: "ShortTensor",
    int32: "IntTensor",
    int64: "LongTensor",
    bool_: "BoolTensor",
}
#: Every dtype ctxgrad has, in torch's order of its legacy type names.
DTYPES: tuple[np.dtype[Any], ...] = (
    float16,
    float32,
    float64,
    complex64,
    complex128,
    uint8,
    int8,
    int16,
    int32,
    int64,
    bool_,
)

_SHORT_NAMES: dict[np.dtype[Any], str] = {
    float16: "Half",
    float32: "Float",
    float64: "Double",
    complex64: "ComplexFloat",
    complex128: "ComplexDouble",
    uint8: "Byte",
    int8: "Char",
    int16: "Short",
    int32: "Int",
    int64: "Long",
    bool_: "Bool",
}

# The C++ names torch prints for scalar types in some messages ("expected dtype long int").
_CPP_NAMES: dict[np.dtype[Any], str] = {
    float16: "c10::Half",
    float32: "float",
    float64: "double",
    complex64: "c10::complex<float>",
    complex128: "c10::complex<double>",
    uint8: "unsigned char",
    int8: "signed char",
    int16: "short int",
    int32: "int",
    int64: "long int",
    bool_: "bool",
}

# Promotion category of a dtype kind: bool < integer < floating < complex.
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def category(dt: np.dtype[Any]) -> int:
    """The promotion category of a dtype: 0 bool, 1 integer, 2 floating, 3 complex."""
    return _CATEGORY[dt.kind]


def can_cast(source: np.dtype[Any], target: np.dtype[Any]) -> bool:
    """Torch's ``can_cast``, the rule for writing a result into an existing tensor (in-place
    ops, ``out=``): anything but a cast to a lower category (complex to real, floating to
    integer, anything to bool).  Integers cast among themselves, wrapping (``uint8 += int8``),
    where NumPy's "same_kind" refuses signed to unsigned."""
    return _CATEGORY[source.kind] <= _CATEGORY[target.kind] or (source.kind in "ui" and target.kind in "ui")


def get_default_dtype() -> np.dtype[Any]:
    """The dtype of floating tensors made from Python floats (float32 unless changed)."""
    return _default_dtype


def set_default_dtype(d: Any) -> None:
    """Set the default floating dtype; like torch, only float32 and float64 (and float16)."""
    global _default_dtype
    dt = to_dtype(d)
    if dt.kind != "f":
        raise TypeError(f"only floating-point types are supported as the default type, got {dt}")
    _default_dtype = dt


def to_dtype(d: Any) -> np.dtype[Any]:
    """Normalise anything NumPy accepts as a dtype (and Python's ``float``) to a dtype."""
    if isinstance(d, _NoArrayDtype):
        raise d.refusal()
    if d is builtins.float:
        return _default_dtype
    if d is builtins.int:
        return int64
    if d is builtins.bool:
        return bool_
    dt: np.dtype[Any] = np.dtype(d)
    return dt


def is_floating(dt: np.dtype[Any]) -> bool:
    """True for the dtypes that may require grad (floating and complex)."""
    return dt.kind in "fc"


def type_name(dt: np.dtype[Any]) -> str:
    """Torch's legacy name for a tensor type, e.g. ``FloatTensor``."""
    return _TENSOR_TYPE_NAMES.get(dt, f"{dt.name}Tensor")


def short_name(dt: np.dtype[Any]) -> str:
    """Torch's short scalar-type name, e.g. ``Float`` or ``Double``."""
    return _SHORT_NAMES.get(dt, str(dt.name))


def cpp_name(dt: np.dtype[Any]) -> str:
    """The C++ name torch prints for a dtype in some messages, e.g. ``long int``."""
    return _CPP_NAMES.get(dt, str(dt.name))


def dtype_repr(dt: np.dtype[Any]) -> str:
    """How a dtype is spelled in a tensor's repr: ``ctxgrad.float64``."""
    return repr(as_dtype(dt))


def scalar_dtype(value: object) -> np.dtype[Any]:
    """The dtype torch gives a tensor made from a Python scalar."""
    if isinstance(value, builtins.bool):
        return bool_
    if isinstance(value, builtins.int):
        return int64
    if isinstance(value, builtins.complex):
        return complex64 if _default_dtype == float32 else complex128
    return _default_dtype


class ArrayFacts:
    """The base of objects that stand for an array's facts without its values (what a batched
    tensor has for an array inside vmap): promotion reads their ``dtype`` and ``ndim`` as an
    array's."""

    dtype: np.dtype[Any]
    ndim: int


def result_dtype(a: np.ndarray[Any, Any] | object, b: np.ndarray[Any, Any] | object) -> np.dtype[Any]:
    """Torch's result dtype for a binary op on arrays (from tensors) or Python scalars.

    Torch ranks operands: tensors with dimensions, then 0-d tensors, then Python scalars.
    A lower-ranked operand only changes the result dtype when it is of a higher category
    (bool < int < float < complex); a Python float then brings the default dtype, a 0-d
    tensor its own dtype.
    """
    a_arr = isinstance(a, (np.ndarray, ArrayFacts))
    b_arr = isinstance(b, (np.ndarray, ArrayFacts))
    if a_arr and b_arr:
        assert isinstance(a, (np.ndarray, ArrayFacts)) and isinstance(b, (np.ndarray, ArrayFacts))
        da: np.dtype[Any] = a.dtype
        db: np.dtype[Any] = b.dtype
        if da == db:
            return da
        ca, cb = _CATEGORY[da.kind], _CATEGORY[db.kind]
        a_dims, b_dims = a.ndim > 0, b.ndim > 0
        if a_dims == b_dims:
            # Same rank: within a category the wider type wins; across categories the
            # higher one, except that complex meets a float at the wider precision
            # (complex64 with float64 is complex128).
            if ca == cb:
                wider: np.dtype[Any] = np.promote_types(da, db)
                return wider
            high, low = (da, db) if ca > cb else (db, da)
            return _complex_of(low, high) if high.kind == "c" and low.kind == "f" else high
        if ca != cb:
            # A lower rank changes the dtype only from a higher category; a complex one
            # keeps the precision of a float tensor with dimensions (torch's toComplexType).
            dims, zero = (da, db) if a_dims else (db, da)
            if _CATEGORY[zero.kind] < _CATEGORY[dims.kind]:
                return dims
            if zero.kind == "c" and dims.kind == "f":  # the complex type of the float's precision
                return complex128 if dims == float64 else complex64
            return zero
        return da if a_dims else db
    if a_arr:
        assert isinstance(a, (np.ndarray, ArrayFacts))
        return _with_scalar(a.dtype, b)
    if b_arr:
        assert isinstance(b, (np.ndarray, ArrayFacts))
        return _with_scalar(b.dtype, a)
    # Two Python numbers: the dtype of the one of the higher category (int and float give
    # the default float dtype, not NumPy's float64).
    da, db = scalar_dtype(a), scalar_dtype(b)
    return da if _CATEGORY[da.kind] >= _CATEGORY[db.kind] else db


def _complex_of(dt: np.dtype[Any], other: np.dtype[Any]) -> np.dtype[Any]:
    """The complex dtype of a float ``dt`` meeting complex ``other``: the wider of
    ``other`` and the complex dtype with ``dt``'s precision."""
    return complex128 if dt == float64 else other


def _with_scalar(dt: np.dtype[Any], scalar: object) -> np.dtype[Any]:
    sd = scalar_dtype(scalar)
    if _CATEGORY[sd.kind] > _CATEGORY[dt.kind]:
        if sd.kind == "c" and dt.kind == "f":
            return complex128 if dt == float64 else complex64
        return sd
    return dt


def promote_operands(a: Any, b: Any) -> tuple[Any, Any]:
    """Cast NumPy operands so that NumPy's result dtype is torch's.

    ``a`` and ``b`` are arrays (the data of tensors) or Python scalars.  The common cases,
    equal dtypes or a float array with a Python number, return at once.
    """
    a_arr = isinstance(a, np.ndarray)
    b_arr = isinstance(b, np.ndarray)
    if a_arr and b_arr:
        if a.dtype == b.dtype:
            return a, b
    elif a_arr:
        if a.dtype.kind == "f" and not isinstance(b, builtins.complex):
            return a, b
    elif b_arr:
        if b.dtype.kind == "f" and not isinstance(a, builtins.complex):
            return a, b
    dt = result_dtype(a, b)
    if a_arr:
        if a.dtype != dt:
            a = a.astype(dt)
    else:
        a = scalar_as(a, dt)
    if b_arr:
        if b.dtype != dt:
            b = b.astype(dt)
    else:
        b = scalar_as(b, dt)
    return a, b


_C_TYPE_NAMES: dict[np.dtype[Any], str] = {
    uint8: "uint8_t",
    int8: "int8_t",
    int16: "int16_t",
    int32: "int",
    int64: "int64_t",
}


def fill_value_as(value: object, dt: np.dtype[Any]) -> Any:
    """A Python number as a NumPy scalar of ``dt`` for an op that fills with it (``full``,
    ``fill_``, ``masked_fill``, ``where``, ``clamp``'s bounds, ``pow``'s exponent), where
    torch checks the int fits: a signed dtype takes its range, an unsigned one also the
    negatives down to ``-max`` (they wrap: ``full((1,), -1, dtype=uint8)`` is 255); a float
    must be finite and within the dtype's range."""
    if dt.kind in "iu" and isinstance(value, (builtins.int, builtins.float)) and type(value) is not builtins.bool:
        info = np.iinfo(dt)
        low = -int(info.max) if dt.kind == "u" and type(value) is builtins.int else int(info.min)
        if not low <= value <= info.max:  # False for NaN
            raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[dt]} without overflow")
    return scalar_as(value, dt)


def scalar_as(value: object, dt: np.dtype[Any]) -> Any:
    """A Python number as a NumPy scalar of ``dt``, as torch converts an operand.

    A Python int outside an integer dtype's range wraps around, as torch's does
    (``uint8 tensor + 300`` adds 44), where NumPy raises OverflowError; torch refuses only
    ints that fit neither int64 nor uint64, with its messages."""
    if dt.kind in "iu" and type(value) is builtins.int:
        info = np.iinfo(dt)
        if not info.min <= value <= info.max:
            if value >= 2**64:
                raise OverflowError("int too big to convert")
            if value < -(2**63):
                raise OverflowError("can't convert negative int to unsigned")
            span = 1 << info.bits
            value = (value - info.min) % span + info.min
    return np.asarray(value, dtype=dt)[()]
