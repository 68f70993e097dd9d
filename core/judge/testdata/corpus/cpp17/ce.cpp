#include <iostream>
int main() { std::cout << "missing semicolon" << std::endl }
