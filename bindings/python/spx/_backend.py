"""The array library behind the caller's arrays: allocates results of the caller's type and
reports its current CUDA stream and device. PyTorch and CuPy are supported; neither is imported
unless the caller already uses it (or an array of another kind needs somewhere to allocate).
"""
from __future__ import annotations

import contextlib

from ._arrays import ArrayView, cupy_module, storage_itemsize, torch_module
from .enums import DataType, Order
from .errors import InvalidValueError

_TORCH_DTYPES = {
    DataType.R_32F: "float32", DataType.R_16F: "float16", DataType.R_16BF: "bfloat16",
    DataType.R_8I: "int8", DataType.R_16I: "int16", DataType.R_32I: "int32",
    DataType.R_8U: "uint8", DataType.R_4I: "uint8", DataType.R_4U: "uint8",
}
_NUMPY_DTYPES = {
    DataType.R_32F: "float32", DataType.R_16F: "float16", DataType.R_8I: "int8",
    DataType.R_16I: "int16", DataType.R_32I: "int32", DataType.R_8U: "uint8",
    DataType.R_4I: "uint8", DataType.R_4U: "uint8",
}


def _storage_shape(shape, dtype: DataType, order: Order):
    """Array shape that holds a rows x cols matrix of `dtype` in `order` (4-bit: the contiguous
    dimension counts bytes)."""
    if dtype.bits != 4:
        return tuple(shape)
    rows, cols = shape
    return (rows, (cols + 1) // 2) if order == Order.ROW else ((rows + 1) // 2, cols)


class TorchBackend:
    name = "torch"

    def __init__(self):
        self.torch = torch_module()
        if self.torch is None:
            import torch  # noqa: F401  (only reached when no other backend is available)
            self.torch = torch

    def empty(self, shape, dtype: DataType, device, order: Order = Order.ROW):
        torch = self.torch
        tdtype = getattr(torch, _TORCH_DTYPES[dtype])
        dev = torch.device("cuda", device if device is not None else torch.cuda.current_device())
        shape = _storage_shape(shape, dtype, order) if len(shape) == 2 else tuple(shape)
        if order == Order.COL and len(shape) == 2:
            return torch.empty((shape[1], shape[0]), dtype=tdtype, device=dev).t()
        return torch.empty(shape, dtype=tdtype, device=dev)

    def current_stream(self, device) -> int:
        torch = self.torch
        return int(torch.cuda.current_stream(device).cuda_stream)

    def current_device(self) -> int:
        return int(self.torch.cuda.current_device())

    def on_device(self, device):
        if device is None:
            return contextlib.nullcontext()
        return self.torch.cuda.device(device)


class CupyBackend:
    name = "cupy"

    def __init__(self):
        self.cupy = cupy_module()
        if self.cupy is None:
            import cupy  # noqa: F401
            self.cupy = cupy

    def empty(self, shape, dtype: DataType, device, order: Order = Order.ROW):
        if dtype not in _NUMPY_DTYPES:
            raise InvalidValueError(f"CuPy has no array type for {dtype.name}")
        shape = _storage_shape(shape, dtype, order) if len(shape) == 2 else tuple(shape)
        with self.on_device(device):
            return self.cupy.empty(shape, dtype=_NUMPY_DTYPES[dtype],
                                   order="F" if order == Order.COL else "C")

    def current_stream(self, device) -> int:
        with self.on_device(device):
            return int(self.cupy.cuda.get_current_stream().ptr)

    def current_device(self) -> int:
        return int(self.cupy.cuda.runtime.getDevice())

    def on_device(self, device):
        if device is None:
            return contextlib.nullcontext()
        return self.cupy.cuda.Device(device)


_instances: dict = {}


def _get(cls):
    if cls not in _instances:
        _instances[cls] = cls()
    return _instances[cls]


def for_view(v: ArrayView):
    """The backend that allocates results for an operand: its own library for torch / CuPy
    arrays; for other kinds CuPy if it is importable, else PyTorch."""
    if v.kind == "torch":
        return _get(TorchBackend)
    if v.kind == "cupy":
        return _get(CupyBackend)
    return any_backend()


def any_backend():
    if torch_module() is not None:
        return _get(TorchBackend)
    if cupy_module() is not None:
        return _get(CupyBackend)
    for cls in (CupyBackend, TorchBackend):
        try:
            return _get(cls)
        except ImportError:
            continue
    raise InvalidValueError("allocating a result needs PyTorch or CuPy; pass out= instead")


def nbytes(dtype: DataType, count: int) -> int:
    return (count * dtype.bits + 7) // 8 if dtype.bits == 4 else count * storage_itemsize(dtype)
