#!/usr/bin/env bash
# Several GPUs in one call: builds the multi-GPU programs for sm_90 (with NCCL)
# and runs the tests, example 14 and, with --bench, bench/multi_gpu.cu, with
# NVLink multicast off (NCCL_NVLS_ENABLE=0). Run from the repository root on a
# machine with 2 or more GPUs (1 GPU runs everything but gpu.multi.procs,
# which skips):
#   scripts/multi_gpu.sh [--bench]        (logs: $OUT if set, else build-multi/logs)
set -u
bench=0
[ "${1:-}" = "--bench" ] && bench=1
export NCCL_NVLS_ENABLE=0
cd "$(dirname "$0")/.."
build=build-multi
logs=${OUT:-$build/logs}
mkdir -p "$logs"
rows=()
row() { rows+=("$(printf '%-34s %-6s %s' "$1" "$2" "$3")"); }

nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader || true
nvidia-smi topo -m || true
targets="test_multi test_nccl_procs test_nccl_c 14_data_parallel"
[ $bench = 1 ] && targets="$targets gpuh_multi_gpu"
t0=$SECONDS
if cmake -B $build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUH_BUILD_SIM=OFF >"$logs/build.log" 2>&1 &&
   cmake --build $build -j "$(nproc)" --target $targets >>"$logs/build.log" 2>&1; then
  row "build (sm_90, Release)" PASS "$((SECONDS - t0)) s"
else
  row "build (sm_90, Release)" FAIL "see $logs/build.log"
  grep -i "nccl" "$logs/build.log" | head -5
  tail -40 "$logs/build.log"
  printf '%s\n' "${rows[@]}"
  exit 1
fi

status=0
run() { # name, log, command...
  local name=$1 log=$2 rc
  shift 2
  t0=$SECONDS
  "$@" >"$logs/$log" 2>&1
  rc=$?
  case $rc in
    0) row "$name" PASS "$((SECONDS - t0)) s" ;;
    77) row "$name" SKIP "$(tail -1 "$logs/$log")" ;;
    *) row "$name" FAIL "rc $rc, see $logs/$log"; status=1; tail -30 "$logs/$log" ;;
  esac
}
run "compile.nccl_c" nccl_c.log $build/test_nccl_c
run "gpu.multi (all devices)" test_multi.log $build/test_multi
run "gpu.multi (one device)" test_multi_one.log env CUDA_VISIBLE_DEVICES=0 $build/test_multi
run "gpu.multi.procs (2 processes)" test_nccl_procs.log $build/test_nccl_procs
run "example 14_data_parallel" example_14.log $build/14_data_parallel
grep -E "ms per step|one device|all +[0-9]+ devices|w_all" "$logs/example_14.log"
if [ $bench = 1 ]; then
  run "bench multi_gpu" bench_multi_gpu.log $build/gpuh_multi_gpu
  cat "$logs/bench_multi_gpu.log"
fi
printf '\n%-34s %-6s %s\n' "step" "result" "detail"
printf '%s\n' "${rows[@]}"
exit $status
