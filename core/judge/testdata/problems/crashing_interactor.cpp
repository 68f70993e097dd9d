// An interactor that crashes after the first guess.
#include <cstdio>
int main() { int g; if (std::scanf("%d", &g) == 1) { volatile int *p = nullptr; *p = g; } return 0; }
