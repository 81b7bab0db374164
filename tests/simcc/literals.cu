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
    k<<<1, 1>>>(p); // k<<<2, 2>>>(p);
    k<<</* one */ 1, 2 /* two, three */>>>(p);
    printf("%s%c%c%s%s", s, q, e, u, t); (void)w; (void)x; (void)l;
}
