/* CUDA graphs on the simulator (through tools/gpuh-simcc) and on a GPU (nvcc):
   stream capture across two streams joined by events, graphs built node by
   node (kernel, memcpy, memset, host, empty, child graph, event record,
   dependencies), instantiate and launch again and again, kernel parameters
   of an instantiated graph, cudaGraphExecUpdate, conditional nodes (IF with
   ELSE, WHILE) set from device code, and graph memory (allocation and free
   nodes, captured cudaMallocAsync/cudaFreeAsync). Semantics from the CUDA C++
   Programming Guide, "CUDA Graphs". Exit 1 on a failure, 77 with no device. */
#include <cstdio>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "gpuh_test.h"

static std::mt19937 rng;

__global__ void axpb_kernel(float *x, float a, float b, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = a * x[i] + b;
}
__global__ void add_kernel(const float *x, const float *y, float *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] + y[i];
}
static void CUDART_CB count_host(void *p) { ++*static_cast<int *>(p); }

static bool near(const std::vector<float> &got, const std::vector<double> &want, int *bad)
{
    *bad = 0;
    for (size_t i = 0; i < got.size(); ++i)
        *bad += std::fabs(got[i] - want[i]) > 1e-4 * (1.0 + std::fabs(want[i]));
    return *bad == 0;
}

/* Captured: x on stream a, y on stream b (forked and joined by events), then
   out = x + y and the copy back; nothing runs until the graph is launched. */
static void test_capture()
{
    const int n = 1000 + static_cast<int>(rng() % 100);
    std::vector<float> hx(n), hy(n), hout(n, -1.0f);
    for (int i = 0; i < n; ++i)
        hx[i] = static_cast<float>(rng() % 100), hy[i] = static_cast<float>(rng() % 100);
    float *x, *y, *out;
    TEST_CUDA(cudaMalloc(&x, n * sizeof(float)));
    TEST_CUDA(cudaMalloc(&y, n * sizeof(float)));
    TEST_CUDA(cudaMalloc(&out, n * sizeof(float)));
    cudaStream_t a, b;
    cudaEvent_t fork, join;
    TEST_CUDA(cudaStreamCreate(&a));
    TEST_CUDA(cudaStreamCreate(&b));
    TEST_CUDA(cudaEventCreate(&fork));
    TEST_CUDA(cudaEventCreate(&join));
    int host_runs = 0;

    TEST_CUDA(cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    TEST_CUDA(cudaStreamIsCapturing(a, &st));
    TEST_ASSERT(st == cudaStreamCaptureStatusActive, "stream a captures");
    TEST_CUDA(cudaMemcpyAsync(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice, a));
    TEST_CUDA(cudaEventRecord(fork, a));
    TEST_CUDA(cudaStreamWaitEvent(b, fork, 0)); /* b joins the capture */
    TEST_CUDA(cudaStreamIsCapturing(b, &st));
    TEST_ASSERT(st == cudaStreamCaptureStatusActive, "stream b joined the capture");
    TEST_CUDA(cudaMemcpyAsync(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice, b));
    axpb_kernel<<<(n + 127) / 128, 128, 0, b>>>(y, 3.0f, 1.0f, n);
    axpb_kernel<<<(n + 127) / 128, 128, 0, a>>>(x, 2.0f, 0.0f, n);
    TEST_CUDA(cudaEventRecord(join, b));
    TEST_CUDA(cudaStreamWaitEvent(a, join, 0));
    add_kernel<<<(n + 127) / 128, 128, 0, a>>>(x, y, out, n);
    TEST_CUDA(cudaLaunchHostFunc(a, count_host, &host_runs));
    TEST_CUDA(cudaMemcpyAsync(hout.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost, a));
    unsigned long long id = 0;
    cudaGraph_t graph = NULL, during = NULL;
    TEST_CUDA(cudaStreamGetCaptureInfo(a, &st, &id, &during));
    TEST_ASSERT(st == cudaStreamCaptureStatusActive && during != NULL && id != 0, "capture info");
    TEST_ASSERT(hout[0] == -1.0f && host_runs == 0, "captured work does not run");
    TEST_CUDA(cudaStreamEndCapture(a, &graph));
    TEST_CUDA(cudaStreamIsCapturing(b, &st));
    TEST_ASSERT(st == cudaStreamCaptureStatusNone, "the end of the capture releases stream b");
    size_t count = 0;
    TEST_CUDA(cudaGraphGetNodes(graph, NULL, &count));
    TEST_ASSERT(count == 7, "7 nodes captured, got %zu", count);

    cudaGraphExec_t exec;
    TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 3; ++launch) {
        for (int i = 0; i < n; ++i)
            hx[i] = static_cast<float>(rng() % 100); /* the captured copy reads hx when the graph runs */
        std::fill(hout.begin(), hout.end(), -1.0f);
        TEST_CUDA(cudaGraphLaunch(exec, a));
        TEST_CUDA(cudaStreamSynchronize(a));
        std::vector<double> want(n);
        for (int i = 0; i < n; ++i)
            want[i] = 2.0 * hx[i] + 3.0 * hy[i] + 1.0;
        int bad = 0;
        TEST_ASSERT(near(hout, want, &bad), "launch %d of the captured graph: %d wrong", launch, bad);
    }
    TEST_ASSERT(host_runs == 3, "the host node ran %d times", host_runs);
    TEST_CUDA(cudaGraphExecDestroy(exec));
    TEST_CUDA(cudaGraphDestroy(graph));
    TEST_CUDA(cudaEventDestroy(fork));
    TEST_CUDA(cudaEventDestroy(join));
    TEST_CUDA(cudaStreamDestroy(a));
    TEST_CUDA(cudaStreamDestroy(b));
    TEST_CUDA(cudaFree(x));
    TEST_CUDA(cudaFree(y));
    TEST_CUDA(cudaFree(out));
}

