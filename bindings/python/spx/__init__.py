"""spx: Python bindings of libspx, sparse matrix products on NVIDIA GPUs.

    import torch, spx
    W = torch.randn(1024, 512, device="cuda")
    A = spx.prune_nm(W, n=2, m=4, l=32)        # dense -> 2:4 vector-wise N:M, on the GPU
    X = torch.randn(512, 64, device="cuda")
    Y = spx.spmm(A, X)                         # Y = A @ X, a torch tensor

Pure Python over ctypes: the library is found through SPX_LIBRARY, next to this package, or the
system loader (see spx._lib). Arrays are torch tensors, CuPy arrays or anything with
__cuda_array_interface__ / DLPack, read in place (never copied); results come back as the
caller's array type. Work runs on the caller's current stream (see Handle).
"""
from ._lib import library_path
from .dense import Dense
from .enums import (Activation, DataType, DenseRoute, Format, Order, PlanOption, PointerMode, SDDMMAlg, SpMMAlg,
                    Status, ValuesLayout)
from .errors import (AllocFailedError, ArchMismatchError, ExecutionFailedError, InternalError,
                     InvalidValueError, LibraryNotFoundError, NotInitializedError,
                     NotSupportedError, SpxError, SpxIOError)
from .handle import Handle, default_handle
from .ops import sddmm, spmm
from .options import PlanOptions
from .plan import Plan, PlanInfo, SDDMMPlan, SpMMPlan
from .prune import check_nm, ell_width_for, prune_nm, prune_uniform
from .sparse import BcrsMatrix, CsrMatrix, EllMatrix, NMMatrix, SparseMatrix



def _package_version():
    """The version, from its one source (SPX_VERSION_* in include/spx/spx.h): the installed
    distribution's metadata (`pip install .` read it from the header), else the header of the
    checkout this package sits in, else None (then the loaded library is asked)."""
    import re
    from pathlib import Path

    header = Path(__file__).resolve().parent.parent.parent.parent / "include" / "spx" / "spx.h"
    if header.is_file():
        text = header.read_text()
        parts = [re.search(r"#define SPX_VERSION_%s\s+(\d+)" % p, text) for p in
                 ("MAJOR", "MINOR", "PATCH")]
        if all(parts):
            return ".".join(m.group(1) for m in parts)
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # Python < 3.8
        return None
    try:
        return version("libspx")
    except PackageNotFoundError:
        return None


_VERSION = _package_version()


def __getattr__(name):
    # __version__ without a checkout or installed metadata: the loaded library's (lazy, so that
    # `import spx` works without the library).
    if name == "__version__":
        return _VERSION if _VERSION is not None else "%d.%d.%d" % library_version()
    raise AttributeError("module 'spx' has no attribute %r" % name)


def library_version() -> tuple:
    """(major, minor, patch) of the loaded libspx.so (spxGetVersion)."""
    import ctypes

    from ._lib import call

    v = ctypes.c_int()
    call("spxGetVersion", ctypes.byref(v))
    return v.value // 10000, v.value // 100 % 100, v.value % 100


def status_name(status) -> str:
    """spxGetStatusName: "SPX_STATUS_INVALID_VALUE" etc."""
    from ._lib import lib

    return lib().spxGetStatusName(int(status)).decode()


def status_string(status) -> str:
    """spxGetStatusString: a one-line description of a status."""
    from ._lib import lib

    return lib().spxGetStatusString(int(status)).decode()


__all__ = [
    "Activation", "AllocFailedError", "ArchMismatchError", "BcrsMatrix", "CsrMatrix", "DataType", "Dense", "DenseRoute",
    "EllMatrix", "ExecutionFailedError", "Format", "Handle", "InternalError", "InvalidValueError",
    "LibraryNotFoundError", "NMMatrix", "NotInitializedError", "NotSupportedError", "Order",
    "Plan", "PlanInfo", "PlanOption", "PlanOptions", "PointerMode", "SDDMMAlg", "SDDMMPlan", "SparseMatrix", "SpMMAlg",
    "ValuesLayout",
    "SpMMPlan", "SpxError", "SpxIOError", "Status", "check_nm", "default_handle", "ell_width_for",
    "library_path", "library_version", "prune_nm", "prune_uniform", "sddmm", "spmm",
    "status_name", "status_string",
]
