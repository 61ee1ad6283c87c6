"""Per kind, how a dense weight becomes sparse-format arrays (pruned, or read from the zeros it
already has), and how those arrays become an spx matrix again.

A layer keeps its format as plain tensors (module buffers, so ``state_dict`` and ``.to`` see
them) plus a few integers; ``make_matrix`` rebuilds the spx matrix over them whenever the
native plan is (re)built. Formats and their arrays:

  nm    values (rows x kc), indices (rows/l x kc)           params n, m, l
  ell   col_ind, values (rows * width, column-major)        no params (width = len / rows)
  bcrs  block_row_ptr, block_col, values (nvec * V)         params vec_len
  csr   row_ptr, col_ind, values                            no params
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch

from ..errors import InvalidValueError
from ..prune import check_nm, ell_width_for, prune_nm, prune_uniform
from ..sparse import BcrsMatrix, CsrMatrix, EllMatrix, NMMatrix, SparseMatrix
from ._convert import quantize_per_tensor

#: The kinds from_dense and sparsify take ("auto" resolves to one of the others).
KINDS = ("uniform", "vector", "nm", "int8", "csr", "auto")

#: Format -> the names of its arrays (index arrays first, values last).
FORMAT_ARRAYS = {
    "nm": ("indices", "values"),
    "ell": ("col_ind", "values"),
    "bcrs": ("block_row_ptr", "block_col", "values"),
    "csr": ("row_ptr", "col_ind", "values"),
}
KIND_FORMAT = {"uniform": "ell", "vector": "bcrs", "nm": "nm", "int8": "bcrs", "csr": "csr"}
#: The kinds that prune to a requested sparsity; why the others take none.
TAKES_SPARSITY = ("uniform", "vector", "int8")
WHY_NO_SPARSITY = {"csr": "it keeps the zeros the weight already has",
                   "auto": "it keeps the zeros the weight already has, in the format they fit",
                   "nm": "n of every m columns are kept: set n and m"}

#: Input / output types a layer may have (int8 layers quantize such inputs per call).
FLOAT_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


@dataclass
class Packed:
    """A weight in one format: its arrays (contiguous, on the weight's device), the format's
    integers and, for int8, the per-tensor weight scale (fp32, one element)."""

    kind: str
    fmt: str
    arrays: dict
    params: dict = field(default_factory=dict)
    scale: torch.Tensor | None = None


def check_dtype(kind: str, dtype) -> None:
    if dtype not in FLOAT_DTYPES:
        raise InvalidValueError(f"a SparseLinear of kind {kind!r} computes in float32, float16 or "
                                f"bfloat16, not {dtype}")


def make_matrix(fmt: str, arrays: dict, shape, params: dict) -> SparseMatrix:
    """The spx matrix over a layer's arrays (no copy: it points at them)."""
    if fmt == "nm":
        return NMMatrix(arrays["values"], arrays["indices"], shape, params["n"], params["m"],
                        params["l"])
    if fmt == "ell":
        return EllMatrix(arrays["col_ind"], arrays["values"], shape)
    if fmt == "bcrs":
        return BcrsMatrix(arrays["block_row_ptr"], arrays["block_col"], arrays["values"], shape,
                          params["vec_len"])
    if fmt == "csr":
        return CsrMatrix(arrays["row_ptr"], arrays["col_ind"], arrays["values"], shape)
    raise InvalidValueError(f"unknown format {fmt!r}")


def unpack(A: SparseMatrix) -> Packed:
    """The arrays of an spx matrix over torch tensors, as a layer stores them (1-D ELL arrays in
    column-major order, 1-D BCRS values); the kind is the one that produces this format."""
    arr = A.arrays
    if isinstance(A, NMMatrix):
        return Packed("nm", "nm", {"indices": arr["indices"], "values": arr["values"]},
                      {"n": A.n, "m": A.m, "l": A.l})
    if isinstance(A, EllMatrix):
        # A 2-D (rows, width) array in column-major order: its transpose is C-contiguous.
        flat = {k: (v.t().reshape(-1) if v.dim() == 2 else v) for k, v in arr.items()}
        return Packed("uniform", "ell", {"col_ind": flat["col_ind"], "values": flat["values"]})
    if isinstance(A, BcrsMatrix):
        kind = "vector" if arr["values"].is_floating_point() else "int8"
        return Packed(kind, "bcrs", {"block_row_ptr": arr["block_row_ptr"],
                                     "block_col": arr["block_col"],
                                     "values": arr["values"].reshape(-1)},
                      {"vec_len": A.vec_len})
    if isinstance(A, CsrMatrix):
        return Packed("csr", "csr", {k: arr[k] for k in FORMAT_ARRAYS["csr"]})
    raise InvalidValueError(f"SparseLinear cannot hold a {type(A).__name__}")


# ------------------------------------------------------------------ pruning by kind


def _top_vectors(w: torch.Tensor, sparsity: float, vec_len: int):
    """Per block row of vec_len rows, the round(cols * (1 - sparsity)) vec_len x 1 column
    vectors of largest L2 norm (in column order): (vectors (brows, vec_len, keep) in w's dtype,
    block_col, block_row_ptr)."""
    rows, cols = w.shape
    if vec_len < 1 or rows % vec_len != 0:
        raise InvalidValueError(f"out_features ({rows}) must be a multiple of vec_len ({vec_len})")
    brows = rows // vec_len
    keep = ell_width_for(cols, sparsity)
    blocks = w.reshape(brows, vec_len, cols)
    kept = blocks.float().norm(dim=1).topk(keep, dim=1).indices.sort(dim=1).values  # (brows, keep)
    vectors = blocks.gather(2, kept[:, None, :].expand(brows, vec_len, keep))
    block_col = kept.to(torch.int32).contiguous().reshape(-1)
    block_row_ptr = torch.arange(brows + 1, device=w.device, dtype=torch.int32) * keep
    return vectors, block_col, block_row_ptr


def _vector_values(vectors: torch.Tensor) -> torch.Tensor:
    return vectors.permute(0, 2, 1).contiguous().reshape(-1)  # a vector's values together


def prune_vectors(weight: torch.Tensor, sparsity: float, vec_len: int = 8) -> BcrsMatrix:
    """Vector-sparse weights in the weight's dtype: per block row of vec_len output rows, the
    same number (a fraction 1 - sparsity of the columns) of vec_len x 1 vectors, those of
    largest L2 norm, kept as BCRS(vec_len)."""
    w = weight.detach()
    vectors, block_col, block_row_ptr = _top_vectors(w, sparsity, vec_len)
    return BcrsMatrix(block_row_ptr, block_col, _vector_values(vectors), tuple(w.shape), vec_len)


def prune_vectors_int8(weight: torch.Tensor, sparsity: float, vec_len: int = 8):
    """Vector-sparse int8 weights: the vectors of :func:`prune_vectors`, quantized with one scale
    (max |w| / 127). Returns (BcrsMatrix of int8, scale: fp32 tensor of one element)."""
    w = weight.detach().float()
    vectors, block_col, block_row_ptr = _top_vectors(w, sparsity, vec_len)
    q, scale = quantize_per_tensor(vectors)
    return BcrsMatrix(block_row_ptr, block_col, _vector_values(q), tuple(w.shape), vec_len), scale


def _with_dtype(A: SparseMatrix, dtype) -> Packed:
    p = unpack(A)
    p.arrays["values"] = p.arrays["values"].to(dtype)
    return p


# ------------------------------------------------------------------ formats from existing zeros


def csr_from_zeros(w: torch.Tensor) -> Packed:
    nz = w != 0
    row_ptr = torch.zeros(w.shape[0] + 1, dtype=torch.int32, device=w.device)
    row_ptr[1:] = nz.sum(dim=1).cumsum(0)
    col_ind = nz.nonzero()[:, 1].to(torch.int32)  # row-major order, columns ascending in a row
    return Packed("csr", "csr", {"row_ptr": row_ptr, "col_ind": col_ind.contiguous(),
                                 "values": w[nz].contiguous()})


def ell_from_zeros(w: torch.Tensor, width: int) -> Packed:
    """Every row holds exactly `width` nonzeros (the caller checked)."""
    rows = w.shape[0]
    col = (w != 0).nonzero()[:, 1].reshape(rows, width)
    vals = w.gather(1, col)
    return Packed("uniform", "ell", {"col_ind": col.t().to(torch.int32).contiguous().reshape(-1),
                                     "values": vals.t().contiguous().reshape(-1)})


def bcrs_from_zeros(w: torch.Tensor, vec_len: int) -> Packed:
    """Every vec_len x 1 vector is all zero or all nonzero (the caller checked)."""
    rows, cols = w.shape
    blocks = w.reshape(rows // vec_len, vec_len, cols)
    kept = (blocks != 0).any(dim=1)  # (brows, cols)
    block_row_ptr = torch.zeros(rows // vec_len + 1, dtype=torch.int32, device=w.device)
    block_row_ptr[1:] = kept.sum(dim=1).cumsum(0)
    at = kept.nonzero()  # (nvec, 2): block row, column; in block-row then column order
    values = blocks[at[:, 0], :, at[:, 1]]  # (nvec, vec_len)
    return Packed("vector", "bcrs", {"block_row_ptr": block_row_ptr,
                                     "block_col": at[:, 1].to(torch.int32).contiguous(),
                                     "values": values.contiguous().reshape(-1)},
                  {"vec_len": vec_len})


def auto(w: torch.Tensor, *, n: int, m: int, l: int, vec_len: int, handle=None) -> Packed:
    """The format the weight's zero pattern already has, most structured first:
    vector-wise n:m (groups of l rows; spx.check_nm) -> "nm"; every vec_len x 1 vector (in
    blocks of vec_len rows) all zero or all nonzero -> "vector"; the same number of nonzeros in
    every row -> "uniform"; anything else -> "csr". Nothing is pruned: the product is the
    weight's. A weight without zeros is refused (every format would only add work)."""
    rows, cols = w.shape
    nz = w != 0
    nnz = int(nz.sum())
    if nnz == w.numel():
        raise InvalidValueError("kind='auto' reads the zeros of an already pruned weight, and this "
                                "one has none: pick a kind that prunes (with a sparsity)")
    if cols % m == 0 and rows % l == 0 and 1 <= n <= m and check_nm(w.float(), n, m, l,
                                                                     handle=handle):
        # At most n nonzero columns per window: pruning to n keeps every one of them.
        p = _with_dtype(prune_nm(w.float().contiguous(), n, m, l, handle=handle), w.dtype)
        p.kind = "nm"
        return p
    if vec_len > 1 and rows % vec_len == 0:
        vectors = nz.reshape(rows // vec_len, vec_len, cols).any(dim=1)
        if nnz == vec_len * int(vectors.sum()):
            return bcrs_from_zeros(w, vec_len)
    counts = nz.sum(dim=1)
    if bool((counts == counts[0]).all()):
        return ell_from_zeros(w, int(counts[0]))
    return csr_from_zeros(w)


def pack(kind: str, weight: torch.Tensor, *, sparsity: float, n: int, m: int, l: int,
         vec_len: int, handle=None) -> Packed:
    """The weight (rows x cols, on a CUDA device, fp32 / fp16 / bf16) in the format of `kind`,
    values in the weight's dtype (int8: quantized, with the scale)."""
    if kind not in KINDS:
        raise InvalidValueError(f"kind must be one of {KINDS}, not {kind!r}")
    w = weight.detach().contiguous()
    check_dtype(kind, w.dtype)
    if kind == "uniform":
        # The device pruner reads fp32; fp16 / bf16 widen exactly and narrow back exactly.
        p = _with_dtype(prune_uniform(w.float(), sparsity=sparsity, handle=handle), w.dtype)
    elif kind == "nm":
        p = _with_dtype(prune_nm(w.float(), n, m, l, handle=handle), w.dtype)
    elif kind == "vector":
        p = unpack(prune_vectors(w, sparsity, vec_len))
    elif kind == "int8":
        A, scale = prune_vectors_int8(w, sparsity, vec_len)
        p = unpack(A)
        p.scale = scale
    elif kind == "csr":
        p = csr_from_zeros(w)
    else:
        p = auto(w, n=n, m=m, l=l, vec_len=vec_len, handle=handle)
    p.kind = kind if kind != "auto" else p.kind
    return p
