#include <stdio.h>
#include <stdlib.h>
int main(void) {
    size_t n = (size_t)1 << 30;
    volatile char *p = malloc(n);
    if (!p) return 1;
    for (size_t i = 0; i < n; i += 4096) p[i] = 1;
    printf("%d\n", p[n / 2]);
    return 0;
}
