"""The ctypes declarations against the C headers: every exported function has a signature with
the right number of parameters, and spxPlanInfo_t has the C layout (compiled here with cc)."""
import ctypes
import re
import shutil
import subprocess

import pytest

from spx._lib import SIGNATURES, PlanInfoStruct


def exported_functions(include_dir):
    """{name: parameter count} of every SPX_API function in the public headers."""
    out = {}
    for header in ("spx.h", "spx_host.h"):
        text = re.sub(r"/\*.*?\*/", "", (include_dir / "spx" / header).read_text(), flags=re.S)
        for name, params in re.findall(r"SPX_API\s+[\w\s\*]+?\b(spx\w+)\s*\(([^)]*)\)", text):
            params = params.strip()
            out[name] = 0 if params in ("", "void") else params.count(",") + 1
    return out


def test_every_exported_function_is_declared(include_dir):
    c_funcs = exported_functions(include_dir)
    assert len(c_funcs) > 40
    assert set(c_funcs) == set(SIGNATURES)
    for name, count in c_funcs.items():
        assert len(SIGNATURES[name][1]) == count, name


def test_library_exports_every_declared_function():
    from spx._lib import NEWER, has_function, lib

    lib()
    missing = {name for name in SIGNATURES if not has_function(name)}
    assert missing <= NEWER, f"the library lacks {sorted(missing - NEWER)}"
    if missing:
        pytest.skip(f"the library predates {sorted(missing)} (rebuild it to check them)")


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_plan_info_layout_matches_c(include_dir, tmp_path):
    fields = [name for name, _ in PlanInfoStruct._fields_]
    src = tmp_path / "layout.c"
    src.write_text("#include <stddef.h>\n#include <stdio.h>\n#include \"spx/spx.h\"\n"
                   "int main(void) {\n"
                   '  printf("size %zu\\n", sizeof(spxPlanInfo_t));\n'
                   + "".join(f'  printf("{f} %zu\\n", offsetof(spxPlanInfo_t, {f}));\n'
                             for f in fields)
                   + "  return 0;\n}\n")
    exe = tmp_path / "layout"
    subprocess.run(["cc", f"-I{include_dir}", str(src), "-o", str(exe)], check=True)
    lines = dict(line.split() for line in subprocess.run(
        [str(exe)], check=True, capture_output=True, text=True).stdout.splitlines())
    assert int(lines["size"]) == ctypes.sizeof(PlanInfoStruct)
    for f in fields:
        assert int(lines[f]) == getattr(PlanInfoStruct, f).offset, f
