#include <stdio.h>

int main(void) {
	long long a = "not a number";
	undeclared_function(a);
	return 0
}
