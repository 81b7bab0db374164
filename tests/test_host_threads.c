/* test_host_threads.c - gpuh's host state from several host threads at once (C99 + pthreads).

   Runs anywhere (no CUDA call needs to succeed). Each of THREADS threads, in
   a loop:
     - makes gpuh fail with a message of its own (gpuh_grid_1d with a count
       that names the thread and the iteration; gpuh_fail with both numbers)
       and reads gpuh_error_detail() back: it must be exactly its own message,
       never another thread's or a mixture of two;
     - records a launch (the launch check GPUH_LAUNCH makes, with a block
       size that names the thread, refused before any CUDA call) and reads
       gpuh_last_launch() back: its own;
     - enters and removes entries in the allocation ledger (addresses of its
       own, never dereferenced) while gpuh_memory_info reads it, and asks for
       the leak check (gpuh_print_allocations is left out: on a GPU it would
       rightly drop these entries, which CUDA never allocated).
   At the end the ledger must be empty with exact counters. Each thread
   counts its own failures; main checks them after joining (gpuh_test.h's
   counters are not shared between threads). Build it with
   -fsanitize=thread as well: ThreadSanitizer must report nothing.

   gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -pthread -I. -isystem <cuda>/include \
       tests/test_host_threads.c -L<cuda>/lib64 -lcudart
*/
#define _POSIX_C_SOURCE 200809L /* sched_yield */
#include "gpuh_test.h"

#include <pthread.h>
#include <sched.h>

#define THREADS 8
#define ITERATIONS 2000

typedef struct worker {
    int id;
    int failures;
    char first_failure[1200]; /* room for two details and the words around them */
} worker;

static void note_failure(worker *w, const char *what, const char *got, const char *want)
{
    if (w->failures++ == 0)
        snprintf(w->first_failure, sizeof w->first_failure, "thread %d: %s: got \"%s\", expected \"%s\"", w->id,
                 what, got, want);
}

static void *run(void *arg)
{
    worker *w = (worker *)arg; /* a cast, so that the file also builds as C++ (the simulator) */
    char want[512], got[512];
    unsigned char cells[64 * 64]; /* stand-ins for 64 allocations, 64 bytes apart: addresses only */
    int k, j;
    for (k = 0; k < ITERATIONS; ++k) {
        dim3 grid;
        gpuh_impl_dims launch_grid, launch_block;
        gpuh_launch_record r;
        gpuh_memory_stats stats;
        /* A grid that needs 2^31 + id * ITERATIONS + k blocks of one thread. */
        const size_t n = (size_t)2147483648u + (size_t)w->id * ITERATIONS + (size_t)k;
        cudaError_t err = gpuh_grid_1d(&grid, n, 1);
        sched_yield(); /* let another thread fail in between */
        snprintf(want, sizeof want,
                 "gpuh_grid: %zu x 1 x 1 elements in blocks of (1, 1, 1) need a grid of (%zu, 1, 1) blocks; the "
                 "limits are (2147483647, 65535, 65535)",
                 n, n);
        snprintf(got, sizeof got, "%s", gpuh_error_detail());
        if (err != cudaErrorInvalidConfiguration || strcmp(got, want) != 0)
            note_failure(w, "gpuh_grid_1d's detail", got, want);

        err = gpuh_fail(cudaErrorInvalidValue, "worker %d, iteration %d", w->id, k);
        sched_yield();
        snprintf(want, sizeof want, "worker %d, iteration %d", w->id, k);
        snprintf(got, sizeof got, "%s", gpuh_error_detail());
        if (err != cudaErrorInvalidValue || strcmp(got, want) != 0)
            note_failure(w, "gpuh_fail's detail", got, want);

        /* The record GPUH_LAUNCH keeps; block.x = 2000 + id is refused. */
        launch_grid.x = (unsigned)k + 1;
        launch_grid.y = launch_grid.z = 1;
        launch_block.x = 2000u + (unsigned)w->id;
        launch_block.y = launch_block.z = 1;
        err = gpuh_impl_launch_begin("worker_kernel", launch_grid, launch_block, (size_t)w->id, __FILE__, w->id);
        sched_yield();
        r = gpuh_last_launch();
        if (err != cudaErrorInvalidConfiguration || r.kernel == NULL || strcmp(r.kernel, "worker_kernel") != 0 ||
            r.grid.x != (unsigned)k + 1 || r.block.x != 2000u + (unsigned)w->id || r.shmem_bytes != (size_t)w->id ||
            r.line != w->id) {
            snprintf(got, sizeof got, "grid.x %u, block.x %u, shmem %zu, line %d", r.grid.x, r.block.x,
                     r.shmem_bytes, r.line);
            snprintf(want, sizeof want, "grid.x %u, block.x %u, shmem %d, line %d", (unsigned)k + 1,
                     2000u + (unsigned)w->id, w->id, w->id);
            note_failure(w, "gpuh_last_launch()", got, want);
        }

        /* The ledger, written and read from every thread. */
        for (j = 0; j < 64; ++j)
            gpuh_impl_ledger_add(&cells[64 * j], 1 + (size_t)j, j % 3 == 0 ? GPUH_IMPL_PINNED : GPUH_IMPL_DEVICE,
                                 __FILE__, __LINE__);
        gpuh_memory_info(&stats); /* no device: the CUDA part fails, the counters are read */
        if (k % 100 == 0)
            gpuh_check_leaks_at_exit();
        for (j = 63; j >= 0; --j)
            if (gpuh_impl_ledger_remove(&cells[64 * j]) != (j % 3 == 0 ? GPUH_IMPL_PINNED : GPUH_IMPL_DEVICE)) {
                note_failure(w, "gpuh_impl_ledger_remove", "another kind", "its own entry");
                break;
            }
    }
    return NULL;
}

int main(void)
{
    pthread_t threads[THREADS];
    worker workers[THREADS];
    gpuh_memory_stats stats;
    int i, started = 0;
    gpuh_clear_error_detail();
    for (i = 0; i < THREADS; ++i) {
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].id = i;
        if (TEST_ASSERT(pthread_create(&threads[i], NULL, run, &workers[i]) == 0, "thread %d not started", i))
            ++started;
    }
    for (i = 0; i < started; ++i)
        pthread_join(threads[i], NULL);
    for (i = 0; i < started; ++i)
        TEST_ASSERT(workers[i].failures == 0, "%d wrong reads; the first: %s", workers[i].failures,
                    workers[i].first_failure);
    /* The main thread failed nowhere: its detail and launch record are empty. */
    TEST_ASSERT(strcmp(gpuh_error_detail(), "") == 0, "main thread's detail \"%s\"", gpuh_error_detail());
    TEST_ASSERT(gpuh_last_launch().kernel == NULL, "main thread's last launch is %s", gpuh_last_launch().kernel);
    gpuh_memory_info(&stats);
    TEST_ASSERT(stats.live_allocations == 0 && stats.allocated_bytes == 0 && stats.pinned_bytes == 0 &&
                    stats.untracked_allocations == 0,
                "after every thread removed its entries: %zu live, %zu bytes, %zu pinned bytes, %zu untracked",
                stats.live_allocations, stats.allocated_bytes, stats.pinned_bytes, stats.untracked_allocations);
    TEST_ASSERT(stats.peak_allocated_bytes > 0 && stats.peak_allocated_bytes <= THREADS * 64u * 65u / 2u,
                "peak of %zu bytes", stats.peak_allocated_bytes);
    return gpuh_test_summary("test_host_threads");
}
