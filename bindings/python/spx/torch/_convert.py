"""Conversions over torch tensors: per-tensor int8 quantization, and any spx sparse matrix back
to a dense tensor (for references, tests and ``SparseLinear.dense_weight``)."""
from __future__ import annotations

import torch

from ..sparse import BcrsMatrix, CsrMatrix, EllMatrix, NMMatrix, SparseMatrix


def quantize_per_tensor(x: torch.Tensor):
    """(int8 tensor, fp32 scale tensor of one element): x ~= q * scale, scale = max|x| / 127
    (so no value saturates), computed on the device without synchronizing."""
    scale = (x.detach().abs().amax().float() / 127.0).clamp_(min=torch.finfo(torch.float32).tiny)
    q = torch.round(x.detach().float() / scale).clamp_(-127, 127).to(torch.int8)
    return q, scale.reshape(1)


def to_dense(A: SparseMatrix) -> torch.Tensor:
    """The dense matrix a sparse one (over torch tensors) represents, computed with torch ops
    on A's device (values in A's dtype; integer values as int32)."""
    rows, cols = A.shape
    arr = A.arrays
    vals = arr["values"]
    vals = vals.to(torch.int32) if not vals.is_floating_point() else vals
    dev = vals.device
    out = torch.zeros(rows, cols, dtype=vals.dtype, device=dev)
    if isinstance(A, NMMatrix):
        kc = cols // A.m * A.n
        base = (torch.arange(kc, device=dev) // A.n * A.m)[None, :]
        col = (base + arr["indices"].reshape(rows // A.l, kc).long()).repeat_interleave(A.l, dim=0)
        out.scatter_(1, col, vals.reshape(rows, kc))
    elif isinstance(A, EllMatrix):
        w = A.ell_width
        col = arr["col_ind"].reshape(-1).reshape(w, rows).t().long() if arr["col_ind"].dim() == 1 \
            else arr["col_ind"].long()
        v = vals.reshape(w, rows).t() if vals.dim() == 1 else vals
        pad = col < 0
        # Padded slots add a zero to column 0, so they cannot overwrite a real entry.
        out.scatter_add_(1, col.masked_fill(pad, 0), v.masked_fill(pad, 0))
    elif isinstance(A, BcrsMatrix):
        V = A.vec_len
        nvec = A.num_vectors
        counts = torch.diff(arr["block_row_ptr"].long())
        brow = torch.repeat_interleave(torch.arange(rows // V, device=dev), counts)
        r = (brow[:, None] * V + torch.arange(V, device=dev)[None, :]).reshape(-1)
        c = arr["block_col"].long().repeat_interleave(V)
        out[r, c] = vals.reshape(nvec * V)
    elif isinstance(A, CsrMatrix):
        counts = torch.diff(arr["row_ptr"].long())
        r = torch.repeat_interleave(torch.arange(rows, device=dev), counts)
        out[r, arr["col_ind"].long()] = vals
    else:
        raise TypeError(f"cannot densify {type(A).__name__}")
    return out
