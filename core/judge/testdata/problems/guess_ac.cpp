#include <cstdio>
int main() {
    int lo = 1, hi = 1000;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        std::printf("%d\n", mid); std::fflush(stdout);
        char r[4];
        if (std::scanf("%3s", r) != 1) return 0;
        if (r[0] == '=') return 0;
        if (r[0] == '<') hi = mid - 1; else lo = mid + 1;
    }
}
