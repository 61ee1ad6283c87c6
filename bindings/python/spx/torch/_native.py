"""The native side of a SparseLinear, kept out of the module so that ``copy.deepcopy``,
``pickle`` and ``state_dict`` never meet a ctypes object: the spx matrix over the layer's
buffers, ONE SpMM plan analyzed for any batch size (SPX_PLAN_OPTION_MAX_N = -1: one copy of the
weight, a decision prepared per power of two), the workspace that serves every batch size, and
the hot path, one spxSpMM_execute per call. A layer's bias is the plan's fused epilogue
(SPX_PLAN_OPTION_EPILOGUE_BIAS, fp32 per output feature): added in fp32 by the kernel that
writes Y, before its one rounding, with no kernel of its own (on the dense cuBLAS route, a small
in-place kernel after the GEMM).

Layers find their native part by an integer key in a module-level registry (the custom op takes
that key, since an op schema cannot hold Python objects).

The product is Y^T = W X^T: X (n x in, row-major) is read in place as the column-major X^T
(ldb = in_features) and Y (n x out, row-major) is written as the column-major Y^T
(ldc = out_features).
"""
from __future__ import annotations

import ctypes
import itertools
import threading

import torch

from .._lib import check, function
from ..dense import Dense
from ..enums import DenseRoute, Order, PointerMode, SpMMAlg
from ..errors import InvalidValueError
from ..handle import Handle
from ..options import PlanOptions
from ..plan import SpMMPlan
from ._convert import quantize_per_tensor
from ._kinds import make_matrix

# ------------------------------------------------------------------ registry

_registry: dict = {}
_keys = itertools.count(1)


def new_key() -> int:
    return next(_keys)


def lookup(key: int):
    """The NativeLinear of a layer, or None (the layer is on the CPU, or was deleted)."""
    return _registry.get(key)


def install(key: int, native: "NativeLinear") -> None:
    old = _registry.get(key)
    _registry[key] = native
    if old is not None and old is not native:
        old.close()


def release(key: int) -> None:
    native = _registry.pop(key, None)
    if native is not None:
        native.close()


# ------------------------------------------------------------------ streams and handles

_raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)


def current_stream(index: int) -> int:
    """torch's current cudaStream_t on device `index` (the raw getter skips a Stream object)."""
    if _raw_stream is not None:
        return _raw_stream(index)
    return torch.cuda.current_stream(index).cuda_stream


_tls = threading.local()


def thread_handle(index: int, device_scalars: bool) -> Handle:
    """This thread's libspx handle for device `index`, private to the layers (so no one else
    changes its pointer mode): device pointer mode for int8 layers, whose alpha is computed on
    the device per call, host mode for the others."""
    handles = _tls.__dict__.setdefault("handles", {})
    h = handles.get((index, device_scalars))
    if h is None:
        with torch.cuda.device(index):  # spxCreate binds the handle to the current device
            h = Handle()
        if device_scalars:
            h.pointer_mode = PointerMode.DEVICE
        handles[(index, device_scalars)] = h
    return h


#: The n the plan is analyzed with; with max_n = -1 the plan prepares every power of two anyway.
_ANALYZE_N = 1


