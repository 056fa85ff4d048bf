"""black-white-board test generator.

Usage: boards.py SEED MODE [BLANK]
MODE: random - two independent random boards with 8 ones
      far    - a random start and a target as far from it as possible
      near:D - the target is the start after D random swaps of different cells
      same   - the target equals the start
BLANK: "blank" puts an empty line between the boards (default), "tight" does not.
"""
import random
import sys
from collections import deque

seed, mode = int(sys.argv[1]), sys.argv[2]
blank = (sys.argv[3] if len(sys.argv) > 3 else "blank") == "blank"
rng = random.Random(seed)
SWAPS = [(c, c + 1) for c in range(16) if c % 4 < 3] + [(c, c + 4) for c in range(12)]


def random_board():
    cells = [1] * 8 + [0] * 8
    rng.shuffle(cells)
    return cells


def farthest(start):
    key = tuple(start)
    dist = {key: 0}
    queue = deque([key])
    while queue:
        b = queue.popleft()
        for x, y in SWAPS:
            if b[x] != b[y]:
                n = list(b)
                n[x], n[y] = n[y], n[x]
                n = tuple(n)
                if n not in dist:
                    dist[n] = dist[b] + 1
                    queue.append(n)
    best = max(dist.values())
    return list(rng.choice(sorted(b for b, d in dist.items() if d == best)))


start = random_board()
if mode == "random":
    target = random_board()
elif mode == "far":
    target = farthest(start)
elif mode.startswith("near:"):
    target = list(start)
    for _ in range(int(mode[5:])):
        x, y = rng.choice([s for s in SWAPS if target[s[0]] != target[s[1]]])
        target[x], target[y] = target[y], target[x]
elif mode == "same":
    target = list(start)
else:
    sys.exit(f"unknown mode {mode}")
rows = ["".join(map(str, b[r * 4:r * 4 + 4])) for b in (start, target) for r in range(4)]
print("\n".join(rows[:4]))
if blank:
    print()
print("\n".join(rows[4:]))
