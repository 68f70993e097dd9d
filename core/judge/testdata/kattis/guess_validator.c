/* An interactive Kattis validator: the secret number is the input's; the solution
   guesses, the validator answers lower/higher/correct; at most 10 guesses. */
#include <stdio.h>

int main(int argc, char **argv) {
	if (argc < 4) return 1;
	FILE *in = fopen(argv[1], "r");
	int secret;
	if (!in || fscanf(in, "%d", &secret) != 1) return 1;
	char path[4096];
	snprintf(path, sizeof path, "%sjudgemessage.txt", argv[3]);
	FILE *judge = fopen(path, "w");
	for (int guesses = 1; guesses <= 10; guesses++) {
		int g;
		if (scanf("%d", &g) != 1) {
			fprintf(judge, "no guess after %d\n", guesses - 1);
			return 43;
		}
		if (g == secret) {
			printf("correct\n");
			fflush(stdout);
			fprintf(judge, "found %d in %d guesses\n", secret, guesses);
			return 42;
		}
		printf(g < secret ? "higher\n" : "lower\n");
		fflush(stdout);
	}
	fprintf(judge, "out of guesses; the number was %d\n", secret);
	return 43;
}
