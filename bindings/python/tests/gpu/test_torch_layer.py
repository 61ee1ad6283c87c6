"""spx.torch on a GPU: every kind x dtype SparseLinear claims against a float64 reference of
the weight it holds, batch sizes of every kind through ONE plan, module behaviour (state_dict,
deepcopy, moves, dtype changes), CUDA graph capture, torch.compile(fullgraph=True), sparsify on
a small BERT, and the exceptions of bad inputs.

Bounds (see bounds.py): a float product accumulates k terms in fp32, |err| <= (k + 2) u32
|x| |W|^T, then the output rounding and the bias addition add a unit of the output type each
(2 u_out (|x| |W|^T + |b|)). int8 layers first quantize x (half a step, step = max|x| / 127),
then the int32 sum is exact and the alpha scaling and output rounding add a few units."""
import copy
import io
import logging

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
from spx.torch import SparseLinear, sparse_layers, sparsify, to_dense  # noqa: E402
from spx.torch import _native  # noqa: E402

U32 = 2.0 ** -24
UNIT = {torch.float32: U32, torch.float16: 2.0 ** -11, torch.bfloat16: 2.0 ** -8}
DEV = "cuda"
K, M = 256, 384  # in, out: multiples of m = 4, l = 32 and vec_len = 8
BATCHES = (1, 3, 16, 77, 300)
FLOATS = (torch.float32, torch.float16, torch.bfloat16)
KW = {"uniform": dict(sparsity=0.75), "vector": dict(sparsity=0.5, vec_len=8),
      "nm": dict(n=2, m=4, l=32), "csr": {}, "int8": dict(sparsity=0.5, vec_len=8)}


def linear(dtype=torch.float32, k=K, m=M, seed=0, bias=True):
    torch.manual_seed(seed)
    lin = nn.Linear(k, m, bias=bias).to(DEV)
    with torch.no_grad():
        lin.weight.uniform_(-1, 1)
        if bias:
            lin.bias.uniform_(-1, 1)
    return lin.to(dtype)


def exact_weight(layer: SparseLinear) -> torch.Tensor:
    """The weight the layer multiplies by, in float64 (int8: integers times the fp32 scale)."""
    w = to_dense(layer.weight).double()
    return w * layer.weight_scale.double() if layer.kind == "int8" else w


def assert_layer_close(layer: SparseLinear, x: torch.Tensor, y: torch.Tensor):
    """y = layer(x) within the arithmetic's bound of x W^T + b in float64."""
    W = exact_weight(layer)
    k = W.shape[1]
    xd = x.double().reshape(-1, k)
    b = layer.bias.double() if layer.bias is not None else torch.zeros(W.shape[0], device=DEV,
                                                                        dtype=torch.float64)
    ref = xd @ W.T + b
    absW = W.abs()
    if layer.kind == "int8":
        dx = (xd.abs().max() / 127) / 2 * (1 + 1e-6) + U32 * xd.abs()
        acc = dx @ absW.T
        mag = (xd.abs() + dx) @ absW.T + b.abs()
        bound = acc + (4 * U32 + 2 * UNIT[y.dtype]) * (mag + acc)
    else:
        mag = xd.abs() @ absW.T
        acc = (k + 2) * U32 * mag
        bound = acc + 2 * UNIT[y.dtype] * (mag + b.abs() + acc)
    assert y.shape == (*x.shape[:-1], W.shape[0]) and y.dtype == layer.dtype
    err = (y.double().reshape(ref.shape) - ref).abs()
    assert ref.abs().sum() > 0, "vacuous comparison"
    bad = err > bound + 1e-30
    assert not bad.any(), (f"{int(bad.sum())} of {bad.numel()} outside the bound; worst "
                           f"{float((err - bound).max()):.3e} above it")


def rand_x(*shape, dtype=torch.float32):
    return (torch.rand(*shape, device=DEV) * 2 - 1).to(dtype)


CASES = [(kind, dt) for kind in ("uniform", "vector", "nm", "csr", "int8") for dt in FLOATS]


@pytest.mark.parametrize("kind,dtype", CASES, ids=[f"{k}-{str(d)[6:]}" for k, d in CASES])
def test_kind_dtype_every_batch_size_one_plan(kind, dtype):
    lin = linear(dtype)
    if kind == "csr":  # csr keeps the zeros the weight has: give it some
        with torch.no_grad():
            lin.weight.mul_(torch.rand_like(lin.weight, dtype=torch.float32) > 0.7)
    layer = SparseLinear.from_dense(lin, kind, **KW[kind])
    assert layer.kind == kind and layer.dtype == dtype and layer.device == lin.weight.device
    native = layer._native()
    plan, held = native.plan, layer.info.bytes_held
    with torch.inference_mode():
        for n in BATCHES:
            x = rand_x(n, K, dtype=dtype)
            assert_layer_close(layer, x, layer(x))
            info = layer.info
            assert info.n == n and info.max_n == -1 and info.prepared_sizes > 1
            assert info.bytes_held == held, "a new batch size must not add device memory"
    assert layer._native() is native and native.plan is plan


