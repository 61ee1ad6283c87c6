"""spx.torch without a GPU (skipped without torch): the formats read from a weight's zeros and
the "auto" rule, SparseLinear's module mechanics on the CPU (buffers, state_dict across
formats, deepcopy, dtype moves and refusals; a CPU layer holds no plan and refuses forward),
the custom op's schema, fake and torch.compile(fullgraph=True) tracing (with a stand-in native
part), and sparsify's filters and reasons."""
import copy
import ctypes
import logging

import pytest

torch = pytest.importorskip("torch")

from torch import nn  # noqa: E402

import spx  # noqa: E402
from spx.torch import SparseLinear, sparsify  # noqa: E402
from spx.torch import _kinds, _native  # noqa: E402


# -------------------------------------------------------------- reference densifiers (pure torch)

def densify(p: _kinds.Packed, shape) -> torch.Tensor:
    rows, cols = shape
    a = p.arrays
    out = torch.zeros(rows, cols, dtype=a["values"].dtype)
    if p.fmt == "csr":
        r = torch.repeat_interleave(torch.arange(rows), torch.diff(a["row_ptr"].long()))
        out[r, a["col_ind"].long()] = a["values"]
    elif p.fmt == "ell":
        width = a["col_ind"].numel() // rows
        col = a["col_ind"].reshape(width, rows).t().long()  # column-major slots
        out.scatter_(1, col, a["values"].reshape(width, rows).t())
    elif p.fmt == "bcrs":
        V = p.params["vec_len"]
        brow = torch.repeat_interleave(torch.arange(rows // V), torch.diff(a["block_row_ptr"].long()))
        r = (brow[:, None] * V + torch.arange(V)[None, :]).reshape(-1)
        out[r, a["block_col"].long().repeat_interleave(V)] = a["values"]
    return out


def masked(shape, keep=0.5, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    w = torch.rand(shape, generator=g) * 2 - 1
    return (w * (torch.rand(shape, generator=g) < keep)).to(dtype)


def test_csr_from_zeros_keeps_every_nonzero():
    w = masked((12, 10))
    p = _kinds.csr_from_zeros(w)
    assert p.arrays["row_ptr"].dtype == torch.int32 and p.arrays["col_ind"].dtype == torch.int32
    assert torch.equal(densify(p, w.shape), w)


def test_ell_and_bcrs_from_zeros():
    w = torch.zeros(8, 10)
    for i in range(8):
        w[i, torch.randperm(10)[:3]] = torch.rand(3) + 0.5
    p = _kinds.ell_from_zeros(w, 3)
    assert torch.equal(densify(p, w.shape), w)
    v = torch.zeros(8, 10, dtype=torch.bfloat16)
    v[0:4, [1, 7]] = 1.5
    v[4:8, [0, 2, 9]] = -2.0
    p = _kinds.bcrs_from_zeros(v, 4)
    assert p.arrays["block_row_ptr"].tolist() == [0, 2, 5]
    assert p.arrays["block_col"].tolist() == [1, 7, 0, 2, 9]
    assert torch.equal(densify(p, v.shape), v)


def test_auto_rule_most_structured_first(monkeypatch):
    monkeypatch.setattr(_kinds, "check_nm", lambda *a, **k: False)  # the n:m check runs on a GPU
    kw = dict(n=2, m=4, l=4, vec_len=4)
    vec = torch.zeros(8, 12)
    vec[0:4, [0, 5, 6]] = torch.rand(4, 3) + 0.1
    vec[4:8, [2, 3, 11]] = torch.rand(4, 3) + 0.1  # also 3 per row: vector wins over uniform
    assert _kinds.auto(vec, **kw).kind == "vector"
    uni = torch.zeros(8, 12)
    for i in range(8):
        uni[i, (torch.arange(3) * 4 + i) % 12] = 1.0
    assert _kinds.auto(uni, **kw).kind == "uniform"
    other = masked((8, 12), seed=3)
    other[0, :] = 1.0  # one full row: counts differ
    p = _kinds.auto(other, **kw)
    assert p.kind == "csr" and torch.equal(densify(p, other.shape), other)
    with pytest.raises(spx.InvalidValueError, match="has none"):
        _kinds.auto(torch.ones(8, 12), **kw)
    monkeypatch.setattr(_kinds, "check_nm", lambda *a, **k: True)
    monkeypatch.setattr(_kinds, "prune_nm", lambda *a, **k: pytest.fail("shape not n:m"))
    assert _kinds.auto(masked((8, 10)), **kw).kind in ("csr", "uniform", "vector")  # 10 % 4 != 0


def test_from_dense_says_when_sparsity_does_not_apply():
    """csr / auto keep the weight's zeros and nm keeps n of m: a sparsity given to them is
    reported, not silently dropped (the CPU layer is then refused as before)."""
    lin = nn.Linear(12, 16)
    for kind in ("csr", "auto", "nm"):
        with pytest.warns(UserWarning, match=f"kind '{kind}' takes no sparsity"):
            with pytest.raises(spx.InvalidValueError, match="GPU first"):
                SparseLinear.from_dense(lin, kind, sparsity=0.8)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for kind, kw in (("uniform", {"sparsity": 0.8}), ("csr", {}), ("nm", {})):
            with pytest.raises(spx.InvalidValueError, match="GPU first"):
                SparseLinear.from_dense(lin, kind, **kw)


def test_pack_refuses_unknown_kinds_and_dtypes():
    with pytest.raises(spx.InvalidValueError, match="kind must be one of"):
        _kinds.pack("blocky", torch.ones(4, 4), sparsity=0.5, n=2, m=4, l=4, vec_len=4)
    with pytest.raises(spx.InvalidValueError, match="float64"):
        _kinds.pack("csr", torch.ones(4, 4, dtype=torch.float64), sparsity=0.5, n=2, m=4, l=4,
                    vec_len=4)


# -------------------------------------------------------------- module mechanics on the CPU

def cpu_layer(fmt="csr", dtype=torch.float32, bias=True, seed=0, scale=None) -> SparseLinear:
    """A SparseLinear whose buffers are on the CPU (from_dense needs a CUDA Linear; a layer moved
    to the CPU is in this state): it holds no native plan."""
    w = masked((16, 12), seed=seed, dtype=dtype)
    p = {"csr": _kinds.csr_from_zeros, "bcrs": lambda w: _kinds.bcrs_from_zeros(
        w.reshape(4, 4, 12).any(dim=1).repeat_interleave(4, dim=0) * 1.0 + 0 * w, 4)}[fmt](w)
    if scale is not None:
        p.kind, p.scale = "int8", scale
        p.arrays["values"] = (p.arrays["values"] * 10).to(torch.int8)
    layer = SparseLinear.__new__(SparseLinear)
    nn.Module.__init__(layer)
    layer._setup(p, torch.rand(16, dtype=dtype) if bias else None, dtype, (16, 12))
    return layer


def test_buffers_state_dict_and_no_plan_on_cpu():
    layer = cpu_layer()
    names = {n for n, _ in layer.named_buffers()}
    assert names == {"row_ptr", "col_ind", "values", "bias"}
    assert _native.lookup(layer._key) is None
    state = layer.state_dict()
    assert state["_extra_state"] == {"kind": "csr", "format": "csr", "params": {},
                                     "shape": (16, 12), "dtype": "float32",
                                     "dense_route": "every_n"}
    with pytest.raises(spx.InvalidValueError, match="CUDA device only"):
        layer(torch.rand(3, 12))
    with pytest.raises(RuntimeError, match="inference"):
        layer(torch.rand(3, 12, requires_grad=True))


def test_load_state_dict_of_another_structure_and_format():
    a, b = cpu_layer(seed=1), cpu_layer(seed=2)
    assert a.values.shape != b.values.shape  # other zeros, other lengths
    b.load_state_dict(a.state_dict())
    for name in ("row_ptr", "col_ind", "values", "bias"):
        assert torch.equal(getattr(b, name), getattr(a, name))
    c = cpu_layer("bcrs", seed=3)
    c.load_state_dict(a.state_dict())  # bcrs -> csr: the buffers follow the saved format
    assert c.format == "csr" and {n for n, _ in c.named_buffers()} == {"row_ptr", "col_ind",
                                                                       "values", "bias"}
    assert torch.equal(c.values, a.values)
    a.load_state_dict(cpu_layer("bcrs", seed=3).state_dict())
    assert a.format == "bcrs" and a.params == {"vec_len": 4}
    wrong = cpu_layer()
    state = wrong.state_dict()
    state["_extra_state"] = dict(state["_extra_state"], shape=(12, 16))
    with pytest.raises(RuntimeError, match="12 -> 16|16 -> 12"):
        cpu_layer().load_state_dict(state)
    no_bias = cpu_layer(bias=False)
    no_bias.load_state_dict(cpu_layer(seed=5).state_dict())  # a saved bias is taken too
    assert no_bias.bias is not None
    with pytest.raises(RuntimeError, match="Missing key"):
        cpu_layer().load_state_dict({k: v for k, v in a.state_dict().items() if k != "values"})


class _RecordedNative:
    """A native part that records how it was made ("analyzed", or "loaded" from a saved plan)
    and its value updates."""

    made: list = []

    def __init__(self, *args, saved_plan=None):
        self.how = "analyzed" if saved_plan is None else "loaded"
        self.saved_plan, self.updates = saved_plan, 0
        _RecordedNative.made.append(self.how)

    def update_values(self):
        self.updates += 1

    def save(self):
        return b"plan of %d" % id(self)

    def close(self):
        pass


def test_load_state_dict_updates_values_or_loads_the_saved_plan(monkeypatch):
    """Layers that take themselves for CUDA ones (arrays of equal lengths throughout: nothing is
    allocated there): a state dict of the same structure updates the layer's own plan (nothing
    analyzed or loaded, so its info stays its own, analyze time included); one of another
    structure loads the saved plan instead of analyzing, then takes the values."""
    monkeypatch.setattr(_native, "NativeLinear", _RecordedNative)
    monkeypatch.setattr(_RecordedNative, "made", [])
    monkeypatch.setattr(SparseLinear, "device", property(lambda self: torch.device("cuda", 0)))

    def layer_of(w):
        layer = SparseLinear.__new__(SparseLinear)
        nn.Module.__init__(layer)
        layer._setup(_kinds.csr_from_zeros(w), None, torch.float32, tuple(w.shape))
        return layer

    w = masked((16, 12), seed=4)
    saved, same, moved = layer_of(w), layer_of(w * 2), layer_of(w.roll(1, dims=1))
    assert not torch.equal(moved.col_ind, saved.col_ind)  # the same row lengths, other columns
    assert _RecordedNative.made == ["analyzed"] * 3
    state = saved.state_dict()
    assert state["_extra_state"]["plan"].numpy().tobytes() == saved._native().save()
    native = same._native()
    same.load_state_dict(state)
    assert same._native() is native and native.updates == 1
    assert torch.equal(same.values, saved.values)
    moved.load_state_dict(state)
    assert _RecordedNative.made == ["analyzed"] * 3 + ["loaded"]
    loaded = moved._native()
    assert loaded.saved_plan == saved._native().save() and loaded.updates == 1
    assert torch.equal(moved.col_ind, saved.col_ind)


def test_deepcopy_and_pickle_never_copy_the_native_part():
    a = cpu_layer()
    assert "_native" not in a.__dict__ and a.__getstate__()["_key"] is None
    b = copy.deepcopy(a)
    assert b._key != a._key and b._key is not None
    assert torch.equal(b.values, a.values) and b.values.data_ptr() != a.values.data_ptr()
    import pickle
    c = pickle.loads(pickle.dumps(a))
    assert c._key not in (a._key, b._key) and torch.equal(c.col_ind, a.col_ind)


def test_dtype_moves_follow_values_and_bias_only():
    layer = cpu_layer()
    layer.half()
    assert layer.dtype == torch.float16 and layer.values.dtype == torch.float16
    assert layer.bias.dtype == torch.float16 and layer.col_ind.dtype == torch.int32
    layer.to(torch.bfloat16)
    assert layer.values.dtype == torch.bfloat16
    with pytest.raises(spx.InvalidValueError, match="float64"):
        layer.double()
    assert layer.dtype == torch.bfloat16 and layer.values.dtype == torch.bfloat16  # unchanged
    q = cpu_layer(scale=torch.tensor([0.01]))
    q.half()
    assert q.values.dtype == torch.int8 and q.weight_scale.dtype == torch.float32
    assert q.dtype == torch.float16 and q.bias.dtype == torch.float16
    same = cpu_layer()
    values = same.values
    same.to("cpu")  # no change: the buffers stay the same tensors
    assert same.values is values


# -------------------------------------------------------------- the custom op

class _StandIn:
    """A native part computing y = x W^T + b in torch (on the CPU), for tracing tests."""

    def __init__(self, W):
        self.W, self.out_features, self.out_dtype = W, W.shape[0], W.dtype

    def close(self):
        pass

    def forward(self, x, bias):
        y = x @ self.W.T
        return y + bias if bias is not None else y


def test_custom_op_eager_fake_and_compile(monkeypatch):
    layer = cpu_layer()
    W = densify(_kinds.Packed("csr", "csr", layer._arrays()), (16, 12))
    monkeypatch.setitem(_native._registry, layer._key, _StandIn(W))
    x = torch.rand(2, 3, 12)
    ref = x @ W.T + layer.bias
    assert torch.allclose(torch.ops.spx.sparse_linear(x, layer._key, layer.bias), ref)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode():
        y = torch.ops.spx.sparse_linear(torch.empty(5, 7, 12), layer._key, None)
        assert y.shape == (5, 7, 16) and y.dtype == torch.float32
    # Compiled, forward takes the op (eager forward would take the native path directly).
    torch._dynamo.reset()
    model = nn.Sequential(layer, nn.ReLU())
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    with torch.no_grad():
        assert torch.allclose(compiled(x), torch.relu(ref))
        x2 = torch.rand(9, 12)
        assert torch.allclose(compiled(x2), torch.relu(x2 @ W.T + layer.bias))
    with pytest.raises(spx.InvalidValueError, match="no native plan"):
        torch.ops.spx.sparse_linear(x, -5, None)


# -------------------------------------------------------------- sparsify

def test_sparsify_filters_and_reasons(caplog):
    model = nn.Sequential(nn.Linear(8, 8), nn.Sequential(nn.Linear(8, 4)))
    model.add_module("mha", nn.MultiheadAttention(8, 2))
    report = {}
    with caplog.at_level(logging.WARNING, logger="spx.torch"):
        assert sparsify(model, "csr", include=["1.*", "mha.*"], report=report) is model
    assert report["replaced"] == []
    assert report["skipped"]["0"] == "excluded by include / exclude"
    assert "CUDA" in report["skipped"]["1.0"]
    assert "MultiheadAttention" in report["skipped"]["mha.out_proj"]
    assert "1.0 kept dense" in caplog.text and "0 kept dense" not in caplog.text.replace("1.0", "")
    head = nn.Linear(8, 5)
    model.add_module("emb", nn.Embedding(5, 8))
    model.add_module("head", head)
    head.weight = model.emb.weight  # tied, as a language-model head to its embeddings
    report = {}
    sparsify(model, "csr", exclude=lambda name, m: m.out_features == 4, report=report)
    assert "tied" in report["skipped"]["head"]
    assert report["skipped"]["1.0"] == "excluded by include / exclude"
    with pytest.raises(spx.InvalidValueError, match="GPU"):
        sparsify(nn.Linear(4, 4), "csr")  # a bare Linear: its replacement is returned


# -------------------------------------------------------------- the hot path, on host memory

class _Handle:
    def __init__(self):
        self._ptr, self._current, self.sets = ctypes.c_void_p(0x11), 0, []

    def _set(self, s):
        self.sets.append(s)
        self._current = s


def _host_array(ptr, count, ctype, dtype):
    return torch.frombuffer((ctype * count).from_address(ptr), dtype=dtype, count=count)


@pytest.fixture
def host_native(monkeypatch):
    """NativeLinear with its C side replaced by a product on host memory that reads the very
    pointers and leading dimensions forward passes (B: k x n column-major, C: m x n)."""
    calls, stream, handle = [], [0], _Handle()
    monkeypatch.setattr(_native, "make_matrix", lambda *a: None)
    monkeypatch.setattr(_native, "current_stream", lambda index: stream[0])
    monkeypatch.setattr(_native, "thread_handle", lambda index, device_scalars: handle)

    def analyze(self):
        W = self._dense

        def execute(h, plan, n, pa, pb, ldb, pbeta, pc, ldc, ws):
            calls.append(dict(h=h.value, plan=plan, n=n, ldb=ldb, ldc=ldc, ws=ws, pbeta=pbeta,
                              alpha=ctypes.c_float.from_address(pa).value))
            if self.int8:
                B = _host_array(pb, n * ldb, ctypes.c_int8, torch.int8).float()
            else:
                B = _host_array(pb, n * ldb, ctypes.c_float, torch.float32)
            C = _host_array(pc, n * ldc, ctypes.c_float, torch.float32).reshape(n, ldc)
            alpha = ctypes.c_float.from_address(pa).value
            C.copy_(alpha * (B.reshape(n, ldb) @ W.T))
            return 0

        self._execute, self._plan_ptr, self._ws_ptr, self.plan = execute, 77, 0xAB, None

    monkeypatch.setattr(_native.NativeLinear, "_analyze", analyze)

    def make(W, scale=None):
        monkeypatch.setattr(_native.NativeLinear, "_dense", W, raising=False)
        return _native.NativeLinear("csr", {}, {}, W.shape, torch.float32, scale,
                                    torch.device("cpu"))

    make.calls, make.stream, make.handle = calls, stream, handle
    return make


def test_one_execute_per_call_with_the_layout_arguments(host_native):
    W = masked((16, 12), seed=7)
    b = torch.rand(16)
    native = host_native(W)
    x = torch.rand(5, 12)
    y = native.forward(x, b)
    (call,) = host_native.calls
    assert (call["h"], call["plan"], call["n"], call["ldb"], call["ldc"], call["ws"]) == \
        (0x11, 77, 5, 12, 16, 0xAB)
    assert call["alpha"] == 1.0
    assert ctypes.c_float.from_address(call["pbeta"]).value == 0.0
    assert torch.allclose(y, x @ W.T + b, atol=1e-6)
    x3 = torch.rand(2, 3, 12)
    assert torch.allclose(native.forward(x3, None), x3 @ W.T, atol=1e-6)
    xt = torch.rand(12, 4).t()  # not contiguous: made contiguous
    assert torch.allclose(native.forward(xt, None), xt @ W.T, atol=1e-6)
    assert native.forward(torch.rand(0, 12), b).shape == (0, 16)
    assert len(host_native.calls) == 3  # n = 0 queues nothing
    assert native.last_n == 4


def test_stream_is_set_only_when_torchs_changes(host_native):
    native = host_native(masked((16, 12)))
    x = torch.rand(2, 12)
    native.forward(x, None)
    native.forward(x, None)
    assert host_native.handle.sets == []  # torch's stream is the handle's (0)
    host_native.stream[0] = 0x5150
    native.forward(x, None)
    native.forward(x, None)
    host_native.stream[0] = 0
    native.forward(x, None)
    assert host_native.handle.sets == [0x5150, 0]


def test_int8_alpha_is_a_device_scalar_product(host_native):
    W = torch.randint(-127, 128, (16, 12)).float()
    scale = torch.tensor([0.02])
    native = host_native(W, scale=scale)
    x = torch.rand(3, 12) * 4 - 2
    y = native.forward(x, None)
    call = host_native.calls[-1]
    x_scale = x.abs().max() / 127
    assert call["pbeta"] == native._zero_d.data_ptr()
    assert call["alpha"] == pytest.approx(float(0.02 * x_scale), rel=1e-6)
    q = torch.round(x / x_scale).clamp(-127, 127)
    assert torch.allclose(y, (q @ W.T) * 0.02 * x_scale, rtol=1e-5, atol=1e-5)


def test_hot_path_refusals_name_the_problem(host_native):
    native = host_native(masked((16, 12)))
    with pytest.raises(spx.InvalidValueError, match="float32 inputs, not torch.float16"):
        native.forward(torch.rand(2, 12).half(), None)
    with pytest.raises(spx.InvalidValueError, match="12 input features.*\\(2, 13\\)"):
        native.forward(torch.rand(2, 13), None)
    with pytest.raises(spx.InvalidValueError, match="12 input features"):
        native.forward(torch.tensor(1.0), None)
    assert host_native.calls == []
