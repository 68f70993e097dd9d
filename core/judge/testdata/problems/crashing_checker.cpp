// A checker that crashes: a broken checker must never pass a solution.
int main() { volatile int *p = nullptr; *p = 1; return 0; }