/* Built node by node: memset x to a pattern, x = a x + b, a child graph that
   copies x to y, an empty node joining; the kernel's parameters changed in the
   instantiated graph; an update from a graph of the same shape, and one refused. */
static void test_explicit()
{
    const int n = 700;
    float *x, *y;
    TEST_CUDA(cudaMalloc(&x, n * sizeof(float)));
    TEST_CUDA(cudaMalloc(&y, n * sizeof(float)));
    cudaGraph_t graph, child;
    TEST_CUDA(cudaGraphCreate(&graph, 0));
    TEST_CUDA(cudaGraphCreate(&child, 0));
    cudaGraphNode_t set, kern, copy, sub, join, rec, host;
    cudaMemsetParams mp = {};
    mp.dst = x;
    mp.value = 0x40000000u; /* 2.0f */
    mp.elementSize = 4;
    mp.width = n;
    mp.height = 1;
    mp.pitch = n * sizeof(float);
    TEST_CUDA(cudaGraphAddMemsetNode(&set, graph, NULL, 0, &mp));
    float a = 3.0f, b = 0.5f;
    int nn = n;
    void *args[] = {&x, &a, &b, &nn};
    cudaKernelNodeParams kp = {};
    kp.func = reinterpret_cast<void *>(axpb_kernel);
    kp.gridDim = dim3((n + 63) / 64);
    kp.blockDim = dim3(64);
    kp.kernelParams = args;
    TEST_CUDA(cudaGraphAddKernelNode(&kern, graph, &set, 1, &kp));
    a = -50.0f; /* the node copied the arguments when it was added */
    TEST_CUDA(cudaGraphAddMemcpyNode1D(&copy, child, NULL, 0, y, x, n * sizeof(float), cudaMemcpyDeviceToDevice));
    TEST_CUDA(cudaGraphAddChildGraphNode(&sub, graph, &kern, 1, child));
    int host_runs = 0;
    cudaHostNodeParams hp = {count_host, &host_runs};
    TEST_CUDA(cudaGraphAddHostNode(&host, graph, &kern, 1, &hp));
    cudaGraphNode_t both[] = {sub, host};
    TEST_CUDA(cudaGraphAddEmptyNode(&join, graph, both, 2));
    cudaEvent_t done;
    TEST_CUDA(cudaEventCreate(&done));
    TEST_CUDA(cudaGraphAddEventRecordNode(&rec, graph, &join, 1, done));
    cudaGraphExec_t exec;
    TEST_CUDA(cudaGraphInstantiate(&exec, graph, NULL, NULL, 0));
    std::vector<float> hy(n);
    TEST_CUDA(cudaGraphLaunch(exec, 0));
    TEST_CUDA(cudaEventSynchronize(done));
    TEST_CUDA(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i)
        bad += hy[i] != 6.5f;
    TEST_ASSERT(bad == 0 && host_runs == 1, "explicit graph: %d wrong, host node ran %d times", bad, host_runs);

    float a2 = -1.0f, b2 = 4.0f;
    void *args2[] = {&x, &a2, &b2, &nn};
    cudaKernelNodeParams kp2 = kp;
    kp2.kernelParams = args2;
    TEST_CUDA(cudaGraphExecKernelNodeSetParams(exec, kern, &kp2));
    TEST_CUDA(cudaGraphLaunch(exec, 0));
    TEST_CUDA(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; ++i)
        bad += hy[i] != 2.0f;
    TEST_ASSERT(bad == 0, "cudaGraphExecKernelNodeSetParams: %d wrong (y = %g)", bad, hy[0]);

    /* the original graph is unchanged: an update takes its parameters back */
    cudaGraphExecUpdateResultInfo info;
    TEST_CUDA(cudaGraphExecUpdate(exec, graph, &info));
    TEST_ASSERT(info.result == cudaGraphExecUpdateSuccess, "update from the same graph");
    TEST_CUDA(cudaGraphLaunch(exec, 0));
    TEST_CUDA(cudaMemcpy(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
    TEST_ASSERT(hy[n - 1] == 6.5f, "the update's parameters ran: %g", hy[n - 1]);
    cudaGraph_t other;
    cudaGraphNode_t lone;
    TEST_CUDA(cudaGraphCreate(&other, 0));
    TEST_CUDA(cudaGraphAddEmptyNode(&lone, other, NULL, 0));
    TEST_ERR(cudaGraphExecUpdate(exec, other, &info), cudaErrorGraphExecUpdateFailure);
    TEST_ASSERT(info.result == cudaGraphExecUpdateErrorTopologyChanged, "a graph of another shape is refused");
    (void)cudaGetLastError();
    TEST_CUDA(cudaGraphDestroy(other));
    TEST_CUDA(cudaGraphExecDestroy(exec));
    TEST_CUDA(cudaGraphDestroy(child));
    TEST_CUDA(cudaGraphDestroy(graph));
    TEST_CUDA(cudaEventDestroy(done));
    TEST_CUDA(cudaFree(x));
    TEST_CUDA(cudaFree(y));
}

/* Conditional nodes: IF/ELSE on a flag a kernel sets; WHILE counting down from device code. */
__global__ void set_flag_kernel(const int *flag, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, *flag); }
__global__ void mark_kernel(int *out, int v) { *out = v; }
__global__ void count_down_kernel(int *counter, int *iterations, cudaGraphConditionalHandle h)
{
    ++*iterations;
    cudaGraphSetConditional(h, --*counter > 0);
}
static void test_conditional()
{
    int *m;
    TEST_CUDA(cudaMallocManaged(&m, 4 * sizeof(int)));
    int *flag = m, *out = m + 1, *counter = m + 2, *iters = m + 3;
    cudaGraph_t graph;
    TEST_CUDA(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle h;
    TEST_CUDA(cudaGraphConditionalHandleCreate(&h, graph, 0, cudaGraphCondAssignDefault));
    cudaGraphNode_t setter, cond, body_node;
    void *set_args[] = {&flag, &h};
    cudaGraphNodeParams kp = {};
    kp.type = cudaGraphNodeTypeKernel;
    kp.kernel.func = reinterpret_cast<void *>(set_flag_kernel);
    kp.kernel.gridDim.x = kp.kernel.gridDim.y = kp.kernel.gridDim.z = 1;
    kp.kernel.blockDim.x = kp.kernel.blockDim.y = kp.kernel.blockDim.z = 1;
    kp.kernel.kernelParams = set_args;
    TEST_CUDA(cudaGraphAddNode(&setter, graph, NULL, NULL, 0, &kp));
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 2;
    TEST_CUDA(cudaGraphAddNode(&cond, graph, &setter, NULL, 1, &cp));
    int then_v = 11, else_v = 22;
    void *then_args[] = {&out, &then_v}, *else_args[] = {&out, &else_v};
    kp.kernel.func = reinterpret_cast<void *>(mark_kernel);
    kp.kernel.kernelParams = then_args;
    TEST_CUDA(cudaGraphAddNode(&body_node, cp.conditional.phGraph_out[0], NULL, NULL, 0, &kp));
    kp.kernel.kernelParams = else_args;
    TEST_CUDA(cudaGraphAddNode(&body_node, cp.conditional.phGraph_out[1], NULL, NULL, 0, &kp));
    cudaGraphExec_t exec;
    TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int f = 0; f < 2; ++f) {
        *flag = f;
        *out = 0;
        TEST_CUDA(cudaGraphLaunch(exec, 0));
        TEST_CUDA(cudaDeviceSynchronize());
        TEST_ASSERT(*out == (f ? 11 : 22), "IF/ELSE with the flag %d ran %d", f, *out);
    }
    TEST_CUDA(cudaGraphExecDestroy(exec));
    TEST_CUDA(cudaGraphDestroy(graph));

    TEST_CUDA(cudaGraphCreate(&graph, 0));
    TEST_CUDA(cudaGraphConditionalHandleCreate(&h, graph, 1, cudaGraphCondAssignDefault));
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    TEST_CUDA(cudaGraphAddNode(&cond, graph, NULL, NULL, 0, &cp));
    void *loop_args[] = {&counter, &iters, &h};
    kp.kernel.func = reinterpret_cast<void *>(count_down_kernel);
    kp.kernel.kernelParams = loop_args;
    TEST_CUDA(cudaGraphAddNode(&body_node, cp.conditional.phGraph_out[0], NULL, NULL, 0, &kp));
    TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int start = 5; start <= 9; start += 4) {
        *counter = start;
        *iters = 0;
        TEST_CUDA(cudaGraphLaunch(exec, 0)); /* the handle starts at 1 again (cudaGraphCondAssignDefault) */
        TEST_CUDA(cudaDeviceSynchronize());
        TEST_ASSERT(*iters == start && *counter == 0, "WHILE from %d: %d iterations, counter %d", start, *iters, *counter);
    }
    TEST_CUDA(cudaGraphExecDestroy(exec));
    TEST_CUDA(cudaGraphDestroy(graph));
    TEST_CUDA(cudaFree(m));
}

