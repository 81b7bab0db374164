/* gpuh_sim_graph.h - CUDA graphs on gpuh's CPU simulator: stream capture
   (cudaStreamBeginCapture[ToGraph], EndCapture, IsCapturing, GetCaptureInfo,
   UpdateCaptureDependencies, other streams joining through events), graphs
   built by hand (kernel, memcpy, memset, host, empty, child-graph, event,
   memory allocation/free and conditional nodes, dependencies), instantiation,
   launch, kernel-node parameters of an instantiated graph, cudaGraphExecUpdate,
   and conditional nodes (IF with an optional ELSE, WHILE, SWITCH) whose
   handles device code sets with cudaGraphSetConditional. Included by the
   stand-in <cuda_runtime.h>; semantics from the CUDA C++ Programming Guide,
   "CUDA Graphs", and the Runtime API's "Graph Management".

   How it runs: a graph is a list of nodes with their dependencies; a launch
   runs the nodes one at a time in an order that respects every dependency
   (the simulator's streams run work when issued, so that is what a GPU's
   concurrent run must be equivalent to). Captured work is the call itself,
   kept as a closure over its arguments (gpuh_sim.h's capture hook) and
   replayed into the launch's stream; a kernel node added by hand copies its
   arguments when it is added, as CUDA does (the kernel must be one
   gpuh-simcc registered: not a template named by a void pointer). Where it
   differs from CUDA: a graph's memory (allocation
   nodes, captured cudaMallocAsync) is allocated when the node is made and
   kept until the graph and its instantiations are destroyed, so its address
   is the same at every launch, as CUDA promises, and free nodes free nothing. */
#ifndef GPUH_SIM_GRAPH_H
#define GPUH_SIM_GRAPH_H
#include "gpuh_sim.h"
#include "gpuh_sim_texture.h"
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

enum cudaGraphNodeType {
    cudaGraphNodeTypeKernel = 0,
    cudaGraphNodeTypeMemcpy = 1,
    cudaGraphNodeTypeMemset = 2,
    cudaGraphNodeTypeHost = 3,
    cudaGraphNodeTypeGraph = 4,
    cudaGraphNodeTypeEmpty = 5,
    cudaGraphNodeTypeWaitEvent = 6,
    cudaGraphNodeTypeEventRecord = 7,
    cudaGraphNodeTypeMemAlloc = 10,
    cudaGraphNodeTypeMemFree = 11,
    cudaGraphNodeTypeConditional = 13
};
enum cudaStreamCaptureMode { cudaStreamCaptureModeGlobal = 0, cudaStreamCaptureModeThreadLocal = 1, cudaStreamCaptureModeRelaxed = 2 };
enum cudaStreamUpdateCaptureDependenciesFlags { cudaStreamAddCaptureDependencies = 0, cudaStreamSetCaptureDependencies = 1 };
enum cudaGraphConditionalNodeType { cudaGraphCondTypeIf = 0, cudaGraphCondTypeWhile = 1, cudaGraphCondTypeSwitch = 2 };
enum cudaGraphExecUpdateResult {
    cudaGraphExecUpdateSuccess = 0,
    cudaGraphExecUpdateError = 1,
    cudaGraphExecUpdateErrorTopologyChanged = 2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 3
};
enum cudaGraphMemAttributeType {
    cudaGraphMemAttrUsedMemCurrent = 0,
    cudaGraphMemAttrUsedMemHigh = 1,
    cudaGraphMemAttrReservedMemCurrent = 2,
    cudaGraphMemAttrReservedMemHigh = 3
};
#define cudaGraphCondAssignDefault 1
#define cudaGraphInstantiateFlagAutoFreeOnLaunch 1
#define cudaGraphInstantiateFlagUpload 2
#define cudaGraphInstantiateFlagDeviceLaunch 4
#define cudaGraphInstantiateFlagUseNodePriority 8
#define cudaErrorStreamCaptureUnsupported static_cast<cudaError_t>(900)
#define cudaErrorStreamCaptureInvalidated static_cast<cudaError_t>(901)
#define cudaErrorStreamCaptureUnmatched static_cast<cudaError_t>(903)
#define cudaErrorStreamCaptureUnjoined static_cast<cudaError_t>(904)
#define cudaErrorStreamCaptureImplicit static_cast<cudaError_t>(906)
#define cudaErrorGraphExecUpdateFailure static_cast<cudaError_t>(910)
#ifndef cudaErrorIllegalState
#define cudaErrorIllegalState static_cast<cudaError_t>(401)
#endif

struct gpuh_sim_graph;
struct gpuh_sim_graph_node;
/* A graph's allocation: its address is fixed for the graph's life; between a
   free (in the graph or by the program) and the next run of its allocation
   node the simulator does not count it as memory, so an access is caught. */
struct gpuh_sim_impl_graph_block {
    void *p;
    size_t bytes;
    bool live;
};
struct gpuh_sim_graph_exec;
typedef gpuh_sim_graph *cudaGraph_t;
typedef gpuh_sim_graph_node *cudaGraphNode_t;
typedef gpuh_sim_graph_exec *cudaGraphExec_t;
typedef unsigned long long cudaGraphConditionalHandle;

struct cudaKernelNodeParams {
    void *func;
    dim3 gridDim, blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams, **extra;
};
/* The kernel's parameters inside cudaGraphNodeParams's union, where a member
   needs a trivial constructor: uint3 for the sizes (set .x, .y, .z). */
