// Fork bomb: forks forever; the pids limit stops it and the run is killed for time.
#include <unistd.h>
int main(void) { for (;;) fork(); }
