"""huarong-road test generator.

Usage: board.py SEED N M BLOCKED_PERCENT Q MODE
MODE: random - E, S, T random open cells (E != S)
      far    - S and T far apart on the board (long games)
      island - T is an open cell walled in by fixed pieces: every game is impossible, so a search
               that does not stop early explores everything
      same   - S = T in every other game, with the blank far away
      near   - the blank starts next to S in every other game, on T in the others
      mixed  - a mix of all of the above
Everything random comes from SEED.
"""
import random
import sys
from collections import deque

seed, n, m, blocked, q, mode = sys.argv[1:7]
rng = random.Random(int(seed))
n, m, blocked, q = int(n), int(m), int(blocked), int(q)
assert n * m >= 2, "a game needs two movable cells: the blank and the piece"
grid = [[0 if rng.randrange(100) < blocked else 1 for _ in range(m)] for _ in range(n)]
island = None
if mode in ("island", "mixed") and n >= 3 and m >= 3:
    r, c = rng.randrange(1, n - 1), rng.randrange(1, m - 1)
    grid[r][c] = 1
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        grid[r + dr][c + dc] = 0
    island = (r, c)
open_cells = [(r, c) for r in range(n) for c in range(m) if grid[r][c] == 1]
if len(open_cells) < 2:
    # Make sure two movable cells exist.
    grid[0][0] = 1
    grid[n - 1][m - 1] = 1
    open_cells = [(r, c) for r in range(n) for c in range(m) if grid[r][c] == 1]


def far_from(start):
    dist = {start: 0}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < n and 0 <= nc < m and grid[nr][nc] == 1 and (nr, nc) not in dist:
                dist[(nr, nc)] = dist[(r, c)] + 1
                queue.append((nr, nc))
    best = max(dist.values())
    return rng.choice([cell for cell, d in dist.items() if d >= best - 1])


games = []
for i in range(q):
    kind = mode if mode != "mixed" else rng.choice(["random", "far", "island", "same"])
    s = rng.choice(open_cells)
    e = rng.choice([cell for cell in open_cells if cell != s])
    if kind == "far":
        t = far_from(s)
        e = far_from(t) if far_from(t) != s else e
    elif kind == "island" and island is not None and island != s:
        t = island
    elif kind == "same" and i % 2 == 0:
        t = s
        far = far_from(s)
        if far != s:
            e = far
    elif kind == "near":
        t = rng.choice(open_cells)
        sides = [c for c in open_cells if abs(c[0] - s[0]) + abs(c[1] - s[1]) == 1]
        if i % 2 == 0 and sides:
            e = rng.choice(sides)
        elif t != s:
            e = t
    else:
        t = rng.choice(open_cells)
    if e == s:
        e = rng.choice([cell for cell in open_cells if cell != s])
    games.append((e, s, t))
print(n, m, q)
for row in grid:
    print(" ".join(map(str, row)))
for (e, s, t) in games:
    print(e[0] + 1, e[1] + 1, s[0] + 1, s[1] + 1, t[0] + 1, t[1] + 1)
