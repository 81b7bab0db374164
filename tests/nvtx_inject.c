/* nvtx_inject.c - an NVTX injection library that records ranges, for the
   host.nvtx tests (tests/nvtx_ranges.c).

   NVTX3's loader (nvtx3/nvtxDetail/nvtxInit.h) dlopens the library named by
   NVTX_INJECTION64_PATH at a process's first NVTX call, calls its
   InitializeInjectionNvtx2(getExportTable), and from then on sends each
   NVTX call to the function pointers the library put in the module tables
   it got through the NVTX_ETID_CALLBACKS export table. This one fills the
   CORE2 module's domain create, range push and range pop slots (the ones
   gpuh's domain ranges use) and the CORE module's push and pop (ranges of no
   domain), and keeps one line per event:
       push <domain> <name> <depth after the push>
       pop <domain> <depth after the pop>
   nvtx_inject_log() returns the lines so far, nvtx_inject_clear() forgets them. */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <string.h>

#define MAX_DOMAINS 8

static char log_text[1 << 16];
static size_t log_len;
static char domain_names[MAX_DOMAINS][64];
static int domain_count;
static int depth;

static void record(const char *line)
{
    size_t n = strlen(line);
    if (log_len + n + 1 < sizeof log_text) {
        memcpy(log_text + log_len, line, n + 1);
        log_len += n;
    }
}

/* A domain handle is the address of its name's slot here, so a handle names its domain. */
static const char *domain_name(nvtxDomainHandle_t d)
{
    int i;
    for (i = 0; i < domain_count; ++i)
        if ((const void *)domain_names[i] == (const void *)d)
            return domain_names[i];
    return d == NULL ? "(none)" : "(unknown)";
}

static nvtxDomainHandle_t NVTX_API domain_create(const char *name)
{
    int i;
    for (i = 0; i < domain_count; ++i)
        if (strcmp(domain_names[i], name) == 0)
            return (nvtxDomainHandle_t)(void *)domain_names[i];
    if (domain_count == MAX_DOMAINS)
        return NULL;
    snprintf(domain_names[domain_count], sizeof domain_names[0], "%s", name);
    return (nvtxDomainHandle_t)(void *)domain_names[domain_count++];
}

static int push_named(const char *domain, const nvtxEventAttributes_t *a)
{
    char line[512]; /* room for both names as cut below */
    const char *name = a != NULL && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : "(not ASCII)";
    snprintf(line, sizeof line, "push %.200s %.200s %d\n", domain, name, ++depth);
    record(line);
    return depth - 1;
}

static int pop_named(const char *domain)
{
    char line[256];
    snprintf(line, sizeof line, "pop %.200s %d\n", domain, --depth);
    record(line);
    return depth;
}

static int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    return push_named(domain_name(d), a);
}
static int NVTX_API domain_pop(nvtxDomainHandle_t d) { return pop_named(domain_name(d)); }

static int NVTX_API core_push(const char *message)
{
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = message;
    return push_named("(none)", &a);
}
static int NVTX_API core_pop(void) { return pop_named("(none)"); }

/* Puts fn in slot `id` of module `module`'s table; 0 if the table has no such slot. */
static int attach(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module, unsigned id, NvtxFunctionPointer fn)
{
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!cb->GetModuleFunctionTable(module, &table, &size) || table == NULL || id >= size)
        return 0;
    *table[id] = fn;
    return 1;
}

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
    if (cb == NULL)
        return 0;
    return attach(cb, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, (NvtxFunctionPointer)domain_create) &&
           attach(cb, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, (NvtxFunctionPointer)domain_push) &&
           attach(cb, NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, (NvtxFunctionPointer)domain_pop) &&
           attach(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, (NvtxFunctionPointer)core_push) &&
           attach(cb, NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, (NvtxFunctionPointer)core_pop);
}

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
const char *nvtx_inject_log(void)
{
    return log_text;
}

#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
void nvtx_inject_clear(void)
{
    log_len = 0;
    log_text[0] = '\0';
}
