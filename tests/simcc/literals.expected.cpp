#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// Comments, string and character literals (escapes, prefixes u8, u, U, L) and
// preprocessor lines are the lexer's: nothing in them is a launch.
#include <cstdio> // k<<<1, 1>>>(0)
#define QUOTE '"'
#define TEXT "k<<<1, 1>>>(0) \" still a string"
#pragma message("it's k<<<1, 1>>>")
__global__ void k(int *p) {}

/* k<<<1, 1>>>(p); "
   */
void run(int *p)
{
    const char *s = "k<<<1, 1>>>(p); \\"; char q = '"', e = '\'';
    const char *u = u8"<<<", *t = "\x22"; const char16_t *w = u"'>>>"; const char32_t *x = U"\"";
    wchar_t l = L'\'';
    GPUH_SIM_KERNEL_CALL(k, 1, 1, 0, 0, p); // k<<<2, 2>>>(p);
    GPUH_SIM_KERNEL_CALL(k, 1, 2, 0, 0, p);
    printf("%s%c%c%s%s", s, q, e, u, t); (void)w; (void)x; (void)l;
}

static const int gpuh_sim_kernel_k = GPUH_SIM_REGISTER_KERNEL(k);
