/* Warp-synchronous shared memory on the simulator (through tools/gpuh-simcc):
   lanes of one warp that share data through plain shared memory with no
   __syncwarp and no volatile, as code written for GPUs before Volta does (the
   8x8 transposes of NVIDIA's DCT sample, a reduction's last steps). A
   converged warp runs each instruction for all its lanes together, so a lane
   reads what the others wrote just before; the simulator runs one lane to
   its next barrier before the next, so gpuh-simcc puts gpuh_sim_warp_step()
   where a read follows a write with no barrier between, and in loops that
   read and write with none inside. The kernels also reach those reads through
   pointers into the shared array, after else, in a switch's case and in a
   do-while's condition.

   Under GPUH_SIM_SCHEDULE=reverse the steps do nothing, so the same kernels
   show the missing __syncwarp: the program then checks that they do.
   Simulator only: CUDA does not promise these results without __syncwarp
   (a compiler may keep shared values in registers), so no GPU test. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "gpuh_test.h"

static std::mt19937 rng;

/* Each warp holds an 8 x 32 tile: lane l writes column l (8 values), then
   reads row l % 8 of its group of 8 columns, which 8 lanes wrote. Block: 64
   threads (2 warps); in: 2 x 8 x 32 values per block, out likewise. */
__global__ void transpose8_kernel(const float *in, float *out)
{
    __shared__ float s_tile[2][8][33];
    const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
    const float *g_in = in + (blockIdx.x * 2 + w) * 256;
    float *col = &s_tile[w][0][lane];
    float *row = &s_tile[w][lane % 8][lane / 8 * 8];
    for (int i = 0; i < 8; ++i)
        col[i * 33] = g_in[i * 32 + lane];
    float v[8];
    for (int i = 0; i < 8; ++i)
        v[i] = row[i];
    for (int i = 0; i < 8; ++i)
        out[(blockIdx.x * 2 + w) * 256 + lane * 8 + i] = v[i];
}

/* One warp sums 64 values through shared memory with no barrier: a loop that
   halves the distance each time (lane t adds s[t + d]). Block: 32 threads. */
__global__ void loop_sum_kernel(const int *in, int *out)
{
    __shared__ int s[64];
    const int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    s[t + 32] = in[blockIdx.x * 64 + t + 32];
    for (int d = 32; d > 0; d >>= 1)
        if (t < d)
            s[t] += s[t + d];
    if (t == 0)
        out[blockIdx.x] = s[0];
}

/* Lane l reads lane 31 - l's value through a pointer into the array, after
   else, in a switch's case and in a do-while's condition. Block: 32 threads;
   out: 4 values per lane. */
__global__ void forms_kernel(const int *in, int *out)
{
    __shared__ int s_x[32];
    const int lane = threadIdx.x;
    int *mine = s_x + lane;
    *mine = in[blockIdx.x * 32 + lane];
    int a;
    if (lane < 0)
        a = 0;
    else
        a = s_x[31 - lane];
    *mine = a + 1;
    int b = 0;
    switch (lane % 2) {
    case 0:
        b = s_x[31 - lane];
        break;
    default:
        b = s_x[31 - lane];
        break;
    }
    s_x[lane] = b + 1;
    int c = 0, k = 0;
    do {
        ++k;
    } while (s_x[31 - lane] < 0 && k < 4);
    c = s_x[31 - lane];
    out[(blockIdx.x * 32 + lane) * 4 + 0] = a;
    out[(blockIdx.x * 32 + lane) * 4 + 1] = b;
    out[(blockIdx.x * 32 + lane) * 4 + 2] = c;
    out[(blockIdx.x * 32 + lane) * 4 + 3] = k;
}

