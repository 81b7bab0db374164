#!/usr/bin/env python3
"""bench/tc_torch.py - torch.matmul in bfloat16 at the tensor-core rows' shapes.

The reference beside bench.cu's tensor-core rows (gpuh_gemm on bf16 against
cublasGemmEx): the same shapes, row-major, packed, C in bf16 (PyTorch's
output type; fp32 accumulation inside), random normal inputs, one warm-up
call per shape, then the median of 20 calls timed with CUDA events.

Usage: python3 bench/tc_torch.py     (prints one row per shape)
"""
import statistics
import sys

try:
    import torch
except ImportError:
    print("tc_torch: no PyTorch here, nothing measured")
    sys.exit(0)

SHAPES = [(4096, 4096, 4096), (8192, 8192, 8192), (7749, 2419, 6044), (1028, 1364, 6018),
          (7526, 6665, 1640), (8188, 5964, 4322)]


def main():
    if not torch.cuda.is_available():
        print("tc_torch: no CUDA device, nothing measured")
        return 0
    print("torch %s, %s" % (torch.__version__, torch.cuda.get_device_name(0)))
    print("%-22s %10s %12s" % ("shape M x N x K", "time", "TFLOP/s"))
    gen = torch.Generator(device="cuda").manual_seed(1)
    for m, n, k in SHAPES:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=gen)
        b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16, generator=gen)
        c = torch.matmul(a, b)
        times = []
        for _ in range(20):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            torch.matmul(a, b, out=c)
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
        ms = statistics.median(times)
        print("%-22s %8.3f ms %12.2f" % ("%dx%dx%d" % (m, n, k), ms, 2.0 * m * n * k / (ms * 1e9)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
