"""Plans: analyze once (spxSpMM_analyze / spxSDDMM_analyze), execute many times.

A plan keeps what it references alive: the sparse matrix (and through it the caller's arrays),
its handle when one was given, and its device workspace. ``close()`` (or leaving a ``with``
block) frees it; spxPlanDestroy waits for the device first, so queued work is never cut off.
"""
from __future__ import annotations

import contextlib
import ctypes
import operator
import struct
from dataclasses import dataclass

from . import _backend
from ._arrays import ArrayView, as_datatype, view
from ._lib import PlanInfoStruct, call
from ._owned import COwner
from .dense import Dense, as_dense
from .enums import DataType, Order, PointerMode, SpMMAlg
from .errors import InvalidValueError
from .handle import resolve
from .options import PlanOptions, resolve_options
from .sparse import SparseMatrix


@dataclass(frozen=True)
class PlanInfo:
    """What a plan chose and holds (spxPlanInfo_t)."""

    family: SpMMAlg
    kernel: str
    config: str
    workspace_bytes: int
    metadata_bytes: int
    values_bytes: int
    analyze_ms: float
    nnz: int
    padded_nnz: int
    columns_skipped: int
    reorder_retries: int
    split_k: int
    packing: bool
    candidates: int
    searched: bool
    predicted_speedup: float
    #: 0: the sparse family runs; 1: the dense route (cuBLAS on the plan's dense copy of A).
    route: int = 0
    #: estimated (measured with autotune) microseconds per execute of each route; 0 = none.
    sparse_estimate_us: float = 0.0
    dense_estimate_us: float = 0.0
    #: device bytes of the plan's dense copy of A (0 unless some prepared size takes route 1).
    dense_bytes: int = 0
    #: the largest n an execute takes: the analyzed n, the bound given, or -1 for any n.
    max_n: int = 0
    #: per-n decisions prepared; all share one copy of A, so metadata_bytes + values_bytes
    #: (values_bytes counts dense_bytes) is all the device memory the plan holds, whatever n runs.
    prepared_sizes: int = 1

    @property
    def bytes_held(self) -> int:
        """Device bytes the plan holds (its copy of A, metadata, dense copy), workspace aside."""
        return self.metadata_bytes + self.values_bytes  # values_bytes counts the dense copy

    @classmethod
    def from_struct(cls, s: PlanInfoStruct) -> "PlanInfo":
        try:
            family = SpMMAlg(s.family)
        except ValueError:  # a family added by a newer library
            family = s.family
        return cls(family=family, kernel=s.kernel.decode(), config=s.config.decode(),
                   workspace_bytes=s.workspace_bytes, metadata_bytes=s.metadata_bytes,
                   values_bytes=s.values_bytes, analyze_ms=s.analyze_ms, nnz=s.nnz,
                   padded_nnz=s.padded_nnz, columns_skipped=s.columns_skipped,
                   reorder_retries=s.reorder_retries, split_k=s.split_k, packing=bool(s.packing),
                   candidates=s.candidates, searched=bool(s.searched),
                   predicted_speedup=s.predicted_speedup, route=s.route,
                   sparse_estimate_us=s.sparse_estimate_us,
                   dense_estimate_us=s.dense_estimate_us, dense_bytes=s.dense_bytes,
                   max_n=s.max_n, prepared_sizes=s.prepared_sizes)


def _address(x, name: str):
    """An int device address as it is, anything else as a zero-copy ArrayView."""
    if isinstance(x, int) and not isinstance(x, bool):
        return x
    return view(x, name=name)


def _ptr_value(x) -> ctypes.c_void_p:
    return ctypes.c_void_p(x.ptr if isinstance(x, ArrayView) else x)


def _is_device_scalar(x) -> bool:
    return not isinstance(x, (int, float)) and (
        hasattr(x, "__cuda_array_interface__") or hasattr(x, "data_ptr") or hasattr(x, "__dlpack__"))


