"""spx on the GPU with PyTorch tensors: every family against torch matmul on the densified
matrix, plans, values updates, scalars, streams, zero-copy interop and errors."""
import gc
import weakref

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")

import spx  # noqa: E402
from spx import host  # noqa: E402
from spx.torch import to_dense  # noqa: E402
from bounds import assert_float_close, assert_int_scaled_close  # noqa: E402

DEV = "cuda"


@pytest.fixture(autouse=True)
def seeded():
    torch.manual_seed(20240611)
    yield
    torch.cuda.synchronize()


def rand(*shape, dtype=torch.float32):
    """Uniform in [-1, 1), no zeros by construction of the comparison (see bounds)."""
    return (torch.rand(*shape, device=DEV) * 2 - 1).to(dtype)


def dense_operand(k, n, order, dtype=torch.float32):
    """A k x n dense operand in row-major order, or column-major as the transpose of n x k."""
    return rand(k, n, dtype=dtype) if order == "row" else rand(n, k, dtype=dtype).t()


def sparse_dense(rows, cols, density=0.3, empty_rows=(1, 5)):
    """A random sparse fp32 matrix (host numpy) with some empty rows."""
    rng = np.random.default_rng(rows * 1000 + cols)
    a = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    a[rng.random((rows, cols)) > density] = 0
    for r in empty_rows:
        if r < rows:
            a[r] = 0
    return a


def upload(x, dtype=None):
    t = torch.from_numpy(np.ascontiguousarray(x)).to(DEV)
    return t if dtype is None else t.to(dtype)


# ------------------------------------------------------------------ NM


