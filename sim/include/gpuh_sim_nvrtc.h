/* gpuh_sim_nvrtc.h - gpuh_module (GPUH_USE_NVRTC) on gpuh's CPU simulator.

   gpuh.h includes this file in its RUN-TIME COMPILATION section when
   GPUH_SIM is defined, in place of the NVRTC and driver-API calls; the
   section's argument checks, cache key, name lookup and caches are the same
   on both. Here:
   - gpuh_module_compile writes the source to a .cu file (the -D and -U
     options as #define and #undef lines after the simulator's headers, so
     that they reach the source and not gpuh_sim.h, then #line 1 "name" and
     the source as NVRTC would see it), followed by this file again, with
     GPUH_IMPL_SIM_MODULE defined: there it lists the module's kernels in a
     table the shared object exports, each with its parameters' sizes; the
     kernels gpuh-simcc registers at file scope (those of extern "C" and
     other non-template kernels) and one line per name expression. Then
         python3 tools/gpuh-simcc [--pch=$GPUH_MODULE_CACHE_DIR] -O0 -Wall
             -shared -fPIC -Wl,-Bsymbolic-functions <options> module.cu -o module.so
     and the compiler's messages become the log, written as NVRTC writes
     it (file(line): error: ...). -O0: a module is compiled while the
     program waits, and its kernels run on the CPU either way; most of the
     compile is the code of gpuh_sim.h's runtime (the weak functions each
     C++ file that includes it defines), not the source's. The shared
     object's bytes are the image the caches keep, under a key whose
     "device" is gpuh-simcc --identity (the compiler and the simulator's
     headers), asked once per process.
   - the image is written to a temporary file and dlopened (RTLD_NODELETE:
     its kernels stay registered with the simulator by address). The
     program must export the simulator's runtime (link with -rdynamic;
     CMake: ENABLE_EXPORTS), so that the module's code finds the program's
     simulator state, its allocations and streams, and not a second copy
     that would refuse the program's pointers as host memory: that state
     is data (the function-local statics and thread-locals of gpuh_sim.h's
     inline functions), which the dynamic linker finds in the program. The
     module's functions, its kernels and its copy of the runtime's code,
     bind to themselves (-Bsymbolic-functions), so that a program function
     exported under a kernel's name ("add") is never taken for the kernel.
     gpuh_module_compile refuses a program whose cudaMalloc is not in its
     dynamic symbol table.
   - gpuh_module_function finds a name expression by its text, any other
     name as cuModuleGetFunction does: the shared object's symbol of that
     name (an extern "C" name, or a mangled one), among the listed kernels.
   - gpuh_module_launch checks as on the GPU, then launches through the
     module's cudaLaunchKernel on the kernel's address.
   Needs at run time: python3 and a C++ compiler on PATH (gpuh-simcc's:
   $GPUH_SIMCC_CXX, else $CXX, else c++), and gpuh-simcc, found as
   $GPUH_SIMCC, else beside this header (../../tools in a checkout,
   ../../bin installed). Each is checked with an error saying what is
   missing. Linux (dlopen, the shell). */
#ifndef GPUH_SIM_NVRTC_H
#define GPUH_SIM_NVRTC_H

#define GPUH_IMPL_SIM_MODULE_MAX_PARAMS 64   /* as GPUH_MODULE_MAX_ARGS */
#define GPUH_IMPL_SIM_MODULE_MAX_KERNELS 256 /* kernels a module lists; more are not found by name */

/* A kernel as a module's shared object lists it, read by the program. */
typedef struct gpuh_impl_sim_module_kernel {
    const char *name; /* the kernel's name as gpuh-simcc registers it, or a name expression */
    const void *key;  /* its address, by which the simulator's launches know it */
    cudaError_t (*launch)(const void *key, dim3 grid, dim3 block, void **args, size_t shmem, cudaStream_t stream);
    int num_params; /* -1: more than GPUH_IMPL_SIM_MODULE_MAX_PARAMS */
    size_t param_bytes[GPUH_IMPL_SIM_MODULE_MAX_PARAMS];
} gpuh_impl_sim_module_kernel;