@contextlib.contextmanager
def _scalars(h, alpha, beta, integer: bool):
    """Pointers to alpha and beta: host values (float, or int32 when the output is 32I), or
    one-element device arrays of that type, for which the handle switches to device pointer
    mode for the call."""
    on_device = _is_device_scalar(alpha), _is_device_scalar(beta)
    if on_device[0] != on_device[1]:
        raise InvalidValueError("alpha and beta must both be host numbers or both device arrays")
    if not on_device[0]:
        if integer:
            for x, n in ((alpha, "alpha"), (beta, "beta")):
                if float(x) != int(x):
                    raise InvalidValueError(f"{n} ({x}) must be an integer when C is 32I")
            a, b = ctypes.c_int32(int(alpha)), ctypes.c_int32(int(beta))
        else:
            a, b = ctypes.c_float(alpha), ctypes.c_float(beta)
        yield ctypes.cast(ctypes.pointer(a), ctypes.c_void_p), ctypes.cast(ctypes.pointer(b), ctypes.c_void_p)
        return
    want = DataType.R_32I if integer else DataType.R_32F
    views = [view(x, name=n) for x, n in ((alpha, "alpha"), (beta, "beta"))]
    for v, n in zip(views, ("alpha", "beta")):
        if v.dtype != want or v.size != 1:
            raise InvalidValueError(f"a device {n} must be one {want.name} element")
    h.pointer_mode = PointerMode.DEVICE
    try:
        yield ctypes.c_void_p(views[0].ptr), ctypes.c_void_p(views[1].ptr)
    finally:
        h.pointer_mode = PointerMode.HOST


class Plan(COwner):
    """Base of SpMMPlan and SDDMMPlan. Build them with :meth:`Plan.spmm` / :meth:`Plan.sddmm`."""

    _c_destroy = "spxPlanDestroy"

    def __init__(self, handle):
        self._ptr = ctypes.c_void_p()
        self._handle = handle  # the caller's handle, or None: this thread's default handle
        self._workspace = None

    # -- constructors
    @staticmethod
    def spmm(A: SparseMatrix, B, out=None, *, handle=None, out_dtype=None, out_order=None,
             compute_type=None, alg=SpMMAlg.DEFAULT, options: PlanOptions | None = None,
             autotune: bool | None = None, max_n: int | None = None) -> "SpMMPlan":
        """Analyzes C = alpha * A @ B + beta * C for B's shape, type and order. `out` (optional)
        gives C's type and order; otherwise out_dtype (default: A's float type, or 32I for
        integer inputs) and out_order (default: B's order). `options` (spx.PlanOptions) or the
        shortcuts `autotune=True` (autotune reads B's data) and `max_n` (the largest number of
        columns executes take; -1: any) set analyze options."""
        return SpMMPlan(A, B, out, handle=handle, out_dtype=out_dtype, out_order=out_order,
                        compute_type=compute_type, alg=alg, options=options, autotune=autotune,
                        max_n=max_n)

    @staticmethod
    def sddmm(A, B, C: SparseMatrix, *, handle=None, compute_type=None,
              alg=SpMMAlg.DEFAULT, options: PlanOptions | None = None) -> "SDDMMPlan":
        """Analyzes C = alpha * (A @ B) .* spy(C) + beta * C with C sparse (its pattern is the mask)."""
        return SDDMMPlan(A, B, C, handle=handle, compute_type=compute_type, alg=alg,
                         options=options)

    # -- common calls
    @property
    def ptr(self) -> ctypes.c_void_p:
        if not self._ptr:
            raise ValueError("the plan was closed")
        return self._ptr

    @property
    def info(self) -> PlanInfo:
        s = PlanInfoStruct()
        call("spxPlanGetInfo", self.ptr, ctypes.byref(s))
        return PlanInfo.from_struct(s)

    @property
    def workspace_bytes(self) -> int:
        out = ctypes.c_size_t()
        call("spxPlanGetWorkspaceSize", self.ptr, ctypes.byref(out))
        return out.value

    def _workspace_ptr(self, like) -> ctypes.c_void_p | None:
        n = self.workspace_bytes
        if n == 0:
            return None
        if self._workspace is None:
            backend = _backend.for_view(like)
            self._workspace = backend.empty((n,), DataType.R_8U, like.device)
        return ctypes.c_void_p(view(self._workspace).ptr)

    def _after_close(self) -> None:
        self._workspace = None  # the plan is gone (spxPlanDestroy waited for the device)

    # -- saving and loading
    def save(self, *, handle=None) -> bytes:
        """The plan as bytes (spxPlanGetSerializedSize + spxPlanSerialize): its packed copy of A,
        every prepared n's decision (searched / autotuned ones too) and its info; reads the
        plan's device arrays on the handle's stream and waits for them. SpMM plans only (an
        SDDMM plan raises NotSupportedError)."""
        h = resolve(handle if handle is not None else self._handle, [])
        n = ctypes.c_size_t()
        call("spxPlanGetSerializedSize", h.ptr, self.ptr, ctypes.byref(n))
        buf = ctypes.create_string_buffer(n.value)
        call("spxPlanSerialize", h.ptr, self.ptr, buf, n)
        return buf.raw

    @staticmethod
    def load(data, *, handle=None, A: SparseMatrix | None = None) -> "SpMMPlan":
        """A plan from bytes of :meth:`save` (spxPlanDeserialize), on the handle's device (default:
        this thread's handle for the current device), its arrays uploaded on the handle's stream.
        `data`: bytes, bytearray, memoryview or a uint8 array (NumPy, CPU torch tensor). `A`
        (optional): the spx matrix the plan was analyzed for, for the descriptor calls and
        update_values; without it, calls run through spxSpMM_execute. A plan made on another
        GPU model raises NotSupportedError (analyze again); bytes that are not a plan, truncated
        or corrupted raise InvalidValueError."""
        return SpMMPlan._loaded(_plan_bytes(data), handle, A)


