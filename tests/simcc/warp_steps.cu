// Warp steps: where lanes share plain shared memory with no barrier, gpuh_sim_warp_step() before the
// statement that reads what others wrote (or writes what others read): after a #pragma (beside the
// statement before it, so that the lines stay), after else, in a case, in a do-while's condition, at
// the top of a loop that reads and writes; none after a barrier, none for an address or a member call.
__global__ void steps(const float *in, float *out, int n)
{
    __shared__ float s_a[64];
    __shared__ int s_flag;
    float *row = &s_a[threadIdx.x / 8 * 8];
    s_a[threadIdx.x] = in[threadIdx.x];
#pragma unroll
    for (int i = 0; i < 8; ++i)
        out[i] = row[i];
    if (n < 0)
        out[0] = 0.0f;
    else
        s_a[threadIdx.x] = 2.0f;
    switch (n) {
    case 1:
        out[1] = s_a[1];
        break;
    default:
        out[1] = s_a[2];
    }
    s_flag = 1;
    do {
        n--;
    } while (s_flag == 0 && n > 0);
    for (int d = 32; d > 0; d >>= 1)
        if (threadIdx.x < d)
            s_a[threadIdx.x] += s_a[threadIdx.x + d];
    __syncthreads();
    out[2] = s_a[0];
    atomicAdd(&s_flag, 1);
}
