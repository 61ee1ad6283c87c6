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
