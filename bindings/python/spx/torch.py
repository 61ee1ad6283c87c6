"""spx.torch: sparse replacements of ``torch.nn.Linear`` for inference.

    from spx.torch import SparseLinear
    layer = SparseLinear.from_dense(linear, kind="nm", n=2, m=4)   # or "uniform", "int8"
    y = layer(x)                                                  # x: (..., in_features)

A linear layer computes Y = X W^T. libspx keeps the sparse operand on the left, so the layer
runs Y^T = W X^T: W is the sparse matrix, X (batch x in, row-major) is read in place as the
column-major matrix X^T, and Y (batch x out, row-major) is written as the column-major Y^T.
No transposes or copies happen. One plan per batch size is analyzed on first use and kept
(least recently used first out), and work runs on torch's current stream.

Kinds:
  * ``"nm"``: vector-wise N:M pruning on the GPU (spxPruneNM), fp32 (NM family kernels).
  * ``"uniform"``: uniform sparsity (spxPruneUniform), fp32, or fp16 with dtype=torch.float16
    (ELL family kernels).
  * ``"int8"``: vector-sparse BCRS(vec_len) with int8 weights (vectors of vec_len output rows
    kept by L2 norm, the same number in every block row; one per-tensor scale). Inputs are
    quantized per call to int8 with a per-tensor scale (max |x| / 127), the product accumulates
    in int32 and alpha = weight_scale * input_scale dequantizes it into the float output, as a
    device scalar (no host synchronization). Runs on the SR-BCRS family where the library has
    it, else on its generic kernel.
"""
from __future__ import annotations

from collections import OrderedDict

import torch
from torch import nn

from .plan import SpMMPlan
from .prune import ell_width_for, prune_nm, prune_uniform
from .sparse import BcrsMatrix, CsrMatrix, EllMatrix, NMMatrix, SparseMatrix

__all__ = ["SparseLinear", "to_dense", "prune_vectors_int8", "quantize_per_tensor"]

KINDS = ("nm", "uniform", "int8")


def quantize_per_tensor(x: torch.Tensor):
    """(int8 tensor, fp32 scale tensor of one element): x ~= q * scale, scale = max|x| / 127
    (so no value saturates), computed on the device without synchronizing."""
    scale = (x.detach().abs().amax().float() / 127.0).clamp_(min=torch.finfo(torch.float32).tiny)
    q = torch.round(x.detach().float() / scale).clamp_(-127, 127).to(torch.int8)
    return q, scale.reshape(1)


def prune_vectors_int8(weight: torch.Tensor, sparsity: float, vec_len: int = 8):
    """Vector-sparse int8 weights: splits the (out x in) weight into vec_len x 1 column vectors,
    keeps in every block row of vec_len rows the round(in * (1 - sparsity)) vectors of largest
    L2 norm, quantizes the kept values with one scale (max |w| / 127). Returns
    (BcrsMatrix of int8, scale: fp32 tensor of one element)."""
    w = weight.detach().float()
    rows, cols = w.shape
    if rows % vec_len != 0:
        raise ValueError(f"out_features ({rows}) must be a multiple of vec_len ({vec_len})")
    brows = rows // vec_len
    keep = ell_width_for(cols, sparsity)
    blocks = w.reshape(brows, vec_len, cols)
    kept = blocks.norm(dim=1).topk(keep, dim=1).indices.sort(dim=1).values  # (brows, keep)
    vectors = blocks.gather(2, kept[:, None, :].expand(brows, vec_len, keep))
    q, scale = quantize_per_tensor(vectors)
    values = q.permute(0, 2, 1).contiguous().reshape(-1)  # the vec_len values of a vector together
    block_col = kept.to(torch.int32).contiguous().reshape(-1)
    block_row_ptr = (torch.arange(brows + 1, device=w.device, dtype=torch.int32) * keep)
    return BcrsMatrix(block_row_ptr, block_col, values, (rows, cols), vec_len), scale


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


