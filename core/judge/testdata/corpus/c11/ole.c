#include <stdio.h>
int main(void) { static char buf[1 << 16]; for (int i = 0; i < (int)sizeof buf; i++) buf[i] = 'x'; for (;;) fwrite(buf, 1, sizeof buf, stdout); }
