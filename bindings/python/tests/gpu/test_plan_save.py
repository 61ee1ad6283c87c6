"""Plan.save / Plan.load and SparseLinear's saved plan on a GPU: a loaded plan computes the same
C bit for bit and reports the same info; a layer of another structure loads the plan of its
state dict instead of analyzing (its analyze time is the saved one), also on the CPU first and
then moved, and a layer of the same structure keeps its own plan and takes the values; bad
bytes raise the documented errors."""
import warnings

import pytest

torch = pytest.importorskip("torch")
from spx._lib import has_function  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU"),
    pytest.mark.skipif(torch.cuda.is_available() and not has_function("spxPlanDeserialize"),
                       reason="the loaded libspx predates spxPlanDeserialize: rebuild it"),
]

from torch import nn  # noqa: E402

import spx  # noqa: E402
from spx.plan import SpMMPlan  # noqa: E402
from spx.torch import SparseLinear, _native  # noqa: E402

DEV = "cuda"


def csr_weight(m, k, density, dtype, seed):
    g = torch.Generator(device="cpu").manual_seed(seed)
    w = torch.randn(m, k, generator=g)
    w[torch.rand(m, k, generator=g) > density] = 0
    w = w.to(dtype).to(DEV)
    crow = w.to_sparse_csr()
    return spx.CsrMatrix(crow.crow_indices().int(), crow.col_indices().int(), crow.values(),
                         shape=(m, k))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_loaded_plan_is_bit_identical(dtype):
    A = csr_weight(96, 128, 0.3, dtype, 1)
    B = torch.randn(128, 40, device=DEV).to(dtype)
    plan = spx.Plan.spmm(A, B, max_n=-1)
    before = {n: plan(B[:, :n].contiguous()).clone() for n in (1, 7, 40)}
    info = plan.info
    data = plan.save()
    assert isinstance(data, bytes) and data[:7] == b"SPXPLAN"
    plan.close()
    for loaded in (spx.Plan.load(data), spx.Plan.load(bytearray(data), A=A)):
        assert loaded.info == info
        for n, c in before.items():
            assert torch.equal(loaded(B[:, :n].contiguous()), c)
        assert loaded.save() == data
        loaded.close()


