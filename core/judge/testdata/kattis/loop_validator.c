/* A broken validator: it never ends. */
int main(void) { volatile unsigned long n = 0; for (;;) n++; }
