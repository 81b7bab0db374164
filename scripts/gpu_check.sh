#!/usr/bin/env bash
# The one GPU call: builds everything for sm_90, runs every test and example,
# runs compute-sanitizer over the tests and the examples, and prints a summary
# table last. Run from the repository root on a machine with a CUDA GPU:
#   scripts/gpu_check.sh [--no-sanitizer] [--bench]   (logs: $OUT if set, else build-gpu/logs)
set -u
sanitize=1 bench=0
for a in "$@"; do
  case $a in --no-sanitizer) sanitize=0 ;; --bench) bench=1 ;; *) echo "unknown option $a" >&2; exit 2 ;; esac
done
cd "$(dirname "$0")/.."
build=build-gpu
logs=${OUT:-$build/logs}
mkdir -p "$logs"
rows=()
row() { rows+=("$(printf '%-42s %-6s %s' "$1" "$2" "$3")"); }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader || true

t0=$SECONDS
if cmake -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUH_BUILD_BENCH=$([ $bench = 1 ] && echo ON || echo OFF) >"$logs/build.log" 2>&1 &&
   cmake --build $build -j "$(nproc)" >>"$logs/build.log" 2>&1; then
  row "build (sm_90, Release)" PASS "$((SECONDS - t0)) s"
else
  row "build (sm_90, Release)" FAIL "see build.log"
  tail -40 "$logs/build.log"
  printf '%s\n' "${rows[@]}"
  exit 1
fi

# Every test and example through CTest; on a GPU machine nothing may skip.
t0=$SECONDS
ctest --test-dir $build --output-on-failure >"$logs/ctest.log" 2>&1
ctest_rc=$?
summary=$(grep -E "tests passed|tests failed" "$logs/ctest.log" | tail -1)
skips=$(grep -c "Not Run\|Skipped" "$logs/ctest.log")
if [ $ctest_rc -eq 0 ] && [ "$skips" -eq 0 ]; then st=PASS; else st=FAIL; fi
row "ctest (all tests and examples)" $st "$summary, $skips skipped, $((SECONDS - t0)) s"
grep -E "^ *[0-9]+/[0-9]+ Test" "$logs/ctest.log"

# Each example's own verdict line; all their output goes to examples.log.
for ex in 01_thread_hierarchy 02_device_list 03_vector_add_four_ways 04_reduction \
          05_matmul_naive_vs_tiled 06_row_norms 07_from_c 08_reduction_ladder 09_stream_timeline; do
  ./$build/$ex >"$build/example.out" 2>&1
  rc=$?
  { echo "==== $ex (exit $rc)"; cat "$build/example.out"; } >>"$logs/examples.log"
  verdict=$(grep -E "^Result = " "$build/example.out" | tail -1)
  [ $rc -eq 0 ] && st=PASS || st=FAIL
  row "example $ex" $st "${verdict:-no Result line} (exit $rc)"
done

# compute-sanitizer: memcheck (with leak check) over the tests in their quick
# mode and over the examples, racecheck and synccheck over the kernel tests.
san() { # tool program
  local log="$logs/sanitizer.log"
  echo "==== $2 under $1" >>"$log"
  GPUH_TEST_QUICK=1 compute-sanitizer --tool "$1" $([ "$1" = memcheck ] && echo --leak-check full) \
    --report-api-errors no --error-exitcode 99 "./$build/$2" >>"$log" 2>&1
  local rc=$? errs
  errs=$(tail -5 "$log" | grep -oE "(ERROR SUMMARY: [0-9]+|RACECHECK SUMMARY: [0-9]+)" | grep -oE "[0-9]+$")
  [ $rc -eq 0 ] && st=PASS || st=FAIL
  row "sanitizer $1 $2" $st "${errs:-?} errors (exit $rc)"
}
if [ $sanitize = 1 ]; then
  for p in test_helpers test_kernels test_streams test_link 01_thread_hierarchy 04_reduction 07_from_c; do
    san memcheck $p
  done
  for p in test_kernels; do san racecheck $p; san synccheck $p; san initcheck $p; done
fi

if [ $bench = 1 ]; then
  t0=$SECONDS
  OUT= GPUH_BUILD_DIR=$build bench/run.sh >"$logs/bench.log" 2>&1 && st=PASS || st=FAIL
  cp bench/results/bench.csv bench/results/*.png "$logs"/ 2>/dev/null
  row "bench (bench/run.sh)" $st "$((SECONDS - t0)) s, tables in bench.log"
  sed -n '/^==== targets/,$p' bench/results/bench.txt
  sed -n '/^==== targets against torch/,$p' bench/results/torch_cupy.txt
fi

echo
echo "==== gpuh GPU check: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
printf '%-42s %-6s %s\n' "step" "result" "detail"
printf '%s\n' "${rows[@]}"
printf '%s\n' "${rows[@]}" | grep -q " FAIL " && exit 1
exit 0