class SparseLinear(nn.Module):
    """y = x W^T + b with a sparse W, for inference (no autograd). Build it with
    :meth:`from_dense`; ``dense_weight()`` returns the pruned (dequantized) weight."""

    def __init__(self, weight: SparseMatrix, bias: torch.Tensor | None, kind: str, *,
                 weight_scale: torch.Tensor | None = None, handle=None, max_plans: int = 8):
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        if (kind == "int8") != (weight_scale is not None):
            raise ValueError("weight_scale is needed by (and only by) kind='int8'")
        self.weight = weight
        self.out_features, self.in_features = weight.shape
        self.kind = kind
        self.bias = None if bias is None else bias.detach()
        self.weight_scale = weight_scale
        self.handle = handle
        self.max_plans = max_plans
        self._plans: OrderedDict = OrderedDict()
        self._zero = None if weight_scale is None else torch.zeros(1, device=weight_scale.device)

    @classmethod
    def from_dense(cls, linear: nn.Linear, kind: str = "nm", *, n: int = 2, m: int = 4,
                   l: int = 32, sparsity: float = 0.5, vec_len: int = 8, dtype=None,
                   handle=None) -> "SparseLinear":
        """Prunes a CUDA nn.Linear. nm: n of every m input columns per group of l output rows;
        uniform: a fraction `sparsity` of each row removed, values in `dtype` (torch.float32 or
        torch.float16); int8: vec_len x 1 vectors, a fraction `sparsity` removed."""
        w = linear.weight.detach()
        if not w.is_cuda:
            raise ValueError("move the layer to the GPU first (linear.cuda())")
        w = w.float().contiguous()
        bias = None if linear.bias is None else linear.bias.detach()
        scale = None
        if kind == "nm":
            A = prune_nm(w, n, m, l, handle=handle)
        elif kind == "uniform":
            A = prune_uniform(w, sparsity=sparsity, handle=handle)
        elif kind == "int8":
            A, scale = prune_vectors_int8(w, sparsity, vec_len)
        else:
            raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
        if dtype is not None and kind != "int8" and dtype != torch.float32:
            A = A.with_values(A.values.to(dtype))
        if bias is not None and kind != "int8":
            bias = bias.to(A.values.dtype)
        return cls(A, bias, kind, weight_scale=scale, handle=handle)

    def dense_weight(self) -> torch.Tensor:
        """The weight this layer multiplies by, dense (int8: dequantized, fp32)."""
        w = to_dense(self.weight)
        return w.float() * self.weight_scale if self.kind == "int8" else w

    def _plan(self, key, B, C) -> SpMMPlan:
        plan = self._plans.get(key)
        if plan is None:
            plan = SpMMPlan(self.weight, B, C, handle=self.handle, out_dtype=None, out_order=None,
                            compute_type=None, alg=0)
            self._plans[key] = plan
            while len(self._plans) > self.max_plans:
                self._plans.popitem(last=False)[1].close()
        else:
            self._plans.move_to_end(key)
        return plan

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.requires_grad and torch.is_grad_enabled():
            raise RuntimeError("SparseLinear is for inference: run it under torch.no_grad() or "
                               "torch.inference_mode()")
        if x.shape[-1] != self.in_features:
            raise ValueError(f"expected {self.in_features} input features, got {x.shape[-1]}")
        lead = x.shape[:-1]
        x2 = x.reshape(-1, self.in_features)
        if not x2.is_contiguous():
            x2 = x2.contiguous()
        batch = x2.shape[0]
        if self.kind == "int8":
            out_dtype = x.dtype if x.dtype in (torch.float32, torch.float16) else torch.float32
            xq, x_scale = quantize_per_tensor(x2)
            operand = xq
        else:
            out_dtype = self.weight.values.dtype
            if x.dtype != out_dtype:
                raise TypeError(f"this layer takes {out_dtype} inputs, not {x.dtype}")
            operand = x2
        y = torch.empty(batch, self.out_features, dtype=out_dtype, device=x.device)
        if batch > 0:
            # Y^T (out x batch, column-major) = W (out x in) @ X^T (in x batch, column-major).
            plan = self._plan((batch, operand.dtype, out_dtype, x.device), operand.t(), y.t())
            if self.kind == "int8":
                plan(operand.t(), y.t(), alpha=self.weight_scale * x_scale, beta=self._zero)
            else:
                plan(operand.t(), y.t())
        if self.bias is not None:
            y.add_(self.bias.to(out_dtype))
        return y.reshape(*lead, self.out_features)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"kind={self.kind}, weight={self.weight!r}, bias={self.bias is not None}")
