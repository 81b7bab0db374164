#!/usr/bin/env bash
# Compile time is a speed like any other: how long nvcc takes over one file
# that includes gpuh and calls one thing, against a file that calls CUB's
# DeviceReduce::Sum and one that calls Thrust, in the same run.
#
#   bench/compile_time.sh [-a ARCH] [-j JOBS] [-r REPS] [-o FILE]
#     -a  the one architecture each file is compiled for (default sm_90a)
#     -j  files compiled at once (default 1: alone, as a user's build of one
#         file; more only on a machine with that many idle cores)
#     -r  compiles of each file; the least time is kept (default 1)
#     -o  also write the table to FILE (e.g. bench/results/compile_time.txt)
#
# Each row is one translation unit, nvcc -O3 -arch=ARCH -c, wall-clock
# seconds, and its ratio to the CUB file. The rows:
#   gpuh.h alone        gpuh.h and a kernel of the file's own through GPUH_LAUNCH
#   the header only     + gpuh_kernels.cuh, nothing called (parsing, no kernel)
#   vector add          gpuh_vector_add<float>
#   reductions          gpuh_sum, _min, _max, _dot, _norm2 of float
#   gemm<float>         gpuh_gemm<float> with ops (every cover of the CUDA-core kernel)
#   gemm<double>        gpuh_gemm<double> with ops (FP64 tensor cores, CUDA cores elsewhere)
#   bf16                one tensor-core entry point: bf16 inputs, float C
#   tf32                gpuh_gemm_tf32
#   all (one file)      every entry point for every type: the compiled mode's
#                       one GPUH_KERNELS_IMPLEMENTATION file
#   all, declared       a file calling every entry point with GPUH_KERNELS_LIBRARY:
#                       what each file of the compiled mode pays
#   CUB, Thrust         the peers: cub::DeviceReduce::Sum; thrust::transform + reduce
# No timed assertion anywhere: this prints figures.
set -euo pipefail
arch=sm_90a jobs=1 reps=1 out=""
while getopts "a:j:r:o:" opt; do
  case $opt in
    a) arch=$OPTARG ;;
    j) jobs=$OPTARG ;;
    r) reps=$OPTARG ;;
    o) out=$OPTARG ;;
    *) sed -n '5,11p' "$0" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-nvcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

head='#include "gpuh.h"
#include "gpuh_kernels.cuh"'
write() { printf '%s\n' "$2" >"$work/$1.cu"; }
write alone '#include "gpuh.h"
__global__ void scale(float *x, float s, size_t n) { size_t i = gpuh_global_index(); if (i < n) x[i] *= s; }
int main(void) { float *x = 0; return (int)GPUH_LAUNCH(scale, 1, 256, 0, 0, x, 2.0f, (size_t)0); }'
write header_only "$head
int main(void) { return 0; }"
write vector_add "$head
int main(void) { float *a = 0; return (int)gpuh_vector_add<float>(a, a, a, 0, 0); }"
write reductions "$head
int main(void)
{
    float *x = 0;
    return (int)gpuh_sum<float>(x, 0, x, 0, 0) + (int)gpuh_min<float>(x, 1, x, 0, 0) +
           (int)gpuh_max<float>(x, 1, x, 0, 0) + (int)gpuh_dot<float>(x, x, 0, x, 0, 0) +
           (int)gpuh_norm2<float>(x, 0, x, 0, 0);
}"
write gemm_f32 "$head
int main(void) { float *a = 0; return (int)gpuh_gemm<float>(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0f, a, 1, a, 1, 0.0f, a, 1, 0); }"
write gemm_f64 "$head
int main(void) { double *a = 0; return (int)gpuh_gemm<double>(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0, a, 1, a, 1, 0.0, a, 1, 0); }"
write bf16 "$head
int main(void)
{
    __nv_bfloat16 *a = 0;
    float *c = 0;
    return (int)gpuh_gemm(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0f, a, 1, a, 1, 0.0f, c, 1, 0);
}"
write tf32 "$head
int main(void) { float *a = 0; return (int)gpuh_gemm_tf32(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0f, a, 1, a, 1, 0.0f, a, 1, 0); }"
write all_one_file "#define GPUH_KERNELS_IMPLEMENTATION
$head
int main(void) { return 0; }"
calls='int main(void)
{
    float *f = 0;
    double *d = 0;
    int *i = 0;
    __nv_bfloat16 *b = 0;
    __half *h = 0;
    int e = (int)gpuh_vector_add(f, f, f, 0, 0) + (int)gpuh_vector_add(d, d, d, 0, 0) + (int)gpuh_vector_add(i, i, i, 0, 0);
    e += (int)gpuh_sum(f, 0, f, 0, 0) + (int)gpuh_max(d, 1, d, 0, 0) + (int)gpuh_min(i, 1, i, 0, 0);
    e += (int)gpuh_dot(f, f, 0, f, 0, 0) + (int)gpuh_norm2(d, 0, d, 0, 0);
    e += (int)gpuh_gemm(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0f, f, 1, f, 1, 0.0f, f, 1, 0);
    e += (int)gpuh_gemm(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0, d, 1, d, 1, 0.0, d, 1, 0);
    e += (int)gpuh_gemm(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0f, b, 1, b, 1, 0.0f, f, 1, 0);
    e += (int)gpuh_gemm(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0f, h, 1, h, 1, 0.0f, h, 1, 0);
    e += (int)gpuh_gemm_tf32(GPUH_OP_N, GPUH_OP_T, 1, 1, 1, 1.0f, f, 1, f, 1, 0.0f, f, 1, 0);
    return e;
}'
write all_declared "#define GPUH_KERNELS_LIBRARY
$head
#include \"gpuh/half.cuh\"
$calls"
write cub '#include <cub/cub.cuh>
int main(void)
{
    float *x = 0, *y = 0;
    size_t bytes = 0;
    return (int)cub::DeviceReduce::Sum(NULL, bytes, x, y, 1000);
}'
write thrust '#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
int main(void)
{
    thrust::device_vector<float> a(1000, 1.0f), b(1000, 2.0f), c(1000);
    thrust::transform(a.begin(), a.end(), b.begin(), c.begin(), thrust::plus<float>());
    return (int)thrust::reduce(c.begin(), c.end());
}'

