"""Loads libspx.so and declares the C signatures of ``include/spx/spx.h`` for ctypes.

Where the library comes from, first match wins:
  1. the ``SPX_LIBRARY`` environment variable: the path of ``libspx.so`` or of its folder;
  2. next to this package: ``libspx.so*`` inside the ``spx`` folder (a copy put there before
     ``pip install``);
  3. the system loader: ``libspx.so.0`` then ``libspx.so`` (LD_LIBRARY_PATH, ldconfig).

Loading is lazy (on the first call that needs the library), so ``import spx`` always works and
a missing library is reported by the first call, with the list of places tried.
"""
from __future__ import annotations

import ctypes
import os
import pathlib
import threading
from ctypes import POINTER, c_char, c_char_p, c_double, c_int, c_int32, c_int64, c_size_t, c_void_p

from .enums import Status
from .errors import LibraryNotFoundError, make_error

# ------------------------------------------------------------------ spxPlanInfo_t (spx_types.h)


class PlanInfoStruct(ctypes.Structure):
    """spxPlanInfo_t, field for field (ctypes applies the C alignment rules)."""

    _fields_ = [
        ("family", c_int),
        ("kernel", c_char * 64),
        ("config", c_char * 192),
        ("workspace_bytes", c_size_t),
        ("metadata_bytes", c_size_t),
        ("values_bytes", c_size_t),
        ("analyze_ms", c_double),
        ("nnz", c_int64),
        ("padded_nnz", c_int64),
        ("columns_skipped", c_int64),
        ("reorder_retries", c_int64),
        ("split_k", c_int32),
        ("packing", c_int32),
        ("candidates", c_int32),
        ("searched", c_int32),
        ("predicted_speedup", c_double),
        ("route", c_int32),
        ("reserved32", c_int32),
        ("sparse_estimate_us", c_double),
        ("dense_estimate_us", c_double),
        ("dense_bytes", c_size_t),
        ("max_n", c_int64),
        ("prepared_sizes", c_int64),
    ]


# ------------------------------------------------------------------ signatures

_S = c_int  # spxStatus_t and every other enum: a C int
_P = c_void_p
_I64 = c_int64
_PP = POINTER(c_void_p)
_PI64 = POINTER(c_int64)
_PI32P = POINTER(POINTER(c_int32))
_PFP = POINTER(POINTER(ctypes.c_float))

