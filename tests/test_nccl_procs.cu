/* test_nccl_procs.cu - one process per GPU: the parent forks 2 ranks; rank 0
   makes the NCCL id and hands it to rank 1 through a pipe (gpuh_nccl_id_write
   / _read), each rank builds its communicator on its own GPU (gpuh_comm_init)
   and runs an all-reduce, a broadcast and an all-gather, checked against a
   float64 host reference of both ranks' inputs (each rank makes both from the
   printed seed). Exits 77 with fewer than 2 GPUs (or none), as CTest's skip.

   The parent touches no CUDA: a child of a process that has initialised CUDA
   cannot use it. A rank that hangs is stopped after 120 s (alarm).

   nvcc -std=c++17 -arch=sm_90 -I. -DGPUH_USE_NCCL tests/test_nccl_procs.cu -lnccl
*/
#include "gpuh_test.h"

#include <sys/wait.h>
#include <unistd.h>

#include <vector>

static const size_t N = 1000003;

/* Rank r's input: fresh from the seed, the same in both processes. */
static std::vector<float> input(unsigned long long seed, int rank)
{
    unsigned long long s = seed + 0x1000u * (unsigned long long)(rank + 1);
    std::vector<float> v(N);
    for (float &x : v)
        x = (float)(gpuh_test_uniform(&s) * 2.0 - 1.0);
    return v;
}

static int run_rank(int rank, int fd_read, int fd_write, unsigned long long seed)
{
    const int nranks = 2;
    gpuh_nccl_id id;
    gpuh_comm comm;
    cudaStream_t s = NULL;
    float *d = NULL, *d_all = NULL;
    alarm(120);
    if (gpuh_device_count(NULL) < nranks) {
        printf("rank %d: %d GPU(s); this test needs 2\n", rank, gpuh_device_count(NULL));
        return 77;
    }
    if (rank == 0) {
        FILE *w = fdopen(fd_write, "w");
        if (!TEST_CUDA(gpuh_nccl_id_create(&id)) || !TEST_CUDA(gpuh_nccl_id_write(&id, w)))
            return 1;
        fclose(w);
    } else {
        FILE *r = fdopen(fd_read, "r");
        if (!TEST_CUDA(gpuh_nccl_id_read(&id, r)))
            return 1;
        fclose(r);
    }
    if (!TEST_CUDA(gpuh_comm_init(&comm, &id, nranks, rank, rank)))
        return 1;
    TEST_ASSERT(comm.rank == rank && comm.nranks == nranks && comm.device == rank, "the communicator");
    TEST_CUDA(cudaSetDevice(rank));
    TEST_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    std::vector<float> mine = input(seed, rank), other = input(seed, 1 - rank), out(N), all(2 * N);
    TEST_CUDA(gpuh_to_device(&d, mine.data(), N));
    TEST_CUDA(gpuh_device_array(&d_all, 2 * N));

    /* all-reduce, in place */
    TEST_CUDA(gpuh_comm_all_reduce(&comm, d, d, N, GPUH_FLOAT32, GPUH_SUM, s));
    TEST_CUDA(cudaStreamSynchronize(s));
    TEST_CUDA(gpuh_copy_to_host(out.data(), d, N));
    size_t bad = 0;
    for (size_t i = 0; i < N; ++i) { /* one rounding of a sum of two */
        const double ref = (double)mine[i] + (double)other[i];
        bad += !(fabs((double)out[i] - ref) <= 5.97e-8 * fabs(ref));
    }
    TEST_ASSERT(bad == 0, "rank %d: all-reduce: %zu of %zu wrong", rank, bad, N);

    /* broadcast from rank 1 */
    TEST_CUDA(gpuh_copy_to_device(d, mine.data(), N));
    TEST_CUDA(cudaMemsetAsync(d_all, 0xff, N * sizeof(float), s));
    TEST_CUDA(gpuh_comm_broadcast(&comm, d, d_all, N, GPUH_FLOAT32, 1, s));
    TEST_CUDA(cudaStreamSynchronize(s));
    TEST_CUDA(gpuh_copy_to_host(out.data(), d_all, N));
    const std::vector<float> &root = rank == 1 ? mine : other;
    TEST_ASSERT(memcmp(out.data(), root.data(), N * sizeof(float)) == 0, "rank %d: broadcast", rank);

    /* all-gather */
    TEST_CUDA(cudaMemsetAsync(d_all, 0xff, 2 * N * sizeof(float), s));
    TEST_CUDA(gpuh_comm_all_gather(&comm, d, d_all, N, GPUH_FLOAT32, s));
    TEST_CUDA(cudaStreamSynchronize(s));
    TEST_CUDA(gpuh_copy_to_host(all.data(), d_all, 2 * N));
    const std::vector<float> &r0 = rank == 0 ? mine : other, &r1 = rank == 0 ? other : mine;
    TEST_ASSERT(memcmp(all.data(), r0.data(), N * sizeof(float)) == 0 &&
                    memcmp(all.data() + N, r1.data(), N * sizeof(float)) == 0,
                "rank %d: all-gather", rank);

    TEST_CUDA(gpuh_comm_destroy(&comm));
    gpuh_free(d);
    gpuh_free(d_all);
    cudaStreamDestroy(s);
    char name[32];
    snprintf(name, sizeof name, "test_nccl_procs rank %d", rank);
    return gpuh_test_summary(name);
}

int main(void)
{
    int fds[2], status[2] = {0, 0}, r;
    pid_t pid[2];
    const unsigned long long seed = gpuh_test_seed();
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* NVLink multicast off unless the caller says otherwise */
    fflush(stdout);
    if (pipe(fds) != 0) {
        perror("pipe");
        return 1;
    }
    for (r = 0; r < 2; ++r) {
        pid[r] = fork();
        if (pid[r] < 0) {
            perror("fork");
            return 1;
        }
        if (pid[r] == 0) {
            if (r == 0)
                close(fds[0]);
            else
                close(fds[1]);
            const int rc = run_rank(r, fds[0], fds[1], seed);
            fflush(stdout); /* _exit flushes nothing */
            _exit(rc);
        }
    }
    close(fds[0]);
    close(fds[1]);
    for (r = 0; r < 2; ++r)
        waitpid(pid[r], &status[r], 0);
    int code[2];
    for (r = 0; r < 2; ++r) {
        code[r] = WIFEXITED(status[r]) ? WEXITSTATUS(status[r]) : 128 + WTERMSIG(status[r]);
        printf("rank %d exited with %d\n", r, code[r]);
    }
    if (code[0] == 77 && code[1] == 77)
        return 77;
    const int ok = code[0] == 0 && code[1] == 0;
    printf("test_nccl_procs: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
