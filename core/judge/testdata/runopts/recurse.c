#include <stdio.h>

/* Recurses n deep with 256 bytes of stack a level (25 MiB for 100000). */
static int down(int n) {
	volatile char pad[256];
	pad[0] = (char)n;
	if (n == 0)
		return pad[0];
	return down(n - 1) + pad[0];
}

int main(void) {
	int n;
	if (scanf("%d", &n) != 1)
		return 2;
	printf("%d\n", down(n) & 1);
	return 0;
}
