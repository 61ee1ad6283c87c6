"""One-shot products: analyze, execute, free. For repeated products build a Plan instead (the
one-shot form re-analyzes each time, and freeing the plan waits for the device)."""
from __future__ import annotations

from .dense import as_dense
from .enums import SpMMAlg
from .plan import SDDMMPlan, SpMMPlan


def spmm(A, B, out=None, *, alpha=1.0, beta=0.0, handle=None, out_dtype=None, out_order=None,
         compute_type=None, alg=SpMMAlg.DEFAULT):
    """C = alpha * A @ B + beta * C with A an spx sparse matrix and B a dense device array (torch,
    CuPy, any __cuda_array_interface__ / DLPack array, or spx.Dense). Returns C: `out`, or a new
    array of B's library (shape A.rows x B.cols, order of B unless out_order says otherwise)."""
    b = as_dense(B)
    with SpMMPlan(A, b, out, handle=handle, out_dtype=out_dtype, out_order=out_order,
                  compute_type=compute_type, alg=alg) as plan:
        return plan(b, out, alpha=alpha, beta=beta, handle=handle)


def sddmm(A, B, C, *, alpha=1.0, beta=0.0, handle=None, compute_type=None, alg=SpMMAlg.DEFAULT):
    """C = alpha * (A @ B) .* spy(C) + beta * C with C an spx sparse matrix (values written in
    place; C is returned)."""
    with SDDMMPlan(A, B, C, handle=handle, compute_type=compute_type, alg=alg) as plan:
        return plan(A, B, C, alpha=alpha, beta=beta, handle=handle)
