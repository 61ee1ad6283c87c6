"""spx on the GPU with CuPy arrays: results come back as CuPy arrays, work follows CuPy's
current stream, and every float family matches a float64 reference."""
import numpy as np
import pytest

cupy = pytest.importorskip("cupy")
try:
    _gpus = cupy.cuda.runtime.getDeviceCount()
except Exception:  # no driver
    _gpus = 0
pytestmark = pytest.mark.skipif(_gpus == 0, reason="no CUDA GPU")

import spx  # noqa: E402
from spx import host  # noqa: E402

U32 = 2.0 ** -24
UNIT = {np.dtype(np.float32): U32, np.dtype(np.float16): 2.0 ** -11}


def rand(*shape, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed + sum(shape))
    return cupy.asarray(rng.uniform(-1, 1, shape).astype(dtype))


def check(C, A_dense, B, out_dtype):
    a, b = A_dense.astype(np.float64), cupy.asnumpy(B).astype(np.float64)
    ref, mag = a @ b, np.abs(a) @ np.abs(b)
    bound = (a.shape[1] + 2) * U32 * mag
    bound += 2 * UNIT[np.dtype(out_dtype)] * (np.abs(ref) + bound)
    assert isinstance(C, cupy.ndarray) and C.dtype == out_dtype
    assert mag.sum() > 0
    assert (np.abs(cupy.asnumpy(C).astype(np.float64) - ref) <= bound).all()


@pytest.mark.parametrize("order", ["C", "F"])
def test_nm(order):
    W = rand(64, 96)
    A = spx.prune_nm(W, 2, 4, 32)
    assert isinstance(A.values, cupy.ndarray)
    dense = host.nm_to_dense(cupy.asnumpy(A.values), cupy.asnumpy(A.indices), (64, 96), 2, 4, 32)
    hv, hi = host.prune_nm(cupy.asnumpy(W), 2, 4, 32)
    assert np.array_equal(cupy.asnumpy(A.values), hv) and np.array_equal(cupy.asnumpy(A.indices), hi)
    B = cupy.asarray(rand(96, 21), order=order)
    with spx.Plan.spmm(A, B) as plan:
        check(plan(B), dense, B, np.float32)
        assert plan.info.family == spx.SpMMAlg.NM


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_ell(dtype):
    W = rand(50, 80)
    A = spx.prune_uniform(W, sparsity=0.5)
    if dtype != np.float32:
        A = A.with_values(A.values.astype(dtype))
    dense = host.ell_to_dense(cupy.asnumpy(A.col_ind), cupy.asnumpy(A.values), (50, 80))
    B = rand(80, 12, dtype=dtype)
    C = spx.spmm(A, B)
    check(C, dense, B, dtype)


def test_csr_and_sddmm():
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (30, 40)).astype(np.float32)
    a[rng.random(a.shape) > 0.3] = 0
    rp, ci, va = host.dense_to_csr(a)
    A = spx.CsrMatrix(cupy.asarray(rp), cupy.asarray(ci), cupy.asarray(va), a.shape)
    B = rand(40, 9)
    check(spx.spmm(A, B), a, B, np.float32)
    X, Y = rand(30, 16, seed=1), rand(16, 40, seed=2)
    spx.sddmm(X, Y, A)  # A's pattern is the mask; its values are overwritten
    full = cupy.asnumpy(X).astype(np.float64) @ cupy.asnumpy(Y).astype(np.float64)
    got = host.csr_to_dense(rp, ci, cupy.asnumpy(A.values), a.shape)
    mask = a != 0
    mag = np.abs(cupy.asnumpy(X)).astype(np.float64) @ np.abs(cupy.asnumpy(Y)).astype(np.float64)
    assert (np.abs(got[mask] - full[mask]) <= 18 * U32 * mag[mask] + 1e-30).all()
    assert (got[~mask] == 0).all()


SPIN = r'''
extern "C" __global__ void spin(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {}
}
'''


def test_follows_the_current_cupy_stream():
    spin = cupy.RawKernel(SPIN, "spin")
    A = spx.prune_nm(rand(128, 256), 2, 4, 32)
    B_src = rand(256, 32)
    B = cupy.zeros_like(B_src)
    plan = spx.Plan.spmm(A, B)
    dense = host.nm_to_dense(cupy.asnumpy(A.values), cupy.asnumpy(A.indices), (128, 256), 2, 4, 32)
    side = cupy.cuda.Stream(non_blocking=True)
    cupy.cuda.Device().synchronize()
    with side:
        spin((1,), (1,), (np.int64(200_000_000),))
        B[...] = B_src
        C = plan(B)
        assert spx.default_handle().stream == side.ptr
    side.synchronize()
    check(C, dense, B_src, np.float32)
