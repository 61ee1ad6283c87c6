#!/usr/bin/env bash
# The README's first command: builds libspx and runs examples/quickstart. Without a GPU the
# quickstart does the host-side steps and says that the device steps were skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
scripts/install-deps.sh
build=${BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" \
  -DSPX_BUILD_TESTS=OFF -DSPX_BUILD_EXAMPLES=ON -DSPX_BUILD_BENCH=OFF
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target spx_quickstart
"$build/examples/quickstart"
