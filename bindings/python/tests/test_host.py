"""spx.host: the host tools over NumPy arrays, hand-checked and round-tripped (no GPU)."""
import numpy as np
import pytest

import spx
from spx import host

rng = np.random.default_rng(7)


def sparse_random(rows, cols, density=0.3):
    a = rng.uniform(-1, 1, (rows, cols)).astype(np.float32)
    a[rng.random((rows, cols)) > density] = 0
    return a


def test_csr_round_trip_both_orders():
    a = sparse_random(7, 11)
    for dense in (a, np.asfortranarray(a)):
        rp, ci, va = host.dense_to_csr(dense)
        assert rp[0] == 0 and rp[-1] == np.count_nonzero(a) and ci.dtype == np.int32
        np.testing.assert_array_equal(host.csr_to_dense(rp, ci, va, a.shape), a)


def test_bcrs_round_trip():
    a = sparse_random(8, 9)
    brp, bc, va = host.dense_to_bcrs(a, 4)
    assert va.shape == (bc.size, 4)
    np.testing.assert_array_equal(host.bcrs_to_dense(brp, bc, va, a.shape, 4), a)


def test_prune_nm_hand_checked():
    # One group of 2 rows, one window of 4 columns: column L2 norms over the group are
    # [1, 5, 2, 4] -> 2:4 keeps columns 1 and 3.
    a = np.array([[1, 3, 0, 4], [0, 4, 2, 0]], np.float32)
    values, indices = host.prune_nm(a, 2, 4, 2)
    np.testing.assert_array_equal(indices, [[1, 3]])
    np.testing.assert_array_equal(values, [[3, 4], [4, 0]])
    dense = host.nm_to_dense(values, indices, a.shape, 2, 4, 2)
    np.testing.assert_array_equal(dense, [[0, 3, 0, 4], [0, 4, 0, 0]])
    assert host.check_nm(dense, 2, 4, 2) and not host.check_nm(a, 2, 4, 2)


def test_prune_nm_random_keeps_the_pattern():
    a = rng.uniform(-1, 1, (64, 48)).astype(np.float32)
    values, indices = host.prune_nm(a, 3, 8, 16)
    assert values.shape == (64, 18) and indices.shape == (4, 18)
    dense = host.nm_to_dense(values, indices, a.shape, 3, 8, 16)
    assert host.check_nm(dense, 3, 8, 16)
    kept = dense != 0
    np.testing.assert_array_equal(dense[kept], a[kept])  # kept values are the originals
    v2, i2 = host.prune_nm(np.asfortranarray(a), 3, 8, 16)
    np.testing.assert_array_equal(v2, values)
    np.testing.assert_array_equal(i2, indices)


def test_prune_uniform_and_ell():
    a = rng.uniform(-1, 1, (9, 20)).astype(np.float32)
    col_ind, values = host.prune_uniform(a, 5)
    assert col_ind.shape == (9, 5) and col_ind.flags.f_contiguous
    dense = host.ell_to_dense(col_ind, values, a.shape)
    assert host.check_uniform(dense, 5) and not host.check_uniform(dense, 4)
    assert (np.count_nonzero(dense, axis=1) == 5).all()
    kept = dense != 0
    np.testing.assert_array_equal(dense[kept], a[kept])
    assert all((np.diff(row) > 0).all() for row in col_ind)  # columns increase in a row


def test_csr_to_ell_pads_short_rows():
    a = np.array([[1, 0, 2], [0, 0, 0], [0, 3, 0]], np.float32)
    ci, va = host.csr_to_ell(*host.dense_to_csr(a), cols=3)
    np.testing.assert_array_equal(ci, [[0, 2], [-1, -1], [1, -1]])
    np.testing.assert_array_equal(host.ell_to_dense(ci, va, a.shape), a)


def test_convert_values():
    x = np.array([0.1, -2.4, 300.0, -300.0, 1.6], np.float32)
    np.testing.assert_array_equal(host.convert_values(x, spx.DataType.R_16F), x.astype(np.float16))
    np.testing.assert_array_equal(host.convert_values(x, spx.DataType.R_8I), [0, -2, 127, -128, 2])
    packed = host.convert_values(np.array([1, -1, 7], np.float32), spx.DataType.R_4I)
    assert packed.dtype == np.uint8 and packed.tolist() == [0xF1, 0x07]  # low nibble first
    assert host.size_of(spx.DataType.R_4I, 3) == 2 and host.size_of(spx.DataType.R_32F, 3) == 12


def test_read_smtx_and_dilate(tmp_path):
    p = tmp_path / "m.smtx"
    p.write_text("3, 4, 3\n0 1 1 3\n2 0 3\n")
    shape, rp, ci = host.read_smtx(p)
    assert shape == (3, 4) and rp.tolist() == [0, 1, 1, 3] and ci.tolist() == [2, 0, 3]
    drp, dci = host.dilate_csr(rp, ci, 4, 2)
    assert drp.tolist() == [0, 1, 2, 2, 2, 4, 6] and dci.tolist() == [2, 2, 0, 3, 0, 3]


def test_dense_input_must_be_2d():
    with pytest.raises(ValueError):
        host.dense_to_csr(np.zeros(4, np.float32))
