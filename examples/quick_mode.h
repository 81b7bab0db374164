/* quick_mode.h: the examples' quick mode. GPUH_TEST_QUICK set to anything
   but "" or "0" asks for the small sizes and few repetitions that the tests,
   scripts/gpu_check.sh and the simulator's builds run the examples at. */
#ifndef GPUH_EXAMPLES_QUICK_MODE_H
#define GPUH_EXAMPLES_QUICK_MODE_H
#include <stdlib.h>
#include <string.h>

/* 1 in quick mode, else 0. */
static int quick_mode(void)
{
    const char *v = getenv("GPUH_TEST_QUICK");
    return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}
#endif