#: name -> (restype, argtypes), in the order of spx.h and spx_host.h.
SIGNATURES = {
    # errors and version
    "spxGetStatusName": (c_char_p, [_S]),
    "spxGetStatusString": (c_char_p, [_S]),
    "spxGetLastErrorMessage": (c_char_p, []),
    "spxGetVersion": (_S, [POINTER(c_int)]),
    # handle
    "spxCreate": (_S, [_PP]),
    "spxDestroy": (_S, [_P]),
    "spxSetStream": (_S, [_P, _P]),
    "spxGetStream": (_S, [_P, _PP]),
    "spxSetPointerMode": (_S, [_P, _S]),
    "spxGetPointerMode": (_S, [_P, POINTER(c_int)]),
    # dense descriptors
    "spxCreateDnMat": (_S, [_PP, _I64, _I64, _I64, _P, _S, _S]),
    "spxDestroyDnMat": (_S, [_P]),
    "spxDnMatGet": (_S, [_P, _PI64, _PI64, _PI64, _PP, POINTER(c_int), POINTER(c_int)]),
    "spxDnMatSetValues": (_S, [_P, _P]),
    # sparse descriptors
    "spxCreateCsr": (_S, [_PP, _I64, _I64, _I64, _P, _P, _P, _S]),
    "spxCreateBcrs": (_S, [_PP, _I64, _I64, _I64, _I64, _P, _P, _P, _S]),
    "spxCreateNM": (_S, [_PP, _I64, _I64, _I64, _I64, _I64, _P, _P, _S]),
    "spxCreateEll": (_S, [_PP, _I64, _I64, _I64, _P, _P, _S]),
    "spxDestroySpMat": (_S, [_P]),
    "spxSpMatGetSize": (_S, [_P, _PI64, _PI64, _PI64]),
    "spxSpMatGetFormat": (_S, [_P, POINTER(c_int)]),
    "spxSpMatGetValueType": (_S, [_P, POINTER(c_int)]),
    "spxSpMatSetValues": (_S, [_P, _P]),
    # analyze options
    "spxCreatePlanOptions": (_S, [_PP]),
    "spxDestroyPlanOptions": (_S, [_P]),
    "spxPlanOptionsSet": (_S, [_P, _S, _P, c_size_t]),
    "spxPlanOptionsGet": (_S, [_P, _S, _P, c_size_t]),
    # SpMM
    "spxSpMM_analyze": (_S, [_P, _P, _P, _P, _S, _S, _PP]),
    "spxSpMM_analyzeWithOptions": (_S, [_P, _P, _P, _P, _S, _S, _P, _PP]),
    "spxPlanGetWorkspaceSize": (_S, [_P, POINTER(c_size_t)]),
    "spxSpMM": (_S, [_P, _P, _P, _P, _P, _P, _P, _P]),
    "spxSpMM_execute": (_S, [_P, _P, _I64, _P, _P, _I64, _P, _P, _I64, _P]),
    "spxPlanGetInfoForN": (_S, [_P, _I64, POINTER(PlanInfoStruct)]),
    "spxSpMM_search": (_S, [_P, _P, _P, _P, _P, _P, _P, _P]),
    "spxPlanUpdateValues": (_S, [_P, _P, _P]),
    "spxPlanSetEpilogue": (_S, [_P, _P, _P, _P]),
    "spxPlanGetEpilogue": (_S, [_P, _PP, _PP]),
    "spxPlanGetInfo": (_S, [_P, POINTER(PlanInfoStruct)]),
    "spxPlanDestroy": (_S, [_P]),
    # saving plans
    "spxPlanGetSerializedSize": (_S, [_P, _P, POINTER(c_size_t)]),
    "spxPlanSerialize": (_S, [_P, _P, _P, c_size_t]),
    "spxPlanDeserialize": (_S, [_P, _P, c_size_t, _PP]),
    # SDDMM
    "spxSDDMM_analyze": (_S, [_P, _P, _P, _P, _S, _S, _PP]),
    "spxSDDMM_analyzeWithOptions": (_S, [_P, _P, _P, _P, _S, _S, _P, _PP]),
    "spxSDDMM": (_S, [_P, _P, _P, _P, _P, _P, _P, _P]),
    # pruning on the device
    "spxPruneNM": (_S, [_P, _I64, _I64, _P, _I64, _S, _S, _I64, _I64, _I64, _P, _P]),
    "spxCheckNM": (_S, [_P, _I64, _I64, _P, _I64, _S, _S, _I64, _I64, _I64, POINTER(c_int)]),
    "spxPruneUniform": (_S, [_P, _I64, _I64, _P, _I64, _S, _S, _I64, _P, _P]),
    # host tools (spx_host.h)
    "spxHostFree": (None, [_P]),
    "spxHostReadSmtx": (_S, [c_char_p, _PI64, _PI64, _PI64, _PI32P, _PI32P]),
    "spxHostDilateCsr": (_S, [_I64, _I64, _P, _P, _I64, _PI32P, _PI32P]),
    "spxHostDenseToCsr": (_S, [_I64, _I64, _P, _I64, _S, _PI64, _PI32P, _PI32P, _PFP]),
    "spxHostDenseToBcrs": (_S, [_I64, _I64, _P, _I64, _S, _I64, _PI64, _PI32P, _PI32P, _PFP]),
    "spxHostPruneNM": (_S, [_I64, _I64, _P, _I64, _S, _I64, _I64, _I64, _P, _P]),
    "spxHostPruneUniform": (_S, [_I64, _I64, _P, _I64, _S, _I64, _P, _P]),
    "spxHostCsrToEll": (_S, [_I64, _I64, _P, _P, _P, _PI64, _PI32P, _PFP]),
    "spxHostCheckNM": (_S, [_I64, _I64, _P, _I64, _S, _I64, _I64, _I64, POINTER(c_int)]),
    "spxHostCheckUniform": (_S, [_I64, _I64, _P, _I64, _S, _I64, POINTER(c_int)]),
    "spxHostConvertValues": (_S, [_I64, _P, _S, _P]),
    "spxHostSrbcrsSlotPtr": (_S, [_I64, _P, _I64, _P]),
    "spxHostSizeOf": (c_size_t, [_S, _I64]),
}

