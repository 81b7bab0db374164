#!/usr/bin/env bash
# bench/run.sh - the whole benchmark in one command, from any directory:
#   bench/run.sh
# 1. builds bench/bench.cu: the CMake target gpuh_bench in an existing build
#    directory ($GPUH_BUILD_DIR, else build-gpu, else build: the first that has
#    a CMakeCache.txt), or, with none (or without that target), nvcc directly
#    into build-bench/;
# 2. runs it (gpuh, CUB, cuBLAS, the copy ceiling): bench/results/bench.csv;
# 3. runs bench/torch_cupy.py, which appends the PyTorch and CuPy rows;
# 4. runs bench/plot.py: bench/results/bandwidth.png and matmul.png;
# 5. copies the CSV, the PNGs and the logs to $OUT if that is set;
# 6. prints the tables last: torch/cupy, then bench.cu's, ending with its
#    targets block.
# Exit code: 0 if everything ran and every check passed, else 1.
set -u
cd "$(dirname "$0")/.." || exit 1
res=bench/results
csv=$res/bench.csv
mkdir -p "$res"
rm -f "$csv" "$res"/*.png
status=0
stages=()
stage() { stages+=("$(printf '%-12s %-4s %4d s  %s' "$1" "$2" "$3" "$4")"); }
# verdict RC: "ok" for 0, else "FAIL" (and the script will exit 1)
verdict() { if [ "$1" -eq 0 ]; then echo ok; else echo FAIL; fi; }

# ---- 1. build ----
t0=$SECONDS
bin=
for d in ${GPUH_BUILD_DIR:-} build-gpu build; do
  [ -f "$d/CMakeCache.txt" ] || continue
  if cmake --build "$d" --target gpuh_bench -j "$(nproc)" >"$res/build.log" 2>&1; then
    bin=$(find "$d" -name gpuh_bench -type f -perm -u+x | head -1)
    how="cmake --build $d --target gpuh_bench"
  else
    echo "run.sh: cmake target gpuh_bench did not build in $d (see $res/build.log); using nvcc" >&2
  fi
  break
done
if [ -z "$bin" ]; then
  nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
  mkdir -p build-bench
  bin=build-bench/gpuh_bench
  # The brief's command line, plus -O3 for the host code (launch overhead
  # counts at the small sizes; CMake's Release build would use -O3 too).
  cmd=("$nvcc" -std=c++17 -O3 -arch=sm_90a -DGPUH_USE_CURAND -I. bench/bench.cu -lcublas -lcurand -o "$bin")
  how="${cmd[*]}"
  if ! "${cmd[@]}" >>"$res/build.log" 2>&1; then
    stage build FAIL $((SECONDS - t0)) "$how"
    tail -30 "$res/build.log"
    printf '%s\n' "${stages[@]}"
    exit 1
  fi
fi
stage build ok $((SECONDS - t0)) "$how"

# ---- 2. bench.cu ----
t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw \
  --format=csv >"$res/gpu.txt" 2>&1 || true
"$bin" "$csv" >"$res/bench.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
stage bench "$(verdict $rc)" $((SECONDS - t0)) "exit $rc, $res/bench.txt"

# ---- 3. torch / cupy ----
t0=$SECONDS
python3 bench/torch_cupy.py "$csv" >"$res/torch_cupy.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
stage torch_cupy "$(verdict $rc)" $((SECONDS - t0)) "exit $rc, $res/torch_cupy.txt"

# ---- 4. plots ----
t0=$SECONDS
python3 bench/plot.py "$csv" "$res" >"$res/plot.txt" 2>&1
rc=$?
[ $rc -eq 0 ] || status=1
stage plot "$(verdict $rc)" $((SECONDS - t0)) "exit $rc, $(find "$res" -maxdepth 1 -name '*.png' | tr '\n' ' ')"

# ---- 5. copies ----
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp "$res"/*.csv "$res"/*.txt "$res"/*.log "$res"/*.png "$OUT"/ 2>/dev/null
fi

# ---- 6. the tables, last ----
echo "==== stages"
printf '%s\n' "${stages[@]}"
[ -s "$res/plot.txt" ] && grep -v "^plot: wrote" "$res/plot.txt" | tail -5
cat "$res/gpu.txt"
echo
cat "$res/torch_cupy.txt"
echo
cat "$res/bench.txt"
exit $status
