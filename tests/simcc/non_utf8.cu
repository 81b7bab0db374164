/* Copyright “gpuh” authors, café licence © - not UTF-8 */
// and a stray byte in a line comment: ÿ
__global__ void k(int *p) {}
void run(int *p)
{
    k<<<1, 32>>>(p); /* – */
}