rows="alone header_only vector_add reductions gemm_f32 gemm_f64 bf16 tf32 all_one_file all_declared cub thrust"
compile() { # compile NAME: the least of $reps wall-clock times, in seconds, to $work/NAME.time
  local name=$1 best="" t0 t1 t r
  for ((r = 0; r < reps; ++r)); do
    t0=$(date +%s.%N)
    if ! "$nvcc" -O3 -std=c++17 -arch="$arch" -I "$root" -c "$work/$name.cu" -o "$work/$name.o" 2>"$work/$name.err"; then
      echo "FAILED" >"$work/$name.time"
      return 0
    fi
    t1=$(date +%s.%N)
    best=$(awk -v a="$t0" -v b="$t1" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; print best }')
  done
  printf '%.1f\n' "$best" >"$work/$name.time"
}
export -f compile
export work nvcc arch root reps
start=$(date +%s)
printf '%s\n' $rows | xargs -P "$jobs" -I{} bash -c 'compile {}'
cub=$(cat "$work/cub.time")

label() {
  case $1 in
    alone) echo "gpuh.h and a kernel of its own" ;;
    header_only) echo "+ gpuh_kernels.cuh, nothing called" ;;
    vector_add) echo "gpuh_vector_add<float>" ;;
    reductions) echo "sum, min, max, dot, norm2 <float>" ;;
    gemm_f32) echo "gpuh_gemm<float>" ;;
    gemm_f64) echo "gpuh_gemm<double>" ;;
    bf16) echo "gpuh_gemm bf16 -> float C" ;;
    tf32) echo "gpuh_gemm_tf32" ;;
    all_one_file) echo "all entry points (compiled mode's one file)" ;;
    all_declared) echo "all entry points, declared (GPUH_KERNELS_LIBRARY)" ;;
    cub) echo "peer: cub::DeviceReduce::Sum" ;;
    thrust) echo "peer: thrust::transform + reduce" ;;
  esac
}
{
  echo "==== compile time: nvcc $("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') -O3 -arch=$arch, one file each, $jobs at once, least of $reps; $(nproc) cores; $(date -u +%Y-%m-%d)"
  printf '%-52s %9s %9s\n' "translation unit" "seconds" "/ CUB"
  for r in $rows; do
    t=$(cat "$work/$r.time")
    if [ "$t" = FAILED ] || [ "$cub" = FAILED ]; then
      printf '%-52s %9s %9s\n' "$(label "$r")" "$t" "-"
    else
      printf '%-52s %9s %9.2f\n' "$(label "$r")" "$t" "$(awk -v t="$t" -v c="$cub" 'BEGIN { print t / c }')"
    fi
  done
  echo "(whole run: $(($(date +%s) - start)) s)"
} | tee "${out:-/dev/null}"
for r in $rows; do
  if [ "$(cat "$work/$r.time")" = FAILED ]; then
    echo "compile of $r failed:" >&2
    head -20 "$work/$r.err" >&2
    exit 1
  fi
done
