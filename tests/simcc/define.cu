// Launches in multi-line #defines: the macro stays one logical line.
__global__ void fill(int *p, int n, int v) {}

#define FILL(p, n, v) \
    fill<<<(n + 255) / 256, 256>>>( \
        p, n, v)

#define FILL_ON(p, n, s)                  \
    do {                                  \
        fill<<<(n + 255) / 256, 256, 0,   \
               s>>>(p, n, 7);             \
    } while (0)

void run(int *p, int n, cudaStream_t s)
{
    FILL(p, n, 1);
    FILL_ON(p, n, s);
}
