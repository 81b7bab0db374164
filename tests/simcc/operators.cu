// Operator templates are no launches: operator<<, operator<, operator< <T>, operator<< <T>.
template <typename T> struct box { T v; };
template <typename T> bool operator<(const box<T> &a, const box<T> &b) { return a.v < b.v; }
template <typename T> box<T> operator<<(box<T> a, int s) { a.v <<= s; return a; }
template <> bool operator< <int>(const box<int> &a, const box<int> &b) { return a.v < b.v; }
template <> box<int> operator<< <int>(box<int> a, int s) { a.v = a.v << s; return a; }
template box<long> operator<< <long>(box<long>, int);
__global__ void k(int *p) {}

bool run(int *p)
{
    box<int> a{1}, b{2};
    k<<<1, 1>>>(p);
    return operator< <int>(a, b) && (operator<< <int>(a, 1)).v == 2;
}