def _plan_bytes(data) -> bytes:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if hasattr(data, "numpy") and hasattr(data, "device"):  # a CPU torch tensor
        data = data.detach().cpu().numpy()
    if hasattr(data, "tobytes"):
        return data.tobytes()
    raise InvalidValueError(f"a serialized plan must be bytes or a uint8 array, not "
                            f"{type(data).__name__}")


#: Where a serialized plan (format version 1) keeps the fields a loaded SpMMPlan reports: the
#: header's value types, and the payload's first fields, A's rows and cols and C's signature
#: (src/engine/plan_record.hpp).
_HEADER_TYPES = struct.Struct("<4i")  # A, B, C, compute types at offset 36
_PAYLOAD_A = struct.Struct("<iqq")    # format, rows, cols at offset 72
_PAYLOAD_C = struct.Struct("<qqqi")   # C's rows, cols, ld, order at offset 168


def _plan_signature(data: bytes):
    if len(data) < _PAYLOAD_C.size + 168 or data[:8] != b"SPXPLAN\0":
        return None  # spxPlanDeserialize says what is wrong
    a, b, c, compute = _HEADER_TYPES.unpack_from(data, 36)
    _, rows, cols = _PAYLOAD_A.unpack_from(data, 72)
    c_rows, c_cols, _, c_order = _PAYLOAD_C.unpack_from(data, 168)
    return DataType(a), DataType(c), DataType(compute), Order(c_order), (c_rows, c_cols), (rows, cols)


def _default_compute(dtype: DataType) -> DataType:
    return DataType.R_32F if dtype.is_float else DataType.R_32I