#ifdef GPUH_IMPL_SIM_MODULE
/* ---- The module's side (C++, compiled into its shared object) ---- */
namespace {
gpuh_impl_sim_module_kernel gpuh_impl_sim_module_table_v[GPUH_IMPL_SIM_MODULE_MAX_KERNELS];
int gpuh_impl_sim_module_count_v;

cudaError_t gpuh_impl_sim_module_launch(const void *key, dim3 grid, dim3 block, void **args, size_t shmem,
                                        cudaStream_t stream)
{
    return cudaLaunchKernel(key, grid, block, args, shmem, stream);
}

/* Lists kernel under name, registered with the simulator by its address. */
template <class... P> int gpuh_impl_sim_module_add(const char *name, void (*kernel)(P...))
{
    const size_t bytes[] = {sizeof(P)..., 0};
    GPUH_SIM_REGISTER_KERNEL(kernel);
    if (gpuh_impl_sim_module_count_v == GPUH_IMPL_SIM_MODULE_MAX_KERNELS)
        return 0;
    gpuh_impl_sim_module_kernel &e = gpuh_impl_sim_module_table_v[gpuh_impl_sim_module_count_v++];
    e.name = name;
    e.key = gpuh_sim_impl::key_of(kernel);
    e.launch = &gpuh_impl_sim_module_launch;
    e.num_params = sizeof...(P) <= GPUH_IMPL_SIM_MODULE_MAX_PARAMS ? static_cast<int>(sizeof...(P)) : -1;
    for (size_t i = 0; i < sizeof...(P) && i < GPUH_IMPL_SIM_MODULE_MAX_PARAMS; ++i)
        e.param_bytes[i] = bytes[i];
    return 1;
}
} // namespace

extern "C" const gpuh_impl_sim_module_kernel *gpuh_impl_sim_module_kernels(int *count)
{
    *count = gpuh_impl_sim_module_count_v;
    return gpuh_impl_sim_module_table_v;
}

/* gpuh-simcc registers the file's kernels after the source, through this
   macro (GPUH_SIM_REGISTER_KERNEL(add)): here that lists them too. */
#undef GPUH_SIM_REGISTER_KERNEL
#define GPUH_SIM_REGISTER_KERNEL(kernel) gpuh_impl_sim_module_add(#kernel, kernel)

#else
/* ---- The program's side (C, part of gpuh.h's RUN-TIME COMPILATION) ---- */

GPUH_IMPL_SHARED unsigned gpuh_impl_sim_module_serial_v;   /* this process's temporary folders */
GPUH_IMPL_SHARED char gpuh_impl_sim_module_identity_v[64]; /* gpuh-simcc --identity, once asked */

/* Appends s to the shell command cmd (size bytes) in single quotes; 0 when
   it does not fit. */
GPUH_DEF int gpuh_impl_sim_arg(char *cmd, size_t size, const char *s)
{
    size_t n = strlen(cmd);
    if (n + 3 > size)
        return 0;
    cmd[n++] = ' ';
    cmd[n++] = '\'';
    for (; *s != '\0'; ++s) {
        if (n + 5 > size)
            return 0;
        if (*s == '\'') {
            memcpy(cmd + n, "'\\''", 4); /* close, an escaped quote, open again */
            n += 4;
        } else {
            cmd[n++] = *s;
        }
    }
    if (n + 2 > size)
        return 0;
    cmd[n++] = '\'';
    cmd[n] = '\0';
    return 1;
}

/* 1 if the program `name` is on PATH (with a slash in it: that file). */
GPUH_DEF int gpuh_impl_sim_on_path(const char *name)
{
    const char *p = getenv("PATH");
    char file[4096];
    if (strchr(name, '/') != NULL)
        return access(name, X_OK) == 0;
    while (p != NULL && *p != '\0') {
        const char *end = strchr(p, ':');
        size_t n = strlen(p);
        if (end != NULL)
            n = end - p;
        if (n + strlen(name) + 2 <= sizeof file) {
            memcpy(file, n > 0 ? p : ".", n > 0 ? n : 1);
            file[n > 0 ? n : 1] = '/';
            memcpy(file + (n > 0 ? n : 1) + 1, name, strlen(name) + 1);
            if (access(file, X_OK) == 0)
                return 1;
        }
        p = end != NULL ? end + 1 : NULL;
    }
    return 0;
}

