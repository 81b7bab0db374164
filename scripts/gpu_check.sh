#!/usr/bin/env bash
# The one GPU call: builds everything for sm_90a, runs every test and example,
# runs compute-sanitizer over the tests and the examples, and prints a summary
# table last. Run from the repository root on a machine with a CUDA GPU:
#   scripts/gpu_check.sh [--no-sanitizer] [--no-tests] [--ctest-jobs N] [--san-jobs N] [--san-timeout S] [--bench]
#   (logs: $OUT if set, else build-gpu/logs). --no-tests leaves out CTest and
#   the examples, so that the sanitizer (or the bench) can run as a call of its
#   own on a warm machine, whose build-gpu is kept. The simulator's builds are
#   left out: CI runs them. Where one call has 10 minutes, run it in three on a
#   warm machine: --no-sanitizer --no-tests --bench (the build, about 6 minutes
#   on 16 cores, and the bench), then --no-sanitizer, then --no-tests.
set -u
# san_timeout: seconds per sanitizer run; racecheck over test_kernels alone
# takes about 200 s on an H200, longer beside other jobs.
# ctest_jobs: tests at a time on the one GPU; they check results, never
# times, so running side by side changes no verdict, and the suite takes
# about as long as its longest test (gpu.tc_gemm.sm80, about 190 s on an H200).
sanitize=1 bench=0 tests=1 ctest_jobs=4 san_jobs=4 san_timeout=420
while [ $# -gt 0 ]; do
  case $1 in
    --no-sanitizer) sanitize=0 ;;
    --no-tests) tests=0 ;;
    --bench) bench=1 ;;
    --ctest-jobs) ctest_jobs=$2; shift ;;
    --san-jobs) san_jobs=$2; shift ;;
    --san-timeout) san_timeout=$2; shift ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
cd "$(dirname "$0")/.." || exit 1
build="build-gpu"
logs=${OUT:-$build/logs}
mkdir -p "$logs"
rows=()
row() { rows+=("$(printf '%-42s %-6s %s' "$1" "$2" "$3")"); }

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv,noheader || true

# The bench's targets are built for --bench, and kept once built: turning
# them off again in a warm tree would reconfigure it and rebuild the rest.
bench_opt=()
if [ $bench = 1 ]; then bench_opt=(-DGPUH_BUILD_BENCH=ON)
elif [ ! -f $build/CMakeCache.txt ]; then bench_opt=(-DGPUH_BUILD_BENCH=OFF); fi
t0=$SECONDS
if cmake -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DGPUH_BUILD_SIM=OFF "${bench_opt[@]}" >"$logs/build.log" 2>&1 &&
   cmake --build $build -j "$(nproc)" >>"$logs/build.log" 2>&1; then
  row "build (sm_90a, Release)" PASS "$((SECONDS - t0)) s"
else
  row "build (sm_90a, Release)" FAIL "see build.log"
  tail -40 "$logs/build.log"
  printf '%s\n' "${rows[@]}"
  exit 1
fi

examples=(01_thread_hierarchy 02_device_list 03_vector_add_four_ways 04_reduction 05_matmul_naive_vs_tiled
          06_row_norms 07_from_c 08_reduction_ladder 09_stream_timeline 10_sgemm_ladder 11_hgemm_ladder
          12_mixed_precision 13_dense_network 14_data_parallel)
