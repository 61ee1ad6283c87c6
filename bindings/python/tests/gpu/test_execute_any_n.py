"""Plans analyzed for any n (max_n = -1) through the Python API: execute_raw (spxSpMM_execute)
and the descriptor path with n from 1 past the largest prepared size (column slices), against
a float64 reference; per-n info; the library's refusals of an n above the bound and of a short
leading dimension."""
import pytest

torch = pytest.importorskip("torch")

import spx  # noqa: E402
from spx._lib import has_function  # noqa: E402
from spx.torch import to_dense  # noqa: E402
from bounds import assert_float_close  # noqa: E402

pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU"),
    pytest.mark.skipif(torch.cuda.is_available() and not has_function("spxSpMM_execute"),
                       reason="the loaded libspx predates spxSpMM_execute: rebuild it"),
]
DEV = "cuda"


def uniform(m=256, k=192, dtype=torch.float32):
    torch.manual_seed(1)
    A = spx.prune_uniform(torch.rand(m, k, device=DEV) * 2 - 1, sparsity=0.75)
    return A.with_values(A.values.to(dtype)) if dtype != torch.float32 else A


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_any_n_raw_and_descriptor_paths(dtype):
    A = uniform(dtype=dtype)
    m, k = A.shape
    plan = spx.Plan.spmm(A, torch.zeros(k, 8, device=DEV, dtype=dtype), max_n=-1)
    info = plan.info
    assert info.max_n == -1 and info.prepared_sizes > 1
    held = info.bytes_held
    ws = torch.empty(max(plan.workspace_bytes, 1), dtype=torch.uint8, device=DEV)
    dense = to_dense(A)
    for n in (1, 5, 64, 300, 5000):  # 5000: above the largest prepared size (4096)
        B = (torch.rand(k, n, device=DEV) * 2 - 1).to(dtype)  # row-major, as analyzed: ldb = n
        C = torch.full((m, n), float("nan"), device=DEV, dtype=dtype)
        plan.execute_raw(n, B.data_ptr(), n, C.data_ptr(), n, workspace=ws)
        assert_float_close(C, dense, B)
        C2 = plan(B)  # the descriptor path takes any n too
        assert C2.shape == (m, n)
        assert_float_close(C2, dense, B)
        assert plan.info_for_n(n).max_n == -1
    assert plan.info.bytes_held == held


def test_bound_and_leading_dimension_are_checked():
    A = uniform()
    m, k = A.shape
    B = torch.rand(k, 8, device=DEV)
    plan = spx.Plan.spmm(A, B)  # max_n 0: the analyzed n (8) is the bound
    assert plan.info.max_n == 8
    C = torch.empty(m, 16, device=DEV)
    wide = torch.rand(k, 16, device=DEV)
    with pytest.raises(spx.InvalidValueError):
        plan.execute_raw(16, wide, 16, C, 16)
    with pytest.raises(spx.InvalidValueError):
        plan.execute_raw(8, B, 4, C, 16)  # ldb < n for a row-major B
    plan.execute_raw(4, B, 8, C, 16)  # n below the bound, strided operands: fine
    assert_float_close(C[:, :4], to_dense(A), B[:, :4])
