"""black-white-board test generator: prints one input (start board, target board).

Usage: boards.py SEED MODE [tight]
MODE: random  - two independent random boards with 8 ones each
      dist:D  - a random start and a random target exactly D moves away (D = 0: equal boards)
      far     - a random start and a random target as far from it as possible
"tight" leaves out the empty line between the two boards (the default prints it).
All randomness comes from SEED, so the same arguments always give the same bytes.
"""
import random
import sys
from collections import deque

seed, mode = int(sys.argv[1]), sys.argv[2]
tight = sys.argv[3:] == ["tight"]
rng = random.Random(seed)
# Cells are numbered 4 * row + column; these are all pairs of edge-adjacent cells.
ADJACENT = [(c, c + 1) for c in range(16) if c % 4 < 3] + [(c, c + 4) for c in range(12)]


def random_board():
    cells = [1] * 8 + [0] * 8
    rng.shuffle(cells)
    return tuple(cells)


def distances(start):
    """Fewest moves from start to every reachable board (a BFS over all of them)."""
    dist = {start: 0}
    queue = deque([start])
    while queue:
        board = queue.popleft()
        for x, y in ADJACENT:
            if board[x] != board[y]:
                nxt = list(board)
                nxt[x], nxt[y] = nxt[y], nxt[x]
                nxt = tuple(nxt)
                if nxt not in dist:
                    dist[nxt] = dist[board] + 1
                    queue.append(nxt)
    return dist


def target_at(start, want):
    dist = distances(start)
    if want is None:
        want = max(dist.values())
    # Sorted so that the choice depends only on the seed, not on dict order.
    choices = sorted(b for b, d in dist.items() if d == want)
    if not choices:
        sys.exit(f"no board is {want} moves from the start")
    return rng.choice(choices)


start = random_board()
if mode == "random":
    target = random_board()
elif mode == "far":
    target = target_at(start, None)
elif mode.startswith("dist:"):
    target = target_at(start, int(mode[5:]))
else:
    sys.exit(f"unknown mode {mode}")

rows = ["".join(map(str, board[r * 4:r * 4 + 4])) for board in (start, target) for r in range(4)]
print("\n".join(rows[:4]))
if not tight:
    print()
print("\n".join(rows[4:]))
