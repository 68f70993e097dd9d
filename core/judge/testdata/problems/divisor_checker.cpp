// A testlib-protocol checker written without testlib.h: checker input output answer.
// The task: print a divisor d of n with 1 < d. d == 1 earns half the points (exit 7),
// anything else is WA. A missing answer file is the checker's own failure (exit 3).
#include <cstdio>
int main(int argc, char **argv) {
    if (argc < 4) return 3;
    FILE *in = std::fopen(argv[1], "r"), *out = std::fopen(argv[2], "r"), *ans = std::fopen(argv[3], "r");
    if (!in || !ans) { std::fprintf(stderr, "cannot open input or answer\n"); return 3; }
    long long n, d;
    if (std::fscanf(in, "%lld", &n) != 1) { std::fprintf(stderr, "bad input\n"); return 3; }
    if (!out || std::fscanf(out, "%lld", &d) != 1) { std::fprintf(stderr, "no number in the output\n"); return 2; }
    if (d == 1) { std::fprintf(stderr, "points 0.5 trivial divisor\n"); return 7; }
    if (d > 1 && n % d == 0) { std::fprintf(stderr, "ok %lld divides %lld\n", d, n); return 0; }
    std::fprintf(stderr, "wrong answer %lld does not divide %lld\n", d, n);
    return 1;
}
