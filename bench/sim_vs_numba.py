"""The Numba CUDA simulator's side of bench/sim_vs_numba.sh: the tutorials'
vector add (2^20 float32, blocks of 256) and a 256 x 256 float32 matmul tiled
in 16 x 16 shared-memory tiles with cuda.syncthreads(), a 256-bin histogram of
2^20 bytes in shared memory with atomics, each checked against
NumPy, each timed once (the simulator is slow enough that one run is seconds).
Run with NUMBA_ENABLE_CUDASIM=1; names given on the command line run those
kernels only (vector_add, matmul_tiled, histogram_shared). Prints one line
per kernel: name seconds."""
import os
import sys
import time

import numpy as np
from numba import cuda, float32, uint32

assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1", "set NUMBA_ENABLE_CUDASIM=1"
TILE = 16


@cuda.jit
def vector_add(a, b, c):
    i = cuda.grid(1)
    if i < c.size:
        c[i] = a[i] + b[i]


@cuda.jit
def matmul_tiled(A, B, C):
    s_a = cuda.shared.array((TILE, TILE), float32)
    s_b = cuda.shared.array((TILE, TILE), float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    row, col = cuda.blockIdx.y * TILE + ty, cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for t in range(A.shape[1] // TILE):
        s_a[ty, tx] = A[row, t * TILE + tx]
        s_b[ty, tx] = B[t * TILE + ty, col]
        cuda.syncthreads()  # the tiles are loaded before anyone reads them
        for k in range(TILE):
            acc += s_a[ty, k] * s_b[k, tx]
        cuda.syncthreads()  # everyone is done with the tiles before they are overwritten
    C[row, col] = acc


@cuda.jit
def histogram_shared(data, bins):
    s_bins = cuda.shared.array(256, uint32)
    t = cuda.threadIdx.x
    for b in range(t, 256, cuda.blockDim.x):
        s_bins[b] = 0
    cuda.syncthreads()  # the bins are zero before anyone counts
    for i in range(cuda.grid(1), data.size, cuda.gridsize(1)):
        cuda.atomic.add(s_bins, data[i], 1)
    cuda.syncthreads()  # every count is in before the block's bins are added up
    for b in range(t, 256, cuda.blockDim.x):
        cuda.atomic.add(bins, b, s_bins[b])


def timed(fn):
    t0 = time.perf_counter()
    fn()
    cuda.synchronize()
    return time.perf_counter() - t0


def main(only):
    rng = np.random.default_rng(1)
    n = 1 << 20
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    c = np.full(n, np.nan, dtype=np.float32)
    d_a, d_b, d_c = cuda.to_device(a), cuda.to_device(b), cuda.to_device(c)
    if not only or "vector_add" in only:
        s = timed(lambda: vector_add[(n + 255) // 256, 256](d_a, d_b, d_c))
        assert np.array_equal(d_c.copy_to_host(), a + b)
        print("vector_add %.6f" % s, flush=True)

    m = 256
    A, B = rng.standard_normal((m, m), dtype=np.float32), rng.standard_normal((m, m), dtype=np.float32)
    d_A, d_B = cuda.to_device(A), cuda.to_device(B)
    d_C = cuda.to_device(np.full((m, m), np.nan, dtype=np.float32))
    if not only or "matmul_tiled" in only:
        s = timed(lambda: matmul_tiled[(m // TILE, m // TILE), (TILE, TILE)](d_A, d_B, d_C))
        ref = A.astype(np.float64) @ B.astype(np.float64)
        err = np.linalg.norm(d_C.copy_to_host() - ref) / np.linalg.norm(ref)
        assert err < 1e-5, err
        print("matmul_tiled %.6f" % s, flush=True)

    data = rng.integers(0, 256, n, dtype=np.uint8) * (rng.integers(0, 4, n) != 0)  # a quarter 0: contended
    data = data.astype(np.uint8)
    d_data, d_bins = cuda.to_device(data), cuda.to_device(np.zeros(256, dtype=np.uint32))
    if not only or "histogram_shared" in only:
        s = timed(lambda: histogram_shared[256, 256](d_data, d_bins))
        assert np.array_equal(d_bins.copy_to_host(), np.bincount(data, minlength=256).astype(np.uint32))
        print("histogram_shared %.6f" % s, flush=True)


main(sys.argv[1:])
