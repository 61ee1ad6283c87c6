"""Zero-copy views of device arrays: PyTorch tensors, anything with
``__cuda_array_interface__`` (CuPy, Numba, ...) or with ``__dlpack__`` on a CUDA device.

A view records the device pointer, shape, byte strides and element type, and keeps the
original object (and, for DLPack, the capsule that owns the export) alive. Nothing is copied:
an array that libspx cannot read in place (a host array, a non-strided layout) is an error.
"""
from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass, field
from typing import Any

from .enums import DataType
from .errors import InvalidValueError

# ------------------------------------------------------------------ element types

_TYPESTR = {  # __cuda_array_interface__ typestr (without the byte-order character)
    "f4": DataType.R_32F, "f2": DataType.R_16F, "i1": DataType.R_8I, "i2": DataType.R_16I,
    "i4": DataType.R_32I, "u1": DataType.R_8U,
}
_DLPACK = {  # (DLDataTypeCode, bits) -> DataType
    (2, 32): DataType.R_32F, (2, 16): DataType.R_16F, (4, 16): DataType.R_16BF,
    (0, 8): DataType.R_8I, (0, 16): DataType.R_16I, (0, 32): DataType.R_32I, (1, 8): DataType.R_8U,
}
_TORCH_NAMES = {
    "float32": DataType.R_32F, "float16": DataType.R_16F, "bfloat16": DataType.R_16BF,
    "int8": DataType.R_8I, "int16": DataType.R_16I, "int32": DataType.R_32I, "uint8": DataType.R_8U,
}
_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13


def storage_itemsize(dtype: DataType) -> int:
    """Bytes of one stored array element: 4-bit types live in byte arrays (two per byte)."""
    return max(dtype.bits // 8, 1)


def torch_module():
    return sys.modules.get("torch")


def cupy_module():
    return sys.modules.get("cupy")


def is_torch(obj) -> bool:
    torch = torch_module()
    return torch is not None and isinstance(obj, torch.Tensor)


def is_cupy(obj) -> bool:
    cupy = cupy_module()
    return cupy is not None and isinstance(obj, cupy.ndarray)


def as_datatype(x) -> DataType:
    """DataType from a DataType / int, a torch dtype, or a NumPy/CuPy dtype or its name."""
    if isinstance(x, DataType):
        return x
    if isinstance(x, int):
        return DataType(x)
    torch = torch_module()
    if torch is not None and isinstance(x, torch.dtype):
        name = str(x).replace("torch.", "")
        if name in _TORCH_NAMES:
            return _TORCH_NAMES[name]
        raise InvalidValueError(f"torch dtype {x} has no libspx element type")
    name = getattr(x, "name", None) or getattr(x, "__name__", None) or str(x)
    if name in _TORCH_NAMES:
        return _TORCH_NAMES[name]
    raise InvalidValueError(f"{x!r} has no libspx element type (use a spx.DataType)")


# ------------------------------------------------------------------ DLPack (legacy capsule)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64),
    ]


_capsule_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_get_pointer.restype = ctypes.c_void_p
_capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


# ------------------------------------------------------------------ the view


@dataclass
class ArrayView:
    """A device array as libspx sees it. Strides are in bytes (4-bit data lives in byte arrays)."""

    ptr: int
    shape: tuple
    strides: tuple  # bytes
    dtype: DataType | None  # None: an element type libspx has no name for
    itemsize: int
    device: int | None
    kind: str  # "torch", "cupy", "cai" or "dlpack"
    obj: Any = field(repr=False)
    keepalive: Any = field(default=None, repr=False)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def is_contiguous(self) -> bool:
        """C-contiguous (row-major, no gaps)."""
        expect = self.itemsize
        for dim, stride in zip(reversed(self.shape), reversed(self.strides)):
            if dim != 1 and stride != expect:
                return False
            expect *= dim
        return True

    def is_f_contiguous(self) -> bool:
        expect = self.itemsize
        for dim, stride in zip(self.shape, self.strides):
            if dim != 1 and stride != expect:
                return False
            expect *= dim
        return True


def _c_strides(shape, itemsize):
    strides, acc = [], itemsize
    for dim in reversed(shape):
        strides.append(acc)
        acc *= max(dim, 1)
    return tuple(reversed(strides))


def _from_torch(t) -> ArrayView:
    if not t.is_cuda:
        raise InvalidValueError(
            f"a torch tensor on {t.device} was given where a CUDA tensor is needed (no copies are "
            "made: move it with .cuda() first)")
    name = str(t.dtype).replace("torch.", "")
    itemsize = t.element_size()
    return ArrayView(ptr=t.data_ptr(), shape=tuple(t.shape),
                     strides=tuple(s * itemsize for s in t.stride()),
                     dtype=_TORCH_NAMES.get(name), itemsize=itemsize, device=t.device.index,
                     kind="torch", obj=t)


def _from_cai(obj, cai: dict) -> ArrayView:
    if cai.get("mask") is not None:
        raise InvalidValueError("masked arrays (__cuda_array_interface__ mask) are not supported")
    typestr = cai["typestr"]
    itemsize = int(typestr[2:])
    shape = tuple(int(s) for s in cai["shape"])
    strides = cai.get("strides")
    strides = _c_strides(shape, itemsize) if strides is None else tuple(int(s) for s in strides)
    ptr = int(cai["data"][0] or 0)
    kind = "cupy" if is_cupy(obj) else "cai"
    device = obj.device.id if kind == "cupy" else None
    return ArrayView(ptr=ptr, shape=shape, strides=strides, dtype=_TYPESTR.get(typestr[1:]),
                     itemsize=itemsize, device=device, kind=kind, obj=obj)


def _from_dlpack(obj, stream: int | None, name: str) -> ArrayView:
    dev_type, dev_id = obj.__dlpack_device__()
    if int(dev_type) not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        raise InvalidValueError(
            f"{name} ({type(obj).__name__}) is not a CUDA device array: its DLPack device type is "
            f"{int(dev_type)} (host arrays go to spx.host; no copies are made)")
    # The DLPack stream argument: the producer makes its work visible on this stream. The legacy
    # default stream is 1 in the protocol (0 is disallowed as ambiguous).
    capsule = obj.__dlpack__(stream=1 if not stream else stream)
    managed = _capsule_get_pointer(capsule, b"dltensor")
    # DLManagedTensor starts with its DLTensor.
    t = _DLTensor.from_address(managed)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    itemsize = (t.dtype.bits * t.dtype.lanes + 7) // 8
    if t.strides:
        strides = tuple(t.strides[i] * itemsize for i in range(t.ndim))
    else:
        strides = _c_strides(shape, itemsize)
    dtype = _DLPACK.get((t.dtype.code, t.dtype.bits)) if t.dtype.lanes == 1 else None
    # The capsule stays alive with the view: its destructor releases the export.
    return ArrayView(ptr=(t.data or 0) + t.byte_offset, shape=shape, strides=strides, dtype=dtype,
                     itemsize=itemsize, device=int(dev_id), kind="dlpack", obj=obj,
                     keepalive=capsule)


def view(obj, *, name: str = "array", stream: int | None = None) -> ArrayView:
    """A zero-copy view of a device array. `name` appears in error messages."""
    if isinstance(obj, ArrayView):
        return obj
    if is_torch(obj):
        return _from_torch(obj)
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        return _from_cai(obj, cai)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _from_dlpack(obj, stream, name)
    raise InvalidValueError(
        f"{name} ({type(obj).__name__}) is not a CUDA device array: pass a torch tensor, a CuPy "
        "array or any object with __cuda_array_interface__ or __dlpack__ (host arrays go to "
        "spx.host)")