struct cudaKernelNodeParamsV2 {
    void *func;
    uint3 gridDim, blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams, **extra;
};
struct cudaMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value, elementSize;
    size_t width, height;
};
struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void *userData;
};
struct cudaMemAccessDesc {
    struct cudaMemLocation location;
    int flags;
};
struct cudaMemAllocNodeParams {
    struct cudaMemPoolProps poolProps;
    const struct cudaMemAccessDesc *accessDescs;
    size_t accessDescCount, bytesize;
    void *dptr; /* out */
};
struct cudaMemFreeNodeParams {
    void *dptr;
};
struct cudaMemcpyNodeParams {
    int flags, reserved[3];
    struct cudaMemcpy3DParms copyParams;
};
struct cudaChildGraphNodeParams {
    cudaGraph_t graph;
};
struct cudaEventRecordNodeParams {
    cudaEvent_t event;
};
struct cudaEventWaitNodeParams {
    cudaEvent_t event;
};
struct cudaConditionalNodeParams {
    cudaGraphConditionalHandle handle;
    enum cudaGraphConditionalNodeType type;
    unsigned int size;
    cudaGraph_t *phGraph_out; /* out: the node's body graphs, owned by the node */
};
struct cudaGraphEdgeData {
    unsigned char from_port, to_port, type, reserved[5];
};
struct cudaGraphExecUpdateResultInfo {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode, errorFromNode;
};
struct cudaGraphNodeParams {
    enum cudaGraphNodeType type;
    int reserved0[3];
    union {
        long long reserved1[29];
        struct cudaKernelNodeParamsV2 kernel;
        struct cudaMemcpyNodeParams memcpy;
        struct cudaMemsetParams memset;
        struct cudaHostNodeParams host;
        struct cudaChildGraphNodeParams graph;
        struct cudaEventWaitNodeParams eventWait;
        struct cudaEventRecordNodeParams eventRecord;
        struct cudaMemAllocNodeParams alloc;
        struct cudaMemFreeNodeParams free;
        struct cudaConditionalNodeParams conditional;
    };
    long long reserved2;
};

/* ---- The machinery. */
struct gpuh_sim_graph_node {
    enum cudaGraphNodeType type;
    gpuh_sim_graph *owner;
    std::vector<gpuh_sim_graph_node *> deps;
    const gpuh_sim_graph_node *origin; /* in an instantiation: the node it was copied from */
    gpuh_sim_impl::stream_work work;   /* captured work, or NULL */
    cudaKernelNodeParams kernel;
    cudaMemcpy3DParms copy;
    cudaMemsetParams set;
    cudaHostNodeParams host;
    cudaEvent_t event;
    cudaConditionalNodeParams cond;
    std::vector<std::unique_ptr<gpuh_sim_graph>> bodies; /* child graph, conditional bodies */
    std::vector<cudaGraph_t> body_handles;
    std::shared_ptr<gpuh_sim_impl_graph_block> memory; /* an allocation node's block */
    void *dptr;                                        /* a free node's pointer */
};
struct gpuh_sim_graph {
    std::vector<std::unique_ptr<gpuh_sim_graph_node>> nodes;
    std::vector<cudaGraphConditionalHandle> handles; /* created for this graph, reset at each launch */
    std::vector<std::shared_ptr<gpuh_sim_impl_graph_block>> memory; /* kept while the graph lives */
};
struct gpuh_sim_graph_exec {
    std::unique_ptr<gpuh_sim_graph> g;
};

