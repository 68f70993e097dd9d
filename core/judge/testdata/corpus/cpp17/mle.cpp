#include <vector>
#include <cstdio>
int main() { std::vector<char> v(1u << 30, 1); std::printf("%d\n", v[12345]); }