/* gpuh-simcc's path into path: $GPUH_SIMCC, else beside this header; 0 if none. */
GPUH_DEF int gpuh_impl_sim_simcc(char *path, size_t size)
{
    static const char *const beside[] = {"/../../tools/gpuh-simcc", "/../../bin/gpuh-simcc"};
    const char *env = getenv("GPUH_SIMCC"), *here = __FILE__, *slash = strrchr(here, '/');
    size_t dir = 1, i;
    if (env != NULL && env[0] != '\0') {
        snprintf(path, size, "%s", env);
        return access(path, R_OK) == 0;
    }
    if (slash != NULL)
        dir = slash - here;
    for (i = 0; i < 2; ++i) {
        if (dir + strlen(beside[i]) + 1 > size)
            return 0;
        memcpy(path, slash != NULL ? here : ".", dir);
        memcpy(path + dir, beside[i], strlen(beside[i]) + 1);
        if (access(path, R_OK) == 0)
            return 1;
    }
    return 0;
}

/* A new, empty folder for one compile or load into dir; 0 if none could be made. */
GPUH_DEF int gpuh_impl_sim_tmpdir(char *dir, size_t size)
{
    const char *tmp = getenv("TMPDIR");
    const long pid = getpid();
    int tries;
    for (tries = 0; tries < 100; ++tries) {
        unsigned serial;
        int n;
        GPUH_IMPL_LOCK();
        serial = gpuh_impl_sim_module_serial_v++;
        GPUH_IMPL_UNLOCK();
        n = snprintf(dir, size, "%s/gpuh-module-%ld-%u", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp", pid, serial);
        if (n < 0 || strlen(dir) + 32 > size) /* room for the file names put in it */
            return 0;
        if (mkdir(dir, 0700) == 0)
            return 1;
    }
    return 0;
}

/* The whole of a file, zero-terminated, its size in *bytes; NULL if unreadable. */
GPUH_DEF char *gpuh_impl_sim_read(const char *path, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    char *all = NULL;
    size_t n = 0, cap = 0;
    if (f == NULL)
        return NULL;
    for (;;) {
        if (n == cap) {
            char *more = gpuh_impl_new_chars(cap = 2 * cap + 65536);
            if (more == NULL) {
                free(all);
                fclose(f);
                return NULL;
            }
            if (n > 0)
                memcpy(more, all, n);
            free(all);
            all = more;
        }
        {
            const size_t got = fread(all + n, 1, cap - n, f);
            n += got;
            if (got == 0)
                break;
        }
    }
    fclose(f);
    all[n] = '\0';
    *bytes = n;
    return all;
}

/* Runs the shell command cmd with its output going to dir/output, which it
   returns (a new string, "" if none) in *output; 1 if it exited with 0. */
GPUH_DEF int gpuh_impl_sim_run(char *cmd, size_t size, const char *dir, char **output)
{
    char out[4160];
    size_t bytes = 0;
    int ok;
    snprintf(out, sizeof out, "%s/output", dir);
    ok = strlen(cmd) + 3 < size;
    if (ok) {
        strcat(cmd, " >");
        ok = gpuh_impl_sim_arg(cmd, size, out) && strlen(cmd) + 6 < size;
    }
    if (ok)
        strcat(cmd, " 2>&1");
    ok = ok && system(cmd) == 0;
    *output = gpuh_impl_sim_read(out, &bytes);
    if (*output == NULL)
        *output = gpuh_impl_new_chars(0);
    remove(out);
    return ok;
}

/* gpuh-simcc's path into simcc (simcc_size bytes), or an error naming what
   is missing: python3 on PATH, or gpuh-simcc where it is looked for. */
GPUH_DEF cudaError_t gpuh_impl_sim_tools(char *simcc, size_t simcc_size)
{
    if (!gpuh_impl_sim_on_path("python3"))
        return gpuh_fail(cudaErrorNotSupported, "gpuh_module_compile: on the simulator a module is compiled by "
                                                "tools/gpuh-simcc, which needs python3 on PATH: there is none");
    if (!gpuh_impl_sim_simcc(simcc, simcc_size))
        return gpuh_fail(cudaErrorNotSupported, "gpuh_module_compile: gpuh-simcc is not at %s (set GPUH_SIMCC to "
                                                "its path)",
                         simcc);
    return cudaSuccess;
}

/* What a module's image depends on besides its source, for the cache key:
   "gpuh-sim " and gpuh-simcc --identity (the compiler and the simulator's
   headers), asked once per process. */
GPUH_DEF cudaError_t gpuh_impl_sim_identity(char *arch, size_t size)
{
    char simcc[4096], dir[4096], cmd[8400], *out = NULL;
    int ok;
    cudaError_t err;
    GPUH_IMPL_LOCK();
    snprintf(arch, size, "gpuh-sim %s", gpuh_impl_sim_module_identity_v);
    GPUH_IMPL_UNLOCK();
    if (strlen(arch) > 9)
        return cudaSuccess;
    if ((err = gpuh_impl_sim_tools(simcc, sizeof simcc)) != cudaSuccess)
        return err;
    if (!gpuh_impl_sim_tmpdir(dir, sizeof dir))
        return gpuh_fail(cudaErrorUnknown, "gpuh_module_compile: no temporary folder could be made in $TMPDIR or /tmp");
    snprintf(cmd, sizeof cmd, "python3");
    ok = gpuh_impl_sim_arg(cmd, sizeof cmd, simcc) && gpuh_impl_sim_arg(cmd, sizeof cmd, "--identity");
    ok = gpuh_impl_sim_run(cmd, sizeof cmd, dir, &out) && ok;
    rmdir(dir);
    if (out == NULL)
        return gpuh_fail(cudaErrorMemoryAllocation, "gpuh_module_compile: no memory for gpuh-simcc's output");
    out[strcspn(out, "\r\n")] = '\0';
    if (!ok || strlen(out) < 8 || strlen(out) + 1 > sizeof gpuh_impl_sim_module_identity_v) {
        err = gpuh_fail(cudaErrorUnknown, "gpuh_module_compile: %s --identity failed: %s", simcc, out);
        free(out);
        return err;
    }
    GPUH_IMPL_LOCK();
    snprintf(gpuh_impl_sim_module_identity_v, sizeof gpuh_impl_sim_module_identity_v, "%s", out);
    GPUH_IMPL_UNLOCK();
    snprintf(arch, size, "gpuh-sim %s", out);
    free(out);
    return cudaSuccess;
}

/* The compiler's output as NVRTC writes its log (a new string, or NULL):
   the temporary source's path becomes name, "file:line:column: " at the
   start of a line "file(line): ", and g++'s "file: In function ...:"
   lines, which NVRTC has not, are left out. */
GPUH_DEF char *gpuh_impl_sim_log(const char *out, const char *path, const char *name)
{
    const size_t np = strlen(path), nn = strlen(name);
    char *named = gpuh_impl_new_chars(strlen(out) + (strlen(out) / np + 1) * nn), *log;
    const char *p;
    size_t n = 0;
    if (named == NULL)
        return NULL;
    for (p = out; *p != '\0';) {
        if (strncmp(p, path, np) == 0) {
            memcpy(named + n, name, nn);
            n += nn;
            p += np;
        } else {
            named[n++] = *p++;
        }
    }
    named[n] = '\0';
    if ((log = gpuh_impl_new_chars(n)) == NULL) {
        free(named);
        return NULL;
    }
    for (p = named, n = 0; *p != '\0';) {
        const size_t file = strcspn(p, ": \n");
        const char *at = p + file;
        if (file > 0 && at[0] == ':' && at[1] == ' ') { /* file: In function 'void add(int*)': */
            p = at + strcspn(at, "\n");
            p += *p == '\n';
            continue;
        }
        if (file > 0 && at[0] == ':' && at[1] >= '0' && at[1] <= '9') {
            const size_t line = strspn(at + 1, "0123456789");
            const char *col = at + 1 + line;
            const size_t cols = col[0] == ':' ? strspn(col + 1, "0123456789") : 0;
            if (cols > 0 && col[1 + cols] == ':' && col[2 + cols] == ' ') {
                memcpy(log + n, p, file);
                log[n + file] = '(';
                memcpy(log + n + file + 1, at + 1, line);
                memcpy(log + n + file + 1 + line, "):", 2);
                n += file + line + 3;
                p = col + 2 + cols;
            }
        }
        while (*p != '\0' && *p != '\n') /* the rest of the line */
            log[n++] = *p++;
        if (*p == '\n')
            log[n++] = *p++;
    }
    log[n] = '\0';
    free(named);
    return log;
}

/* How the simulator takes the NVRTC option o: 'D' (-D, --define-macro=),
   'U' (-U, --undefine-macro=), 'I' (-I, --include-path=), 's' (-std=,
   --std=), 'w' (-w, --disable-warnings), 'x' (one of the GPU's code
   generation options: unused), 0 (unknown). *value: what follows the
   option's name. */
GPUH_DEF int gpuh_impl_sim_option(const char *o, const char **value)
{
    static const char *const valued[] = {"D",  "--define-macro=",   "U", "--undefine-macro=",
                                         "I",  "--include-path=",   "s", "-std=",
                                         "s",  "--std=",            "D", "-D",
                                         "U",  "-U",                "I", "-I"};
    static const char *const unused[] = {"-arch=", "--gpu-architecture=", "-ftz=", "--ftz=", "-prec-div=",
                                         "--prec-div=", "-prec-sqrt=", "--prec-sqrt=", "-fmad=", "--fmad=",
                                         "-maxrregcount=", "--maxrregcount=", "-dopt=", "--dopt="};
    static const char *const flags[] = {"-use_fast_math", "--use_fast_math", "-lineinfo", "--generate-line-info",
                                        "-G", "--device-debug", "-restrict", "--restrict"};
    size_t i;
    *value = "";
    for (i = 0; i < sizeof valued / sizeof valued[0]; i += 2)
        if (strncmp(o, valued[i + 1], strlen(valued[i + 1])) == 0) {
            *value = o + strlen(valued[i + 1]);
            return (*value)[0] != '\0' ? valued[i][0] : 0;
        }
    if (strcmp(o, "-w") == 0 || strcmp(o, "--disable-warnings") == 0)
        return 'w';
    for (i = 0; i < sizeof unused / sizeof unused[0]; ++i)
        if (strncmp(o, unused[i], strlen(unused[i])) == 0)
            return 'x';
    for (i = 0; i < sizeof flags / sizeof flags[0]; ++i)
        if (strcmp(o, flags[i]) == 0)
            return 'x';
    return 0;
}

/* Writes the module's source to path: the macros, the source as NVRTC
   sees it, the kernels' table and the name expressions; 0 on failure. */
GPUH_DEF int gpuh_impl_sim_write_source(const char *path, const gpuh_module_desc *desc, const char *name)
{
    FILE *f = fopen(path, "w");
    char *source = gpuh_impl_module_source(desc);
    int i, ok;
    if (f == NULL || source == NULL) {
        if (f != NULL)
            fclose(f);
        free(source);
        return 0;
    }
    for (i = 0; i < desc->num_options; ++i) {
        const char *value;
        const int kind = gpuh_impl_sim_option(desc->options[i], &value);
        if (kind == 'D') { /* -DN=1024 is #define N 1024; -DN, #define N 1 */
            const int eq = strcspn(value, "=");
            fprintf(f, "#define %.*s %s\n", eq, value, value[eq] == '=' ? value + eq + 1 : "1");
        } else if (kind == 'U') {
            fprintf(f, "#undef %s\n", value);
        }
    }
    fprintf(f, "#line 1 \"%s\"\n%s\n#define GPUH_IMPL_SIM_MODULE\n#include \"gpuh_sim_nvrtc.h\"\n"
               "#line 1 \"desc->name_expressions\"\n", name, source);
    for (i = 0; i < desc->num_name_expressions; ++i) {
        const char *e = desc->name_expressions[i];
        fprintf(f, "static const int gpuh_impl_sim_module_expression_%d = gpuh_impl_sim_module_add(\"", i);
        for (; *e != '\0'; ++e)
            fprintf(f, *e == '"' || *e == '\\' ? "\\%c" : "%c", *e);
        fprintf(f, "\", %s);\n", desc->name_expressions[i]);
    }
    ok = !ferror(f);
    ok = fclose(f) == 0 && ok;
    free(source);
    return ok;
}

/* Appends to cmd the options given to the compiler: -I, -std= and -w. */
GPUH_DEF int gpuh_impl_sim_pass_options(char *cmd, size_t size, const gpuh_module_desc *desc)
{
    int i, ok = 1;
    for (i = 0; ok && i < desc->num_options; ++i) {
        const char *value;
        const int kind = gpuh_impl_sim_option(desc->options[i], &value);
        char *opt = gpuh_impl_new_chars(strlen(value) + 8);
        if (opt == NULL)
            return 0;
        if (kind == 'I' || kind == 's' || kind == 'w') {
            snprintf(opt, strlen(value) + 8, "%s%s", kind == 'I' ? "-I" : kind == 's' ? "-std=" : "-w",
                     kind == 'w' ? "" : value);
            ok = gpuh_impl_sim_arg(cmd, size, opt);
        }
        free(opt);
    }
    return ok;
}

GPUH_DEF cudaError_t gpuh_impl_module_build(const gpuh_module_desc *desc, const char *arch_option,
                                            gpuh_impl_module_image *img, char **log)
{
    static const char *const fixed[] = {"-O0", "-Wall", "-shared", "-fPIC", "-Wl,-Bsymbolic-functions"};
    const char *cxx_env = getenv("GPUH_SIMCC_CXX") != NULL ? getenv("GPUH_SIMCC_CXX") : getenv("CXX");
    const char *cache = getenv("GPUH_MODULE_CACHE_DIR"), *name = desc->name != NULL ? desc->name : "gpuh_module.cu";
    char simcc[4096], dir[4096], src[4160], so[4160], pch[4200], cxx[256], *cmd, *out = NULL;
    size_t size = sizeof simcc + sizeof pch + 2 * sizeof src + 256, i, names_bytes = 0;
    int k, ok;
    cudaError_t err;
    (void)arch_option; /* one image runs on every simulated device */
    *log = NULL;
    snprintf(cxx, sizeof cxx, "%s", cxx_env != NULL && cxx_env[0] != '\0' ? cxx_env : "c++");
    cxx[strcspn(cxx, " ")] = '\0'; /* the compiler, without its options */
    if (!gpuh_impl_sim_on_path(cxx))
        return gpuh_fail(cudaErrorNotSupported, "gpuh_module_compile: on the simulator a module is compiled by the "
                                                "host C++ compiler, and %s is not on PATH (gpuh-simcc takes "
                                                "$GPUH_SIMCC_CXX, else $CXX, else c++)",
                         cxx);
    for (k = 0; k < desc->num_options; ++k) {
        const char *value;
        if (gpuh_impl_sim_option(desc->options[k], &value) == 0)
            return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: nvrtcCompileProgram failed with "
                                                    "NVRTC_ERROR_INVALID_OPTION: the simulator does not know the "
                                                    "option \"%s\"",
                             desc->options[k]);
        size += 4 * strlen(desc->options[k]) + 16;
    }
    if ((err = gpuh_impl_sim_tools(simcc, sizeof simcc)) != cudaSuccess)
        return err;
    if (!gpuh_impl_sim_tmpdir(dir, sizeof dir))
        return gpuh_fail(cudaErrorUnknown, "gpuh_module_compile: no temporary folder could be made in $TMPDIR or /tmp");
    snprintf(src, sizeof src, "%s/module.cu", dir);
    snprintf(so, sizeof so, "%s/module.so", dir);
    snprintf(pch, sizeof pch, "--pch=%s", cache != NULL ? cache : "");
    cmd = gpuh_impl_new_chars(size);
    /* python3 gpuh-simcc [--pch=$GPUH_MODULE_CACHE_DIR] fixed... options... module.cu -o module.so */
    ok = cmd != NULL && gpuh_impl_sim_write_source(src, desc, name);
    if (ok) {
        snprintf(cmd, size, "python3");
        ok = gpuh_impl_sim_arg(cmd, size, simcc) &&
             (cache == NULL || cache[0] == '\0' || gpuh_impl_sim_arg(cmd, size, pch));
    }
    for (i = 0; ok && i < sizeof fixed / sizeof fixed[0]; ++i)
        ok = gpuh_impl_sim_arg(cmd, size, fixed[i]);
    ok = ok && gpuh_impl_sim_pass_options(cmd, size, desc) && gpuh_impl_sim_arg(cmd, size, src) &&
         gpuh_impl_sim_arg(cmd, size, "-o") && gpuh_impl_sim_arg(cmd, size, so);
    if (!ok) {
        err = gpuh_fail(cudaErrorMemoryAllocation, "gpuh_module_compile: the module's source could not be written "
                                                   "to %s",
                        src);
    } else {
        const int built = gpuh_impl_sim_run(cmd, size, dir, &out);
        const char *text = (*log = gpuh_impl_sim_log(out, src, name)) != NULL ? *log : out;
        const char *bad = strstr(text, "desc->name_expressions("); /* line i + 1: expression i */
        const int e = bad != NULL ? atoi(bad + 23) - 1 : -1;
        if (!built && e >= 0 && e < desc->num_name_expressions)
            err = gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: the name expression \"%s\" names no "
                                                   "kernel of the source: %s",
                            desc->name_expressions[e], text);
        else if (!built)
            err = gpuh_fail(cudaErrorInvalidSource, "gpuh_module_compile: %s did not compile: %s", name, text);
    }
    free(cmd);
    free(out);
    if (err == cudaSuccess && (img->image = gpuh_impl_sim_read(so, &img->bytes)) == NULL)
        err = gpuh_fail(cudaErrorUnknown, "gpuh_module_compile: gpuh-simcc wrote no %s", so);
    /* the name pairs: on the simulator each expression is its own lowered name */
    for (k = 0; err == cudaSuccess && k < desc->num_name_expressions; ++k)
        names_bytes += 2 * strlen(desc->name_expressions[k]) + 2;
    if (err == cudaSuccess && (img->names = gpuh_impl_new_chars(names_bytes)) == NULL)
        err = gpuh_fail(cudaErrorMemoryAllocation, "gpuh_module_compile: no memory for the names");
    for (k = 0, names_bytes = 0; err == cudaSuccess && k < desc->num_name_expressions; ++k) {
        const size_t e = strlen(desc->name_expressions[k]) + 1;
        memcpy(img->names + names_bytes, desc->name_expressions[k], e);
        memcpy(img->names + names_bytes + e, desc->name_expressions[k], e);
        names_bytes += 2 * e;
    }
    img->names_bytes = names_bytes;
    img->num_names = desc->num_name_expressions;
    remove(src);
    remove(so);
    rmdir(dir);
    if (err != cudaSuccess) {
        free(img->image);
        free(img->names);
        img->image = img->names = NULL;
    }
    return err;
}

