#include <concepts>
#include <iostream>

template <std::integral T>
T twice(T x) { return 2 * x; }

int main() {
	std::cout << twice(1.5) << '\n';
}
