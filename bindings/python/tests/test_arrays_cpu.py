"""Array views, dense layouts and sparse descriptors over stand-in device arrays (no GPU)."""
import numpy as np
import pytest

import spx
from spx import _arrays
from fakes import FakeDeviceArray, f32, i8, i32


def test_cuda_array_interface_view_is_zero_copy():
    a = f32(3, 5)
    v = _arrays.view(a)
    assert (v.ptr, v.shape, v.strides, v.dtype, v.kind) == (a.ptr, (3, 5), (20, 4), spx.DataType.R_32F, "cai")
    assert v.is_contiguous() and not v.is_f_contiguous()


def test_dlpack_capsule_parsing_on_a_host_export():
    # The parser is the one device arrays go through; NumPy's CPU export exercises it here.
    a = np.arange(12, dtype=np.float32).reshape(3, 4)[:, 1:3]
    capsule = a.__dlpack__()
    t = _arrays._DLTensor.from_address(_arrays._capsule_get_pointer(capsule, b"dltensor"))
    assert t.data + t.byte_offset == a.ctypes.data
    assert [t.shape[i] for i in range(t.ndim)] == [3, 2]
    assert [t.strides[i] for i in range(t.ndim)] == [4, 1]
    assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (2, 32, 1)


def test_dense_layouts_from_strides():
    row = spx.Dense(f32(4, 6))
    assert (row.shape, row.order, row.ld) == ((4, 6), spx.Order.ROW, 6)
    # X (batch x k) row-major seen as X^T (k x batch): column-major with ld = k.
    xt = spx.Dense(FakeDeviceArray((6, 4), "<f4", strides=(4, 24)))
    assert (xt.shape, xt.order, xt.ld) == ((6, 4), spx.Order.COL, 6)
    padded = spx.Dense(FakeDeviceArray((4, 6), "<f4", strides=(32, 4)))
    assert (padded.order, padded.ld) == (spx.Order.ROW, 8)
    one_col = spx.Dense(FakeDeviceArray((6, 1), "<f4", strides=(4, 24)))
    assert one_col.ld >= 1 and one_col.shape == (6, 1)
    with pytest.raises(spx.InvalidValueError, match="no unit-stride"):
        spx.Dense(FakeDeviceArray((4, 6), "<f4", strides=(48, 8)))
    with pytest.raises(spx.InvalidValueError, match="must be 2-D"):
        spx.Dense(f32(4))


def test_dense_four_bit_counts_two_per_byte():
    d = spx.Dense(FakeDeviceArray((4, 3), "|u1"), dtype=spx.DataType.R_4I)
    assert (d.shape, d.order, d.ld, d.dtype) == ((4, 6), spx.Order.ROW, 6, spx.DataType.R_4I)
    with pytest.raises(spx.InvalidValueError, match="1-byte elements"):
        spx.Dense(f32(4, 3), dtype=spx.DataType.R_8I)


def test_dense_descriptor_round_trip():
    import ctypes

    from spx._lib import call

    arr = FakeDeviceArray((6, 4), "<f4", strides=(4, 24))
    with spx.Dense(arr).descriptor() as d:
        rows, cols, ld = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
        ptr, typ, order = ctypes.c_void_p(), ctypes.c_int(), ctypes.c_int()
        call("spxDnMatGet", d.ptr, ctypes.byref(rows), ctypes.byref(cols), ctypes.byref(ld),
             ctypes.byref(ptr), ctypes.byref(typ), ctypes.byref(order))
        assert (rows.value, cols.value, ld.value, ptr.value, typ.value, order.value) == (
            6, 4, 6, arr.ptr, spx.DataType.R_32F, spx.Order.COL)


def test_sparse_descriptors_over_stand_in_arrays():
    nm = spx.NMMatrix(f32(64, 16), i32(2, 16), (64, 32), n=2, m=4, l=32)
    assert (nm.format, nm.dtype, nm.nnz, nm.shape) == (spx.Format.NM, spx.DataType.R_32F, 64 * 16, (64, 32))
    ell = spx.EllMatrix(FakeDeviceArray((5, 3), "<i4", strides=(4, 20)),
                        FakeDeviceArray((5, 3), "<f4", strides=(4, 20)), (5, 9))
    assert (ell.ell_width, ell.nnz, ell.format) == (3, 15, spx.Format.ELL)
    with pytest.raises(spx.InvalidValueError, match="column-major"):
        spx.EllMatrix(i32(5, 3), f32(5, 3), (5, 9))  # C order is not the ELL layout
    csr = spx.CsrMatrix(i32(5), i32(7), f32(7), (4, 9))
    assert (csr.nnz, csr.format) == (7, spx.Format.CSR)
    bcrs = spx.BcrsMatrix(i32(3), i32(5), i8(5, 4), (8, 10), vec_len=4)
    assert (bcrs.num_vectors, bcrs.nnz, bcrs.dtype, bcrs.format) == (5, 20, spx.DataType.R_8I, spx.Format.BCRS)
    int4 = spx.BcrsMatrix(i32(3), i32(5), FakeDeviceArray((10,), "|u1"), (8, 10), vec_len=4,
                          dtype=spx.DataType.R_4I)
    assert int4.dtype == spx.DataType.R_4I and int4.nnz == 20


def test_values_swap_and_shared_structure():
    vals = f32(7)
    csr = spx.CsrMatrix(i32(5), i32(7), vals, (4, 9))
    assert csr.values is vals
    new = f32(7)
    csr.set_values(new)
    assert csr.values is new
    with pytest.raises(spx.InvalidValueError, match="holds 16 bytes"):
        csr.set_values(f32(4))
    half = csr.with_values(FakeDeviceArray((7,), "<f2"))
    assert half.dtype == spx.DataType.R_16F and half.arrays["col_ind"] is csr.arrays["col_ind"]
    with pytest.raises(spx.InvalidValueError, match="are R_16F but the matrix holds R_32F"):
        csr.set_values(FakeDeviceArray((7,), "<f2"))


def test_closed_objects_say_so():
    csr = spx.CsrMatrix(i32(5), i32(7), f32(7), (4, 9))
    csr.close()
    with pytest.raises(ValueError, match="closed"):
        csr.nnz
