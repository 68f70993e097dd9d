#include <iostream>
#include <vector>

int main() {
	long long a, b;
	std::cin >> a >> b;
	std::vector<char> v(std::size_t(100) << 20, 1);
	std::cout << a + b + v.back() - 1 << '\n';
}