namespace gpuh_sim_impl {
struct graph_state {
    std::recursive_mutex m;
    struct capture {
        cudaGraph_t graph;
        unsigned long long id;
        cudaStream_t origin;
        enum cudaStreamCaptureMode mode;
        bool invalidated = false; /* a call the capture cannot take was made: EndCapture fails */
        bool owned = false;       /* the graph is the capture's own (cudaStreamBeginCapture) */
    };
    /* a capturing stream, or an event recorded in one: the capture and the nodes next work depends on */
    struct point {
        std::shared_ptr<capture> c;
        std::vector<cudaGraphNode_t> deps;
    };
    std::map<cudaStream_t, point> streams;
    std::map<cudaEvent_t, point> events;
    unsigned long long next_id = 1;
    struct handle {
        unsigned value, initial;
        bool reset;
    };
    std::deque<handle> handles;
    size_t mem_current = 0, mem_high = 0;
    std::map<void *, std::weak_ptr<gpuh_sim_impl_graph_block>> blocks;
};
inline graph_state &graphs()
{
    static graph_state s;
    return s;
}
inline gpuh_sim_graph_node *graph_add(cudaGraph_t g, enum cudaGraphNodeType type, const cudaGraphNode_t *deps,
                                      size_t n)
{
    std::unique_ptr<gpuh_sim_graph_node> node(new gpuh_sim_graph_node());
    node->type = type;
    node->owner = g;
    node->origin = NULL;
    node->event = NULL;
    node->dptr = NULL;
    if (deps != NULL)
        node->deps.assign(deps, deps + n);
    g->nodes.push_back(std::move(node));
    return g->nodes.back().get();
}
/* Counts a graph block as the simulator's device memory again, or no more. */
inline void graph_block_live(gpuh_sim_impl_graph_block &b, bool live)
{
    if (b.live == live)
        return;
    {
        std::lock_guard<std::mutex> g(runtime_state().m);
        if (live) {
            alloc_info a = {b.bytes, cudaMemoryTypeDevice, true};
            runtime_state().allocs[reinterpret_cast<uintptr_t>(b.p)] = a;
            runtime_state().used += b.bytes;
        } else {
            runtime_state().allocs.erase(reinterpret_cast<uintptr_t>(b.p));
            runtime_state().used -= b.bytes;
        }
    }
    b.live = live;
    graph_state &s = graphs();
    s.mem_current = live ? s.mem_current + b.bytes : s.mem_current - b.bytes;
    s.mem_high = std::max(s.mem_high, s.mem_current);
}
/* A new graph block; the graph (and every copy of it) holds it. */
inline std::shared_ptr<gpuh_sim_impl_graph_block> graph_memory(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess)
        return std::shared_ptr<gpuh_sim_impl_graph_block>();
    graph_state &s = graphs();
    std::lock_guard<std::recursive_mutex> g(s.m);
    s.mem_current += bytes;
    s.mem_high = std::max(s.mem_high, s.mem_current);
    std::shared_ptr<gpuh_sim_impl_graph_block> b(new gpuh_sim_impl_graph_block{p, bytes, true},
                                                 [](gpuh_sim_impl_graph_block *q) {
                                                     std::lock_guard<std::recursive_mutex> h(graphs().m);
                                                     graph_block_live(*q, false);
                                                     graphs().blocks.erase(q->p);
                                                     free(q->p); /* the simulator's allocations are malloc's */
                                                     delete q;
                                                 });
    s.blocks[p] = b;
    return b;
}
inline void graph_copy(const gpuh_sim_graph &from, gpuh_sim_graph &to);
inline void node_copy(const gpuh_sim_graph_node &from, gpuh_sim_graph_node &to)
{
    to.type = from.type;
    to.work = from.work;
    to.kernel = from.kernel;
    to.copy = from.copy;
    to.set = from.set;
    to.host = from.host;
    to.event = from.event;
    to.cond = from.cond;
    to.memory = from.memory;
    to.dptr = from.dptr;
    to.origin = from.origin ? from.origin : &from;
    for (const std::unique_ptr<gpuh_sim_graph> &b : from.bodies) {
        to.bodies.emplace_back(new gpuh_sim_graph());
        graph_copy(*b, *to.bodies.back());
        to.body_handles.push_back(to.bodies.back().get());
    }
    to.cond.phGraph_out = to.body_handles.empty() ? NULL : to.body_handles.data();
}
inline void graph_copy(const gpuh_sim_graph &from, gpuh_sim_graph &to)
{
    std::map<const gpuh_sim_graph_node *, gpuh_sim_graph_node *> map;
    for (const std::unique_ptr<gpuh_sim_graph_node> &n : from.nodes) {
        gpuh_sim_graph_node *c = graph_add(&to, n->type, NULL, 0);
        node_copy(*n, *c);
        map[n.get()] = c;
    }
    for (size_t i = 0; i < from.nodes.size(); ++i)
        for (gpuh_sim_graph_node *d : from.nodes[i]->deps)
            to.nodes[i]->deps.push_back(map.count(d) ? map[d] : d);
    to.handles = from.handles;
    to.memory = from.memory;
}
/* A kernel node's launch, its arguments copied now (as cudaGraphAddKernelNode does). */
inline cudaError_t kernel_node_bind(gpuh_sim_graph_node &n, const cudaKernelNodeParams &p)
{
    stream_work w = bind_kernel(p.func, p.gridDim, p.blockDim, p.sharedMemBytes, p.kernelParams);
    if (!w) {
        fprintf(stderr, "gpuh sim: a graph's kernel node of %p: not a kernel gpuh-simcc registered (a template kernel "
                        "is registered by a typed cudaLaunchKernel(kernel<T>, ...) first)\n", p.func);
        return record_error(cudaErrorInvalidDeviceFunction);
    }
    n.kernel = p;
    n.work = w;
    return cudaSuccess;
}
/* The nodes in an order that respects every dependency (Kahn's, by insertion order). */
inline std::vector<gpuh_sim_graph_node *> graph_order(const gpuh_sim_graph &g)
{
    std::vector<gpuh_sim_graph_node *> order, left;
    for (const std::unique_ptr<gpuh_sim_graph_node> &n : g.nodes)
        left.push_back(n.get());
    while (!left.empty()) {
        bool moved = false;
        for (size_t i = 0; i < left.size(); ++i) {
            bool ready = true;
            for (gpuh_sim_graph_node *d : left[i]->deps)
                ready = ready && (d->owner != &g || std::find(order.begin(), order.end(), d) != order.end());
            if (ready) {
                order.push_back(left[i]);
                left.erase(left.begin() + static_cast<std::ptrdiff_t>(i));
                moved = true;
                break;
            }
        }
        if (!moved) /* a cycle: CUDA refuses it at instantiation */
            return std::vector<gpuh_sim_graph_node *>();
    }
    return order;
}
inline cudaError_t graph_run(const gpuh_sim_graph &g, cudaStream_t s);
inline cudaError_t node_run(const gpuh_sim_graph_node &n, cudaStream_t s)
{
    switch (n.type) {
    case cudaGraphNodeTypeKernel:
        n.work(s);
        return cudaGetLastError();
    case cudaGraphNodeTypeMemcpy:
        if (n.work) {
            n.work(s);
            return cudaGetLastError();
        }
        return cudaMemcpy3D(&n.copy);
    case cudaGraphNodeTypeMemset: {
        const cudaMemsetParams &p = n.set;
        for (size_t r = 0; r < p.height; ++r)
            for (size_t c = 0; c < p.width; ++c) {
                unsigned char *at = static_cast<unsigned char *>(p.dst) + r * p.pitch + c * p.elementSize;
                if (p.elementSize == 1)
                    *at = static_cast<unsigned char>(p.value);
                else if (p.elementSize == 2)
                    *reinterpret_cast<unsigned short *>(at) = static_cast<unsigned short>(p.value);
                else
                    *reinterpret_cast<unsigned *>(at) = p.value;
            }
        return cudaSuccess;
    }
    case cudaGraphNodeTypeHost:
        n.host.fn(n.host.userData);
        return cudaSuccess;
    case cudaGraphNodeTypeGraph: return graph_run(*n.bodies[0], s);
    case cudaGraphNodeTypeEventRecord: return cudaEventRecord(n.event, s);
    case cudaGraphNodeTypeConditional: {
        graph_state::handle &h = graphs().handles[n.cond.handle];
        if (n.cond.type == cudaGraphCondTypeWhile) {
            cudaError_t e = cudaSuccess;
            while (e == cudaSuccess && __atomic_load_n(&h.value, __ATOMIC_ACQUIRE) != 0)
                e = graph_run(*n.bodies[0], s);
            return e;
        }
        const unsigned v = __atomic_load_n(&h.value, __ATOMIC_ACQUIRE);
        const unsigned pick = n.cond.type == cudaGraphCondTypeIf ? (v != 0 ? 0u : 1u) : v;
        return pick < n.bodies.size() ? graph_run(*n.bodies[pick], s) : cudaSuccess;
    }
    case cudaGraphNodeTypeMemAlloc: {
        std::lock_guard<std::recursive_mutex> g(graphs().m);
        graph_block_live(*n.memory, true);
        return cudaSuccess;
    }
    case cudaGraphNodeTypeMemFree: {
        std::lock_guard<std::recursive_mutex> g(graphs().m);
        std::map<void *, std::weak_ptr<gpuh_sim_impl_graph_block>>::iterator it = graphs().blocks.find(n.dptr);
        std::shared_ptr<gpuh_sim_impl_graph_block> b = it == graphs().blocks.end() ? nullptr : it->second.lock();
        if (!b || !b->live)
            return cudaErrorInvalidValue;
        graph_block_live(*b, false);
        return cudaSuccess;
    }
    default: /* empty, event wait: nothing to do when work runs in order */
        if (n.work)
            n.work(s);
        return cudaSuccess;
    }
}
inline cudaError_t graph_run(const gpuh_sim_graph &g, cudaStream_t s)
{
    for (cudaGraphConditionalHandle h : g.handles)
        if (graphs().handles[h].reset)
            __atomic_store_n(&graphs().handles[h].value, graphs().handles[h].initial, __ATOMIC_RELEASE);
    for (gpuh_sim_graph_node *n : graph_order(g)) {
        const cudaError_t e = node_run(*n, s);
        if (e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

/* gpuh_sim.h's capture hook: work issued to a capturing stream becomes a
   node that depends on the stream's last ones; an event recorded there
   remembers them; a stream that waits for such an event joins the capture. */
inline bool capture_work(int kind, cudaStream_t stream, cudaEvent_t event, stream_work *work, void **ptr,
                         size_t bytes)
{
    graph_state &s = graphs();
    std::lock_guard<std::recursive_mutex> g(s.m);
    if (kind == CAPTURE_RELEASE) { /* a live graph block freed by the program */
        std::map<void *, std::weak_ptr<gpuh_sim_impl_graph_block>>::iterator b = s.blocks.find(*ptr);
        std::shared_ptr<gpuh_sim_impl_graph_block> block = b == s.blocks.end() ? nullptr : b->second.lock();
        if (!block || !block->live)
            return false;
        graph_block_live(*block, false);
        return true;
    }
    std::map<cudaStream_t, graph_state::point>::iterator it = s.streams.find(stream);
    if (kind == CAPTURE_EVENT_WAIT) {
        std::map<cudaEvent_t, graph_state::point>::iterator ev = s.events.find(event);
        if (ev == s.events.end() || ev->second.c->graph == NULL)
            return it != s.streams.end(); /* an event from outside the capture: nothing to wait for */
        if (it == s.streams.end()) {
            s.streams[stream] = ev->second; /* the stream joins the capture */
            return true;
        }
        for (cudaGraphNode_t d : ev->second.deps)
            if (std::find(it->second.deps.begin(), it->second.deps.end(), d) == it->second.deps.end())
                it->second.deps.push_back(d);
        return true;
    }
    if (it == s.streams.end())
        return false;
    if (kind == CAPTURE_QUERY) {
        if (it->second.c->invalidated)
            *ptr = &*it->second.c;
        return true;
    }
    if (kind == CAPTURE_UNSUPPORTED) {
        it->second.c->invalidated = true;
        return true;
    }
    if (it->second.c->invalidated) { /* an invalidated capture takes work and keeps none of it */
        if (kind == CAPTURE_ALLOC)
            *ptr = NULL;
        return true;
    }
    if (kind == CAPTURE_EVENT_RECORD) {
        s.events[event] = it->second;
        return true;
    }
    const enum cudaGraphNodeType type = kind == CAPTURE_ALLOC  ? cudaGraphNodeTypeMemAlloc
                                        : kind == CAPTURE_FREE ? cudaGraphNodeTypeMemFree
                                                               : cudaGraphNodeTypeKernel;
    gpuh_sim_graph_node *n = graph_add(it->second.c->graph, type, it->second.deps.data(), it->second.deps.size());
    if (kind == CAPTURE_ALLOC) {
        n->memory = graph_memory(bytes);
        if (!n->memory)
            return false;
        it->second.c->graph->memory.push_back(n->memory);
        *ptr = n->memory->p;
    } else if (kind == CAPTURE_FREE) {
        n->dptr = *ptr;
    } else {
        n->work = *work;
    }
    it->second.deps.assign(1, n);
    return true;
}
inline bool capture_installed()
{
    static const bool done = (capture_hook().store(&capture_work), true);
    return done;
}
template <class T> inline cudaError_t graph_arg(const T *p, const char *what)
{
    (void)what;
    return p == NULL ? record_error(cudaErrorInvalidValue) : cudaSuccess;
}
} /* namespace gpuh_sim_impl */

/* ---- Stream capture. */
inline cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                                 const cudaGraphEdgeData *, size_t n, enum cudaStreamCaptureMode mode)
{
    gpuh_sim_impl::graph_state &s = gpuh_sim_impl::graphs();
    std::lock_guard<std::recursive_mutex> g(s.m);
    gpuh_sim_impl::capture_installed();
    if (graph == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (s.streams.count(stream))
        return gpuh_sim_impl::record_error(cudaErrorIllegalState);
    gpuh_sim_impl::graph_state::point p;
    p.c = std::make_shared<gpuh_sim_impl::graph_state::capture>();
    p.c->graph = graph;
    p.c->id = s.next_id++;
    p.c->origin = stream;
    p.c->mode = mode;
    if (deps != NULL)
        p.deps.assign(deps, deps + n);
    s.streams[stream] = p;
    return cudaSuccess;
}
inline cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    cudaGraph_t g = new gpuh_sim_graph();
    const cudaError_t e = cudaStreamBeginCaptureToGraph(stream, g, NULL, NULL, 0, mode);
    if (e != cudaSuccess) {
        delete g;
        return e;
    }
    std::lock_guard<std::recursive_mutex> lock(gpuh_sim_impl::graphs().m);
    gpuh_sim_impl::graphs().streams[stream].c->owned = true;
    return e;
}
/* Ends the capture begun on stream; every stream that joined it leaves it. *graph: the graph (unless it was the caller's).
   An invalidated capture (see cudaStreamSynchronize) ends with cudaErrorStreamCaptureInvalidated and *graph NULL. */
inline cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph)
{
    gpuh_sim_impl::graph_state &s = gpuh_sim_impl::graphs();
    std::lock_guard<std::recursive_mutex> g(s.m);
    std::map<cudaStream_t, gpuh_sim_impl::graph_state::point>::iterator it = s.streams.find(stream);
    if (it == s.streams.end())
        return gpuh_sim_impl::record_error(cudaErrorIllegalState);
    std::shared_ptr<gpuh_sim_impl::graph_state::capture> c = it->second.c;
    if (c->origin != stream)
        return gpuh_sim_impl::record_error(cudaErrorStreamCaptureUnmatched);
    for (std::map<cudaStream_t, gpuh_sim_impl::graph_state::point>::iterator j = s.streams.begin(); j != s.streams.end();)
        j = j->second.c == c ? s.streams.erase(j) : std::next(j);
    for (std::map<cudaEvent_t, gpuh_sim_impl::graph_state::point>::iterator j = s.events.begin(); j != s.events.end();)
        j = j->second.c == c ? s.events.erase(j) : std::next(j);
    if (c->invalidated) {
        if (c->owned)
            delete c->graph;
        c->graph = NULL;
        if (graph != NULL)
            *graph = NULL;
        return gpuh_sim_impl::record_error(cudaErrorStreamCaptureInvalidated);
    }
    if (graph != NULL)
        *graph = c->graph;
    c->graph = NULL;
    return cudaSuccess;
}
/* CUDA 13's form (with the edges' data, always NULL here) and CUDA 12's. */
inline cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                            unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                            const cudaGraphEdgeData **edges, size_t *n)
{
    gpuh_sim_impl::graph_state &s = gpuh_sim_impl::graphs();
    std::lock_guard<std::recursive_mutex> g(s.m);
    if (status == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    std::map<cudaStream_t, gpuh_sim_impl::graph_state::point>::iterator it = s.streams.find(stream);
    *status = it == s.streams.end()      ? cudaStreamCaptureStatusNone
              : it->second.c->invalidated ? cudaStreamCaptureStatusInvalidated
                                          : cudaStreamCaptureStatusActive;
    if (it == s.streams.end())
        return cudaSuccess;
    if (id != NULL)
        *id = it->second.c->id;
    if (graph != NULL)
        *graph = it->second.c->graph;
    if (deps != NULL)
        *deps = it->second.deps.data();
    if (edges != NULL)
        *edges = NULL;
    if (n != NULL)
        *n = it->second.deps.size();
    return cudaSuccess;
}
inline cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *status,
                                            unsigned long long *id = NULL, cudaGraph_t *graph = NULL,
                                            const cudaGraphNode_t **deps = NULL, size_t *n = NULL)
{
    return cudaStreamGetCaptureInfo(stream, status, id, graph, deps, NULL, n);
}
inline cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *nodes,
                                                       const cudaGraphEdgeData *, size_t n, unsigned int flags)
{
    gpuh_sim_impl::graph_state &s = gpuh_sim_impl::graphs();
    std::lock_guard<std::recursive_mutex> g(s.m);
    std::map<cudaStream_t, gpuh_sim_impl::graph_state::point>::iterator it = s.streams.find(stream);
    if (it == s.streams.end())
        return gpuh_sim_impl::record_error(cudaErrorIllegalState);
    if (flags == cudaStreamSetCaptureDependencies)
        it->second.deps.clear();
    it->second.deps.insert(it->second.deps.end(), nodes, nodes + n);
    return cudaSuccess;
}
inline cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *nodes, size_t n,
                                                       unsigned int flags = 0)
{
    return cudaStreamUpdateCaptureDependencies(stream, nodes, NULL, n, flags);
}
/* Capture modes restrict which calls other threads may make during a capture; the simulator does not police them. */
inline cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    return mode == NULL ? gpuh_sim_impl::record_error(cudaErrorInvalidValue) : cudaSuccess;
}

