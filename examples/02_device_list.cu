/* 02_device_list.cu - which GPUs this process sees, and how much memory it holds.

   Teaches: gpuh_print_devices lists every visible device (Numba's
   cuda.detect()); gpuh_memory_info reports the device's free and total memory
   (cudaMemGetInfo, which counts every process on the GPU) next to the bytes
   this process holds through gpuh now and at peak (PyTorch's
   torch.cuda.memory_allocated and max_memory_allocated).
   Which devices a process sees is decided before it starts, by the
   environment: CUDA_VISIBLE_DEVICES=1 ./02_device_list shows only physical
   GPU 1, renumbered as device 0; CUDA_VISIBLE_DEVICES= (empty) hides them all,
   and this example then exits 77 (skipped).
   Measures: memory counters around one 256 MiB device array.
   Checks: allocated_bytes rises by exactly the bytes allocated and falls back
   after gpuh_free; the peak keeps the high-water mark until
   gpuh_reset_peak_memory; the live-allocation count follows; nothing leaks.
   free_bytes is printed but not checked: other processes may allocate or free
   at the same moment, and the driver rounds allocations up to its page size.
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): a 1 MiB array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "quick_mode.h"

static void print_stats(const char *when, const gpuh_memory_stats *s)
{
    printf("%-22s allocated %10zu B  peak %10zu B  live %zu  free %8.1f MiB of %8.1f MiB\n", when,
           s->allocated_bytes, s->peak_allocated_bytes, s->live_allocations, s->free_bytes / 1048576.0,
           s->total_bytes / 1048576.0);
}

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("02_device_list"));
        return 77;
    }
    const int quick = quick_mode(); /* quick mode: see the top comment */
    int ok = 1;
    GPUH_CHECK(gpuh_print_devices(stdout));
#ifdef GPUH_SIM
    /* Built with -DGPUH_SIM: the device above is gpuh_sim.h's stand-in. */
    printf("This is gpuh's CPU simulator, not a GPU: its device memory is host memory, and the\n"
           "compute capability and limits above are those of the GPU it imitates.\n");
#endif
    printf("\n");

    /* 256 MiB (1 MiB in quick mode) of unsigned char: the element count is the byte count. */
    const size_t bytes = (size_t)(quick ? 1 : 256) << 20;
    gpuh_memory_stats before, during, after, reset;
    unsigned char *d_block;

    GPUH_CHECK(gpuh_memory_info(&before));
    GPUH_CHECK(gpuh_device_array(&d_block, bytes));
    /* Physical pages are committed by cudaMalloc itself; writing them once
       also proves the memory is usable. */
    GPUH_CHECK(cudaMemset(d_block, 0xA5, bytes));
    GPUH_CHECK(cudaDeviceSynchronize());
    GPUH_CHECK(gpuh_memory_info(&during));
    GPUH_CHECK(gpuh_free(d_block));
    GPUH_CHECK(gpuh_memory_info(&after));
    gpuh_reset_peak_memory();
    GPUH_CHECK(gpuh_memory_info(&reset));

    print_stats("before", &before);
    print_stats(quick ? "with 1 MiB array" : "with 256 MiB array", &during);
    print_stats("after gpuh_free", &after);
    print_stats("after peak reset", &reset);
    /* Signed: free memory may also move because of other processes. */
    printf("device free memory moved by %+.1f MiB while the array was held\n",
           ((double)during.free_bytes - (double)before.free_bytes) / 1048576.0);

    const size_t high_water = before.allocated_bytes + bytes;
    const size_t expected_peak = before.peak_allocated_bytes > high_water ? before.peak_allocated_bytes : high_water;
    int c1 = during.allocated_bytes == before.allocated_bytes + bytes;
    int c2 = during.live_allocations == before.live_allocations + 1;
    int c3 = after.allocated_bytes == before.allocated_bytes && after.live_allocations == before.live_allocations;
    int c4 = during.peak_allocated_bytes == expected_peak && after.peak_allocated_bytes == expected_peak;
    int c5 = reset.peak_allocated_bytes == reset.allocated_bytes;
    printf("allocated rose by exactly %zu B: %s\n", bytes, c1 ? "yes" : "NO");
    printf("one more live allocation while held: %s\n", c2 ? "yes" : "NO");
    printf("back to the start after gpuh_free: %s\n", c3 ? "yes" : "NO");
    printf("peak kept the high-water mark (%zu B) after the free: %s\n", expected_peak, c4 ? "yes" : "NO");
    printf("peak == allocated after gpuh_reset_peak_memory: %s\n", c5 ? "yes" : "NO");
    ok = c1 && c2 && c3 && c4 && c5;

    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
