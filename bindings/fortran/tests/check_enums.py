#!/usr/bin/env python3
"""CI check: the Fortran constants of spx_enums.f90 equal the C enum values of spx_types.h and
the version macros of spx.h, and no enumerator is missing on either side.

Usage: check_enums.py <include dir> <spx_enums.f90>
"""
import pathlib
import re
import sys


def c_values(include: pathlib.Path) -> dict:
    values = {}
    types = (include / "spx" / "spx_types.h").read_text()
    for body in re.findall(r"typedef\s+enum\s+\w+\s*(?:SPX_ENUM_INT\s*)?\{(.*?)\}", types, re.S):
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        values.update({k: int(v) for k, v in re.findall(r"(SPX_\w+)\s*=\s*(-?\d+)", body)})
    header = (include / "spx" / "spx.h").read_text()
    parts = {p: int(re.search(rf"#define SPX_VERSION_{p}\s+(\d+)", header).group(1))
             for p in ("MAJOR", "MINOR", "PATCH")}
    values.update({f"SPX_VERSION_{p}": v for p, v in parts.items()})
    values["SPX_VERSION"] = parts["MAJOR"] * 10000 + parts["MINOR"] * 100 + parts["PATCH"]
    return values


def fortran_values(source: pathlib.Path) -> dict:
    text = re.sub(r"&\s*\n\s*", " ", source.read_text())  # join continuation lines
    values = {}
    for name, expr in re.findall(r"parameter\s*::\s*(SPX_\w+)\s*=\s*([^!\n]+)", text, re.I):
        # Expressions may use earlier constants (SPX_VERSION): evaluate with those only.
        values[name.upper()] = eval(expr, {"__builtins__": {}}, dict(values))
    return values


def main() -> int:
    include, source = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    c, f = c_values(include), fortran_values(source)
    problems = [f"{k}: C {c[k]}, Fortran {f.get(k, 'missing')}" for k in sorted(c) if f.get(k) != c[k]]
    problems += [f"{k}: in Fortran only" for k in sorted(set(f) - set(c))]
    if len(c) < 30:
        problems.append(f"only {len(c)} C values parsed: the header parser is broken")
    for p in problems:
        print("MISMATCH", p)
    print(f"checked {len(c)} values: {'OK' if not problems else 'FAILED'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