/* Loads img: written to a temporary file, dlopened, the file removed. */
GPUH_DEF cudaError_t gpuh_impl_sim_load(const gpuh_impl_module_image *img, void **dl)
{
    char dir[4096], so[4160];
    FILE *f;
    int ok;
    *dl = NULL;
    if (!gpuh_impl_sim_tmpdir(dir, sizeof dir))
        return gpuh_fail(cudaErrorUnknown, "gpuh_module_compile: no temporary folder could be made in $TMPDIR or /tmp");
    snprintf(so, sizeof so, "%s/module.so", dir);
    ok = (f = fopen(so, "wb")) != NULL && fwrite(img->image, 1, img->bytes, f) == img->bytes;
    ok = f != NULL && fclose(f) == 0 && ok;
    if (ok)
        *dl = dlopen(so, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    remove(so);
    rmdir(dir);
    if (*dl == NULL)
        return gpuh_fail(cudaErrorInvalidKernelImage, "gpuh_module_compile: the module's shared object did not "
                                                      "load: %s",
                         ok ? dlerror() : "it could not be written to a temporary file");
    return cudaSuccess;
}

/* 1 if the program exports the simulator's runtime (linked with -rdynamic):
   its own cudaMalloc is the one its dynamic symbol table gives. */
GPUH_DEF int gpuh_impl_sim_exported(void)
{
    cudaError_t (*own)(void **, size_t) = cudaMalloc;
    void *self = dlopen(NULL, RTLD_NOW), *seen = self != NULL ? dlsym(self, "cudaMalloc") : NULL, *mine = NULL;
    memcpy(&mine, &own, sizeof mine);
    if (self != NULL)
        dlclose(self);
    return seen != NULL && seen == mine;
}

/* gpuh_module_compile without its NVTX range. */
GPUH_DEF cudaError_t gpuh_impl_module_compile(gpuh_module **module, const gpuh_module_desc *desc)
{
    gpuh_impl_module_image img;
    char arch[80], *log = NULL;
    void *dl = NULL;
    int dev = 0;
    cudaError_t err = gpuh_impl_module_desc_check(module, desc);
    if (err != cudaSuccess)
        return err;
    if (!gpuh_impl_sim_exported())
        return gpuh_fail(cudaErrorNotSupported, "gpuh_module_compile: this program does not export the "
                                                "simulator's runtime (cudaMalloc is not in its dynamic symbol "
                                                "table), which the module's kernels must share: link it with "
                                                "-rdynamic (CMake: set_target_properties(prog PROPERTIES "
                                                "ENABLE_EXPORTS ON))");
    if ((err = cudaGetDevice(&dev)) != cudaSuccess)
        return gpuh_fail(err, "gpuh_module_compile: no current device: %s", cudaGetErrorString(err));
    if ((err = gpuh_impl_sim_identity(arch, sizeof arch)) != cudaSuccess)
        return err;
    if ((err = gpuh_impl_module_image_get(desc, arch, NULL, &img, &log)) != cudaSuccess)
        return err;
    err = gpuh_impl_sim_load(&img, &dl);
    free(img.image);
    if (err != cudaSuccess) {
        free(img.names);
        free(log);
        return err;
    }
    return gpuh_impl_module_new(module, dl, dev, &img, log);
}

GPUH_DEF cudaError_t gpuh_module_function(const gpuh_module *module, const char *name, gpuh_kernel *kernel)
{
    typedef const gpuh_impl_sim_module_kernel *(*table_fn)(int *);
    const gpuh_impl_sim_module_kernel *t = NULL, *found = NULL;
    const char *lowered;
    table_fn table = NULL;
    void *sym = NULL;
    int i, n = 0;
    cudaError_t err = gpuh_impl_module_function_check(module, name, kernel);
    if (err != cudaSuccess)
        return err;
    if ((sym = dlsym(module->handle, "gpuh_impl_sim_module_kernels")) != NULL) {
        memcpy(&table, &sym, sizeof table);
        t = table(&n);
    }
    /* a name expression by its text; another name as cuModuleGetFunction
       finds one: the symbol of that name (extern "C", or mangled) */
    lowered = gpuh_impl_module_lowered(module, name);
    sym = lowered == name ? dlsym(module->handle, name) : NULL;
    for (i = 0; i < n && found == NULL; ++i)
        if (lowered != name ? strcmp(t[i].name, lowered) == 0 : sym != NULL && t[i].key == sym)
            found = &t[i];
    if (found == NULL)
        return gpuh_impl_module_not_found(module, name);
    memcpy(&kernel->handle, &found, sizeof found);
    kernel->num_params = found->num_params;
    for (i = 0; i < found->num_params && i < GPUH_MODULE_MAX_ARGS; ++i)
        kernel->param_bytes[i] = found->param_bytes[i];
    return cudaSuccess;
}

GPUH_DEF cudaError_t gpuh_impl_module_launch_unranged(const gpuh_kernel *kernel, dim3 grid, dim3 block,
                                                      size_t shmem_bytes, cudaStream_t stream, const gpuh_arg *args,
                                                      int num_args, const char *file, int line)
{
    const gpuh_impl_sim_module_kernel *k;
    void *params[GPUH_MODULE_MAX_ARGS];
    int i;
    cudaError_t err = gpuh_impl_module_args_check(kernel, args, num_args, file, line);
    if (err != cudaSuccess || (err = gpuh_impl_module_launch_begin(kernel, grid, block, shmem_bytes, file, line)) !=
                                  cudaSuccess)
        return err;
    for (i = 0; i < num_args; ++i)
        memcpy(&params[i], &args[i].value, sizeof params[i]); /* the launch reads them only */
    memcpy(&k, &kernel->handle, sizeof k);
    if ((err = k->launch(k->key, grid, block, num_args > 0 ? params : NULL, shmem_bytes, stream)) != cudaSuccess)
        return gpuh_fail(err, "gpuh_module_launch of %s at %s:%d: %s", kernel->name, file, line,
                         cudaGetErrorString(err));
    return cudaSuccess;
}

GPUH_DEF cudaError_t gpuh_module_destroy(gpuh_module **module)
{
    if (module == NULL || *module == NULL)
        return cudaSuccess;
    dlclose((*module)->handle); /* RTLD_NODELETE: the code stays mapped */
    free((*module)->names);
    free((*module)->log);
    free(*module);
    *module = NULL;
    return cudaSuccess;
}

#endif /* GPUH_IMPL_SIM_MODULE */
#endif /* GPUH_SIM_NVRTC_H */