/* ---- Graphs and nodes. */
inline cudaError_t cudaGraphCreate(cudaGraph_t *graph, unsigned int flags)
{
    if (graph == NULL || flags != 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *graph = new gpuh_sim_graph();
    return cudaSuccess;
}
inline cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    if (graph == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    delete graph;
    return cudaSuccess;
}
inline cudaError_t cudaGraphClone(cudaGraph_t *clone, cudaGraph_t graph)
{
    if (clone == NULL || graph == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *clone = new gpuh_sim_graph();
    gpuh_sim_impl::graph_copy(*graph, **clone);
    return cudaSuccess;
}
/* Any node from its parameters (params->type says which). A conditional node's
   body graphs come back in params->conditional.phGraph_out. */
inline cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                    const cudaGraphEdgeData *, size_t n, struct cudaGraphNodeParams *params)
{
    if (node == NULL || graph == NULL || params == NULL || (n > 0 && deps == NULL))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_graph_node *x = gpuh_sim_impl::graph_add(graph, params->type, deps, n);
    switch (params->type) {
    case cudaGraphNodeTypeKernel: {
        const cudaKernelNodeParamsV2 &k = params->kernel;
        cudaKernelNodeParams p;
        p.func = k.func;
        p.gridDim = dim3(k.gridDim.x, k.gridDim.y, k.gridDim.z);
        p.blockDim = dim3(k.blockDim.x, k.blockDim.y, k.blockDim.z);
        p.sharedMemBytes = k.sharedMemBytes;
        p.kernelParams = k.kernelParams;
        p.extra = k.extra;
        const cudaError_t e = gpuh_sim_impl::kernel_node_bind(*x, p);
        if (e != cudaSuccess) {
            graph->nodes.pop_back();
            return e;
        }
        break;
    }
    case cudaGraphNodeTypeMemcpy: x->copy = params->memcpy.copyParams; break;
    case cudaGraphNodeTypeMemset: x->set = params->memset; break;
    case cudaGraphNodeTypeHost: x->host = params->host; break;
    case cudaGraphNodeTypeEventRecord: x->event = params->eventRecord.event; break;
    case cudaGraphNodeTypeWaitEvent: x->event = params->eventWait.event; break;
    case cudaGraphNodeTypeGraph:
        x->bodies.emplace_back(new gpuh_sim_graph());
        gpuh_sim_impl::graph_copy(*params->graph.graph, *x->bodies.back());
        x->body_handles.push_back(x->bodies.back().get());
        break;
    case cudaGraphNodeTypeMemAlloc:
        x->memory = gpuh_sim_impl::graph_memory(params->alloc.bytesize);
        if (!x->memory)
            return gpuh_sim_impl::record_error(cudaErrorMemoryAllocation);
        graph->memory.push_back(x->memory);
        params->alloc.dptr = x->memory->p;
        break;
    case cudaGraphNodeTypeConditional: {
        const unsigned bodies = params->conditional.type == cudaGraphCondTypeIf ? params->conditional.size : 1;
        if (params->conditional.type == cudaGraphCondTypeSwitch)
            x->cond.size = params->conditional.size;
        if (params->conditional.handle >= gpuh_sim_impl::graphs().handles.size() || bodies < 1 ||
            (params->conditional.type == cudaGraphCondTypeIf && bodies > 2))
            return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
        x->cond = params->conditional;
        for (unsigned b = 0; b < (params->conditional.type == cudaGraphCondTypeSwitch ? params->conditional.size : bodies); ++b) {
            x->bodies.emplace_back(new gpuh_sim_graph());
            x->body_handles.push_back(x->bodies.back().get());
        }
        x->cond.phGraph_out = params->conditional.phGraph_out = x->body_handles.data();
        break;
    }
    case cudaGraphNodeTypeMemFree: x->dptr = params->free.dptr; break;
    default: break; /* empty */
    }
    *node = x;
    return cudaSuccess;
}
inline cudaError_t cudaGraphAddNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t n,
                                    struct cudaGraphNodeParams *params)
{
    return cudaGraphAddNode(node, graph, deps, NULL, n, params);
}
#define GPUH_IMPL_SIM_ADD_NODE(type_, field, value)                                                                    \
    struct cudaGraphNodeParams p;                                                                                      \
    memset(static_cast<void *>(&p), 0, sizeof p);                                                                      \
    p.type = type_;                                                                                                    \
    p.field = value;                                                                                                   \
    return cudaGraphAddNode(node, graph, deps, NULL, n, &p)
