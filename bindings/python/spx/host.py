"""Host tools (``spx_host.h``) over NumPy arrays: DLMC reader, format conversion, pruning,
pattern checks, value conversion; plus NumPy densifiers of each sparse layout (to check results
and to build test matrices). Plain CPU code: no GPU needed.

Dense inputs are 2-D arrays, converted to float32 when they are not (a host copy); row- or
column-major layouts are passed as they are. Arrays the library allocates are copied into NumPy
arrays and freed.
"""
from __future__ import annotations

import ctypes
import os

import numpy as np

from ._lib import call, lib
from .enums import DataType, Order

_NP = {
    DataType.R_32F: np.float32, DataType.R_16F: np.float16, DataType.R_16BF: np.uint16,
    DataType.R_8I: np.int8, DataType.R_4I: np.uint8, DataType.R_16I: np.int16,
    DataType.R_32I: np.int32, DataType.R_8U: np.uint8, DataType.R_4U: np.uint8,
}


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


def _dense(dense):
    """(array, rows, cols, ld, order) for a 2-D host matrix, without reordering it."""
    a = np.asarray(dense)
    if a.ndim != 2:
        raise ValueError(f"a dense host matrix must be 2-D, not {a.ndim}-D")
    if a.dtype != np.float32:
        a = a.astype(np.float32)
    item = a.itemsize
    rows, cols = a.shape
    rs, cs = a.strides
    if (cs == item or cols <= 1) and rs >= 0 and rs % item == 0 and (rows <= 1 or rs // item >= cols):
        return a, rows, cols, max(rs // item if rows > 1 else cols, 1), Order.ROW
    if (rs == item or rows <= 1) and cs >= 0 and cs % item == 0 and (cols <= 1 or cs // item >= rows):
        return a, rows, cols, max(cs // item if cols > 1 else rows, 1), Order.COL
    a = np.ascontiguousarray(a)
    return a, rows, cols, max(cols, 1), Order.ROW


def _take(p, count: int, dtype) -> np.ndarray:
    """Copies `count` elements from a library-allocated array into NumPy and frees it."""
    try:
        if count == 0 or not p:
            return np.empty(0, dtype=dtype)
        return np.ctypeslib.as_array(p, shape=(count,)).astype(dtype, copy=True)
    finally:
        lib().spxHostFree(ctypes.cast(p, ctypes.c_void_p))


def _i32(a, what: str, count: int | None = None) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.int32)
    if count is not None and a.size != count:
        raise ValueError(f"{what} has {a.size} entries, not {count}")
    return a


def srbcrs_slot_ptr(block_row_ptr, vec_len: int = 1) -> np.ndarray:
    """The SR-BCRS values layout of a BCRS(V) / CSR structure (spxHostSrbcrsSlotPtr): the first
    vector slot of every vector-row (rows padded to strides of 32 slots) and, last, all slots."""
    ptr = _i32(block_row_ptr, "block_row_ptr")
    if ptr.size < 1:
        raise ValueError("block_row_ptr needs at least one entry")
    out = np.empty(ptr.size, dtype=np.int32)
    call("spxHostSrbcrsSlotPtr", ptr.size - 1, ptr.ctypes.data_as(ctypes.c_void_p), int(vec_len),
         out.ctypes.data_as(ctypes.c_void_p))
    return out


def size_of(dtype, count: int) -> int:
    """Bytes that `count` elements of `dtype` occupy (4-bit types: rounded up)."""
    return int(lib().spxHostSizeOf(int(dtype), int(count)))


def read_smtx(path):
    """Reads a DLMC .smtx file: returns ((rows, cols), row_ptr, col_ind) (int32)."""
    rows, cols, nnz = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
    rp, ci = ctypes.POINTER(ctypes.c_int32)(), ctypes.POINTER(ctypes.c_int32)()
    call("spxHostReadSmtx", os.fsencode(path), ctypes.byref(rows), ctypes.byref(cols),
         ctypes.byref(nnz), ctypes.byref(rp), ctypes.byref(ci))
    return ((rows.value, cols.value), _take(rp, rows.value + 1, np.int32),
            _take(ci, nnz.value, np.int32))


def dilate_csr(row_ptr, col_ind, cols: int, vec_len: int):
    """CSR structure -> the structure of its dilation to vec_len x 1 vectors (rows * vec_len)."""
    row_ptr, col_ind = _i32(row_ptr, "row_ptr"), _i32(col_ind, "col_ind")
    rows = row_ptr.size - 1
    orp, oci = ctypes.POINTER(ctypes.c_int32)(), ctypes.POINTER(ctypes.c_int32)()
    call("spxHostDilateCsr", rows, cols, _ptr(row_ptr), _ptr(col_ind), vec_len, ctypes.byref(orp),
         ctypes.byref(oci))
    return _take(orp, rows * vec_len + 1, np.int32), _take(oci, col_ind.size * vec_len, np.int32)


def dense_to_csr(dense):
    """Dense -> CSR keeping every nonzero: (row_ptr, col_ind, values)."""
    a, rows, cols, ld, order = _dense(dense)
    nnz = ctypes.c_int64()
    rp, ci = ctypes.POINTER(ctypes.c_int32)(), ctypes.POINTER(ctypes.c_int32)()
    va = ctypes.POINTER(ctypes.c_float)()
    call("spxHostDenseToCsr", rows, cols, _ptr(a), ld, int(order), ctypes.byref(nnz),
         ctypes.byref(rp), ctypes.byref(ci), ctypes.byref(va))
    return (_take(rp, rows + 1, np.int32), _take(ci, nnz.value, np.int32),
            _take(va, nnz.value, np.float32))


def dense_to_bcrs(dense, vec_len: int):
    """Dense -> BCRS(V): (block_row_ptr, block_col, values (num_vectors x vec_len))."""
    a, rows, cols, ld, order = _dense(dense)
    nv = ctypes.c_int64()
    rp, bc = ctypes.POINTER(ctypes.c_int32)(), ctypes.POINTER(ctypes.c_int32)()
    va = ctypes.POINTER(ctypes.c_float)()
    call("spxHostDenseToBcrs", rows, cols, _ptr(a), ld, int(order), vec_len, ctypes.byref(nv),
         ctypes.byref(rp), ctypes.byref(bc), ctypes.byref(va))
    n = nv.value
    return (_take(rp, rows // vec_len + 1, np.int32), _take(bc, n, np.int32),
            _take(va, n * vec_len, np.float32).reshape(n, vec_len))


def prune_nm(dense, n: int, m: int, l: int):
    """Vector-wise N:M magnitude pruning: (values rows x kc, indices rows/l x kc), the
    spxCreateNM layout."""
    a, rows, cols, ld, order = _dense(dense)
    ok = 1 <= n <= m and l >= 1 and cols % m == 0 and rows % l == 0
    kc = cols // m * n if ok else 0
    values = np.empty((rows, kc), np.float32)
    indices = np.empty((rows // l if ok else 0, kc), np.int32)
    # Invalid parameters: the library reports them (its checks come before any write).
    call("spxHostPruneNM", rows, cols, _ptr(a), ld, int(order), n, m, l,
         _ptr(values) if values.size else None, _ptr(indices) if indices.size else None)
    return values, indices


def prune_uniform(dense, ell_width: int):
    """Uniform pruning (ell_width nonzeros per row): (col_ind, values), each rows x ell_width in
    column-major (Fortran) order, the spxCreateEll layout."""
    a, rows, cols, ld, order = _dense(dense)
    w = ell_width if 1 <= ell_width <= cols else 0
    col_ind = np.empty((rows, w), np.int32, order="F")
    values = np.empty((rows, w), np.float32, order="F")
    call("spxHostPruneUniform", rows, cols, _ptr(a), ld, int(order), ell_width,
         _ptr(col_ind) if col_ind.size else None, _ptr(values) if values.size else None)
    return col_ind, values


def csr_to_ell(row_ptr, col_ind, values, cols: int):
    """CSR -> ELL (width = the longest row, padding col -1 / value 0): (col_ind, values), each
    rows x width in column-major order."""
    row_ptr, col_ind = _i32(row_ptr, "row_ptr"), _i32(col_ind, "col_ind")
    values = np.ascontiguousarray(values, dtype=np.float32)
    rows = row_ptr.size - 1
    width = ctypes.c_int64()
    ci, va = ctypes.POINTER(ctypes.c_int32)(), ctypes.POINTER(ctypes.c_float)()
    call("spxHostCsrToEll", rows, cols, _ptr(row_ptr), _ptr(col_ind), _ptr(values),
         ctypes.byref(width), ctypes.byref(ci), ctypes.byref(va))
    w = width.value
    return (_take(ci, rows * w, np.int32).reshape(rows, w, order="F"),
            _take(va, rows * w, np.float32).reshape(rows, w, order="F"))


def check_nm(dense, n: int, m: int, l: int) -> bool:
    """True when the nonzeros fit vector-wise N:M."""
    a, rows, cols, ld, order = _dense(dense)
    ok = ctypes.c_int()
    call("spxHostCheckNM", rows, cols, _ptr(a), ld, int(order), n, m, l, ctypes.byref(ok))
    return bool(ok.value)


def check_uniform(dense, ell_width: int) -> bool:
    """True when no row has more than ell_width nonzeros."""
    a, rows, cols, ld, order = _dense(dense)
    ok = ctypes.c_int()
    call("spxHostCheckUniform", rows, cols, _ptr(a), ld, int(order), ell_width, ctypes.byref(ok))
    return bool(ok.value)


def convert_values(values, dtype) -> np.ndarray:
    """fp32 values -> `dtype` (round to nearest even for 16F/16BF; round and saturate for
    integers). 4-bit types come back packed two per byte (uint8, ceil(count / 2) bytes), 16BF as
    its uint16 bit patterns."""
    dtype = DataType(dtype)
    src = np.ascontiguousarray(values, dtype=np.float32).ravel()
    out = np.empty(size_of(dtype, src.size) // np.dtype(_NP[dtype]).itemsize, _NP[dtype])
    call("spxHostConvertValues", src.size, _ptr(src), int(dtype), _ptr(out) if out.size else None)
    return out


# ------------------------------------------------------------------ densifiers (pure NumPy)


def csr_to_dense(row_ptr, col_ind, values, shape) -> np.ndarray:
    out = np.zeros(shape, dtype=np.asarray(values).dtype)
    row_ptr = np.asarray(row_ptr)
    rows = np.repeat(np.arange(shape[0]), np.diff(row_ptr))
    out[rows, np.asarray(col_ind)] = values
    return out


def bcrs_to_dense(block_row_ptr, block_col, values, shape, vec_len: int) -> np.ndarray:
    values = np.asarray(values).reshape(-1, vec_len)
    out = np.zeros(shape, dtype=values.dtype)
    brows = np.repeat(np.arange(shape[0] // vec_len), np.diff(np.asarray(block_row_ptr)))
    for r in range(vec_len):
        out[brows * vec_len + r, np.asarray(block_col)] = values[:, r]
    return out


def nm_to_dense(values, indices, shape, n: int, m: int, l: int) -> np.ndarray:
    values, indices = np.asarray(values), np.asarray(indices)
    rows, cols = shape
    kc = cols // m * n
    values = values.reshape(rows, kc)
    cols_of = (np.arange(kc) // n * m)[None, :] + indices.reshape(rows // l, kc)  # per group
    out = np.zeros(shape, dtype=values.dtype)
    out[np.arange(rows)[:, None], np.repeat(cols_of, l, axis=0)] = values
    return out


def ell_to_dense(col_ind, values, shape) -> np.ndarray:
    rows, cols = shape
    col_ind = np.asarray(col_ind).reshape(-1, order="F") if np.ndim(col_ind) == 2 else np.asarray(col_ind)
    values = np.asarray(values).reshape(-1, order="F") if np.ndim(values) == 2 else np.asarray(values)
    width = col_ind.size // rows if rows else 0
    c = col_ind.reshape(width, rows).T
    v = values.reshape(width, rows).T
    out = np.zeros(shape, dtype=v.dtype)
    keep = c >= 0
    out[np.nonzero(keep)[0], c[keep]] = v[keep]
    return out
