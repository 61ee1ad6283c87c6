#!/usr/bin/env bash
# The CPU suite (ctest -L cpu) under AddressSanitizer + UndefinedBehaviorSanitizer: configures
# its own build folder with SPX_SANITIZE=ON (cmake/sanitize.cmake: host code of C, C++ and .cu
# files, no recovery from undefined behaviour), builds the library and its tests for sm_90 only
# (examples, spx-bench and Fortran off), and runs every test labelled cpu. No GPU needed.
# Environment: BUILD_DIR (default build-asan), JOBS (default: number of cores).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
scripts/install-deps.sh
build=${BUILD_DIR:-build-asan}
jobs=${JOBS:-$(nproc)}

# protect_shadow_gap=0: the CUDA runtime maps memory at fixed addresses inside ASan's shadow gap
# (without it, a process that loads libcudart can fail at start). Leaks are detected
# (LeakSanitizer) with no suppressions: the static CUDA runtime leaks nothing without a GPU.
# Tests running programs not built here (python3, cmake) set their own options
# (spx_sanitize_foreign_test in cmake/sanitize.cmake).
export ASAN_OPTIONS="protect_shadow_gap=0:detect_leaks=1:strict_string_checks=1"
ASAN_OPTIONS+=":check_initialization_order=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DSPX_SANITIZE=ON -DSPX_BUILD_TESTS=ON -DSPX_BUILD_EXAMPLES=OFF -DSPX_BUILD_BENCH=OFF \
  -DSPX_BUILD_FORTRAN=OFF
cmake --build "$build" -j "$jobs"
ctest --test-dir "$build" -L cpu --no-tests=error --output-on-failure -j "$jobs"
