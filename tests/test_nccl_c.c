/* test_nccl_c.c - gpuh.h with GPUH_USE_NCCL (nccl.h included) compiles as C99
   with -Wall -Wextra -Wpedantic -Werror and links with cudart and NCCL; run,
   it checks what needs no device: the build says it has NCCL, and a
   collective on an empty set or communicator is refused with a detail. */
#include "gpuh.h"

int main(void)
{
    gpuh_devices set;
    gpuh_comm comm;
    const char *reason = "?";
    void *bufs[GPUH_MAX_DEVICES] = {NULL};
    int ok = gpuh_nccl_available(&reason) == 1 && reason[0] == '\0';
    memset(&set, 0, sizeof set);
    memset(&comm, 0, sizeof comm);
    ok = ok && gpuh_all_reduce(&set, bufs, bufs, 1, GPUH_FLOAT32, GPUH_SUM) == cudaErrorInvalidValue &&
         strstr(gpuh_error_detail(), "open it first") != NULL;
    ok = ok && gpuh_comm_all_reduce(&comm, bufs[0], bufs[0], 1, GPUH_FLOAT32, GPUH_SUM, 0) == cudaErrorInvalidValue &&
         strstr(gpuh_error_detail(), "not initialised") != NULL;
    printf("test_nccl_c: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