class SpMMPlan(Plan):
    """C = alpha * A @ B + beta * C, analyzed once. Call it with new B (and C) of the analyzed
    types and orders and shapes (any number of columns up to ``info.max_n`` for a plan analyzed
    with max_n): ``C = plan(B)`` or ``plan(B, out=C, beta=1.0)``."""

    def __init__(self, A, B, out, *, handle, out_dtype, out_order, compute_type, alg,
                 options=None, autotune=None, max_n=None):
        super().__init__(handle)
        if not isinstance(A, SparseMatrix):
            raise InvalidValueError(f"A must be an spx sparse matrix, not {type(A).__name__}")
        self.A = A
        b = as_dense(B)
        self._spare = None  # an output allocated for analyze, handed out by the first call
        if out is None:
            dtype = as_datatype(out_dtype) if out_dtype is not None else (
                b.dtype if A.dtype.is_float and b.dtype.is_float else DataType.R_32I)
            order = Order(out_order) if out_order is not None else b.order
            out = self._spare = _backend.for_view(b.view).empty((A.shape[0], b.shape[1]), dtype,
                                                                b.view.device, order)
        c = as_dense(out)
        self.out_dtype, self.out_order, self.out_shape = c.dtype, c.order, c.shape
        self.compute_type = as_datatype(compute_type) if compute_type is not None else _default_compute(A.dtype)
        h = resolve(handle, [b.view])
        opts, temporary = resolve_options(options, autotune, max_n)
        try:
            with b.descriptor() as bd, c.descriptor() as cd:
                args = (h.ptr, A.descr, bd.ptr, cd.ptr, int(self.compute_type), int(alg))
                if opts is None:  # errors then name the call users know
                    call("spxSpMM_analyze", *args, ctypes.byref(self._ptr))
                else:
                    call("spxSpMM_analyzeWithOptions", *args, opts.ptr, ctypes.byref(self._ptr))
        finally:
            if temporary:
                opts.close()

    @classmethod
    def _loaded(cls, data: bytes, handle, A):
        self = cls.__new__(cls)
        Plan.__init__(self, handle)
        self.A = A
        self._spare = None
        h = resolve(handle, [])
        call("spxPlanDeserialize", h.ptr, data, len(data), ctypes.byref(self._ptr))
        sig = _plan_signature(data)
        _, self.out_dtype, self.compute_type, self.out_order, self.out_shape, self.shape = sig
        return self

    def _out(self, b: Dense, out):
        if out is not None:
            return out
        # m x (B's columns): a plan analyzed with max_n takes other n than the analyzed one.
        shape = (self.out_shape[0], b.shape[1])
        spare = view(self._spare) if self._spare is not None else None
        if spare is not None and spare.kind == b.view.kind and spare.device == b.view.device \
                and shape == self.out_shape:
            out, self._spare = self._spare, None
            return out
        return _backend.for_view(b.view).empty(shape, self.out_dtype, b.view.device,
                                               self.out_order)

    def _run(self, fn, B, out, alpha, beta, handle):
        b = as_dense(B)
        out = self._out(b, out)
        c = as_dense(out)
        h = resolve(handle if handle is not None else self._handle, [b.view, c.view])
        if self.A is None:  # a loaded plan without its matrix: the one-call execute
            if fn != "spxSpMM":
                raise InvalidValueError(f"{fn} needs the plan's matrix: Plan.load(..., A=)")
            with _scalars(h, alpha, beta, self.out_dtype == DataType.R_32I) as (pa, pb):
                call("spxSpMM_execute", h.ptr, self.ptr, b.shape[1], pa, ctypes.c_void_p(b.ptr),
                     b.ld, pb, ctypes.c_void_p(c.ptr), c.ld, self._workspace_ptr(b.view))
            return out
        with b.descriptor() as bd, c.descriptor() as cd, \
                _scalars(h, alpha, beta, self.out_dtype == DataType.R_32I) as (pa, pb):
            call(fn, h.ptr, self.ptr, pa, self.A.descr, bd.ptr, pb, cd.ptr,
                 self._workspace_ptr(b.view))
        return out

    def __call__(self, B, out=None, *, alpha=1.0, beta=0.0, handle=None):
        """Queues C = alpha * A @ B + beta * C on the handle's stream and returns C (`out`, or a
        new array of B's library). alpha/beta: numbers, or one-element device arrays."""
        return self._run("spxSpMM", B, out, alpha, beta, handle)

    execute = __call__

    def execute_raw(self, n: int, B, ldb: int, C, ldc: int, *, alpha=1.0, beta=0.0,
                    workspace=None, handle=None) -> None:
        """The one-call execute (spxSpMM_execute): C = alpha * A @ B + beta * C with B (k x n)
        and C (m x n) in the analyzed types and orders, given as device addresses (ints) or
        arrays (their data pointer is used; shape and strides are not looked at), for any n up to
        the plan's bound (info.max_n). No descriptors are made. alpha/beta: host numbers, or
        one-element device arrays. workspace: a device address or array of at least
        ``workspace_bytes`` (the plan's own is used when omitted; it serves every n). With
        addresses only, the handle's stream is used as it is (it follows no array library)."""
        n, ldb, ldc = operator.index(n), operator.index(ldb), operator.index(ldc)
        bv, cv = _address(B, "B"), _address(C, "C")
        arrays = [v for v in (bv, cv) if isinstance(v, ArrayView)]
        h = resolve(handle if handle is not None else self._handle, arrays)
        if workspace is None:
            ws = self._workspace_ptr(arrays[0]) if arrays else self._own_workspace_ptr()
        else:
            ws = _ptr_value(_address(workspace, "workspace"))
        with _scalars(h, alpha, beta, self.out_dtype == DataType.R_32I) as (pa, pb):
            call("spxSpMM_execute", h.ptr, self.ptr, n, pa, _ptr_value(bv), ldb, pb,
                 _ptr_value(cv), ldc, ws)

    def _own_workspace_ptr(self):
        if self.workspace_bytes == 0:
            return None
        if self._workspace is None:
            raise InvalidValueError("this plan needs a workspace: pass workspace= (an address "
                                    f"or array of {self.workspace_bytes} bytes) or an array B")
        return ctypes.c_void_p(view(self._workspace).ptr)

    def set_epilogue(self, bias=None, scale=None, *, handle=None) -> None:
        """Points the fused epilogue (analyzed with PlanOptions(bias=True / scale=True)) at a
        per-row bias and scale: fp32 device arrays of m elements (or None), read by every later
        execute; change them freely without re-analyzing (spxPlanSetEpilogue). The plan keeps
        the arrays alive until they are replaced."""
        views = [None if x is None else view(x, name=n) for x, n in ((bias, "bias"),
                                                                        (scale, "scale"))]
        for v, n in zip(views, ("bias", "scale")):
            if v is not None and (v.dtype != DataType.R_32F or v.size != self.out_shape[0]):
                raise InvalidValueError(f"{n} must be {self.out_shape[0]} float32 elements (one "
                                        f"per row of C), not {v.size} {v.dtype.name}")
        h = resolve(handle if handle is not None else self._handle, [v for v in views if v])
        call("spxPlanSetEpilogue", h.ptr, self.ptr, *(None if v is None else ctypes.c_void_p(v.ptr)
                                                      for v in views))
        self._epilogue_arrays = (bias, scale)

    @property
    def epilogue(self) -> tuple[int | None, int | None]:
        """The device addresses the fused epilogue reads now: (bias, scale), None where unset
        (spxPlanGetEpilogue)."""
        b, s = ctypes.c_void_p(), ctypes.c_void_p()
        call("spxPlanGetEpilogue", self.ptr, ctypes.byref(b), ctypes.byref(s))
        return b.value, s.value

    def info_for_n(self, n: int) -> PlanInfo:
        """What an execute with n columns runs (spxPlanGetInfoForN): family, kernel, config,
        route and estimates of the decision prepared for n; sizes are the plan's."""
        s = PlanInfoStruct()
        call("spxPlanGetInfoForN", self.ptr, operator.index(n), ctypes.byref(s))
        return PlanInfo.from_struct(s)

    def search(self, B, out=None, *, alpha=1.0, beta=0.0, handle=None):
        """Times the family's configurations on these operands and keeps the fastest
        (spxSpMM_search); blocks, and returns C holding the product."""
        return self._run("spxSpMM_search", B, out, alpha, beta, handle)

    def update_values(self, values=None, *, handle=None) -> None:
        """A's values changed (in place, or pass the new array): re-pack the plan's copy without
        structural analysis (spxPlanUpdateValues, queued on the handle's stream)."""
        if self.A is None:
            raise InvalidValueError("update_values needs the plan's matrix: Plan.load(..., A=)")
        if values is not None:
            self.A.set_values(values)
        h = resolve(handle if handle is not None else self._handle, [self.A._views["values"]])
        call("spxPlanUpdateValues", h.ptr, self.ptr, self.A.descr)


