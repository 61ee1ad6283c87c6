#!/usr/bin/env python3
"""Checks that libspx.so exports exactly the symbols of cmake/spx.exports (the spx* C API):
`nm -D --defined-only`, names only. Usage: check-exports.py path/to/libspx.so. A new API
function is added to the list in the same change; anything else exported is a leak."""
import pathlib
import subprocess
import sys

lib = sys.argv[1]
expected_file = pathlib.Path(__file__).resolve().parent.parent / "cmake" / "spx.exports"
out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True,
                     text=True).stdout
exported = {line.split()[-1] for line in out.splitlines() if line.strip()}
expected = {line.strip() for line in expected_file.read_text().splitlines() if line.strip()}
extra, missing = sorted(exported - expected), sorted(expected - exported)
for name in extra:
    print(f"exported but not in cmake/spx.exports: {name}")
for name in missing:
    print(f"in cmake/spx.exports but not exported: {name}")
print(f"exports: {len(exported)} symbols, {len(extra)} unexpected, {len(missing)} missing")
sys.exit(1 if extra or missing else 0)
