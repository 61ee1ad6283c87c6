"""Analyze options (spx.PlanOptions) on the host: defaults, set/get, the library's range checks
arriving as exceptions (no GPU needed)."""
import pytest

import spx
from spx.options import resolve_options


def test_defaults_and_round_trip():
    with spx.PlanOptions() as opts:
        assert opts.autotune is False
        assert opts.get(spx.PlanOption.AUTOTUNE) == 0
        opts.autotune = True
        assert opts.autotune is True
        opts.set(spx.PlanOption.AUTOTUNE, 0)
        assert opts.autotune is False
    assert spx.PlanOptions(autotune=True).autotune is True


def test_out_of_range_value_is_the_librarys_error():
    with spx.PlanOptions() as opts:
        with pytest.raises(spx.InvalidValueError, match="0 or 1"):
            opts.set(spx.PlanOption.AUTOTUNE, 2)
        assert opts.autotune is False  # unchanged


def test_dense_route_and_tf32_options():
    with spx.PlanOptions() as opts:
        assert opts.dense_route == spx.DenseRoute.AUTO
        assert opts.allow_tf32 is False
        opts.dense_route = spx.DenseRoute.ALWAYS
        assert opts.get(spx.PlanOption.DENSE_ROUTE) == 2
        opts.allow_tf32 = True
        assert opts.get(spx.PlanOption.ALLOW_TF32) == 1
        with pytest.raises(spx.InvalidValueError, match="SPX_DENSE_ROUTE_AUTO"):
            opts.set(spx.PlanOption.DENSE_ROUTE, 4)
        assert opts.dense_route == spx.DenseRoute.ALWAYS  # unchanged
        with pytest.raises(spx.InvalidValueError, match="0 or 1"):
            opts.set(spx.PlanOption.ALLOW_TF32, -1)
    with spx.PlanOptions(dense_route=spx.DenseRoute.NEVER, allow_tf32=True) as opts:
        assert opts.dense_route == spx.DenseRoute.NEVER and opts.allow_tf32 is True
        opts.dense_route = spx.DenseRoute.AUTO_EVERY_N
        assert opts.get(spx.PlanOption.DENSE_ROUTE) == 3


def test_closed_options_refuse_use():
    opts = spx.PlanOptions()
    opts.close()
    opts.close()  # twice is fine
    with pytest.raises(ValueError, match="closed"):
        opts.autotune = True


def test_autotune_shortcut_and_options_are_exclusive():
    opts, temporary = resolve_options(None, None)
    assert opts is None and not temporary
    opts, temporary = resolve_options(None, True)
    assert temporary and opts.autotune is True
    opts.close()
    with spx.PlanOptions() as mine:
        assert resolve_options(mine, None) == (mine, False)
        with pytest.raises(ValueError, match="either"):
            resolve_options(mine, True)


def test_values_layout_round_trip_and_range():
    with spx.PlanOptions() as opts:
        assert opts.values_layout is spx.ValuesLayout.NATIVE
        opts.values_layout = spx.ValuesLayout.SRBCRS
        assert opts.get(spx.PlanOption.SPARSE_VALUES_LAYOUT) == 1
        with pytest.raises(spx.InvalidValueError, match="SPX_VALUES_LAYOUT_SRBCRS"):
            opts.set(spx.PlanOption.SPARSE_VALUES_LAYOUT, 2)
        assert opts.values_layout is spx.ValuesLayout.SRBCRS  # unchanged
    assert spx.PlanOptions(values_layout=spx.ValuesLayout.SRBCRS).values_layout == 1


def test_srbcrs_slot_ptr():
    from spx.host import srbcrs_slot_ptr

    assert srbcrs_slot_ptr([0, 0, 3, 35, 35, 99], 4).tolist() == [0, 0, 32, 64, 64, 128]
    with pytest.raises(spx.InvalidValueError, match="block_row_ptr"):
        srbcrs_slot_ptr([0, 5, 2])


def test_epilogue_options():
    with spx.PlanOptions() as opts:
        assert opts.activation == spx.Activation.NONE
        assert opts.bias is False and opts.scale is False
        opts.activation = spx.Activation.GELU_TANH
        assert opts.get(spx.PlanOption.EPILOGUE_ACTIVATION) == 2
        opts.bias = True
        assert opts.get(spx.PlanOption.EPILOGUE_BIAS) == 1
        with pytest.raises(spx.InvalidValueError, match="SPX_ACTIVATION_SILU"):
            opts.set(spx.PlanOption.EPILOGUE_ACTIVATION, 4)
        assert opts.activation == spx.Activation.GELU_TANH  # unchanged
        with pytest.raises(spx.InvalidValueError, match="0 or 1"):
            opts.set(spx.PlanOption.EPILOGUE_SCALE, 2)
    with spx.PlanOptions(activation=spx.Activation.SILU, bias=True, scale=True) as opts:
        assert (opts.activation, opts.bias, opts.scale) == (spx.Activation.SILU, True, True)