class SDDMMPlan(Plan):
    """C = alpha * (A @ B) .* spy(C) + beta * C, analyzed once; C is a sparse matrix whose values
    are written in place: ``plan(A, B)`` returns C."""

    def __init__(self, A, B, C, *, handle, compute_type, alg, options=None):
        super().__init__(handle)
        if not isinstance(C, SparseMatrix):
            raise InvalidValueError(f"C must be an spx sparse matrix, not {type(C).__name__}")
        self.C = C
        a, b = as_dense(A), as_dense(B)
        self.compute_type = as_datatype(compute_type) if compute_type is not None else _default_compute(a.dtype)
        h = resolve(handle, [a.view])
        with a.descriptor() as ad, b.descriptor() as bd:
            args = (h.ptr, ad.ptr, bd.ptr, C.descr, int(self.compute_type), int(alg))
            if options is None:
                call("spxSDDMM_analyze", *args, ctypes.byref(self._ptr))
            else:
                call("spxSDDMM_analyzeWithOptions", *args, options.ptr, ctypes.byref(self._ptr))

    def __call__(self, A, B, C=None, *, alpha=1.0, beta=0.0, handle=None):
        C = self.C if C is None else C
        a, b = as_dense(A), as_dense(B)
        h = resolve(handle if handle is not None else self._handle, [a.view, b.view])
        with a.descriptor() as ad, b.descriptor() as bd, \
                _scalars(h, alpha, beta, C.dtype == DataType.R_32I) as (pa, pb):
            call("spxSDDMM", h.ptr, self.ptr, pa, ad.ptr, bd.ptr, pb, C.descr,
                 self._workspace_ptr(a.view))
        return C

    execute = __call__

    def update_values(self, values=None, *, handle=None) -> None:
        """SDDMM plans keep no copy of values; the library says so (InvalidValueError)."""
        h = resolve(handle if handle is not None else self._handle, [self.C._views["values"]])
        call("spxPlanUpdateValues", h.ptr, self.ptr, self.C.descr)
