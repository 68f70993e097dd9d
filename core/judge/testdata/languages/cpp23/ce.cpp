#include <iostream>

int main() {
	std::string s = 42;
	std::cout << undeclared << '\n'
}
