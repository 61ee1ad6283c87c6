"""spx.torch: sparse replacements of ``torch.nn.Linear`` for inference.

    from spx.torch import SparseLinear, sparsify
    layer = SparseLinear.from_dense(linear, kind="uniform", sparsity=0.8)   # keeps its dtype
    y = layer(x)                                # x: (..., in_features), any batch size
    model = sparsify(model, kind="uniform", sparsity=0.8, exclude=["*classifier*"])

A linear layer computes Y = X W^T; libspx keeps the sparse operand on the left, so a layer runs
Y^T = W X^T with X read in place as the column-major X^T and Y written as the column-major Y^T:
no transposes, no copies, one spxSpMM_execute per call through one plan analyzed for any batch
size. Work runs on torch's current stream; forward is legal under CUDA graph capture, and
``torch.compile(fullgraph=True)`` sees it as the custom op ``spx::sparse_linear``.

Files: _convert (quantization, to_dense), _kinds (pruning / packing per kind), _native (the plan
and the hot path), _op (the custom op), linear (SparseLinear), sparsify (whole models).
"""
from ._convert import quantize_per_tensor, to_dense
from ._kinds import KINDS, prune_vectors, prune_vectors_int8
from .linear import LayerInfo, SparseLinear
from .sparsify import sparse_layers, sparsify

__all__ = ["KINDS", "LayerInfo", "SparseLinear", "prune_vectors", "prune_vectors_int8",
           "quantize_per_tensor", "sparse_layers", "sparsify", "to_dense"]
