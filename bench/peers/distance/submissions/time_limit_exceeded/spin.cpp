#include <iostream>

// Counts up to the difference one by one.
int main() {
    long long a, b;
    while (std::cin >> a >> b) {
        volatile long long d = 0;
        for (long long lo = a < b ? a : b, hi = a < b ? b : a; lo < hi; lo++) d = d + 1;
        std::cout << d << '\n';
    }
}
