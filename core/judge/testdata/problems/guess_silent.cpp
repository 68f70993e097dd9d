// Never answers: waits for the interactor, which waits for it.
#include <cstdio>
int main() { char r[4]; std::scanf("%3s", r); return 0; }
