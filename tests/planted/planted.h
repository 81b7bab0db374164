/* planted.h - what two planted programs share: one block of THREADS
   threads runs a kernel that reads g_in[t] = t and writes g_out, and the
   program prints what the synchronisation after it returned (a planted
   bug is for compute-sanitizer to report, not for the program to see).
   Exit 77 without a GPU. */
#ifndef GPUH_TESTS_PLANTED_H
#define GPUH_TESTS_PLANTED_H
#include <stdio.h>
#include "gpuh.h"

/* Runs kernel(g_in, g_out) on one block of `threads` threads (at most 1024);
   returns main's exit code. */
static int planted_run(void (*kernel)(const int *, int *), const char *name, int threads)
{
    const char *why;
    int h_in[1024], *d_in, *d_out, i;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    for (i = 0; i < threads; ++i)
        h_in[i] = i;
    GPUH_CHECK(gpuh_to_device(&d_in, h_in, (size_t)threads));
    GPUH_CHECK(gpuh_device_array(&d_out, (size_t)threads));
    GPUH_CHECK(GPUH_LAUNCH(kernel, 1, threads, 0, 0, d_in, d_out));
    printf("%s: %s\n", name, cudaGetErrorString(cudaDeviceSynchronize()));
    gpuh_free(d_in);
    gpuh_free(d_out);
    return 0;
}
#endif
