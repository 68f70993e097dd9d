// Thread bomb: creates sleeping threads forever, retrying when the pids limit says no.
#include <pthread.h>
#include <unistd.h>
static void *idle(void *p) { (void)p; for (;;) pause(); return 0; }
int main(void) {
	for (;;) { pthread_t t; pthread_create(&t, 0, idle, 0); }
}
