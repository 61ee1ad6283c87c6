"""spx.Dense: a dense device matrix as libspx reads it (shape, element type, order, ld)."""
from __future__ import annotations

import ctypes

from ._arrays import ArrayView, as_datatype, storage_itemsize, view
from ._lib import call
from ._owned import COwner
from .enums import DataType, Order
from .errors import InvalidValueError


class Dense:
    """A 2-D device array seen as a libspx dense matrix, without a copy.

    The order and leading dimension come from the strides: unit stride along columns is
    row-major (ld = the row stride), unit stride along rows is column-major. So a row-major
    torch tensor ``X`` (batch x k) passed as ``X.t()`` is a column-major k x batch matrix, the
    ``Y^T = W X^T`` form of a linear layer. Pass ``dtype`` (and ``shape``) for 4-bit data
    stored two per byte in a uint8/int8 array; pass ``order`` when a dimension of 1 makes it
    ambiguous.
    """

    def __init__(self, array, *, dtype=None, shape=None, order=None, stream=None):
        if isinstance(array, Dense):
            array = array.array
        v = view(array, name="the dense operand", stream=stream)
        if v.ndim != 2:
            raise InvalidValueError(f"a dense operand must be 2-D, not {v.ndim}-D {v.shape}")
        dt = as_datatype(dtype) if dtype is not None else v.dtype
        if dt is None:
            raise InvalidValueError("the dense operand's element type has no libspx equivalent")
        if dtype is not None and storage_itemsize(dt) != v.itemsize:
            raise InvalidValueError(
                f"{dt.name} data must be stored in {storage_itemsize(dt)}-byte elements, not "
                f"{v.itemsize}-byte ones")
        self.view: ArrayView = v
        self.dtype: DataType = dt
        self.order, self.ld = self._layout(v, dt, order)
        if shape is None:
            shape = v.shape
            if dt.bits == 4:  # the contiguous dimension of the array counts bytes
                shape = (shape[0], shape[1] * 2) if self.order == Order.ROW else (shape[0] * 2, shape[1])
        self.shape = (int(shape[0]), int(shape[1]))

    @staticmethod
    def _layout(v: ArrayView, dt: DataType, order):
        rs, cs = v.strides
        item = v.itemsize
        per_byte = 2 if dt.bits == 4 else 1
        row_ok = cs == item or v.shape[1] <= 1
        col_ok = rs == item or v.shape[0] <= 1
        if order is not None:
            order = Order(order)
        elif row_ok:
            order = Order.ROW
        elif col_ok:
            order = Order.COL
        else:
            raise InvalidValueError(
                f"the dense operand (shape {v.shape}, byte strides {v.strides}) has no unit-stride "
                "dimension: libspx reads row- or column-major matrices (make it contiguous)")
        if order == Order.ROW and not row_ok or order == Order.COL and not col_ok:
            raise InvalidValueError(f"the dense operand is not {order.name.lower()}-major "
                                    f"(byte strides {v.strides})")
        lead = rs if order == Order.ROW else cs
        inner = v.shape[1] if order == Order.ROW else v.shape[0]
        if lead % item != 0 or lead < 0:
            raise InvalidValueError(f"the stride {lead} is not a multiple of the element size")
        ld = lead // item * per_byte
        # A single row (column) has no meaningful stride: use the smallest valid ld.
        outer = v.shape[0] if order == Order.ROW else v.shape[1]
        if outer <= 1:
            ld = max(inner * per_byte, 1)
        return order, ld

    @property
    def array(self):
        """The caller's array object."""
        return self.view.obj

    @property
    def ptr(self) -> int:
        return self.view.ptr

    def descriptor(self) -> "DnMatDescriptor":
        return DnMatDescriptor(self)

    def __repr__(self):
        return (f"spx.Dense({self.shape[0]}x{self.shape[1]}, {self.dtype.name}, "
                f"{self.order.name}, ld={self.ld}, {self.view.kind})")


class DnMatDescriptor(COwner):
    """spxDnMatDescr_t over a Dense, destroyed with this object (host-only: creating one needs no
    GPU). Keeps the Dense (hence the array) alive."""

    _c_pointer = "ptr"
    _c_destroy = "spxDestroyDnMat"

    def __init__(self, d: Dense):
        self.dense = d
        self.ptr = ctypes.c_void_p()
        call("spxCreateDnMat", ctypes.byref(self.ptr), d.shape[0], d.shape[1], d.ld,
             ctypes.c_void_p(d.ptr), int(d.dtype), int(d.order))



def as_dense(x, stream=None) -> Dense:
    return x if isinstance(x, Dense) else Dense(x, stream=stream)
