"""The one-call execute and per-n plan info on the host: spxPlanInfo_t's new fields, the
arguments SpMMPlan.execute_raw hands to spxSpMM_execute (captured, with fake device arrays),
SPX_PLAN_OPTION_MAX_N, and the message of a library that predates the new calls."""
import ctypes

import pytest

import spx
from spx import _lib, plan as plan_mod
from spx._lib import PlanInfoStruct
from spx.plan import PlanInfo, SpMMPlan

from fakes import f32

NEW_LIBRARY = pytest.mark.skipif(not _lib.has_function("spxSpMM_execute"),
                                 reason="the built libspx predates spxSpMM_execute")


def test_plan_info_new_fields_replace_reserved():
    names = [name for name, _ in PlanInfoStruct._fields_]
    assert "reserved" not in names and names[-2:] == ["max_n", "prepared_sizes"]
    assert PlanInfoStruct.max_n.offset == PlanInfoStruct.dense_bytes.offset + 8
    assert ctypes.sizeof(PlanInfoStruct) == PlanInfoStruct.prepared_sizes.offset + 8
    s = PlanInfoStruct(family=2, metadata_bytes=100, values_bytes=1000, dense_bytes=24,
                       max_n=-1, prepared_sizes=13)
    info = PlanInfo.from_struct(s)
    assert info.family is spx.SpMMAlg.ELL
    # values_bytes counts the dense copy (dense_bytes): it is not added twice.
    assert (info.max_n, info.prepared_sizes, info.bytes_held) == (-1, 13, 1100)


class _Handle:
    ptr = ctypes.c_void_p(0xABC)
    pointer_mode = spx.PointerMode.HOST


def _fake_plan(monkeypatch, workspace_bytes=0):
    """An SpMMPlan with a made-up C pointer whose C calls are recorded instead of made."""
    p = SpMMPlan.__new__(SpMMPlan)
    plan_mod.Plan.__init__(p, None)
    p._ptr = ctypes.c_void_p(0x5000)
    p.close = lambda: None  # the made-up pointer must never reach spxPlanDestroy
    p.out_dtype = spx.DataType.R_32F
    calls = []
    monkeypatch.setattr(plan_mod, "call", lambda name, *args: calls.append((name, args)))
    monkeypatch.setattr(plan_mod, "resolve", lambda handle, views: _Handle())
    monkeypatch.setattr(SpMMPlan, "workspace_bytes", property(lambda self: workspace_bytes))
    return p, calls


def _float_at(p) -> float:
    return ctypes.cast(p, ctypes.POINTER(ctypes.c_float)).contents.value


def test_execute_raw_passes_addresses_leading_dims_and_scalars(monkeypatch):
    p, calls = _fake_plan(monkeypatch)
    B, C = f32(64, 3), f32(128, 3)
    p.execute_raw(3, B, 64, C.ptr, 128, alpha=2.5, beta=0.5)
    ((name, args),) = calls
    h, plan, n, pa, pb_, ldb, pbeta, pc, ldc, ws = args
    assert name == "spxSpMM_execute" and h.value == 0xABC and plan.value == 0x5000
    assert (n, ldb, ldc) == (3, 64, 128)
    assert (pb_.value, pc.value) == (B.ptr, C.ptr)
    assert (_float_at(pa), _float_at(pbeta)) == (2.5, 0.5)
    assert ws is None  # no workspace needed


def test_execute_raw_rejects_non_integers_and_needs_a_workspace(monkeypatch):
    p, calls = _fake_plan(monkeypatch, workspace_bytes=4096)
    with pytest.raises(TypeError):
        p.execute_raw(3.0, 0x1000, 64, 0x2000, 128)
    with pytest.raises(spx.InvalidValueError, match="4096 bytes"):
        p.execute_raw(3, 0x1000, 64, 0x2000, 128)
    ws = f32(1024)
    p.execute_raw(0, 0x1000, 64, 0x2000, 128, workspace=ws)
    assert calls[-1][1][-1].value == ws.ptr and calls[-1][1][2] == 0


def test_execute_raw_device_scalars_switch_pointer_mode(monkeypatch):
    p, calls = _fake_plan(monkeypatch)
    alpha, beta = f32(1), f32(1)
    p.execute_raw(5, 0x1000, 64, 0x2000, 128, alpha=alpha, beta=beta)
    args = calls[-1][1]
    assert (args[3].value, args[6].value) == (alpha.ptr, beta.ptr)
    with pytest.raises(spx.InvalidValueError, match="both"):
        p.execute_raw(5, 0x1000, 64, 0x2000, 128, alpha=alpha, beta=0.0)
    with pytest.raises(spx.InvalidValueError, match="one R_32F element"):
        p.execute_raw(5, 0x1000, 64, 0x2000, 128, alpha=f32(2), beta=beta)


def test_info_for_n_passes_n(monkeypatch):
    p, calls = _fake_plan(monkeypatch)
    info = p.info_for_n(7)
    name, (plan, n, ref) = calls[-1]
    assert name == "spxPlanGetInfoForN" and n == 7 and isinstance(info, PlanInfo)


def test_calling_a_function_the_library_lacks_says_rebuild(monkeypatch):
    _lib.lib()
    monkeypatch.setattr(_lib, "_missing", {"spxPlanGetInfoForN"})
    assert not _lib.has_function("spxPlanGetInfoForN")
    with pytest.raises(spx.NotSupportedError, match="predates spxPlanGetInfoForN"):
        _lib.call("spxPlanGetInfoForN", None, 1, None)


def test_max_n_values_outside_int32_never_reach_the_library():
    with spx.PlanOptions() as opts:
        for bad in (2 ** 31, -2 ** 31 - 1):
            with pytest.raises(spx.InvalidValueError, match="int32"):
                opts.set(spx.PlanOption.MAX_N, bad)


@NEW_LIBRARY
def test_max_n_option_round_trip():
    with spx.PlanOptions() as opts:
        assert opts.max_n == 0
        opts.max_n = -1
        assert opts.get(spx.PlanOption.MAX_N) == -1
        opts.max_n = 4096
        assert opts.max_n == 4096
        with pytest.raises(spx.InvalidValueError):
            opts.max_n = -2
        assert opts.max_n == 4096  # unchanged
    assert spx.PlanOptions(max_n=-1).max_n == -1
    from spx.options import resolve_options
    opts, temporary = resolve_options(None, None, -1)
    assert temporary and opts.max_n == -1 and opts.autotune is False
    opts.close()
