// Sleeps 10 s, or blocks reading stdin with "read".
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
	char c;
	if (argc > 1 && strcmp(argv[1], "read") == 0) return (int)read(0, &c, 1);
	sleep(10);
	return 0;
}
