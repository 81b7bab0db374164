// BOM first
__global__ void k(int *p) { *p = 1; }
int main() { int *p; cudaMalloc(&p, 4); k<<<1, 1>>>(p); return cudaDeviceSynchronize() != cudaSuccess; }