/* Graph memory: an allocation kept at one address from launch to launch, freed
   inside the graph (captured cudaMallocAsync/cudaFreeAsync) or by the program. */
static void test_memory()
{
    const int n = 513;
    cudaStream_t s;
    TEST_CUDA(cudaStreamCreate(&s));
    float *host_out;
    TEST_CUDA(cudaMallocHost(&host_out, n * sizeof(float)));
    float *tmp = NULL;
    cudaGraph_t graph;
    TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    TEST_CUDA(cudaMallocAsync(&tmp, n * sizeof(float), s));
    TEST_CUDA(cudaMemsetAsync(tmp, 0, n * sizeof(float), s));
    axpb_kernel<<<(n + 255) / 256, 256, 0, s>>>(tmp, 1.0f, 7.0f, n);
    TEST_CUDA(cudaMemcpyAsync(host_out, tmp, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    TEST_CUDA(cudaFreeAsync(tmp, s));
    TEST_CUDA(cudaStreamEndCapture(s, &graph));
    TEST_ASSERT(tmp != NULL, "a captured cudaMallocAsync gives its address at once");
    cudaGraphExec_t exec;
    TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
        memset(host_out, 0, n * sizeof(float));
        TEST_CUDA(cudaGraphLaunch(exec, s));
        TEST_CUDA(cudaStreamSynchronize(s));
        TEST_ASSERT(host_out[0] == 7.0f && host_out[n - 1] == 7.0f, "launch %d with graph memory: %g", launch, host_out[0]);
    }
    cudaPointerAttributes attr;
    TEST_CUDA(cudaPointerGetAttributes(&attr, tmp));
    TEST_ASSERT(attr.type != cudaMemoryTypeDevice, "after the graph's free node the memory is not the device's");
    TEST_CUDA(cudaGraphExecDestroy(exec));
    TEST_CUDA(cudaGraphDestroy(graph));

    /* an allocation node without a free: the program frees it, the next launch has it again at the same address */
    TEST_CUDA(cudaGraphCreate(&graph, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.bytesize = n * sizeof(float);
    cudaGraphNode_t alloc, kern;
    TEST_CUDA(cudaGraphAddMemAllocNode(&alloc, graph, NULL, 0, &ap));
    float *d = static_cast<float *>(ap.dptr), one = 1.0f, two = 2.0f;
    int nn = n;
    void *args[] = {&d, &one, &two, &nn};
    cudaKernelNodeParams kp = {};
    kp.func = reinterpret_cast<void *>(axpb_kernel);
    kp.gridDim = dim3((n + 255) / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    TEST_CUDA(cudaGraphAddKernelNode(&kern, graph, &alloc, 1, &kp));
    TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int launch = 0; launch < 2; ++launch) {
        TEST_CUDA(cudaGraphLaunch(exec, s));
        TEST_CUDA(cudaMemsetAsync(d, 0, sizeof(float), s)); /* usable outside the graph until freed */
        TEST_CUDA(cudaFreeAsync(d, s));
        TEST_CUDA(cudaStreamSynchronize(s));
    }
    TEST_CUDA(cudaGraphExecDestroy(exec));
    TEST_CUDA(cudaGraphDestroy(graph));
    TEST_CUDA(cudaFreeHost(host_out));
    TEST_CUDA(cudaStreamDestroy(s));
}

int main()
{
    GPUH_TEST_REQUIRE_DEVICE();
    rng.seed(static_cast<unsigned>(gpuh_test_seed()));
    test_capture();
    test_explicit();
    test_conditional();
    test_memory();
    return gpuh_test_summary("test_sim_graphs");
}
