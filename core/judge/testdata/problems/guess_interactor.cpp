// Guess the number: the secret n (1..1000) is in the input file. The solution prints a
// guess per line; the interactor answers "<" (the secret is smaller), ">" or "=". More
// than 10 guesses is WA (exit 1), as is the solution hanging up early.
#include <cstdio>
int main(int argc, char **argv) {
    if (argc < 2) return 3;
    FILE *in = std::fopen(argv[1], "r");
    int n;
    if (!in || std::fscanf(in, "%d", &n) != 1) { std::fprintf(stderr, "bad input\n"); return 3; }
    for (int k = 1;; k++) {
        int g;
        if (std::scanf("%d", &g) != 1) { std::fprintf(stderr, "wrong answer: no guess %d\n", k); return 1; }
        if (k > 10) { std::fprintf(stderr, "wrong answer: too many guesses\n"); return 1; }
        if (g == n) { std::printf("=\n"); std::fflush(stdout); std::fprintf(stderr, "ok in %d guesses\n", k); return 0; }
        std::printf(g > n ? "<\n" : ">\n");
        std::fflush(stdout);
    }
}
