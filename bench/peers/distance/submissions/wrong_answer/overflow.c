#include <stdio.h>
#include <stdlib.h>

/* The difference in an int: wrong once it passes 2^31. */
int main(void) {
    long long a, b;
    while (scanf("%lld %lld", &a, &b) == 2)
        printf("%d\n", abs((int)(a - b)));
    return 0;
}
