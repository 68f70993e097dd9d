#include <stdio.h>

_Static_assert(sizeof(long long) == 8, "64-bit long long");

int main(void) {
	long long a, b;
	if (scanf("%lld %lld", &a, &b) != 2) return 1;
	printf("%lld\n", a + b);
	return 0;
}
