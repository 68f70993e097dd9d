#include <stdio.h>
#include <time.h>

/* Spins for the CPU milliseconds read from stdin, then says so. */
int main(void) {
	int ms;
	if (scanf("%d", &ms) != 1)
		return 2;
	clock_t end = (clock_t)ms * (CLOCKS_PER_SEC / 1000);
	volatile unsigned long x = 0;
	while (clock() < end)
		x++;
	puts("spun");
	return 0;
}
