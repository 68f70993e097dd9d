// A checker that reports its own failure (exit 3) on every case.
#include <cstdio>
int main() { std::fprintf(stderr, "fail: checker bug\n"); return 3; }
