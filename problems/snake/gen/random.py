"""Snake test generator.

Usage: random.py SEED N M K WALL_PERCENT MODE
MODE: random  - apple on a random free cell
      far     - apple on the free cell farthest (by plain grid distance) from the head
      enclose - apple walled in on every side: unreachable, so a search explores everything
      tiny    - N, M, K and WALL_PERCENT are maxima: a small random shape (for cross-checks)
Everything random comes from SEED: the same arguments print the same bytes.
"""
import random
import sys
from collections import deque

seed, n, m, k, wall_pct, mode = sys.argv[1:7]
rng = random.Random(int(seed))
n, m, k, wall_pct = int(n), int(m), int(k), int(wall_pct)
if mode == "tiny":
    max_n, max_m = n, m
    while True:
        n, m = rng.randint(1, max_n), rng.randint(1, max_m)
        if n * m >= 4:
            break
    k = rng.randint(3, min(k, n * m - 1))
    wall_pct = rng.randint(0, wall_pct)
STEPS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def inside(r, c):
    return 0 <= r < n and 0 <= c < m


for attempt in range(10000):
    grid = [["#" if rng.randrange(100) < wall_pct else "." for _ in range(m)] for _ in range(n)]
    free = [(r, c) for r in range(n) for c in range(m) if grid[r][c] == "."]
    if len(free) < k + 1:
        continue
    # The snake: a random self-avoiding walk of k cells.
    body = [rng.choice(free)]
    while len(body) < k:
        r, c = body[-1]
        options = [(r + dr, c + dc) for dr, dc in STEPS
                   if inside(r + dr, c + dc) and grid[r + dr][c + dc] == "." and (r + dr, c + dc) not in body]
        if not options:
            break
        body.append(rng.choice(options))
    if len(body) < k:
        continue
    rest = [cell for cell in free if cell not in body]
    if not rest:
        continue
    if mode == "far":
        dist = {body[0]: 0}
        queue = deque([body[0]])
        while queue:
            r, c = queue.popleft()
            for dr, dc in STEPS:
                nxt = (r + dr, c + dc)
                if inside(*nxt) and grid[nxt[0]][nxt[1]] == "." and nxt not in dist:
                    dist[nxt] = dist[(r, c)] + 1
                    queue.append(nxt)
        reachable = [cell for cell in rest if cell in dist]
        if not reachable:
            continue
        best = max(dist[cell] for cell in reachable)
        apple = rng.choice([cell for cell in reachable if dist[cell] == best])
    elif mode == "enclose":
        apple = rng.choice(rest)
        neighbours = [(apple[0] + dr, apple[1] + dc) for dr, dc in STEPS if inside(apple[0] + dr, apple[1] + dc)]
        if any(cell in body for cell in neighbours):
            continue
        for r, c in neighbours:
            grid[r][c] = "#"
    else:
        apple = rng.choice(rest)
    grid[apple[0]][apple[1]] = "@"
    for i, (r, c) in enumerate(body):
        grid[r][c] = str(i + 1)
    print(n, m)
    for row in grid:
        print("".join(row))
    break
else:
    sys.exit("no valid board found for these arguments")
