#include <stdio.h>

int main(void) {
	long long a, b;
	if (scanf("%lld %lld", &a, &b) != 2) return 1;
	volatile unsigned long long x = (unsigned long long)a;
	for (;;) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}
