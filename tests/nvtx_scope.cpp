// nvtx_scope.cpp - GPUH_NVTX_RANGE and GPUH_NVTX_RANGEF in C++, for nvtx_ranges.c:
// a scope's range closes on every way out of it.
#include "gpuh.h"

extern "C" int nvtx_scope_case(int early);

int nvtx_scope_case(int early)
{
    GPUH_NVTX_RANGEF("scope %d", early);
    if (early)
        return 1;
    {
        GPUH_NVTX_RANGE("inner");
    }
    return 0;
}
