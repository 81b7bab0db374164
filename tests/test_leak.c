/* test_leak.c - gpuh's leak check at exit (gpuh_check_leaks_at_exit and the
   GPUH_CHECK_LEAKS environment variable), in C99.

   The report is printed after main returns, so the test runs this program
   again as a child (popen) in one of four modes and reads everything the
   child printed (stdout and stderr):
     --child=leak    calls gpuh_check_leaks_at_exit(), makes three
                     allocations and frees one: the report must list exactly
                     the other two, with their bytes and file:line
     --child=env     no call; GPUH_CHECK_LEAKS=1: one leak, listed
     --child=clean   calls gpuh_check_leaks_at_exit(), frees everything: the
                     child prints nothing from gpuh at all
     --child=off     no call; GPUH_CHECK_LEAKS=0: a leak, not reported
     --child=raw     calls gpuh_check_leaks_at_exit(), frees two of the
                     allocations with cudaFree and cudaFreeHost (behind
                     gpuh's back): only the third is a leak
     --child=reset   calls gpuh_check_leaks_at_exit(), then cudaDeviceReset()
                     frees everything: nothing is reported
   Each child prints "expect: <text>" for every report line it expects, and
   "child done" as its last line; the parent checks both directions.
   `test_leak --child=clean` alone is what scripts/gpu_check.sh runs under
   compute-sanitizer (the others leak on purpose). Without a device: exit 77.

   gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -I. -isystem <cuda>/include \
       tests/test_leak.c -L<cuda>/lib64 -lcudart
*/
#define _POSIX_C_SOURCE 200809L /* popen, pclose */
#include "gpuh_test.h"

#include <sys/wait.h>

/* ---- The child: allocates, maybe frees, and returns from main. */
static int child(const char *mode)
{
    const int leak = strcmp(mode, "clean") != 0;
    float *d_a = NULL, *d_b = NULL;
    int *h_pinned = NULL;
    int line_a, line_pinned;
    if (strcmp(mode, "env") != 0 && strcmp(mode, "off") != 0)
        GPUH_CHECK(gpuh_check_leaks_at_exit());
    if (strcmp(mode, "leak") == 0)
        GPUH_CHECK(gpuh_check_leaks_at_exit()); /* a second call must not print a second report */
    line_a = __LINE__; GPUH_CHECK(gpuh_device_array(&d_a, 1000));
    GPUH_CHECK(gpuh_device_array(&d_b, 3));
    line_pinned = __LINE__; GPUH_CHECK(gpuh_pinned_array(&h_pinned, 100));
    GPUH_CHECK(gpuh_free(d_b)); /* freed: never in a report */
    if (strcmp(mode, "raw") == 0) {
        GPUH_CHECK(cudaFree(d_a));
        GPUH_CHECK(cudaFreeHost(h_pinned));
        GPUH_CHECK(gpuh_device_array(&d_b, 5));
        printf("expect: gpuh: leak check at exit: 1 gpuh allocation (20 bytes tracked) not freed:\n");
        printf("expect: device allocation %p of 20 bytes from %s:%d\n", (void *)d_b, __FILE__, __LINE__ - 2);
    } else if (strcmp(mode, "reset") == 0) {
        GPUH_CHECK(cudaDeviceReset());
    } else if (!leak) {
        GPUH_CHECK(gpuh_free(d_a));
        GPUH_CHECK(gpuh_free(h_pinned));
    } else if (strcmp(mode, "leak") == 0) {
        printf("expect: gpuh: leak check at exit: 2 gpuh allocations (4400 bytes tracked) not freed:\n");
        printf("expect: device allocation %p of 4000 bytes from %s:%d\n", (void *)d_a, __FILE__, line_a);
        printf("expect: pinned allocation %p of 400 bytes from %s:%d\n", (void *)h_pinned, __FILE__, line_pinned);
    } else {
        GPUH_CHECK(gpuh_free(h_pinned));
        if (strcmp(mode, "env") == 0) {
            printf("expect: gpuh: leak check at exit: 1 gpuh allocation (4000 bytes tracked) not freed:\n");
            printf("expect: device allocation %p of 4000 bytes from %s:%d\n", (void *)d_a, __FILE__, line_a);
        }
    }
    printf("child done\n");
    return 0;
}

/* ---- The parent: runs a child, collects its output, checks it. */
static char output[16384];

static int run_child(const char *self, const char *env, const char *mode)
{
    char cmd[4096];
    FILE *p;
    size_t k = 0, got;
    int status;
    snprintf(cmd, sizeof cmd, "%s '%s' --child=%s 2>&1", env, self, mode);
    p = popen(cmd, "r");
    if (!TEST_ASSERT(p != NULL, "popen(\"%s\") failed", cmd))
        return -1;
    while (k + 1 < sizeof output && (got = fread(output + k, 1, sizeof output - 1 - k, p)) > 0)
        k += got;
    output[k] = '\0';
    status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Every "expect: X" line has a line X elsewhere in the output, and every
   line gpuh printed ("gpuh: ...") was expected. */
static void check_report(const char *mode, int expected_lines)
{
    char copy[sizeof output], *line, *save = NULL;
    int expects = 0, gpuh_lines = 0;
    memcpy(copy, output, sizeof output);
    for (line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        if (strncmp(line, "expect: ", 8) == 0) {
            const char *want = line + 8;
            char pattern[1024];
            ++expects;
            /* The report's own line: at the start of a line, not the expect line itself. */
            snprintf(pattern, sizeof pattern, "\n%s%s\n", strncmp(want, "gpuh:", 5) == 0 ? "" : "gpuh: live ", want);
            TEST_ASSERT(strstr(output, pattern) != NULL || strncmp(output, pattern + 1, strlen(pattern) - 1) == 0,
                        "mode %s: the report has no line \"%s\"; the child printed:\n%s", mode, pattern + 1, output);
        } else if (strncmp(line, "gpuh: ", 6) == 0) {
            ++gpuh_lines;
        }
    }
    TEST_ASSERT(expects == expected_lines, "mode %s: the child expected %d report lines, not %d:\n%s", mode, expects,
                expected_lines, output);
    TEST_ASSERT(gpuh_lines == expects, "mode %s: gpuh printed %d lines, %d expected:\n%s", mode, gpuh_lines, expects,
                output);
    TEST_CONTAINS(output, "child done\n");
}

int main(int argc, char **argv)
{
    /* The environment of each child, its mode, and how many report lines it expects. */
    static const struct {
        const char *env, *mode;
        int report_lines;
    } runs[] = {{"GPUH_CHECK_LEAKS=", "leak", 3},
                {"GPUH_CHECK_LEAKS=1", "env", 2},
                {"GPUH_CHECK_LEAKS=1", "clean", 0},
                {"GPUH_CHECK_LEAKS=0", "off", 0},
                {"GPUH_CHECK_LEAKS=", "raw", 2},
                {"GPUH_CHECK_LEAKS=", "reset", 0}};
    size_t i;
    int rc;
    if (argc > 1 && strncmp(argv[1], "--child=", 8) == 0)
        return child(argv[1] + 8);
    GPUH_TEST_REQUIRE_DEVICE();

    for (i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        rc = run_child(argv[0], runs[i].env, runs[i].mode);
        TEST_ASSERT(rc == 0, "%s: the child exited with %d (the report must not change the exit status)",
                    runs[i].mode, rc);
        check_report(runs[i].mode, runs[i].report_lines);
    }
    return gpuh_test_summary("test_leak");
}
