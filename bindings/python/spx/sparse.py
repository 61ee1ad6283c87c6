"""Sparse matrices over caller-owned device arrays: CSR, vector-sparse BCRS(V), vector-wise N:M
and ELL (uniform sparsity), in the layouts of ``include/spx/spx.h``.

A matrix object keeps its arrays alive and owns its spxSpMatDescr_t. The Python layer checks
what the C API cannot see (array lengths, index types, contiguity); the library checks the rest
(N <= M, divisibility, ...) and the structure itself in analyze, and its messages arrive as
exceptions.
"""
from __future__ import annotations

import ctypes

from . import _backend
from ._arrays import ArrayView, as_datatype, storage_itemsize, view
from ._lib import call
from ._owned import COwner
from .enums import DataType, Format
from .errors import InvalidValueError


def _flat(v: ArrayView, what: str, count: int, dtype: DataType, *, fortran: bool = False):
    """Checks that `v` holds exactly `count` elements of `dtype`, densely (C order, or Fortran
    order for column-major 2-D layouts)."""
    need = _backend.nbytes(dtype, count)
    have = v.size * v.itemsize
    if have != need:
        raise InvalidValueError(f"{what} holds {have} bytes but {need} are needed "
                                f"({count} elements of {dtype.name})")
    dense = v.is_f_contiguous() if fortran else v.is_contiguous()
    if not dense and v.size > 1:
        layout = "column-major (Fortran) contiguous" if fortran else "contiguous"
        raise InvalidValueError(f"{what} must be {layout} (byte strides {v.strides})")


def _index_array(obj, what: str, count: int, *, fortran: bool = False) -> ArrayView:
    v = view(obj, name=what)
    if v.dtype != DataType.R_32I:
        raise InvalidValueError(f"{what} must hold int32 indices, not {v.dtype}")
    _flat(v, what, count, DataType.R_32I, fortran=fortran)
    return v


def _value_type(v: ArrayView, dtype) -> DataType:
    if dtype is not None:
        dt = as_datatype(dtype)
        if storage_itemsize(dt) != v.itemsize:
            raise InvalidValueError(f"{dt.name} values must be stored in {storage_itemsize(dt)}-byte "
                                    f"elements, not {v.itemsize}-byte ones")
        return dt
    if v.dtype is None:
        raise InvalidValueError("the values' element type has no libspx equivalent")
    return v.dtype


class SparseMatrix(COwner):
    """Base of the four formats. ``shape``, ``dtype`` (DataType), ``format`` (Format), ``nnz``
    (stored entries, padding included, as spxSpMatGetSize reports), ``values`` (the caller's
    values array) and ``arrays`` (every array by name)."""

    _c_pointer = "_descr"
    _c_destroy = "spxDestroySpMat"

    format: Format

    def __init__(self):
        self._descr = ctypes.c_void_p()
        self._views: dict = {}

    def _create(self, fn: str, *args) -> None:
        call(fn, ctypes.byref(self._descr), *args)

    # -- properties
    @property
    def descr(self) -> ctypes.c_void_p:
        if not self._descr:
            raise ValueError("the sparse matrix was closed")
        return self._descr

    @property
    def nnz(self) -> int:
        out = ctypes.c_int64()
        call("spxSpMatGetSize", self.descr, None, None, ctypes.byref(out))
        return out.value

    @property
    def values(self):
        return self._views["values"].obj

    @property
    def arrays(self) -> dict:
        return {k: v.obj for k, v in self._views.items()}

    @property
    def device(self):
        return self._views["values"].device

    @property
    def backend(self):
        return _backend.for_view(self._views["values"])

    def _values_count(self) -> int:
        raise NotImplementedError

    # -- values
    def set_values(self, values) -> None:
        """Points the matrix at new device values of the same length and type (the structure
        stays). Plans analyzed for this matrix re-pack them in ``plan.update_values()``."""
        v = view(values, name="values")
        # 4-bit values live in byte arrays: their type cannot be read from the array.
        dt = _value_type(v, self.dtype if self.dtype.bits == 4 else None)
        if dt != self.dtype:
            raise InvalidValueError(f"the new values are {dt.name} but the matrix holds {self.dtype.name}")
        _flat(v, "values", self._values_count(), dt, fortran=self._fortran_values(v))
        call("spxSpMatSetValues", self.descr, ctypes.c_void_p(v.ptr))
        self._views["values"] = v

    def _fortran_values(self, v: ArrayView) -> bool:
        return False

    def with_values(self, values, dtype=None) -> "SparseMatrix":
        """A new matrix with this one's structure (its index arrays are shared) and other values,
        for example the same pattern in fp16: ``A.with_values(A.values.half())``."""
        raise NotImplementedError

    def __repr__(self):
        return (f"spx.{type(self).__name__}({self.shape[0]}x{self.shape[1]}, {self.dtype.name}, "
                f"nnz={self.nnz})")


class CsrMatrix(SparseMatrix):
    """CSR: ``row_ptr`` (rows+1), ``col_ind`` (nnz) int32 and ``values`` (nnz) on the device."""

    format = Format.CSR

    def __init__(self, row_ptr, col_ind, values, shape, *, dtype=None):
        super().__init__()
        rows, cols = (int(s) for s in shape)
        vv = view(values, name="values")
        self.dtype = _value_type(vv, dtype)
        vc = view(col_ind, name="col_ind")
        nnz = vc.size
        self._views = {
            "row_ptr": _index_array(row_ptr, "row_ptr", rows + 1),
            "col_ind": _index_array(vc, "col_ind", nnz),
            "values": vv,
        }
        _flat(vv, "values", nnz, self.dtype)
        self.shape = (rows, cols)
        self._nnz = nnz
        self._create("spxCreateCsr", rows, cols, nnz, *self._ptrs("row_ptr", "col_ind", "values"),
                     int(self.dtype))

    def _ptrs(self, *names):
        return [ctypes.c_void_p(self._views[n].ptr) for n in names]

    def _values_count(self):
        return self._nnz

    def with_values(self, values, dtype=None):
        return CsrMatrix(self._views["row_ptr"], self._views["col_ind"], values, self.shape,
                         dtype=dtype)