class NativeLinear:
    """One layer's plan and workspace. `arrays` are the layer's buffers (the spx matrix points at
    them; the plan packs its own copy at analyze and at update_values)."""

    def __init__(self, fmt: str, arrays: dict, params: dict, shape, dtype, scale, device,
                 dense_route: DenseRoute = DenseRoute.AUTO, bias: bool = False,
                 saved_plan: bytes | None = None):
        self.out_features, self.in_features = int(shape[0]), int(shape[1])
        self.device = device
        self.index = device.index or 0  # a CUDA tensor's device always names its index
        self.int8 = scale is not None
        self.in_dtype = self.out_dtype = dtype
        # int8 products write fp32 or fp16 (SR-BCRS); a bf16 layer converts the fp32 result.
        self.c_dtype = dtype if not self.int8 or dtype != torch.bfloat16 else torch.float32
        self.scale = scale
        self.dense_route = DenseRoute(dense_route)
        self.fused_bias = bool(bias)  # the plan adds the bias (its epilogue)
        self._bias_key = None  # (data_ptr, version) of the bias the plan reads now
        self._bias32 = None  # the fp32 bias the plan reads (the layer's own when fp32)
        self.A = make_matrix(fmt, arrays, shape, params)
        self.last_n = 1
        self._saved_plan = saved_plan
        self._analyze()
        self._one, self._zero_h = ctypes.c_float(1.0), ctypes.c_float(0.0)
        self._alpha_ptr = ctypes.addressof(self._one)
        self._beta_ptr = ctypes.addressof(self._zero_h)
        if self.int8:
            self._zero_d = torch.zeros(1, dtype=torch.float32, device=device)
            self._beta_ptr = self._zero_d.data_ptr()
        self._thread_handle = (None, None)  # (thread id, its handle): replaced as one object

    def _analyze(self) -> None:
        """One plan for every batch size, its workspace, and the hot path's pointers; with a
        saved plan (bytes of SpMMPlan.save over the same weight), that plan loaded on this
        layer's device instead of a new analyze."""
        saved_plan, self._saved_plan = self._saved_plan, None
        self._execute = function("spxSpMM_execute")  # a library without it says so here
        self._set_epilogue = function("spxPlanSetEpilogue") if self.fused_bias else None
        h = thread_handle(self.index, False)
        h._set(current_stream(self.index))
        m, k = self.out_features, self.in_features
        with torch.cuda.device(self.index):
            b_dtype = torch.int8 if self.int8 else self.in_dtype
            B = torch.zeros(_ANALYZE_N, k, dtype=b_dtype, device=self.device)
            C = torch.zeros(_ANALYZE_N, m, dtype=self.c_dtype, device=self.device)
            if saved_plan is not None:
                self.plan = SpMMPlan.load(saved_plan, handle=h, A=self.A)
                self._check_loaded(m, k)
            else:
                # X^T and Y^T: column-major views (order given: one column is ambiguous).
                with PlanOptions(max_n=-1, dense_route=self.dense_route,
                                 bias=self.fused_bias) as opts:
                    self.plan = SpMMPlan(self.A, Dense(B.t(), order=Order.COL),
                                         Dense(C.t(), order=Order.COL), handle=h, out_dtype=None,
                                         out_order=None, compute_type=None,
                                         alg=SpMMAlg.DEFAULT, options=opts)
            ws = self.plan.workspace_bytes
            self.workspace = torch.empty(ws, dtype=torch.uint8, device=self.device) if ws else None
        self._plan_ptr = self.plan.ptr.value
        self._ws_ptr = self.workspace.data_ptr() if self.workspace is not None else None

    def _check_loaded(self, m: int, k: int) -> None:
        """A loaded plan must be one this layer would analyze: its shape, output order and any
        batch size."""
        p = self.plan
        if p.shape != (m, k) or p.out_order != Order.COL or p.info.max_n != -1:
            p.close()
            raise InvalidValueError(f"the saved plan ({p.shape[0]} x {p.shape[1]}, "
                                    f"max_n {p.info.max_n}) is not this layer's ({m} x {k})")

    def save(self) -> bytes:
        """The plan as bytes (waits for the plan's queued work on torch's current stream)."""
        return self.plan.save(handle=self._handle_for_update())

    # -- hot path
    def _handle(self) -> Handle:
        tid = threading.get_ident()
        owner, h = self._thread_handle
        if owner != tid:
            h = thread_handle(self.index, self.int8)
            self._thread_handle = (tid, h)
        s = current_stream(self.index)
        if s != h._current:  # only when torch's current stream changed (graph capture, ...)
            h._set(s)
        return h

    def _check(self, x: torch.Tensor) -> None:
        if x.device != self.device:
            if x.device.type != "cuda":
                raise InvalidValueError(
                    f"the input is a {x.device.type} tensor but this SparseLinear runs on "
                    f"{self.device}: move the input there (no copy is made for you)")
            raise InvalidValueError(f"the input is on {x.device} but this SparseLinear is on "
                                    f"{self.device}")
        if x.dtype != self.in_dtype:
            raise InvalidValueError(f"this SparseLinear takes {self.in_dtype} inputs, not "
                                    f"{x.dtype} (convert the input or the layer)")
        if x.dim() == 0 or x.shape[-1] != self.in_features:
            raise InvalidValueError(f"expected {self.in_features} input features (the last "
                                    f"dimension), got shape {tuple(x.shape)}")

    def forward(self, x: torch.Tensor, bias) -> torch.Tensor:
        """y = x W^T (+ bias) for x (..., in_features): one spxSpMM_execute."""
        self._check(x)
        k, m = self.in_features, self.out_features
        x2 = x if x.dim() == 2 else x.reshape(-1, k)  # 2-D: skip a reshape (a microsecond)
        if not x2.is_contiguous():
            x2 = x2.contiguous()
        n = x2.shape[0]
        y = torch.empty(n, m, dtype=self.c_dtype, device=self.device)  # varargs: faster
        fused = bias is not None and self.fused_bias
        if n:
            h = self._handle()
            if fused and (bias.data_ptr(), bias._version) != self._bias_key:
                self._point_bias(h, bias)
            if self.int8:
                xq, x_scale = quantize_per_tensor(x2)
                alpha = self.scale * x_scale  # dequantizes the int32 sums; a device scalar
                status = self._execute(h._ptr, self._plan_ptr, n, alpha.data_ptr(),
                                       xq.data_ptr(), k, self._beta_ptr, y.data_ptr(), m,
                                       self._ws_ptr)
            else:
                status = self._execute(h._ptr, self._plan_ptr, n, self._alpha_ptr,
                                       x2.data_ptr(), k, self._beta_ptr, y.data_ptr(), m,
                                       self._ws_ptr)
            if status:
                check(status, "spxSpMM_execute")
            self.last_n = n
        if self.c_dtype != self.out_dtype:
            y = y.to(self.out_dtype)
        if bias is not None and not fused:
            y = y.add_(bias)  # a bias the plan was analyzed without (loaded onto a layer that had none)
        return y if x.dim() == 2 else y.view(*x.shape[:-1], m)

    def _point_bias(self, h: Handle, bias: torch.Tensor) -> None:
        """Points the plan's epilogue at the layer's bias, as fp32 (a converted copy, made on the
        current stream, for fp16 / bf16 layers). Runs when the bias tensor changed (another
        tensor, or written in place: its version counter), so never on a steady hot path."""
        b32 = bias if bias.dtype == torch.float32 and bias.is_contiguous() else \
            bias.detach().to(torch.float32).contiguous()
        if bias.device != self.device or b32.numel() != self.out_features:
            raise InvalidValueError(f"the bias must be {self.out_features} values on "
                                    f"{self.device}, not {tuple(bias.shape)} on {bias.device}")
        status = self._set_epilogue(h._ptr, self._plan_ptr, b32.data_ptr(), None)
        if status:
            check(status, "spxPlanSetEpilogue")
        self._bias32 = b32
        self._bias_key = (bias.data_ptr(), bias._version)

    # -- maintenance
    def update_values(self) -> None:
        """The layer's values (and int8 scale) changed in place, the structure did not: re-pack
        the plan's copy (spxPlanUpdateValues, on torch's current stream)."""
        self.plan.update_values(handle=self._handle_for_update())

    def _handle_for_update(self) -> Handle:
        h = thread_handle(self.index, False)
        h._set(current_stream(self.index))
        return h

    def info(self, n: int):
        return self.plan.info_for_n(n)

    def close(self) -> None:
        self.plan.close()  # waits for queued work (spxPlanDestroy)
        self.A.close()

