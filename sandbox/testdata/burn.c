// Burns argv[1] ms of CPU in each of argv[2] threads (default: forever, 1 thread),
// measuring its own thread CPU clock; with "clock" as argv[3] it spins on clock_gettime
// (vDSO, no system call) instead.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static long ms = -1;
static int useclock;
static void *burn(void *p) {
	(void)p;
	struct timespec ts;
	volatile unsigned long x = 0;
	for (;;) {
		if (useclock) { clock_gettime(CLOCK_MONOTONIC, &ts); x += ts.tv_nsec; continue; }
		for (int i = 0; i < 100000; i++) x += i;
		if (ms >= 0) {
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
			if (ts.tv_sec * 1000 + ts.tv_nsec / 1000000 >= ms) return 0;
		}
	}
}
int main(int argc, char **argv) {
	if (argc > 1) ms = atol(argv[1]);
	int n = argc > 2 ? atoi(argv[2]) : 1;
	useclock = argc > 3 && strcmp(argv[3], "clock") == 0;
	pthread_t t[64];
	for (int i = 0; i < n; i++) pthread_create(&t[i], 0, burn, 0);
	for (int i = 0; i < n; i++) pthread_join(t[i], 0);
	return 0;
}
