#include <stdio.h>
#include <stdlib.h>

int main(void) {
	long long a, b;
	if (scanf("%lld %lld", &a, &b) != 2) return 1;
	abort();
}