#: Functions added after the first release of the bindings: a library built before them still
#: loads, and calling one of them says that the library must be rebuilt (see function()).
NEWER = frozenset({"spxSpMM_execute", "spxPlanGetInfoForN", "spxPlanGetSerializedSize",
                   "spxPlanSerialize", "spxPlanDeserialize", "spxPlanSetEpilogue",
                   "spxPlanGetEpilogue"})

_lock = threading.Lock()
_lib: ctypes.CDLL | None = None
_missing: set = set()


def _candidates() -> list[str]:
    env = os.environ.get("SPX_LIBRARY")
    if env:
        path = pathlib.Path(env)
        if path.is_dir():
            return [str(path / name) for name in ("libspx.so", "libspx.so.0")]
        return [str(path)]  # an explicit file: only that one, so a wrong setting is not masked
    here = pathlib.Path(__file__).resolve().parent
    local = [str(p) for p in sorted(here.glob("libspx.so*"))]
    return local + ["libspx.so.0", "libspx.so"]


def _load() -> ctypes.CDLL:
    tried = []
    for name in _candidates():
        try:
            lib = ctypes.CDLL(name)
        except OSError as e:
            tried.append(f"{name} ({e})")
            continue
        for fn, (restype, argtypes) in SIGNATURES.items():
            try:
                f = getattr(lib, fn)
            except AttributeError:
                if fn not in NEWER:
                    raise  # a library older than every function this package relies on
                _missing.add(fn)
                continue
            f.restype = restype
            f.argtypes = argtypes
        return lib
    raise LibraryNotFoundError(
        "libspx.so could not be loaded; set SPX_LIBRARY to its path (e.g. build/src/libspx.so), "
        "install it where the loader finds it, or copy it into the spx package folder. Tried: "
        + "; ".join(tried))


def lib() -> ctypes.CDLL:
    """The loaded library (loaded on first use)."""
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                _lib = _load()
    return _lib


def has_function(name: str) -> bool:
    """Whether the loaded library exports `name` (False for a library that predates it)."""
    lib()
    return name in SIGNATURES and name not in _missing


def function(name: str):
    """The ctypes function `name`, with its signature; a library built before it was added
    raises NotSupportedError saying so (instead of ctypes' undefined-symbol AttributeError)."""
    if not has_function(name):
        raise make_error(Status.NOT_SUPPORTED, f"the loaded libspx ({library_path()}) predates {name}: rebuild it "
                            "from this checkout", name)
    return getattr(lib(), name)


def last_error_message() -> str:
    msg = lib().spxGetLastErrorMessage()
    return msg.decode("utf-8", "replace") if msg else ""


def check(status: int, call: str) -> None:
    """Raises the SpxError subclass for a non-success status, with the library's message."""
    if status != 0:
        raise make_error(status, last_error_message(), call)


def call(name: str, *args) -> None:
    """Calls the C function `name` and raises on a non-success status."""
    check((function(name) if name in NEWER else getattr(lib(), name))(*args), name)


def library_path() -> str:
    """Where the loaded libspx.so lives (loads it if needed)."""
    return lib()._name
