"""The fused SpMM epilogue through the Python API: Plan with PlanOptions(activation, bias, scale)
and set_epilogue against a float64 torch reference, refusals, and SparseLinear's bias fused into
its one spxSpMM_execute (fp32 and fp16 layers, a bias changed in place)."""
import pytest

torch = pytest.importorskip("torch")

import spx  # noqa: E402
from spx._lib import has_function  # noqa: E402
from spx.torch import SparseLinear, to_dense  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU"),
    pytest.mark.skipif(torch.cuda.is_available() and not has_function("spxPlanSetEpilogue"),
                       reason="the loaded libspx predates spxPlanSetEpilogue: rebuild it"),
]
DEV = "cuda"
U32 = 2.0 ** -24

ACTS = {
    spx.Activation.NONE: lambda u: u,
    spx.Activation.RELU: torch.relu,
    spx.Activation.GELU_TANH: lambda u: torch.nn.functional.gelu(u, approximate="tanh"),
    spx.Activation.SILU: torch.nn.functional.silu,
}


@pytest.mark.parametrize("act", list(ACTS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_plan_epilogue(act, dtype):
    torch.manual_seed(2)
    A = spx.prune_uniform(torch.rand(96, 64, device=DEV) * 2 - 1, sparsity=0.5)
    if dtype != torch.float32:
        A = A.with_values(A.values.to(dtype))
    m, k = A.shape
    B = (torch.rand(k, 24, device=DEV) * 2 - 1).to(dtype)
    bias = torch.rand(m, device=DEV) * 2 - 1
    scale = torch.rand(m, device=DEV) + 0.5
    with spx.PlanOptions(activation=act, bias=True, scale=True) as opts:
        plan = spx.Plan.spmm(A, B, options=opts)
    assert plan.info.route == 0
    plan.set_epilogue(bias, scale)
    assert plan.epilogue == (bias.data_ptr(), scale.data_ptr())
    C0 = (torch.rand(m, 24, device=DEV) * 2 - 1).to(dtype)
    C = plan(B, out=C0.clone(), alpha=1.5, beta=0.5)
    W, Bd = to_dense(A).double(), B.double()
    u = 1.5 * scale.double()[:, None] * (W @ Bd) + bias.double()[:, None]
    ref = ACTS[act](u) + 0.5 * C0.double()
    # fp32 accumulation (12 k + 16 units of 2^-24: ELL's 3xTF32 tensor-core tiles, the loosest
    # of its kernels) through the activations' slope (<= 1.2), their few fp32 operations, then
    # C's rounding.
    mag = 1.5 * scale.double()[:, None] * (W.abs() @ Bd.abs()) + bias.double().abs()[:, None]
    unit = U32 if dtype == torch.float32 else 2.0 ** -11
    bound = 1.2 * (12 * k + 16) * U32 * mag + 2.0 ** -20 * (u.abs() + ref.abs()) + \
        2 * unit * (ref.abs() + 0.5 * C0.double().abs())
    assert ((C.double() - ref).abs() <= bound).all()
    # No bias and no scale now: the activation alone.
    plan.set_epilogue(None, None)
    assert plan.epilogue == (None, None)
    C = plan(B)
    ref = ACTS[act](W @ Bd)
    assert ((C.double() - ref).abs() <= 1.2 * (12 * k + 16) * U32 * (W.abs() @ Bd.abs()) +
            2.0 ** -20 * 2 * ref.abs() + 2 * unit * ref.abs() + 1e-30).all()


def test_plan_epilogue_refusals():
    A = spx.prune_uniform(torch.rand(32, 32, device=DEV), sparsity=0.5)
    B = torch.rand(32, 4, device=DEV)
    plan = spx.Plan.spmm(A, B, options=spx.PlanOptions(activation=spx.Activation.RELU))
    with pytest.raises(spx.InvalidValueError, match="SPX_PLAN_OPTION_EPILOGUE_BIAS"):
        plan.set_epilogue(torch.zeros(32, device=DEV))
    with spx.PlanOptions(bias=True) as opts:
        plan = spx.Plan.spmm(A, B, options=opts)
    with pytest.raises(spx.InvalidValueError, match="float32"):
        plan.set_epilogue(torch.zeros(32, device=DEV, dtype=torch.float16))
    with pytest.raises(spx.InvalidValueError):
        plan.set_epilogue(torch.zeros(32))  # host memory
    with spx.PlanOptions(bias=True) as opts:
        with pytest.raises(spx.NotSupportedError, match="epilogue"):
            spx.Plan.spmm(A, B, options=opts, alg=spx.SpMMAlg.DENSE)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_sparse_linear_fuses_its_bias(dtype):
    torch.manual_seed(4)
    lin = torch.nn.Linear(128, 96).to(DEV)
    layer = SparseLinear.from_dense(lin, "uniform", sparsity=0.5, dtype=dtype)
    native = layer._native()
    assert native.fused_bias
    x = (torch.rand(9, 128, device=DEV) * 2 - 1).to(dtype)
    W = layer.dense_weight().double()

    def check(y):
        ref = x.double() @ W.T + layer.bias.double()
        mag = x.double().abs() @ W.abs().T + layer.bias.double().abs()
        unit = U32 if dtype == torch.float32 else 2.0 ** -11
        assert ((y.double() - ref).abs() <= (12 * 128 + 16) * U32 * mag + 2 * unit * mag).all()

    with torch.no_grad():
        check(layer(x))
        assert native.plan.epilogue[0] == native._bias32.data_ptr()
        layer.bias.mul_(-2.0)  # in place: the next call points the epilogue at the new values
        check(layer(x))
    no_bias = SparseLinear.from_dense(torch.nn.Linear(128, 96, bias=False).to(DEV), "uniform",
                                      sparsity=0.5, dtype=dtype)
    assert not no_bias._native().fused_bias


@pytest.mark.parametrize("beta", [0.0, 0.5])
def test_dense_route_epilogue(beta):
    """The dense route: beta 0 runs cuBLAS then the epilogue in place (the fp16 product rounded
    once more first); beta != 0 runs the sparse decision the plan keeps."""
    torch.manual_seed(5)
    A = spx.prune_uniform(torch.rand(80, 64, device=DEV) * 2 - 1, sparsity=0.5)
    A = A.with_values(A.values.to(torch.float16))
    m, k = A.shape
    B = (torch.rand(k, 16, device=DEV) * 2 - 1).half()
    bias = torch.rand(m, device=DEV) * 2 - 1
    with spx.PlanOptions(activation=spx.Activation.SILU, bias=True,
                         dense_route=spx.DenseRoute.ALWAYS) as opts:
        plan = spx.Plan.spmm(A, B, options=opts)
    assert plan.info.route == 1
    plan.set_epilogue(bias)
    C0 = (torch.rand(m, 16, device=DEV) * 2 - 1).half()
    C = plan(B, out=C0.clone(), beta=beta)
    W = to_dense(A).double()
    u = W @ B.double() + bias.double()[:, None]
    ref = ACTS[spx.Activation.SILU](u) + beta * C0.double()
    mag = W.abs() @ B.double().abs()
    unit = 2.0 ** -11
    bound = 1.2 * ((12 * k + 16) * U32 + unit) * mag + 2.0 ** -20 * (u.abs() + ref.abs()) + \
        2 * unit * (ref.abs() + beta * C0.double().abs())
    assert ((C.double() - ref).abs() <= bound).all()
