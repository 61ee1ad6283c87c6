"""spx.torch.SparseLinear in a small MLP against nn.Linear on the pruned weights (float64
reference), with error bounds propagated layer by layer from the arithmetic."""
import pytest

torch = pytest.importorskip("torch")
from spx._lib import has_function  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU"),
    pytest.mark.skipif(torch.cuda.is_available() and not has_function("spxSpMM_execute"),
                       reason="the loaded libspx predates spxSpMM_execute: rebuild it"),
]

from torch import nn  # noqa: E402

import spx  # noqa: E402
from spx.torch import SparseLinear, quantize_per_tensor, to_dense  # noqa: E402

U32 = 2.0 ** -24
UNIT = {torch.float32: U32, torch.float16: 2.0 ** -11}
DEV = "cuda"


def mlp():
    torch.manual_seed(3)
    return nn.Sequential(nn.Linear(256, 384), nn.ReLU(), nn.Linear(384, 128)).to(DEV)


def exact_weight(layer: SparseLinear) -> torch.Tensor:
    """The weight the layer represents, exactly, in float64 (int8: integer values times the
    fp32 scale, multiplied in float64)."""
    w = to_dense(layer.weight).double()
    return w * layer.weight_scale.double() if layer.kind == "int8" else w


def layer_bound(layer, W, bias, x_ref, x_err, out_dtype):
    """Bound on |y - y_ref| for y = x W^T + b computed by `layer` from an input within x_err of
    x_ref (float64 tensors). Float kinds: fp32 accumulation, then the output rounding of the
    product and of the bias addition (each at most a unit of |x| |W|^T + |b|). int8: the input
    quantization error (at most half a step, step <= max|x| / 127), then the int32 -> fp32
    conversion, the alpha scaling and the bias addition roundings."""
    k = W.shape[1]
    absW = W.abs()
    b = bias.double() if bias is not None else torch.zeros(W.shape[0], dtype=torch.float64, device=W.device)
    y_ref = x_ref @ W.T + b
    if layer.kind == "int8":
        step = (x_ref.abs().max() + x_err.max()) / 127
        dx = x_err + step / 2 * (1 + 1e-6) + U32 * (x_ref.abs() + x_err)
        acc = dx @ absW.T
        mag = (x_ref.abs() + dx) @ absW.T + b.abs()
        return y_ref, acc + (4 * U32 + 2 * UNIT[out_dtype]) * (mag + acc)
    mag = (x_ref.abs() + x_err) @ absW.T
    acc = (k + 2) * U32 * mag + x_err @ absW.T
    return y_ref, acc + 2 * UNIT[out_dtype] * (mag + b.abs() + acc)


def check_mlp(model, sparse, x):
    """Runs the sparse MLP and bounds its output against the float64 dense-pruned reference."""
    l1, l2 = sparse[0], sparse[2]
    assert isinstance(l1, SparseLinear) and isinstance(l2, SparseLinear)
    with torch.no_grad():
        y = sparse(x)
        # nn.Linear on the pruned weights, in float64.
        dense1 = nn.Linear(256, 384).to(DEV).double()
        dense2 = nn.Linear(384, 128).to(DEV).double()
        for d, s, ref in ((dense1, l1, model[0]), (dense2, l2, model[2])):
            d.weight.copy_(exact_weight(s))
            d.bias.copy_(s.bias.double() if s.bias is not None else ref.bias.double())
        y_ref_model = dense2(torch.relu(dense1(x.double())))
    xd = x.double().reshape(-1, 256)
    h_ref, e1 = layer_bound(l1, dense1.weight, dense1.bias, xd, torch.zeros_like(xd), y.dtype)
    h_ref = torch.relu(h_ref)  # ReLU is 1-Lipschitz: the bound passes through
    y_ref, e2 = layer_bound(l2, dense2.weight, dense2.bias, h_ref, e1, y.dtype)
    assert torch.allclose(y_ref, y_ref_model.reshape(y_ref.shape), rtol=1e-12, atol=1e-12)
    err = (y.double().reshape(y_ref.shape) - y_ref).abs()
    assert y_ref.abs().sum() > 0
    assert not (err > e2).any(), f"worst error {float((err - e2).max()):.3e} above the bound"
    return y


@pytest.mark.parametrize("kind,kw,dtype", [
    ("nm", dict(n=2, m=4, l=32), torch.float32),
    ("uniform", dict(sparsity=0.75), torch.float32),
    ("uniform", dict(sparsity=0.5, dtype=torch.float16), torch.float16),
    ("int8", dict(sparsity=0.5, vec_len=8), torch.float32),
])
def test_mlp(kind, kw, dtype):
    model = mlp()
    sparse = nn.Sequential(SparseLinear.from_dense(model[0], kind, **kw), nn.ReLU(),
                           SparseLinear.from_dense(model[2], kind, **kw))
    x = (torch.rand(33, 256, device=DEV) * 2 - 1).to(dtype)
    y = check_mlp(model, sparse, x)
    assert y.shape == (33, 128) and y.dtype == dtype
    # A 3-D input and a second batch size through the same plan, then the first again.
    plan = sparse[0]._native().plan
    x3 = (torch.rand(2, 5, 256, device=DEV) * 2 - 1).to(dtype)
    assert check_mlp(model, sparse, x3).shape == (2, 5, 128)
    check_mlp(model, sparse, x)
    assert sparse[0]._native().plan is plan


def test_pruning_patterns():
    model = mlp()
    nm = SparseLinear.from_dense(model[0], "nm", n=2, m=4, l=32)
    w = nm.dense_weight()
    assert spx.check_nm(w, 2, 4, 32)
    kept = w != 0
    assert torch.equal(w[kept], model[0].weight.detach()[kept])  # kept values are the originals
    uni = SparseLinear.from_dense(model[0], "uniform", sparsity=0.75)
    assert ((uni.dense_weight() != 0).sum(dim=1) == 64).all()
    q = SparseLinear.from_dense(model[0], "int8", sparsity=0.5, vec_len=8)
    wq = to_dense(q.weight)
    assert wq.abs().max() <= 127 and q.weight.dtype == spx.DataType.R_8I
    vec_nonzero = (wq.reshape(384 // 8, 8, 256) != 0).any(dim=1)
    assert (vec_nonzero.sum(dim=1) <= 128).all()  # half the vectors of every block row kept


def test_quantization_is_within_half_a_step():
    x = torch.rand(17, 40, device=DEV) * 6 - 3
    q, scale = quantize_per_tensor(x)
    assert q.dtype == torch.int8 and scale.shape == (1,)
    assert ((q.double() * scale.double() - x.double()).abs() <= scale.double() / 2 * (1 + 1e-6) + 1e-7).all()


def test_inference_only_and_type_checks():
    layer = SparseLinear.from_dense(mlp()[0], "nm")
    x = torch.rand(4, 256, device=DEV, requires_grad=True)
    with pytest.raises(RuntimeError, match="inference"):
        layer(x)
    with torch.no_grad():
        with pytest.raises(spx.InvalidValueError, match="float16"):
            layer(x.half())
        assert layer(x).shape == (4, 384)
    with pytest.raises(ValueError, match="GPU"):
        SparseLinear.from_dense(nn.Linear(8, 8), "nm")
