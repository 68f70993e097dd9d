#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Forks n children that wait to be reaped, and says how many forks succeeded. */
int main(void) {
	int n, made = 0;
	if (scanf("%d", &n) != 1)
		return 2;
	int fds[2];
	if (pipe(fds) != 0)
		return 3;
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			char c;
			close(fds[1]);
			read(fds[0], &c, 1); /* until the parent closes its end */
			_exit(0);
		}
		if (p > 0)
			made++;
	}
	close(fds[1]);
	while (wait(NULL) > 0)
		;
	printf("forked %d of %d\n", made, n);
	return 0;
}
