/* ladder_table.h: what the two GEMM ladders (examples 10 and 11) share:
   checking a rung's C against the reference and printing the table. */
#ifndef GPUH_EXAMPLES_LADDER_TABLE_H
#define GPUH_EXAMPLES_LADDER_TABLE_H
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "gpuh.h"

/* Copies the count-element result d_C back into h_C and returns
   ‖C - ref‖_F / ‖ref‖_F; NaN if any entry is NaN (such as an entry left
   poisoned). */
static double error_vs_reference(const float *d_C, float *h_C, const float *h_ref, size_t count)
{
    double diff = 0.0, norm = 0.0;
    GPUH_CHECK(gpuh_copy_to_host(h_C, d_C, count));
    for (size_t i = 0; i < count; ++i) {
        const double d = (double)h_C[i] - h_ref[i];
        diff += d * d;
        norm += (double)h_ref[i] * h_ref[i];
    }
    return sqrt(diff / norm);
}

/* Prints s right-aligned in `width` terminal columns (s may hold UTF-8). */
static void put_cell(const char *s, int width)
{
    int columns = 0;
    for (const char *c = s; *c != '\0'; ++c)
        columns += (*c & 0xC0) != 0x80; /* count every byte but UTF-8 continuations */
    printf(" %*s", width + (int)strlen(s) - columns, s);
}
#endif
