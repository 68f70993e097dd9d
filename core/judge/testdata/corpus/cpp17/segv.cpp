#include <cstdio>
int main() { volatile int *p = nullptr; *p = 42; std::printf("%d\n", *p); }
