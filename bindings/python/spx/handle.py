"""spx.Handle: a libspx context (device, stream, pointer mode)."""
from __future__ import annotations

import ctypes
import threading

from . import _arrays, _backend
from ._lib import call
from ._owned import COwner
from .enums import PointerMode


def stream_pointer(stream) -> int:
    """cudaStream_t value of a stream given as an int, a torch.cuda.Stream, a CuPy stream or any
    object with the ``__cuda_stream__`` protocol."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    if hasattr(stream, "__cuda_stream__"):
        return int(stream.__cuda_stream__()[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise TypeError(f"{type(stream).__name__} is not a CUDA stream (pass an int, a "
                    "torch.cuda.Stream or a CuPy stream)")


class Handle(COwner):
    """A libspx handle on the current CUDA device.

    ``Handle()`` follows the caller's stream: before each operation it takes the current stream
    of the operands' library (``torch.cuda.current_stream()`` for tensors,
    ``cupy.cuda.get_current_stream()`` for CuPy arrays), so work is ordered with the caller's
    own kernels. ``Handle(stream=s)`` pins it to stream ``s`` (an int, a torch or CuPy stream);
    ``handle.stream = None`` goes back to following. One thread at a time may use a handle.
    """

    _c_destroy = "spxDestroy"

    def __init__(self, stream=None):
        self._ptr = ctypes.c_void_p()
        call("spxCreate", ctypes.byref(self._ptr))
        self._fixed = stream is not None
        self._current = 0
        if self._fixed:
            self._set(stream_pointer(stream))

    @property
    def ptr(self) -> ctypes.c_void_p:
        if not self._ptr:
            raise ValueError("the handle was closed")
        return self._ptr

    # -- stream
    def _set(self, s: int) -> None:
        call("spxSetStream", self.ptr, ctypes.c_void_p(s))
        self._current = s

    @property
    def stream(self) -> int:
        """The cudaStream_t the next operation runs on (0 = the default stream)."""
        out = ctypes.c_void_p()
        call("spxGetStream", self.ptr, ctypes.byref(out))
        return out.value or 0

    @stream.setter
    def stream(self, stream) -> None:
        self._fixed = stream is not None
        self._set(stream_pointer(stream))

    @property
    def follows_current_stream(self) -> bool:
        return not self._fixed

    def prepare(self, backend, device) -> None:
        """Called before each operation: adopt the caller's current stream unless pinned."""
        if self._fixed or backend is None:
            return
        s = backend.current_stream(device)
        if s != self._current:
            self._set(s)

    # -- pointer mode
    @property
    def pointer_mode(self) -> PointerMode:
        out = ctypes.c_int()
        call("spxGetPointerMode", self.ptr, ctypes.byref(out))
        return PointerMode(out.value)

    @pointer_mode.setter
    def pointer_mode(self, mode: PointerMode) -> None:
        call("spxSetPointerMode", self.ptr, int(mode))


_local = threading.local()


def default_handle(backend=None, device=None) -> Handle:
    """This thread's handle for `device` (created on first use, following the current stream)."""
    handles = getattr(_local, "handles", None)
    if handles is None:
        handles = _local.handles = {}
    if backend is None and (_arrays.torch_module() is not None or _arrays.cupy_module() is not None):
        backend = _backend.any_backend()  # the caller's library knows the current device
    if device is None and backend is not None:
        device = backend.current_device()
    h = handles.get(device)
    if h is None:
        # spxCreate binds the handle to the current device: make `device` current for it.
        ctx = backend.on_device(device) if backend is not None else None
        if ctx is None:
            h = Handle()
        else:
            with ctx:
                h = Handle()
        handles[device] = h
    return h


def resolve(handle, views) -> Handle:
    """The handle for an operation on `views`, with its stream prepared."""
    first = next((v for v in views if v is not None), None)
    backend = _backend.for_view(first) if first is not None else None
    device = first.device if first is not None else None
    h = handle if handle is not None else default_handle(backend, device)
    h.prepare(backend, device)
    return h
