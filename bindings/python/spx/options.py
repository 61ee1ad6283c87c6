"""Analyze options (spxPlanOptions_t): settings a plan is analyzed with, beyond the operands.

    opts = spx.PlanOptions(autotune=True)       # or Plan.spmm(A, X, autotune=True)
    plan = spx.Plan.spmm(A, X, options=opts)
"""
from __future__ import annotations

import ctypes

from ._lib import call
from ._owned import COwner
from .enums import Activation, DenseRoute, PlanOption, ValuesLayout
from .errors import InvalidValueError

#: The C value type of each option (spxPlanOptionsSet checks the size).
_VALUE_TYPES = {PlanOption.AUTOTUNE: ctypes.c_int32, PlanOption.SPARSE_VALUES_LAYOUT: ctypes.c_int32,
                PlanOption.DENSE_ROUTE: ctypes.c_int32, PlanOption.ALLOW_TF32: ctypes.c_int32,
                PlanOption.MAX_N: ctypes.c_int32, PlanOption.EPILOGUE_ACTIVATION: ctypes.c_int32,
                PlanOption.EPILOGUE_BIAS: ctypes.c_int32, PlanOption.EPILOGUE_SCALE: ctypes.c_int32}


class PlanOptions(COwner):
    """A host object holding analyze settings; every setting starts at the library's default.

    autotune: analyze times the chosen family's kernel configurations on the handle's stream
    (reading B, writing only a scratch C) and keeps the fastest, like ``plan.search``.
    values_layout: the order of the sparse operand's values (spx.ValuesLayout): NATIVE, or SRBCRS
    (SDDMM writes C, SpMM reads A, in the SR-BCRS family's padded stride-major order; see
    spxValuesLayout_t in spx_types.h and spx.host.srbcrs_slot_ptr).
    dense_route: whether an SpMM plan may run as dense cuBLAS on a copy of A (spx.DenseRoute):
    AUTO (the faster by model, or measured with autotune), NEVER, ALWAYS.
    allow_tf32: the dense route may run fp32 products in TF32 on tensor cores.
    max_n: the largest number of columns n an SpMM plan executes: 0 the analyzed n, a bound
    >= it, or -1 for any n (one analyze, one copy of A, a decision prepared per power of two;
    see SPX_PLAN_OPTION_MAX_N).
    activation, bias, scale: the SpMM plan's fused epilogue, C = act(alpha * scale[i] * (A @ B)
    + bias[i]) + beta * C in fp32 (spx.Activation; bias / scale: whether the plan takes a per-row
    fp32 bias / scale, given after analyze by SpMMPlan.set_epilogue). Needs a float C; on the
    dense route calls with beta != 0 run the sparse family (see SPX_PLAN_OPTION_EPILOGUE_ACTIVATION)."""

    _c_destroy = "spxDestroyPlanOptions"

    def __init__(self, *, autotune: bool = False, values_layout: ValuesLayout = ValuesLayout.NATIVE,
                 dense_route: DenseRoute = DenseRoute.AUTO, allow_tf32: bool = False,
                 max_n: int = 0, activation: Activation = Activation.NONE, bias: bool = False,
                 scale: bool = False):
        self._ptr = ctypes.c_void_p()
        call("spxCreatePlanOptions", ctypes.byref(self._ptr))
        if autotune:
            self.autotune = True
        if values_layout != ValuesLayout.NATIVE:
            self.values_layout = values_layout
        if dense_route != DenseRoute.AUTO:
            self.dense_route = dense_route
        if allow_tf32:
            self.allow_tf32 = True
        if max_n != 0:
            self.max_n = max_n
        if activation != Activation.NONE:
            self.activation = activation
        if bias:
            self.bias = True
        if scale:
            self.scale = True

    @property
    def ptr(self) -> ctypes.c_void_p:
        if not self._ptr:
            raise ValueError("the options were closed")
        return self._ptr

    def set(self, option: PlanOption, value) -> None:
        """Sets one option (spxPlanOptionsSet); the library checks the value's range."""
        option = PlanOption(option)
        value = int(value)
        if not -2 ** 31 <= value < 2 ** 31:  # ctypes would wrap it silently into another value
            raise InvalidValueError(f"{option.name} takes an int32 value, not {value}")
        v = _VALUE_TYPES[option](value)
        call("spxPlanOptionsSet", self.ptr, int(option), ctypes.cast(ctypes.pointer(v), ctypes.c_void_p),
             ctypes.sizeof(v))

    def get(self, option: PlanOption) -> int:
        """Reads one option (spxPlanOptionsGet)."""
        option = PlanOption(option)
        v = _VALUE_TYPES[option]()
        call("spxPlanOptionsGet", self.ptr, int(option), ctypes.cast(ctypes.pointer(v), ctypes.c_void_p),
             ctypes.sizeof(v))
        return v.value

    @property
    def autotune(self) -> bool:
        return bool(self.get(PlanOption.AUTOTUNE))

    @autotune.setter
    def autotune(self, on: bool) -> None:
        self.set(PlanOption.AUTOTUNE, 1 if on else 0)

    @property
    def values_layout(self) -> ValuesLayout:
        return ValuesLayout(self.get(PlanOption.SPARSE_VALUES_LAYOUT))

    @values_layout.setter
    def values_layout(self, layout: ValuesLayout) -> None:
        self.set(PlanOption.SPARSE_VALUES_LAYOUT, int(layout))

    @property
    def dense_route(self) -> DenseRoute:
        return DenseRoute(self.get(PlanOption.DENSE_ROUTE))

    @dense_route.setter
    def dense_route(self, route: DenseRoute) -> None:
        self.set(PlanOption.DENSE_ROUTE, int(route))

    @property
    def allow_tf32(self) -> bool:
        return bool(self.get(PlanOption.ALLOW_TF32))

    @allow_tf32.setter
    def allow_tf32(self, on: bool) -> None:
        self.set(PlanOption.ALLOW_TF32, 1 if on else 0)


    @property
    def max_n(self) -> int:
        return self.get(PlanOption.MAX_N)

    @max_n.setter
    def max_n(self, n: int) -> None:
        self.set(PlanOption.MAX_N, n)  # -1 (any n) is a valid value: the library checks the range

    @property
    def activation(self) -> Activation:
        return Activation(self.get(PlanOption.EPILOGUE_ACTIVATION))

    @activation.setter
    def activation(self, act: Activation) -> None:
        self.set(PlanOption.EPILOGUE_ACTIVATION, int(act))

    @property
    def bias(self) -> bool:
        return bool(self.get(PlanOption.EPILOGUE_BIAS))

    @bias.setter
    def bias(self, on: bool) -> None:
        self.set(PlanOption.EPILOGUE_BIAS, 1 if on else 0)

    @property
    def scale(self) -> bool:
        return bool(self.get(PlanOption.EPILOGUE_SCALE))

    @scale.setter
    def scale(self, on: bool) -> None:
        self.set(PlanOption.EPILOGUE_SCALE, 1 if on else 0)


def resolve_options(options: PlanOptions | None, autotune: bool | None,
                    max_n: int | None = None) -> tuple[PlanOptions | None, bool]:
    """The options to analyze with: the caller's, or a temporary object when only the shortcuts
    `autotune` / `max_n` were given. Returns (options or None, whether the caller must close
    them)."""
    if autotune is None and max_n is None:
        return options, False
    if options is not None:
        raise ValueError("pass either options= or the autotune= / max_n= shortcuts, not both")
    return PlanOptions(autotune=bool(autotune), max_n=0 if max_n is None else max_n), True
