#!/usr/bin/env bash
# The README's test command: installs what is missing, builds libspx with its tests, and runs
# the whole suite with ctest. GPU tests are skipped (not failed) where no GPU is present.
# Environment: BUILD_DIR (default build), CUDA_ARCHS (default 90 here to keep the build fast;
# the library's own default is 80;90), JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
scripts/install-deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
  -DSPX_BUILD_TESTS=ON -DSPX_BUILD_EXAMPLES=ON -DSPX_BUILD_BENCH=ON
cmake --build "$build" -j "${JOBS:-$(nproc)}"
ctest --test-dir "$build" --output-on-failure -j "${JOBS:-$(nproc)}"