int main()
{
    GPUH_TEST_REQUIRE_DEVICE();
    rng.seed(static_cast<unsigned>(gpuh_test_seed()));
    const char *sched = getenv("GPUH_SIM_SCHEDULE");
    const bool steps_off = sched != NULL && strcmp(sched, "forward") != 0 && sched[0] != '\0';
    const int blocks = 5;

    std::vector<float> fin(blocks * 512), fout(blocks * 512, -1.0f);
    for (float &x : fin)
        x = static_cast<float>(rng() % 10000) / 16.0f;
    float *d_fin = nullptr, *d_fout = nullptr;
    TEST_CUDA(cudaMalloc(&d_fin, fin.size() * sizeof(float)));
    TEST_CUDA(cudaMalloc(&d_fout, fout.size() * sizeof(float)));
    TEST_CUDA(cudaMemcpy(d_fin, fin.data(), fin.size() * sizeof(float), cudaMemcpyHostToDevice));
    transpose8_kernel<<<blocks, 64>>>(d_fin, d_fout);
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(cudaMemcpy(fout.data(), d_fout, fout.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int bad_t = 0;
    for (int tile = 0; tile < blocks * 2; ++tile)
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < 8; ++i) /* row lane % 8, columns lane / 8 * 8 + i */
                bad_t += fout[tile * 256 + lane * 8 + i] != fin[tile * 256 + (lane % 8) * 32 + lane / 8 * 8 + i];

    std::vector<int> iin(blocks * 64), iout(blocks, -1), fo(blocks * 128, -1);
    for (int &x : iin)
        x = static_cast<int>(rng() % 1000);
    int *d_iin = nullptr, *d_iout = nullptr, *d_fo = nullptr;
    TEST_CUDA(cudaMalloc(&d_iin, iin.size() * sizeof(int)));
    TEST_CUDA(cudaMalloc(&d_iout, iout.size() * sizeof(int)));
    TEST_CUDA(cudaMalloc(&d_fo, fo.size() * sizeof(int)));
    TEST_CUDA(cudaMemcpy(d_iin, iin.data(), iin.size() * sizeof(int), cudaMemcpyHostToDevice));
    loop_sum_kernel<<<blocks, 32>>>(d_iin, d_iout);
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(cudaMemcpy(iout.data(), d_iout, iout.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int bad_s = 0;
    for (int b = 0; b < blocks; ++b) {
        int want = 0;
        for (int i = 0; i < 64; ++i)
            want += iin[b * 64 + i];
        bad_s += iout[b] != want;
    }

    forms_kernel<<<blocks, 32>>>(d_iin, d_fo);
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(cudaMemcpy(fo.data(), d_fo, fo.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int bad_f = 0;
    for (int b = 0; b < blocks; ++b)
        for (int lane = 0; lane < 32; ++lane) {
            const int *o = &fo[(b * 32 + lane) * 4];
            const int a = iin[b * 32 + 31 - lane]; /* the other lane's input */
            const int bb = iin[b * 32 + lane] + 1; /* its a + 1: my own input + 1 */
            const int c = a + 2;                   /* its b + 1 */
            bad_f += o[0] != a || o[1] != bb || o[2] != c || o[3] != 1;
        }

    if (steps_off) {
        printf("GPUH_SIM_SCHEDULE=%s: %d of %d transposed values, %d of %d sums, %d of %d lanes wrong: a missing "
               "__syncwarp %s\n", sched, bad_t, blocks * 512, bad_s, blocks, bad_f, blocks * 32,
               bad_t > 0 && bad_f > 0 ? "exposed" : "hidden");
        TEST_ASSERT(bad_t > 0 && bad_f > 0, "under GPUH_SIM_SCHEDULE=%s the missing __syncwarp should show", sched);
    } else {
        TEST_ASSERT(bad_t == 0, "8x8 transposes through shared memory with no __syncwarp: %d of %d wrong", bad_t,
                    blocks * 512);
        TEST_ASSERT(bad_s == 0, "a warp's loop sum through shared memory with no barrier: %d of %d wrong", bad_s,
                    blocks);
        TEST_ASSERT(bad_f == 0, "reads after else, in a case, in a do-while's condition: %d of %d lanes wrong",
                    bad_f, blocks * 32);
    }
    TEST_CUDA(cudaFree(d_fin));
    TEST_CUDA(cudaFree(d_fout));
    TEST_CUDA(cudaFree(d_iin));
    TEST_CUDA(cudaFree(d_iout));
    TEST_CUDA(cudaFree(d_fo));
    return gpuh_test_summary("test_sim_warpsync");
}
