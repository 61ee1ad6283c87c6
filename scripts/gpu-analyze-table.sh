#!/usr/bin/env bash
# The analyze-time table of docs/benchmarks.md on the GPU machine, in one call: spx-analyze-bench
# over the Llama shapes x every family input x 50 / 80 / 95 % (MAX_N default and -1) with the
# artifacts' libspx, optionally the same binary over an older libspx.so (--before DIR holding
# libspx.so.0) for the before column, then the GPU suites of the families whose analyze changed.
# Five files go to --out (default $OUT or .): device.txt, analyze_after.csv, analyze_before.csv,
# analyze.err, tests.log. Each step has a time limit so the whole fits --budget s.
#
#   scripts/gpu-analyze-table.sh [--artifacts gpu-artifacts] [--before DIR] [--out DIR]
#                                [--budget 190] [--no-tests]
set -u
art=gpu-artifacts before="" out=${OUT:-.} budget=190 tests=1
while [ $# -gt 0 ]; do
  case $1 in
    --artifacts) art=$2; shift 2 ;;
    --before) before=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --no-tests) tests=0; shift ;;
    *) echo "usage: $0 [--artifacts DIR] [--before DIR] [--out DIR] [--budget S] [--no-tests]" >&2; exit 2 ;;
  esac
done
start=$(date +%s)
left() { local l=$(( budget - ($(date +%s) - start) )); [ "$1" -lt "$l" ] && l=$1; [ "$l" -lt 1 ] && l=1; echo "$l"; }
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; } > "$out/device.txt" 2>&1
bench=$art/bin/spx-analyze-bench
after_s=$(( tests ? budget / 2 : budget * 3 / 4 ))
LD_LIBRARY_PATH="$PWD/$art/lib" timeout "$(left $(( after_s + 8 )))" "$bench" --reps 3 \
  --budget-s "$after_s" --csv "$out/analyze_after.csv" 2> "$out/analyze.err"
echo "after: rc $? at $(( $(date +%s) - start )) s"
if [ -n "$before" ]; then
  LD_LIBRARY_PATH="$before" timeout "$(left 30)" "$bench" --shapes 11008x4096 --max-n 0 --reps 1 \
    --budget-s 22 --csv "$out/analyze_before.csv" 2>> "$out/analyze.err"
  echo "before: rc $? at $(( $(date +%s) - start )) s"
fi
if [ "$tests" = 1 ]; then
  export LD_LIBRARY_PATH="$PWD/$art/lib:${LD_LIBRARY_PATH:-}"
  for t in test_api_gpu_structure test_api_gpu_any_n test_srbcrs test_ell test_sptc; do
    echo "== $t" >> "$out/tests.log"
    timeout "$(left 25)" "$art/bin/gpu/$t" > "$out/$t.tmp" 2>&1
    echo "$t: rc $? at $(( $(date +%s) - start )) s: $(grep -E 'test cases|All tests' "$out/$t.tmp" | tail -1)"
    cat "$out/$t.tmp" >> "$out/tests.log" && rm -f "$out/$t.tmp"
  done
fi
cat "$out/analyze_after.csv"
