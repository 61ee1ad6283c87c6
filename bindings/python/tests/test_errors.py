"""Statuses arrive as exceptions carrying the library's message (no GPU needed)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spx
from spx import _lib
from fakes import f32, i32


def test_handle_without_a_device_is_not_initialized():
    # CUDA_VISIBLE_DEVICES="" hides every GPU, so this is deterministic on GPU machines too.
    code = textwrap.dedent("""
        import spx
        try:
            spx.Handle()
        except spx.NotInitializedError as e:
            print("status", int(e.status), "call", e.call)
            print("message", e.message)
        else:
            print("no error")
    """)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert "status 1 call spxCreate" in out
    assert "message no CUDA device is available" in out


def test_nm_parameters_checked_by_the_library():
    with pytest.raises(spx.InvalidValueError) as info:
        spx.NMMatrix(f32(8, 8), i32(1, 8), (8, 16), n=5, m=4, l=8)
    e = info.value
    assert e.status == spx.Status.INVALID_VALUE and e.call == "spxCreateNM"
    assert e.message == "N (5) must be <= M (4)" == _lib.last_error_message()
    assert "N (5) must be <= M (4)" in str(e)
    with pytest.raises(spx.InvalidValueError, match=r"rows \(12\) must be a multiple of L \(8\)"):
        spx.NMMatrix(f32(12, 8), i32(1, 8), (12, 16), n=2, m=4, l=8)


def test_ell_and_bcrs_shapes_checked_by_the_library():
    with pytest.raises(spx.InvalidValueError, match=r"ell_width \(5\) must be <= cols \(4\)"):
        spx.EllMatrix(i32(3 * 5), f32(3 * 5), (3, 4))
    with pytest.raises(spx.InvalidValueError, match=r"rows \(10\) must be a multiple of vec_len \(4\)"):
        spx.BcrsMatrix(i32(3), i32(2), f32(8), (10, 6), vec_len=4)


def test_python_side_checks_raise_the_same_classes():
    with pytest.raises(spx.InvalidValueError, match="int32 indices"):
        spx.CsrMatrix(f32(5), i32(4), f32(4), (4, 4))
    with pytest.raises(spx.InvalidValueError, match="holds 12 bytes but 16 are needed"):
        spx.CsrMatrix(i32(5), i32(4), f32(3), (4, 4))
    with pytest.raises(spx.InvalidValueError, match="not a CUDA device array"):
        spx.CsrMatrix(i32(5), i32(4), np.zeros(4, np.float32), (4, 4))
    with pytest.raises(spx.InvalidValueError, match="not a CUDA device array: its DLPack device type is 1"):
        spx.Dense(np.zeros((2, 2), np.float32))  # NumPy exports DLPack on the CPU


def test_host_tools_report_library_messages(tmp_path):
    from spx import host

    with pytest.raises(spx.InvalidValueError, match=r"multiple of M \(4\)"):
        host.prune_nm(np.ones((4, 10), np.float32), 2, 4, 1)
    with pytest.raises(spx.InvalidValueError) as info:
        host.check_nm(np.ones((4, 8), np.float32), 5, 4, 1)
    assert info.value.message == "N (5) must be <= M (4)"
    missing = tmp_path / "nope.smtx"
    with pytest.raises(spx.SpxIOError) as info:
        host.read_smtx(missing)
    assert str(missing) in info.value.message
    bad = tmp_path / "bad.smtx"
    bad.write_text("2, 2, 1\n0 1\n")
    with pytest.raises(spx.SpxIOError):
        host.read_smtx(bad)