class BcrsMatrix(CsrMatrix):
    """Vector-sparse BCRS(V): V x 1 column vectors. ``block_row_ptr`` (rows/V + 1) and
    ``block_col`` (num_vectors) int32, ``values`` (num_vectors * V, the V values of a vector
    contiguous, top row first; a (num_vectors, V) array is fine)."""

    format = Format.BCRS

    def __init__(self, block_row_ptr, block_col, values, shape, vec_len, *, dtype=None):
        SparseMatrix.__init__(self)
        rows, cols = (int(s) for s in shape)
        vec_len = int(vec_len)
        vv = view(values, name="values")
        self.dtype = _value_type(vv, dtype)
        vb = view(block_col, name="block_col")
        nvec = vb.size
        ptr_len = rows // vec_len + 1 if vec_len >= 1 and rows % vec_len == 0 else None
        self._views = {"block_col": _index_array(vb, "block_col", nvec), "values": vv}
        if ptr_len is not None:  # otherwise the library explains the shape error below
            self._views["block_row_ptr"] = _index_array(block_row_ptr, "block_row_ptr", ptr_len)
            _flat(vv, "values", nvec * vec_len, self.dtype)
        else:
            self._views["block_row_ptr"] = view(block_row_ptr, name="block_row_ptr")
        self.shape = (rows, cols)
        self.vec_len = vec_len
        self._nnz = nvec * vec_len
        self._create("spxCreateBcrs", rows, cols, vec_len, nvec,
                     *self._ptrs("block_row_ptr", "block_col", "values"), int(self.dtype))

    @property
    def num_vectors(self) -> int:
        return self._views["block_col"].size

    def with_values(self, values, dtype=None):
        return BcrsMatrix(self._views["block_row_ptr"], self._views["block_col"], values,
                          self.shape, self.vec_len, dtype=dtype)


class NMMatrix(SparseMatrix):
    """Vector-wise N:M: ``values`` rows x kc row-major and ``indices`` (rows/l) x kc row-major
    int32, kc = cols / m * n (positions 0..m-1 inside each window of m columns)."""

    format = Format.NM

    def __init__(self, values, indices, shape, n, m, l, *, dtype=None):
        super().__init__()
        rows, cols = (int(s) for s in shape)
        self.n, self.m, self.l = int(n), int(m), int(l)
        vv = view(values, name="values")
        vi = view(indices, name="indices")
        self.dtype = _value_type(vv, dtype)
        self._views = {"values": vv, "indices": vi}
        self.shape = (rows, cols)
        shape_ok = 1 <= self.n <= self.m and self.l >= 1 and cols % self.m == 0 and rows % self.l == 0
        self._count = rows * (cols // self.m * self.n) if shape_ok else 0
        if shape_ok:  # otherwise the library explains what is wrong with the parameters
            _flat(vv, "values", self._count, self.dtype)
            _index_array(vi, "indices", rows // self.l * (cols // self.m * self.n))
        self._create("spxCreateNM", rows, cols, self.n, self.m, self.l, ctypes.c_void_p(vv.ptr),
                     ctypes.c_void_p(vi.ptr), int(self.dtype))

    @property
    def indices(self):
        return self._views["indices"].obj

    def _values_count(self):
        return self._count

    def with_values(self, values, dtype=None):
        return NMMatrix(values, self._views["indices"], self.shape, self.n, self.m, self.l,
                        dtype=dtype)


class EllMatrix(SparseMatrix):
    """ELL (uniform sparsity): ``col_ind`` and ``values`` are rows x ell_width column-major (slot j
    of row i at i + j * rows): 1-D arrays of rows * ell_width, or 2-D (rows, ell_width) arrays in
    column-major (Fortran) order. Padded slots have col_ind -1."""

    format = Format.ELL

    def __init__(self, col_ind, values, shape, *, dtype=None):
        super().__init__()
        rows, cols = (int(s) for s in shape)
        vc = view(col_ind, name="col_ind")
        vv = view(values, name="values")
        self.dtype = _value_type(vv, dtype)
        if vc.ndim == 2:
            if vc.shape[0] != rows:
                raise InvalidValueError(f"col_ind has {vc.shape[0]} rows but the matrix {rows}")
            width = vc.shape[1]
        else:
            width = vc.size // rows if rows else 0
            if rows and vc.size != rows * width:
                raise InvalidValueError(f"col_ind has {vc.size} entries, not a multiple of rows ({rows})")
        self.ell_width = width
        self.shape = (rows, cols)
        self._views = {"col_ind": _index_array(vc, "col_ind", rows * width, fortran=vc.ndim == 2),
                       "values": vv}
        _flat(vv, "values", rows * width, self.dtype, fortran=vv.ndim == 2)
        self._create("spxCreateEll", rows, cols, width, ctypes.c_void_p(vc.ptr),
                     ctypes.c_void_p(vv.ptr), int(self.dtype))

    @property
    def col_ind(self):
        return self._views["col_ind"].obj

    def _values_count(self):
        return self.shape[0] * self.ell_width

    def _fortran_values(self, v):
        return v.ndim == 2

    def with_values(self, values, dtype=None):
        return EllMatrix(self._views["col_ind"], values, self.shape, dtype=dtype)