inline cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                          size_t n, const struct cudaKernelNodeParams *params)
{
    if (params == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const struct cudaKernelNodeParamsV2 k = {params->func, make_uint3(params->gridDim.x, params->gridDim.y, params->gridDim.z),
                                             make_uint3(params->blockDim.x, params->blockDim.y, params->blockDim.z),
                                             params->sharedMemBytes, params->kernelParams, params->extra};
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeKernel, kernel, k);
}
inline cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                          size_t n, const struct cudaMemcpy3DParms *params)
{
    if (params == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeMemcpy, memcpy.copyParams, *params);
}
/* A one-dimensional copy of bytes, as a 3D copy of one row. */
inline cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                            size_t n, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    struct cudaMemcpy3DParms c;
    memset(static_cast<void *>(&c), 0, sizeof c);
    c.srcPtr = make_cudaPitchedPtr(const_cast<void *>(src), bytes, bytes, 1);
    c.dstPtr = make_cudaPitchedPtr(dst, bytes, bytes, 1);
    c.extent = make_cudaExtent(bytes, 1, 1);
    c.kind = kind;
    return cudaGraphAddMemcpyNode(node, graph, deps, n, &c);
}
inline cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                          size_t n, const struct cudaMemsetParams *params)
{
    if (params == NULL || (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeMemset, memset, *params);
}
inline cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                        size_t n, const struct cudaHostNodeParams *params)
{
    if (params == NULL || params->fn == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeHost, host, *params);
}
inline cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                              size_t n, cudaGraph_t child)
{
    if (child == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeGraph, graph.graph, child);
}
inline cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps, size_t n)
{
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeEmpty, reserved0[0], 0);
}
inline cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                               size_t n, cudaEvent_t event)
{
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeEventRecord, eventRecord.event, event);
}
inline cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                             size_t n, cudaEvent_t event)
{
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeWaitEvent, eventWait.event, event);
}
/* The block is allocated now and params->dptr set (see the top of this file). */
inline cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                            size_t n, struct cudaMemAllocNodeParams *params)
{
    if (params == NULL || params->bytesize == 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    struct cudaGraphNodeParams p;
    memset(static_cast<void *>(&p), 0, sizeof p);
    p.type = cudaGraphNodeTypeMemAlloc;
    p.alloc = *params;
    const cudaError_t e = cudaGraphAddNode(node, graph, deps, NULL, n, &p);
    params->dptr = p.alloc.dptr;
    return e;
}
inline cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *node, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                           size_t n, void *dptr)
{
    GPUH_IMPL_SIM_ADD_NODE(cudaGraphNodeTypeMemFree, free.dptr, dptr);
}
#undef GPUH_IMPL_SIM_ADD_NODE
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                            const cudaGraphEdgeData *, size_t n)
{
    if (graph == NULL || (n > 0 && (from == NULL || to == NULL)))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    for (size_t i = 0; i < n; ++i)
        to[i]->deps.push_back(from[i]);
    return cudaSuccess;
}
inline cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                            size_t n)
{
    return cudaGraphAddDependencies(graph, from, to, NULL, n);
}
/* nodes NULL: *count is set to the number of nodes; else up to *count of them are stored. */
inline cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *count)
{
    if (graph == NULL || count == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (nodes != NULL)
        for (size_t i = 0; i < *count && i < graph->nodes.size(); ++i)
            nodes[i] = graph->nodes[i].get();
    *count = nodes != NULL ? std::min(*count, graph->nodes.size()) : graph->nodes.size();
    return cudaSuccess;
}
inline cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *type)
{
    if (node == NULL || type == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *type = node->type;
    return cudaSuccess;
}
inline cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *params)
{
    if (node == NULL || params == NULL || node->type != cudaGraphNodeTypeKernel || node->kernel.func == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue); /* a captured launch keeps no parameters here */
    *params = node->kernel;
    return cudaSuccess;
}
inline cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *params)
{
    if (node == NULL || params == NULL || node->type != cudaGraphNodeTypeKernel)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    return gpuh_sim_impl::kernel_node_bind(*node, *params);
}