if [ $tests = 1 ]; then
  # Every test and example through CTest; on a GPU machine nothing may skip.
  t0=$SECONDS
  # fuzz, tsan, asan, samples: CPU-only suites, run by CI (.ci/run)
  ctest --test-dir $build -j "$ctest_jobs" --output-on-failure -LE "fuzz|tsan|asan|samples" >"$logs/ctest.log" 2>&1
  ctest_rc=$?
  summary=$(grep -E "tests passed|tests failed" "$logs/ctest.log" | tail -1)
  # The tests of several GPUs (their names hold "multi") may skip on a machine with one.
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c "^GPU")
  if [ "$gpus" -ge 2 ]; then multi_skip='^$'; else multi_skip='multi'; fi
  skips=$(grep "Not Run\|Skipped" "$logs/ctest.log" | grep -vc "$multi_skip")
  if [ $ctest_rc -eq 0 ] && [ "$skips" -eq 0 ]; then st=PASS; else st=FAIL; fi
  row "ctest (all tests and examples)" "$st" "$summary, $skips skipped, $((SECONDS - t0)) s"
  grep -E "^ *[0-9]+/[0-9]+ Test" "$logs/ctest.log"

  # Each example's own verdict line, read from its CTest run's output
  # (LastTest.log keeps every test's output); all of it goes to examples.log.
  last=$build/Testing/Temporary/LastTest.log
  : >"$logs/examples.log"
  for ex in "${examples[@]}"; do
    out=$(awk -v t="example.$ex" '$0 ~ "^[0-9]+/[0-9]+ Test: " t "$" {on = 1; next}
      on && /^<end of output>/ {exit} on' "$last")
    { echo "==== $ex"; echo "$out"; } >>"$logs/examples.log"
    verdict=$(grep -E "^Result = " <<<"$out" | tail -1)
    st=FAIL
    grep -qE "^ *[0-9]+/[0-9]+ Test +#[0-9]+: example\.$ex \.+ +Passed" "$logs/ctest.log" && st=PASS
    row "example $ex" "$st" "${verdict:-no Result line}"
  done
fi

# compute-sanitizer: memcheck (with --leak-check full), racecheck, initcheck and
# synccheck, each over every GPU test and every example, in quick mode
# (GPUH_TEST_QUICK=1: small sizes), --san-jobs at a time (default 4; one GPU
# runs them side by side): zero errors expected. Left out: test_fault (it
# faults on purpose); test_leak runs its clean child only (the others leak on
# purpose). Then each planted bug (tests/planted) under its own tool, which
# must catch it. Logs: $build/sanitizer/<tool>.<program>.log, all of them
# in sanitizer.log; the table is printed last.
san_programs=(test_kernels test_gemm test_tc_gemm test_tc_gemm_sm80 test_helpers test_streams test_bad_input test_host test_link "test_leak --child=clean" test_pool
              test_threads test_multi
              "${examples[@]}")
# These call the CUDA API with bad input on purpose (allocations larger than
# the device, a raw launch of 2048 threads, freeing a pointer twice, timing an
# event made without timing, a launcher that fails), so the API errors they
# provoke are not reported; every other program reports them.
# NCCL probes its kernels with cudaFuncGetAttributes, which fails by design on
# kernels not built for this GPU: test_multi and example 14, which call NCCL.
san_api_errors_expected=" test_helpers test_streams test_bad_input test_host test_pool test_multi 14_data_parallel "
san_base() { # tool program [args...]: the path of a run's files, less .log / .row / .verdict
  echo "$build/sanitizer/$1.$(echo "${*:2}" | tr ' =' '__')"
}
san_one() { # tool program [args...]: one run; writes its row to $(san_base ...).row
  local tool=$1 base planted=0 t0=$SECONDS rc errs st shown
  base=$(san_base "$@")
  shift
  case $1 in planted_*) planted=1 ;; esac
  local log="$base.log" opts=(--tool "$tool" --error-exitcode 99)
  [ "$tool" = memcheck ] && opts+=(--leak-check full)
  case "$san_api_errors_expected" in *" $1 "*) opts+=(--report-api-errors no) ;; esac
  GPUH_TEST_QUICK=1 timeout -k 10 "$san_timeout" compute-sanitizer "${opts[@]}" "./$build/$1" "${@:2}" >"$log" 2>&1
  rc=$?
  # compute-sanitizer's own failure ("Internal Sanitizer Error: Detected a
  # failure to track a kernel launch", seen under racecheck with several host
  # threads launching while other sanitizer jobs load the machine) counts as
  # an error but says nothing of the program: run once more, keep both logs,
  # and say so in the row.
  local retried=
  if [ $planted = 0 ] && grep -q "Internal Sanitizer Error" "$log"; then
    mv "$log" "${log%.log}.first-try.log"
    GPUH_TEST_QUICK=1 timeout -k 10 "$san_timeout" compute-sanitizer "${opts[@]}" "./$build/$1" "${@:2}" >"$log" 2>&1
    rc=$?
    retried=", run twice: sanitizer internal error on the first"
  fi
  if [ "$tool" = racecheck ] && grep -q "RACECHECK SUMMARY" "$log"; then
    errs=$(grep -oE "RACECHECK SUMMARY: .*\([0-9]+ error" "$log" | tail -1 | grep -oE "[0-9]+ error" | grep -oE "[0-9]+")
    errs=${errs:-0}
  else
    errs=$(grep -oE "ERROR SUMMARY: [0-9]+" "$log" | tail -1 | grep -oE "[0-9]+$")
  fi
  if [ $planted = 1 ]; then
    [ -n "$errs" ] && [ "$errs" -gt 0 ] && st=PASS shown="caught ($errs errors)" || st=FAIL shown="NOT CAUGHT (${errs:-?} errors)"
  else
    [ $rc -eq 0 ] && [ "${errs:-x}" = 0 ] && st=PASS || st=FAIL
    shown=${errs:-?}
  fi
  [ $rc -eq 124 ] && st=FAIL shown="$shown, timed out after ${san_timeout} s"
  printf '%-10s %-34s %-24s %-6s %s\n' "$tool" "$*" "$shown" "$st" "exit $rc, $((SECONDS - t0)) s$retried${SAN_ALONE:-}" \
    >"$base.row"
  # What the rerun below needs: a failure with errors the tool counted is the program's.
  if [ $planted = 0 ] && [ "$st" = FAIL ] && [ "${errs:-0}" = 0 ]; then echo other; else echo "$st"; fi \
    >"$base.verdict"
}
san_rows=()
if [ $sanitize = 1 ]; then
  t0=$SECONDS
  mkdir -p "$build/sanitizer"
  rm -f "$build"/sanitizer/*.row "$build"/sanitizer/*.verdict "$build"/sanitizer/*.first-try.log "$build"/sanitizer/*.beside-others.log
  san_jobs_list=()
  for p in "${san_programs[@]}"; do for tool in memcheck racecheck initcheck synccheck; do san_jobs_list+=("$tool $p"); done; done
  for tool in memcheck racecheck initcheck synccheck; do san_jobs_list+=("$tool planted_$tool"); done
  for j in "${san_jobs_list[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$san_jobs" ]; do wait -n; done
    # shellcheck disable=SC2086  # j is "tool program [args]", split on purpose
    san_one $j &
  done
  wait
  # A run that failed beside the others with no error of the program counted
  # (the device out of memory under several racecheck jobs, the tool's own
  # internal error, a timeout) runs once more alone; its row says so, and the
  # first log is kept as <tool>.<program>.beside-others.log.
  for j in "${san_jobs_list[@]}"; do
    # shellcheck disable=SC2086  # split on purpose, as above
    set -- $j
    f=$(san_base "$@")
    [ "$(cat "$f.verdict" 2>/dev/null)" = other ] || continue
    mv "$f.log" "$f.beside-others.log"
    # shellcheck disable=SC2086
    SAN_ALONE=", run again alone: failed beside other jobs (see its .beside-others.log)" san_one $j
  done
  for f in "$build"/sanitizer/*.log; do echo "==== $f"; cat "$f"; done >"$logs/sanitizer.log"
  for j in "${san_jobs_list[@]}"; do
    # shellcheck disable=SC2086  # split on purpose, as above
    set -- $j
    tool=$1
    shift
    f=$(san_base "$tool" "$@").row
    [ -f "$f" ] && san_rows+=("$(cat "$f")") || san_rows+=("$(printf '%-10s %-34s %-24s %-6s %s' "$tool" "$*" "?" FAIL "no result")")
  done
  bad=$(printf '%s\n' "${san_rows[@]}" | grep -c " FAIL ")
  [ "$bad" -eq 0 ] && st=PASS || st=FAIL
  row "compute-sanitizer (4 tools, $san_jobs jobs)" "$st" "${#san_rows[@]} runs, $bad failed, $((SECONDS - t0)) s; table below"
fi

if [ $bench = 1 ]; then
  t0=$SECONDS
  OUT='' GPUH_BUILD_DIR=$build bench/run.sh >"$logs/bench.log" 2>&1 && st=PASS || st=FAIL
  cp bench/results/bench.csv bench/results/*.png "$logs"/ 2>/dev/null
  row "bench (bench/run.sh)" "$st" "$((SECONDS - t0)) s, tables in bench.log"
  sed -n '/^==== tensor-core targets/,/^$/p' bench/results/bench.txt
  sed -n '/^==== targets/,$p' bench/results/bench.txt
  sed -n '/^==== targets against torch/,$p' bench/results/torch_cupy.txt
  # gpuh_gemm at the calls users make (bench/gemm_calls.cu: beta != 0, 16-bit C, decode; a fresh seed each run)
  t0=$SECONDS
  "$build/gpuh_gemm_calls" bench/results/gemm_calls.csv >bench/results/gemm_calls.txt 2>&1 && st=PASS || st=FAIL
  cp bench/results/gemm_calls.txt bench/results/gemm_calls.csv "$logs"/ 2>/dev/null
  row "bench/gemm_calls.cu (GEMM as users call it)" "$st" "$((SECONDS - t0)) s, rows in gemm_calls.txt"
  sed -n '/^==== gemm-calls targets/,$p' bench/results/gemm_calls.txt
  # Launch overhead (bench/launch_overhead.cu): ranges compiled in with no tool, with tests/nvtx_inject.c's
  # recorder listening, and compiled out.
  t0=$SECONDS
  inject=$(find "$build" -name 'libnvtx_inject.so' | head -1)
  { "$build/gpuh_launch_overhead" && echo &&
    { [ -z "$inject" ] || { NVTX_INJECTION64_PATH=$inject "$build/gpuh_launch_overhead" && echo; }; } &&
    "$build/gpuh_launch_overhead_nonvtx"; } >bench/results/launch_overhead.txt 2>&1 && st=PASS || st=FAIL
  cp bench/results/launch_overhead.txt "$logs"/ 2>/dev/null
  row "bench/launch_overhead.cu (NVTX on, tool, off)" "$st" "$((SECONDS - t0)) s, blocks in launch_overhead.txt"
  grep -E '^gpuh launch overhead|GPUH_LAUNCH - raw' bench/results/launch_overhead.txt
  # Example 13 against PyTorch: the same losses per step, ms per training step and the ratio.
  python3 bench/nn_torch.py --exe "$build/13_dense_network" >"$logs/nn_torch.log" 2>&1 && st=PASS || st=FAIL
  row "bench/nn_torch.py (example 13 vs torch)" "$st" "losses and times in nn_torch.log"
  sed -n '/^==== losses per step/,/^worst/p;/^==== targets against torch: training/,$p' "$logs/nn_torch.log"
fi

echo
echo "==== gpuh GPU check: $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
printf '%-42s %-6s %s\n' "step" "result" "detail"
printf '%s\n' "${rows[@]}"
if [ ${#san_rows[@]} -gt 0 ]; then
  echo
  echo "==== compute-sanitizer table ($(compute-sanitizer --version 2>/dev/null | grep -oE "[0-9]{4}\.[0-9.]+" | head -1); GPUH_TEST_QUICK=1; errors: 0 expected, planted bugs must be caught)"
  printf '%-10s %-34s %-24s %-6s %s\n' tool program errors result detail
  printf '%s\n' "${san_rows[@]}"
fi
{ printf '%s\n' "${rows[@]}"; [ ${#san_rows[@]} -gt 0 ] && printf '%s\n' "${san_rows[@]}"; } | grep -q " FAIL " && exit 1
exit 0
