"""Pruning on the device: dense fp32 -> N:M (spxPruneNM) or uniform sparsity as ELL
(spxPruneUniform), and the N:M pattern check (spxCheckNM). Results are allocated in the dense
array's library (torch in, torch out) and written on the handle's stream."""
from __future__ import annotations

import ctypes

from . import _backend
from ._arrays import view
from .dense import Dense
from .enums import DataType
from .handle import resolve
from ._lib import call
from .sparse import EllMatrix, NMMatrix


def _ptr(array):
    return ctypes.c_void_p(view(array).ptr) if array is not None else None


def _dense(dense):
    d = dense if isinstance(dense, Dense) else Dense(dense)
    return d, _backend.for_view(d.view)


def prune_nm(dense, n: int = 2, m: int = 4, l: int = 32, *, handle=None) -> NMMatrix:
    """Prunes a rows x cols fp32 device matrix to vector-wise N:M by magnitude: per group of `l`
    rows and window of `m` columns, the `n` columns of largest L2 norm over the group (ties: the
    lower column), as spxHostPruneNM does. rows % l == 0 and cols % m == 0."""
    d, backend = _dense(dense)
    h = resolve(handle, [d.view])
    rows, cols = d.shape
    valid = 1 <= n <= m and l >= 1 and cols % m == 0 and rows % l == 0
    kc = cols // m * n if valid else 0
    values = indices = None
    if valid:
        values = backend.empty((rows, kc), DataType.R_32F, d.view.device)
        indices = backend.empty((rows // l, kc), DataType.R_32I, d.view.device)
    # Invalid parameters reach the library with no outputs: its message says what is wrong.
    call("spxPruneNM", h.ptr, rows, cols, ctypes.c_void_p(d.ptr), d.ld, int(d.order), int(d.dtype),
         n, m, l, _ptr(values), _ptr(indices))
    return NMMatrix(values, indices, (rows, cols), n, m, l)


def check_nm(dense, n: int, m: int, l: int, *, handle=None) -> bool:
    """True when every group of `l` rows of the fp32 device matrix uses at most `n` columns of
    every window of `m` (blocks until the answer is known)."""
    d, _ = _dense(dense)
    h = resolve(handle, [d.view])
    ok = ctypes.c_int()
    call("spxCheckNM", h.ptr, d.shape[0], d.shape[1], ctypes.c_void_p(d.ptr), d.ld, int(d.order),
         int(d.dtype), n, m, l, ctypes.byref(ok))
    return bool(ok.value)


def ell_width_for(cols: int, sparsity: float) -> int:
    """Slots per row that keep a fraction 1 - sparsity of `cols` (at least 1)."""
    if not 0.0 <= sparsity < 1.0:
        raise ValueError(f"sparsity ({sparsity}) must be in [0, 1)")
    return max(1, int(round(cols * (1.0 - sparsity))))


def prune_uniform(dense, ell_width: int | None = None, *, sparsity: float | None = None,
                  handle=None) -> EllMatrix:
    """Prunes a rows x cols fp32 device matrix to uniform sparsity (`ell_width` nonzeros in
    every row, or a fraction `sparsity` removed) by the column l2 aggregation of the
    uniform-sparsity paper, as spxHostPruneUniform does. Returns an fp32 EllMatrix; for fp16
    use ``A.with_values(A.values.half())`` (torch) or ``.astype('float16')`` (CuPy)."""
    d, backend = _dense(dense)
    rows, cols = d.shape
    if (ell_width is None) == (sparsity is None):
        raise ValueError("give exactly one of ell_width and sparsity")
    if ell_width is None:
        ell_width = ell_width_for(cols, sparsity)
    h = resolve(handle, [d.view])
    col_ind = values = None
    if 1 <= ell_width <= cols:
        col_ind = backend.empty((rows * ell_width,), DataType.R_32I, d.view.device)
        values = backend.empty((rows * ell_width,), DataType.R_32F, d.view.device)
    call("spxPruneUniform", h.ptr, rows, cols, ctypes.c_void_p(d.ptr), d.ld, int(d.order),
         int(d.dtype), ell_width, _ptr(col_ind), _ptr(values))
    return EllMatrix(col_ind, values, (rows, cols))
