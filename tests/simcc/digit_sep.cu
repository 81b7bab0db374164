// Digit separators are part of the number, not character literals.
__global__ void fill(int *p, int n, int v) {}

void run(int *p)
{
    const long big = 1'000'000, hex = 0xFF'FF, bin = 0b1010'1010; const double d = 1'234.5e+1'0;
    fill<<<1'024 / 256, 2'56>>>(p, 1'024, '\'');
    fill<<<1, 32>>>(p, int(big + hex + bin + d), 0);
}
