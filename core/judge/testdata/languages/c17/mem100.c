#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The block escapes through a volatile global: the compiler may not elide it. */
char *volatile keep;

int main(void) {
	long long a, b;
	if (scanf("%lld %lld", &a, &b) != 2) return 1;
	size_t n = (size_t)100 << 20;
	char *p = malloc(n);
	if (p == NULL) return 1;
	keep = p;
	memset(p, (int)(a & 1) + 1, n);
	printf("%lld\n", a + b + keep[n - 1] - (a & 1) - 1);
	return 0;
}
