"""huarong-road generator: one long corridor, one cell wide, closed into a loop.

Usage: cycle.py SEED N M Q
Needs N >= 5 and M >= 4. The loop snakes through the even rows from column 3 to column M,
then comes back up column 1; every other cell is fixed. On a loop of length L the designated
piece can only advance by letting the blank walk all the way round it (L - 2 moves) and swapping
(1 move), so sending it k cells along costs about k (L - 1) moves: on 30 x 30 that is close to
100,000, the largest answers this problem can have. Everything random comes from SEED.
"""
import random
import sys

seed, n, m, q = map(int, sys.argv[1:5])
assert n >= 5 and m >= 4, "the loop needs at least 5 rows and 4 columns"
rng = random.Random(seed)

# An even number of horizontal runs, so that the last one ends on the left, next to column 1.
runs = (n - 1) // 2
runs -= runs % 2
loop = []  # cells in order around the loop
for k in range(runs):
    cols = range(2, m) if k % 2 == 0 else range(m - 1, 1, -1)
    loop += [(2 * k, c) for c in cols]
    if k + 1 < runs:
        loop.append((2 * k + 1, m - 1 if k % 2 == 0 else 2))
bottom = 2 * runs  # row of the way back: down one cell, then left to column 1, then up
loop += [(bottom - 1, 2), (bottom, 2), (bottom, 1)]
loop += [(r, 0) for r in range(bottom, -1, -1)]
loop.append((0, 1))
grid = [[0] * m for _ in range(n)]
for r, c in loop:
    grid[r][c] = 1
size = len(loop)

games = []
for i in range(q):
    kind = rng.choice(["opposite", "opposite", "opposite", "random", "same", "behind"])
    s = rng.randrange(size)
    if kind == "opposite":
        t = (s + size // 2 + rng.randrange(-2, 3)) % size
    elif kind == "same":
        t = s
    else:
        t = rng.randrange(size)
    if kind == "behind":
        # The blank starts right next to the piece (on either side).
        e = (s + rng.choice([-1, 1])) % size
    else:
        e = rng.choice([x for x in range(size) if x != s])
    games.append((loop[e], loop[s], loop[t]))

print(n, m, q)
for row in grid:
    print(" ".join(map(str, row)))
for e, s, t in games:
    print(e[0] + 1, e[1] + 1, s[0] + 1, s[1] + 1, t[0] + 1, t[1] + 1)
