#include <iostream>
#include <vector>

int main() {
	long long a, b;
	std::cin >> a >> b;
	std::vector<char> v(std::size_t(1) << 30, 1);
	std::cout << a + b + v.back() - 1 << '\n';
}
