// Raw strings: their text is never rewritten, and a " inside one hides no launch after it.
__global__ void k(const char *s) {}

static const char *help = R"(usage: a "quoted" k<<<1, 1>>>(x) stays
extern __shared__ float s[];
#if __CUDA_ARCH__
// not a comment, /* nor this */
)";
static const char *delim = R"end(a )" inside, and k<<<2, 2>>>(y);)end";
static const wchar_t *prefixed = LR"(")"; static const char *u8raw = u8R"x(")x";

void run(const char *p)
{
    k<<<1, 32>>>(R"(an argument with "quotes" and a
line break)");
    k<<<2, 64>>>(p);
}