def test_bad_bytes():
    A = csr_weight(64, 64, 0.3, torch.float32, 2)
    plan = spx.Plan.spmm(A, torch.randn(64, 8, device=DEV))
    data = plan.save()
    with pytest.raises(spx.InvalidValueError, match="not a serialized libspx plan"):
        spx.Plan.load(b"\0" * 100)
    with pytest.raises(spx.InvalidValueError, match="truncated"):
        spx.Plan.load(data[:-1])
    bad = bytearray(data)
    bad[len(bad) // 2] ^= 1
    with pytest.raises(spx.InvalidValueError, match="corrupted"):
        spx.Plan.load(bad)
    bad = bytearray(data)
    bad[24] = 7  # the format version
    with pytest.raises(spx.NotSupportedError, match="format version 7"):
        spx.Plan.load(bad)


def layers(kind, dtype):
    """Two layers of other structures. "csr" reads the zeros a weight has and ignores sparsity
    (a fresh Linear has none: both would be the same all-columns structure), so its weights get
    zeros of that sparsity here."""
    torch.manual_seed(5)
    lin = nn.Linear(256, 192).to(DEV)
    other = nn.Linear(256, 192).to(DEV)
    if kind == "csr":
        with torch.no_grad():
            for linear, sparsity in ((lin, 0.8), (other, 0.5)):
                linear.weight[torch.rand_like(linear.weight) < sparsity] = 0
    if kind not in ("uniform", "vector"):  # nm: n of m; csr: the zeros given above
        return (SparseLinear.from_dense(lin, kind, dtype=dtype),
                SparseLinear.from_dense(other, kind, dtype=dtype))
    return (SparseLinear.from_dense(lin, kind, sparsity=0.8, dtype=dtype),
            SparseLinear.from_dense(other, kind, sparsity=0.5, dtype=dtype))


@pytest.fixture
def plans_made(monkeypatch):
    """How the layers' plans are made from here on, in order: "analyzed" or "loaded"."""
    made = []

    class Counted:
        def __new__(cls, *args, **kwargs):
            made.append("analyzed")
            return SpMMPlan(*args, **kwargs)

        @staticmethod
        def load(*args, **kwargs):
            made.append("loaded")
            return SpMMPlan.load(*args, **kwargs)

    monkeypatch.setattr(_native, "SpMMPlan", Counted)
    return made


@pytest.mark.parametrize("kind,dtype", [("uniform", torch.float16), ("csr", torch.float32),
                                        ("nm", torch.float32), ("vector", torch.float16)])
def test_state_dict_loads_the_saved_plan(kind, dtype, plans_made):
    layer, other = layers(kind, dtype)
    x = torch.randn(5, 256, device=DEV).to(dtype)
    with torch.no_grad():
        y = layer(x)
    sd = layer.state_dict()
    assert sd["_extra_state"]["plan"].dtype == torch.uint8
    saved_ms = layer.info_for(5).plan.analyze_ms
    # Into a layer of another structure: the plan is loaded, not analyzed again, and reports
    # the saved plan's analyze time.
    plans_made.clear()
    other.load_state_dict(sd)
    assert plans_made == ["loaded"]
    assert other.info_for(5).plan.analyze_ms == saved_ms
    with torch.no_grad():
        assert torch.equal(other(x), y)
    # Into a layer on the CPU, then moved: the saved plan is loaded on that device.
    cpu = layers(kind, dtype)[1].cpu()
    plans_made.clear()
    cpu.load_state_dict(sd)
    moved = cpu.to(DEV)
    assert plans_made == ["loaded"]
    assert moved.info_for(5).plan.analyze_ms == saved_ms
    with torch.no_grad():
        assert torch.equal(moved(x), y)


def test_state_dict_of_the_same_structure_updates_the_values(plans_made):
    """Into a layer of the same structure (kind "csr" of fresh Linears: no zeros, every column
    of every row), other values: the layer keeps its plan and takes the values
    (spxPlanUpdateValues); nothing is analyzed or loaded, so its plan reports its own analyze
    time, not the saved one."""
    torch.manual_seed(5)
    layer, other = (SparseLinear.from_dense(nn.Linear(256, 192).to(DEV), "csr") for _ in range(2))
    assert layer.values.numel() == 192 * 256 and torch.equal(layer.col_ind, other.col_ind)
    x = torch.randn(5, 256, device=DEV)
    with torch.no_grad():
        y = layer(x)
    native = other._native()
    plans_made.clear()
    other.load_state_dict(layer.state_dict())
    assert plans_made == [] and other._native() is native
    with torch.no_grad():
        torch.testing.assert_close(other(x), y)


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="one CUDA device")
def test_state_dict_into_another_device():
    layer, _ = layers("uniform", torch.float16)
    x = torch.randn(3, 256, device=DEV).half()
    with torch.no_grad():
        y = layer(x)
    target = layers("uniform", torch.float16)[1].to("cuda:1")
    target.load_state_dict(layer.state_dict())
    assert target.device == torch.device("cuda:1")
    with torch.no_grad():
        assert torch.equal(target(x.to("cuda:1")).cpu(), y.cpu())


def test_a_plan_that_does_not_load_is_analyzed_again():
    layer, other = layers("uniform", torch.float16)
    sd = layer.state_dict()
    plan = sd["_extra_state"]["plan"].clone()
    plan[len(plan) // 2] ^= 1  # corrupted
    sd["_extra_state"]["plan"] = plan
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        other.load_state_dict(sd)
    assert any("does not load here" in str(m.message) for m in w)
    x = torch.randn(2, 256, device=DEV).half()
    with torch.no_grad():
        assert torch.equal(other(x), layer(x))
