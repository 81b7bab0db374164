/* Exit 0 when the CUDA runtime sees a device: CMakeLists.txt runs it at
   configure time (gpuh_device_seen: GPUH_EXAMPLES_ON_GPU's and
   GPUH_PROGRAM_ARCHITECTURES' defaults). */
#include <cuda_runtime_api.h>
int main(void)
{
    int n = 0;
    return cudaGetDeviceCount(&n) == cudaSuccess && n > 0 ? 0 : 1;
}
