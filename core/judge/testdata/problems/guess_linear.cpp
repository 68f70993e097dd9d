#include <cstdio>
int main() {
    for (int g = 1; g <= 1000; g++) {
        std::printf("%d\n", g); std::fflush(stdout);
        char r[4];
        if (std::scanf("%3s", r) != 1 || r[0] == '=') return 0;
    }
}
