"""Shared test helpers. The library comes from SPX_LIBRARY (ctest sets it to the build's
libspx.so); the C headers are found by walking up from this file to include/spx (or through
SPX_INCLUDE_DIR)."""
from __future__ import annotations

import os
import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the package under test, not an installed copy
sys.path.insert(0, str(HERE))


def _find_include() -> pathlib.Path | None:
    env = os.environ.get("SPX_INCLUDE_DIR")
    if env:
        return pathlib.Path(env)
    for parent in [HERE, *HERE.parents]:
        if (parent / "include" / "spx" / "spx_types.h").is_file():
            return parent / "include"
    return None


@pytest.fixture(scope="session")
def include_dir() -> pathlib.Path:
    inc = _find_include()
    if inc is None:
        pytest.fail("include/spx/spx_types.h not found: set SPX_INCLUDE_DIR")
    return inc


@pytest.fixture(scope="session")
def repo_root(include_dir) -> pathlib.Path:
    return include_dir.parent
