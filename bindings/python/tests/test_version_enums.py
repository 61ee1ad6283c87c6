"""Import, version and enums against the C header and the loaded library (no GPU needed)."""
import pathlib
import re

import pytest

import spx
from spx import errors

# C enum typedef -> (Python enum, prefix of its enumerators)
ENUMS = {
    "spxStatus": (spx.Status, "SPX_STATUS_"),
    "spxDataType": (spx.DataType, "SPX_"),
    "spxOrder": (spx.Order, "SPX_ORDER_"),
    "spxFormat": (spx.Format, "SPX_FORMAT_"),
    "spxPointerMode": (spx.PointerMode, "SPX_POINTER_MODE_"),
    "spxSpMMAlg": (spx.SpMMAlg, "SPX_SPMM_ALG_"),
    "spxPlanOption": (spx.PlanOption, "SPX_PLAN_OPTION_"),
    "spxValuesLayout": (spx.ValuesLayout, "SPX_VALUES_LAYOUT_"),
    "spxDenseRoute": (spx.DenseRoute, "SPX_DENSE_ROUTE_"),
    "spxActivation": (spx.Activation, "SPX_ACTIVATION_"),
}


def parse_c_enums(text):
    """{typedef tag: {enumerator: value}} for every `typedef enum tag { A = 0, ... }`."""
    out = {}
    pattern = r"typedef\s+enum\s+(\w+)\s*(?:SPX_ENUM_INT\s*)?\{(.*?)\}"  # SPX_ENUM_INT: `: int` in C++
    for tag, body in re.findall(pattern, text, re.S):
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        out[tag] = {name: int(value) for name, value in re.findall(r"(\w+)\s*=\s*(-?\d+)", body)}
    return out


def header_version(include_dir):
    text = (include_dir / "spx" / "spx.h").read_text()
    return tuple(int(re.search(rf"#define SPX_VERSION_{p}\s+(\d+)", text).group(1))
                 for p in ("MAJOR", "MINOR", "PATCH"))


def test_version_matches_library_header_and_cmake(include_dir, repo_root):
    lib = spx.library_version()
    assert lib == header_version(include_dir)
    assert spx.__version__ == "%d.%d.%d" % lib
    # The header is the one source: CMake and the wheel's metadata read it, nothing repeats it.
    cmake = repo_root / "CMakeLists.txt"
    if cmake.is_file():  # absent where only the package and headers were copied (GPU run)
        text = cmake.read_text()
        assert "include/spx/spx.h" in text and re.search(r"project\(spx VERSION \d", text) is None
        pyproject = (repo_root / "pyproject.toml").read_text()
        assert 'input = "include/spx/spx.h"' in pyproject
        assert re.search(r'^version\s*=', pyproject, re.M) is None


def test_enums_match_the_c_header(include_dir):
    c_enums = parse_c_enums((include_dir / "spx" / "spx_types.h").read_text())
    assert set(c_enums) == set(ENUMS), "a C enum has no Python counterpart (or the reverse)"
    for tag, (py_enum, prefix) in ENUMS.items():
        expected = {name[len(prefix):]: value for name, value in c_enums[tag].items()}
        assert all(name.startswith(prefix) for name in c_enums[tag])
        assert {m.name: m.value for m in py_enum} == expected, tag
    assert spx.SDDMMAlg is spx.SpMMAlg  # typedef spxSpMMAlg_t spxSDDMMAlg_t


def test_status_names_and_exception_classes():
    for status in spx.Status:
        assert spx.status_name(status) == "SPX_STATUS_" + status.name
        assert spx.status_string(status)  # a description for every status
        if status == spx.Status.SUCCESS:
            continue
        cls = errors.error_class(status)
        assert issubclass(cls, spx.SpxError) and cls.status == status
        e = errors.make_error(status, "a message", "spxSomething")
        assert isinstance(e, cls) and e.status == status and e.message == "a message"
        assert "spxSomething" in str(e) and status.name in str(e)
    assert len({errors.error_class(s) for s in spx.Status if s}) == len(spx.Status) - 1
    # A status this version does not know still arrives as an SpxError.
    e = errors.make_error(99, "from the future")
    assert type(e) is spx.SpxError and "99" in str(e)


def test_exception_classes_are_also_builtin_categories():
    assert issubclass(spx.InvalidValueError, ValueError)
    assert issubclass(spx.AllocFailedError, MemoryError)
    assert issubclass(spx.SpxIOError, OSError)


def test_bad_library_path_is_reported(tmp_path, monkeypatch):
    from spx import _lib

    monkeypatch.setenv("SPX_LIBRARY", str(tmp_path / "missing" / "libspx.so"))
    monkeypatch.setattr(_lib, "_lib", None)
    with pytest.raises(spx.LibraryNotFoundError, match="SPX_LIBRARY"):
        spx.library_version()