/* ---- Conditional handles (compute capability 9.0; CUDA 12.3). */
inline cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *handle, cudaGraph_t graph,
                                                    unsigned int initial = 0, unsigned int flags = 0)
{
    if (handle == NULL || graph == NULL || flags > cudaGraphCondAssignDefault)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::graph_state &s = gpuh_sim_impl::graphs();
    std::lock_guard<std::recursive_mutex> g(s.m);
    gpuh_sim_impl::graph_state::handle h = {initial, initial, flags == cudaGraphCondAssignDefault};
    s.handles.push_back(h);
    *handle = s.handles.size() - 1;
    graph->handles.push_back(*handle);
    return cudaSuccess;
}
/* Device code: the value the conditional node reads when it runs. */
inline void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value)
{
    __atomic_store_n(&gpuh_sim_impl::graphs().handles[handle].value, value, __ATOMIC_RELEASE);
}

/* ---- Instantiation and launch. */
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags = 0)
{
    (void)flags;
    if (exec == NULL || graph == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::graph_order(*graph).size() != graph->nodes.size())
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue); /* a cycle */
    *exec = new gpuh_sim_graph_exec();
    (*exec)->g.reset(new gpuh_sim_graph());
    gpuh_sim_impl::graph_copy(*graph, *(*exec)->g);
    return cudaSuccess;
}
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *exec, cudaGraph_t graph, cudaGraphNode_t *error_node,
                                        char *log, size_t log_size)
{
    if (error_node != NULL)
        *error_node = NULL;
    if (log != NULL && log_size > 0)
        log[0] = 0;
    return cudaGraphInstantiate(exec, graph, 0ull);
}
inline cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *exec, cudaGraph_t graph, unsigned long long flags = 0)
{
    return cudaGraphInstantiate(exec, graph, flags);
}
inline cudaError_t cudaGraphExecDestroy(cudaGraphExec_t exec)
{
    if (exec == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    delete exec;
    return cudaSuccess;
}
inline cudaError_t cudaGraphUpload(cudaGraphExec_t exec, cudaStream_t)
{
    return exec == NULL ? gpuh_sim_impl::record_error(cudaErrorInvalidValue) : cudaSuccess;
}
/* Runs the graph's nodes in stream (captured as a child graph if stream captures). */
inline cudaError_t cudaGraphLaunch(cudaGraphExec_t exec, cudaStream_t stream)
{
    if (exec == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_WORK, stream, NULL,
                                [exec](cudaStream_t s) { cudaGraphLaunch(exec, s); }))
        return cudaSuccess;
    if (gpuh_sim_impl::sticky() != cudaSuccess)
        return gpuh_sim_impl::record_error(gpuh_sim_impl::sticky());
    const cudaError_t e = gpuh_sim_impl::graph_run(*exec->g, stream);
    return e == cudaSuccess ? cudaSuccess : gpuh_sim_impl::record_error(e);
}
/* The instantiated copy of node (a node of the graph exec was made from). */
inline gpuh_sim_graph_node *gpuh_impl_sim_exec_node(const gpuh_sim_graph &g, cudaGraphNode_t node)
{
    for (const std::unique_ptr<gpuh_sim_graph_node> &n : g.nodes) {
        if (n->origin == node)
            return n.get();
        for (const std::unique_ptr<gpuh_sim_graph> &b : n->bodies)
            if (gpuh_sim_graph_node *x = gpuh_impl_sim_exec_node(*b, node))
                return x;
    }
    return NULL;
}
inline cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                                    const struct cudaKernelNodeParams *params)
{
    gpuh_sim_graph_node *x = exec ? gpuh_impl_sim_exec_node(*exec->g, node) : NULL;
    if (x == NULL || params == NULL || x->type != cudaGraphNodeTypeKernel)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    return gpuh_sim_impl::kernel_node_bind(*x, *params);
}
/* Takes graph's parameters into exec when both have the same nodes, of the same types, in the same order. */
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, struct cudaGraphExecUpdateResultInfo *info)
{
    if (exec == NULL || graph == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    struct cudaGraphExecUpdateResultInfo r = {cudaGraphExecUpdateSuccess, NULL, NULL};
    if (exec->g->nodes.size() != graph->nodes.size())
        r.result = cudaGraphExecUpdateErrorTopologyChanged;
    for (size_t i = 0; r.result == cudaGraphExecUpdateSuccess && i < graph->nodes.size(); ++i)
        if (exec->g->nodes[i]->type != graph->nodes[i]->type || exec->g->nodes[i]->deps.size() != graph->nodes[i]->deps.size()) {
            r.result = exec->g->nodes[i]->type != graph->nodes[i]->type ? cudaGraphExecUpdateErrorNodeTypeChanged
                                                                        : cudaGraphExecUpdateErrorTopologyChanged;
            r.errorNode = graph->nodes[i].get();
        }
    if (info != NULL)
        *info = r;
    if (r.result != cudaGraphExecUpdateSuccess)
        return gpuh_sim_impl::record_error(cudaErrorGraphExecUpdateFailure);
    exec->g.reset(new gpuh_sim_graph());
    gpuh_sim_impl::graph_copy(*graph, *exec->g);
    return cudaSuccess;
}
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t exec, cudaGraph_t graph, cudaGraphNode_t *error_node,
                                       enum cudaGraphExecUpdateResult *result)
{
    struct cudaGraphExecUpdateResultInfo r;
    const cudaError_t e = cudaGraphExecUpdate(exec, graph, &r);
    if (error_node != NULL)
        *error_node = r.errorNode;
    if (result != NULL)
        *result = r.result;
    return e;
}

/* ---- Graph memory: what the graphs hold now (used = reserved here). */
inline cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value)
{
    if (value == NULL || device < 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const gpuh_sim_impl::graph_state &s = gpuh_sim_impl::graphs();
    const unsigned long long v = attr == cudaGraphMemAttrUsedMemCurrent || attr == cudaGraphMemAttrReservedMemCurrent
                                     ? s.mem_current
                                     : s.mem_high;
    memcpy(value, &v, sizeof v);
    return cudaSuccess;
}
inline cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *)
{
    if (device < 0 || (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::graphs().mem_high = gpuh_sim_impl::graphs().mem_current; /* the high-water marks reset */
    return cudaSuccess;
}
inline cudaError_t cudaDeviceGraphMemTrim(int device)
{
    return device < 0 ? gpuh_sim_impl::record_error(cudaErrorInvalidValue) : cudaSuccess;
}
#endif /* GPUH_SIM_GRAPH_H */
