"""morning-after-halloween test generator.

Usage: maze.py SEED DATASETS WMIN WMAX HMIN HMAX N LOOP_PERCENT STEPS
Each dataset is a random maze carved on odd coordinates (so every 2x2 square keeps a wall), with
LOOP_PERCENT of the remaining inner walls knocked out where that keeps the walls connected. N = 0
picks 1 to 3 ghosts at random. Targets are random corridor cells; the ghosts start where STEPS
random legal joint steps from the targets lead (steps are reversible, so a solution exists).
Everything random comes from SEED.
"""
import random
import sys

seed, count, wmin, wmax, hmin, hmax, n_arg, loops, steps = map(int, sys.argv[1:10])
rng = random.Random(seed)
MOVES = ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1))


def walls_connected(grid, h, w):
    walls = [(r, c) for r in range(h) for c in range(w) if grid[r][c] == "#"]
    seen = {walls[0]}
    stack = [walls[0]]
    while stack:
        r, c = stack.pop()
        for dr, dc in MOVES[1:]:
            nr, nc = r + dr, c + dc
            if 0 <= nr < h and 0 <= nc < w and grid[nr][nc] == "#" and (nr, nc) not in seen:
                seen.add((nr, nc))
                stack.append((nr, nc))
    return len(seen) == len(walls)


def maze(w, h):
    grid = [["#"] * w for _ in range(h)]
    rooms = [(r, c) for r in range(1, h - 1, 2) for c in range(1, w - 1, 2)]
    start = rng.choice(rooms)
    grid[start[0]][start[1]] = " "
    stack = [start]
    while stack:
        r, c = stack[-1]
        options = [(r + 2 * dr, c + 2 * dc, r + dr, c + dc) for dr, dc in MOVES[1:]
                   if 1 <= r + 2 * dr < h - 1 and 1 <= c + 2 * dc < w - 1 and grid[r + 2 * dr][c + 2 * dc] == "#"]
        if not options:
            stack.pop()
            continue
        nr, nc, mr, mc = rng.choice(options)
        grid[mr][mc] = " "
        grid[nr][nc] = " "
        stack.append((nr, nc))
    inner = [(r, c) for r in range(1, h - 1) for c in range(1, w - 1)
             if grid[r][c] == "#" and (r % 2) != (c % 2)]
    rng.shuffle(inner)
    for r, c in inner:
        if rng.randrange(100) < loops:
            # Only knock out a wall between two corridor cells, keeping the walls connected.
            if (r % 2 == 1 and c + 1 < w - 1 and grid[r][c - 1] == " " and grid[r][c + 1] == " ") or \
               (c % 2 == 1 and r + 1 < h - 1 and grid[r - 1][c] == " " and grid[r + 1][c] == " "):
                grid[r][c] = " "
                if not walls_connected(grid, h, w):
                    grid[r][c] = "#"
    return grid


def legal_step(grid, pos):
    """One random legal joint step (possibly all staying)."""
    for _ in range(50):
        new = []
        for r, c in pos:
            dr, dc = rng.choice(MOVES)
            new.append((r + dr, c + dc) if grid[r + dr][c + dc] != "#" else (r, c))
        if len(set(new)) < len(new):
            continue
        if any(new[i] == pos[j] and new[j] == pos[i] for i in range(len(pos)) for j in range(i + 1, len(pos))):
            continue
        return new
    return pos


out = []
for _ in range(count):
    attempts = 0
    while True:
        # Re-draw the shape now and then: some small mazes cannot hold the ghosts.
        if attempts % 20 == 0:
            w, h = rng.randint(wmin, wmax), rng.randint(hmin, hmax)
            n = n_arg if n_arg else rng.randint(1, 3)
        attempts += 1
        grid = maze(w, h)
        corridors = [(r, c) for r in range(h) for c in range(w) if grid[r][c] == " "]
        if len(corridors) < 2 * n:
            continue
        goals = rng.sample(corridors, n)
        pos = list(goals)
        for _ in range(steps):
            pos = legal_step(grid, pos)
        if len(set(pos) | set(goals)) == 2 * n:
            break
    for i in range(n):
        grid[goals[i][0]][goals[i][1]] = "ABC"[i]
        grid[pos[i][0]][pos[i][1]] = "abc"[i]
    out.append(f"{w} {h} {n}")
    out.extend("".join(row) for row in grid)
out.append("0 0 0")
print("\n".join(out))
