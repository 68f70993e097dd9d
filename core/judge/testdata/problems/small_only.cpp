// Correct while a + b stays small; wrong for the large subtask.
#include <cstdio>
int main() { long long a, b; std::scanf("%lld %lld", &a, &b); long long s = a + b; std::printf("%lld\n", s < 1000 ? s : s + 1); }