def test_patterns_of_the_pruning_kinds():
    lin = linear()
    w = SparseLinear.from_dense(lin, "uniform", sparsity=0.75).dense_weight()
    assert ((w != 0).sum(dim=1) == K // 4).all()
    nm = SparseLinear.from_dense(lin, "nm", n=2, m=4, l=32).dense_weight()
    assert spx.check_nm(nm, 2, 4, 32)
    kept = nm != 0
    assert torch.equal(nm[kept], lin.weight.detach()[kept])  # kept values are the originals
    vec = SparseLinear.from_dense(lin, "vector", sparsity=0.5, vec_len=8).dense_weight()
    vectors = (vec.reshape(M // 8, 8, K) != 0)
    assert torch.equal(vectors.any(dim=1), vectors.all(dim=1))  # whole vectors kept or dropped
    assert (vectors.any(dim=1).sum(dim=1) == K // 2).all()  # the same number per block row


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: str(d)[6:])
def test_auto_reads_the_existing_pattern(dtype):
    lin = linear(dtype)
    expect = {"nm": SparseLinear.from_dense(lin, "nm").dense_weight(),
              "vector": SparseLinear.from_dense(lin, "vector", sparsity=0.5).dense_weight(),
              "uniform": SparseLinear.from_dense(lin, "uniform", sparsity=0.75).dense_weight()}
    w = lin.weight.detach().clone()  # the loop below overwrites lin.weight
    expect["csr"] = w * (torch.rand(M, K, device=DEV) > 0.6)
    for kind, pruned in expect.items():
        with torch.no_grad():
            lin.weight.copy_(pruned)
        layer = SparseLinear.from_dense(lin, "auto")
        assert layer.kind == kind
        assert torch.equal(layer.dense_weight(), pruned.to(dtype)), "auto must not prune"
        with torch.inference_mode():
            x = rand_x(5, K, dtype=dtype)
            assert_layer_close(layer, x, layer(x))
    with torch.no_grad():
        lin.weight.copy_(w)
    with pytest.raises(spx.InvalidValueError, match="no(ne| zeros)"):
        SparseLinear.from_dense(lin, "auto")  # dense: nothing to read


def test_dense_route_every_n_keeps_a_dense_copy_auto_does_not():
    """At 50 % and 2048 tokens dense cuBLAS beats the ELL kernel: "every_n" (the default)
    routes those batch sizes to it (and holds a dense copy of the weight), "auto" keeps the one
    sparse copy."""
    lin = linear(torch.float16, k=1024, m=1024)
    auto = SparseLinear.from_dense(lin, "uniform", sparsity=0.5, dense_route="auto")
    every = SparseLinear.from_dense(lin, "uniform", sparsity=0.5)
    assert every.dense_route == "every_n"
    assert auto.info_for(2048).plan.dense_bytes == 0
    assert auto.info_for(1).bytes_held == auto.info_for(2048).bytes_held
    assert every.info_for(2048).route == 1
    assert every.info_for(2048).plan.dense_bytes == 1024 * 1024 * 2
    assert every.info_for(2048).bytes_held > auto.info_for(2048).bytes_held
    with torch.inference_mode():
        for n in (3, 2048):
            x = rand_x(n, 1024, dtype=torch.float16)
            assert_layer_close(every, x, every(x))
            assert_layer_close(auto, x, auto(x))
    with pytest.raises(spx.InvalidValueError, match="dense_route"):
        SparseLinear.from_dense(lin, "uniform", sparsity=0.5, dense_route="always")


def test_3d_and_non_contiguous_inputs():
    layer = SparseLinear.from_dense(linear(), "uniform", sparsity=0.5)
    with torch.inference_mode():
        x3 = rand_x(4, 7, K)
        y3 = layer(x3)
        assert y3.shape == (4, 7, M)
        assert_layer_close(layer, x3, y3)
        xt = rand_x(K, 9).t()  # (9, K), not contiguous
        assert_layer_close(layer, xt, layer(xt))
        assert layer(rand_x(0, K)).shape == (0, M)


def test_state_dict_round_trip_into_a_fresh_layer():
    a = SparseLinear.from_dense(linear(seed=1), "uniform", sparsity=0.75)
    buf = io.BytesIO()
    torch.save(a.state_dict(), buf)
    buf.seek(0)
    fresh = SparseLinear.from_dense(linear(seed=2), "csr")  # another format and structure
    fresh.load_state_dict(torch.load(buf))
    assert (fresh.kind, fresh.format) == ("uniform", "ell")
    x = rand_x(13, K)
    with torch.inference_mode():
        assert torch.equal(fresh(x), a(x))
        # Values only (same structure): the plan is updated, not re-analyzed.
        plan = fresh._native().plan
        state = a.state_dict()
        state["values"] = state["values"] * 2
        fresh.load_state_dict(state)
        assert fresh._native().plan is plan
        assert torch.equal(fresh.dense_weight(), a.dense_weight() * 2)
        assert_layer_close(fresh, x, fresh(x))
    with pytest.raises(RuntimeError, match="384 -> 256|256 -> 384"):
        SparseLinear.from_dense(linear(k=M, m=K), "uniform").load_state_dict(a.state_dict())


def test_int8_state_dict_and_deepcopy():
    a = SparseLinear.from_dense(linear(seed=3), "int8", sparsity=0.5)
    b = copy.deepcopy(a)
    assert b._key != a._key and b._native() is not a._native()
    fresh = SparseLinear.from_dense(linear(seed=4), "int8", sparsity=0.5)
    fresh.load_state_dict(a.state_dict())
    x = rand_x(6, K)
    with torch.inference_mode():
        ya = a(x)
        assert torch.equal(b(x), ya) and torch.equal(fresh(x), ya)
        assert_layer_close(fresh, x, ya)


def test_deepcopy_is_independent():
    a = SparseLinear.from_dense(linear(), "nm")
    b = copy.deepcopy(a)
    assert b.values.data_ptr() != a.values.data_ptr()
    x = rand_x(8, K)
    with torch.inference_mode():
        ya = a(x)
        assert torch.equal(b(x), ya)
        state = b.state_dict()
        state["values"] = -state["values"]
        b.load_state_dict(state)
        assert torch.equal(a(x), ya)  # the original keeps its plan and values
        assert torch.equal(b.dense_weight(), -a.dense_weight())
        assert_layer_close(b, x, b(x))
    del a
    with torch.inference_mode():
        b(x)  # the copy's plan is its own


def test_cpu_and_back_and_dtype_moves():
    layer = SparseLinear.from_dense(linear(), "uniform", sparsity=0.5)
    x = rand_x(5, K)
    with torch.inference_mode():
        y = layer(x)
    layer.to("cpu")
    assert layer.device.type == "cpu" and _native.lookup(layer._key) is None
    with pytest.raises(spx.InvalidValueError, match="CUDA"):
        layer(x.cpu())
    assert all(t.device.type == "cpu" for t in layer.state_dict().values() if torch.is_tensor(t))
    layer.cuda()
    with torch.inference_mode():
        assert torch.equal(layer(x), y)
    layer.half()
    assert layer.dtype == torch.float16 and layer.values.dtype == torch.float16
    assert layer.col_ind.dtype == torch.int32
    with torch.inference_mode():
        assert_layer_close(layer, x.half(), layer(x.half()))
    with pytest.raises(spx.InvalidValueError, match="float64"):
        layer.double()
    assert layer.dtype == torch.float16  # refused: unchanged
    q = SparseLinear.from_dense(linear(), "int8").to(torch.bfloat16)
    assert q.values.dtype == torch.int8 and q.weight_scale.dtype == torch.float32
    with torch.inference_mode():
        xb = x.bfloat16()
        assert_layer_close(q, xb, q(xb))


@pytest.mark.parametrize("kind", ["uniform", "int8"])
def test_cuda_graph_capture_and_replay(kind):
    layer = SparseLinear.from_dense(linear(), kind, **KW[kind])
    static_x = rand_x(16, K)
    with torch.inference_mode():
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            layer(static_x)  # warm up outside capture
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            static_y = layer(static_x)
        for seed in range(3):
            torch.manual_seed(100 + seed)
            x = rand_x(16, K)
            static_x.copy_(x)
            g.replay()
            torch.cuda.synchronize()
            assert torch.equal(static_y, layer(x))
            assert_layer_close(layer, x, static_y)


def test_torch_compile_fullgraph_matches_eager():
    model = nn.Sequential(SparseLinear.from_dense(linear(seed=5), "uniform", sparsity=0.5),
                          nn.ReLU(),
                          SparseLinear.from_dense(linear(k=M, m=K, seed=6), "nm"))
    compiled = torch.compile(model, fullgraph=True)
    with torch.inference_mode():
        for n in (3, 16):
            x = rand_x(n, K)
            # The op runs the same kernel as eager, and ReLU is exact: bitwise equal.
            assert torch.equal(compiled(x), model(x))


def test_custom_op_is_registered_with_a_fake():
    layer = SparseLinear.from_dense(linear(torch.float16), "uniform")
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        x = torch.empty(2, 5, K, dtype=torch.float16, device=DEV)
        y = torch.ops.spx.sparse_linear(x, layer._key, None)
    assert y.shape == (2, 5, M) and y.dtype == torch.float16


def test_bad_inputs_are_named():
    layer = SparseLinear.from_dense(linear(), "uniform")
    with torch.inference_mode():
        with pytest.raises(spx.InvalidValueError, match="cpu tensor"):
            layer(rand_x(2, K).cpu())
        with pytest.raises(spx.InvalidValueError, match="float32 inputs, not torch.float16"):
            layer(rand_x(2, K, dtype=torch.float16))
        with pytest.raises(spx.InvalidValueError, match="256 input features"):
            layer(rand_x(2, K + 1))
        with pytest.raises(spx.InvalidValueError, match="256 input features"):
            layer(torch.tensor(1.0, device=DEV))
        with pytest.raises(spx.InvalidValueError, match="int32"):
            layer(torch.ones(2, K, dtype=torch.int32, device=DEV))
        if torch.cuda.device_count() > 1:
            with pytest.raises(spx.InvalidValueError, match="cuda:1"):
                layer(rand_x(2, K).to("cuda:1"))
    with pytest.raises(RuntimeError, match="inference"):
        layer(rand_x(2, K).requires_grad_())
    with pytest.raises(spx.InvalidValueError, match="GPU"):
        SparseLinear.from_dense(nn.Linear(8, 8), "nm")
    with pytest.raises(spx.InvalidValueError, match="kind must be one of"):
        SparseLinear.from_dense(linear(), "blocky")
    with pytest.raises(spx.InvalidValueError, match="multiple of vec_len"):
        SparseLinear.from_dense(linear(m=100), "vector", vec_len=8)


def test_sparsify_skips_with_reasons(caplog):
    model = nn.Sequential(nn.Linear(K, M), nn.ReLU(), nn.Linear(M, 100), nn.ReLU(),
                          nn.Linear(100, 64)).to(DEV)
    attn = nn.MultiheadAttention(64, 4).to(DEV)
    model.add_module("attn", attn)
    report = {}
    with caplog.at_level(logging.WARNING, logger="spx.torch"):
        out = sparsify(model, kind="vector", sparsity=0.5, vec_len=8, exclude="4", report=report)
    assert out is model
    assert report["replaced"] == ["0"] and list(sparse_layers(model)) == ["0"]
    assert set(report["skipped"]) == {"2", "4", "attn.out_proj"}
    assert "multiple of vec_len" in report["skipped"]["2"] and "2 kept dense" in caplog.text
    assert "4 kept dense" not in caplog.text  # excluded on purpose: no warning
    assert isinstance(model[2], nn.Linear) and isinstance(attn.out_proj, nn.Linear)


def test_sparsify_tiny_bert_against_the_dense_masked_model():
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, intermediate_size=128,
                                     max_position_embeddings=32)
    torch.manual_seed(0)
    model = transformers.BertModel(config).to(DEV).eval()
    reference = copy.deepcopy(model)
    report = {}
    sparsify(model, kind="uniform", sparsity=0.5, exclude="pooler.*", report=report)
    layers = sparse_layers(model)
    assert len(layers) == 12 and set(layers) == set(report["replaced"])
    assert report["skipped"] == {"pooler.dense": "excluded by include / exclude"}
    with torch.no_grad():  # the reference multiplies by the same pruned weights, densely
        for name, layer in layers.items():
            reference.get_submodule(name).weight.copy_(layer.dense_weight())
    ids = torch.randint(0, 100, (3, 20), device=DEV)
    with torch.inference_mode():
        y = model(input_ids=ids).last_hidden_state
        ref = reference(input_ids=ids).last_hidden_state
    # Both are fp32 with fp32 accumulation in another order: per layer a few u32 * k of the
    # magnitudes (k <= 128, |x| |W| sums of order 10); LayerNorm rescales by at most ~1/std of
    # order 10. 1e-3 is 10x that budget, and far below what a wrong mask or weight would give.
    assert torch.allclose(y, ref, rtol=0, atol=1e-3), float((y - ref).abs().max())
