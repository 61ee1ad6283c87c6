#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (Clang, ASan + UBSan; CMake option SPX_BUILD_FUZZ)
# in their own build folder and runs each one for SECONDS (default 20) from its seed corpus
# (tests/fuzz/corpus/<target>). Fails when any target finds a crash, a sanitizer report, a
# failed invariant, a leak or a hang (an input over 10 s); the input is kept under
# <build>/fuzz-artifacts and its log under <build>/fuzz-logs.
# Usage: scripts/fuzz.sh [SECONDS]
# Environment: BUILD_DIR (default build-fuzz), JOBS (build jobs, default: number of cores),
# FUZZ_TARGETS (space-separated subset, e.g. "smtx prune"; default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
export PATH="/usr/local/cuda/bin:$PATH"  # the top-level project enables CUDA (nvcc)
build=${BUILD_DIR:-build-fuzz}
all_targets="smtx structures dense_convert prune ell_layout srbcrs_layout sptc_reorder plan_bytes"
targets=${FUZZ_TARGETS:-$all_targets}

# Clang with the libFuzzer runtime (Debian: clang + libclang-rt-dev).
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' \
  > "$probe/p.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/p.cpp" -o "$probe/p" 2>/dev/null; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "installing: clang libclang-rt-dev"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang libclang-rt-dev >/dev/null
fi

CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DSPX_BUILD_FUZZ=ON -DSPX_BUILD_TESTS=OFF \
  -DSPX_BUILD_EXAMPLES=OFF -DSPX_BUILD_BENCH=OFF -DSPX_BUILD_FORTRAN=OFF >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" --target $(printf 'fuzz_%s ' $targets)

mkdir -p "$build/fuzz-corpus" "$build/fuzz-artifacts" "$build/fuzz-logs"
failed=()
for t in $targets; do
  work="$build/fuzz-corpus/$t"  # grows across runs; the committed seeds stay as they are
  log="$build/fuzz-logs/$t.log"
  mkdir -p "$work"
  echo "fuzz_$t: ${seconds} s"
  if "$build/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
       -print_final_stats=1 -artifact_prefix="$build/fuzz-artifacts/$t-" \
       "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 | sed "s/^/  /" || true
  else
    failed+=("$t")
    echo "  FAILED: the end of $log:"
    tail -n 40 "$log" | sed "s/^/    /"
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]} (inputs in $build/fuzz-artifacts)" >&2
  exit 1
fi
echo "fuzz: every target ran ${seconds} s without a failure"
