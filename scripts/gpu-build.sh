#!/usr/bin/env bash
# Builds libspx, its tests, examples and spx-bench for the GPU machine on a machine without a
# GPU, and gathers what the GPU run needs into gpu-artifacts/ (kept under the 64 MiB a device
# call may carry): binaries, libspx.so, the examples (C, C++, Fortran) and the Python package. Then, on the GPU machine: scripts/gpu-run.sh [--sanitize] [--bench ARGS].
# Options: --archs "80;90" (default 90), --with-data (also copy the DLMC archives from DATA_DIR),
# --build DIR (default build-gpu), --out DIR (default gpu-artifacts; e.g. a worktree's artifacts
# copied into the main checkout, which is what the device tool sends).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
archs=90
with_data=0
build=build-gpu
out=gpu-artifacts
while [ $# -gt 0 ]; do
  case $1 in
    --archs) archs=$2; shift 2 ;;
    --with-data) with_data=1; shift ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--archs LIST] [--with-data] [--build DIR] [--out DIR]" >&2; exit 2 ;;
  esac
done
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$archs" \
  -DSPX_BUILD_TESTS=ON -DSPX_BUILD_EXAMPLES=ON -DSPX_BUILD_BENCH=ON >/dev/null
cmake --build "$build" -j "$(nproc)"

rm -rf "$out"
mkdir -p "$out/lib" "$out/bin/gpu" "$out/bin/cpu"
cp -a "$build"/src/libspx.so* "$out/lib/"
for t in "$build"/tests/gpu/test_*; do [ -x "$t" ] && [ -f "$t" ] && cp "$t" "$out/bin/gpu/"; done
for t in "$build"/tests/cpu/test_*; do [ -x "$t" ] && [ -f "$t" ] && cp "$t" "$out/bin/cpu/"; done
cp "$build/examples/quickstart" "$out/bin/"
cp "$build/bench/spx-bench" "$build/bench/spx-host-cost" "$out/bin/"
cp "$build/bench/spx-analyze-bench" "$out/bin/"
# The per-family examples (C and C++), and the Fortran example when gfortran built it, with the
# Fortran runtime it links (the GPU machine may not have one).
mkdir -p "$out/bin/examples"
for e in nm_spmm ell_spmm int8_bcrs_spmm families sparse_attention; do
  [ -x "$build/examples/$e" ] && cp "$build/examples/$e" "$out/bin/examples/"
done
if [ -x "$build/bindings/fortran/nm_spmm_fortran" ]; then
  mkdir -p "$out/bin/fortran"
  cp "$build/bindings/fortran/nm_spmm_fortran" "$out/bin/fortran/"
  ldd "$build/bindings/fortran/nm_spmm_fortran" | awk '/libgfortran|libquadmath/ {print $3}' \
    | while read -r lib; do cp -L "$lib" "$out/lib/"; done
fi
strip --strip-unneeded "$out"/bin/*/* "$out"/bin/quickstart "$out"/bin/spx-bench "$out"/bin/spx-host-cost "$out"/bin/spx-analyze-bench 2>/dev/null || true
# The Python package with its tests (pure Python) and the headers its tests compare against.
mkdir -p "$out/python"
cp -r bindings/python/spx bindings/python/tests bindings/python/pyproject.toml "$out/python/"
find "$out/python" -name __pycache__ -prune -exec rm -rf {} +
cp -r include "$out/include"
if [ $with_data = 1 ]; then
  mkdir -p "$out/data"
  # The DLMC archives: DATA_DIR, else a data/ folder beside the checkout.
  cp "${DATA_DIR:-../shared/data}"/*.tar.xz "$out/data/"
fi
git rev-parse --short HEAD > "$out/COMMIT" 2>/dev/null || echo unknown > "$out/COMMIT"
du -sh "$out"
echo "carry $out and run: scripts/gpu-run.sh --artifacts $out"