@pytest.mark.parametrize("n,m,l", [(2, 4, 32), (3, 8, 16)])
@pytest.mark.parametrize("order", ["row", "col"])
@pytest.mark.parametrize("ncols", [1, 37, 128])
def test_nm_fp32(n, m, l, order, ncols):
    rows, k = 96, 200
    W = rand(rows, k)
    A = spx.prune_nm(W, n=n, m=m, l=l)
    assert isinstance(A.values, torch.Tensor) and A.values.shape == (rows, k // m * n)
    torch.cuda.synchronize()
    hv, hi = host.prune_nm(W.cpu().numpy(), n, m, l)  # the device pruning gives the host's result
    assert np.array_equal(A.values.cpu().numpy(), hv) and np.array_equal(A.indices.cpu().numpy(), hi)
    assert np.array_equal(to_dense(A).cpu().numpy(), host.nm_to_dense(hv, hi, (rows, k), n, m, l))
    assert spx.check_nm(to_dense(A), n, m, l) and not spx.check_nm(W, n, m, l)
    B = dense_operand(k, ncols, order)
    with spx.Plan.spmm(A, B) as plan:
        C = plan(B)
        assert isinstance(C, torch.Tensor) and C.shape == (rows, ncols)
        assert_float_close(C, to_dense(A), B)
        info = plan.info
    assert info.family == spx.SpMMAlg.NM and info.nnz == A.nnz and info.kernel


def test_nm_from_a_column_major_dense():
    W = rand(128, 64).t()  # 64 x 128, column-major
    A = spx.prune_nm(W, 2, 4, 32)
    torch.cuda.synchronize()
    hv, hi = host.prune_nm(W.cpu().numpy(), 2, 4, 32)
    assert np.array_equal(A.values.cpu().numpy(), hv) and np.array_equal(A.indices.cpu().numpy(), hi)


# ------------------------------------------------------------------ ELL


@pytest.mark.parametrize("dtype,out_dtype", [(torch.float32, None), (torch.float16, None),
                                             (torch.float16, torch.float32)])
@pytest.mark.parametrize("order", ["row", "col"])
@pytest.mark.parametrize("ncols", [7, 64])
def test_ell_uniform(dtype, out_dtype, order, ncols):
    rows, k = 75, 130
    W = rand(rows, k)
    A32 = spx.prune_uniform(W, sparsity=0.75)
    assert A32.ell_width == round(k * 0.25)
    torch.cuda.synchronize()
    hc, hv = host.prune_uniform(W.cpu().numpy(), A32.ell_width)
    assert np.array_equal(A32.col_ind.cpu().numpy(), hc.ravel(order="F"))
    assert np.array_equal(A32.values.cpu().numpy(), hv.ravel(order="F"))
    A = A32 if dtype == torch.float32 else A32.with_values(A32.values.to(dtype))
    B = dense_operand(k, ncols, order, dtype)
    with spx.Plan.spmm(A, B, out_dtype=out_dtype) as plan:
        C = plan(B)
        assert C.dtype == (out_dtype or dtype)
        assert_float_close(C, to_dense(A), B)
        assert plan.info.family == spx.SpMMAlg.ELL


# ------------------------------------------------------------------ CSR / BCRS (fallback today)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("order", ["row", "col"])
def test_csr_float(dtype, order):
    a = sparse_dense(53, 71)
    rp, ci, va = host.dense_to_csr(a)
    A = spx.CsrMatrix(upload(rp), upload(ci), upload(va, dtype), a.shape)
    B = dense_operand(71, 19, order, dtype)
    C = spx.spmm(A, B, out_dtype=torch.float32 if dtype == torch.bfloat16 else None)
    assert_float_close(C, to_dense(A), B)
    assert np.array_equal(to_dense(A).float().cpu().numpy(), a.astype(np.float32) if dtype == torch.float32
                          else upload(a, dtype).float().cpu().numpy())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
@pytest.mark.parametrize("vec_len", [2, 8])
def test_bcrs_float(dtype, vec_len):
    a = sparse_dense(48, 40, density=0.2)
    brp, bc, va = host.dense_to_bcrs(a, vec_len)
    A = spx.BcrsMatrix(upload(brp), upload(bc), upload(va, dtype), a.shape, vec_len)
    assert np.array_equal(host.bcrs_to_dense(brp, bc, va, a.shape, vec_len), a)
    B = dense_operand(40, 33, "col", dtype)
    C = spx.spmm(A, B)
    assert_float_close(C, to_dense(A), B)
    if dtype == torch.float16:  # fp16 vector sparsity is the SpTC reorder family's input
        with spx.Plan.spmm(A, B) as plan:
            assert plan.info.family == spx.SpMMAlg.SPTC_REORDER, plan.info
            assert_float_close(plan(B), to_dense(A), B)


# ------------------------------------------------------------------ int8 vector-sparse BCRS


def int8_bcrs(rows, cols, vec_len, keep_fraction=0.4):
    """Random int8 BCRS(vec_len) over torch tensors: (matrix, dense int32)."""
    rng = np.random.default_rng(rows + cols + vec_len)
    mask = rng.random((rows // vec_len, cols)) < keep_fraction
    mask[1] = False  # an empty block row
    dense = rng.integers(-127, 128, (rows, cols)).astype(np.float32)
    dense *= np.repeat(mask, vec_len, axis=0)
    brp, bc, va = host.dense_to_bcrs(dense, vec_len)
    q = host.convert_values(va, spx.DataType.R_8I)
    A = spx.BcrsMatrix(upload(brp), upload(bc), upload(q.view(np.int8)), dense.shape, vec_len)
    return A, torch.from_numpy(dense.astype(np.int32))


@pytest.mark.parametrize("out", ["int32", "float32", "float16"])
@pytest.mark.parametrize("order", ["row", "col"])
def test_int8_bcrs(out, order):
    A, dense = int8_bcrs(64, 96, 8)
    assert torch.equal(to_dense(A).cpu(), dense)
    B = (torch.randint(-127, 128, (96, 45), device=DEV, dtype=torch.int8) if order == "row"
         else torch.randint(-127, 128, (45, 96), device=DEV, dtype=torch.int8).t())
    if out == "int32":
        C = spx.spmm(A, B)
        assert C.dtype == torch.int32
        assert torch.equal(C.cpu().long(), dense.long() @ B.cpu().long())
        return
    odt = getattr(torch, out)
    scale = 1.0 / 4096
    C0 = rand(64, 45, dtype=odt)
    C = C0.clone()
    with spx.Plan.spmm(A, B, C) as plan:
        assert plan(B, C, alpha=scale, beta=0.5) is C  # dequantized: alpha is the scale
        info = plan.info
    assert_int_scaled_close(C, dense, B, alpha=scale, beta=0.5, C0=C0)
    assert info.family in (spx.SpMMAlg.SRBCRS, spx.SpMMAlg.FALLBACK)


# ------------------------------------------------------------------ plans


def test_plan_reuse_update_values_and_info():
    W = rand(64, 128)
    A = spx.prune_nm(W, 2, 4, 32)
    B = rand(128, 24)
    plan = spx.Plan.spmm(A, B)
    before = to_dense(A)
    for _ in range(3):  # execute many: new operands of the analyzed shape
        B2 = rand(128, 24)
        assert_float_close(plan(B2), before, B2)
    A.values.mul_(2)  # in place: the plan still holds its own copy until told
    assert_float_close(plan(B), before, B)
    plan.update_values()
    assert_float_close(plan(B), 2 * before, B)
    fresh = rand(*A.values.shape)
    plan.update_values(fresh)  # new array: the matrix now points at it
    assert A.values is fresh
    assert_float_close(plan(B), to_dense(A), B)
    info = plan.info
    assert isinstance(info, spx.PlanInfo) and info.family == spx.SpMMAlg.NM
    assert info.nnz == 64 * 64 and info.workspace_bytes == plan.workspace_bytes
    assert info.candidates >= 1 and info.values_bytes > 0 and info.analyze_ms >= 0
    C = plan.search(B)  # keeps the fastest configuration, returns the product
    assert plan.info.searched == (plan.info.candidates > 1)
    assert_float_close(C, to_dense(A), B)
    plan.close()
    with pytest.raises(ValueError, match="closed"):
        plan(B)


def test_autotune_in_analyze():
    W = rand(256, 512)
    A = spx.prune_nm(W, 1, 4, 32)
    B = rand(512, 96)
    out = torch.full((256, 96), float("nan"), device=DEV)
    plan = spx.Plan.spmm(A, B, out, autotune=True)  # times the candidates, never touches `out`
    torch.cuda.synchronize()
    assert torch.isnan(out).all()
    assert plan.info.searched == (plan.info.candidates > 1)
    assert_float_close(plan(B, out), to_dense(A), B)
    with spx.PlanOptions(autotune=True) as opts:
        plan2 = spx.Plan.spmm(A, B, options=opts)
    assert plan2.info.searched == plan.info.searched
    assert_float_close(plan2(B), to_dense(A), B)


def test_scalars_on_host_and_device_and_out():
    A = spx.prune_uniform(rand(40, 60), ell_width=12)
    B = rand(60, 9)
    C0 = rand(40, 9)
    out = C0.clone()
    res = spx.spmm(A, B, out, alpha=0.5, beta=-2.0)
    assert res is out
    assert_float_close(out, to_dense(A), B, alpha=0.5, beta=-2.0, C0=C0)
    out2 = C0.clone()
    alpha = torch.tensor([0.25], device=DEV)
    beta = torch.tensor([3.0], device=DEV)
    h = spx.Handle()
    spx.spmm(A, B, out2, alpha=alpha, beta=beta, handle=h)
    assert h.pointer_mode == spx.PointerMode.HOST  # restored after the call
    assert_float_close(out2, to_dense(A), B, alpha=0.25, beta=3.0, C0=C0)
    with pytest.raises(spx.InvalidValueError, match="both"):
        spx.spmm(A, B, out2, alpha=alpha, beta=1.0)


def test_plan_keeps_its_operands_alive():
    def build():
        a = sparse_dense(32, 50)
        rp, ci, va = host.dense_to_csr(a)
        values = upload(va)
        A = spx.CsrMatrix(upload(rp), upload(ci), values, a.shape)
        B = rand(50, 8)
        return spx.Plan.spmm(A, B), weakref.ref(values), a, B

    plan, values_ref, a, B = build()
    gc.collect()
    assert values_ref() is not None  # the plan -> matrix -> arrays chain holds it
    assert_float_close(plan(B), upload(a), B)
    plan.close()
    del plan
    gc.collect()
    assert values_ref() is None


# ------------------------------------------------------------------ SDDMM


@pytest.mark.parametrize("fmt", ["csr", "ell"])
def test_sddmm(fmt):
    m, k, n = 45, 33, 70
    mask = sparse_dense(m, n, density=0.25)
    if fmt == "csr":
        rp, ci, va = host.dense_to_csr(mask)
        C = spx.CsrMatrix(upload(rp), upload(ci), upload(va), (m, n))
    else:
        ci, va = host.csr_to_ell(*host.dense_to_csr(mask), cols=n)
        C = spx.EllMatrix(upload(ci.ravel(order="F")), upload(va.ravel(order="F")), (m, n))
    old = C.values.clone()
    A, B = rand(m, k), rand(k, n)
    assert spx.sddmm(A, B, C, alpha=0.5, beta=2.0) is C
    pattern = torch.from_numpy(mask != 0).to(DEV)
    got = to_dense(C)
    full_ref = 0.5 * (A.double() @ B.double())
    mag = 0.5 * (A.double().abs() @ B.double().abs())
    old_dense = to_dense(C.with_values(old)).double()
    ref = torch.where(pattern, full_ref + 2.0 * old_dense, torch.zeros_like(full_ref))
    bound = (k + 2) * 2.0 ** -24 * (mag + 2.0 * old_dense.abs()) + 2.0 ** -24 * ref.abs() + 1e-30
    assert not ((got.double() - ref).abs() > bound).any()
    if fmt == "ell":  # padded slots are skipped: their values stay as they were
        pad = torch.from_numpy(ci.ravel(order="F") < 0).to(DEV)
        assert torch.equal(C.values[pad], old[pad])


# ------------------------------------------------------------------ interop


class DLPackOnly:
    """Exposes a tensor through DLPack alone (like arrays of other libraries)."""

    def __init__(self, t):
        self.t = t

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


class CAIOnly:
    def __init__(self, t):
        self.t = t
        self.__cuda_array_interface__ = t.__cuda_array_interface__


def test_zero_copy_through_dlpack_and_cai():
    A = spx.prune_nm(rand(64, 96), 2, 4, 32)
    B = rand(96, 20)
    for wrapped, kind in ((DLPackOnly(B), "dlpack"), (CAIOnly(B), "cai"), (B, "torch")):
        d = spx.Dense(wrapped)
        assert d.ptr == B.data_ptr() and d.view.kind == kind  # the caller's memory, not a copy
        C = spx.spmm(A, wrapped)
        assert_float_close(torch.as_tensor(C, device=DEV), to_dense(A), B)
    Bt = rand(20, 96).t()
    d = spx.Dense(DLPackOnly(Bt))
    assert (d.order, d.ld, d.ptr) == (spx.Order.COL, 96, Bt.data_ptr())


def test_host_tensors_and_bad_layouts_are_rejected():
    A = spx.prune_nm(rand(64, 96), 2, 4, 32)
    with pytest.raises(spx.InvalidValueError, match="cpu"):
        spx.spmm(A, torch.ones(96, 4))
    with pytest.raises(spx.InvalidValueError, match="unit-stride"):
        spx.spmm(A, rand(96, 8)[:, ::2])


# ------------------------------------------------------------------ streams


def test_follows_the_current_torch_stream():
    """Work queued on a side stream (a long sleep, then B filled) must come before the product
    on that stream: a product on another stream would read B before it is filled."""
    if not hasattr(torch.cuda, "_sleep"):
        pytest.skip("torch.cuda._sleep is not available")
    A = spx.prune_nm(rand(256, 512), 2, 4, 32)
    B_src = rand(512, 64)
    B = torch.zeros_like(B_src)
    plan = spx.Plan.spmm(A, B)
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)
        B.copy_(B_src)
        C = plan(B)
        assert spx.default_handle().stream == side.cuda_stream
    side.synchronize()
    assert_float_close(C, to_dense(A), B_src)


def test_pinned_stream_handle():
    if not hasattr(torch.cuda, "_sleep"):
        pytest.skip("torch.cuda._sleep is not available")
    side = torch.cuda.Stream()
    h = spx.Handle(stream=side)
    assert h.stream == side.cuda_stream and not h.follows_current_stream
    A = spx.prune_uniform(rand(128, 256), sparsity=0.5, handle=h)
    B_src = rand(256, 32)
    B = torch.zeros_like(B_src)
    C = torch.empty(128, 32, device=DEV)
    with spx.Plan.spmm(A, B, C, handle=h) as plan:
        side.synchronize()
        with torch.cuda.stream(side):
            torch.cuda._sleep(200_000_000)
            B.copy_(B_src)
        plan(B, C)  # on `side` although torch's current stream is the default one here
        side.synchronize()
        assert_float_close(C, to_dense(A), B_src)
    h.stream = None
    assert h.follows_current_stream


# ------------------------------------------------------------------ errors on the device


def test_library_messages_arrive_as_exceptions():
    A = spx.prune_nm(rand(64, 96), 2, 4, 32)
    with pytest.raises(spx.InvalidValueError, match=r"A has 96 columns but B has 95 rows") as info:
        spx.spmm(A, rand(95, 8))
    assert info.value.call == "spxSpMM_analyze"
    with pytest.raises(spx.NotSupportedError, match="ELL family cannot take"):
        spx.Plan.spmm(A, rand(96, 8), alg=spx.SpMMAlg.ELL)
    plan = spx.Plan.spmm(A, rand(96, 8))
    with pytest.raises(spx.InvalidValueError, match="above the plan's bound of 8"):
        plan(rand(96, 9))
    bad = spx.CsrMatrix(upload(np.array([0, 2, 1], np.int32)), upload(np.array([0, 1], np.int32)),
                        rand(2), (2, 4))
    with pytest.raises(spx.InvalidValueError):
        spx.spmm(bad, rand(4, 3))  # a decreasing row pointer, found in analyze
